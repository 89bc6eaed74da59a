/* openstack-sweep.c: removing what an infrastructure has in the cloud, in
 * dependency order: its servers (metadata imc-infra-id), waited until Nova
 * no longer knows them; its floating IPs (description naming the
 * infrastructure), which Neutron keeps allocated, and billed, after their
 * server is gone (grycap/im #1575); its security groups, named
 * imc-INFRA-*, which Neutron refuses to delete (409) while a port still
 * uses them; its key pair.
 *
 * Every wait is bounded by one deadline per command (struct os_deadline):
 * a destroy that runs out of time names what is left and says that running
 * it again finishes the job, instead of hanging or reporting success. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloud/openstack.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "cloud/names.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SWEEP_DEADLINE 600.0
#define POLL_DELAY 5.0

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void deadline_start(struct os_deadline *dl)
{
	if (dl->started)
		return;
	double budget = SWEEP_DEADLINE;
	const char *env = getenv("IMC_OPENSTACK_SWEEP_DEADLINE");
	if (env && *env) {
		char *end;
		double v = strtod(env, &end);
		if (*end == '\0' && v >= 0 && v <= 86400)
			budget = v;
		else
			log_warn("openstack", "IMC_OPENSTACK_SWEEP_DEADLINE='%s' is not a number of seconds; using %.0f",
				 env, SWEEP_DEADLINE);
	}
	dl->end = mono() + budget;
	dl->skipped = 0;
	dl->started = true;
}

bool os_deadline_sleep(struct os_deadline *dl, const struct os_conn *c, double seconds)
{
	deadline_start(dl);
	double left = dl->end - (mono() + dl->skipped);
	if (left <= 0)
		return false;
	if (seconds > left)
		seconds = left;
	os_sleep(c, seconds);
	if (c->time_scale < 1.0)
		dl->skipped += seconds * (1.0 - c->time_scale);
	return true;
}

/* DELETE path; a 404 is success (already gone). */
static int delete_path(struct os_conn *c, enum os_service svc, const char *path,
		       const char *what, long *status, struct diag *d)
{
	struct os_error e;
	int rc = os_call(c, svc, "DELETE", path, NULL, 0, NULL, &e);
	if (status)
		*status = e.status;
	if (rc < 0 && e.status != 404) {
		if (d)
			os_error_diag(&e, d, what);
		os_error_release(&e);
		return -1;
	}
	os_error_release(&e);
	return 0;
}

int os_server_delete_wait(struct os_conn *c, struct os_deadline *dl, const char *id, int num,
			  struct diag *d)
{
	char *path = xasprintf("/servers/%s", id), *what = xasprintf("delete VM %d (server %s)", num, id);
	int ret = -1;
	if (delete_path(c, OS_COMPUTE, path, what, NULL, d) < 0)
		goto out;
	for (;;) {
		struct os_server s;
		int rc = os_server_get(c, id, &s, d);
		const char *st = rc > 0 && s.status ? s.status : "";
		bool gone = rc == 0 || strcmp(st, "DELETED") == 0 || strcmp(st, "SOFT_DELETED") == 0;
		char *last = rc > 0 ? xstrdup(st) : NULL;
		os_server_release(&s);
		if (rc < 0) {
			free(last);
			goto out;
		}
		if (gone) {
			free(last);
			log_info("openstack", "VM %d: server %s is gone", num, id);
			ret = 0;
			goto out;
		}
		if (!os_deadline_sleep(dl, c, POLL_DELAY)) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "openstack: VM %d (server %s) is still '%s' at the deadline; run destroy again to finish",
				   num, id, last);
			free(last);
			goto out;
		}
		free(last);
	}
out:
	free(path);
	free(what);
	return ret;
}

/* "imc-infra-id=INFRA imc-vm-num=NUM": whether desc is infra's (of VM num,
 * or of any VM when num < 0). */
static bool fip_is_ours(const char *desc, const char *infra, int num)
{
	if (!desc)
		return false;
	char *want = xasprintf("%s=%s ", OS_META_INFRA, infra);
	bool ours = strncmp(desc, want, strlen(want)) == 0;
	if (ours && num >= 0) {
		char *vm = xasprintf("%s%s=%d", want, OS_META_VMNUM, num);
		ours = strcmp(desc, vm) == 0;
		free(vm);
	}
	free(want);
	return ours;
}

int os_fips_release(struct os_conn *c, const char *infra, int num, struct diag *d)
{
	json_t *reply = NULL, *f;
	struct os_error e;
	size_t i;
	int ret = 0;
	if (os_call(c, OS_NETWORK, "GET", "/floatingips", NULL, 0, &reply, &e) < 0) {
		os_error_diag(&e, d, "list floating IPs");
		os_error_release(&e);
		return -1;
	}
	json_array_foreach(json_object_get(reply, "floatingips"), i, f) {
		const char *id = json_string_value(json_object_get(f, "id"));
		const char *addr = json_string_value(json_object_get(f, "floating_ip_address"));
		if (!id || !fip_is_ours(json_string_value(json_object_get(f, "description")), infra, num))
			continue;
		char *path = xasprintf("/floatingips/%s", id);
		char *what = xasprintf("release floating IP %s", addr ? addr : id);
		if (delete_path(c, OS_NETWORK, path, what, NULL, d) < 0)
			ret = -1;
		else
			log_info("openstack", "released floating IP %s", addr ? addr : id);
		free(path);
		free(what);
	}
	json_decref(reply);
	return ret;
}

int os_sg_delete_named(struct os_conn *c, struct os_deadline *dl, const char *name,
		       struct diag *d)
{
	for (;;) {
		char *id = NULL;
		int rc = os_sg_lookup(c, name, &id, NULL, d);
		if (rc <= 0)
			return rc;
		char *path = xasprintf("/security-groups/%s", id);
		char *what = xasprintf("delete security group %s (%s)", name, id);
		long status = 0;
		struct diag quiet = DIAG_INIT;
		rc = delete_path(c, OS_NETWORK, path, what, &status, &quiet);
		free(path);
		if (rc == 0) {
			log_info("openstack", "deleted security group %s", name);
			diag_release(&quiet);
			free(what);
			free(id);
			return 0;
		}
		/* 409: a port still uses it (a server being deleted) */
		bool wait = status == 409 && os_deadline_sleep(dl, c, POLL_DELAY);
		if (!wait) {
			diag_error(d, status == 409 ? IMC_EXIT_UNAVAILABLE : IMC_EXIT_FAILED, NULL, "%s",
				   diag_first_message(&quiet));
			if (status == 409)
				diag_note(d, NULL, "a server still uses it at the deadline; run destroy again to finish");
		}
		diag_release(&quiet);
		free(what);
		free(id);
		if (!wait)
			return -1;
	}
}

int os_key_delete(struct os_conn *c, const char *key, struct diag *d)
{
	char *q = os_urlencode(key), *path = xasprintf("/os-keypairs/%s", q);
	char *what = xasprintf("delete key pair %s", key);
	int rc = delete_path(c, OS_COMPUTE, path, what, NULL, d);
	free(q);
	free(path);
	free(what);
	return rc;
}

/* The names of every group named prefix*. */
static int groups_named(struct os_conn *c, const char *prefix, char ***names, size_t *n,
			struct diag *d)
{
	json_t *reply = NULL, *g;
	struct os_error e;
	size_t i;
	*names = NULL;
	*n = 0;
	if (os_call(c, OS_NETWORK, "GET", "/security-groups", NULL, 0, &reply, &e) < 0) {
		os_error_diag(&e, d, "list security groups");
		os_error_release(&e);
		return -1;
	}
	json_array_foreach(json_object_get(reply, "security_groups"), i, g) {
		const char *name = json_string_value(json_object_get(g, "name"));
		if (!name || strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof(char *));
		(*names)[(*n)++] = xstrdup(name);
	}
	json_decref(reply);
	return 0;
}

int os_sweep(struct os_conn *c, struct os_deadline *dl, const char *infra, const char *key,
	     struct diag *d)
{
	struct os_server *v = NULL;
	size_t n = 0, ng = 0;
	char **groups = NULL, *prefix = cloud_name_prefix(infra);
	int ret = 0;
	deadline_start(dl);
	if (os_servers_of(c, infra, &v, &n, d) < 0) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		log_info("openstack", "sweep: server %s (VM %d, %s) of the infrastructure", v[i].id,
			 v[i].vm_num, v[i].status ? v[i].status : "?");
		if (os_server_delete_wait(c, dl, v[i].id, v[i].vm_num, d) < 0)
			ret = -1;
	}
	if (os_fips_release(c, infra, -1, d) < 0)
		ret = -1;
	if (groups_named(c, prefix, &groups, &ng, d) < 0)
		ret = -1;
	for (size_t i = 0; i < ng; i++)
		if (os_sg_delete_named(c, dl, groups[i], d) < 0)
			ret = -1;
	if (os_key_delete(c, key, d) < 0)
		ret = -1;
out:
	for (size_t i = 0; i < ng; i++)
		free(groups[i]);
	free(groups);
	os_servers_free(v, n);
	free(prefix);
	return ret;
}
