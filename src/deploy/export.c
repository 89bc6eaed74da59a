/* export.c: an infrastructure's record as one JSON document (IM's GET
 * /infrastructures/ID/data), for 'imc export' and `imc serve` alike: the
 * RADL, the VMs with their cloud ids and addresses, networks, steps, logs
 * and outputs. No secret is in it (cloud credentials are never stored; the
 * SSH private key stays in $IMC_HOME/infra/ID). With del the
 * infrastructure is then forgotten in the store, under its lock; its cloud
 * resources stay, to be taken over by deploy_import. */
#include "config.h"

#include "deploy/deploy.h"
#include "util/banned.h"

#define EXPORT_KIND "imc-infrastructure"

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jraw(const char *s)
{
	json_t *j = s ? json_loads(s, JSON_DECODE_ANY, NULL) : NULL;
	return j ? j : json_null();
}

int deploy_export(struct state_store *st, const struct state_infra *in, bool del, json_t *j, struct diag *d)
{
	int rc = -1;
	struct state_vm *vms = NULL;
	size_t nv = 0, nn = 0, ns = 0, no = 0;
	struct state_net *nets = NULL;
	struct state_step *steps = NULL;
	struct state_output *outs = NULL;
	struct strbuf log = STRBUF_INIT;
	int lock = -1;
	if (del && state_lock_infra(st, in->id, true, &lock, d) != 0)
		goto out;
	if (state_vm_list(st, in->id, &vms, &nv, d) < 0 || state_net_list(st, in->id, &nets, &nn, d) < 0 ||
	    state_step_list(st, in->id, &steps, &ns, d) < 0 || state_output_list(st, in->id, &outs, &no, d) < 0 ||
	    state_log_get(st, in->id, -1, &log, d) < 0)
		goto out;
	json_object_set_new(j, "format", json_integer(DEPLOY_RECORD_FORMAT));
	json_object_set_new(j, "kind", json_string(EXPORT_KIND));
	json_object_set_new(j, "infrastructure", json_pack("{s:s, s:f, s:s, s:o, s:o, s:o, s:o, s:s, s:i, s:i}",
		"id", in->id, "created", in->created, "radl", in->radl ? in->radl : "",
		"radl_path", jstr(in->radl_path), "cloud", jstr(in->cloud), "extra_vars", jraw(in->extra_vars),
		"auth_path", jstr(in->auth_path), "phase", infra_phase_name(in->phase), "next_vm", in->next_vm,
		"ctxt_max", in->ctxt_max));
	json_object_set_new(json_object_get(j, "infrastructure"), "contmsg", json_string(strbuf_str(&log)));
	json_t *arr = json_array();
	for (size_t i = 0; i < nv; i++) {
		struct state_vm *v = &vms[i];
		struct strbuf vl = STRBUF_INIT;
		state_log_get(st, in->id, v->num, &vl, d);
		json_array_append_new(arr, json_pack("{s:i, s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:f, s:s}",
			"num", v->num, "system", v->system, "cloud", v->cloud, "cloud_cred", jstr(v->cloud_cred),
			"state", vm_state_name(v->state), "cloud_id", jstr(v->cloud_id), "public_ip", jstr(v->public_ip),
			"private_ip", jstr(v->private_ip), "ssh_port", v->ssh_port, "user", jstr(v->user),
			"hostkey", jstr(v->hostkey), "spec", jraw(v->spec), "nic_ips", jraw(v->nic_ips),
			"data", jraw(v->data), "note", jstr(v->note), "ctxt", v->ctxt, "created", v->created,
			"contmsg", strbuf_str(&vl)));
		strbuf_release(&vl);
	}
	json_object_set_new(j, "vms", arr);
	arr = json_array();
	for (size_t i = 0; i < nn; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:o, s:b, s:o, s:o}", "name", nets[i].name,
			"cloud", nets[i].cloud, "cloud_id", jstr(nets[i].cloud_id), "cidr", jstr(nets[i].cidr),
			"public", nets[i].public, "outports", jstr(nets[i].outports), "data", jraw(nets[i].data)));
	json_object_set_new(j, "networks", arr);
	arr = json_array();
	for (size_t i = 0; i < ns; i++)
		json_array_append_new(arr, json_pack("{s:i, s:i, s:s, s:s, s:f, s:f, s:o}", "step", steps[i].step,
			"vm", steps[i].vm, "configure", steps[i].configure, "status", step_status_name(steps[i].status),
			"started", steps[i].started, "ended", steps[i].ended, "error", jstr(steps[i].error)));
	json_object_set_new(j, "steps", arr);
	arr = json_array();
	for (size_t i = 0; i < no; i++)
		json_array_append_new(arr, json_pack("{s:s, s:o, s:o}", "name", outs[i].name, "path", jstr(outs[i].path),
						   "value", jstr(outs[i].value)));
	json_object_set_new(j, "outputs", arr);
	if (del && state_infra_forget(st, in->id, d) < 0)
		goto out;
	rc = 0;
out:
	state_unlock_infra(lock);
	strbuf_release(&log);
	state_output_list_free(outs, no);
	state_step_list_free(steps, ns);
	state_net_list_free(nets, nn);
	state_vm_list_free(vms, nv);
	return rc;
}

