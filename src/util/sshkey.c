/* sshkey.c: generating SSH key pairs (ed25519) with libssh, for the
 * per-infrastructure login key and for the host keys of local VMs.
 *
 * The private key is written in OpenSSH format to a file created 0600 with
 * O_EXCL (never readable by others, even for an instant), and registered as
 * a secret so that it can never show up in a log line or an error. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "util/diag.h"
#include "util/log.h"
#include "util/sshkey.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Writes len bytes of data to a new file (removing an old one first). */
static int write_new_file(const char *path, const char *data, size_t len, mode_t mode,
			  struct diag *d)
{
	if (unlink(path) < 0 && errno != ENOENT) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot remove old key '%s': %s", path,
			   strerror(errno));
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", path,
				   strerror(errno));
			close(fd);
			unlink(path);
			return -1;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write '%s': %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int sshkey_generate(const char *priv_path, const char *comment, struct diag *d)
{
	ssh_key key = NULL;
	char *priv = NULL, *pub64 = NULL;
	char *pub_path = NULL;
	struct strbuf line = STRBUF_INIT;
	int ret = -1;

	if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &key) != SSH_OK) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot generate an ed25519 key");
		goto out;
	}
	if (ssh_pki_export_privkey_base64(key, NULL, NULL, NULL, &priv) != SSH_OK || !priv) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot export the private key");
		goto out;
	}
	secret_register(priv);
	if (ssh_pki_export_pubkey_base64(key, &pub64) != SSH_OK || !pub64) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "cannot export the public key");
		goto out;
	}
	size_t plen = strlen(priv);
	/* OpenSSH wants the key file to end with a newline. */
	struct strbuf pb = STRBUF_INIT;
	strbuf_add(&pb, priv, plen);
	if (plen == 0 || priv[plen - 1] != '\n')
		strbuf_addch(&pb, '\n');
	int w = write_new_file(priv_path, pb.buf, pb.len, 0600, d);
	explicit_bzero(pb.buf, pb.len);
	strbuf_release(&pb);
	if (w < 0)
		goto out;

	strbuf_addf(&line, "ssh-ed25519 %s", pub64);
	if (comment && *comment) {
		strbuf_addch(&line, ' ');
		/* one line: a newline in the comment would split the key line */
		for (const char *c = comment; *c; c++)
			strbuf_addch(&line, (*c == '\n' || *c == '\r') ? ' ' : *c);
	}
	strbuf_addch(&line, '\n');
	pub_path = xasprintf("%s.pub", priv_path);
	if (write_new_file(pub_path, line.buf, line.len, 0644, d) < 0) {
		unlink(priv_path);
		goto out;
	}
	ret = 0;
out:
	if (priv) {
		explicit_bzero(priv, strlen(priv));
		ssh_string_free_char(priv);
	}
	if (pub64)
		ssh_string_free_char(pub64);
	ssh_key_free(key);
	strbuf_release(&line);
	free(pub_path);
	return ret;
}

char *sshkey_read_public(const char *priv_path, struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	char *pub_path = xasprintf("%s.pub", priv_path);
	char *ret = NULL;

	strbuf_init(&sb, 64 * 1024);
	if (strbuf_read_file(&sb, pub_path) < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot read public key '%s': %s", pub_path,
			   strerror(errno));
		goto out;
	}
	size_t n = strcspn(sb.buf ? sb.buf : "", "\r\n");
	if (n == 0 || strncmp(sb.buf, "ssh-", 4) != 0 || !strchr(sb.buf, ' ')) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s' is not an OpenSSH public key", pub_path);
		goto out;
	}
	ret = xstrndup(sb.buf, n);
out:
	strbuf_release(&sb);
	free(pub_path);
	return ret;
}

struct ssh_key_struct *sshkey_import_line(const char *line)
{
	char *copy = xstrdup(line);
	char *sp = strchr(copy, ' ');
	ssh_key k = NULL;
	if (sp) {
		*sp = '\0';
		char *b64 = sp + 1;
		b64[strcspn(b64, " \r\n")] = '\0';
		enum ssh_keytypes_e t = ssh_key_type_from_name(copy);
		if (t != SSH_KEYTYPE_UNKNOWN && ssh_pki_import_pubkey_base64(b64, t, &k) != SSH_OK)
			k = NULL;
	}
	free(copy);
	return k;
}
