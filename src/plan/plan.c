/* plan.c: RADL document -> VM instances, names, clouds and networks (see
 * plan.h). This is the one place that decides how many VMs a deployment
 * has, what they are called and where they go, so that `imc plan` shows
 * exactly what `imc create` will do. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloud/cloud.h"
#include "plan/plan.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The URL's scheme picks the cloud (each backend lists its schemes,
 * cloud.h); no scheme means the embedded cloud. */
const char *plan_cloud_of_url(const char *url)
{
	const char *colon = url ? strstr(url, "://") : NULL;
	if (!colon)
		return cloud_embedded()->name;
	return cloud_type_of_scheme(url, (size_t)(colon - url));
}

/* s with every "#N#" replaced by num; malloc'd. */
static char *expand_num(const char *s, int num)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "");
	while (*s) {
		if (strncmp(s, "#N#", 3) == 0) {
			strbuf_addf(&sb, "%d", num);
			s += 3;
		} else
			strbuf_addch(&sb, *s++);
	}
	return strbuf_detach(&sb);
}

static void split_name(const char *fqdn, char **host, char **domain)
{
	const char *dot = strchr(fqdn, '.');
	if (dot) {
		*host = xstrndup(fqdn, (size_t)(dot - fqdn));
		*domain = xstrdup(dot + 1);
	} else {
		*host = xstrdup(fqdn);
		*domain = xstrdup("localdomain");
	}
}

static void note_add(struct plan_schedule *s, char *msg)
{
	s->notes = xreallocarray(s->notes, s->nnotes + 1, sizeof(*s->notes));
	s->notes[s->nnotes++] = msg;
}

static const struct radl_aspect *find_system(const struct radl_doc *doc, const struct radl_doc *base,
					     const char *id)
{
	const struct radl_aspect *a = radl_find_system(doc, id);
	if ((!a || a->reference) && base) {
		const struct radl_aspect *b = radl_find_system(base, id);
		if (b && !b->reference)
			return b;
	}
	return a;
}

static const char *first_string(const struct radl_body *b, const char *name)
{
	const char *s = radl_get_string(b, name);
	if (s)
		return s;
	size_t n = 0;
	char *const *l = radl_get_list(b, name, &n);
	return l && n ? l[0] : NULL;
}

static long long number_min(const struct radl_body *b, const char *name)
{
	double v;
	if (radl_get_number_min(b, name, &v) == 0 || radl_get_number(b, name, &v) == 0)
		return (long long)ceil(v);
	return 0;
}

/* Resolves the cloud of a VM: --cloud, then the deploy's cloud id, then the
 * image URL scheme. Sets vm->cloud and vm->cloud_cred. */
static int resolve_cloud(struct plan_vm *vm, const struct radl_deploy *dp, const struct plan_opts *o,
			 struct diag *d)
{
	const char *want = o->cloud_override ? o->cloud_override : dp->cloud;
	if (want) {
		const struct auth_cred *c = auth_find(o->auth, want, NULL);
		if (c) {
			const char *type = auth_get(c, "type");
			vm->cloud = xstrdup(type);
			for (char *p = vm->cloud; *p; p++)
				*p = (char)tolower((unsigned char)*p);
			vm->cloud_cred = xstrdup(want);
			return 0;
		}
		if (cloud_driver_find(want)) {
			vm->cloud = xstrdup(cloud_driver_find(want)->name);
			return 0;
		}
		if (o->lenient && !o->cloud_override) {
			vm->cloud = xstrdup("unknown");
			vm->cloud_cred = xstrdup(want);
			return 0;
		}
		if (o->cloud_override)
			diag_error(d, IMC_EXIT_USAGE, NULL,
				   "--cloud '%s' is neither an auth line id nor a cloud backend", want);
		else
			diag_error(d, IMC_EXIT_DATAERR, &dp->loc,
				   "deploy names cloud '%s', which no auth line has as its id", want);
		return -1;
	}
	const char *cloud = plan_cloud_of_url(vm->image);
	if (!cloud) {
		const struct radl_feature *f = radl_get_feature(&vm->sys->body, "disk.0.image.url");
		diag_error(d, IMC_EXIT_DATAERR, f ? &f->loc : &dp->loc,
			   "no cloud backend for image URL '%s' of system '%s'", vm->image, vm->system);
		return -1;
	}
	vm->cloud = xstrdup(cloud);
	const struct auth_cred *c = auth_find(o->auth, NULL, cloud);
	if (c && auth_get(c, "id"))
		vm->cloud_cred = xstrdup(auth_get(c, "id"));
	return 0;
}

static void fill_vm(struct plan_vm *vm, const struct radl_aspect *sys)
{
	const struct radl_body *b = &sys->body;
	char name[64];
	for (int i = 0;; i++) {
		snprintf(name, sizeof(name), "net_interface.%d.connection", i);
		const char *net = radl_get_string(b, name);
		snprintf(name, sizeof(name), "net_interface.%d.dns_name", i);
		const char *dns = radl_get_string(b, name);
		if (!net && !dns && i > 0)
			break;
		if (!net && i == 0 && !dns)
			break;
		vm->nics = xreallocarray(vm->nics, vm->nnics + 1, sizeof(*vm->nics));
		struct plan_nic *nic = &vm->nics[vm->nnics++];
		memset(nic, 0, sizeof(*nic));
		nic->index = i;
		nic->net = net;
		if (dns) {
			char *fq = expand_num(dns, vm->num);
			split_name(fq, &nic->hostname, &nic->domain);
			free(fq);
		}
		snprintf(name, sizeof(name), "net_interface.%d.ip", i);
		const char *ip = radl_get_string(b, name);
		nic->ip = ip ? xstrdup(ip) : NULL;
	}
	if (vm->nnics && vm->nics[0].hostname) {
		vm->hostname = xstrdup(vm->nics[0].hostname);
		vm->domain = xstrdup(vm->nics[0].domain);
	} else {
		vm->hostname = xasprintf("vnode-%d", vm->num);
		vm->domain = xstrdup("localdomain");
	}
	const char *url = first_string(b, "disk.0.image.url");
	vm->image = url ? expand_num(url, vm->num) : NULL;
	const char *it = radl_get_string(b, "instance_type");
	vm->instance_type = it ? xstrdup(it) : NULL;
	vm->cpus = (int)number_min(b, "cpu.count");
	vm->memory_bytes = number_min(b, "memory.size");
	vm->gpus = (int)number_min(b, "gpu.count");
	const char *user = radl_get_string(b, "disk.0.os.credentials.username");
	vm->user = user ? xstrdup(user) : NULL;
	for (int i = 0;; i++) {
		char k[4][64];
		snprintf(k[0], sizeof(k[0]), "disk.%d.size", i);
		snprintf(k[1], sizeof(k[1]), "disk.%d.device", i);
		snprintf(k[2], sizeof(k[2]), "disk.%d.mount_path", i);
		snprintf(k[3], sizeof(k[3]), "disk.%d.fstype", i);
		double sz = 0;
		bool has_size = radl_get_number(b, k[0], &sz) == 0 || radl_get_number_min(b, k[0], &sz) == 0;
		const char *dev = radl_get_string(b, k[1]), *mp = radl_get_string(b, k[2]),
			   *fs = radl_get_string(b, k[3]);
		if (!has_size && !dev && !mp && !fs) {
			if (i == 0)
				continue;
			break;
		}
		vm->disks = xreallocarray(vm->disks, vm->ndisks + 1, sizeof(*vm->disks));
		struct plan_disk *dk = &vm->disks[vm->ndisks++];
		dk->index = i;
		dk->size_bytes = (long long)sz;
		dk->device = dev ? xstrdup(dev) : NULL;
		dk->mount_path = mp ? xstrdup(mp) : NULL;
		dk->fstype = fs ? xstrdup(fs) : NULL;
	}
}

static void vm_release(struct plan_vm *vm)
{
	for (size_t i = 0; i < vm->nnics; i++) {
		free(vm->nics[i].hostname);
		free(vm->nics[i].domain);
		free(vm->nics[i].ip);
	}
	free(vm->nics);
	for (size_t i = 0; i < vm->ndisks; i++) {
		free(vm->disks[i].device);
		free(vm->disks[i].mount_path);
		free(vm->disks[i].fstype);
	}
	free(vm->disks);
	free(vm->hostname);
	free(vm->domain);
	free(vm->cloud);
	free(vm->cloud_cred);
	free(vm->image);
	free(vm->instance_type);
	free(vm->user);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nvms; i++)
		vm_release(&p->vms[i]);
	free(p->vms);
	for (size_t i = 0; i < p->nnets; i++)
		free(p->nets[i].cloud);
	free(p->nets);
	plan_schedule_release(&p->sched);
	free(p);
}

static void add_net(struct plan *p, const struct radl_aspect *net, const char *cloud)
{
	for (size_t i = 0; i < p->nnets; i++)
		if (strcmp(p->nets[i].name, net->id) == 0) {
			if (!p->nets[i].cloud && cloud) {
				p->nets[i].cloud = xstrdup(cloud);
				return;
			}
			if (!cloud || (p->nets[i].cloud && strcmp(p->nets[i].cloud, cloud) == 0))
				return;
		}
	p->nets = xreallocarray(p->nets, p->nnets + 1, sizeof(*p->nets));
	struct plan_net *pn = &p->nets[p->nnets++];
	pn->name = net->id;
	pn->cloud = cloud ? xstrdup(cloud) : NULL;
	const char *outb = radl_get_string(&net->body, "outbound");
	pn->public = outb && strcasecmp(outb, "yes") == 0;
	pn->outports = radl_get_string(&net->body, "outports");
	pn->cidr = radl_get_string(&net->body, "cidr");
}

struct plan *plan_build(const struct radl_doc *doc, const struct plan_opts *o, struct diag *d)
{
	struct plan *p = xcalloc(1, sizeof(*p));
	p->doc = doc;
	int num = o->first_num;
	bool bad = false;
	for (size_t k = 0; k < doc->ndeploys; k++) {
		const struct radl_deploy *dp = &doc->deploys[k];
		const struct radl_aspect *sys = find_system(doc, o->base, dp->system);
		if (sys && sys->reference && o->lenient) {
			note_add(&p->sched, xasprintf("system '%s' is only referenced here: planned without features",
						      dp->system));
		} else if (!sys || sys->reference) {
			diag_error(d, IMC_EXIT_DATAERR, &dp->loc, "deploy names system '%s', which is not defined",
				   dp->system);
			bad = true;
			continue;
		}
		long count = (long)dp->count.value;
		if (count < 0 || count > 10000) {
			diag_error(d, IMC_EXIT_DATAERR, &dp->loc, "deploy count %ld of system '%s' is out of range",
				   count, dp->system);
			bad = true;
			continue;
		}
		for (long i = 0; i < count; i++) {
			p->vms = xreallocarray(p->vms, p->nvms + 1, sizeof(*p->vms));
			struct plan_vm *vm = &p->vms[p->nvms++];
			memset(vm, 0, sizeof(*vm));
			vm->num = num++;
			vm->system = sys->id;
			vm->sys = sys;
			fill_vm(vm, sys);
			if (resolve_cloud(vm, dp, o, d) < 0) {
				bad = true;
				break;
			}
			if (!vm->user)
				vm->user = xstrdup(cloud_default_user(vm->cloud));
			for (size_t n = 0; n < vm->nnics; n++) {
				const char *netname = vm->nics[n].net;
				if (!netname)
					continue;
				const struct radl_aspect *net = radl_find_network(doc, netname);
				if ((!net || net->reference) && o->base)
					net = radl_find_network(o->base, netname);
				if (!net) {
					char key[64];
					snprintf(key, sizeof(key), "net_interface.%d.connection", vm->nics[n].index);
					const struct radl_feature *f = radl_get_feature(&sys->body, key);
					diag_error(d, IMC_EXIT_DATAERR, f ? &f->loc : &sys->loc,
						   "system '%s' connects to network '%s', which is not defined",
						   sys->id, netname);
					bad = true;
					continue;
				}
				add_net(p, net, vm->cloud);
			}
		}
	}
	for (size_t k = 0; k < doc->nnetworks; k++)
		if (!doc->networks[k].reference)
			add_net(p, &doc->networks[k], NULL);
	if (bad) {
		plan_free(p);
		return NULL;
	}
	const char **systems = xcalloc(p->nvms + 1, sizeof(*systems));
	bool *ctxt = xcalloc(p->nvms + 1, sizeof(*ctxt));
	for (size_t i = 0; i < p->nvms; i++)
		systems[i] = p->vms[i].system;
	/* the schedule replaces sched: keep the notes gathered so far */
	char **early = p->sched.notes;
	size_t nearly = p->sched.nnotes;
	p->sched.notes = NULL;
	p->sched.nnotes = 0;
	int rc = plan_schedule_build(doc, systems, p->nvms, &p->sched, ctxt, d);
	for (size_t i = 0; i < nearly; i++)
		note_add(&p->sched, early[i]);
	free(early);
	for (size_t i = 0; i < p->nvms; i++)
		if (strcmp(p->vms[i].cloud, "unknown") == 0 && (i == 0 || strcmp(p->vms[i - 1].cloud_cred ? p->vms[i - 1].cloud_cred : "", p->vms[i].cloud_cred) != 0))
			note_add(&p->sched, xasprintf("VM %d: deploy names cloud '%s', which no auth line has as its id",
						      p->vms[i].num, p->vms[i].cloud_cred));
	for (size_t i = 0; i < p->nvms; i++)
		p->vms[i].ctxt = ctxt[i];
	free(systems);
	free(ctxt);
	if (rc < 0) {
		plan_free(p);
		return NULL;
	}
	return p;
}

/* ---- output ---- */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *plan_vm_to_json(const struct plan_vm *vm)
{
	json_t *nics = json_array(), *disks = json_array();
	for (size_t i = 0; i < vm->nnics; i++) {
		const struct plan_nic *n = &vm->nics[i];
		json_t *o = json_pack("{s:i, s:o}", "index", n->index, "net", str_or_null(n->net));
		if (n->hostname) {
			json_object_set_new(o, "hostname", json_string(n->hostname));
			json_object_set_new(o, "domain", json_string(n->domain));
		}
		if (n->ip)
			json_object_set_new(o, "ip", json_string(n->ip));
		json_array_append_new(nics, o);
	}
	for (size_t i = 0; i < vm->ndisks; i++) {
		const struct plan_disk *k = &vm->disks[i];
		json_array_append_new(disks, json_pack("{s:i, s:I, s:o, s:o, s:o}", "index", k->index,
			"size", (json_int_t)k->size_bytes, "device", str_or_null(k->device),
			"mount_path", str_or_null(k->mount_path), "fstype", str_or_null(k->fstype)));
	}
	char *fqdn = xasprintf("%s.%s", vm->hostname, vm->domain);
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:i, s:I, s:i, s:s, s:b, s:o, s:o}",
		"num", vm->num, "system", vm->system, "hostname", vm->hostname, "domain", vm->domain,
		"fqdn", fqdn, "cloud", vm->cloud, "cloud_cred", str_or_null(vm->cloud_cred),
		"image", str_or_null(vm->image), "instance_type", str_or_null(vm->instance_type),
		"cpus", vm->cpus, "memory", (json_int_t)vm->memory_bytes, "gpus", vm->gpus,
		"user", vm->user ? vm->user : "root", "ctxt", vm->ctxt, "nics", nics, "disks", disks);
	json_object_set_new(o, "backend", json_boolean(cloud_driver_find(vm->cloud) != NULL));
	free(fqdn);
	return o;
}

static json_t *schedule_json(const struct plan_schedule *s, const struct plan *p)
{
	json_t *steps = json_array();
	for (size_t i = 0; i < s->nsteps; i++) {
		json_t *items = json_array();
		for (size_t k = 0; k < s->steps[i].nitems; k++) {
			const struct plan_item *it = &s->steps[i].items[k];
			const struct plan_vm *vm = &p->vms[it->vm];
			json_array_append_new(items, json_pack("{s:i, s:s, s:s, s:s}", "vm", vm->num,
				"system", vm->system, "configure", it->conf->id,
				"tool", it->tool ? it->tool : "Ansible"));
		}
		json_array_append_new(steps, json_pack("{s:i, s:o}", "step", s->steps[i].step, "items", items));
	}
	json_t *notes = json_array();
	for (size_t i = 0; i < s->nnotes; i++)
		json_array_append_new(notes, json_string(s->notes[i]));
	return json_pack("{s:b, s:i, s:o, s:o}", "disabled", s->disabled, "max_time", s->max_time,
			 "steps", steps, "notes", notes);
}

json_t *plan_to_json(const struct plan *p)
{
	json_t *vms = json_array(), *nets = json_array();
	for (size_t i = 0; i < p->nvms; i++)
		json_array_append_new(vms, plan_vm_to_json(&p->vms[i]));
	for (size_t i = 0; i < p->nnets; i++) {
		const struct plan_net *n = &p->nets[i];
		json_array_append_new(nets, json_pack("{s:s, s:o, s:b, s:o, s:o}", "name", n->name,
			"cloud", str_or_null(n->cloud), "public", n->public,
			"outports", str_or_null(n->outports), "cidr", str_or_null(n->cidr)));
	}
	return json_pack("{s:o, s:o, s:o}", "vms", vms, "networks", nets,
			 "contextualize", schedule_json(&p->sched, p));
}

void plan_schedule_print(struct strbuf *sb, const struct plan_schedule *s, const char *const *vm_names)
{
	if (s->disabled) {
		strbuf_addstr(sb, "Contextualization: disabled\n");
	} else {
		strbuf_addstr(sb, "Contextualization");
		if (s->max_time)
			strbuf_addf(sb, " (at most %d s)", s->max_time);
		strbuf_addstr(sb, ":\n");
		for (size_t i = 0; i < s->nsteps; i++) {
			strbuf_addf(sb, "  step %d:", s->steps[i].step);
			for (size_t k = 0; k < s->steps[i].nitems; k++) {
				const struct plan_item *it = &s->steps[i].items[k];
				strbuf_addf(sb, "%s %s on %s", k ? "," : "", it->conf->id, vm_names[it->vm]);
				if (it->tool)
					strbuf_addf(sb, " (with %s)", it->tool);
			}
			strbuf_addch(sb, '\n');
		}
	}
	for (size_t i = 0; i < s->nnotes; i++)
		strbuf_addf(sb, "  note: %s\n", s->notes[i]);
}

void plan_print(struct strbuf *sb, const struct plan *p)
{
	strbuf_addf(sb, "VMs: %zu\n", p->nvms);
	for (size_t i = 0; i < p->nvms; i++) {
		const struct plan_vm *vm = &p->vms[i];
		strbuf_addf(sb, "  VM %d: system %s, %s.%s, cloud %s", vm->num, vm->system, vm->hostname,
			    vm->domain, vm->cloud);
		if (vm->cloud_cred)
			strbuf_addf(sb, " (auth id %s)", vm->cloud_cred);
		/* said here, before create refuses it */
		if (!cloud_driver_find(vm->cloud))
			strbuf_addstr(sb, " (no backend for this cloud in this imc: create refuses it)");
		if (vm->image)
			strbuf_addf(sb, ", image %s", vm->image);
		for (size_t n = 0; n < vm->nnics; n++)
			if (vm->nics[n].net)
				strbuf_addf(sb, "%s%s", n ? "," : ", networks ", vm->nics[n].net);
		if (!vm->ctxt)
			strbuf_addstr(sb, ", not contextualized");
		strbuf_addch(sb, '\n');
	}
	strbuf_addf(sb, "Networks: %zu\n", p->nnets);
	for (size_t i = 0; i < p->nnets; i++) {
		const struct plan_net *n = &p->nets[i];
		strbuf_addf(sb, "  %s: %s, cloud %s", n->name, n->public ? "public" : "private",
			    n->cloud ? n->cloud : "(unused)");
		if (n->outports)
			strbuf_addf(sb, ", outports %s", n->outports);
		strbuf_addch(sb, '\n');
	}
	char **names = xcalloc(p->nvms + 1, sizeof(*names));
	for (size_t i = 0; i < p->nvms; i++)
		names[i] = xasprintf("VM %d (%s)", p->vms[i].num, p->vms[i].hostname);
	plan_schedule_print(sb, &p->sched, (const char *const *)names);
	for (size_t i = 0; i < p->nvms; i++)
		free(names[i]);
	free(names);
}
