/* openstack.c: the 'openstack' cloud backend (Nova, Neutron and Glance
 * through the service catalog of a Keystone v3 token): the driver
 * operations and the cloud_openstack table. docs/openstack.md describes
 * what it creates and how it is tested.
 *
 * Auth line (IM's): type = OpenStack; host = https://KEYSTONE:5000;
 * username = U; password = P; tenant = PROJECT [; domain = DOMAIN (the
 * user's and the project's, default "Default")] [; service_region = R]
 * [; auth_version = 3.x_password]. Image URL ost://HOST/IMAGE, where HOST
 * is the auth line's host (as IM requires) and IMAGE a Glance image id or
 * name. A VM's cloud_id is its Nova server id.
 *
 * What it makes, named from the infrastructure id so a sweep finds it even
 * when the store lost it (cloud.h):
 *   key pair        imc-INFRA (the infrastructure's public key, imported)
 *   security group  imc-INFRA-NET per RADL network (openstack-sg.c)
 *   server          named after the VM's hostname, metadata imc-infra-id
 *                   and imc-vm-num; attached to the project's first
 *                   internal network
 *   floating IP     one per VM on a public network, from the first
 *                   external network, description "imc-infra-id=INFRA
 *                   imc-vm-num=N"; released on destroy
 *
 * Idempotent create: Nova has no client token, so before each attempt of
 * POST /servers the servers of the infrastructure are listed and a server
 * with the VM's number is taken instead of making a second one; a create
 * that failed with 5xx or 429 (it may have happened) is retried only that
 * way. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloud/cloud.h"
#include "cloud/cloudinit.h"
#include "cloud/openstack.h"
#include "util/log.h"
#include "util/url.h"
#include "cloud/names.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define WAIT_DELAY 5.0
#define WAIT_ATTEMPTS 120 /* 10 minutes */

struct os_sg_cache {
	char *net;
	char *id;
	bool public;
};

struct os_session {
	struct os_conn conn;
	char *host;             /* the auth URL's host, for ost:// URLs */
	json_t *flavors;        /* GET /flavors/detail, once */
	bool nets_read;
	char *private_net;      /* the servers' network */
	char *external_net;     /* the floating IP pool */
	bool key_ready;
	struct os_sg_cache *sgs;
	size_t nsgs;
	struct os_deadline dl;  /* of this command's waits */
};

static struct os_session *sess(struct cloud_session *s)
{
	return s->priv;
}

/* ---- open/close ---- */

static int os_open(struct cloud_session *s, struct diag *d)
{
	const struct auth_cred *cred = s->cred;
	const char *host = cred ? auth_get(cred, "host") : NULL;
	const char *user = cred ? auth_get(cred, "username") : NULL;
	const char *pass = cred ? auth_get(cred, "password") : NULL;
	const char *tenant = cred ? auth_get(cred, "tenant") : NULL;
	const char *domain = cred ? auth_get(cred, "domain") : NULL;
	const char *region = cred ? auth_get(cred, "service_region") : NULL;
	const char *version = cred ? auth_get(cred, "auth_version") : NULL;

	/* Registered here too: a credential may not come from auth_file_load. */
	if (pass)
		secret_register(pass);
	if (!tenant && cred)
		tenant = auth_get(cred, "project");
	if (!cred || !host || !*host || !user || !*user || !pass || !*pass || !tenant || !*tenant) {
		if (cred)
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "openstack: the auth line at line %d needs 'host', 'username', 'password' and 'tenant'",
				   cred->line);
		else
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "openstack: no credentials: the auth file needs an OpenStack line");
		diag_note(d, NULL, "format: type = OpenStack; host = https://KEYSTONE:5000; username = U; password = P; tenant = PROJECT; domain = DOMAIN; auth_version = 3.x_password");
		return -1;
	}
	if (version && *version && strcasecmp(version, "3.x_password") != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "openstack: auth_version '%s' is not supported by imc; only 3.x_password (Keystone v3 with a password)",
			   version);
		return -1;
	}
	if (!version || !*version)
		log_warn("openstack", "the auth line names no auth_version: using 3.x_password (Keystone v3; IM would try 2.0_password)");
	if (!s->infra_id || !*s->infra_id || strlen(s->infra_id) > 48) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "openstack: bad infrastructure id");
		return -1;
	}
	struct os_session *os = xcalloc(1, sizeof(*os));
	struct os_conn *c = &os->conn;
	if (os_conn_init(c, d) < 0) {
		free(os);
		return -1;
	}
	char *url = strstr(host, "://") ? xstrdup(host) : xasprintf("https://%s", host);
	size_t n = strlen(url);
	while (n && url[n - 1] == '/')
		url[--n] = '\0';
	if (n >= 3 && strcmp(url + n - 3, "/v3") == 0)
		url[n - 3] = '\0';
	c->auth_url = url;
	c->user = user;
	c->password = pass;
	c->project = tenant;
	c->domain = domain && *domain ? domain : "Default";
	c->region = region && *region ? region : NULL;
	os->host = url_host(url);
	if (strncasecmp(url, "http://", 7) == 0 && os->host && strncmp(os->host, "127.", 4) != 0 &&
	    strcmp(os->host, "localhost") != 0)
		log_warn("openstack", "Keystone at '%s' is plain http: the password is sent unencrypted",
			 url);
	s->priv = os;
	return 0;
}

static void forget_groups(struct os_session *os)
{
	for (size_t i = 0; i < os->nsgs; i++) {
		free(os->sgs[i].net);
		free(os->sgs[i].id);
	}
	free(os->sgs);
	os->sgs = NULL;
	os->nsgs = 0;
}

static void os_close(struct cloud_session *s)
{
	struct os_session *os = sess(s);
	if (!os)
		return;
	os_conn_release(&os->conn);
	json_decref(os->flavors);
	free(os->host);
	free(os->private_net);
	free(os->external_net);
	forget_groups(os);
	free(os);
	s->priv = NULL;
}

/* ---- networks ---- */

static void cache_group(struct os_session *os, const char *net, const char *id, bool public)
{
	os->sgs = xreallocarray(os->sgs, os->nsgs + 1, sizeof(*os->sgs));
	os->sgs[os->nsgs].net = xstrdup(net);
	os->sgs[os->nsgs].id = xstrdup(id);
	os->sgs[os->nsgs++].public = public;
}

static int os_net_create(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	struct os_session *os = sess(s);
	char *name = cloud_name_net(s->infra_id, net->name), *id = NULL;
	int rc = os_sg_ensure(&os->conn, s->infra_id, name, net->name, net->public, net->outports,
			      &id, d);
	free(name);
	if (rc < 0)
		return -1;
	cache_group(os, net->name, id, net->public);
	free(net->cloud_id);
	net->cloud_id = id;
	return 0;
}

/* Teardown destroys the VMs the store knows before their networks, so a
 * server of the infrastructure still alive here is one the store lost: it
 * holds the group (409) and costs money, so it goes first. */
static int os_net_destroy(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	struct os_session *os = sess(s);
	struct os_server *v = NULL;
	size_t n = 0;
	int ret = 0;
	if (os_servers_of(&os->conn, s->infra_id, &v, &n, d) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		log_info("openstack", "server %s (VM %d) is not in the store: deleting it", v[i].id,
			 v[i].vm_num);
		if (os_server_delete_wait(&os->conn, &os->dl, v[i].id, v[i].vm_num, d) < 0)
			ret = -1;
	}
	os_servers_free(v, n);
	if (n && os_fips_release(&os->conn, s->infra_id, -1, d) < 0)
		ret = -1;
	char *name = cloud_name_net(s->infra_id, net->name);
	if (ret == 0 && os_sg_delete_named(&os->conn, &os->dl, name, d) < 0)
		ret = -1;
	free(name);
	forget_groups(os);
	return ret;
}

/* The group of network net: from this session, else from the cloud, else
 * (with make) made now, for a network net_create did not see: it then
 * allows only its own traffic. Without make, a missing group is 0 with
 * *id NULL. */
static int net_group(struct cloud_session *s, const char *net, bool make, const char **id,
		     bool *public, struct diag *d)
{
	struct os_session *os = sess(s);
	*id = NULL;
	*public = false;
	for (size_t i = 0; i < os->nsgs; i++)
		if (strcmp(os->sgs[i].net, net) == 0) {
			*id = os->sgs[i].id;
			*public = os->sgs[i].public;
			return 0;
		}
	char *name = cloud_name_net(s->infra_id, net), *gid = NULL;
	bool pub = false;
	int rc = os_sg_lookup(&os->conn, name, &gid, &pub, d);
	if (rc == 0 && make) {
		log_warn("openstack", "network '%s' was not created first; its group allows only itself",
			 net);
		rc = os_sg_ensure(&os->conn, s->infra_id, name, net, false, NULL, &gid, d);
	}
	free(name);
	if (rc < 0)
		return -1;
	if (!gid)
		return 0;
	cache_group(os, net, gid, pub);
	free(gid);
	*id = os->sgs[os->nsgs - 1].id;
	*public = pub;
	return 0;
}

/* Whether network net is public (its group says so); false when unknown. */
static bool net_public(struct cloud_session *s, const char *net)
{
	const char *id;
	bool pub = false;
	struct diag quiet = DIAG_INIT;
	if (net && *net)
		net_group(s, net, false, &id, &pub, &quiet);
	diag_release(&quiet);
	return pub;
}

/* The project's networks: the first internal one for the servers, the
 * first external one for floating IPs. */
static int read_networks(struct cloud_session *s, struct diag *d)
{
	struct os_session *os = sess(s);
	json_t *reply = NULL, *net;
	struct os_error e;
	size_t i;
	if (os->nets_read)
		return 0;
	if (os_call(&os->conn, OS_NETWORK, "GET", "/networks", NULL, 0, &reply, &e) < 0) {
		os_error_diag(&e, d, "list networks");
		os_error_release(&e);
		return -1;
	}
	json_array_foreach(json_object_get(reply, "networks"), i, net) {
		const char *id = json_string_value(json_object_get(net, "id"));
		const char *st = json_string_value(json_object_get(net, "status"));
		bool ext = json_is_true(json_object_get(net, "router:external"));
		if (!id || (st && strcmp(st, "ACTIVE") != 0))
			continue;
		char **slot = ext ? &os->external_net : &os->private_net;
		if (!*slot) {
			*slot = xstrdup(id);
			log_debug("openstack", "%s network: %s (%s)", ext ? "external" : "server", id,
				  json_string_value(json_object_get(net, "name")));
		}
	}
	json_decref(reply);
	os->nets_read = true;
	return 0;
}

/* ---- image, flavor, key pair ---- */

/* ost://HOST/IMAGE: IMAGE, when HOST is the auth line's host. */
static char *image_ref(struct cloud_session *s, const struct cloud_vm *vm, struct diag *d)
{
	const char *url = vm->image;
	if (!url || strncasecmp(url, "ost://", 6) != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "system '%s': openstack needs disk.0.image.url = 'ost://HOST/IMAGE', not '%s'",
			   vm->system, url ? url : "(none)");
		return NULL;
	}
	char *host = url_host(url);
	const char *slash = strchr(url + 6, '/');
	bool same = host && sess(s)->host && strcasecmp(host, sess(s)->host) == 0;
	if (!slash || !slash[1] || !same) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "system '%s': image URL '%s' %s", vm->system, url,
			   !slash || !slash[1] ? "names no image (want ost://HOST/IMAGE)"
					       : "is on another host than the auth line's");
		if (slash && slash[1] && !same)
			diag_note(d, NULL, "the auth line's host is '%s'", sess(s)->host ? sess(s)->host : "?");
		free(host);
		return NULL;
	}
	free(host);
	return xstrdup(slash + 1);
}

/* Glance: the image by id, else by name; it must be active. */
static char *image_lookup(struct cloud_session *s, const char *ref, struct diag *d)
{
	struct os_session *os = sess(s);
	json_t *reply = NULL, *img = NULL;
	struct os_error e;
	char *q = os_urlencode(ref), *path = xasprintf("/images/%s", q), *id = NULL;
	int rc = os_call(&os->conn, OS_IMAGE, "GET", path, NULL, 0, &reply, &e);
	free(path);
	if (rc == 0) {
		img = reply;
	} else if (e.status == 404 || e.status == 400) {
		os_error_release(&e);
		json_decref(reply);
		path = xasprintf("/images?name=%s", q);
		rc = os_call(&os->conn, OS_IMAGE, "GET", path, NULL, 0, &reply, &e);
		free(path);
		if (rc == 0)
			img = json_array_get(json_object_get(reply, "images"), 0);
	}
	free(q);
	if (rc < 0) {
		char *what = xasprintf("look up image '%s'", ref);
		os_error_diag(&e, d, what);
		free(what);
		os_error_release(&e);
		return NULL;
	}
	const char *st = json_string_value(json_object_get(img, "status"));
	const char *iid = json_string_value(json_object_get(img, "id"));
	if (!iid)
		diag_error(d, IMC_EXIT_DATAERR, NULL, "openstack: image '%s' does not exist", ref);
	else if (!st || strcmp(st, "active") != 0)
		diag_error(d, IMC_EXIT_DATAERR, NULL, "openstack: image '%s' is '%s', not active", ref,
			   st ? st : "?");
	else
		id = xstrdup(iid);
	json_decref(reply);
	return id;
}

static int pick_flavor(struct cloud_session *s, const struct cloud_vm *vm, struct os_flavor *f,
		       struct diag *d)
{
	struct os_session *os = sess(s);
	if (!os->flavors) {
		struct os_error e;
		if (os_call(&os->conn, OS_COMPUTE, "GET", "/flavors/detail", NULL, 0, &os->flavors,
			    &e) < 0) {
			os_error_diag(&e, d, "list flavors");
			os_error_release(&e);
			return -1;
		}
	}
	long long disk = 0;
	for (size_t i = 0; i < vm->ndisks; i++)
		if (vm->disks[i].index == 0)
			disk = vm->disks[i].size_bytes;
	if (os_flavor_pick(os->flavors, vm->instance_type, vm->cpus, vm->memory_bytes, disk, f, d) < 0) {
		diag_note(d, NULL, "for system '%s' (VM %d)", vm->system, vm->num);
		return -1;
	}
	return 0;
}

static int ensure_key(struct cloud_session *s, struct diag *d)
{
	struct os_session *os = sess(s);
	if (os->key_ready || !s->pubkey || !*s->pubkey)
		return 0;
	char *name = cloud_name_key(s->infra_id);
	json_t *body = json_pack("{s:{s:s,s:s}}", "keypair", "name", name, "public_key", s->pubkey);
	struct os_error e;
	int rc = os_call(&os->conn, OS_COMPUTE, "POST", "/os-keypairs", body, 0, NULL, &e);
	json_decref(body);
	/* 409: an earlier attempt imported it (the name is ours) */
	if (rc < 0 && e.status != 409) {
		char *what = xasprintf("import key pair '%s'", name);
		os_error_diag(&e, d, what);
		free(what);
		os_error_release(&e);
		free(name);
		return -1;
	}
	if (rc == 0)
		log_info("openstack", "imported key pair %s", name);
	os_error_release(&e);
	free(name);
	os->key_ready = true;
	return 0;
}

/* ---- servers ---- */

static void set_addresses(struct cloud_session *s, struct cloud_vm *vm, const struct os_server *sv)
{
	if (sv->private_ip) {
		free(vm->private_ip);
		vm->private_ip = xstrdup(sv->private_ip);
	}
	if (sv->public_ip) {
		free(vm->public_ip);
		vm->public_ip = xstrdup(sv->public_ip);
	}
	for (size_t i = 0; i < vm->nnics; i++) {
		const char *ip = net_public(s, vm->nics[i].net) && vm->public_ip ? vm->public_ip
										 : vm->private_ip;
		if (ip) {
			free(vm->nics[i].ip);
			vm->nics[i].ip = xstrdup(ip);
		}
	}
}

/* The infrastructure's server for VM num: 1 with *id, 0 when none. */
static int find_server(struct cloud_session *s, int num, char **id, struct diag *d)
{
	struct os_server *v = NULL;
	size_t n = 0;
	*id = NULL;
	if (os_servers_of(&sess(s)->conn, s->infra_id, &v, &n, d) < 0)
		return -1;
	for (size_t i = 0; i < n && !*id; i++)
		if (v[i].vm_num == num && v[i].id)
			*id = xstrdup(v[i].id);
	os_servers_free(v, n);
	return *id ? 1 : 0;
}

/* The security groups and publicness of a VM's networks (each once). */
static int vm_groups(struct cloud_session *s, const struct cloud_vm *vm, json_t *groups,
		     bool *public, struct diag *d)
{
	*public = false;
	for (size_t i = 0; i < vm->nnics; i++) {
		const char *net = vm->nics[i].net, *gid;
		bool pub, seen = !net || !*net;
		for (size_t j = 0; j < i && !seen; j++)
			if (vm->nics[j].net && strcmp(vm->nics[j].net, net) == 0)
				seen = true;
		if (seen)
			continue;
		if (net_group(s, net, true, &gid, &pub, d) < 0)
			return -1;
		if (pub)
			*public = true;
		if (groups)
			json_array_append_new(groups, json_pack("{s:s}", "name", gid));
	}
	return 0;
}

static json_t *server_body(struct cloud_session *s, const struct cloud_vm *vm, const char *image,
			   const char *flavor, json_t *groups)
{
	struct os_session *os = sess(s);
	char num[16];
	snprintf(num, sizeof(num), "%d", vm->num);
	char *name = vm->hostname && *vm->hostname ? xstrdup(vm->hostname)
						   : xasprintf("%s-%d", vm->system, vm->num);
	json_t *srv = json_pack("{s:s,s:s,s:s,s:O,s:[{s:s}],s:{s:s,s:s}}", "name", name, "imageRef",
				image, "flavorRef", flavor, "security_groups", groups, "networks",
				"uuid", os->private_net, "metadata", OS_META_INFRA, vm->infra_id,
				OS_META_VMNUM, num);
	free(name);
	if (s->pubkey && *s->pubkey) {
		char *kn = cloud_name_key(s->infra_id);
		json_object_set_new(srv, "key_name", json_string(kn));
		free(kn);
	}
	char *ud = cloudinit_user_data("openstack", vm->num, vm->user, s->pubkey);
	if (ud)
		json_object_set_new(srv, "user_data", json_string(ud));
	free(ud);
	return json_pack("{s:o}", "server", srv);
}

/* POST /servers, never twice for one VM: each attempt first looks for the
 * VM's server (an earlier attempt, or an earlier process, made it). */
static int create_server(struct cloud_session *s, struct cloud_vm *vm, json_t *body, char **id,
			 struct diag *d)
{
	struct os_session *os = sess(s);
	*id = NULL;
	for (int attempt = 1;; attempt++) {
		int rc = find_server(s, vm->num, id, d);
		if (rc != 0) {
			if (rc > 0)
				log_info("openstack", "VM %d: server %s exists already: using it", vm->num, *id);
			return rc < 0 ? -1 : 0;
		}
		json_t *reply = NULL;
		struct os_error e;
		rc = os_call(&os->conn, OS_COMPUTE, "POST", "/servers", body, OS_ONCE, &reply, &e);
		if (rc == 0) {
			const char *sid = json_string_value(
				json_object_get(json_object_get(reply, "server"), "id"));
			if (sid)
				*id = xstrdup(sid);
			json_decref(reply);
			if (!*id) {
				diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
					   "openstack: the reply creating VM %d has no server id", vm->num);
				return -1;
			}
			return 0;
		}
		if (!e.retryable || attempt >= os->conn.max_attempts) {
			char *what = xasprintf("create VM %d (system '%s')", vm->num, vm->system);
			os_error_diag(&e, d, what);
			free(what);
			os_error_release(&e);
			return -1;
		}
		log_info("openstack", "VM %d: create answered %s; looking for the server before trying again",
			 vm->num, e.message ? e.message : "an error");
		os_error_release(&e);
		os_sleep(&os->conn, os_backoff(&os->conn, attempt));
	}
}

/* Makes the VM's server; sets cloud_id and PENDING, or FAILED. */
static int launch(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct os_session *os = sess(s);
	struct os_flavor f;
	char *ref = NULL, *image = NULL, *id = NULL;
	json_t *groups = json_array(), *body = NULL;
	bool public;
	int ret = -1;
	memset(&f, 0, sizeof(f));

	/* what the backend cannot do is refused, not left out */
	for (size_t i = 0; i < vm->ndisks; i++)
		if (vm->disks[i].index > 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "system '%s': disk.%d: imc's openstack backend makes no volumes (Cinder); remove the extra disk or use another cloud",
				   vm->system, vm->disks[i].index);
			goto out;
		}
	if (vm->gpus > 0 && !(vm->instance_type && *vm->instance_type &&
			      !strpbrk(vm->instance_type, "*?["))) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "system '%s': gpu.count: imc does not read flavors' PCI aliases; name a GPU flavor in instance_type",
			   vm->system);
		goto out;
	}
	if (!(ref = image_ref(s, vm, d)) || !(image = image_lookup(s, ref, d)) ||
	    pick_flavor(s, vm, &f, d) < 0 || ensure_key(s, d) < 0 ||
	    vm_groups(s, vm, groups, &public, d) < 0 || read_networks(s, d) < 0)
		goto out;
	if (!os->private_net) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
			   "openstack: the project has no internal network to attach VM %d to", vm->num);
		goto out;
	}
	if (public && !os->external_net) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
			   "openstack: VM %d is on a public network but the cloud has no external network for floating IPs",
			   vm->num);
		goto out;
	}
	body = server_body(s, vm, image, f.id, groups);
	if (create_server(s, vm, body, &id, d) < 0)
		goto out;
	free(vm->cloud_id);
	vm->cloud_id = id;
	free(vm->data);
	vm->data = xasprintf("{\"server_id\":\"%s\",\"flavor\":\"%s\",\"image\":\"%s\"}", id, f.name,
			     image);
	vm->state = VM_PENDING;
	log_info("openstack", "VM %d is server %s (flavor %s, image %s)", vm->num, id, f.name, image);
	ret = 0;
out:
	if (ret < 0)
		vm->state = VM_FAILED;
	json_decref(groups);
	json_decref(body);
	os_flavor_release(&f);
	free(ref);
	free(image);
	return ret;
}

/* The VM's floating IP: the one already on its port, else one of ours
 * not associated (a crash between allocation and association), else a new
 * one. Its address is the VM's public IP. */
static int attach_fip(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct os_session *os = sess(s);
	json_t *reply = NULL, *p, *fip = NULL;
	struct os_error e;
	char *path = xasprintf("/ports?device_id=%s", vm->cloud_id), *port = NULL;
	char *desc = xasprintf("%s=%s %s=%d", OS_META_INFRA, s->infra_id, OS_META_VMNUM, vm->num);
	size_t i;
	int ret = -1;
	if (os_call(&os->conn, OS_NETWORK, "GET", path, NULL, 0, &reply, &e) < 0) {
		os_error_diag(&e, d, "list the ports of a server");
		goto out;
	}
	json_array_foreach(json_object_get(reply, "ports"), i, p) {
		const char *pid = json_string_value(json_object_get(p, "id"));
		const char *dev = json_string_value(json_object_get(p, "device_id"));
		if (pid && dev && strcmp(dev, vm->cloud_id) == 0) {
			port = xstrdup(pid);
			break;
		}
	}
	json_decref(reply);
	reply = NULL;
	if (!port) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "openstack: VM %d (server %s) has no port",
			   vm->num, vm->cloud_id);
		goto out;
	}
	if (os_call(&os->conn, OS_NETWORK, "GET", "/floatingips", NULL, 0, &reply, &e) < 0) {
		os_error_diag(&e, d, "list floating IPs");
		goto out;
	}
	json_t *f;
	json_array_foreach(json_object_get(reply, "floatingips"), i, f) {
		const char *pid = json_string_value(json_object_get(f, "port_id"));
		const char *fd = json_string_value(json_object_get(f, "description"));
		if ((pid && strcmp(pid, port) == 0) || (!pid && fd && strcmp(fd, desc) == 0)) {
			fip = json_incref(f);
			break;
		}
	}
	json_decref(reply);
	reply = NULL;
	if (fip && !json_string_value(json_object_get(fip, "port_id"))) {
		char *fp = xasprintf("/floatingips/%s",
				     json_string_value(json_object_get(fip, "id")));
		json_t *body = json_pack("{s:{s:s}}", "floatingip", "port_id", port);
		int rc = os_call(&os->conn, OS_NETWORK, "PUT", fp, body, 0, NULL, &e);
		json_decref(body);
		free(fp);
		if (rc < 0) {
			os_error_diag(&e, d, "associate a floating IP");
			goto out;
		}
	} else if (!fip) {
		json_t *body = json_pack("{s:{s:s,s:s,s:s}}", "floatingip", "floating_network_id",
					 os->external_net, "port_id", port, "description", desc);
		int rc = os_call(&os->conn, OS_NETWORK, "POST", "/floatingips", body, 0, &reply, &e);
		json_decref(body);
		if (rc < 0) {
			char *what = xasprintf("allocate a floating IP for VM %d", vm->num);
			os_error_diag(&e, d, what);
			free(what);
			goto out;
		}
		fip = json_incref(json_object_get(reply, "floatingip"));
	}
	const char *addr = json_string_value(json_object_get(fip, "floating_ip_address"));
	if (addr) {
		free(vm->public_ip);
		vm->public_ip = xstrdup(addr);
		log_info("openstack", "VM %d: floating IP %s", vm->num, addr);
	}
	ret = 0;
out:
	os_error_release(&e);
	json_decref(reply);
	json_decref(fip);
	free(path);
	free(port);
	free(desc);
	return ret;
}

enum wait_goal { WAIT_ACTIVE, WAIT_SHUTOFF };

/* Polls each VM's server until it reaches the goal (bounded); a server in
 * ERROR fails its VM with Nova's fault message. */
static void wait_vms(struct cloud_session *s, struct cloud_vm **vms, size_t n, enum wait_goal goal,
		     struct diag *d)
{
	struct os_session *os = sess(s);
	bool *done = xcalloc(n ? n : 1, sizeof(bool));
	for (int attempt = 1; attempt <= WAIT_ATTEMPTS; attempt++) {
		size_t left = 0;
		for (size_t i = 0; i < n; i++) {
			struct cloud_vm *vm = vms[i];
			struct os_server sv;
			if (done[i])
				continue;
			int rc = os_server_get(&os->conn, vm->cloud_id, &sv, d);
			if (rc <= 0) {
				if (rc == 0)
					diag_error(d, IMC_EXIT_FAILED, NULL,
						   "openstack: VM %d (server %s) disappeared", vm->num,
						   vm->cloud_id);
				vm->state = rc == 0 ? VM_OFF : VM_FAILED;
				if (goal == WAIT_ACTIVE)
					vm->state = VM_FAILED;
				done[i] = true;
				continue;
			}
			const char *st = sv.status ? sv.status : "";
			set_addresses(s, vm, &sv);
			if (strcmp(st, "ERROR") == 0) {
				vm->state = VM_FAILED;
				diag_error(d, IMC_EXIT_FAILED, NULL,
					   "openstack: VM %d (server %s) went to ERROR%s%s", vm->num,
					   vm->cloud_id, sv.fault ? ": " : "", sv.fault ? sv.fault : "");
				done[i] = true;
			} else if (goal == WAIT_ACTIVE && strcmp(st, "ACTIVE") == 0) {
				vm->state = VM_RUNNING;
				done[i] = true;
			} else if (goal == WAIT_SHUTOFF && os_server_state(st) == VM_STOPPED) {
				vm->state = VM_STOPPED;
				done[i] = true;
			}
			os_server_release(&sv);
			if (!done[i])
				left++;
		}
		if (!left)
			break;
		if (attempt < WAIT_ATTEMPTS)
			os_sleep(&os->conn, WAIT_DELAY);
	}
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		vms[i]->state = goal == WAIT_ACTIVE ? VM_FAILED : VM_UNKNOWN;
		diag_error(d, goal == WAIT_ACTIVE ? IMC_EXIT_FAILED : IMC_EXIT_UNAVAILABLE, NULL,
			   "openstack: VM %d (server %s) did not reach '%s' after %d polls", vms[i]->num,
			   vms[i]->cloud_id, goal == WAIT_ACTIVE ? "ACTIVE" : "SHUTOFF", WAIT_ATTEMPTS);
	}
	free(done);
}

/* Once ACTIVE, a VM on a public network gets its floating IP. */
static void public_addresses(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	bool pub = false;
	for (size_t i = 0; i < vm->nnics && !pub; i++)
		pub = net_public(s, vm->nics[i].net);
	if (vm->state != VM_RUNNING || !pub)
		return;
	if (attach_fip(s, vm, d) < 0) {
		vm->state = VM_FAILED;
		return;
	}
	for (size_t i = 0; i < vm->nnics; i++)
		if (vm->public_ip && net_public(s, vm->nics[i].net)) {
			free(vm->nics[i].ip);
			vm->nics[i].ip = xstrdup(vm->public_ip);
		}
}

static int os_vm_create(struct cloud_session *s, struct cloud_vm *vms, size_t n, struct diag *d)
{
	struct cloud_vm **wait = xcalloc(n ? n : 1, sizeof(*wait));
	size_t nwait = 0;
	for (size_t i = 0; i < n; i++) {
		vms[i].state = VM_PENDING;
		if (launch(s, &vms[i], d) == 0)
			wait[nwait++] = &vms[i];
	}
	wait_vms(s, wait, nwait, WAIT_ACTIVE, d);
	for (size_t i = 0; i < nwait; i++)
		public_addresses(s, wait[i], d);
	free(wait);
	return 0;
}

/* The VM's server id: its cloud_id, or, when the store never got one (a
 * crash right after the create), the server with its metadata. Returns 1
 * when found (*id malloc'd), 0 when none, -1 on error. */
static int resolve(struct cloud_session *s, struct cloud_vm *vm, char **id, struct diag *d)
{
	if (vm->cloud_id) {
		*id = xstrdup(vm->cloud_id);
		return 1;
	}
	int rc = find_server(s, vm->num, id, d);
	if (rc > 0) {
		vm->cloud_id = xstrdup(*id);
		log_info("openstack", "VM %d: found server %s by its metadata", vm->num, *id);
	}
	return rc;
}

static int os_vm_update(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	char *id;
	struct os_server sv;
	int rc = resolve(s, vm, &id, d);
	if (rc <= 0) {
		if (rc == 0)
			vm->state = VM_OFF;
		return rc;
	}
	rc = os_server_get(&sess(s)->conn, id, &sv, d);
	free(id);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		vm->state = VM_OFF;
		return 0;
	}
	vm->state = os_server_state(sv.status);
	set_addresses(s, vm, &sv);
	os_server_release(&sv);
	return 0;
}

/* POST /servers/ID/action with {action: arg}. */
static int server_action(struct cloud_session *s, struct cloud_vm *vm, const char *action,
			 json_t *arg, const char *what, struct diag *d)
{
	char *id;
	int rc = resolve(s, vm, &id, d);
	if (rc <= 0) {
		json_decref(arg);
		if (rc == 0)
			diag_error(d, IMC_EXIT_NOINPUT, NULL, "openstack: VM %d has no server to %s",
				   vm->num, what);
		return -1;
	}
	char *path = xasprintf("/servers/%s/action", id);
	json_t *body = json_object();
	json_object_set_new(body, action, arg);
	struct os_error e;
	rc = os_call(&sess(s)->conn, OS_COMPUTE, "POST", path, body, 0, NULL, &e);
	json_decref(body);
	free(path);
	/* 409: already in the wanted state (stop of a stopped server) */
	if (rc < 0 && e.status != 409) {
		char *w = xasprintf("%s VM %d (server %s)", what, vm->num, id);
		os_error_diag(&e, d, w);
		free(w);
		os_error_release(&e);
		free(id);
		return -1;
	}
	os_error_release(&e);
	log_info("openstack", "%s server %s", action, id);
	free(id);
	return 0;
}

static int os_vm_stop(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	if (server_action(s, vm, "os-stop", json_null(), "stop", d) < 0)
		return -1;
	struct cloud_vm *one = vm;
	wait_vms(s, &one, 1, WAIT_SHUTOFF, d);
	return vm->state == VM_STOPPED ? 0 : -1;
}

static int os_vm_start(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	if (server_action(s, vm, "os-start", json_null(), "start", d) < 0)
		return -1;
	struct cloud_vm *one = vm;
	vm->state = VM_PENDING;
	wait_vms(s, &one, 1, WAIT_ACTIVE, d);
	return vm->state == VM_RUNNING ? 0 : -1;
}

static int os_vm_reboot(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	return server_action(s, vm, "reboot", json_pack("{s:s}", "type", "SOFT"), "reboot", d);
}

/* The VM's floating IP goes first (Neutron keeps it allocated after the
 * server is gone), then the server, waited until Nova no longer knows it.
 * The last VM of the infrastructure takes the key pair with it; the groups
 * belong to the networks (net_destroy). */
static int os_vm_destroy(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct os_session *os = sess(s);
	char *id = NULL;
	int rc = resolve(s, vm, &id, d);
	if (rc < 0)
		return -1;
	if (os_fips_release(&os->conn, s->infra_id, vm->num, d) < 0) {
		free(id);
		return -1;
	}
	if (rc > 0 && os_server_delete_wait(&os->conn, &os->dl, id, vm->num, d) < 0) {
		free(id);
		return -1;
	}
	free(id);
	vm->state = VM_OFF;
	struct os_server *v = NULL;
	size_t n = 0;
	if (os_servers_of(&os->conn, s->infra_id, &v, &n, d) < 0)
		return -1;
	os_servers_free(v, n);
	if (n == 0) {
		char *key = cloud_name_key(s->infra_id);
		rc = os_key_delete(&os->conn, key, d);
		free(key);
		os->key_ready = false;
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int os_cleanup_infra(struct cloud_session *s, struct diag *d)
{
	struct os_session *os = sess(s);
	char *key = cloud_name_key(s->infra_id);
	int rc = os_sweep(&os->conn, &os->dl, s->infra_id, key, d);
	free(key);
	forget_groups(os);
	os->key_ready = false;
	return rc;
}

const struct cloud_driver cloud_openstack = {
	.name = "openstack",
	/* NETWORKS: net_create makes each RADL network's security group */
	.caps = CLOUD_CAP_SSH | CLOUD_CAP_STOP | CLOUD_CAP_NETWORKS,
	/* egi:// and appdb:// (IM's EGI sites) still plan to openstack through
	 * cloud.c's connector list, and are refused by image_ref() */
	.schemes = (const char *const[]){ "ost", NULL },
	/* IM's default for images that name no user */
	.default_user = "cloudadm",
	.open = os_open,
	.close = os_close,
	.net_create = os_net_create,
	.net_destroy = os_net_destroy,
	.vm_create = os_vm_create,
	.vm_update = os_vm_update,
	.vm_stop = os_vm_stop,
	.vm_start = os_vm_start,
	.vm_reboot = os_vm_reboot,
	.vm_destroy = os_vm_destroy,
	.cleanup_infra = os_cleanup_infra,
};
