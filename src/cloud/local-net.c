/* local-net.c: the networks of the local backend. In netns mode a RADL
 * network is a Linux bridge "imcTAG-HHH" holding a private subnet taken from
 * a pool (IMC_LOCAL_POOL, default 10.213.0.0/16) that collides with no route
 * of the machine; the host has address .1 on it (so imc can reach the VMs)
 * and forwarding is off on every bridge (VMs see each other only through
 * the networks they share, and nothing is routed off the machine). Each VM
 * is a namespace with one veth per NIC. In rootless mode a network is a
 * /24 of loopback addresses, claimed in a file under the run directory.
 *
 * Every change goes through iproute2 (`ip -batch`, argv arrays, never a
 * shell); subnets are allocated under a machine-wide lock. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define DEFAULT_POOL "10.213.0.0/16"
#define DEFAULT_ROOTLESS_POOL "127.213.0.0/16"

struct prefix {
	uint32_t base;
	int prefix;
};

static uint32_t mask_of(int p)
{
	return p == 0 ? 0 : 0xffffffffu << (32 - p);
}

static bool overlaps(uint32_t b1, int p1, uint32_t b2, int p2)
{
	int p = p1 < p2 ? p1 : p2;
	return (b1 & mask_of(p)) == (b2 & mask_of(p));
}

static bool path_exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

static char *read_small(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 4096);
	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	char *s = strbuf_detach(&sb);
	s[strcspn(s, "\n")] = '\0';
	return s;
}

static char *net_file(const struct local_ctx *c, const char *name)
{
	return xasprintf("%s/net-%s", c->local_dir, name);
}

static char *alias_of(const struct local_ctx *c, const char *name)
{
	return xasprintf("imc:%s:%s", c->s->infra_id, name);
}

/* The bridge's IPv4 subnet (its host address is base + 1). */
static int bridge_subnet(const char *br, uint32_t *base, int *prefix)
{
	struct ifaddrs *ifa = NULL, *i;
	int ret = -1;
	if (getifaddrs(&ifa) < 0)
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || strcmp(i->ifa_name, br))
			continue;
		uint32_t a = ntohl(((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr);
		uint32_t m = i->ifa_netmask
			? ntohl(((struct sockaddr_in *)(void *)i->ifa_netmask)->sin_addr.s_addr)
			: 0xffffffffu;
		int p = 0;
		while (p < 32 && (m & (0x80000000u >> p)))
			p++;
		*base = a & mask_of(p);
		*prefix = p;
		ret = 0;
		break;
	}
	freeifaddrs(ifa);
	return ret;
}

/* Reads net-NAME: "public 0|1" and "subnet A.B.C.D/P" lines. */
static int read_net_file(const struct local_ctx *c, const char *name, bool *public,
			 uint32_t *base, int *prefix)
{
	char *path = net_file(c, name);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 4096);
	int r = strbuf_read_file(&sb, path);
	free(path);
	if (r < 0) {
		strbuf_release(&sb);
		return -1;
	}
	int found = 0;
	for (char *line = sb.buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, "public ", 7)) {
			*public = line[7] == '1';
			found |= 1;
		} else if (!strncmp(line, "subnet ", 7) && base) {
			if (local_parse_cidr(line + 7, base, prefix) == 0)
				found |= 2;
		}
		line = nl ? nl + 1 : NULL;
	}
	strbuf_release(&sb);
	return found & 1 ? found : -1;
}

static int write_net_file(const struct local_ctx *c, const char *name, bool public,
			  uint32_t base, int prefix, struct diag *d)
{
	char *path = net_file(c, name);
	char *ip = local_ip_str(base);
	char *txt = xasprintf("public %d\nsubnet %s/%d\n", public ? 1 : 0, ip, prefix);
	int r = local_write_file(path, txt, strlen(txt), 0600, d);
	free(txt);
	free(ip);
	free(path);
	return r;
}

int local_net_lookup(struct local_ctx *c, const char *name, struct local_net *out)
{
	memset(out, 0, sizeof(*out));
	bool public = false;
	uint32_t base = 0;
	int prefix = 0;
	int have = read_net_file(c, name, &public, &base, &prefix);
	if (c->mode == LOCAL_ROOTLESS) {
		if (have < 0 || !(have & 2))
			return -1;
		out->name = xstrdup(name);
		out->public = public;
		out->base = base;
		out->prefix = prefix;
		return 0;
	}
	char *alias = alias_of(c, name);
	char pfx[LOCAL_IFNAMSIZ];
	snprintf(pfx, sizeof(pfx), "imc%s-", c->tag);
	DIR *dir = opendir("/sys/class/net");
	struct dirent *de;
	int ret = -1;
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, pfx, strlen(pfx)))
			continue;
		char *ap = xasprintf("/sys/class/net/%s/ifalias", de->d_name);
		char *a = read_small(ap);
		free(ap);
		if (a && !strcmp(a, alias) &&
		    bridge_subnet(de->d_name, &out->base, &out->prefix) == 0) {
			snprintf(out->bridge, sizeof(out->bridge), "%.15s", de->d_name);
			out->name = xstrdup(name);
			out->public = have >= 0 && public;
			ret = 0;
		}
		free(a);
		if (ret == 0)
			break;
	}
	if (dir)
		closedir(dir);
	free(alias);
	return ret;
}

void local_net_release(struct local_net *n)
{
	if (n) {
		free(n->name);
		n->name = NULL;
	}
}

/* Every IPv4 prefix the machine routes or owns (any table). */
static size_t used_prefixes(struct prefix **out, struct diag *d)
{
	static const char *const types[] = { "unicast", "local", "broadcast", "multicast",
					     "throw", "unreachable", "prohibit", "blackhole",
					     "nat", "anycast", NULL };
	const char *argv[] = { "ip", "-o", "-4", "route", "show", "table", "all", NULL };
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0, alloc = 0;
	*out = NULL;
	strbuf_init(&sb, 8 << 20);
	if (local_run(argv, NULL, &sb, d) < 0) {
		strbuf_release(&sb);
		return (size_t)-1;
	}
	for (char *line = sb.buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char tok[64] = "";
		char tok2[64] = "";
		if (sscanf(line, "%63s %63s", tok, tok2) >= 1) {
			const char *dst = tok;
			for (size_t i = 0; types[i]; i++)
				if (!strcmp(tok, types[i]))
					dst = tok2;
			uint32_t b;
			int p;
			if (strcmp(dst, "default") && local_parse_cidr(dst, &b, &p) == 0) {
				if (n == alloc) {
					alloc = alloc ? alloc * 2 : 32;
					*out = xreallocarray(*out, alloc, sizeof(**out));
				}
				(*out)[n].base = b;
				(*out)[n].prefix = p;
				n++;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	strbuf_release(&sb);
	return n;
}

/* Claims of rootless subnets: files run_dir/claim-A.B.C.D holding
 * "INFRA_ID NET INFRA_DIR"; a claim whose INFRA_DIR is gone is stale. */
static size_t rootless_claims(const struct local_ctx *c, struct prefix **out)
{
	size_t n = 0, alloc = 0;
	*out = NULL;
	DIR *dir = opendir(c->run_dir);
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, "claim-", 6))
			continue;
		char *p = xasprintf("%s/%s", c->run_dir, de->d_name);
		char *txt = read_small(p);
		char idir[4096] = "";
		bool stale = !txt || sscanf(txt, "%*s %*s %4095s", idir) != 1 ||
			     !path_exists(idir);
		uint32_t b;
		int pr;
		if (stale) {
			unlink(p);
		} else if (local_parse_cidr(de->d_name + 6, &b, &pr) == 0) {
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 32;
				*out = xreallocarray(*out, alloc, sizeof(**out));
			}
			(*out)[n].base = b;
			(*out)[n].prefix = 24;
			n++;
		}
		free(txt);
		free(p);
	}
	if (dir)
		closedir(dir);
	return n;
}

bool local_is_private(uint32_t b, int p)
{
	return (p >= 8 && (b & mask_of(8)) == 0x0a000000u) ||
	       (p >= 12 && (b & mask_of(12)) == 0xac100000u) ||
	       (p >= 16 && (b & mask_of(16)) == 0xc0a80000u);
}

static int allocate_subnet(struct local_ctx *c, const char *cidr, uint32_t *base,
			   int *prefix, struct diag *d)
{
	struct prefix *used = NULL;
	size_t nused;
	const char *pool;
	if (c->mode == LOCAL_ROOTLESS) {
		nused = rootless_claims(c, &used);
		pool = getenv("IMC_LOCAL_ROOTLESS_POOL");
		if (!pool || !*pool)
			pool = DEFAULT_ROOTLESS_POOL;
	} else {
		nused = used_prefixes(&used, d);
		if (nused == (size_t)-1)
			return -1;
		pool = getenv("IMC_LOCAL_POOL");
		if (!pool || !*pool)
			pool = DEFAULT_POOL;
	}
	int ret = -1;
	uint32_t pb;
	int pp;
	if (c->mode == LOCAL_NETNS && cidr && *cidr) {
		uint32_t rb;
		int rp;
		bool free_ = local_parse_cidr(cidr, &rb, &rp) == 0 && rp >= 16 && rp <= 29 &&
			     local_is_private(rb, rp);
		for (size_t i = 0; free_ && i < nused; i++)
			if (overlaps(rb, rp, used[i].base, used[i].prefix))
				free_ = false;
		if (free_) {
			*base = rb;
			*prefix = rp;
			ret = 0;
			goto out;
		}
		log_warn(LOCAL_LOG, "requested cidr '%s' is not a free private subnet here: "
			 "taking one from the pool", cidr);
	}
	if (local_parse_cidr(pool, &pb, &pp) < 0 || pp > 30 ||
	    (c->mode == LOCAL_NETNS && !local_is_private(pb, pp)) ||
	    (c->mode == LOCAL_ROOTLESS && (pb >> 24) != 127)) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "invalid address pool '%s' (want a %s CIDR)",
			   pool, c->mode == LOCAL_NETNS ? "private (RFC 1918)" : "127.0.0.0/8");
		goto out;
	}
	int sp = pp > 24 ? pp : 24;
	uint64_t count = (uint64_t)1 << (sp - pp);
	for (uint64_t k = 0; k < count; k++) {
		uint32_t cand = pb + (uint32_t)(k << (32 - sp));
		bool ok = !(c->mode == LOCAL_ROOTLESS && cand == 0x7f000000u);
		for (size_t i = 0; ok && i < nused; i++)
			if (overlaps(cand, sp, used[i].base, used[i].prefix))
				ok = false;
		if (ok) {
			*base = cand;
			*prefix = sp;
			ret = 0;
			goto out;
		}
	}
	diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
		   "no free /%d subnet left in the address pool '%s'", sp, pool);
out:
	free(used);
	return ret;
}

static int create_bridge(struct local_ctx *c, const char *name, uint32_t base, int prefix,
			 char br[LOCAL_IFNAMSIZ], struct diag *d)
{
	unsigned h = local_hash(name);
	for (unsigned k = 0;; k++) {
		if (k == 4096) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "no free bridge name for network '%s'",
				   name);
			return -1;
		}
		local_bridge_name(c->tag, h + k, br);
		char *p = xasprintf("/sys/class/net/%s", br);
		bool taken = path_exists(p);
		free(p);
		if (!taken)
			break;
	}
	char *alias = alias_of(c, name);
	char *host = local_ip_str(base + 1);
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "link add %s type bridge\n", br);
	strbuf_addf(&b, "link set dev %s alias %s\n", br, alias);
	strbuf_addf(&b, "addr add %s/%d dev %s\n", host, prefix, br);
	strbuf_addf(&b, "link set dev %s up\n", br);
	const char *argv[] = { "ip", "-batch", "-", NULL };
	int r = local_run(argv, b.buf, NULL, d);
	strbuf_release(&b);
	free(alias);
	free(host);
	if (r < 0) {
		const char *del[] = { "ip", "link", "del", br, NULL };
		struct diag tmp = DIAG_INIT;
		local_run(del, NULL, NULL, &tmp);
		diag_release(&tmp);
		return -1;
	}
	/* no forwarding from this bridge: nothing leaves the network */
	char *fw = xasprintf("/proc/sys/net/ipv4/conf/%s/forwarding", br);
	struct diag tmp = DIAG_INIT;
	if (local_rewrite_file(fw, "0\n", 2, &tmp) < 0)
		log_warn(LOCAL_LOG, "cannot turn forwarding off on '%s'", br);
	diag_release(&tmp);
	free(fw);
	return 0;
}

int local_net_ensure(struct local_ctx *c, const char *name, const bool *public,
		     const char *cidr, struct local_net *out, struct diag *d)
{
	if (!local_valid_word(name, 64)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "network name '%s' is not usable by the local cloud (letters, digits, '-', '_', '.')",
			   name ? name : "");
		return -1;
	}
	char *lockp = xasprintf("%s/lock", c->run_dir);
	int lk = local_lock(lockp, d);
	free(lockp);
	if (lk < 0)
		return -1;
	int ret = -1;
	bool pub = false;
	uint32_t b;
	int p;
	if (local_net_lookup(c, name, out) == 0) {
		if (public && *public != out->public) {
			out->public = *public;
			write_net_file(c, name, *public, out->base, out->prefix, d);
		}
		ret = 0;
		goto out;
	}
	if (public)
		pub = *public;
	else
		read_net_file(c, name, &pub, NULL, NULL);
	if (allocate_subnet(c, cidr, &b, &p, d) < 0)
		goto out;
	memset(out, 0, sizeof(*out));
	if (c->mode == LOCAL_NETNS) {
		if (create_bridge(c, name, b, p, out->bridge, d) < 0)
			goto out;
	} else {
		char *ip = local_ip_str(b);
		char *claim = xasprintf("%s/claim-%s", c->run_dir, ip);
		char *txt = xasprintf("%s %s %s\n", c->s->infra_id, name, c->infra_dir);
		int r = local_write_file(claim, txt, strlen(txt), 0600, d);
		free(ip);
		free(claim);
		free(txt);
		if (r < 0)
			goto out;
	}
	if (write_net_file(c, name, pub, b, p, d) < 0)
		goto out;
	out->name = xstrdup(name);
	out->public = pub;
	out->base = b;
	out->prefix = p;
	{
		char *ip = local_ip_str(b);
		log_info(LOCAL_LOG, "network '%s' on %s, subnet %s/%d", name,
			 out->bridge[0] ? out->bridge : "loopback", ip, p);
		free(ip);
	}
	ret = 0;
out:
	local_unlock(lk);
	return ret;
}

static bool link_exists(const char *name)
{
	char *p = xasprintf("/sys/class/net/%s", name);
	bool r = path_exists(p);
	free(p);
	return r;
}

static bool netns_exists(const char *name)
{
	char *p = xasprintf("/run/netns/%s", name);
	bool r = path_exists(p);
	free(p);
	return r;
}

/* true when link is attached to bridge br */
static bool link_master_is(const char *link, const char *br)
{
	char *p = xasprintf("/sys/class/net/%s/master", link);
	char buf[256];
	ssize_t n = readlink(p, buf, sizeof(buf) - 1);
	free(p);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	const char *slash = strrchr(buf, '/');
	return slash && !strcmp(slash + 1, br);
}

int local_net_plumb(struct local_ctx *c, struct local_vm *vms, size_t n, bool *failed,
		    struct diag *d)
{
	struct strbuf b = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		struct local_vm *vm = &vms[i];
		if (!netns_exists(vm->netns))
			strbuf_addf(&b, "netns add %s\n", vm->netns);
		for (size_t k = 0; k < vm->nnics; k++) {
			struct local_nic *nic = &vm->nics[k];
			if (!link_exists(nic->veth))
				strbuf_addf(&b, "link add %s type veth peer name eth%d netns %s\n",
					    nic->veth, nic->index, vm->netns);
			strbuf_addf(&b, "link set dev %s master %s up\n", nic->veth, nic->bridge);
		}
	}
	const char *argv[] = { "ip", "-force", "-batch", "-", NULL };
	struct diag tmp = DIAG_INIT;
	int r = local_run(argv, b.buf ? b.buf : "", NULL, &tmp);
	strbuf_release(&b);
	/* check each VM: a failed line only fails its own VM */
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		struct local_vm *vm = &vms[i];
		bool ok = netns_exists(vm->netns);
		for (size_t k = 0; ok && k < vm->nnics; k++)
			ok = link_master_is(vm->nics[k].veth, vm->nics[k].bridge);
		if (!ok) {
			bad++;
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "cannot create the namespace or links of VM %d%s%s", vm->num,
				   r < 0 ? ": " : "", r < 0 ? diag_first_message(&tmp) : "");
			failed[i] = true;
		}
	}
	diag_release(&tmp);
	return bad ? -1 : 0;
}

int local_net_configure_vm(struct local_ctx *c, const struct local_vm *vm, struct diag *d)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_addstr(&b, "link set dev lo up\n");
	for (size_t k = 0; k < vm->nnics; k++) {
		const struct local_nic *nic = &vm->nics[k];
		strbuf_addf(&b, "addr replace %s/%d dev eth%d\n", nic->ip, nic->prefix, nic->index);
		strbuf_addf(&b, "link set dev eth%d up\n", nic->index);
	}
	const char *argv[] = { "ip", "-n", vm->netns, "-batch", "-", NULL };
	int r = local_run(argv, b.buf, NULL, d);
	strbuf_release(&b);
	return r;
}

/* Names in dir starting with prefix (malloc'd array of malloc'd names). */
static size_t list_prefixed(const char *dirpath, const char *prefix, char ***out)
{
	size_t n = 0;
	*out = NULL;
	DIR *dir = opendir(dirpath);
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		*out = xreallocarray(*out, n + 1, sizeof(**out));
		(*out)[n++] = xstrdup(de->d_name);
	}
	if (dir)
		closedir(dir);
	return n;
}

static void free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static int run_batch(const char *batch, struct diag *d)
{
	if (!batch || !*batch)
		return 0;
	const char *argv[] = { "ip", "-force", "-batch", "-", NULL };
	return local_run(argv, batch, NULL, d);
}

int local_net_remove_vm(struct local_ctx *c, int num, struct diag *d)
{
	char pfx[LOCAL_IFNAMSIZ];
	local_veth_prefix(c->tag, num, pfx);
	char **links;
	size_t nl = list_prefixed("/sys/class/net", pfx, &links);
	struct strbuf b = STRBUF_INIT;
	for (size_t i = 0; i < nl; i++)
		if (strlen(links[i]) == strlen(pfx) + 1)
			strbuf_addf(&b, "link del %s\n", links[i]);
	char *ns = local_netns_name(c->tag, num);
	if (netns_exists(ns))
		strbuf_addf(&b, "netns del %s\n", ns);
	struct diag tmp = DIAG_INIT;
	run_batch(b.buf, &tmp);
	strbuf_release(&b);
	free_list(links, nl);
	int ret = 0;
	if (netns_exists(ns)) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot delete namespace '%s': %s", ns,
			   diag_first_message(&tmp));
		ret = -1;
	}
	nl = list_prefixed("/sys/class/net", pfx, &links);
	for (size_t i = 0; i < nl; i++)
		if (strlen(links[i]) == strlen(pfx) + 1) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot delete link '%s'", links[i]);
			ret = -1;
		}
	free_list(links, nl);
	diag_release(&tmp);
	free(ns);
	return ret;
}

static bool bridge_empty(const char *br)
{
	char *p = xasprintf("/sys/class/net/%s/brif", br);
	char **l;
	size_t n = list_prefixed(p, "", &l);
	size_t real = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i], ".") && strcmp(l[i], ".."))
			real++;
	free_list(l, n);
	free(p);
	return real == 0;
}

int local_net_gc(struct local_ctx *c, bool all, struct diag *d)
{
	if (c->mode == LOCAL_ROOTLESS && !all)
		return 0;
	char pfx[LOCAL_IFNAMSIZ];
	snprintf(pfx, sizeof(pfx), "imc%s-", c->tag);
	char *lockp = xasprintf("%s/lock", c->run_dir);
	int lk = local_lock(lockp, d);
	free(lockp);
	if (lk < 0)
		return -1;
	char **brs;
	size_t nb = list_prefixed("/sys/class/net", pfx, &brs);
	struct strbuf b = STRBUF_INIT;
	for (size_t i = 0; i < nb; i++)
		if (all || bridge_empty(brs[i])) {
			log_info(LOCAL_LOG, "removing bridge '%s'", brs[i]);
			strbuf_addf(&b, "link del %s\n", brs[i]);
		}
	int r = run_batch(b.buf, d);
	strbuf_release(&b);
	for (size_t i = 0; i < nb; i++)
		if ((all || !link_exists(brs[i]) || bridge_empty(brs[i])) && link_exists(brs[i])) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot delete bridge '%s'", brs[i]);
			r = -1;
		}
	free_list(brs, nb);
	local_unlock(lk);
	return r;
}

static size_t netns_procs(void *netns, pid_t **pids)
{
	return local_netns_pids(netns, pids);
}

int local_net_cleanup(struct local_ctx *c, struct diag *d)
{
	char nspfx[64];
	snprintf(nspfx, sizeof(nspfx), "imc-%s-", c->tag);
	char **nss;
	size_t nn = list_prefixed("/run/netns", nspfx, &nss);
	int ret = 0;
	for (size_t i = 0; i < nn; i++)
		if (local_end_all(netns_procs, nss[i]) < 0) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "processes of namespace '%s' survive SIGKILL", nss[i]);
			ret = -1;
		}
	char lpfx[LOCAL_IFNAMSIZ];
	snprintf(lpfx, sizeof(lpfx), "imc%s", c->tag);
	char **links;
	size_t nl = list_prefixed("/sys/class/net", lpfx, &links);
	struct strbuf b = STRBUF_INIT;
	/* veths first, then bridges, then namespaces */
	for (size_t i = 0; i < nl; i++)
		if (!strchr(links[i] + strlen(lpfx), '-'))
			strbuf_addf(&b, "link del %s\n", links[i]);
	for (size_t i = 0; i < nl; i++)
		if (strchr(links[i] + strlen(lpfx), '-'))
			strbuf_addf(&b, "link del %s\n", links[i]);
	for (size_t i = 0; i < nn; i++)
		strbuf_addf(&b, "netns del %s\n", nss[i]);
	struct diag tmp = DIAG_INIT;
	run_batch(b.buf, &tmp);
	strbuf_release(&b);
	free_list(links, nl);
	for (size_t i = 0; i < nn; i++) {
		if (netns_exists(nss[i])) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot delete namespace '%s'",
				   nss[i]);
			ret = -1;
		}
		char *etc = xasprintf("/etc/netns/%s", nss[i]);
		if (local_rmtree(etc) < 0) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot remove '%s'", etc);
			ret = -1;
		}
		free(etc);
	}
	free_list(nss, nn);
	/* /etc/netns entries whose namespace was never created */
	char **etcs;
	size_t ne = list_prefixed("/etc/netns", nspfx, &etcs);
	for (size_t i = 0; i < ne; i++) {
		char *etc = xasprintf("/etc/netns/%s", etcs[i]);
		if (local_rmtree(etc) < 0) {
			diag_error(d, IMC_EXIT_IOERR, NULL, "cannot remove '%s'", etc);
			ret = -1;
		}
		free(etc);
	}
	free_list(etcs, ne);
	nl = list_prefixed("/sys/class/net", lpfx, &links);
	for (size_t i = 0; i < nl; i++) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot delete link '%s'", links[i]);
		ret = -1;
	}
	free_list(links, nl);
	/* rootless claims of this infrastructure */
	char **claims;
	size_t ncl = list_prefixed(c->run_dir, "claim-", &claims);
	for (size_t i = 0; i < ncl; i++) {
		char *p = xasprintf("%s/%s", c->run_dir, claims[i]);
		char *txt = read_small(p);
		if (txt && !strncmp(txt, c->s->infra_id, strlen(c->s->infra_id)) &&
		    txt[strlen(c->s->infra_id)] == ' ')
			unlink(p);
		free(txt);
		free(p);
	}
	free_list(claims, ncl);
	diag_release(&tmp);
	return ret;
}

int local_net_destroy(struct local_ctx *c, const char *name, struct diag *d)
{
	if (!local_valid_word(name, 64))
		return 0; /* never created */
	struct local_net net;
	int ret = 0;
	if (local_net_lookup(c, name, &net) == 0) {
		if (net.bridge[0]) {
			char *s = xasprintf("link del %s\n", net.bridge);
			ret = run_batch(s, d);
			free(s);
		} else {
			char *ip = local_ip_str(net.base);
			char *claim = xasprintf("%s/claim-%s", c->run_dir, ip);
			unlink(claim);
			free(claim);
			free(ip);
		}
		local_net_release(&net);
	}
	char *f = net_file(c, name);
	unlink(f);
	free(f);
	return ret;
}
