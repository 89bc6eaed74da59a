/* vault.h: Ansible Vault secrets and decryption (vault.c). A keyring is
 * the list of (vault id, password) pairs ansible-playbook builds from
 * --vault-id and --vault-password-file; the playbook loader, the modules
 * that read files and the unvault lookup decrypt with the keyring in use.
 * A keyring owns its secrets and wipes them when released. */
#ifndef IMC_UTIL_VAULT_H
#define IMC_UTIL_VAULT_H

#include <stdbool.h>
#include <stddef.h>

struct vault_secret {
	char *id;              /* the vault id ("default" when none was given) */
	unsigned char *bytes;  /* the password (a secret) */
	size_t len;
};

struct vault_keyring {
	struct vault_secret *v;
	size_t n;
};

void vault_keyring_add(struct vault_keyring *k, const char *id, const void *bytes, size_t len);
/* Wipes and frees the secrets; k may be NULL. */
void vault_keyring_release(struct vault_keyring *k);

/* Loads a secret as Ansible's get_file_vault_secret does: an executable
 * file is run (with '--vault-id ID' when its name ends in -client) and
 * its stdout, stripped of line ends, is the password; any other file is
 * read and stripped of white space. 0, or -1 with *err (malloc'd, in
 * Ansible's words, never holding the password); -2 (with *err) when
 * there is no such file. */
int vault_secret_load(struct vault_keyring *k, const char *id, const char *path, char **err);

/* The keyring decryptions use: this thread's (vault_keyring_use), else
 * the process's (vault_keyring_set_default), else an empty one. Both are
 * borrowed: the caller keeps them alive while they are in use. */
void vault_keyring_set_default(const struct vault_keyring *k);
void vault_keyring_use(const struct vault_keyring *k);
const struct vault_keyring *vault_keyring_current(void);

/* Whether data is vault-encrypted as Ansible's is_encrypted tells: ASCII
 * text starting with $ANSIBLE_VAULT. */
bool vault_is_encrypted(const char *data, size_t len);

/* Decrypts data (a vault 1.1 or 1.2 envelope, AES256) with the current
 * keyring, trying the secret of the envelope's vault id first, then the
 * others unless ANSIBLE_VAULT_ID_MATCH is set, as Ansible's VaultLib.
 * 0 with *out (malloc'd, NUL-terminated, *outlen bytes), or -1 with *err
 * (malloc'd, Ansible's message, naming filename when not NULL). */
int vault_decrypt(const char *data, size_t len, const char *filename, char **out, size_t *outlen,
		  char **err);

/* vault_decrypt for a file Ansible reads with get_real_file (a copy or
 * template src, the unvault lookup): with no secret at all, Ansible's
 * "A vault password or secret must be specified to decrypt FILE". */
int vault_decrypt_real_file(const char *data, size_t len, const char *path, char **out, size_t *outlen,
			    char **err);

/* vault_decrypt with one secret, under vault id id, alone (Ansible's
 * VaultLib([(id, secret)]), as the unvault filter decrypts. */
int vault_decrypt_secret(const char *data, size_t len, const char *id, const void *secret, size_t nsecret,
			 char **out, size_t *outlen, char **err);

/* Encrypts n bytes of plain with secret as Ansible's VaultLib.encrypt
 * (AES256; salt NULL draws 32 random bytes, as Ansible does): the
 * envelope, 1.2 with vault_id when that is given and not "default",
 * else 1.1 (malloc'd), or NULL with *err (Ansible's message: already
 * encrypted input, an empty salt). */
char *vault_encrypt(const void *plain, size_t n, const void *secret, size_t nsecret, const void *salt,
		    size_t nsalt, const char *vault_id, char **err);

/* The texts that came from a !vault tag, for Ansible's vault_encrypted
 * test: the loader marks each, the test asks by content (copies of the
 * value, which Ansible's templating keeps as the vault object, count
 * too). Only their SHA-256 digests are kept. */
void vault_mark_text(const char *s, size_t n);
bool vault_text_marked(const char *s, size_t n);

/* Overwrites n bytes of p (a secret) in a way the compiler keeps. */
void vault_wipe(void *p, size_t n);
/* Wipes and frees a decrypted text (NULL is fine). */
void vault_free_plain(char *plain, size_t len);

#endif
