/* import.c: loads what deploy_export wrote into the store (IM's PUT
 * /infrastructures), for 'imc import' and `imc serve` alike, keeping the
 * infrastructure's id unless the store already has it. The document is
 * checked before anything is written and loaded in one transaction: a
 * malformed one is an error, never a half-imported infrastructure. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

static char *dump_or_null(json_t *j)
{
	return j && !json_is_null(j) ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

static const char *opt_str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int bad(struct diag *d, const char *file, const char *what)
{
	struct src_loc loc = { file, 0, 0 };
	diag_error(d, IMC_EXIT_DATAERR, &loc, "%s", what);
	return -1;
}

int deploy_import_check(json_t *j, const char *file, struct diag *d)
{
	if (!json_is_object(j))
		return bad(d, file, "not an exported infrastructure (want a JSON object)");
	if (json_integer_value(json_object_get(j, "format")) != DEPLOY_RECORD_FORMAT ||
	    !opt_str(j, "kind") || strcmp(opt_str(j, "kind"), "imc-infrastructure") != 0)
		return bad(d, file, "not an exported infrastructure (no \"kind\": \"imc-infrastructure\", \"format\": 1)");
	json_t *in = json_object_get(j, "infrastructure");
	if (!json_is_object(in) || !opt_str(in, "id") || !opt_str(in, "radl"))
		return bad(d, file, "\"infrastructure\" must be an object with \"id\" and \"radl\"");
	json_t *vms = json_object_get(j, "vms");
	if (!json_is_array(vms))
		return bad(d, file, "\"vms\" must be an array");
	size_t i;
	json_t *v;
	json_array_foreach(vms, i, v) {
		enum vm_state s;
		if (!json_is_object(v) || !json_is_integer(json_object_get(v, "num")) || !opt_str(v, "system") ||
		    !opt_str(v, "cloud") || !opt_str(v, "state") || vm_state_parse(opt_str(v, "state"), &s) < 0)
			return bad(d, file, "each of \"vms\" needs \"num\", \"system\", \"cloud\" and a valid \"state\"");
	}
	json_t *nets = json_object_get(j, "networks");
	json_array_foreach(nets, i, v)
		if (!opt_str(v, "name") || !opt_str(v, "cloud"))
			return bad(d, file, "each of \"networks\" needs \"name\" and \"cloud\"");
	return 0;
}

static int load(struct state_store *st, json_t *j, const char *id, const char *owner, const char *auth_path,
		struct diag *d)
{
	json_t *ji = json_object_get(j, "infrastructure");
	char *ev = dump_or_null(json_object_get(ji, "extra_vars"));
	struct state_infra in = {
		.id = (char *)(uintptr_t)id, .created = json_number_value(json_object_get(ji, "created")),
		.radl = (char *)(uintptr_t)opt_str(ji, "radl"), .radl_path = (char *)(uintptr_t)opt_str(ji, "radl_path"),
		.cloud = (char *)(uintptr_t)opt_str(ji, "cloud"), .extra_vars = ev,
		.auth_path = (char *)(uintptr_t)(auth_path ? auth_path : opt_str(ji, "auth_path")),
		.owner = (char *)(uintptr_t)owner, .phase = PHASE_DONE,
		.next_vm = (int)json_integer_value(json_object_get(ji, "next_vm")),
		.ctxt_max = (int)json_integer_value(json_object_get(ji, "ctxt_max")),
	};
	int rc = state_infra_insert(st, &in, d);
	free(ev);
	if (rc < 0)
		return -1;
	const char *cm = opt_str(ji, "contmsg");
	if (cm && *cm && state_log_add(st, id, -1, cm, d) < 0)
		return -1;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(j, "vms"), i, v) {
		enum vm_state s;
		vm_state_parse(opt_str(v, "state"), &s);
		char *spec = dump_or_null(json_object_get(v, "spec")), *ips = dump_or_null(json_object_get(v, "nic_ips")),
		     *data = dump_or_null(json_object_get(v, "data"));
		int num = (int)json_integer_value(json_object_get(v, "num"));
		struct state_vm vm = {
			.infra_id = (char *)(uintptr_t)id, .num = num, .system = (char *)(uintptr_t)opt_str(v, "system"),
			.cloud = (char *)(uintptr_t)opt_str(v, "cloud"), .cloud_cred = (char *)(uintptr_t)opt_str(v, "cloud_cred"),
			.state = s, .cloud_id = (char *)(uintptr_t)opt_str(v, "cloud_id"),
			.public_ip = (char *)(uintptr_t)opt_str(v, "public_ip"), .private_ip = (char *)(uintptr_t)opt_str(v, "private_ip"),
			.ssh_port = (int)json_integer_value(json_object_get(v, "ssh_port")),
			.user = (char *)(uintptr_t)opt_str(v, "user"), .hostkey = (char *)(uintptr_t)opt_str(v, "hostkey"),
			.spec = spec, .nic_ips = ips, .data = data, .note = (char *)(uintptr_t)opt_str(v, "note"),
			.created = json_number_value(json_object_get(v, "created")),
			.ctxt = json_is_integer(json_object_get(v, "ctxt")) ? (int)json_integer_value(json_object_get(v, "ctxt")) : -1,
		};
		if (num >= in.next_vm)
			in.next_vm = num + 1;
		rc = state_vm_insert(st, &vm, d);
		free(spec);
		free(ips);
		free(data);
		const char *vl = opt_str(v, "contmsg");
		if (rc < 0 || (vl && *vl && state_log_add(st, id, num, vl, d) < 0))
			return -1;
	}
	json_array_foreach(json_object_get(j, "networks"), i, v) {
		char *data = dump_or_null(json_object_get(v, "data"));
		struct state_net net = {
			.infra_id = (char *)(uintptr_t)id, .name = (char *)(uintptr_t)opt_str(v, "name"),
			.cloud = (char *)(uintptr_t)opt_str(v, "cloud"), .cloud_id = (char *)(uintptr_t)opt_str(v, "cloud_id"),
			.cidr = (char *)(uintptr_t)opt_str(v, "cidr"), .public = json_is_true(json_object_get(v, "public")),
			.outports = (char *)(uintptr_t)opt_str(v, "outports"), .data = data,
		};
		rc = state_net_upsert(st, &net, d);
		free(data);
		if (rc < 0)
			return -1;
	}
	json_array_foreach(json_object_get(j, "steps"), i, v) {
		const char *sn = opt_str(v, "status");
		enum step_status ss = STEP_PENDING;
		for (int k = STEP_PENDING; k <= STEP_SKIPPED; k++)
			if (sn && strcmp(sn, step_status_name((enum step_status)k)) == 0)
				ss = (enum step_status)k;
		struct state_step row = { .step = (int)json_integer_value(json_object_get(v, "step")),
			.vm = (int)json_integer_value(json_object_get(v, "vm")),
			.configure = (char *)(uintptr_t)(opt_str(v, "configure") ? opt_str(v, "configure") : ""),
			.status = ss, .started = json_number_value(json_object_get(v, "started")),
			.ended = json_number_value(json_object_get(v, "ended")),
			.error = (char *)(uintptr_t)opt_str(v, "error") };
		if (state_step_set(st, id, &row, d) < 0)
			return -1;
	}
	json_array_foreach(json_object_get(j, "outputs"), i, v)
		if (opt_str(v, "name") && state_output_set(st, id, opt_str(v, "name"), opt_str(v, "path"),
							   opt_str(v, "value"), d) < 0)
			return -1;
	/* next_vm covers every number seen, so numbers are never reused */
	int first;
	int have = (int)json_integer_value(json_object_get(ji, "next_vm"));
	if (in.next_vm > have && state_infra_take_nums(st, id, in.next_vm - have, &first, d) < 0)
		return -1;
	return 0;
}

int deploy_import(struct state_store *st, json_t *j, const char *owner, const char *auth_path, char **idp,
		  struct diag *d)
{
	const char *old = opt_str(json_object_get(j, "infrastructure"), "id");
	struct state_infra probe;
	char *id = NULL;
	int g = state_infra_get(st, old, &probe, d);
	if (g < 0)
		return -1;
	state_infra_release(&probe);
	id = g == 0 ? deploy_new_id() : xstrdup(old);
	if (state_begin(st, d) < 0)
		goto fail;
	if (load(st, j, id, owner, auth_path, d) < 0 || state_commit(st, d) < 0) {
		state_rollback(st);
		goto fail;
	}
	*idp = id;
	return 0;
fail:
	free(id);
	return -1;
}
