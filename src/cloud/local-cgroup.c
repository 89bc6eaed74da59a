/* local-cgroup.c: resource limits of local VMs (RADL cpu.count and
 * memory.size), on whichever cgroup version the host gives each controller:
 * cgroup v2 (cpu.max, memory.max) where the unified hierarchy has the
 * controller enabled, else cgroup v1 (cpu.cfs_period_us/cpu.cfs_quota_us
 * in the hierarchy mounted with "cpu", memory.limit_in_bytes in the one
 * mounted with "memory"). Hosts differ: Debian 12 with systemd has v2 only;
 * older or container hosts mount v1 controllers beside an empty cgroup2.
 *
 * Each VM gets "imc-local/imc-TAG-NUM" in every hierarchy used; sshd joins
 * all of them before it runs (local-sshd.c), so every session and task of
 * the VM inherits the limits. alter writes new limits to the same cgroups
 * and moves the VM's processes in when it had none. Where no controller
 * exists (rootless mode) the VM runs without limits and its note says so. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define CG_PARENT "imc-local"

enum cg_kind { CG_NONE, CG_V1, CG_V2 };

/* Where a controller lives: its hierarchy's mount point and version. */
struct place {
	enum cg_kind kind;
	char *root;
};

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

/* true when the comma-separated list opts holds the word w */
static bool has_word(const char *opts, const char *w)
{
	size_t n = strlen(w);
	for (const char *t = opts; *t;) {
		size_t k = strcspn(t, ",");
		if (k == n && !strncmp(t, w, n))
			return true;
		t += k;
		t += *t == ',';
	}
	return false;
}

/* Mount point of the cgroup v1 hierarchy holding controller name, or NULL. */
static char *cgroup1_root(const char *name)
{
	if (getenv("IMC_LOCAL_CGROUP_ROOT"))
		return NULL; /* tests pointing at a v2 tree: no v1 */
	FILE *fp = fopen("/proc/self/mounts", "re");
	if (!fp)
		return NULL;
	char dev[256], dir[1024], type[64], opts[1024];
	char *found = NULL;
	while (!found && fscanf(fp, "%255s %1023s %63s %1023s %*[^\n]", dev, dir, type, opts) == 4)
		if (!strcmp(type, "cgroup") && has_word(opts, name))
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

/* A controller goes where the host enabled it: v2 first (a controller
 * bound to a v1 hierarchy is never listed in cgroup.controllers). */
static void find_place(const char *name, struct place *out)
{
	out->kind = CG_NONE;
	out->root = cgroup2_root();
	if (out->root && has_controller(out->root, name)) {
		out->kind = CG_V2;
		return;
	}
	free(out->root);
	out->root = cgroup1_root(name);
	if (out->root)
		out->kind = CG_V1;
}

static void place_release(struct place *p)
{
	free(p->root);
	p->root = NULL;
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

static char *vm_cgroup(const char *root, const char *tag, int num)
{
	return xasprintf("%s/" CG_PARENT "/imc-%s-%d", root, tag, num);
}

/* Creates the VM's cgroup under root (enabling ctl on the way down in v2). */
static int make_cgroup(const struct place *pl, const char *ctl, const char *cg)
{
	char *parent = xasprintf("%s/" CG_PARENT, pl->root);
	int r = 0;
	if (mkdir(parent, 0755) < 0 && errno != EEXIST)
		r = -1;
	if (r == 0 && pl->kind == CG_V2) {
		char *on = xasprintf("+%s", ctl);
		if (put(pl->root, "cgroup.subtree_control", on) < 0 ||
		    put(parent, "cgroup.subtree_control", on) < 0)
			r = -1;
		free(on);
	}
	if (r == 0 && mkdir(cg, 0755) < 0 && errno != EEXIST)
		r = -1;
	free(parent);
	return r;
}

/* Writes one controller's limit (0 = none) into cg. */
static int set_limit(const struct place *pl, bool cpu, long long v, const char *cg)
{
	char *val;
	int r;
	if (cpu && pl->kind == CG_V2) {
		val = v > 0 ? xasprintf("%lld 100000\n", v * 100000) : xstrdup("max 100000\n");
		r = put(cg, "cpu.max", val);
	} else if (cpu) {
		val = v > 0 ? xasprintf("%lld\n", v * 100000) : xstrdup("-1\n");
		r = put(cg, "cpu.cfs_period_us", "100000\n");
		if (r == 0)
			r = put(cg, "cpu.cfs_quota_us", val);
	} else if (pl->kind == CG_V2) {
		val = v > 0 ? xasprintf("%lld\n", v) : xstrdup("max\n");
		r = put(cg, "memory.max", val);
	} else {
		val = v > 0 ? xasprintf("%lld\n", v) : xstrdup("-1\n");
		r = put(cg, "memory.limit_in_bytes", val);
	}
	free(val);
	return r;
}

void local_cgroups_release(struct local_cgroups *cgs)
{
	for (size_t i = 0; i < cgs->n; i++)
		free(cgs->dir[i]);
	cgs->n = 0;
}

static void add_dir(struct local_cgroups *cgs, const char *dir)
{
	for (size_t i = 0; i < cgs->n; i++)
		if (!strcmp(cgs->dir[i], dir))
			return;
	if (cgs->n < LOCAL_CG_MAX)
		cgs->dir[cgs->n++] = xstrdup(dir);
}

int local_cgroup_setup(struct local_ctx *c, const struct local_vm *vm, struct local_cgroups *cgs,
		       char **note)
{
	cgs->n = 0;
	*note = NULL;
	if (vm->cpus <= 0 && vm->memory <= 0)
		return 0;
	if (vm->mode != LOCAL_NETNS || geteuid() != 0) {
		*note = xstrdup("cpu and memory limits not applied (no cgroup in rootless mode)");
		return 1;
	}
	/* both controllers whenever any limit is asked, the other one
	 * unlimited: a later alter then only writes values */
	static const char *const ctl[2] = { "cpu", "memory" };
	const long long want[2] = { vm->cpus, vm->memory };
	struct strbuf missing = STRBUF_INIT;
	for (int k = 0; k < 2; k++) {
		struct place pl;
		find_place(ctl[k], &pl);
		char *cg = pl.kind != CG_NONE ? vm_cgroup(pl.root, c->tag, vm->num) : NULL;
		if (pl.kind == CG_NONE) {
			if (want[k] > 0)
				strbuf_addf(&missing, "%sno usable cgroup %s controller (v1 or v2): %s limit not applied",
					    missing.len ? "; " : "", ctl[k], ctl[k]);
		} else if (make_cgroup(&pl, ctl[k], cg) < 0 || set_limit(&pl, k == 0, want[k], cg) < 0) {
			if (want[k] > 0)
				strbuf_addf(&missing, "%scannot set the %s limit in '%s'",
					    missing.len ? "; " : "", ctl[k], cg);
		} else {
			add_dir(cgs, cg);
			log_debug(LOCAL_LOG, "VM %d: %s limit %lld in %s (cgroup v%d)", vm->num, ctl[k],
				  want[k], cg, pl.kind == CG_V2 ? 2 : 1);
		}
		free(cg);
		place_release(&pl);
	}
	int ret = 0;
	if (missing.len) {
		*note = strbuf_detach(&missing);
		ret = 1;
	}
	strbuf_release(&missing);
	return ret;
}

/* Every hierarchy where imc may have made cgroups (deduplicated). */
static size_t all_roots(char *roots[3])
{
	size_t n = 0;
	char *cand[3] = { cgroup2_root(), cgroup1_root("cpu"), cgroup1_root("memory") };
	for (int i = 0; i < 3; i++) {
		bool dup = !cand[i];
		for (size_t j = 0; j < n && !dup; j++)
			dup = !strcmp(roots[j], cand[i]);
		if (dup)
			free(cand[i]);
		else
			roots[n++] = cand[i];
	}
	return n;
}

/* rmdir of a cgroup fails with EBUSY while a task is still being moved
 * out of it by its exit: retried for up to 5 s. 0 when it is gone. */
static int remove_cgroup(const char *cg)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (rmdir(cg) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 > 5.0)
			return -1;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

int local_cgroup_remove(const char *tag, int num, struct diag *d)
{
	char *roots[3] = { NULL, NULL, NULL };
	size_t n = all_roots(roots);
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		char *cg = vm_cgroup(roots[i], tag, num);
		char *parent = xasprintf("%s/" CG_PARENT, roots[i]);
		if (remove_cgroup(cg) < 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot remove cgroup '%s': %s", cg,
				   strerror(errno));
			ret = -1;
		}
		rmdir(parent); /* only when no other VM uses it */
		free(parent);
		free(cg);
		free(roots[i]);
	}
	return ret;
}

int local_cgroup_cleanup(const char *tag, struct diag *d)
{
	char *roots[3] = { NULL, NULL, NULL };
	size_t n = all_roots(roots);
	char *pfx = xasprintf("imc-%s-", tag);
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		char *parent = xasprintf("%s/" CG_PARENT, roots[i]);
		DIR *dir = opendir(parent);
		struct dirent *de;
		while (dir && (de = readdir(dir))) {
			if (strncmp(de->d_name, pfx, strlen(pfx)))
				continue;
			char *cg = xasprintf("%s/%s", parent, de->d_name);
			if (remove_cgroup(cg) < 0) {
				diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot remove cgroup '%s': %s", cg,
					   strerror(errno));
				ret = -1;
			}
			free(cg);
		}
		if (dir)
			closedir(dir);
		rmdir(parent); /* only when no other infrastructure uses it */
		free(parent);
		free(roots[i]);
	}
	free(pfx);
	return ret;
}
