/* local-vmfile.c: what the local backend remembers of each VM, in
 * $IMC_HOME/infra/ID/vm/NUM/info (one "key value..." line per item, every
 * value a validated word), and the /etc/hosts each VM gets: every VM's
 * dns names mapped to its address on a network the two share, so that a
 * name resolves to the address that VM can actually reach. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cloud/local.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static char *dash_null(const char *s)
{
	return strcmp(s, "-") ? xstrdup(s) : NULL;
}

int local_vm_save(const struct local_vm *vm, struct diag *d)
{
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "num %d\n", vm->num);
	strbuf_addf(&b, "mode %s\n", vm->mode == LOCAL_NETNS ? "netns" : "rootless");
	strbuf_addf(&b, "netns %s\n", or_dash(vm->netns));
	strbuf_addf(&b, "host %s %s\n", or_dash(vm->hostname), or_dash(vm->domain));
	strbuf_addf(&b, "user %s\n", or_dash(vm->user));
	strbuf_addf(&b, "port %d\n", vm->port);
	strbuf_addf(&b, "limits %d %lld\n", vm->cpus, vm->memory);
	for (size_t k = 0; k < vm->nnics; k++) {
		const struct local_nic *n = &vm->nics[k];
		strbuf_addf(&b, "nic %d %s %s %d %s %s %s %s %d\n", n->index, n->net, n->ip,
			    n->prefix, or_dash(n->host), or_dash(n->domain), or_dash(n->bridge),
			    or_dash(n->veth), n->public ? 1 : 0);
	}
	char *path = xasprintf("%s/info", vm->dir);
	int r = local_write_file(path, b.buf, b.len, 0600, d);
	free(path);
	strbuf_release(&b);
	return r;
}

int local_vm_load(const char *dir, struct local_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	char *path = xasprintf("%s/info", dir);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 1 << 20);
	int r = strbuf_read_file(&sb, path);
	free(path);
	if (r < 0 || !sb.buf) {
		strbuf_release(&sb);
		return -1;
	}
	vm->dir = xstrdup(dir);
	vm->num = -1;
	for (char *line = sb.buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char a[256], b[256], c3[256], e[256], f[256], g[256], h[256];
		int i1, i2, i3;
		long long ll;
		if (sscanf(line, "num %d", &i1) == 1) {
			vm->num = i1;
		} else if (sscanf(line, "mode %255s", a) == 1) {
			vm->mode = strcmp(a, "rootless") ? LOCAL_NETNS : LOCAL_ROOTLESS;
		} else if (sscanf(line, "netns %255s", a) == 1) {
			vm->netns = dash_null(a);
		} else if (sscanf(line, "host %255s %255s", a, b) == 2) {
			vm->hostname = dash_null(a);
			vm->domain = dash_null(b);
		} else if (sscanf(line, "user %255s", a) == 1) {
			vm->user = dash_null(a);
		} else if (sscanf(line, "port %d", &i1) == 1) {
			vm->port = i1;
		} else if (sscanf(line, "limits %d %lld", &i1, &ll) == 2) {
			vm->cpus = i1;
			vm->memory = ll;
		} else if (sscanf(line, "nic %d %255s %255s %d %255s %255s %255s %255s %d", &i1, a,
				  b, &i2, c3, e, f, g, &i3) == 9) {
			vm->nics = xreallocarray(vm->nics, vm->nnics + 1, sizeof(*vm->nics));
			struct local_nic *n = &vm->nics[vm->nnics++];
			memset(n, 0, sizeof(*n));
			n->index = i1;
			n->net = xstrdup(a);
			n->ip = xstrdup(b);
			n->prefix = i2;
			n->host = dash_null(c3);
			n->domain = dash_null(e);
			snprintf(n->bridge, sizeof(n->bridge), "%.15s", strcmp(f, "-") ? f : "");
			snprintf(n->veth, sizeof(n->veth), "%.15s", strcmp(g, "-") ? g : "");
			n->public = i3 != 0;
		}
		(void)h;
		line = nl ? nl + 1 : NULL;
	}
	strbuf_release(&sb);
	return vm->num >= 0 ? 0 : -1;
}

void local_vm_release(struct local_vm *vm)
{
	if (!vm)
		return;
	for (size_t k = 0; k < vm->nnics; k++) {
		free(vm->nics[k].net);
		free(vm->nics[k].ip);
		free(vm->nics[k].host);
		free(vm->nics[k].domain);
	}
	free(vm->nics);
	free(vm->netns);
	free(vm->dir);
	free(vm->hostname);
	free(vm->domain);
	free(vm->user);
	memset(vm, 0, sizeof(*vm));
}

static int cmp_vm(const void *a, const void *b)
{
	const struct local_vm *x = a, *y = b;
	return (x->num > y->num) - (x->num < y->num);
}

size_t local_vm_load_all(const struct local_ctx *c, struct local_vm **vms)
{
	char *vmroot = xasprintf("%s/vm", c->infra_dir);
	DIR *dir = opendir(vmroot);
	size_t n = 0;
	*vms = NULL;
	struct dirent *de;
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", vmroot, de->d_name);
		struct local_vm vm;
		if (local_vm_load(p, &vm) == 0) {
			*vms = xreallocarray(*vms, n + 1, sizeof(**vms));
			(*vms)[n++] = vm;
		}
		free(p);
	}
	if (dir)
		closedir(dir);
	free(vmroot);
	if (n)
		qsort(*vms, n, sizeof(**vms), cmp_vm);
	return n;
}

char *local_hosts_path(const struct local_vm *vm)
{
	if (vm->mode == LOCAL_NETNS && vm->netns)
		return xasprintf("/etc/netns/%s/hosts", vm->netns);
	return xasprintf("%s/hosts", vm->dir);
}

static bool on_net(const struct local_vm *vm, const char *net)
{
	for (size_t k = 0; k < vm->nnics; k++)
		if (!strcmp(vm->nics[k].net, net))
			return true;
	return false;
}

struct names {
	char **v;
	size_t n;
};

static bool names_has(const struct names *ns, const char *s)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], s))
			return true;
	return false;
}

static void add_entry(struct strbuf *b, struct names *seen, const char *ip, const char *host,
		      const char *domain)
{
	if (!host || !*host)
		return;
	char *fq = domain && *domain ? xasprintf("%s.%s", host, domain) : xstrdup(host);
	if (names_has(seen, fq)) {
		free(fq);
		return;
	}
	if (domain && *domain)
		strbuf_addf(b, "%s\t%s %s\n", ip, fq, host);
	else
		strbuf_addf(b, "%s\t%s\n", ip, host);
	seen->v = xreallocarray(seen->v, seen->n + 1, sizeof(*seen->v));
	seen->v[seen->n++] = fq;
}

/* The hosts file of vm x among all n VMs. */
static void hosts_text(const struct local_vm *x, const struct local_vm *all, size_t n,
		       struct strbuf *b)
{
	struct names seen = { 0 };
	strbuf_addf(b, "# hosts of local VM %d (written by imc)\n", x->num);
	strbuf_addstr(b, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
	for (size_t i = 0; i < n; i++) {
		const struct local_vm *y = &all[i];
		/* the VM's main name: its first NIC on a network x is on */
		for (size_t k = 0; k < y->nnics; k++)
			if (on_net(x, y->nics[k].net)) {
				add_entry(b, &seen, y->nics[k].ip, y->hostname, y->domain);
				break;
			}
		/* each NIC's own dns name, on a network x shares */
		for (size_t k = 0; k < y->nnics; k++)
			if (on_net(x, y->nics[k].net))
				add_entry(b, &seen, y->nics[k].ip, y->nics[k].host,
					  y->nics[k].domain);
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.v[i]);
	free(seen.v);
}

int local_hosts_update(struct local_ctx *c, struct diag *d)
{
	struct local_vm *all;
	size_t n = local_vm_load_all(c, &all);
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		struct strbuf b = STRBUF_INIT;
		hosts_text(&all[i], all, n, &b);
		char *path = local_hosts_path(&all[i]);
		struct stat st;
		/* only where the VM's /etc/netns directory exists */
		char *dir = xstrdup(path);
		*strrchr(dir, '/') = '\0';
		if (stat(dir, &st) == 0 && local_rewrite_file(path, b.buf, b.len, d) < 0)
			ret = -1;
		free(dir);
		free(path);
		strbuf_release(&b);
	}
	for (size_t i = 0; i < n; i++)
		local_vm_release(&all[i]);
	free(all);
	return ret;
}
