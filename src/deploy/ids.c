/* ids.c: the name of a new infrastructure and where its private key lives
 * (see deploy.h); 'imc create' and 'imc import' name infrastructures, the
 * worker and the commands that connect to VMs find the key. */
#include "config.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "deploy/deploy.h"
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
