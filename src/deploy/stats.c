/* stats.c: what an infrastructure has, counted as IM's statistics count
 * it (GET /stats of its REST API): its VMs, their CPUs and memory, the
 * cloud of its first VM and whether its VMs span clouds on more than one
 * host. A destroyed infrastructure keeps the figures it had in its
 * tombstone (destroy.c records them before tearing down), so statistics
 * cover what a user had as well as what a user has. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "deploy/deploy.h"
#include "util/url.h"
#include "util/xalloc.h"
#include "util/banned.h"

static json_t *live_stats(struct state_store *st, const struct state_infra *in, const struct auth_file *af,
			  struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0)
		return NULL;
	json_int_t cpus = 0;
	double mem_mb = 0;
	const char *type = "";
	char *host = xstrdup("");
	bool hybrid = false;
	for (size_t i = 0; i < n; i++) {
		json_t *spec = vms[i].spec ? json_loads(vms[i].spec, 0, NULL) : NULL;
		cpus += json_integer_value(json_object_get(spec, "cpus"));
		/* in RADL's M (10^6 bytes), a float as IM's sum is */
		mem_mb += (double)json_integer_value(json_object_get(spec, "memory")) / 1e6;
		json_decref(spec);
		const struct auth_cred *c = af ? auth_find(af, vms[i].cloud_cred, vms[i].cloud) : NULL;
		/* IM names a cloud's server by the host of its auth line's host */
		const char *h = c ? auth_get(c, "host") : NULL;
		char *server = h ? url_host(h) : NULL;
		if (!server)
			server = xstrdup("");
		/* IM's rule: the first VM names the cloud; a later VM on a
		 * different server makes it hybrid */
		if (!*type)
			type = c && auth_get(c, "type") ? auth_get(c, "type") : vms[i].cloud;
		if (!*host) {
			free(host);
			host = server;
		} else {
			hybrid |= strcmp(host, server) != 0;
			free(server);
		}
	}
	json_t *o = json_pack("{s:I, s:I, s:f, s:s, s:s, s:b}", "vm_count", (json_int_t)n, "cpu_count", cpus,
			      "memory_size", mem_mb, "cloud_type", type, "cloud_host", host,
			      "hybrid", hybrid);
	free(host);
	state_vm_list_free(vms, n);
	return o;
}

json_t *deploy_infra_stats(struct state_store *st, const struct state_infra *in, const struct auth_file *af,
			   struct diag *d)
{
	json_t *o;
	if (in->deleted) {
		/* tombstones made before figures were kept count nothing */
		o = in->summary ? json_loads(in->summary, 0, NULL) : NULL;
		if (!json_is_object(o)) {
			json_decref(o);
			o = json_pack("{s:i, s:i, s:f, s:s, s:s, s:b}", "vm_count", 0, "cpu_count", 0,
				      "memory_size", 0.0, "cloud_type", "", "cloud_host", "", "hybrid", false);
		}
	} else {
		struct auth_file *own = NULL;
		if (!af && in->auth_path) {
			struct diag ad = DIAG_INIT;
			own = auth_file_load(in->auth_path, &ad); /* gone: clouds named by backend */
			diag_release(&ad);
		}
		o = live_stats(st, in, af ? af : own, d);
		auth_file_free(own);
		if (!o)
			return NULL;
	}
	double last = 0;
	if (!json_object_get(o, "last_date")) {
		if (state_infra_last_change(st, in->id, &last, d) < 0) {
			json_decref(o);
			return NULL;
		}
		json_object_set_new(o, "last_date", json_real(last));
	}
	json_object_set_new(o, "deleted", json_boolean(in->deleted));
	return o;
}
