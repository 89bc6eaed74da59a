/* docker-net.c: the Docker backend's networks. A RADL network is a
 * user-defined bridge network "imc-INFRA-NAME", labelled with the
 * infrastructure id, holding a /24 taken from a private pool
 * (IMC_DOCKER_POOL, default 10.214.0.0/16, apart from the local cloud's
 * 10.213.0.0/16 so that the two never race for one subnet) that collides
 * with no route of this machine. The RADL 'cidr' is used when it is a free
 * private subnet. Candidates are tried in order under a machine-wide lock
 * (two daemons on one machine know nothing of each other's networks); the
 * daemon's own refusal of an overlapping pool moves on to the next one.
 * Creating a network that exists (a retried create) reuses it. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/docker.h"
#include "cloud/local.h"
#include "util/log.h"
#include "cloud/names.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define DEFAULT_POOL "10.214.0.0/16"
#define LOCK_PATH "/run/lock/imc-docker-net.lock"

struct route {
	uint32_t base, mask;
};

static uint32_t mask_of(int p)
{
	return p == 0 ? 0 : 0xffffffffu << (32 - p);
}

/* The IPv4 routes of the main table (/proc/net/route: hex, host order
 * of the kernel, i.e. little endian words as read). */
static size_t host_routes(struct route **out)
{
	FILE *fp = fopen("/proc/net/route", "re");
	char line[512];
	size_t n = 0;
	*out = NULL;
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		char ifname[64];
		unsigned dst, gw, flags, refcnt, use, metric, mask;
		if (sscanf(line, "%63s %x %x %x %u %u %u %x", ifname, &dst, &gw, &flags, &refcnt, &use,
			   &metric, &mask) != 8 || mask == 0)
			continue;
		*out = xreallocarray(*out, n + 1, sizeof(**out));
		(*out)[n].base = ntohl(dst);
		(*out)[n].mask = ntohl(mask);
		n++;
	}
	fclose(fp);
	return n;
}

static bool routed(const struct route *r, size_t n, uint32_t base, int prefix)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t m = r[i].mask & mask_of(prefix);
		if ((r[i].base & m) == (base & m))
			return true;
	}
	return false;
}

/* The network's subnet as the daemon has it ("IPAM.Config[0].Subnet"). */
static const char *subnet_of(json_t *net)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(
		json_object_get(net, "IPAM"), "Config"), 0), "Subnet"));
}

/* Sets net's ids from an existing network (a retried create). */
static int adopt(struct cloud_net *net, json_t *j)
{
	const char *id = json_string_value(json_object_get(j, "Id"));
	const char *sub = subnet_of(j);
	if (!id)
		return -1;
	free(net->cloud_id);
	net->cloud_id = xstrdup(id);
	free(net->cidr_assigned);
	net->cidr_assigned = sub ? xstrdup(sub) : NULL;
	return 0;
}

/* Tries one subnet: 1 taken (try another), 0 made, -1 error. */
static int try_create(struct docker_conn *c, const char *infra_id, struct cloud_net *net,
		      const char *name, uint32_t base, int prefix, struct diag *d)
{
	char *sub_ip = local_ip_str(base), *gw = local_ip_str(base + 1);
	char *subnet = xasprintf("%s/%d", sub_ip, prefix);
	struct docker_reply r;
	json_t *body = json_pack("{s:s, s:s, s:b, s:{s:[{s:s, s:s}]}, s:{s:s, s:s, s:s}}",
				 "Name", name, "Driver", "bridge", "CheckDuplicate", 1,
				 "IPAM", "Config", "Subnet", subnet, "Gateway", gw,
				 "Labels", DOCKER_LABEL_INFRA, infra_id, DOCKER_LABEL_NET, net->name,
				 "org.imc.public", net->public ? "yes" : "no");
	int ret = -1;
	if (docker_call(c, "POST", "/networks/create", body, &r, d) < 0)
		goto out;
	if (r.status == 201 || r.status == 200) {
		free(net->cloud_id);
		net->cloud_id = xstrdup(json_string_value(json_object_get(r.json, "Id")) ?
					json_string_value(json_object_get(r.json, "Id")) : name);
		free(net->cidr_assigned);
		net->cidr_assigned = xstrdup(subnet);
		ret = 0;
	} else if (r.status == 403 && r.message && strstr(r.message, "overlaps")) {
		log_debug(DOCKER_LOG, "subnet %s is the daemon's already: next", subnet);
		ret = 1;
	} else {
		docker_reply_diag(c, &r, "create the network", d);
	}
	docker_reply_release(&r);
out:
	json_decref(body);
	free(subnet);
	free(sub_ip);
	free(gw);
	return ret;
}

int docker_net_create(struct docker_conn *c, const char *infra_id, struct cloud_net *net,
		      struct diag *d)
{
	char *name = cloud_name_net(infra_id, net->name);
	char *path = xasprintf("/networks/%s", name);
	struct route *routes = NULL;
	struct docker_reply r;
	int lock = -1, ret = -1;

	if (docker_call(c, "GET", path, NULL, &r, d) < 0)
		goto out;
	if (r.status == 200 && adopt(net, r.json) == 0) {
		log_debug(DOCKER_LOG, "network %s exists: reused", name);
		docker_reply_release(&r);
		ret = 0;
		goto out;
	}
	docker_reply_release(&r);

	const char *pool = getenv("IMC_DOCKER_POOL");
	uint32_t pb;
	int pp;
	if (!pool || !*pool)
		pool = DEFAULT_POOL;
	if (local_parse_cidr(pool, &pb, &pp) < 0 || pp > 24 || !local_is_private(pb, pp)) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "docker: invalid address pool '%s' (want a private (RFC 1918) CIDR of /24 or larger)",
			   pool);
		goto out;
	}
	struct diag ld = DIAG_INIT;
	lock = local_lock(LOCK_PATH, &ld);
	if (lock < 0)
		log_warn(DOCKER_LOG, "%s: subnets are chosen without the machine-wide lock",
			 diag_first_message(&ld));
	diag_release(&ld);
	size_t nroutes = host_routes(&routes);

	uint32_t rb;
	int rp;
	if (net->cidr && *net->cidr) {
		if (local_parse_cidr(net->cidr, &rb, &rp) == 0 && rp >= 16 && rp <= 29 &&
		    local_is_private(rb, rp) && !routed(routes, nroutes, rb, rp)) {
			ret = try_create(c, infra_id, net, name, rb & mask_of(rp), rp, d);
			if (ret <= 0)
				goto out;
		}
		log_warn(DOCKER_LOG, "requested cidr '%s' is not a free private subnet here: "
			 "taking one from the pool", net->cidr);
	}
	for (uint64_t k = 0; k < ((uint64_t)1 << (24 - pp)); k++) {
		uint32_t cand = (pb & mask_of(pp)) + (uint32_t)(k << 8);
		if (routed(routes, nroutes, cand, 24))
			continue;
		ret = try_create(c, infra_id, net, name, cand, 24, d);
		if (ret <= 0)
			goto out;
	}
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "docker: no free /24 subnet left in the address pool '%s'",
		   pool);
	ret = -1;
out:
	local_unlock(lock);
	free(routes);
	free(path);
	free(name);
	return ret;
}

int docker_net_remove(struct docker_conn *c, const char *name, struct diag *d)
{
	struct strbuf path = STRBUF_INIT;
	struct docker_reply r;
	int ret = -1;
	strbuf_addstr(&path, "/networks/");
	docker_escape(&path, name);
	if (docker_call(c, "DELETE", strbuf_str(&path), NULL, &r, d) < 0)
		goto out;
	if (r.status != 204 && r.status != 200 && r.status != 404) {
		docker_reply_diag(c, &r, "remove the network", d);
		docker_reply_release(&r);
		goto out;
	}
	docker_reply_release(&r);
	/* gone means the daemon no longer has it */
	if (docker_call(c, "GET", strbuf_str(&path), NULL, &r, d) < 0)
		goto out;
	if (r.status == 404)
		ret = 0;
	else
		diag_error(d, IMC_EXIT_FAILED, NULL, "docker (%s): network %s is still there after removal",
			   c->where, name);
	docker_reply_release(&r);
out:
	strbuf_release(&path);
	return ret;
}
