/* ec2.c: the 'ec2' cloud backend (Amazon EC2 through its Query API,
 * version 2016-11-15): the driver operations and the cloud_ec2 table.
 * docs/ec2.md describes what it creates and how it is tested.
 *
 * Auth line (IM's): type = EC2; username = ACCESS_KEY; password = SECRET_KEY
 * [; token = STS_TOKEN] [; host = https://endpoint] — host overrides the
 * regional endpoint (test endpoints run on http://127.0.0.1:PORT).
 * Image URL aws://REGION/AMI gives the region and the image; a VM's
 * cloud_id is "REGION;INSTANCE-ID" (IM's form).
 *
 * Crash safety (cloud.h): everything is named from the infrastructure id
 * and tagged with it (tag imc-infra-id):
 *   key pair        imc-INFRA (the infrastructure's public key, imported)
 *   security group  imc-INFRA-NET, one per RADL network and region
 *   instance        ClientToken imc-INFRA-NUM, so RunInstances retried after
 *                   a lost answer (or a crash) returns the same instance;
 *                   tags Name, imc-infra-id, imc-vm-num
 * and the regions used are recorded (ec2-state.c) before anything is made
 * in them, so destroy and cleanup_infra find leftovers by tag. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cloud/cloud.h"
#include "cloud/cloudinit.h"
#include "cloud/ec2.h"
#include "util/base64.h"
#include "util/log.h"
#include "cloud/names.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define WAIT_DELAY 15.0  /* waiters-2.json: InstanceRunning/Terminated/Stopped */
#define WAIT_ATTEMPTS 40
#define PUBLIC_IP_POLLS 4 /* polls to wait, once running, for a public address */

struct ec2_sg_cache {
	char *net;
	char *id;
};

struct ec2_region {
	struct ec2_conn conn;
	bool key_ready;
	struct ec2_sg_cache *sgs;
	size_t nsgs;
};

struct ec2_session {
	const char *access_key;
	const char *secret_key;
	const char *token;
	const char *host;
	struct ec2_region **regions;
	size_t nregions;
	struct ec2_state st;
	struct ec2_deadline dl; /* of this command's sweeps */
};

static struct ec2_session *sess(struct cloud_session *s)
{
	return s->priv;
}

/* aws://REGION/AMI */
static int parse_image(const struct cloud_vm *vm, char **region, char **ami, struct diag *d)
{
	const char *url = vm->image;
	*region = *ami = NULL;
	if (!url || strncasecmp(url, "aws://", 6) != 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "system '%s': ec2 needs disk.0.image.url = 'aws://REGION/AMI-ID', not '%s'",
			   vm->system, url ? url : "(none)");
		return -1;
	}
	const char *p = url + 6, *slash = strchr(p, '/');
	bool ok = slash && slash > p;
	for (const char *q = p; ok && q < slash; q++)
		if (!(islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '-'))
			ok = false;
	if (ok && strncmp(slash + 1, "ami-", 4) != 0)
		ok = false;
	for (const char *q = ok ? slash + 5 : ""; ok && *q; q++)
		if (!isalnum((unsigned char)*q))
			ok = false;
	if (!ok || !slash[5]) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "system '%s': malformed EC2 image URL '%s' (want aws://REGION/ami-ID, e.g. aws://us-east-1/ami-0abc1234)",
			   vm->system, url);
		return -1;
	}
	*region = xstrndup(p, (size_t)(slash - p));
	*ami = xstrdup(slash + 1);
	return 0;
}

/* "REGION;INSTANCE" */
static int parse_cloud_id(const char *id, char **region, char **inst)
{
	const char *semi = id ? strchr(id, ';') : NULL;
	if (!semi || semi == id || !semi[1])
		return -1;
	*region = xstrndup(id, (size_t)(semi - id));
	*inst = xstrdup(semi + 1);
	return 0;
}

/* ---- regions ---- */

static struct ec2_region *get_region(struct cloud_session *s, const char *region, bool intent,
				     struct diag *d)
{
	struct ec2_session *es = sess(s);
	if (intent && ec2_state_add_region(&es->st, region, d) < 0)
		return NULL;
	for (size_t i = 0; i < es->nregions; i++)
		if (strcmp(es->regions[i]->conn.region, region) == 0)
			return es->regions[i];
	struct ec2_region *r = xcalloc(1, sizeof(*r));
	if (ec2_conn_init(&r->conn, es->host, region, es->access_key, es->secret_key, es->token,
			  d) < 0) {
		free(r);
		return NULL;
	}
	es->regions = xreallocarray(es->regions, es->nregions + 1, sizeof(*es->regions));
	es->regions[es->nregions++] = r;
	return r;
}

/* Drops the cached group id of net (NULL: of every network) once the
 * group is deleted, so a later vm_create in this session makes it again. */
static void forget_groups(struct ec2_region *r, const char *net)
{
	size_t k = 0;
	for (size_t i = 0; i < r->nsgs; i++) {
		if (!net || strcmp(r->sgs[i].net, net) == 0) {
			free(r->sgs[i].net);
			free(r->sgs[i].id);
		} else {
			r->sgs[k++] = r->sgs[i];
		}
	}
	r->nsgs = k;
}

static void region_free(struct ec2_region *r)
{
	ec2_conn_release(&r->conn);
	forget_groups(r, NULL);
	free(r->sgs);
	free(r);
}

/* ---- open/close ---- */

static int ec2_open(struct cloud_session *s, struct diag *d)
{
	const struct auth_cred *cred = s->cred;
	const char *ak = cred ? auth_get(cred, "username") : NULL;
	const char *sk = cred ? auth_get(cred, "password") : NULL;
	const char *tok = cred ? auth_get(cred, "token") : NULL;
	/* Registered here too: this backend may be given a credential that did
	 * not come from auth_file_load (tests, imports). */
	if (ak)
		secret_register(ak);
	if (sk)
		secret_register(sk);
	if (tok)
		secret_register(tok);
	if (!ak || !*ak || !sk || !*sk) {
		if (cred)
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "ec2: the auth line at line %d needs 'username' (the access key id) and 'password' (the secret access key)",
				   cred->line);
		else
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "ec2: no credentials: the auth file needs a line 'type = EC2; username = ACCESS_KEY; password = SECRET_KEY'");
		if (cred)
			diag_note(d, NULL, "format: type = EC2; username = ACCESS_KEY; password = SECRET_KEY[; token = STS_TOKEN]");
		return -1;
	}
	if (!s->infra_id || !*s->infra_id || strlen(s->infra_id) > 48) {
		diag_error(d, IMC_EXIT_SOFTWARE, NULL, "ec2: bad infrastructure id");
		return -1;
	}
	struct ec2_session *es = xcalloc(1, sizeof(*es));
	es->access_key = ak;
	es->secret_key = sk;
	es->token = tok && *tok ? tok : NULL;
	es->host = auth_get(cred, "host");
	if (es->host && !*es->host)
		es->host = NULL;
	/* SigV4 never sends the secret key, but a session token travels as a
	 * header: say so when it would cross a network in clear. */
	if (es->host && es->token && strncasecmp(es->host, "http://", 7) == 0 &&
	    strncmp(es->host + 7, "127.", 4) != 0 && strncasecmp(es->host + 7, "localhost", 9) != 0 &&
	    strncmp(es->host + 7, "[::1]", 5) != 0)
		log_warn("ec2", "endpoint '%s' is plain http: the session token is sent unencrypted",
			 es->host);
	if (ec2_state_load(&es->st, s->home, s->infra_id, d) < 0) {
		ec2_state_release(&es->st);
		free(es);
		return -1;
	}
	s->priv = es;
	return 0;
}

static void ec2_close(struct cloud_session *s)
{
	struct ec2_session *es = sess(s);
	if (!es)
		return;
	for (size_t i = 0; i < es->nregions; i++)
		region_free(es->regions[i]);
	free(es->regions);
	ec2_state_release(&es->st);
	free(es);
	s->priv = NULL;
}

/* ---- networks ---- */

/* Security groups are regional and the region comes from each VM's image,
 * so net_create validates the outports and records the network; the group
 * itself is made by vm_create in the VM's region (ec2_sg_ensure). */
static int ec2_net_create(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	struct ec2_rule *rules = NULL;
	size_t n = 0;
	if (ec2_outports_parse(net->name, net->outports, net->public, &rules, &n, d) < 0)
		return -1;
	free(rules);
	if (ec2_state_add_net(&sess(s)->st, net->name, net->public, net->outports, d) < 0)
		return -1;
	free(net->cloud_id);
	net->cloud_id = cloud_name_net(s->infra_id, net->name);
	return 0;
}

/* Teardown destroys the VMs the store knows before their networks, so an
 * instance of the infrastructure still alive here is one the store lost:
 * it would hold the group (DependencyViolation) and stay billed, so it is
 * terminated first. The network's store row stays until this returns 0,
 * and so a destroy that ran out of time is finished by the next one. */
static int ec2_net_destroy(struct cloud_session *s, struct cloud_net *net, struct diag *d)
{
	struct ec2_session *es = sess(s);
	char *name = cloud_name_net(s->infra_id, net->name);
	int ret = 0;
	for (size_t i = 0; i < es->st.nregions; i++) {
		struct ec2_region *r = get_region(s, es->st.regions[i], false, d);
		struct ec2_sweep sw;
		if (!r) {
			ret = -1;
			continue;
		}
		ec2_sweep_init(&sw, &r->conn, s->infra_id, &es->dl);
		if (ec2_sweep_instances(&sw, d) < 0 || ec2_sweep_group_named(&sw, name, d) < 0)
			ret = -1;
		if (ec2_sweep_finish(&sw, d) < 0)
			ret = -1;
		ec2_sweep_release(&sw);
		forget_groups(r, net->name);
	}
	free(name);
	return ret;
}

/* ---- key pair ---- */

static int ensure_key(struct cloud_session *s, struct ec2_region *r, struct diag *d)
{
	if (r->key_ready || !s->pubkey || !*s->pubkey)
		return 0;
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	char *name = cloud_name_key(s->infra_id), *material = base64_encode(s->pubkey, strlen(s->pubkey));
	ec2_query_init(&q, "ImportKeyPair");
	ec2_query_add(&q, "KeyName", name);
	ec2_query_add(&q, "PublicKeyMaterial", material);
	ec2_query_add(&q, "TagSpecification.1.ResourceType", "key-pair");
	ec2_query_add(&q, "TagSpecification.1.Tag.1.Key", EC2_TAG_INFRA);
	ec2_query_add(&q, "TagSpecification.1.Tag.1.Value", s->infra_id);
	int rc = ec2_call(&r->conn, &q, &doc, &e);
	ec2_query_release(&q);
	xmlFreeDoc(doc);
	free(material);
	if (rc < 0 && !ec2_error_is(&e, "InvalidKeyPair.Duplicate")) {
		char *what = xasprintf("import key pair '%s'", name);
		ec2_error_diag(&r->conn, &e, d, what);
		free(what);
		ec2_error_release(&e);
		free(name);
		return -1;
	}
	if (rc == 0)
		log_info("ec2", "%s: imported key pair %s", r->conn.region, name);
	ec2_error_release(&e);
	free(name);
	r->key_ready = true;
	return 0;
}

/* ---- security groups of a VM ---- */

static int net_group(struct cloud_session *s, struct ec2_region *r, const char *net,
		     const char **gid, struct diag *d)
{
	for (size_t i = 0; i < r->nsgs; i++)
		if (strcmp(r->sgs[i].net, net) == 0) {
			*gid = r->sgs[i].id;
			return 0;
		}
	const struct ec2_netdef *nd = ec2_state_net(&sess(s)->st, net);
	struct ec2_rule *rules = NULL;
	size_t n = 0;
	if (!nd)
		log_warn("ec2", "network '%s' was not created first; its group allows only itself",
			 net);
	if (nd && ec2_outports_parse(net, nd->outports, nd->public, &rules, &n, d) < 0)
		return -1;
	char *name = cloud_name_net(s->infra_id, net), *id = NULL;
	int rc = ec2_sg_ensure(&r->conn, s->infra_id, name, rules, n, &id, d);
	free(name);
	free(rules);
	if (rc < 0)
		return -1;
	r->sgs = xreallocarray(r->sgs, r->nsgs + 1, sizeof(*r->sgs));
	r->sgs[r->nsgs].net = xstrdup(net);
	r->sgs[r->nsgs].id = id;
	*gid = r->sgs[r->nsgs++].id;
	return 0;
}

static bool vm_public(struct cloud_session *s, const struct cloud_vm *vm)
{
	for (size_t i = 0; i < vm->nnics; i++) {
		const struct ec2_netdef *nd = ec2_state_net(&sess(s)->st, vm->nics[i].net);
		if (nd && nd->public)
			return true;
	}
	return false;
}

/* ---- instances ---- */

static enum vm_state map_state(const char *st)
{
	if (!st)
		return VM_UNKNOWN;
	if (strcmp(st, "pending") == 0)
		return VM_PENDING;
	if (strcmp(st, "running") == 0)
		return VM_RUNNING;
	if (strcmp(st, "stopping") == 0 || strcmp(st, "stopped") == 0)
		return VM_STOPPED;
	if (strcmp(st, "shutting-down") == 0 || strcmp(st, "terminated") == 0)
		return VM_OFF;
	return VM_UNKNOWN;
}

static void set_addresses(struct cloud_session *s, struct cloud_vm *vm,
			  const struct ec2_instance *in)
{
	if (in->private_ip) {
		free(vm->private_ip);
		vm->private_ip = xstrdup(in->private_ip);
	}
	if (in->public_ip) {
		free(vm->public_ip);
		vm->public_ip = xstrdup(in->public_ip);
	}
	for (size_t i = 0; i < vm->nnics; i++) {
		const struct ec2_netdef *nd = ec2_state_net(&sess(s)->st, vm->nics[i].net);
		const char *ip = nd && nd->public ? in->public_ip : in->private_ip;
		if (ip) {
			free(vm->nics[i].ip);
			vm->nics[i].ip = xstrdup(ip);
		}
	}
}

static void add_block_devices(struct ec2_region *r, struct ec2_query *q, const struct cloud_vm *vm,
			      const char *ami, struct diag *d)
{
	int k = 0;
	for (size_t i = 0; i < vm->ndisks; i++) {
		const struct cloud_disk *dk = &vm->disks[i];
		long long gib = (dk->size_bytes + (1LL << 30) - 1) >> 30;
		char *dev = NULL;
		if (dk->size_bytes <= 0)
			continue;
		if (dk->index == 0) {
			/* The root volume keeps the image's device name. */
			struct ec2_query dq;
			struct ec2_error e;
			xmlDoc *doc = NULL;
			ec2_query_init(&dq, "DescribeImages");
			ec2_query_add(&dq, "ImageId.1", ami);
			if (ec2_call(&r->conn, &dq, &doc, &e) == 0) {
				xmlNode *img = ec2_xml_find(xmlDocGetRootElement(doc), "item");
				dev = ec2_xml_text(img, "rootDeviceName");
			} else {
				log_warn("ec2", "%s: cannot read the root device of %s (%s); using the image's disk size",
					 r->conn.region, ami, e.code ? e.code : "error");
			}
			xmlFreeDoc(doc);
			ec2_error_release(&e);
			ec2_query_release(&dq);
			if (!dev)
				continue;
		} else if (dk->device && *dk->device) {
			dev = dk->device[0] == '/' ? xstrdup(dk->device) : xasprintf("/dev/%s", dk->device);
		} else {
			dev = xasprintf("/dev/sd%c", 'f' + (dk->index - 1) % 11);
		}
		k++;
		ec2_query_addf(q, dev, "BlockDeviceMapping.%d.DeviceName", k);
		char buf[32];
		snprintf(buf, sizeof(buf), "%lld", gib < 1 ? 1 : gib);
		ec2_query_addf(q, buf, "BlockDeviceMapping.%d.Ebs.VolumeSize", k);
		ec2_query_addf(q, "true", "BlockDeviceMapping.%d.Ebs.DeleteOnTermination", k);
		free(dev);
	}
	(void)d;
}

/* RunInstances for one VM; sets cloud_id and state PENDING, or FAILED. */
static int launch(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	char *region = NULL, *ami = NULL, *token = NULL;
	struct ec2_region *r;
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	int ret = -1;
	memset(&q, 0, sizeof(q));

	if (parse_image(vm, &region, &ami, d) < 0)
		goto out;
	const char *itype = vm->instance_type;
	bool pattern = itype && strpbrk(itype, "*?[");
	if (!itype || !*itype || pattern) {
		const struct ec2_type *t = ec2_type_pick_pattern(pattern ? itype : NULL, vm->cpus,
								 vm->memory_bytes, vm->gpus);
		if (!t) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "system '%s': no EC2 instance type%s%s%s has %d CPUs, %lld MiB and %d GPUs; set instance_type",
				   vm->system, pattern ? " matching '" : "", pattern ? itype : "",
				   pattern ? "'" : "", vm->cpus, vm->memory_bytes >> 20, vm->gpus);
			goto out;
		}
		itype = t->name;
	}
	r = get_region(s, region, true, d);
	if (!r || ensure_key(s, r, d) < 0)
		goto out;
	ec2_query_init(&q, "RunInstances");
	ec2_query_add(&q, "ImageId", ami);
	ec2_query_add(&q, "InstanceType", itype);
	ec2_query_add(&q, "MinCount", "1");
	ec2_query_add(&q, "MaxCount", "1");
	token = cloud_name_vm(vm->infra_id, vm->num);
	ec2_query_add(&q, "ClientToken", token);
	if (s->pubkey && *s->pubkey) {
		char *kn = cloud_name_key(s->infra_id);
		ec2_query_add(&q, "KeyName", kn);
		free(kn);
	}
	for (size_t i = 0, k = 0; i < vm->nnics; i++) {
		const char *gid;
		bool seen = !vm->nics[i].net || !*vm->nics[i].net;
		for (size_t j = 0; j < i && !seen; j++)
			if (vm->nics[j].net && strcmp(vm->nics[j].net, vm->nics[i].net) == 0)
				seen = true;
		if (seen)
			continue;
		if (net_group(s, r, vm->nics[i].net, &gid, d) < 0)
			goto out;
		ec2_query_addf(&q, gid, "SecurityGroupId.%zu", ++k);
	}
	add_block_devices(r, &q, vm, ami, d);
	char *ud = cloudinit_user_data("ec2", vm->num, vm->user, s->pubkey);
	if (ud) {
		ec2_query_add(&q, "UserData", ud);
		free(ud);
	}
	char num[16], *name;
	snprintf(num, sizeof(num), "%d", vm->num);
	name = vm->hostname && *vm->hostname ? xstrdup(vm->hostname)
					      : xasprintf("%s-%d", vm->system, vm->num);
	ec2_query_add(&q, "TagSpecification.1.ResourceType", "instance");
	ec2_query_add(&q, "TagSpecification.1.Tag.1.Key", "Name");
	ec2_query_add(&q, "TagSpecification.1.Tag.1.Value", name);
	ec2_query_add(&q, "TagSpecification.1.Tag.2.Key", EC2_TAG_INFRA);
	ec2_query_add(&q, "TagSpecification.1.Tag.2.Value", vm->infra_id);
	ec2_query_add(&q, "TagSpecification.1.Tag.3.Key", EC2_TAG_VMNUM);
	ec2_query_add(&q, "TagSpecification.1.Tag.3.Value", num);
	free(name);

	if (ec2_call(&r->conn, &q, &doc, &e) < 0) {
		char *what = xasprintf("create VM %d (system '%s', image %s, type %s)", vm->num,
				       vm->system, ami, itype);
		ec2_error_diag(&r->conn, &e, d, what);
		if (ec2_error_is(&e, "IdempotentParameterMismatch"))
			diag_note(d, NULL, "client token '%s' was used before with other parameters",
				  token);
		free(what);
		ec2_error_release(&e);
		goto out;
	}
	struct ec2_instance *in = NULL;
	size_t n = 0;
	if (ec2_xml_instances(doc, &in, &n) < 0 || n != 1 || !in[0].id) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
			   "ec2 (%s): RunInstances reply for VM %d has %zu instances, want 1",
			   region, vm->num, n);
		ec2_instances_free(in, n);
		goto out;
	}
	free(vm->cloud_id);
	vm->cloud_id = xasprintf("%s;%s", region, in[0].id);
	free(vm->data);
	vm->data = xasprintf("{\"region\":\"%s\",\"instance_id\":\"%s\",\"instance_type\":\"%s\"}",
			     region, in[0].id, itype);
	vm->state = VM_PENDING;
	set_addresses(s, vm, &in[0]);
	log_info("ec2", "%s: VM %d is instance %s (%s)", region, vm->num, in[0].id, itype);
	ec2_instances_free(in, n);
	ret = 0;
out:
	if (ret < 0)
		vm->state = VM_FAILED;
	xmlFreeDoc(doc);
	ec2_query_release(&q);
	free(region);
	free(ami);
	free(token);
	return ret;
}

/* DescribeInstances of the given "REGION;ID" VMs in one region. A
 * InvalidInstanceID.NotFound answer sets *notfound (eventual consistency
 * right after RunInstances, or gone). */
static int describe_ids(struct ec2_region *r, const char *const *ids, size_t nids,
			struct ec2_instance **v, size_t *n, bool *notfound, struct diag *d)
{
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	*v = NULL;
	*n = 0;
	*notfound = false;
	ec2_query_init(&q, "DescribeInstances");
	for (size_t i = 0; i < nids; i++)
		ec2_query_addf(&q, ids[i], "InstanceId.%zu", i + 1);
	int rc = ec2_call(&r->conn, &q, &doc, &e);
	ec2_query_release(&q);
	if (rc < 0) {
		if (ec2_error_is(&e, "InvalidInstanceID.NotFound") && nids > 1) {
			/* One unknown id fails the whole call: ask for each, so the
			 * others still get their answer; the unknown ones are absent. */
			ec2_error_release(&e);
			size_t alloc = 0;
			for (size_t i = 0; i < nids; i++) {
				struct ec2_instance *one = NULL;
				size_t n1 = 0;
				bool nf;
				if (describe_ids(r, &ids[i], 1, &one, &n1, &nf, d) < 0) {
					ec2_instances_free(*v, *n);
					*v = NULL;
					*n = 0;
					return -1;
				}
				for (size_t k = 0; k < n1; k++) {
					if (*n == alloc) {
						alloc = alloc ? alloc * 2 : 4;
						*v = xreallocarray(*v, alloc, sizeof(**v));
					}
					(*v)[(*n)++] = one[k];
				}
				free(one);
			}
			return 0;
		}
		if (ec2_error_is(&e, "InvalidInstanceID.NotFound")) {
			*notfound = true;
			ec2_error_release(&e);
			return 0;
		}
		ec2_error_diag(&r->conn, &e, d, "describe instances");
		ec2_error_release(&e);
		return -1;
	}
	rc = ec2_xml_instances(doc, v, n);
	xmlFreeDoc(doc);
	if (rc < 0) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
			   "ec2 (%s): DescribeInstances reply has no reservationSet", r->conn.region);
		return -1;
	}
	return 0;
}

static const struct ec2_instance *find_instance(const struct ec2_instance *v, size_t n,
						const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].id && strcmp(v[i].id, id) == 0)
			return &v[i];
	return NULL;
}

enum wait_goal { WAIT_RUNNING, WAIT_STOPPED, WAIT_TERMINATED };

/* The waiters of waiters-2.json: poll DescribeInstances every 15 s (scaled),
 * at most 40 times, until every VM reaches the goal; a VM in a failure
 * state of the waiter stops waiting (VM_FAILED for RUNNING). For RUNNING,
 * a VM on a public network also waits a few polls for its public address.
 * VMs not in PENDING (or, for the other goals, without a cloud id) are
 * skipped. */
static void wait_vms(struct cloud_session *s, struct cloud_vm **vms, size_t n,
		     enum wait_goal goal, struct diag *d)
{
	bool *done = xcalloc(n ? n : 1, sizeof(bool));
	bool *visited = xcalloc(n ? n : 1, sizeof(bool));
	int *running_polls = xcalloc(n ? n : 1, sizeof(int));
	for (int attempt = 1; attempt <= WAIT_ATTEMPTS; attempt++) {
		size_t left = 0;
		memset(visited, 0, (n ? n : 1) * sizeof(bool));
		for (size_t i = 0; i < n; i++) {
			char *region = NULL, *id = NULL;
			if (done[i] || visited[i])
				continue;
			if (parse_cloud_id(vms[i]->cloud_id, &region, &id) < 0) {
				done[i] = true;
				continue;
			}
			/* One call per region for every waiting VM in it. */
			const char **ids = xcalloc(n, sizeof(char *));
			char **owned = xcalloc(n, sizeof(char *));
			size_t *idx = xcalloc(n, sizeof(size_t)), nids = 0;
			for (size_t j = i; j < n; j++) {
				char *rj = NULL, *ij = NULL;
				if (done[j] || parse_cloud_id(vms[j]->cloud_id, &rj, &ij) < 0) {
					free(rj);
					free(ij);
					continue;
				}
				if (strcmp(rj, region) == 0) {
					visited[j] = true;
					owned[nids] = ij;
					ids[nids] = ij;
					idx[nids++] = j;
				} else {
					free(ij);
				}
				free(rj);
			}
			struct ec2_region *r = get_region(s, region, false, d);
			struct ec2_instance *v = NULL;
			size_t nv = 0;
			bool notfound = false;
			int rc = r ? describe_ids(r, ids, nids, &v, &nv, &notfound, d) : -1;
			for (size_t k = 0; k < nids; k++) {
				struct cloud_vm *vm = vms[idx[k]];
				const struct ec2_instance *in = rc == 0 ? find_instance(v, nv, ids[k]) : NULL;
				if (rc < 0) {
					if (goal == WAIT_RUNNING)
						vm->state = VM_FAILED;
					done[idx[k]] = true;
					continue;
				}
				if (!in) {
					/* Not visible yet (RUNNING) or gone (TERMINATED). */
					if (goal == WAIT_TERMINATED && !notfound) {
						vm->state = VM_OFF;
						done[idx[k]] = true;
					}
					continue;
				}
				set_addresses(s, vm, in);
				const char *st = in->state ? in->state : "";
				if (goal == WAIT_RUNNING) {
					if (strcmp(st, "running") == 0) {
						bool want_pub = vm_public(s, vm) && !in->public_ip &&
								running_polls[idx[k]]++ < PUBLIC_IP_POLLS;
						if (!want_pub) {
							vm->state = VM_RUNNING;
							done[idx[k]] = true;
						}
					} else if (strcmp(st, "shutting-down") == 0 ||
						   strcmp(st, "terminated") == 0 ||
						   strcmp(st, "stopping") == 0) {
						vm->state = VM_FAILED;
						diag_error(d, IMC_EXIT_FAILED, NULL,
							   "ec2 (%s): VM %d (instance %s) went '%s' instead of running%s%s",
							   region, vm->num, in->id, st,
							   in->reason ? ": " : "", in->reason ? in->reason : "");
						done[idx[k]] = true;
					}
				} else if (goal == WAIT_STOPPED) {
					if (strcmp(st, "stopped") == 0 || strcmp(st, "pending") == 0 ||
					    strcmp(st, "terminated") == 0) {
						vm->state = map_state(st);
						done[idx[k]] = true;
					}
				} else {
					if (strcmp(st, "terminated") == 0) {
						vm->state = VM_OFF;
						done[idx[k]] = true;
					}
				}
			}
			/* notfound (a single id unknown): wait on (eventual
			 * consistency), except for a VM being terminated: gone is done. */
			if (notfound && goal == WAIT_TERMINATED && nids == 1) {
				vms[idx[0]]->state = VM_OFF;
				done[idx[0]] = true;
			}
			ec2_instances_free(v, nv);
			for (size_t k = 0; k < nids; k++)
				free(owned[k]);
			free(owned);
			free(ids);
			free(idx);
			free(region);
			free(id);
		}
		for (size_t i = 0; i < n; i++)
			if (!done[i])
				left++;
		if (!left)
			break;
		if (attempt < WAIT_ATTEMPTS && s->priv && sess(s)->nregions)
			ec2_sleep(&sess(s)->regions[0]->conn, WAIT_DELAY);
	}
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		if (goal == WAIT_RUNNING) {
			vms[i]->state = VM_FAILED;
			diag_error(d, IMC_EXIT_FAILED, NULL,
				   "ec2: VM %d (%s) did not reach 'running' after %d polls", vms[i]->num,
				   vms[i]->cloud_id ? vms[i]->cloud_id : "?", WAIT_ATTEMPTS);
		} else {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "ec2: VM %d (%s) did not reach '%s' after %d polls", vms[i]->num,
				   vms[i]->cloud_id ? vms[i]->cloud_id : "?",
				   goal == WAIT_STOPPED ? "stopped" : "terminated", WAIT_ATTEMPTS);
		}
	}
	free(done);
	free(visited);
	free(running_polls);
}

static int ec2_vm_create(struct cloud_session *s, struct cloud_vm *vms, size_t n, struct diag *d)
{
	struct cloud_vm **wait = xcalloc(n ? n : 1, sizeof(*wait));
	size_t nwait = 0;
	for (size_t i = 0; i < n; i++) {
		vms[i].state = VM_PENDING;
		if (launch(s, &vms[i], d) == 0)
			wait[nwait++] = &vms[i];
	}
	wait_vms(s, wait, nwait, WAIT_RUNNING, d);
	free(wait);
	return 0;
}

/* Resolves a VM to (region, instance id): from its cloud_id, or, when the
 * store never got one (crash right after RunInstances), by its client
 * token in the region of its image. Returns 1 when found, 0 when there is
 * no such instance, -1 on error. */
static int resolve(struct cloud_session *s, struct cloud_vm *vm, struct ec2_region **r,
		   char **inst, struct diag *d)
{
	char *region = NULL;
	*inst = NULL;
	*r = NULL;
	if (vm->cloud_id) {
		if (parse_cloud_id(vm->cloud_id, &region, inst) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "ec2: VM %d has a malformed cloud id '%s' (want REGION;INSTANCE-ID)",
				   vm->num, vm->cloud_id);
			return -1;
		}
		*r = get_region(s, region, false, d);
		free(region);
		return *r ? 1 : -1;
	}
	char *ami = NULL;
	struct diag quiet = DIAG_INIT;
	int pr = parse_image(vm, &region, &ami, &quiet);
	diag_release(&quiet);
	free(ami);
	if (pr < 0)
		return 0;
	*r = get_region(s, region, false, d);
	free(region);
	if (!*r)
		return -1;
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	char *token = cloud_name_vm(vm->infra_id, vm->num);
	ec2_query_init(&q, "DescribeInstances");
	ec2_query_add(&q, "Filter.1.Name", "client-token");
	ec2_query_add(&q, "Filter.1.Value.1", token);
	free(token);
	int rc = ec2_call(&(*r)->conn, &q, &doc, &e);
	ec2_query_release(&q);
	if (rc < 0) {
		ec2_error_diag(&(*r)->conn, &e, d, "find a VM by its client token");
		ec2_error_release(&e);
		return -1;
	}
	struct ec2_instance *v = NULL;
	size_t n = 0;
	ec2_xml_instances(doc, &v, &n);
	xmlFreeDoc(doc);
	for (size_t i = 0; i < n; i++)
		if (v[i].state && strcmp(v[i].state, "terminated") != 0 && v[i].id) {
			*inst = xstrdup(v[i].id);
			free(vm->cloud_id);
			vm->cloud_id = xasprintf("%s;%s", (*r)->conn.region, v[i].id);
			break;
		}
	ec2_instances_free(v, n);
	return *inst ? 1 : 0;
}

static int ec2_vm_update(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct ec2_region *r;
	char *id;
	int rc = resolve(s, vm, &r, &id, d);
	if (rc <= 0) {
		if (rc == 0)
			vm->state = VM_OFF;
		return rc;
	}
	struct ec2_instance *v = NULL;
	size_t n = 0;
	bool notfound;
	const char *ids[1] = { id };
	if (describe_ids(r, ids, 1, &v, &n, &notfound, d) < 0) {
		free(id);
		return -1;
	}
	const struct ec2_instance *in = find_instance(v, n, id);
	if (!in) {
		vm->state = VM_OFF;
	} else {
		vm->state = map_state(in->state);
		set_addresses(s, vm, in);
	}
	ec2_instances_free(v, n);
	free(id);
	return 0;
}

/* Start/Stop/Reboot/TerminateInstances on one instance. */
static int instance_action(struct cloud_session *s, struct cloud_vm *vm, const char *action,
			   const char *what, struct ec2_region **rp, struct diag *d)
{
	struct ec2_region *r = NULL;
	char *id;
	int rc = resolve(s, vm, &r, &id, d);
	if (rc <= 0) {
		if (rc == 0 && strcmp(action, "TerminateInstances") == 0) {
			vm->state = VM_OFF;
			*rp = r; /* nothing to terminate; the region may need cleaning */
			return 1;
		}
		if (rc == 0)
			diag_error(d, IMC_EXIT_NOINPUT, NULL, "ec2: VM %d has no instance to %s",
				   vm->num, what);
		return -1;
	}
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	ec2_query_init(&q, action);
	ec2_query_add(&q, "InstanceId.1", id);
	rc = ec2_call(&r->conn, &q, &doc, &e);
	ec2_query_release(&q);
	xmlFreeDoc(doc);
	if (rc < 0) {
		if (ec2_error_is(&e, "InvalidInstanceID.NotFound") &&
		    strcmp(action, "TerminateInstances") == 0) {
			ec2_error_release(&e);
			free(id);
			vm->state = VM_OFF;
			*rp = r;
			return 1;
		}
		char *w = xasprintf("%s VM %d (instance %s)", what, vm->num, id);
		ec2_error_diag(&r->conn, &e, d, w);
		free(w);
		ec2_error_release(&e);
		free(id);
		return -1;
	}
	log_info("ec2", "%s: %s %s", r->conn.region, action, id);
	free(id);
	*rp = r;
	return 0;
}

static int ec2_vm_stop(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct ec2_region *r;
	if (instance_action(s, vm, "StopInstances", "stop", &r, d) < 0)
		return -1;
	struct cloud_vm *one = vm;
	wait_vms(s, &one, 1, WAIT_STOPPED, d);
	if (vm->state == VM_STOPPED)
		return 0;
	if (!diag_has_errors(d))
		diag_error(d, IMC_EXIT_FAILED, NULL, "ec2: VM %d (%s) is '%s' instead of stopped",
			   vm->num, vm->cloud_id ? vm->cloud_id : "?", vm_state_name(vm->state));
	return -1;
}

static int ec2_vm_start(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct ec2_region *r;
	if (instance_action(s, vm, "StartInstances", "start", &r, d) < 0)
		return -1;
	struct cloud_vm *one = vm;
	vm->state = VM_PENDING;
	/* A restarted instance gets a new public address. */
	free(vm->public_ip);
	vm->public_ip = NULL;
	wait_vms(s, &one, 1, WAIT_RUNNING, d);
	return vm->state == VM_RUNNING ? 0 : -1;
}

static int ec2_vm_reboot(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct ec2_region *r;
	return instance_action(s, vm, "RebootInstances", "reboot", &r, d) < 0 ? -1 : 0;
}

/* The type a resize asks for: instance_type as given, else (none, or a
 * pattern) the cheapest type of the table with the wanted size. */
static const char *wanted_type(const struct cloud_vm *vm, struct diag *d)
{
	const char *itype = vm->instance_type;
	bool pattern = itype && strpbrk(itype, "*?[");
	if (itype && *itype && !pattern)
		return itype;
	const struct ec2_type *t = ec2_type_pick_pattern(pattern ? itype : NULL, vm->cpus,
							 vm->memory_bytes, vm->gpus);
	if (!t)
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "VM %d: no EC2 instance type%s%s%s has %d CPUs, %lld MiB and %d GPUs; set instance_type",
			   vm->num, pattern ? " matching '" : "", pattern ? itype : "", pattern ? "'" : "",
			   vm->cpus, vm->memory_bytes >> 20, vm->gpus);
	return t ? t->name : NULL;
}

static int modify_type(struct ec2_region *r, const char *id, const char *type, int num,
		       struct diag *d)
{
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	ec2_query_init(&q, "ModifyInstanceAttribute");
	ec2_query_add(&q, "InstanceId", id);
	ec2_query_add(&q, "InstanceType.Value", type);
	int rc = ec2_call(&r->conn, &q, &doc, &e);
	ec2_query_release(&q);
	xmlFreeDoc(doc);
	if (rc < 0) {
		char *what = xasprintf("change VM %d (instance %s) to type %s", num, id, type);
		ec2_error_diag(&r->conn, &e, d, what);
		free(what);
		ec2_error_release(&e);
		return -1;
	}
	log_info("ec2", "%s: instance %s is now %s", r->conn.region, id, type);
	return 0;
}

/* IM's alter: EC2 changes an instance's type only while it is stopped, so
 * StopInstances, wait 'stopped', ModifyInstanceAttribute InstanceType,
 * StartInstances, wait 'running' and read the addresses again (a restarted
 * instance has a new public IP). A stopped VM is left stopped; the same
 * type is a no-op. When the type could not be changed the result is -1 and
 * the error says what state the instance was left in (started again when
 * it was running), so the caller keeps the stored values. When the type
 * changed but the VM did not come back, the result is 0 (the new type is
 * real and must be stored) with an error naming the state it is in. */
static int ec2_vm_alter(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	enum vm_state before = vm->state;
	struct ec2_region *r;
	struct ec2_instance *v = NULL;
	size_t n = 0;
	char *id = NULL;
	bool notfound;
	int ret = -1;
	const char *want = wanted_type(vm, d);
	if (!want)
		return -1;
	int rc = resolve(s, vm, &r, &id, d);
	if (rc == 0)
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "ec2: VM %d has no instance to alter", vm->num);
	if (rc <= 0)
		return -1;
	const char *ids[1] = { id };
	if (describe_ids(r, ids, 1, &v, &n, &notfound, d) < 0)
		goto out;
	const struct ec2_instance *in = find_instance(v, n, id);
	if (!in || !in->state) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "ec2 (%s): VM %d (instance %s) does not exist",
			   r->conn.region, vm->num, id);
		goto out;
	}
	char *old = xstrdup(in->type ? in->type : "?");
	bool running = strcmp(in->state, "running") == 0 || strcmp(in->state, "pending") == 0;
	if (strcmp(old, want) == 0) {
		log_info("ec2", "%s: VM %d is already %s", r->conn.region, vm->num, want);
		vm->instance_type = want;
		free(old);
		ret = 0;
		goto out;
	}
	if (!running && strcmp(in->state, "stopped") != 0 && strcmp(in->state, "stopping") != 0) {
		diag_error(d, IMC_EXIT_FAILED, NULL,
			   "ec2 (%s): VM %d (instance %s) is '%s': only a running or stopped instance can change its type",
			   r->conn.region, vm->num, id, in->state);
		free(old);
		goto out;
	}
	log_info("ec2", "%s: VM %d: %s -> %s", r->conn.region, vm->num, old, want);
	if (!running && strcmp(in->state, "stopped") == 0)
		vm->state = VM_STOPPED;
	else if (ec2_vm_stop(s, vm, d) < 0) {
		diag_note(d, NULL, "VM %d keeps its type %s; the instance is '%s'", vm->num, old,
			  vm_state_name(vm->state));
		free(old);
		goto out;
	}
	if (modify_type(r, id, want, vm->num, d) < 0) {
		if (running && ec2_vm_start(s, vm, d) == 0)
			diag_note(d, NULL, "VM %d was started again with its type %s", vm->num, old);
		else
			diag_note(d, NULL, "VM %d keeps its type %s and is left '%s'", vm->num, old,
				  vm_state_name(vm->state));
		if (vm->state == VM_RUNNING)
			vm->state = before;
		free(old);
		goto out;
	}
	free(old);
	vm->instance_type = want;
	free(vm->data);
	vm->data = xasprintf("{\"region\":\"%s\",\"instance_id\":\"%s\",\"instance_type\":\"%s\"}",
			     r->conn.region, id, want);
	ret = 0;
	if (!running)
		goto out;
	if (ec2_vm_start(s, vm, d) < 0) {
		diag_error(d, IMC_EXIT_FAILED, NULL,
			   "ec2 (%s): VM %d is now %s but did not start again: it is '%s'",
			   r->conn.region, vm->num, want, vm_state_name(vm->state));
		goto out;
	}
	vm->state = before == VM_STOPPED ? VM_RUNNING : before;
out:
	ec2_instances_free(v, n);
	free(id);
	return ret;
}

/* Releases the tagged addresses, deletes the groups and the key pair of
 * one region: the sweep's second half, once no instance is left. */
static int region_cleanup(struct cloud_session *s, struct ec2_region *r, struct diag *d)
{
	struct ec2_sweep sw;
	char *key = cloud_name_key(s->infra_id);
	ec2_sweep_init(&sw, &r->conn, s->infra_id, &sess(s)->dl);
	int ret = ec2_sweep_rest(&sw, key, d);
	if (ec2_sweep_finish(&sw, d) < 0)
		ret = -1;
	ec2_sweep_release(&sw);
	free(key);
	forget_groups(r, NULL);
	r->key_ready = false;
	return ret;
}

static int ec2_vm_destroy(struct cloud_session *s, struct cloud_vm *vm, struct diag *d)
{
	struct ec2_region *r = NULL;
	int rc = instance_action(s, vm, "TerminateInstances", "terminate", &r, d);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		struct cloud_vm *one = vm;
		wait_vms(s, &one, 1, WAIT_TERMINATED, d);
		if (vm->state != VM_OFF)
			return -1;
	}
	if (!r)
		return 0;
	/* The last VM of the infrastructure in this region takes the key pair
	 * and the security groups with it. */
	struct ec2_sweep sw;
	struct ec2_instance *v = NULL;
	size_t n = 0;
	ec2_sweep_init(&sw, &r->conn, s->infra_id, &sess(s)->dl);
	rc = ec2_sweep_list_instances(&sw, &v, &n, d);
	ec2_sweep_release(&sw);
	ec2_instances_free(v, n);
	if (rc < 0)
		return -1;
	if (n == 0)
		return region_cleanup(s, r, d);
	return 0;
}

/* The sweep (ec2-sweep.c) of every region the infrastructure used: the
 * regions file (written before anything is made in a region) plus any this
 * session touched. The file goes only once every region is clean. */
static int ec2_cleanup_infra(struct cloud_session *s, struct diag *d)
{
	struct ec2_session *es = sess(s);
	char *key = cloud_name_key(s->infra_id);
	int ret = 0;
	for (size_t i = 0; i < es->nregions; i++)
		if (ec2_state_add_region(&es->st, es->regions[i]->conn.region, d) < 0) {
			free(key);
			return -1;
		}
	for (size_t i = 0; i < es->st.nregions; i++) {
		struct ec2_region *r = get_region(s, es->st.regions[i], false, d);
		struct ec2_sweep sw;
		if (!r) {
			ret = -1;
			continue;
		}
		ec2_sweep_init(&sw, &r->conn, s->infra_id, &es->dl);
		if (ec2_sweep_region(&sw, key, d) < 0)
			ret = -1;
		if (ec2_sweep_finish(&sw, d) < 0)
			ret = -1;
		ec2_sweep_release(&sw);
		forget_groups(r, NULL);
		r->key_ready = false;
	}
	free(key);
	if (ret == 0)
		ec2_state_remove(&es->st);
	return ret;
}

const struct cloud_driver cloud_ec2 = {
	.name = "ec2",
	/* NETWORKS: net_create records each RADL network (its security group is
	 * made per region by vm_create), so the worker must call it. */
	.caps = CLOUD_CAP_SSH | CLOUD_CAP_STOP | CLOUD_CAP_NETWORKS,
	.schemes = (const char *const[]){ "aws", NULL },
	/* IM's default for images that name no user */
	.default_user = "cloudadm",
	/* the access key id travels in 'username' */
	.secret_keys = (const char *const[]){ "username", NULL },
	.open = ec2_open,
	.close = ec2_close,
	.net_create = ec2_net_create,
	.net_destroy = ec2_net_destroy,
	.vm_create = ec2_vm_create,
	.vm_update = ec2_vm_update,
	.vm_stop = ec2_vm_stop,
	.vm_start = ec2_vm_start,
	.vm_reboot = ec2_vm_reboot,
	.vm_alter = ec2_vm_alter,
	.vm_destroy = ec2_vm_destroy,
	.cleanup_infra = ec2_cleanup_infra,
};
