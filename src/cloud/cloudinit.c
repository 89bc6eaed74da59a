/* cloudinit.c: the cloud-init user data that creates a RADL login user
 * (disk.0.os.credentials.username) other than the image's default one, with
 * the infrastructure's public key and passwordless sudo, as IM does for
 * every user (cloudinit.h). The login user and the key are checked before
 * they are written into YAML: a name or key that could break out of its
 * scalar is refused (logged), and the image's default user gets the key. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/cloudinit.h"
#include "util/base64.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The images' own users: the key pair already reaches them. */
static bool default_user(const char *u)
{
	static const char *const defaults[] = { "ubuntu", "ec2-user", "admin", "centos", "debian",
						"fedora", "rocky", "almalinux", "cloud-user", "root",
						NULL };
	for (size_t i = 0; defaults[i]; i++)
		if (strcmp(u, defaults[i]) == 0)
			return true;
	return false;
}

static bool safe_user(const char *u)
{
	if (!*u || strlen(u) > 32 || !(islower((unsigned char)*u) || *u == '_'))
		return false;
	for (const char *p = u; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_' || *p == '-'))
			return false;
	return true;
}

char *cloudinit_user_data(const char *module, int vm_num, const char *user, const char *pubkey)
{
	if (!user || !pubkey || !*pubkey || default_user(user))
		return NULL;
	if (!safe_user(user) || strpbrk(pubkey, "\n\"'")) {
		log_warn(module, "VM %d: login user '%s' cannot be created by cloud-init; the image's default user gets the key",
			 vm_num, user);
		return NULL;
	}
	char *text = xasprintf("#cloud-config\n"
			       "users:\n"
			       "  - default\n"
			       "  - name: %s\n"
			       "    sudo: \"ALL=(ALL) NOPASSWD:ALL\"\n"
			       "    shell: /bin/bash\n"
			       "    ssh_authorized_keys:\n"
			       "      - \"%s\"\n",
			       user, pubkey);
	char *b = base64_encode(text, strlen(text));
	free(text);
	return b;
}

