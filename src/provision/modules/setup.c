/* setup.c: the `setup` module (fact gathering, the subset recipes read:
 * distribution, os family, hostname, addresses, python, pkg/service
 * manager, memory, cpus, env, devices), collected with one shell script in
 * one round trip instead of Ansible's Python payload. */
#include "config.h"

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

static json_t *setup_run(struct exec_ctx *x, json_t *args)
{
	(void)args;
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
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
	int rc = mod_sh(x, script.buf, NULL, 0, &cr, &res);
	strbuf_release(&script);
	if (rc < 0) {
		conn_result_release(&cr);
		return res;
	}
	const char *o = strbuf_str(&cr.out);
	json_t *f = json_object();
#define S(k) json_string_value(json_object_get(tmp, k))
	json_t *tmp = json_object();
	static const char *const keys[] = { "id", "version_id", "codename", "id_like", "hostname",
					    "fqdn", "arch", "kernel", "system", "user", "uid",
					    "home", "mem", "memfree", "cpus", "pkg", "svc", "py", "ip4", "defif", "devs", NULL };
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
	const char *k;
	json_t *v;
	json_object_foreach(f, k, v) {
		exec_set_fact(x->run, x->facts_host ? x->facts_host : x->host, k, v);
		exec_cache_fact(x->facts_host ? x->facts_host : x->host, k, v);
	}
	res = res_new(false);
	json_object_set_new(res, "ansible_facts", f);
	return res;
}

const struct task_module mod_setup = {
	.name = "setup", .run = setup_run, .same_in_check_mode = true,
};
