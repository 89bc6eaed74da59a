/* ids.c: the name of a new infrastructure and where its private key and
 * job secret live (see deploy.h); 'imc create' and 'imc import' name
 * infrastructures, the worker and the commands that connect to VMs find
 * the key, the recipes the secret. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "deploy/deploy.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"


char *deploy_new_id(void)
{
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		/* cannot happen on Linux; fall back on time and pid */
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)((unsigned long)time(NULL) >> (i % 8) ^ (unsigned long)getpid() >> (i % 4) ^ i * 37);
	}
	if (fd >= 0)
		close(fd);
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	return xasprintf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
			 b[13], b[14], b[15]);
}

char *deploy_key_path(const char *home, const char *id)
{
	return xasprintf("%s/infra/%s/id_ed25519", home, id);
}

char *deploy_secret_path(const char *home, const char *id)
{
	return xasprintf("%s/infra/%s/job.secret", home, id);
}

int deploy_secret_create(const char *path, struct diag *d)
{
	unsigned char b[32];
	char hex[2 * sizeof(b) + 2];
	if (RAND_bytes(b, sizeof(b)) != 1) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "no random bytes for the job secret");
		return -1;
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	secret_register(hex);
	hex[2 * sizeof(b)] = '\n';
	hex[2 * sizeof(b) + 1] = 0;
	int rc = -1, fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || write(fd, hex, 2 * sizeof(b) + 1) != (ssize_t)(2 * sizeof(b) + 1) ||
	    fsync(fd) < 0)
		diag_error(d, IMC_EXIT_IOERR, NULL, "cannot write the job secret '%s': %s", path,
			   strerror(errno));
	else
		rc = 0;
	if (fd >= 0)
		close(fd);
	OPENSSL_cleanse(b, sizeof(b));
	OPENSSL_cleanse(hex, sizeof(hex));
	return rc;
}

void deploy_secret_register(const char *path)
{
	char hex[80];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	ssize_t n = read(fd, hex, sizeof(hex) - 1);
	close(fd);
	while (n > 0 && (hex[n - 1] == '\n' || hex[n - 1] == '\r'))
		n--;
	if (n > 0) {
		hex[n] = 0;
		secret_register(hex);
	}
	OPENSSL_cleanse(hex, sizeof(hex));
}
