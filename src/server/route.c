/* route.c: the resources of `imc serve`, one table (method, path pattern,
 * handler), as IM's REST.rst lists them. A pattern's "*" matches one
 * segment; the first row that matches wins, so fixed names come before
 * the catch-all property rows. Every resource but /version and /oai needs the
 * Authorization header; route.c reads it and opens the store before the
 * handler runs, and releases both after. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "server/server.h"
#include "util/banned.h"

struct route {
	const char *method;
	const char *pattern; /* segments separated by '/', "*" for any */
	void (*fn)(struct srv_request *r, struct srv_reply *out);
	bool anonymous;      /* no Authorization needed */
};

static const struct route routes[] = {
	{ "GET", "version", srv_version, true },
	{ "GET", "oai", srv_oai, true },
	{ "POST", "oai", srv_oai, true },
	{ "GET", "stats", srv_stats, false },
	{ "GET", "infrastructures", srv_infra_list, false },
	{ "POST", "infrastructures", srv_infra_create, false },
	{ "PUT", "infrastructures", srv_infra_import, false },
	{ "GET", "infrastructures/*", srv_infra_info, false },
	{ "POST", "infrastructures/*", srv_infra_add, false },
	{ "DELETE", "infrastructures/*", srv_infra_destroy, false },
	{ "PUT", "infrastructures/*/start", srv_infra_op, false },
	{ "PUT", "infrastructures/*/stop", srv_infra_op, false },
	{ "PUT", "infrastructures/*/reconfigure", srv_infra_reconfigure, false },
	{ "GET", "infrastructures/*/data", srv_infra_data, false },
	{ "POST", "infrastructures/*/authorization", srv_owners_change, false },
	{ "GET", "infrastructures/*/*", srv_infra_prop, false },
	{ "GET", "infrastructures/*/vms/*", srv_vm_info, false },
	{ "DELETE", "infrastructures/*/vms/*", srv_vm_remove, false },
	{ "PUT", "infrastructures/*/vms/*", srv_vm_alter, false },
	{ "PUT", "infrastructures/*/vms/*/start", srv_vm_op, false },
	{ "PUT", "infrastructures/*/vms/*/stop", srv_vm_op, false },
	{ "PUT", "infrastructures/*/vms/*/reboot", srv_vm_op, false },
	{ "GET", "infrastructures/*/vms/*/*", srv_vm_prop, false },
	{ "PUT", "infrastructures/*/vms/*/disks/*/snapshot", srv_vm_snapshot, false },
	{ "GET", "clouds/*/images", srv_cloud_info, false },
	{ "GET", "clouds/*/quotas", srv_cloud_info, false },
};

/* Whether the segments match pattern. */
static bool matches(const char *pattern, char **seg, size_t nseg)
{
	size_t i = 0;
	for (const char *p = pattern; *p; i++) {
		size_t n = strcspn(p, "/");
		if (i >= nseg)
			return false;
		if (!(n == 1 && *p == '*') && (strlen(seg[i]) != n || strncmp(seg[i], p, n) != 0))
			return false;
		p += n;
		if (*p == '/')
			p++;
	}
	return i == nseg;
}

void srv_route(struct srv_request *r, struct srv_reply *out)
{
	const struct route *hit = NULL;
	bool path_known = false;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]) && !hit; i++) {
		if (!matches(routes[i].pattern, r->seg, r->nseg))
			continue;
		path_known = true;
		if (strcmp(routes[i].method, r->method) == 0)
			hit = &routes[i];
	}
	if (!hit) {
		if (path_known)
			srv_reply_error(r, out, 405, "Method %s not allowed on this resource", r->method);
		else
			srv_reply_error(r, out, 404, "Not found: the resource does not exist");
		return;
	}
	if (hit->anonymous) {
		hit->fn(r, out);
		return;
	}
	if (srv_auth(r, out) < 0)
		goto out;
	struct diag d = DIAG_INIT;
	r->st = state_open(r->cfg->home, &d);
	if (!r->st)
		srv_reply_diag(r, out, 500, "Error opening the state store", &d);
	else
		hit->fn(r, out);
	diag_release(&d);
out:
	state_close(r->st);
	r->st = NULL;
	srv_user_release(r->cfg->home, &r->user);
}
