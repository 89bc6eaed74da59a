/* report.c: what an infrastructure looks like from outside (see
 * deploy.h): its aggregate state, the contextualization steps with their
 * timings, one VM as IM's getvminfo shows it. Built into a strbuf or a
 * JSON document, never printed here, so that a command and a server show
 * the same thing. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "deploy/deploy.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum vm_state deploy_state(const struct state_infra *in, const struct state_vm *vms, size_t n)
{
	if (in->phase == PHASE_DESTROYING)
		return VM_DELETING;
	enum vm_state *s = xcalloc(n + 1, sizeof(*s));
	for (size_t i = 0; i < n; i++)
		s[i] = vms[i].state;
	/* no VMs: pending while the worker has not started them, else failed
	 * (IM: an infrastructure with nothing deployed reports failed) */
	enum vm_state empty = in->phase == PHASE_NEW || in->phase == PHASE_CREATING ? VM_PENDING : VM_FAILED;
	enum vm_state r = vm_state_aggregate(s, (int)n, empty);
	free(s);
	return r;
}

/* Each step with its duration and when it started after the creation of
 * the infrastructure (so the time to, say, the first training step can be
 * read off), then the total from creation to the last step's end. */
/* When row i really started: steps run strictly in order, so not before
 * every row of an earlier step ended (a VM with nothing to do at step N-1
 * still waits for it, though its own previous step ended sooner). */
static double step_start(const struct state_step *steps, size_t n, size_t i)
{
	double t = steps[i].started;
	for (size_t j = 0; t > 0 && j < n; j++)
		if (steps[j].step < steps[i].step && steps[j].ended > t)
			t = steps[j].ended;
	return t;
}

void deploy_steps_text(struct strbuf *sb, double created, const struct state_step *steps, size_t n)
{
	double last = 0;
	for (size_t i = 0; i < n; i++) {
		struct state_step s_copy = steps[i];
		s_copy.started = step_start(steps, n, i);
		const struct state_step *s = &s_copy;
		strbuf_addf(sb, "  step %d: VM %d configure %s: %s", s->step, s->vm, s->configure,
			    step_status_name(s->status));
		if (s->started > 0 && s->ended >= s->started)
			strbuf_addf(sb, " (%.1f s", s->ended - s->started);
		if (s->started > 0 && created > 0)
			strbuf_addf(sb, "%sstarted %+.1f s after create)",
				    s->ended >= s->started ? ", " : " (", s->started - created);
		else if (s->started > 0 && s->ended >= s->started)
			strbuf_addch(sb, ')');
		if (s->error && s->status == STEP_FAILED)
			strbuf_addf(sb, ": %s", s->error);
		strbuf_addch(sb, '\n');
		if (s->ended > last)
			last = s->ended;
	}
	if (last > 0 && created > 0)
		strbuf_addf(sb, "Total: %.1f s from create to the end of the last step\n", last - created);
}

json_t *deploy_steps_json(double created, const struct state_step *steps, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		struct state_step s_copy = steps[i];
		s_copy.started = step_start(steps, n, i);
		const struct state_step *s = &s_copy;
		json_t *o = json_pack("{s:i, s:i, s:s, s:s}", "step", s->step, "vm", s->vm,
				      "configure", s->configure, "status", step_status_name(s->status));
		if (s->started > 0 && s->ended >= s->started)
			json_object_set_new(o, "duration", json_real(s->ended - s->started));
		else
			json_object_set_new(o, "duration", json_null());
		if (s->started > 0 && created > 0)
			json_object_set_new(o, "started_after_create", json_real(s->started - created));
		if (s->error)
			json_object_set_new(o, "error", json_string(s->error));
		json_array_append_new(a, o);
	}
	return a;
}

int deploy_state_report(struct state_store *st, const char *id, bool with_id, json_t *doc,
			struct strbuf *text, struct diag *d)
{
	struct state_infra in;
	if (state_infra_get(st, id, &in, d) != 0)
		return -1;
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct state_step *steps = NULL;
	size_t ns = 0;
	if (state_vm_list(st, id, &vms, &n, d) < 0 || state_step_list(st, id, &steps, &ns, d) < 0) {
		state_infra_release(&in);
		state_vm_list_free(vms, n);
		return -1;
	}
	enum vm_state s = deploy_state(&in, vms, n);
	if (doc) {
		if (with_id)
			json_object_set_new(doc, "id", json_string(id));
		json_t *vs = json_object();
		for (size_t i = 0; i < n; i++) {
			char k[16];
			snprintf(k, sizeof(k), "%d", vms[i].num);
			json_object_set_new(vs, k, json_string(vm_state_name(vms[i].state)));
		}
		json_object_set_new(doc, "state", json_pack("{s:s, s:o}", "state", vm_state_name(s), "vm_states", vs));
		json_object_set_new(doc, "phase", json_string(infra_phase_name(in.phase)));
		json_object_set_new(doc, "steps", deploy_steps_json(in.created, steps, ns));
	} else {
		strbuf_addf(text, "The infrastructure is in state: %s\n", vm_state_name(s));
		for (size_t i = 0; i < n; i++)
			strbuf_addf(text, "VM ID: %d is in state: %s.\n", vms[i].num, vm_state_name(vms[i].state));
		if (ns) {
			strbuf_addstr(text, "Contextualization steps:\n");
			deploy_steps_text(text, in.created, steps, ns);
		}
	}
	state_infra_release(&in);
	state_vm_list_free(vms, n);
	state_step_list_free(steps, ns);
	return 0;
}

int deploy_vm_info(const struct radl_doc *doc, const struct state_vm *vm, const char *attr,
		   struct strbuf *sb, json_t **json, char **value, struct diag *d)
{
	const struct radl_aspect *sys = radl_find_system(doc, vm->system);
	if (!sys) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "VM %d: system '%s' is not in the stored RADL", vm->num,
			   vm->system);
		return -1;
	}
	struct radl_aspect *a = radl_aspect_clone(sys);
	json_t *spec = vm->spec ? json_loads(vm->spec, 0, NULL) : NULL;
	json_t *ips = vm->nic_ips ? json_loads(vm->nic_ips, 0, NULL) : NULL;
	radl_set_string(&a->body, "state", vm_state_name(vm->state));
	radl_set_string(&a->body, "provider.type", vm->cloud);
	if (vm->cloud_id)
		radl_set_string(&a->body, "instance_id", vm->cloud_id);
	/* the VM's size as it is now (stored spec, changed by alter), not the
	 * constraints the RADL asked at creation */
	json_int_t cpus = json_integer_value(json_object_get(spec, "cpus"));
	json_int_t mem = json_integer_value(json_object_get(spec, "memory"));
	json_int_t gpus = json_integer_value(json_object_get(spec, "gpus"));
	if (cpus > 0)
		radl_set_number(&a->body, "cpu.count", (double)cpus, true);
	if (mem > 0)
		radl_set_number(&a->body, "memory.size", (double)mem, true);
	if (gpus > 0)
		radl_set_number(&a->body, "gpu.count", (double)gpus, true);
	const char *itype = json_string_value(json_object_get(spec, "instance_type"));
	json_t *data = itype || !vm->data ? NULL : json_loads(vm->data, 0, NULL);
	if (!itype) /* the type the cloud chose (EC2 keeps it in its data) */
		itype = json_string_value(json_object_get(data, "instance_type"));
	if (itype)
		radl_set_string(&a->body, "instance_type", itype);
	json_decref(data);
	const char *user = vm->user ? vm->user : json_string_value(json_object_get(spec, "user"));
	if (user)
		radl_set_string(&a->body, "disk.0.os.credentials.username", user);
	/* never show secrets, whatever the RADL said */
	radl_unset(&a->body, "disk.0.os.credentials.password");
	radl_unset(&a->body, "disk.0.os.credentials.private_key");
	radl_unset(&a->body, "disk.0.os.credentials.new.password");
	size_t k;
	json_t *nic;
	json_t *nets = json_array();
	json_array_foreach(json_object_get(spec, "nics"), k, nic) {
		int idx = (int)json_integer_value(json_object_get(nic, "index"));
		char key[64];
		const char *h = json_string_value(json_object_get(nic, "hostname"));
		const char *dm = json_string_value(json_object_get(nic, "domain"));
		if (h) {
			snprintf(key, sizeof(key), "net_interface.%d.dns_name", idx);
			char *f = xasprintf("%s.%s", h, dm ? dm : "localdomain");
			radl_set_string(&a->body, key, f);
			free(f);
		}
		const char *ip = json_string_value(json_array_get(ips, (size_t)idx));
		if (!ip && idx == 0)
			ip = vm->private_ip ? vm->private_ip : vm->public_ip;
		if (ip) {
			snprintf(key, sizeof(key), "net_interface.%d.ip", idx);
			radl_set_string(&a->body, key, ip);
		}
		const char *net = json_string_value(json_object_get(nic, "net"));
		if (net)
			json_array_append_new(nets, json_string(net));
	}
	json_t *rj = json_array();
	size_t i;
	json_t *nn;
	json_array_foreach(nets, i, nn) {
		bool dup = false;
		for (size_t q = 0; q < i; q++)
			dup = dup || json_equal(json_array_get(nets, q), nn);
		const struct radl_aspect *net = radl_find_network(doc, json_string_value(nn));
		if (!net || dup)
			continue;
		if (sb) {
			radl_print_aspect(sb, net);
			strbuf_addch(sb, '\n');
		}
		json_array_append_new(rj, radl_aspect_to_json(net));
	}
	if (sb) {
		radl_print_aspect(sb, a);
		if (sb->len && sb->buf[sb->len - 1] != '\n')
			strbuf_addch(sb, '\n');
	}
	json_array_append_new(rj, radl_aspect_to_json(a));
	if (json)
		*json = json_pack("{s:i, s:s, s:o}", "id", vm->num, "state", vm_state_name(vm->state), "radl", rj);
	else
		json_decref(rj);
	if (value) {
		*value = NULL;
		const struct radl_feature *f = radl_get_feature(&a->body, attr);
		if (f && f->kind == RADL_V_STRING)
			*value = xstrdup(f->str);
		else if (f && f->kind == RADL_V_NUMBER)
			*value = f->num.is_int ? xasprintf("%lld", (long long)f->num.value)
					       : xasprintf("%g", f->num.value);
		else if (f && f->kind == RADL_V_LIST) {
			struct strbuf l = STRBUF_INIT;
			strbuf_addch(&l, '[');
			for (size_t q = 0; q < f->nlist; q++)
				strbuf_addf(&l, "%s'%s'", q ? ", " : "", f->list[q]);
			strbuf_addch(&l, ']');
			*value = strbuf_detach(&l);
		}
	}
	json_decref(nets);
	json_decref(spec);
	json_decref(ips);
	radl_aspect_free(a);
	return 0;
}
