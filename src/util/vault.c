/* vault.c: Ansible Vault, as ansible-playbook reads it, so that imc runs
 * the playbooks, vars files, !vault values and files Ansible decrypts
 * instead of refusing them. The format is Ansible's documented vault
 * 1.1/1.2 envelope: a header line "$ANSIBLE_VAULT;1.1;AES256[;ID]", then
 * the hex of "hex(salt)\nhex(hmac)\nhex(ciphertext)"; the keys are
 * PBKDF2-HMAC-SHA256 (10000 rounds, 80 bytes: the AES-256 key, the HMAC
 * key, the CTR counter), the HMAC-SHA256 of the ciphertext is checked
 * before AES-256-CTR decrypts it, and PKCS#7 padding (16-byte blocks) is
 * removed. Every primitive is OpenSSL's. The secrets stay in memory only
 * (wiped on release); errors never quote them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "util/hash.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define VAULT_HEADER "$ANSIBLE_VAULT"
#define VAULT_ROUNDS 10000
/* a password script's output, and a password file, are read up to this */
#define VAULT_MAX_SECRET (1 << 20)

void vault_keyring_add(struct vault_keyring *k, const char *id, const void *bytes, size_t len)
{
	k->v = xreallocarray(k->v, k->n + 1, sizeof(*k->v));
	struct vault_secret *s = &k->v[k->n++];
	s->id = xstrdup(id && *id ? id : "default");
	s->bytes = xmalloc(len + 1);
	memcpy(s->bytes, bytes, len);
	s->bytes[len] = 0;
	s->len = len;
}

void vault_keyring_release(struct vault_keyring *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		OPENSSL_cleanse(k->v[i].bytes, k->v[i].len);
		free(k->v[i].bytes);
		free(k->v[i].id);
	}
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

static const struct vault_keyring *default_ring;
static _Thread_local const struct vault_keyring *thread_ring;

void vault_keyring_set_default(const struct vault_keyring *k)
{
	default_ring = k;
}

void vault_keyring_use(const struct vault_keyring *k)
{
	thread_ring = k;
}

const struct vault_keyring *vault_keyring_current(void)
{
	static const struct vault_keyring empty;
	if (thread_ring)
		return thread_ring;
	return default_ring ? default_ring : &empty;
}

static pthread_mutex_t marks_lock = PTHREAD_MUTEX_INITIALIZER;
static char (*marks)[65];
static size_t nmarks, amarks;

void vault_mark_text(const char *s, size_t n)
{
	char h[65];
	hash_sha256_hex(s, n, h);
	pthread_mutex_lock(&marks_lock);
	bool known = false;
	for (size_t i = 0; i < nmarks && !known; i++)
		known = !strcmp(marks[i], h);
	if (!known) {
		if (nmarks == amarks) {
			amarks = amarks ? 2 * amarks : 16;
			marks = xreallocarray(marks, amarks, sizeof(*marks));
		}
		memcpy(marks[nmarks++], h, sizeof(h));
	}
	pthread_mutex_unlock(&marks_lock);
}

bool vault_text_marked(const char *s, size_t n)
{
	char h[65];
	bool found = false;
	pthread_mutex_lock(&marks_lock);
	if (nmarks)
		hash_sha256_hex(s, n, h);
	for (size_t i = 0; i < nmarks && !found; i++)
		found = !strcmp(marks[i], h);
	pthread_mutex_unlock(&marks_lock);
	return found;
}

bool vault_is_encrypted(const char *data, size_t len)
{
	if (!data || len < sizeof(VAULT_HEADER) - 1 || memcmp(data, VAULT_HEADER, sizeof(VAULT_HEADER) - 1))
		return false;
	/* Ansible first encodes the whole text as ASCII: anything else is
	 * not vault data */
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)data[i] > 127)
			return false;
	return true;
}

/* Python's bytes.strip() white space */
static bool py_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* binascii.unhexlify of s (n bytes) into a malloc'd buffer, with its
 * error text as Python words it */
static unsigned char *unhex(const char *s, size_t n, size_t *outlen, char **err)
{
	if (n % 2) {
		*err = xstrdup("Vault format unhexlify error: Odd-length string");
		return NULL;
	}
	unsigned char *o = xmalloc(n / 2 + 1);
	for (size_t i = 0; i < n; i += 2) {
		int v[2];
		for (int j = 0; j < 2; j++) {
			int c = (unsigned char)s[i + j];
			v[j] = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		}
		if (v[0] < 0 || v[1] < 0) {
			free(o);
			*err = xstrdup("Vault format unhexlify error: Non-hexadecimal digit found");
			return NULL;
		}
		o[i / 2] = (unsigned char)(v[0] << 4 | v[1]);
	}
	*outlen = n / 2;
	return o;
}

struct vault_body {
	unsigned char *salt, *ct;
	size_t nsalt, nct;
	const char *hmac_hex; /* into the unhexed body */
	size_t nhmac;
	unsigned char *raw;   /* the unhexed body */
};

static void body_release(struct vault_body *b)
{
	free(b->salt);
	free(b->ct);
	free(b->raw);
}

/* The envelope's payload (every line after the header, joined) into its
 * salt, HMAC (hex) and ciphertext, as Ansible's parse_vaulttext. */
static int parse_body(const char *payload, size_t n, struct vault_body *b, char **err)
{
	memset(b, 0, sizeof(*b));
	size_t nraw = 0;
	b->raw = unhex(payload, n, &nraw, err);
	if (!b->raw)
		return -1;
	const char *r = (const char *)b->raw;
	const char *nl1 = memchr(r, '\n', nraw);
	const char *nl2 = nl1 ? memchr(nl1 + 1, '\n', nraw - (size_t)(nl1 + 1 - r)) : NULL;
	if (!nl2) {
		*err = xasprintf("Vault vaulttext format error: not enough values to unpack (expected 3, got %d)",
				 nl1 ? 2 : 1);
		return -1;
	}
	b->hmac_hex = nl1 + 1;
	b->nhmac = (size_t)(nl2 - nl1 - 1);
	b->salt = unhex(r, (size_t)(nl1 - r), &b->nsalt, err);
	if (!b->salt)
		return -1;
	b->ct = unhex(nl2 + 1, nraw - (size_t)(nl2 + 1 - r), &b->nct, err);
	return b->ct ? 0 : -1;
}

/* One secret against the body: 1 decrypted (*out), 0 not this secret's
 * (the HMAC differs), -1 a format error (*err). */
static int try_secret(const struct vault_secret *s, const struct vault_body *b, char **out, size_t *outlen,
		      char **err)
{
	unsigned char dk[80], mac[EVP_MAX_MD_SIZE];
	unsigned int nmac = 0;
	int rc = 0;
	unsigned char *want = NULL, *plain = NULL;
	size_t nwant = 0;
	EVP_CIPHER_CTX *ctx = NULL;
	if (!PKCS5_PBKDF2_HMAC((const char *)s->bytes, (int)s->len, b->salt, (int)b->nsalt, VAULT_ROUNDS,
			       EVP_sha256(), (int)sizeof(dk), dk))
		goto out;
	want = unhex(b->hmac_hex, b->nhmac, &nwant, err);
	if (!want) {
		rc = -1;
		goto out;
	}
	if (!HMAC(EVP_sha256(), dk + 32, 32, b->ct, b->nct, mac, &nmac) || nwant != nmac ||
	    CRYPTO_memcmp(mac, want, nmac))
		goto out;
	ctx = EVP_CIPHER_CTX_new();
	plain = xmalloc(b->nct + 32);
	int n1 = 0, n2 = 0;
	if (!ctx || !EVP_DecryptInit_ex(ctx, EVP_aes_256_ctr(), NULL, dk, dk + 64) ||
	    !EVP_DecryptUpdate(ctx, plain, &n1, b->ct, (int)b->nct) ||
	    !EVP_DecryptFinal_ex(ctx, plain + n1, &n2))
		goto out;
	size_t np = (size_t)n1 + (size_t)n2;
	/* PKCS#7 over 16-byte blocks: Ansible's unpadder refuses anything else */
	unsigned pad = np ? plain[np - 1] : 0;
	bool ok = np % 16 == 0 && pad >= 1 && pad <= 16;
	for (unsigned i = 1; ok && i <= pad; i++)
		ok = plain[np - i] == pad;
	if (!ok) {
		*err = xstrdup("Invalid padding bytes.");
		rc = -1;
		goto out;
	}
	np -= pad;
	plain[np] = 0;
	*out = (char *)plain;
	*outlen = np;
	plain = NULL;
	rc = 1;
out:
	OPENSSL_cleanse(dk, sizeof(dk));
	if (plain) {
		OPENSSL_cleanse(plain, b->nct + 32);
		free(plain);
	}
	free(want);
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

/* ANSIBLE_VAULT_ID_MATCH as Ansible's boolean() reads a setting */
static bool id_match_only(void)
{
	const char *v = getenv("ANSIBLE_VAULT_ID_MATCH");
	static const char *const yes[] = { "y", "yes", "on", "1", "true", "t", "1.0", NULL };
	for (const char *const *y = yes; v && *y; y++)
		if (!strcasecmp(v, *y))
			return true;
	return false;
}

/* path made absolute without following links (Ansible's unfrackpath
 * with follow=False), for its messages */
static char *abs_path(const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	return xasprintf("%s/%s", cwd, path);
}

static int decrypt_with(const struct vault_keyring *k, const char *data, size_t len, const char *filename,
			char **out, size_t *outlen, char **err)
{
	*out = NULL;
	*err = NULL;
	if (!vault_is_encrypted(data, len)) {
		*err = filename ? xasprintf("input is not vault encrypted data. %s is not a vault encrypted file",
					    filename)
				: xstrdup("input is not vault encrypted data. ");
		return -1;
	}
	/* the header: its fields split on ';', each stripped */
	size_t hl = strcspn(data, "\r\n");
	char *header = xstrndup(data, hl);
	char *f[5] = { 0 };
	int nf = 0;
	for (char *p = header; p && nf < 5;) {
		char *semi = strchr(p, ';');
		if (semi)
			*semi = 0;
		while (py_space(*p))
			p++;
		size_t l = strlen(p);
		while (l && py_space(p[l - 1]))
			p[--l] = 0;
		f[nf++] = p;
		p = semi ? semi + 1 : NULL;
	}
	const char *vid = nf >= 4 ? f[3] : NULL;
	struct vault_body b = { 0 };
	struct strbuf payload = STRBUF_INIT;
	int rc = -1;
	if (nf < 3) {
		*err = xasprintf("Vault envelope format error%s%s: list index out of range", filename ? " in " : "",
				 filename ? filename : "");
		goto out;
	}
	if (strcmp(f[2], "AES256")) {
		*err = xasprintf("%s cipher could not be found", f[2]);
		goto out;
	}
	if (!k->n) {
		*err = xstrdup("Attempting to decrypt but no vault secrets found");
		goto out;
	}
	/* Python's splitlines: \n, \r and \r\n end lines; the rest joined */
	for (const char *p = data + hl; p < data + len; p++)
		if (*p != '\n' && *p != '\r')
			strbuf_add(&payload, p, 1);
	if (parse_body(payload.buf ? payload.buf : "", payload.len, &b, err) < 0)
		goto out;
	/* the envelope's vault id first, then (unless ids must match) the
	 * others in the order they were given */
	bool only = id_match_only();
	for (int pass = 0; pass < 2 && rc < 0; pass++)
		for (size_t i = 0; i < k->n && rc < 0; i++) {
			bool same = vid && !strcmp(k->v[i].id, vid);
			if (pass == 0 ? !same : same || only)
				continue;
			int r = try_secret(&k->v[i], &b, out, outlen, err);
			if (r < 0)
				goto out;
			if (r > 0)
				rc = 0;
		}
	if (rc < 0) {
		/* Ansible names the file by its absolute path */
		struct stat st;
		char *ap = filename && stat(filename, &st) == 0 ? abs_path(filename) : NULL;
		*err = xasprintf("Decryption failed (no vault secrets were found that could decrypt)%s%s",
				 filename ? " on " : "", ap ? ap : filename ? filename : "");
		free(ap);
	}
out:
	body_release(&b);
	strbuf_release(&payload);
	free(header);
	return rc;
}

int vault_decrypt(const char *data, size_t len, const char *filename, char **out, size_t *outlen, char **err)
{
	return decrypt_with(vault_keyring_current(), data, len, filename, out, outlen, err);
}

int vault_decrypt_secret(const char *data, size_t len, const char *id, const void *secret, size_t nsecret,
			 char **out, size_t *outlen, char **err)
{
	struct vault_keyring k = { 0 };
	vault_keyring_add(&k, id, secret, nsecret);
	int rc = decrypt_with(&k, data, len, NULL, out, outlen, err);
	vault_keyring_release(&k);
	return rc;
}

static void add_hex(struct strbuf *sb, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		strbuf_addch(sb, digits[p[i] >> 4]);
		strbuf_addch(sb, digits[p[i] & 15]);
	}
}

char *vault_encrypt(const void *plain, size_t n, const void *secret, size_t nsecret, const void *salt,
		    size_t nsalt, const char *vault_id, char **err)
{
	unsigned char rsalt[32], dk[80], mac[EVP_MAX_MD_SIZE];
	unsigned nmac = 0;
	*err = NULL;
	if (vault_is_encrypted(plain, n)) {
		*err = xstrdup("input is already encrypted");
		return NULL;
	}
	if (salt && !nsalt) {
		*err = xstrdup("Empty or invalid salt passed to encrypt()");
		return NULL;
	}
	if (!salt) {
		if (RAND_bytes(rsalt, (int)sizeof(rsalt)) != 1) {
			*err = xstrdup("no random bytes for the salt");
			return NULL;
		}
		salt = rsalt;
		nsalt = sizeof(rsalt);
	}
	/* PKCS#7 to whole 16-byte blocks, which Ansible applies even in CTR */
	size_t pad = 16 - n % 16, nct = n + pad;
	unsigned char *padded = xmalloc(nct), *ct = xmalloc(nct);
	memcpy(padded, plain, n);
	memset(padded + n, (int)pad, pad);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int n1 = 0, n2 = 0;
	char *r = NULL;
	if (!PKCS5_PBKDF2_HMAC(secret, (int)nsecret, salt, (int)nsalt, VAULT_ROUNDS, EVP_sha256(), (int)sizeof(dk),
			       dk) ||
	    !ctx || !EVP_EncryptInit_ex(ctx, EVP_aes_256_ctr(), NULL, dk, dk + 64) ||
	    !EVP_EncryptUpdate(ctx, ct, &n1, padded, (int)nct) || !EVP_EncryptFinal_ex(ctx, ct + n1, &n2) ||
	    !HMAC(EVP_sha256(), dk + 32, 32, ct, nct, mac, &nmac)) {
		*err = xstrdup("the encryption failed (OpenSSL)");
		goto out;
	}
	/* hex(hex(salt) "\n" hex(hmac) "\n" hex(ciphertext)), in lines of 80
	 * under the header; version 1.2 names the vault id */
	struct strbuf inner = STRBUF_INIT, sb = STRBUF_INIT;
	add_hex(&inner, salt, nsalt);
	strbuf_addch(&inner, '\n');
	add_hex(&inner, mac, nmac);
	strbuf_addch(&inner, '\n');
	add_hex(&inner, ct, nct);
	bool v12 = vault_id && *vault_id && strcmp(vault_id, "default");
	strbuf_addf(&sb, VAULT_HEADER ";%s;AES256%s%s\n", v12 ? "1.2" : "1.1", v12 ? ";" : "", v12 ? vault_id : "");
	struct strbuf outer = STRBUF_INIT;
	add_hex(&outer, (const unsigned char *)inner.buf, inner.len);
	for (size_t i = 0; i < outer.len; i += 80) {
		strbuf_add(&sb, outer.buf + i, outer.len - i < 80 ? outer.len - i : 80);
		strbuf_addch(&sb, '\n');
	}
	strbuf_release(&outer);
	strbuf_release(&inner);
	r = strbuf_detach(&sb);
out:
	EVP_CIPHER_CTX_free(ctx);
	OPENSSL_cleanse(dk, sizeof(dk));
	OPENSSL_cleanse(padded, nct);
	free(padded);
	free(ct);
	return r;
}

void vault_wipe(void *p, size_t n)
{
	if (p)
		OPENSSL_cleanse(p, n);
}

void vault_free_plain(char *plain, size_t len)
{
	if (!plain)
		return;
	OPENSSL_cleanse(plain, len);
	free(plain);
}

int vault_decrypt_real_file(const char *data, size_t len, const char *path, char **out, size_t *outlen,
			    char **err)
{
	if (!vault_keyring_current()->n) {
		char *ap = abs_path(path);
		*out = NULL;
		*err = xasprintf("A vault password or secret must be specified to decrypt %s", ap);
		free(ap);
		return -1;
	}
	return vault_decrypt(data, len, path, out, outlen, err);
}

/* Reads fd to its end into sb (at most VAULT_MAX_SECRET bytes kept). */
static void read_all(int fd, struct strbuf *sb)
{
	char buf[4096];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (sb->len + (size_t)r <= VAULT_MAX_SECRET)
			strbuf_add(sb, buf, (size_t)r);
	}
	OPENSSL_cleanse(buf, sizeof(buf));
}

/* Runs a password script (argv: path [--vault-id ID]) and reads its
 * stdout into sb; a client script's stderr is captured into eb, a plain
 * one's left to the user (a script may prompt there). The exit status, or
 * -1 when it could not be run (*err set). */
static int run_script(const char *path, const char *id, bool client, struct strbuf *sb, struct strbuf *eb,
		      char **err)
{
	int po[2], pe[2] = { -1, -1 };
	if (pipe2(po, O_CLOEXEC) < 0 || (client && pipe2(pe, O_CLOEXEC) < 0)) {
		*err = xasprintf("cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(po[1], 1);
		if (client)
			dup2(pe[1], 2);
		if (client && id)
			execl(path, path, "--vault-id", id, (char *)NULL);
		else
			execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	if (client)
		close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		if (client)
			close(pe[0]);
		*err = xasprintf("cannot fork: %s", strerror(errno));
		return -1;
	}
	read_all(po[0], sb);
	close(po[0]);
	if (client) {
		read_all(pe[0], eb);
		close(pe[0]);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !sb->len) {
		*err = xasprintf("Problem running vault password %sscript %s ([Errno 8] Exec format error)."
				 " If this is not a script, remove the executable bit from the file.",
				 client ? "client " : "", path);
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Python's b'...' repr of captured stderr, as Ansible's messages show it */
static char *py_bytes_repr(const struct strbuf *b)
{
	struct strbuf o = STRBUF_INIT;
	strbuf_addstr(&o, "b'");
	for (size_t i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->buf[i];
		if (c == '\n')
			strbuf_addstr(&o, "\\n");
		else if (c == '\t')
			strbuf_addstr(&o, "\\t");
		else if (c == '\r')
			strbuf_addstr(&o, "\\r");
		else if (c == '\\' || c == '\'')
			strbuf_addf(&o, "\\%c", c);
		else if (c < 32 || c >= 127)
			strbuf_addf(&o, "\\x%02x", c);
		else
			strbuf_add(&o, (const char *)&c, 1);
	}
	strbuf_addstr(&o, "'");
	return strbuf_detach(&o);
}

int vault_secret_load(struct vault_keyring *k, const char *id, const char *path, char **err)
{
	struct strbuf sb = STRBUF_INIT, eb = STRBUF_INIT;
	char *ap = abs_path(path), *plain = NULL;
	size_t nplain = 0;
	int rc = -1;
	struct stat st;
	*err = NULL;
	if (stat(ap, &st) < 0) {
		*err = xasprintf("The vault password file %s was not found", ap);
		rc = -2;
		goto out;
	}
	if (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) {
		/* a script; one named *-client[.ext] is asked for the id */
		const char *base = strrchr(ap, '/') ? strrchr(ap, '/') + 1 : ap;
		const char *dot = strrchr(base, '.');
		size_t bl = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		bool client = bl >= 7 && !strncmp(base + bl - 7, "-client", 7);
		int code = run_script(ap, id, client, &sb, &eb, err);
		if (code < 0)
			goto out;
		if (code) {
			char *e = py_bytes_repr(&eb);
			if (client && code == 2)
				*err = xasprintf("Vault password client script %s did not find a secret for vault-id=%s: %s",
						 ap, id ? id : "None", e);
			else if (client)
				*err = xasprintf("Vault password client script %s returned non-zero (%d) when getting "
						 "secret for vault-id=%s: %s", ap, code, id ? id : "None", e);
			else
				*err = xasprintf("Vault password script %s returned non-zero (%d): None", ap, code);
			free(e);
			goto out;
		}
		size_t n = sb.len;
		while (n && (sb.buf[n - 1] == '\n' || sb.buf[n - 1] == '\r'))
			n--;
		size_t s = 0;
		while (s < n && (sb.buf[s] == '\n' || sb.buf[s] == '\r'))
			s++;
		if (s == n) {
			*err = xasprintf("Invalid vault password was provided from script (%s)", ap);
			goto out;
		}
		vault_keyring_add(k, id, sb.buf + s, n - s);
		rc = 0;
		goto out;
	}
	int fd = open(ap, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("Could not read vault password file %s: [Errno %d] %s: '%s'", ap, errno,
				 strerror(errno), ap);
		goto out;
	}
	read_all(fd, &sb);
	close(fd);
	size_t s = 0, n = sb.len;
	while (s < n && py_space(sb.buf[s]))
		s++;
	while (n > s && py_space(sb.buf[n - 1]))
		n--;
	const char *pw = sb.buf ? sb.buf + s : "";
	size_t npw = n - s;
	/* a password file may itself be encrypted with a secret given
	 * before it */
	if (vault_is_encrypted(pw, npw)) {
		if (decrypt_with(k, pw, npw, ap, &plain, &nplain, err) < 0)
			goto out;
		pw = plain;
		npw = nplain;
	}
	while (npw && (pw[npw - 1] == '\n' || pw[npw - 1] == '\r'))
		npw--;
	while (npw && (pw[0] == '\n' || pw[0] == '\r'))
		pw++, npw--;
	if (!npw) {
		*err = xasprintf("Invalid vault password was provided from file (%s)", ap);
		goto out;
	}
	vault_keyring_add(k, id, pw, npw);
	rc = 0;
out:
	if (sb.buf)
		OPENSSL_cleanse(sb.buf, sb.len);
	if (plain) {
		OPENSSL_cleanse(plain, nplain);
		free(plain);
	}
	strbuf_release(&sb);
	strbuf_release(&eb);
	free(ap);
	return rc;
}
