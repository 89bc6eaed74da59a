/* setup.c: the `setup` module (fact gathering, the subset recipes read:
 * distribution, os family, hostname, addresses, python, pkg/service
 * manager, memory, cpus, env, devices), collected with one shell script in
 * one round trip instead of Ansible's Python payload. Its gather_subset
 * picks Ansible's fact collectors as ansible-core 2.14 does, and only the
 * facts of those collectors are returned; filter keeps the facts whose
 * names match, as Ansible's. */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char facts_script[] =
	". /etc/os-release 2>/dev/null; "
	"echo \"id=$ID\"; echo \"version_id=$VERSION_ID\"; echo \"codename=$VERSION_CODENAME\"; "
	"echo \"id_like=$ID_LIKE\"; echo \"pretty=$PRETTY_NAME\"; "
	"echo \"hostname=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)\"; "
	"echo \"fqdn=$(hostname -f 2>/dev/null || hostname)\"; "
	"echo \"arch=$(uname -m)\"; echo \"kernel=$(uname -r)\"; echo \"system=$(uname -s)\"; "
	"echo \"user=$(id -un)\"; echo \"uid=$(id -u)\"; echo \"home=$HOME\"; "
	"echo \"mem=$(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo 2>/dev/null)\"; "
	"echo \"memfree=$(awk '/MemFree/ {print int($2/1024)}' /proc/meminfo 2>/dev/null)\"; "
	"echo \"cpus=$(nproc 2>/dev/null || echo 1)\"; "
	"for m in apt-get dnf yum zypper apk; do command -v $m >/dev/null 2>&1 && { echo \"pkg=$m\"; break; }; done; "
	"if [ -d /run/systemd/system ]; then echo svc=systemd; else echo svc=$(cat /proc/1/comm 2>/dev/null); fi; "
	"p=${imc_py:-}; [ -n \"$p\" ] || for c in /usr/bin/python3 python3.11 python3.10 python3.9 python3.8 python3.7 "
	"python3.6 python3.5 /usr/libexec/platform-python python2.7 /usr/bin/python python; do "
	"p=$(command -v \"$c\" 2>/dev/null) && break; done; [ -n \"$p\" ] && echo \"py=$($p -c 'import sys; v = sys.version_info; i = getattr(sys, \"implementation\", None); "
	"print(\"%d.%d.%d %s %d %s %d %s\" % (v[0], v[1], v[2], v[3], v[4], i.name if i else \"cpython\", "
	"hasattr(__import__(\"ssl\"), \"SSLContext\"), sys.executable))' 2>/dev/null)\"; "
	"echo \"ip4=$(ip -4 -o addr show scope global 2>/dev/null | awk '{split($4,a,\"/\"); printf \"%s \", a[1]}')\"; "
	"echo \"defif=$(ip -4 route show default 2>/dev/null | awk '{print $5; exit}')\"; "
	"echo \"devs=$(ls /sys/block 2>/dev/null | tr '\\n' ' ')\"; "
	"echo \"fips=$(cat /proc/sys/crypto/fips_enabled 2>/dev/null)\"; "
	"[ -e /sys/kernel/security/apparmor ] && echo apparmor=enabled || echo apparmor=disabled; "
	"echo ENV; env";

static json_t *kv(const char *out, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = out; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, "\n");
			return json_stringn(p + kl + 1, n);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
		if (p && !strncmp(p, "ENV\n", 4))
			break;
	}
	return json_string("");
}

static const char *family_of(const char *id, const char *like)
{
	static const struct { const char *id, *fam; } map[] = {
		{ "debian", "Debian" }, { "ubuntu", "Debian" }, { "raspbian", "Debian" },
		{ "centos", "RedHat" }, { "rhel", "RedHat" }, { "fedora", "RedHat" },
		{ "rocky", "RedHat" }, { "almalinux", "RedHat" }, { "amzn", "RedHat" },
		{ "ol", "RedHat" }, { "opensuse-leap", "Suse" }, { "sles", "Suse" },
		{ "alpine", "Alpine" }, { "arch", "Archlinux" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(id, map[i].id))
			return map[i].fam;
	if (strstr(like, "debian"))
		return "Debian";
	if (strstr(like, "rhel") || strstr(like, "fedora"))
		return "RedHat";
	return "Linux";
}

static const char *dist_name(const char *id)
{
	static const struct { const char *id, *name; } map[] = {
		{ "debian", "Debian" }, { "ubuntu", "Ubuntu" }, { "centos", "CentOS" },
		{ "rhel", "RedHat" }, { "fedora", "Fedora" }, { "rocky", "Rocky" },
		{ "almalinux", "AlmaLinux" }, { "amzn", "Amazon" }, { "alpine", "Alpine" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(id, map[i].id))
			return map[i].name;
	return id;
}

/* Ansible 2.14's fact collectors on Linux (find_collectors_for_platform
 * of default_collectors.collectors): each one's name, the fact ids that
 * name it too as a subset, and the collectors it requires (which
 * _solve_deps adds to any selection holding it). */
static const struct collector {
	const char *name;
	const char *ids[10];
	const char *requires[3];
} collectors[] = {
	{ "apparmor", { NULL }, { NULL } },
	{ "caps", { "system_capabilities", "system_capabilities_enforced", NULL }, { NULL } },
	{ "chroot", { "is_chroot", NULL }, { NULL } },
	{ "cmdline", { NULL }, { NULL } },
	{ "date_time", { NULL }, { NULL } },
	{ "distribution", { "distribution_major_version", "distribution_release", "distribution_version",
			    "os_family", NULL }, { NULL } },
	{ "dns", { NULL }, { NULL } },
	{ "env", { NULL }, { NULL } },
	{ "facter", { "facter", NULL }, { NULL } },
	{ "fibre_channel_wwn", { NULL }, { NULL } },
	{ "fips", { NULL }, { NULL } },
	{ "hardware", { "devices", "mounts", "processor", "processor_cores", "processor_count", NULL },
	  { "platform", NULL } },
	{ "iscsi", { NULL }, { NULL } },
	{ "loadavg", { NULL }, { NULL } },
	{ "local", { NULL }, { NULL } },
	{ "lsb", { NULL }, { NULL } },
	{ "network", { "all_ipv4_addresses", "all_ipv6_addresses", "default_ipv4", "default_ipv6",
		       "interfaces", NULL }, { "distribution", "platform", NULL } },
	{ "nvme", { NULL }, { NULL } },
	{ "ohai", { NULL }, { NULL } },
	{ "pkg_mgr", { NULL }, { "distribution", NULL } },
	{ "platform", { "architecture", "kernel", "kernel_version", "machine", "machine_id",
			"python_version", "system", NULL }, { NULL } },
	{ "python", { NULL }, { NULL } },
	{ "selinux", { NULL }, { NULL } },
	{ "service_mgr", { NULL }, { "distribution", "platform", NULL } },
	{ "ssh_pub_keys", { "ssh_host_key_dsa_public", "ssh_host_key_ecdsa_public",
			    "ssh_host_key_ed25519_public", "ssh_host_key_rsa_public", "ssh_host_pub_keys",
			    NULL }, { NULL } },
	{ "user", { "effective_group_ids", "effective_user_id", "real_user_id", "user_dir", "user_gecos",
		    "user_gid", "user_id", "user_shell", "user_uid", NULL }, { NULL } },
	{ "virtual", { "virtualization_role", "virtualization_tech_guest", "virtualization_tech_host",
		       "virtualization_type", NULL }, { NULL } },
};
#define NCOLLECTORS (sizeof(collectors) / sizeof(collectors[0]))

/* setup.py's minimal_gather_subset: gathered even under '!all' */
static const char *const minimal_subset[] = {
	"apparmor", "caps", "cmdline", "date_time", "distribution", "dns", "env", "fips", "local", "lsb",
	"pkg_mgr", "platform", "python", "selinux", "service_mgr", "ssh_pub_keys", "user", NULL,
};

/* The collector of each fact imc gathers (the one whose facts Ansible
 * returns it with, checked against its setup output per subset). */
static const struct { const char *fact, *collector; } fact_collectors[] = {
	{ "ansible_distribution", "distribution" }, { "ansible_os_family", "distribution" },
	{ "ansible_distribution_version", "distribution" },
	{ "ansible_distribution_major_version", "distribution" },
	{ "ansible_distribution_release", "distribution" },
	{ "ansible_hostname", "platform" }, { "ansible_nodename", "platform" }, { "ansible_fqdn", "platform" },
	{ "ansible_architecture", "platform" }, { "ansible_machine", "platform" },
	{ "ansible_kernel", "platform" }, { "ansible_system", "platform" },
	{ "ansible_python_version", "platform" }, { "ansible_python", "python" },
	{ "ansible_user_id", "user" }, { "ansible_user_uid", "user" }, { "ansible_user_dir", "user" },
	/* not an Ansible fact: imc's own, the remote user's name, as user_id */
	{ "ansible_user", "user" },
	{ "ansible_memtotal_mb", "hardware" }, { "ansible_memfree_mb", "hardware" },
	{ "ansible_processor_vcpus", "hardware" }, { "ansible_processor_cores", "hardware" },
	{ "ansible_devices", "hardware" },
	{ "ansible_pkg_mgr", "pkg_mgr" }, { "ansible_service_mgr", "service_mgr" },
	{ "ansible_default_ipv4", "network" }, { "ansible_all_ipv4_addresses", "network" },
	{ "ansible_env", "env" }, { "ansible_fips", "fips" }, { "ansible_apparmor", "apparmor" },
};

/* Every name a subset may be given by (the collectors' names and fact
 * ids, Ansible's all_valid_subsets), each with its collector. */
struct subset_names {
	const char *name[128];
	size_t coll[128];
	size_t n;
};

static void subset_names_init(struct subset_names *u)
{
	u->n = 0;
	for (size_t c = 0; c < NCOLLECTORS; c++) {
		u->name[u->n] = collectors[c].name;
		u->coll[u->n++] = c;
		for (const char *const *id = collectors[c].ids; *id; id++)
			if (strcmp(*id, collectors[c].name)) {
				u->name[u->n] = *id;
				u->coll[u->n++] = c;
			}
	}
}

static long subset_find(const struct subset_names *u, const char *name)
{
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->name[i], name))
			return (long)i;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Ansible's TypeError for a subset it does not know, with every valid
 * one sorted */
static char *bad_subset(const struct subset_names *u, const char *subset)
{
	const char *sorted[128];
	memcpy(sorted, u->name, u->n * sizeof(*sorted));
	qsort(sorted, u->n, sizeof(*sorted), cmp_str);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "Bad subset '%s' given to Ansible. gather_subset options allowed: all", subset);
	for (size_t i = 0; i < u->n; i++)
		strbuf_addf(&sb, ", %s", sorted[i]);
	return strbuf_detach(&sb);
}

static void add_minimal(const struct subset_names *u, bool *set)
{
	for (const char *const *m = minimal_subset; *m; m++)
		set[subset_find(u, *m)] = true;
}

/* A subset excluded ('!x'): x, and the fact ids of x when it names a
 * collector ('!hardware' covers devices...); an unknown x is nothing. */
static void exclude_subset(const struct subset_names *u, const char *x, bool *excl)
{
	long i = subset_find(u, x);
	if (i < 0)
		return;
	excl[i] = true;
	for (size_t c = 0; c < NCOLLECTORS; c++)
		if (!strcmp(collectors[c].name, x))
			for (const char *const *id = collectors[c].ids; *id; id++)
				excl[subset_find(u, *id)] = true;
}

/* The collectors a gather_subset (a list of strings) selects, as
 * Ansible's get_collector_names then _solve_deps: from the minimal set,
 * 'all' adds every subset, '!x' excludes, '!all' all but the minimal
 * set, '!min' the minimal set, and a subset named without '!' stays
 * whatever excludes it. -1 with *err (malloc'd) on an unknown subset. */
static int select_collectors(json_t *subsets, bool sel[NCOLLECTORS], char **err)
{
	struct subset_names u;
	subset_names_init(&u);
	bool add[128] = { false }, excl[128] = { false }, expl[128] = { false };
	add_minimal(&u, add);
	size_t i;
	json_t *e;
	json_array_foreach(subsets, i, e) {
		const char *s = json_string_value(e);
		if (!strcmp(s, "min")) {
			add_minimal(&u, add);
		} else if (!strcmp(s, "all")) {
			for (size_t k = 0; k < u.n; k++)
				add[k] = true;
		} else if (!strcmp(s, "!min")) {
			add_minimal(&u, excl);
		} else if (!strcmp(s, "!all")) {
			bool min[128] = { false };
			add_minimal(&u, min);
			for (size_t k = 0; k < u.n; k++)
				excl[k] |= !min[k];
		} else if (s[0] == '!') {
			exclude_subset(&u, s + 1, excl);
		} else {
			long k = subset_find(&u, s);
			if (k < 0) {
				*err = bad_subset(&u, s);
				return -1;
			}
			add[k] = expl[k] = true;
		}
	}
	memset(sel, 0, NCOLLECTORS * sizeof(*sel));
	for (size_t k = 0; k < u.n; k++)
		if (add[k] && (!excl[k] || expl[k]))
			sel[u.coll[k]] = true;
	/* the collectors the selected ones require, until none is missing */
	for (bool more = true; more;) {
		more = false;
		for (size_t c = 0; c < NCOLLECTORS; c++)
			for (const char *const *r = collectors[c].requires; sel[c] && *r; r++) {
				size_t rc = u.coll[subset_find(&u, *r)];
				more |= !sel[rc];
				sel[rc] = true;
			}
	}
	return 0;
}

/* Whether the collector of fact was selected (a fact the table lacks is
 * kept: every fact imc gathers is listed) */
static bool fact_selected(const char *fact, const bool sel[NCOLLECTORS])
{
	for (size_t i = 0; i < sizeof(fact_collectors) / sizeof(fact_collectors[0]); i++)
		if (!strcmp(fact_collectors[i].fact, fact))
			for (size_t c = 0; c < NCOLLECTORS; c++)
				if (!strcmp(collectors[c].name, fact_collectors[i].collector))
					return sel[c];
	return true;
}

/* Ansible's AnsibleFactCollector._filter of one fact name: no pattern
 * (or an empty one, or '*') keeps it; a pattern not starting with
 * ansible_ is tried with that prefix too. Python's fnmatch has no
 * escape, hence FNM_NOESCAPE. */
static bool filter_keeps(json_t *filter, const char *key)
{
	if (!json_array_size(filter))
		return true;
	size_t i;
	json_t *e;
	json_array_foreach(filter, i, e) {
		const char *f = json_string_value(e);
		if (!*f || !fnmatch(f, key, FNM_NOESCAPE))
			return true;
		if (strncmp(f, "ansible_", 8) && strncmp(f, "facter", 6) && strncmp(f, "ohai", 4)) {
			char *g = xasprintf("ansible_%s", f);
			bool m = !fnmatch(g, key, FNM_NOESCAPE);
			free(g);
			if (m)
				return true;
		}
	}
	return false;
}

/* setup's arguments as its argument spec makes them (Ansible's list and
 * int types, its defaults), for the invocation a failed implicit
 * gathering shows. A gather_subset from the play keyword (keyword) is
 * that list field's: a string is one subset, an item not a string an
 * error. NULL with *res set when imc cannot convert one as Ansible
 * would. */
static json_t *setup_params(json_t *args, bool keyword, json_t **res)
{
	json_t *gs = json_object_get(args, "gather_subset");
	json_t *filter = json_object_get(args, "filter");
	json_t *to = json_object_get(args, "gather_timeout");
	json_t *out = json_object();
	if (!gs || json_is_null(gs)) {
		json_object_set_new(out, "gather_subset", json_pack("[s]", "all"));
	} else if (keyword && json_is_string(gs)) {
		json_object_set_new(out, "gather_subset", json_pack("[O]", gs));
	} else if (json_is_array(gs) || (!keyword && (json_is_string(gs) || json_is_number(gs)))) {
		size_t j;
		json_t *g;
		json_array_foreach(gs, j, g)
			if (keyword ? !json_is_string(g) : json_is_object(g) || json_is_array(g))
				goto refuse_subset;
		json_object_set_new(out, "gather_subset", mod_list(gs));
	} else {
		goto refuse_subset;
	}
	if (json_is_object(filter) || json_is_boolean(filter)) {
		*res = res_refused("setup: unsupported parameter 'filter' of this type: imc converts a list "
				   "or a string as Ansible does, nothing else");
		goto fail;
	}
	json_t *patterns = mod_list(filter);
	json_object_set_new(out, "filter", patterns);
	size_t i;
	json_t *e;
	json_array_foreach(patterns, i, e)
		if (strstr(json_string_value(e), "[^")) {
			*res = res_refused("setup: unsupported parameter 'filter' with '[^': Python's fnmatch "
					   "reads it as a literal '^', imc's as a negation");
			goto fail;
		}
	json_int_t t = 10;
	const char *ts = json_string_value(to);
	char *end = NULL;
	if (json_is_integer(to))
		t = json_integer_value(to);
	else if (ts && *ts && (t = strtoll(ts, &end, 10), !*end))
		;
	else if (to && !json_is_null(to)) {
		*res = res_refused("setup: unsupported parameter 'gather_timeout' of this value: imc converts "
				   "an integer or a string of one, as Ansible's int type, nothing else");
		goto fail;
	}
	json_object_set_new(out, "gather_timeout", json_integer(t));
	json_object_set_new(out, "fact_path", json_string("/etc/ansible/facts.d"));
	return out;
refuse_subset:
	*res = res_refused(keyword ? "unsupported play keyword 'gather_subset' of this value: not a string or "
				  "a list of strings, which Ansible rejects before the play"
				: "setup: unsupported parameter 'gather_subset' of this type: imc converts a list, "
				  "a string or a number as Ansible's list type, nothing else");
fail:
	json_decref(out);
	return NULL;
}

/* The failure of the implicit gathering as Ansible's gather_facts action
 * reports its setup module's (params as setup_params gives them). */
static json_t *gather_failure(json_t *params, const char *msg)
{
	json_t *res = res_fail("The following modules failed to execute: ansible.legacy.setup\n");
	json_object_set_new(res, "ansible_facts", json_object());
	json_object_set_new(res, "failed_modules",
			    json_pack("{s:{s:b, s:{s:O}, s:s}}", "ansible.legacy.setup", "failed", 1,
				      "invocation", "module_args", params, "msg", msg));
	return res;
}

/* Runs the facts script on the node: the facts it gathers (every
 * collector's), or NULL with *res set when the node is unreachable. */
static json_t *gather(struct exec_ctx *x, json_t **res)
{
	struct conn_result cr;
	conn_result_init(&cr);
	/* the python facts are those of the interpreter that would run
	 * Ansible's modules: ansible_python_interpreter when the host has
	 * one or the setting gives one, else the one Ansible's discovery finds (/usr/bin/python3 on
	 * the distributions it maps, then its fallback list in order) */
	struct strbuf script = STRBUF_INIT;
	const char *interp = json_string_value(json_object_get(x->vars, "ansible_python_interpreter"));
	/* else the setting's (INTERPRETER_PYTHON, which imc play checks) */
	if (!interp)
		interp = getenv("ANSIBLE_PYTHON_INTERPRETER");
	if (interp && strncmp(interp, "auto", 4) && !strstr(interp, "{{")) {
		strbuf_addstr(&script, "imc_py=");
		sh_quote(&script, interp);
		strbuf_addstr(&script, "; ");
	}
	strbuf_addstr(&script, facts_script);
	int rc = mod_sh(x, script.buf, NULL, 0, &cr, res);
	strbuf_release(&script);
	if (rc < 0) {
		conn_result_release(&cr);
		return NULL;
	}
	const char *o = strbuf_str(&cr.out);
	json_t *f = json_object();
#define S(k) json_string_value(json_object_get(tmp, k))
	json_t *tmp = json_object();
	static const char *const keys[] = { "id", "version_id", "codename", "id_like", "hostname",
					    "fqdn", "arch", "kernel", "system", "user", "uid",
					    "home", "mem", "memfree", "cpus", "pkg", "svc", "py", "ip4", "defif", "devs",
					    "fips", "apparmor", NULL };
	for (const char *const *k = keys; *k; k++)
		json_object_set_new(tmp, *k, kv(o, *k));
	const char *id = S("id"), *ver = S("version_id");
	json_object_set_new(f, "ansible_distribution", json_string(dist_name(id)));
	json_object_set_new(f, "ansible_os_family", json_string(family_of(id, S("id_like"))));
	json_object_set_new(f, "ansible_distribution_version", json_string(ver));
	char *major = xstrndup(ver, strcspn(ver, "."));
	json_object_set_new(f, "ansible_distribution_major_version", json_string(major));
	free(major);
	json_object_set_new(f, "ansible_distribution_release", json_string(S("codename")));
	json_object_set_new(f, "ansible_hostname", json_string(S("hostname")));
	json_object_set_new(f, "ansible_nodename", json_string(S("hostname")));
	json_object_set_new(f, "ansible_fqdn", json_string(S("fqdn")));
	json_object_set_new(f, "ansible_architecture", json_string(S("arch")));
	json_object_set_new(f, "ansible_machine", json_string(S("arch")));
	json_object_set_new(f, "ansible_kernel", json_string(S("kernel")));
	json_object_set_new(f, "ansible_system", json_string(S("system")));
	json_object_set_new(f, "ansible_user_id", json_string(S("user")));
	json_object_set_new(f, "ansible_user_uid", json_integer(strtol(S("uid"), NULL, 10)));
	json_object_set_new(f, "ansible_user_dir", json_string(S("home")));
	json_object_set_new(f, "ansible_memtotal_mb", json_integer(strtol(S("mem"), NULL, 10)));
	json_object_set_new(f, "ansible_memfree_mb", json_integer(strtol(S("memfree"), NULL, 10)));
	json_object_set_new(f, "ansible_processor_vcpus", json_integer(strtol(S("cpus"), NULL, 10)));
	json_object_set_new(f, "ansible_processor_cores", json_integer(strtol(S("cpus"), NULL, 10)));
	const char *pkg = S("pkg");
	json_object_set_new(f, "ansible_pkg_mgr", json_string(!strcmp(pkg, "apt-get") ? "apt" : *pkg ? pkg : "unknown"));
	json_object_set_new(f, "ansible_service_mgr", json_string(S("svc")));
	/* FipsFactCollector: fips_enabled says 1; ApparmorFactCollector:
	 * the securityfs directory exists */
	json_object_set_new(f, "ansible_fips", json_boolean(!strcmp(S("fips"), "1")));
	json_object_set_new(f, "ansible_apparmor", json_pack("{s:s}", "status", S("apparmor")));
	/* the interpreter's sys.version_info, implementation and executable,
	 * as the facts of the Python that runs Ansible's modules */
	const char *py = S("py");
	int a = 0, b = 0, c = 0, serial = 0, ssl = 0, exe_at = 0;
	char level[16] = "", impl[32] = "";
	if (sscanf(py, "%d.%d.%d %15s %d %31s %d %n", &a, &b, &c, level, &serial, impl, &ssl, &exe_at) == 7 &&
	    exe_at) {
		json_object_set_new(f, "ansible_python_version", json_sprintf("%d.%d.%d", a, b, c));
		json_object_set_new(f, "ansible_python",
				    json_pack("{s:s, s:b, s:s, s:{s:i, s:i, s:i, s:s, s:i}, s:[i, i, i, s, i]}",
					      "executable", py + exe_at, "has_sslcontext", ssl, "type", impl,
					      "version", "major", a, "minor", b, "micro", c, "releaselevel", level,
					      "serial", serial, "version_info", a, b, c, level, serial));
	}
	json_t *ips = json_array();
	const char *ip4 = S("ip4");
	for (const char *p = ip4; *p;) {
		size_t n = strcspn(p, " ");
		if (n)
			json_array_append_new(ips, json_stringn(p, n));
		p += n;
		while (*p == ' ')
			p++;
	}
	json_object_set_new(f, "ansible_default_ipv4", json_pack("{s:s, s:s}", "address",
		json_array_size(ips) ? json_string_value(json_array_get(ips, 0)) : "",
		"interface", S("defif")));
	json_object_set_new(f, "ansible_all_ipv4_addresses", ips);
	json_t *devs = json_object();
	const char *dl = S("devs");
	for (const char *p = dl; *p;) {
		size_t n = strcspn(p, " ");
		if (n) {
			char *name = xstrndup(p, n);
			if (strncmp(name, "loop", 4) && strncmp(name, "ram", 3))
				json_object_set_new(devs, name, json_pack("{s:{s:[], s:[], s:[]}, s:{}}",
					"links", "ids", "uuids", "labels", "partitions"));
			free(name);
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	json_object_set_new(f, "ansible_devices", devs);
	json_t *env = json_object();
	const char *e = strstr(o, "\nENV\n");
	if (e) {
		for (const char *p = e + 5; *p;) {
			size_t n = strcspn(p, "\n");
			const char *eq = memchr(p, '=', n);
			if (eq) {
				char *k = xstrndup(p, (size_t)(eq - p));
				json_object_set_new(env, k, json_stringn(eq + 1, n - (size_t)(eq - p) - 1));
				free(k);
			}
			p += n;
			if (*p)
				p++;
		}
	}
	json_object_set_new(f, "ansible_env", env);
	json_object_set_new(f, "ansible_user", json_string(S("user")));
#undef S
	json_decref(tmp);
	conn_result_release(&cr);
	return f;
}

static json_t *setup_run(struct exec_ctx *x, json_t *args)
{
	/* the implicit gathering's arguments carry these marks (exec-play.c) */
	bool play = json_is_true(json_object_get(args, "_imc_gather_facts"));
	bool keyword = json_is_true(json_object_get(args, "_imc_gather_subset_keyword"));
	json_t *res = NULL;
	json_t *params = setup_params(args, keyword, &res);
	if (!params)
		return res;
	bool sel[NCOLLECTORS];
	char *err = NULL;
	json_t *subsets = json_object_get(params, "gather_subset");
	if (select_collectors(subsets, sel, &err) < 0) {
		res = play ? gather_failure(params, err) : res_fail("%s", err);
		free(err);
		json_decref(params);
		return res;
	}
	json_t *f = gather(x, &res);
	if (!f) {
		json_decref(params);
		return res;
	}
	json_t *facts = json_object();
	const char *k;
	json_t *v;
	json_object_foreach(f, k, v)
		if (fact_selected(k, sel))
			json_object_set(facts, k, v);
	json_decref(f);
	/* Ansible's CollectorMetaDataCollector: the subsets asked for (all
	 * when none), named without the ansible_ prefix */
	json_object_set_new(facts, "gather_subset",
			    json_array_size(subsets) ? json_incref(subsets) : json_pack("[s]", "all"));
	json_object_set_new(facts, "module_setup", json_true());
	json_t *kept = json_object();
	json_t *filter = json_object_get(params, "filter");
	json_object_foreach(facts, k, v)
		if (filter_keeps(filter, k))
			json_object_set(kept, k, v);
	json_decref(facts);
	json_decref(params);
	json_object_foreach(kept, k, v)
		exec_module_fact(x->run, x->facts_host ? x->facts_host : x->host, k, v);
	res = res_new(false);
	json_object_set_new(res, "ansible_facts", kept);
	return res;
}

static const char *const setup_params_known[] = { "gather_subset", "filter", "gather_timeout", NULL };

static const char *const setup_node_paths[] = { "fact_path", NULL };

const struct task_module mod_setup = {
	.name = "setup", .run = setup_run, .same_in_check_mode = true, .params = setup_params_known,
	.node_paths = setup_node_paths,
};
