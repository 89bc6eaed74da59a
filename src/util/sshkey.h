/* sshkey.h: generating the per-infrastructure SSH key pair (ed25519, with
 * libssh). The private key is written 0600 and registered as a secret. */
#ifndef IMC_SSHKEY_H
#define IMC_SSHKEY_H

#include "util/diag.h"

/* Writes priv_path (OpenSSH private key, 0600) and priv_path + ".pub"
 * (one "ssh-ed25519 BASE64 comment" line). Returns 0 or -1 with d set. */
int sshkey_generate(const char *priv_path, const char *comment, struct diag *d);
/* Reads the public key line of priv_path (from priv_path.pub); malloc'd. */
char *sshkey_read_public(const char *priv_path, struct diag *d);
/* libssh's key (an ssh_key, to free with ssh_key_free) of an OpenSSH public
 * key line "TYPE BASE64 [COMMENT]", or NULL. */
struct ssh_key_struct;
struct ssh_key_struct *sshkey_import_line(const char *line);

#endif
