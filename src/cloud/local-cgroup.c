/* local-cgroup.c: optional resource limits of local VMs (RADL cpu.count and
 * memory.size) with cgroup v2: one cgroup "imc-TAG-NUM" per VM under a
 * parent "imc-local" that this file creates, cpu.max and memory.max set,
 * sshd (and so every session) placed in it. Where cgroup v2 or its cpu and
 * memory controllers are not available (cgroup v1 hosts, rootless mode) the
 * VM runs without limits and says so in its note. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Mount point of the cgroup2 hierarchy, or NULL. */
static char *cgroup2_root(void)
{
	const char *env = getenv("IMC_LOCAL_CGROUP_ROOT");
	if (env && *env == '/')
		return xstrdup(env);
	FILE *fp = fopen("/proc/self/mounts", "re");
	if (!fp)
		return NULL;
	char dev[256], dir[1024], type[64];
	char *found = NULL;
	while (!found && fscanf(fp, "%255s %1023s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2"))
			found = xstrdup(dir);
	fclose(fp);
	return found;
}

static bool has_controller(const char *root, const char *name)
{
	char *p = xasprintf("%s/cgroup.controllers", root);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 4096);
	bool ok = false;
	if (strbuf_read_file(&sb, p) == 0 && sb.buf) {
		for (char *t = sb.buf; *t;) {
			size_t n = strcspn(t, " \n");
			if (n == strlen(name) && !strncmp(t, name, n))
				ok = true;
			t += n;
			t += strspn(t, " \n");
		}
	}
	strbuf_release(&sb);
	free(p);
	return ok;
}

static int put(const char *dir, const char *file, const char *value)
{
	char *p = xasprintf("%s/%s", dir, file);
	struct diag d = DIAG_INIT;
	int r = local_rewrite_file(p, value, strlen(value), &d);
	if (r < 0)
		log_debug(LOCAL_LOG, "%s", diag_first_message(&d));
	diag_release(&d);
	free(p);
	return r;
}

int local_cgroup_setup(struct local_ctx *c, const struct local_vm *vm, char **path,
		       char **note)
{
	*path = NULL;
	*note = NULL;
	if (vm->cpus <= 0 && vm->memory <= 0)
		return 0;
	if (vm->mode != LOCAL_NETNS || geteuid() != 0) {
		*note = xstrdup("cpu and memory limits not applied (no cgroup in rootless mode)");
		return 1;
	}
	char *root = cgroup2_root();
	if (!root || (vm->cpus > 0 && !has_controller(root, "cpu")) ||
	    (vm->memory > 0 && !has_controller(root, "memory"))) {
		*note = xstrdup("cgroup v2 cpu/memory controllers unavailable: "
				"cpu and memory limits not applied");
		free(root);
		return 1;
	}
	char *parent = xasprintf("%s/imc-local", root);
	char *cg = xasprintf("%s/imc-%s-%d", parent, c->tag, vm->num);
	int ret = 1;
	const char *ctl = vm->cpus > 0 && vm->memory > 0 ? "+cpu +memory"
			  : vm->cpus > 0 ? "+cpu" : "+memory";
	if ((mkdir(parent, 0755) < 0 && errno != EEXIST) || put(root, "cgroup.subtree_control", ctl) < 0 ||
	    put(parent, "cgroup.subtree_control", ctl) < 0 ||
	    (mkdir(cg, 0755) < 0 && errno != EEXIST)) {
		*note = xstrdup("cannot create a cgroup: cpu and memory limits not applied");
		goto out;
	}
	if (vm->cpus > 0) {
		char *v = xasprintf("%lld 100000\n", (long long)vm->cpus * 100000);
		int r = put(cg, "cpu.max", v);
		free(v);
		if (r < 0) {
			*note = xstrdup("cannot set cpu.max: limits not applied");
			goto out;
		}
	}
	if (vm->memory > 0) {
		char *v = xasprintf("%lld\n", vm->memory);
		int r = put(cg, "memory.max", v);
		free(v);
		if (r < 0) {
			*note = xstrdup("cannot set memory.max: limits not applied");
			goto out;
		}
	}
	*path = xstrdup(cg);
	ret = 0;
out:
	if (ret != 0)
		rmdir(cg);
	free(cg);
	free(parent);
	free(root);
	return ret;
}

void local_cgroup_remove(const char *tag, int num)
{
	char *root = cgroup2_root();
	if (!root)
		return;
	char *cg = xasprintf("%s/imc-local/imc-%s-%d", root, tag, num);
	char *parent = xasprintf("%s/imc-local", root);
	rmdir(cg);
	rmdir(parent); /* only when empty */
	free(parent);
	free(cg);
	free(root);
}

void local_cgroup_cleanup(const char *tag)
{
	char *root = cgroup2_root();
	if (!root)
		return;
	char *parent = xasprintf("%s/imc-local", root);
	char *pfx = xasprintf("imc-%s-", tag);
	DIR *dir = opendir(parent);
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, pfx, strlen(pfx)))
			continue;
		char *cg = xasprintf("%s/%s", parent, de->d_name);
		rmdir(cg);
		free(cg);
	}
	if (dir)
		closedir(dir);
	rmdir(parent); /* only when no other infrastructure uses it */
	free(pfx);
	free(parent);
	free(root);
}
