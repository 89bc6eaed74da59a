/* plan-vars.c: the variables, groups and /etc/hosts IM gives recipes
 * (IM_NODE_*, IM_MASTER_*, IM_INFRASTRUCTURE_ID, one group per system),
 * computed from the VMs as the
 * store knows them (spec plus the addresses the cloud gave), so recipes
 * written for IM find the same names with the same values; and imc's own
 * launch variables of distributed frameworks (IMC_RANK, IMC_TORCH_ENV,
 * IMC_MPI_HOSTFILE, ...), so that a recipe starts torchrun or mpirun
 * without working out ranks and addresses itself. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s && *s ? s : NULL;
}

static const char *nic_ip(const json_t *vm, int index)
{
	const json_t *ips = json_object_get(vm, "nic_ips");
	const char *ip = json_string_value(json_array_get(ips, (size_t)index));
	if (ip && *ip)
		return ip;
	if (index == 0)
		return jstr(vm, "private_ip") ? jstr(vm, "private_ip") : jstr(vm, "public_ip");
	return NULL;
}

/* A VM's place in its system's job: the VMs of the same RADL system are
 * one world, ranked by VM number (the deploy order), so the first VM
 * deployed is rank 0 and its interface-0 address (the private one in a
 * recipe that lists the private network first, as the training recipes
 * do) is the rendezvous. Each VM runs one process of the job: LOCAL_RANK
 * is 0 and the MPI hostfile gives every VM its CPU count as slots. */
static void cluster_vars(const json_t *vms, size_t i, json_t *v)
{
	const json_t *me = json_array_get(vms, i), *vm;
	const char *sys = jstr(me, "system");
	json_int_t my_num = json_integer_value(json_object_get(me, "num"));
	long rank = 0, size = 0;
	json_int_t first_num = -1;
	const char *master = NULL;
	struct strbuf hostfile = STRBUF_INIT;
	size_t k;
	strbuf_addstr(&hostfile, "");
	json_array_foreach(vms, k, vm) {
		const char *s = jstr(vm, "system");
		if (!sys || !s || strcmp(s, sys) != 0)
			continue;
		json_int_t num = json_integer_value(json_object_get(vm, "num"));
		const char *ip = nic_ip(vm, 0);
		size++;
		if (num < my_num)
			rank++;
		if (first_num < 0 || num < first_num) {
			first_num = num;
			master = ip;
		}
		json_int_t cpus = json_integer_value(json_object_get(vm, "cpus"));
		if (ip)
			strbuf_addf(&hostfile, "%s slots=%lld\n", ip, (long long)(cpus > 0 ? cpus : 1));
	}
	char buf[32];
	json_t *env = json_object();
	json_object_set_new(v, "IMC_RANK", json_integer(rank));
	json_object_set_new(v, "IMC_WORLD_SIZE", json_integer(size));
	json_object_set_new(v, "IMC_LOCAL_RANK", json_integer(0));
	json_object_set_new(v, "IMC_MASTER_ADDR", json_string(master ? master : ""));
	json_object_set_new(v, "IMC_MASTER_PORT", json_integer(PLAN_MASTER_PORT));
	/* torchrun's environment (init_method "env://"): strings, so that the
	 * object can be a task's 'environment' as it is */
	json_object_set_new(env, "MASTER_ADDR", json_string(master ? master : ""));
	snprintf(buf, sizeof(buf), "%d", PLAN_MASTER_PORT);
	json_object_set_new(env, "MASTER_PORT", json_string(buf));
	snprintf(buf, sizeof(buf), "%ld", rank);
	json_object_set_new(env, "RANK", json_string(buf));
	snprintf(buf, sizeof(buf), "%ld", size);
	json_object_set_new(env, "WORLD_SIZE", json_string(buf));
	json_object_set_new(env, "LOCAL_RANK", json_string("0"));
	json_object_set_new(env, "LOCAL_WORLD_SIZE", json_string("1"));
	json_object_set_new(v, "IMC_TORCH_ENV", env);
	json_object_set_new(v, "IMC_MPI_HOSTFILE", json_string(hostfile.buf));
	strbuf_release(&hostfile);
}

json_t *plan_host_vars(const json_t *vms, size_t i, const char *infra_id)
{
	(void)infra_id;
	const json_t *vm = json_array_get(vms, i);
	json_t *v = json_object();
	const char *host = jstr(vm, "hostname"), *dom = jstr(vm, "domain");
	char *fqdn = xasprintf("%s.%s", host ? host : "", dom ? dom : "");
	json_object_set_new(v, "IM_NODE_HOSTNAME", json_string(host ? host : ""));
	json_object_set_new(v, "IM_NODE_DOMAIN", json_string(dom ? dom : ""));
	json_object_set_new(v, "IM_NODE_FQDN", json_string(fqdn));
	free(fqdn);
	json_int_t num = json_integer_value(json_object_get(vm, "num"));
	json_object_set_new(v, "IM_NODE_NUM", json_integer(num));
	char *vmid = xasprintf("%lld", (long long)num);
	json_object_set_new(v, "IM_NODE_VMID", json_string(vmid));
	free(vmid);
	json_object_set_new(v, "IM_NODE_CLOUD_TYPE", json_string(jstr(vm, "cloud") ? jstr(vm, "cloud") : ""));
	const char *pub = jstr(vm, "public_ip"), *priv = jstr(vm, "private_ip");
	json_object_set_new(v, "IM_NODE_PUBLIC_IP", json_string(pub ? pub : ""));
	json_object_set_new(v, "IM_NODE_PRIVATE_IP", json_string(priv ? priv : pub ? pub : ""));
	size_t k;
	const json_t *nic;
	json_array_foreach(json_object_get(vm, "nics"), k, nic) {
		int idx = (int)json_integer_value(json_object_get(nic, "index"));
		char key[64];
		const char *ip = nic_ip(vm, idx);
		snprintf(key, sizeof(key), "IM_NODE_NET_%d_IP", idx);
		json_object_set_new(v, key, json_string(ip ? ip : ""));
		const char *h = jstr(nic, "hostname"), *dm = jstr(nic, "domain");
		if (h) {
			snprintf(key, sizeof(key), "IM_NODE_NET_%d_HOSTNAME", idx);
			json_object_set_new(v, key, json_string(h));
			snprintf(key, sizeof(key), "IM_NODE_NET_%d_DOMAIN", idx);
			json_object_set_new(v, key, json_string(dm ? dm : ""));
			snprintf(key, sizeof(key), "IM_NODE_NET_%d_FQDN", idx);
			char *f = xasprintf("%s.%s", h, dm ? dm : "");
			json_object_set_new(v, key, json_string(f));
			free(f);
		}
	}
	cluster_vars(vms, i, v);
	return v;
}

/* RADL-JSON with '.' replaced by '_' in every object key (IM does this so
 * recipes can reach values with Jinja2 attribute syntax). */
static json_t *underscore_keys(json_t *j)
{
	if (json_is_object(j)) {
		json_t *o = json_object();
		const char *key;
		json_t *val;
		json_object_foreach(j, key, val) {
			char *k = xstrdup(key);
			for (char *p = k; *p; p++)
				if (*p == '.')
					*p = '_';
			json_object_set_new(o, k, underscore_keys(val));
			free(k);
		}
		return o;
	}
	if (json_is_array(j)) {
		json_t *a = json_array();
		size_t i;
		json_t *val;
		json_array_foreach(j, i, val)
			json_array_append_new(a, underscore_keys(val));
		return a;
	}
	return json_deep_copy(j);
}

json_t *plan_infra_vars(const json_t *vms, size_t master, const char *infra_id, const struct radl_doc *doc)
{
	json_t *v = json_object();
	json_object_set_new(v, "IM_INFRASTRUCTURE_ID", json_string(infra_id ? infra_id : ""));
	size_t i;
	const json_t *vm;
	json_array_foreach(vms, i, vm) {
		const char *sys = jstr(vm, "system");
		if (!sys)
			continue;
		struct strbuf key = STRBUF_INIT;
		strbuf_addstr(&key, "IM_");
		for (const char *p = sys; *p; p++)
			strbuf_addch(&key, isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_');
		strbuf_addstr(&key, "_NUM_VMS");
		json_int_t n = json_integer_value(json_object_get(v, key.buf));
		json_object_set_new(v, key.buf, json_integer(n + 1));
		strbuf_release(&key);
	}
	const json_t *m = json_array_get(vms, master);
	if (m) {
		const char *h = jstr(m, "hostname"), *dm = jstr(m, "domain");
		json_object_set_new(v, "IM_MASTER_HOSTNAME", json_string(h ? h : ""));
		json_object_set_new(v, "IM_MASTER_DOMAIN", json_string(dm ? dm : ""));
		char *f = xasprintf("%s.%s", h ? h : "", dm ? dm : "");
		json_object_set_new(v, "IM_MASTER_FQDN", json_string(f));
		free(f);
	}
	if (doc) {
		/* IM gives the networks, systems and deploys only: the configure
		 * recipes hold templates of their own, which must not be
		 * templated again when a play reads hostvars */
		json_t *r = radl_doc_to_json(doc), *keep = json_array();
		size_t ai;
		json_t *a;
		json_array_foreach(r, ai, a) {
			const char *cls = json_string_value(json_object_get(a, "class"));
			if (cls && (!strcmp(cls, "network") || !strcmp(cls, "system") ||
				    !strcmp(cls, "deploy")))
				json_array_append(keep, a);
		}
		json_object_set_new(v, "IM_INFRASTRUCTURE_RADL", underscore_keys(keep));
		json_decref(keep);
		json_decref(r);
	}
	return v;
}

json_t *plan_groups(const json_t *vms)
{
	json_t *g = json_object(), *all = json_array();
	size_t i;
	const json_t *vm;
	json_array_foreach(vms, i, vm) {
		const char *sys = jstr(vm, "system");
		const char *fqdn = jstr(vm, "fqdn");
		if (!sys || !fqdn)
			continue;
		json_t *arr = json_object_get(g, sys);
		if (!arr) {
			arr = json_array();
			json_object_set_new(g, sys, arr);
		}
		json_array_append_new(arr, json_string(fqdn));
		json_array_append_new(all, json_string(fqdn));
	}
	json_object_set_new(g, "all", all);
	return g;
}

char *plan_etc_hosts(const json_t *vms)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "");
	size_t i;
	const json_t *vm;
	json_array_foreach(vms, i, vm) {
		size_t k;
		const json_t *nic;
		bool named0 = false;
		json_array_foreach(json_object_get(vm, "nics"), k, nic) {
			int idx = (int)json_integer_value(json_object_get(nic, "index"));
			const char *h = jstr(nic, "hostname"), *dm = jstr(nic, "domain");
			if (!h || !nic_ip(vm, idx))
				continue;
			if (idx == 0)
				named0 = true;
			strbuf_addf(&sb, "%s %s.%s %s\r\n", nic_ip(vm, idx), h, dm ? dm : "localdomain", h);
		}
		if (!named0 && nic_ip(vm, 0)) {
			const char *h = jstr(vm, "hostname"), *dm = jstr(vm, "domain");
			strbuf_addf(&sb, "%s %s.%s %s\r\n", nic_ip(vm, 0), h ? h : "vnode", dm ? dm : "localdomain",
				    h ? h : "vnode");
		}
	}
	return strbuf_detach(&sb);
}

size_t plan_master(const json_t *vms)
{
	size_t i, first = (size_t)-1;
	const json_t *vm;
	json_array_foreach(vms, i, vm) {
		if (!json_is_true(json_object_get(vm, "ctxt")))
			continue;
		if (first == (size_t)-1)
			first = i;
		if (jstr(vm, "public_ip"))
			return i;
	}
	return first == (size_t)-1 ? 0 : first;
}
