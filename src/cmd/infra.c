/* infra.c: helpers shared by the infrastructure commands (see infra.h).
 * They exist so that every command finds infrastructures, reads the auth
 * file, talks to clouds and notices a dead worker in exactly one way. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/infra.h"
#include "plan/plan.h"
#include "util/log.h"
#include "util/sshkey.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

int infra_auth(struct imc_ctx *ctx, const char *home, const char *stored, struct auth_file **af,
	       char **used, struct diag *d)
{
	*af = NULL;
	if (used)
		*used = NULL;
	char *path = NULL;
	if (ctx->auth_file)
		path = xstrdup(ctx->auth_file);
	else if (stored)
		path = xstrdup(stored);
	else {
		char *def = xasprintf("%s/auth.dat", home);
		if (access(def, F_OK) == 0)
			path = def;
		else
			free(def);
	}
	if (!path)
		return 0;
	*af = auth_file_load(path, d);
	if (!*af) {
		free(path);
		return -1;
	}
	if (used) {
		char *abs = realpath(path, NULL);
		*used = abs ? abs : xstrdup(path);
	}
	free(path);
	return 0;
}

int infra_recover(struct state_store *st, struct state_infra *in, struct diag *d)
{
	if (in->phase != PHASE_NEW && in->phase != PHASE_CREATING && in->phase != PHASE_CONFIGURING)
		return 0;
	if (state_worker_alive(in->worker_pid, in->worker_start))
		return 0;
	int fd;
	int rc = state_lock_infra(st, in->id, false, &fd, d);
	if (rc != 0)
		return rc < 0 ? -1 : 0; /* held: someone is working on it */
	/* Re-read under the lock: the worker may have finished meanwhile. */
	struct state_infra fresh;
	if (state_infra_get(st, in->id, &fresh, d) != 0) {
		state_unlock_infra(fd);
		return -1;
	}
	if (fresh.phase == PHASE_NEW || fresh.phase == PHASE_CREATING || fresh.phase == PHASE_CONFIGURING) {
		struct state_vm *vms = NULL;
		size_t n = 0;
		if (state_begin(st, d) < 0 || state_vm_list(st, in->id, &vms, &n, d) < 0)
			goto fail;
		char *msg = xasprintf("deployment worker (PID %d) ended before finishing the %s phase",
				      (int)fresh.worker_pid, infra_phase_name(fresh.phase));
		if (state_log_add(st, in->id, -1, msg, d) < 0) {
			free(msg);
			goto fail;
		}
		free(msg);
		for (size_t i = 0; i < n; i++) {
			struct state_vm *vm = &vms[i];
			const char *why = NULL;
			if (vm->state == VM_PENDING) {
				vm->state = VM_FAILED;
				why = "creation not confirmed: the deployment worker died (destroy removes any leftover)";
			} else if (vm->state == VM_RUNNING && vm->ctxt < 0) {
				vm->state = VM_UNCONFIGURED;
				vm->ctxt = 0;
				why = "contextualization interrupted: the deployment worker died (use reconfigure)";
			}
			if (why && (state_vm_update(st, vm, d) < 0 || state_log_add(st, in->id, vm->num, why, d) < 0))
				goto fail;
		}
		struct state_step *steps = NULL;
		size_t ns = 0;
		if (state_step_list(st, in->id, &steps, &ns, d) < 0)
			goto fail;
		/* per VM, the first unfinished step was the one running when the
		 * worker died: failed; the later ones never started: skipped */
		int *hit = xcalloc(ns + 1, sizeof(*hit));
		size_t nhit = 0;
		for (size_t i = 0; i < ns; i++)
			if (steps[i].status == STEP_RUNNING || steps[i].status == STEP_PENDING) {
				bool first = true;
				for (size_t k = 0; k < nhit; k++)
					if (hit[k] == steps[i].vm)
						first = false;
				if (first)
					hit[nhit++] = steps[i].vm;
				steps[i].status = first ? STEP_FAILED : STEP_SKIPPED;
				if (!steps[i].error && first)
					steps[i].error = xstrdup("interrupted: the deployment worker died");
				if (state_step_set(st, in->id, &steps[i], d) < 0) {
					free(hit);
					state_step_list_free(steps, ns);
					goto fail;
				}
			}
		free(hit);
		state_step_list_free(steps, ns);
		if (state_infra_set_phase(st, in->id, PHASE_INTERRUPTED, d) < 0 ||
		    state_infra_set_worker(st, in->id, 0, 0, d) < 0 || state_commit(st, d) < 0)
			goto fail;
		state_vm_list_free(vms, n);
		state_infra_release(in);
		rc = state_infra_get(st, fresh.id, in, d);
		state_infra_release(&fresh);
		state_unlock_infra(fd);
		return rc == 0 ? 0 : -1;
	fail:
		state_rollback(st);
		state_vm_list_free(vms, n);
		state_infra_release(&fresh);
		state_unlock_infra(fd);
		return -1;
	}
	state_infra_release(in);
	*in = fresh;
	state_unlock_infra(fd);
	return 0;
}

enum vm_state infra_state(const struct state_infra *in, const struct state_vm *vms, size_t n)
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

int infra_cloud_open(struct state_store *st, const struct state_infra *in, const char *cloud,
		     const char *cred_id, const struct auth_file *af, struct cloud_session *s,
		     struct diag *d)
{
	memset(s, 0, sizeof(*s));
	s->drv = cloud_driver_find(cloud);
	if (!s->drv) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cloud '%s' is not supported by this imc", cloud);
		return -1;
	}
	s->infra_id = in->id;
	s->home = state_home(st);
	if (cred_id)
		s->cred = auth_find(af, cred_id, NULL);
	if (!s->cred)
		s->cred = auth_find(af, NULL, cloud);
	if (!s->cred && strcmp(cloud, "local") != 0 && strcmp(cloud, "dummy") != 0) {
		diag_error(d, IMC_EXIT_NOPERM, NULL, "no credentials for cloud '%s'%s%s%s in the auth file", cloud,
			   cred_id ? " (auth id '" : "", cred_id ? cred_id : "", cred_id ? "')" : "");
		return -1;
	}
	char *kp = infra_key_path(state_home(st), in->id);
	struct diag ignore = DIAG_INIT;
	char *pub = access(kp, F_OK) == 0 ? sshkey_read_public(kp, &ignore) : NULL;
	diag_release(&ignore);
	free(kp);
	s->pubkey = pub;
	if (s->drv->open && s->drv->open(s, d) < 0) {
		free(pub);
		s->pubkey = NULL;
		return -1;
	}
	return 0;
}

void infra_cloud_close(struct cloud_session *s)
{
	if (!s || !s->drv)
		return;
	if (s->drv->close)
		s->drv->close(s);
	free((void *)(uintptr_t)s->pubkey);
	s->pubkey = NULL;
	s->drv = NULL;
}

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

void infra_cloud_vm(const struct state_vm *vm, json_t **spec, struct cloud_vm *cv)
{
	memset(cv, 0, sizeof(*cv));
	*spec = vm->spec ? json_loads(vm->spec, 0, NULL) : NULL;
	if (!*spec)
		*spec = json_object();
	json_t *sp = *spec;
	cv->infra_id = vm->infra_id;
	cv->num = vm->num;
	cv->system = vm->system;
	cv->hostname = jstr(sp, "hostname");
	cv->domain = jstr(sp, "domain");
	cv->image = jstr(sp, "image");
	cv->instance_type = jstr(sp, "instance_type");
	cv->cpus = (int)json_integer_value(json_object_get(sp, "cpus"));
	cv->memory_bytes = (long long)json_integer_value(json_object_get(sp, "memory"));
	cv->gpus = (int)json_integer_value(json_object_get(sp, "gpus"));
	cv->user = vm->user ? vm->user : jstr(sp, "user");
	json_t *nics = json_object_get(sp, "nics"), *disks = json_object_get(sp, "disks");
	cv->nnics = json_array_size(nics);
	cv->nics = xcalloc(cv->nnics + 1, sizeof(*cv->nics));
	for (size_t i = 0; i < cv->nnics; i++) {
		json_t *n = json_array_get(nics, i);
		cv->nics[i].index = (int)json_integer_value(json_object_get(n, "index"));
		cv->nics[i].net = jstr(n, "net");
		cv->nics[i].hostname = jstr(n, "hostname");
		cv->nics[i].domain = jstr(n, "domain");
	}
	cv->ndisks = json_array_size(disks);
	cv->disks = xcalloc(cv->ndisks + 1, sizeof(*cv->disks));
	for (size_t i = 0; i < cv->ndisks; i++) {
		json_t *k = json_array_get(disks, i);
		cv->disks[i].index = (int)json_integer_value(json_object_get(k, "index"));
		cv->disks[i].size_bytes = (long long)json_integer_value(json_object_get(k, "size"));
		cv->disks[i].device = jstr(k, "device");
		cv->disks[i].mount_path = jstr(k, "mount_path");
	}
	cv->state = vm->state;
	cv->cloud_id = vm->cloud_id ? xstrdup(vm->cloud_id) : NULL;
	cv->public_ip = vm->public_ip ? xstrdup(vm->public_ip) : NULL;
	cv->private_ip = vm->private_ip ? xstrdup(vm->private_ip) : NULL;
	cv->ssh_port = vm->ssh_port;
	cv->data = vm->data ? xstrdup(vm->data) : NULL;
	json_t *ips = vm->nic_ips ? json_loads(vm->nic_ips, 0, NULL) : NULL;
	for (size_t i = 0; i < cv->nnics && ips; i++) {
		const char *ip = json_string_value(json_array_get(ips, (size_t)cv->nics[i].index));
		if (ip && *ip)
			cv->nics[i].ip = xstrdup(ip);
	}
	json_decref(ips);
}

void infra_cloud_vm_release(struct cloud_vm *cv)
{
	cloud_vm_release(cv);
	free(cv->nics);
	free(cv->disks);
	cv->nics = NULL;
	cv->disks = NULL;
}

static void replace(char **dst, const char *src)
{
	if (!src)
		return;
	free(*dst);
	*dst = xstrdup(src);
}

void infra_vm_take(struct state_vm *vm, const struct cloud_vm *cv)
{
	vm->state = cv->state;
	replace(&vm->cloud_id, cv->cloud_id);
	replace(&vm->public_ip, cv->public_ip);
	replace(&vm->private_ip, cv->private_ip);
	replace(&vm->data, cv->data);
	replace(&vm->note, cv->note);
	vm->ssh_port = cv->ssh_port;
	json_t *ips = json_array();
	bool any = false;
	for (size_t i = 0; i < cv->nnics; i++) {
		size_t idx = (size_t)cv->nics[i].index;
		while (json_array_size(ips) <= idx)
			json_array_append_new(ips, json_null());
		if (cv->nics[i].ip) {
			json_array_set_new(ips, idx, json_string(cv->nics[i].ip));
			any = true;
		}
	}
	if (any) {
		free(vm->nic_ips);
		vm->nic_ips = json_dumps(ips, JSON_COMPACT);
	}
	json_decref(ips);
}

/* Credentials written in a RADL (disk.0.os.credentials.password,
 * private_key, vault.password, ...) are secrets like those of the auth
 * file: registered so that no output or log shows them. */
static void register_radl_secrets(const struct radl_doc *doc)
{
	static const char *const words[] = { "password", "private_key", "token", "secret" };
	for (size_t i = 0; doc && i < doc->nsystems; i++) {
		const struct radl_body *b = &doc->systems[i].body;
		for (size_t k = 0; k < b->nfeat; k++)
			for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
				if (b->feat[k].kind == RADL_V_STRING && b->feat[k].str && strstr(b->feat[k].name, words[w]))
					secret_register(b->feat[k].str);
	}
	for (size_t i = 0; doc && i < doc->nansibles; i++) {
		const struct radl_body *b = &doc->ansibles[i].body;
		for (size_t k = 0; k < b->nfeat; k++)
			if (b->feat[k].kind == RADL_V_STRING && b->feat[k].str &&
			    (strstr(b->feat[k].name, "password") || strstr(b->feat[k].name, "private_key")))
				secret_register(b->feat[k].str);
	}
}

static struct radl_doc *load_radl(const char *path, json_t *vars, bool interactive, char **text,
				  bool check, struct diag *d)
{
	*text = NULL;
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, errno == ENOENT ? IMC_EXIT_NOINPUT : IMC_EXIT_IOERR, NULL, "cannot read '%s': %s",
			   path, strerror(errno));
		strbuf_release(&sb);
		return NULL;
	}
	if (memchr(sb.buf ? sb.buf : "", '\0', sb.len)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "'%s' is not a text file (it holds NUL bytes)", path);
		strbuf_release(&sb);
		return NULL;
	}
	char *t = plan_substitute_inputs(path, strbuf_str(&sb), vars, interactive, d);
	strbuf_release(&sb);
	if (!t)
		return NULL;
	size_t k = strspn(t, " \t\r\n");
	struct radl_doc *doc = (t[k] == '[' || t[k] == '{') ? radl_parse_json(path, t, strlen(t), d)
							    : radl_parse(path, t, strlen(t), d);
	register_radl_secrets(doc);
	if (!doc || (check && radl_check(doc, d) < 0)) {
		radl_doc_free(doc);
		free(t);
		return NULL;
	}
	*text = t;
	return doc;
}

struct radl_doc *infra_load_radl(const char *path, json_t *vars, bool interactive, char **text,
				 struct diag *d)
{
	return load_radl(path, vars, interactive, text, true, d);
}

struct radl_doc *infra_load_radl_unchecked(const char *path, json_t *vars, bool interactive, char **text,
					   struct diag *d)
{
	return load_radl(path, vars, interactive, text, false, d);
}

struct radl_doc *infra_radl(const struct state_infra *in, struct diag *d)
{
	const char *name = in->radl_path ? in->radl_path : "infrastructure.radl";
	const char *t = in->radl ? in->radl : "";
	size_t k = strspn(t, " \t\r\n");
	struct radl_doc *doc = (t[k] == '[' || t[k] == '{') ? radl_parse_json(name, t, strlen(t), d)
							    : radl_parse(name, t, strlen(t), d);
	register_radl_secrets(doc);
	return doc;
}

json_t *infra_vm_specs(const struct state_vm *vms, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *s = vms[i].spec ? json_loads(vms[i].spec, 0, NULL) : NULL;
		if (!s)
			s = json_pack("{s:i, s:s}", "num", vms[i].num, "system", vms[i].system);
		if (vms[i].public_ip)
			json_object_set_new(s, "public_ip", json_string(vms[i].public_ip));
		if (vms[i].private_ip)
			json_object_set_new(s, "private_ip", json_string(vms[i].private_ip));
		json_t *ips = vms[i].nic_ips ? json_loads(vms[i].nic_ips, 0, NULL) : NULL;
		if (ips)
			json_object_set_new(s, "nic_ips", ips);
		json_array_append_new(arr, s);
	}
	return arr;
}

/* NEEDSWORK: infra_print_state (moving to src/deploy/) still prints its
 * document through these; the commands use cli_json_doc/cli_json_print. */
json_t *infra_json_doc(void)
{
	return cli_json_doc();
}

void infra_json_print(json_t *doc)
{
	cli_json_print(doc);
}

char *infra_new_id(void)
{
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b)) {
		/* cannot happen on Linux; fall back on time and pid */
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)((unsigned long)time(NULL) >> (i % 8) ^ (unsigned long)getpid() >> (i % 4) ^ i * 37);
	}
	if (fd >= 0)
		close(fd);
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	return xasprintf("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
			 b[13], b[14], b[15]);
}

char *infra_key_path(const char *home, const char *id)
{
	return xasprintf("%s/infra/%s/id_ed25519", home, id);
}

struct cloud_session *infra_session(struct infra_sessions *c, struct state_store *st,
				    const struct state_infra *in, const char *cloud,
				    const char *cred_id, const struct auth_file *af, const char **err,
				    enum imc_exit *code)
{
	char *key = xasprintf("%s\x1f%s", cloud, cred_id ? cred_id : "");
	size_t i = 0;
	while (i < c->n && strcmp(c->keys[i], key) != 0)
		i++;
	if (i < c->n) {
		free(key);
	} else {
		c->s = xreallocarray(c->s, c->n + 1, sizeof(*c->s));
		c->keys = xreallocarray(c->keys, c->n + 1, sizeof(*c->keys));
		c->err = xreallocarray(c->err, c->n + 1, sizeof(*c->err));
		c->code = xreallocarray(c->code, c->n + 1, sizeof(*c->code));
		struct diag d = DIAG_INIT;
		c->keys[i] = key;
		bool ok = infra_cloud_open(st, in, cloud, cred_id, af, &c->s[i], &d) == 0;
		c->err[i] = ok ? NULL : xstrdup(diag_first_message(&d));
		c->code[i] = ok ? IMC_EXIT_OK : d.code ? d.code : IMC_EXIT_UNAVAILABLE;
		diag_release(&d);
		c->n++;
	}
	*err = c->err[i];
	if (code)
		*code = c->code[i];
	return c->err[i] ? NULL : &c->s[i];
}

void infra_sessions_free(struct infra_sessions *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!c->err[i])
			infra_cloud_close(&c->s[i]);
		free(c->keys[i]);
		free(c->err[i]);
	}
	free(c->s);
	free(c->keys);
	free(c->err);
	free(c->code);
}

/* Moves the errors of src into dst, as warnings when soft. */
static void move_diag(struct diag *dst, struct diag *src, bool soft)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct diag_item *it = &src->items[i];
		if (soft || it->level != DIAG_ERROR)
			diag_warning(dst, NULL, "%s", it->msg);
		else
			diag_error(dst, src->code ? src->code : IMC_EXIT_UNAVAILABLE, NULL, "%s", it->msg);
	}
	diag_release(src);
}

/* infra_session with the reason it could not be opened as an error in d. */
static struct cloud_session *teardown_session(struct infra_sessions *c, struct state_store *st,
					      const struct state_infra *in, const char *cloud,
					      const char *cred_id, const struct auth_file *af,
					      struct diag *d)
{
	const char *err;
	enum imc_exit code;
	struct cloud_session *s = infra_session(c, st, in, cloud, cred_id, af, &err, &code);
	if (!s)
		diag_error(d, code, NULL, "%s", err);
	return s;
}

int infra_teardown(struct state_store *st, struct state_infra *in, const struct auth_file *af,
		   bool force, struct diag *d)
{
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct state_net *nets = NULL;
	size_t nn = 0;
	struct infra_sessions cache = { 0 };
	int rc = 0;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0 || state_net_list(st, in->id, &nets, &nn, d) < 0) {
		state_vm_list_free(vms, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct state_vm *vm = &vms[i];
		struct diag local = DIAG_INIT;
		enum vm_state before = vm->state;
		/* intent first: the VM is being deleted */
		if (state_vm_set_state(st, in->id, vm->num, VM_DELETING, d) < 0) {
			rc = -1;
			break;
		}
		struct cloud_session *s = teardown_session(&cache, st, in, vm->cloud, vm->cloud_cred,
							   af, &local);
		int ok = 0;
		if (s && s->drv->vm_destroy) {
			json_t *spec;
			struct cloud_vm cv;
			infra_cloud_vm(vm, &spec, &cv);
			ok = s->drv->vm_destroy(s, &cv, &local);
			infra_cloud_vm_release(&cv);
			json_decref(spec);
		} else if (!s)
			ok = -1;
		if (ok < 0 && !force) {
			state_vm_set_state(st, in->id, vm->num, before, d);
			diag_error(&local, IMC_EXIT_UNAVAILABLE, NULL, "VM %d was not destroyed; retry, or use"
				   " 'imc destroy --force' to forget it", vm->num);
			move_diag(d, &local, false);
			rc = -1;
			continue;
		}
		if (ok < 0)
			diag_warning(&local, NULL, "forgetting VM %d (cloud id '%s') although the cloud did not"
				     " confirm its deletion", vm->num, vm->cloud_id ? vm->cloud_id : "none");
		move_diag(d, &local, true);
		if (state_vm_delete(st, in->id, vm->num, d) < 0) {
			rc = -1;
			break;
		}
	}
	for (size_t i = 0; rc == 0 && i < nn; i++) {
		struct state_net *net = &nets[i];
		struct diag local = DIAG_INIT;
		struct cloud_session *s = teardown_session(&cache, st, in, net->cloud, NULL, af, &local);
		int ok = 0;
		if (s && s->drv->net_destroy && net->cloud_id) {
			struct cloud_net cn = { .name = net->name, .public = net->public, .outports = net->outports,
						.cidr = net->cidr, .cloud_id = xstrdup(net->cloud_id) };
			ok = s->drv->net_destroy(s, &cn, &local);
			cloud_net_release(&cn);
		} else if (!s)
			ok = -1;
		if (ok < 0 && !force) {
			move_diag(d, &local, false);
			rc = -1;
			continue;
		}
		move_diag(d, &local, true);
	}
	/* orphans the store lost (crash between a cloud call and its record) */
	for (size_t i = 0; rc == 0 && i < cache.n; i++) {
		if (cache.err[i] || !cache.s[i].drv->cleanup_infra)
			continue;
		struct diag local = DIAG_INIT;
		if (cache.s[i].drv->cleanup_infra(&cache.s[i], &local) < 0 && !force) {
			move_diag(d, &local, false);
			rc = -1;
		} else
			move_diag(d, &local, true);
	}
	/* The network rows go last: while one is left, a later destroy opens
	 * its cloud again and the cleanup above gets another chance. */
	for (size_t i = 0; rc == 0 && i < nn; i++)
		if (state_net_delete(st, in->id, nets[i].name, d) < 0)
			rc = -1;
	infra_sessions_free(&cache);
	state_vm_list_free(vms, n);
	state_net_list_free(nets, nn);
	return rc;
}

static void rm_tree(const char *path)
{
	DIR *dir = opendir(path);
	if (dir) {
		struct dirent *e;
		while ((e = readdir(dir))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *p = xasprintf("%s/%s", path, e->d_name);
			struct stat sb;
			if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
				rm_tree(p);
			else
				unlink(p);
			free(p);
		}
		closedir(dir);
	}
	rmdir(path);
}

void infra_remove_dir(const char *home, const char *id)
{
	char *p = xasprintf("%s/infra/%s", home, id);
	rm_tree(p);
	free(p);
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

void infra_print_steps(struct strbuf *sb, double created, const struct state_step *steps, size_t n)
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

json_t *infra_steps_json(double created, const struct state_step *steps, size_t n)
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

int infra_print_state(struct imc_ctx *ctx, struct state_store *st, const char *id, bool with_id,
		      struct diag *d)
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
	enum vm_state s = infra_state(&in, vms, n);
	if (ctx->json) {
		json_t *j = infra_json_doc();
		if (with_id)
			json_object_set_new(j, "id", json_string(id));
		json_t *vs = json_object();
		for (size_t i = 0; i < n; i++) {
			char k[16];
			snprintf(k, sizeof(k), "%d", vms[i].num);
			json_object_set_new(vs, k, json_string(vm_state_name(vms[i].state)));
		}
		json_object_set_new(j, "state", json_pack("{s:s, s:o}", "state", vm_state_name(s), "vm_states", vs));
		json_object_set_new(j, "phase", json_string(infra_phase_name(in.phase)));
		json_object_set_new(j, "steps", infra_steps_json(in.created, steps, ns));
		infra_json_print(j);
	} else {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "The infrastructure is in state: %s\n", vm_state_name(s));
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&sb, "VM ID: %d is in state: %s.\n", vms[i].num, vm_state_name(vms[i].state));
		if (ns) {
			strbuf_addstr(&sb, "Contextualization steps:\n");
			infra_print_steps(&sb, in.created, steps, ns);
		}
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
	}
	state_infra_release(&in);
	state_vm_list_free(vms, n);
	state_step_list_free(steps, ns);
	return 0;
}

int infra_vm_info(const struct radl_doc *doc, const struct state_vm *vm, const char *attr,
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

int infra_refresh(struct imc_ctx *ctx, struct state_store *st, const struct state_infra *in,
		  struct diag *d)
{
	if (in->phase != PHASE_DONE && in->phase != PHASE_INTERRUPTED)
		return 0;
	int fd;
	int rc = state_lock_infra(st, in->id, false, &fd, d);
	if (rc != 0)
		return rc < 0 ? -1 : 0; /* someone is changing it: they will record */
	struct state_vm *vms = NULL;
	size_t n = 0;
	struct auth_file *af = NULL;
	struct diag ad = DIAG_INIT;
	if (state_vm_list(st, in->id, &vms, &n, d) < 0) {
		state_unlock_infra(fd);
		return -1;
	}
	bool auth_ok = infra_auth(ctx, state_home(st), in->auth_path, &af, NULL, &ad) == 0;
	diag_release(&ad);
	for (size_t i = 0; i < n && auth_ok; i++) {
		struct state_vm *vm = &vms[i];
		if (!vm->cloud_id || vm->state == VM_FAILED || vm->state == VM_OFF ||
		    vm->state == VM_DELETING || vm->state == VM_PENDING)
			continue;
		struct cloud_session s;
		struct diag ld = DIAG_INIT;
		if (infra_cloud_open(st, in, vm->cloud, vm->cloud_cred, af, &s, &ld) < 0) {
			diag_release(&ld);
			continue;
		}
		if (s.drv->vm_update) {
			json_t *spec;
			struct cloud_vm cv;
			infra_cloud_vm(vm, &spec, &cv);
			if (s.drv->vm_update(&s, &cv, &ld) == 0) {
				enum vm_state was = vm->state, now_s = cv.state;
				if (now_s == VM_RUNNING && (was == VM_CONFIGURED || was == VM_UNCONFIGURED))
					cv.state = was;
				else if (now_s == VM_RUNNING && was == VM_STOPPED)
					cv.state = vm->ctxt > 0 ? VM_CONFIGURED : vm->ctxt == 0 ? VM_UNCONFIGURED : VM_RUNNING;
				if (cv.state != was) {
					infra_vm_take(vm, &cv);
					char *msg = xasprintf("the cloud reports this VM %s (was %s)", vm_state_name(cv.state),
							      vm_state_name(was));
					state_vm_update(st, vm, d);
					state_log_add(st, in->id, vm->num, msg, d);
					free(msg);
				}
			} else
				log_info("refresh", "VM %d: %s", vm->num, diag_first_message(&ld));
			infra_cloud_vm_release(&cv);
			json_decref(spec);
		}
		infra_cloud_close(&s);
		diag_release(&ld);
	}
	auth_file_free(af);
	state_vm_list_free(vms, n);
	state_unlock_infra(fd);
	return 0;
}
