/* service_facts.c: the `service_facts` module, as ansible-core 2.14's:
 * ansible_facts.services, a dict of name -> {name, state, source[,
 * status]}, from the node's service(8) --status-all ("[ + ] name" running,
 * "[ - ]" stopped, "[ ? ]" left out; source sysv) and, when PID 1 is
 * systemd, from systemctl list-units and list-unit-files (state running or
 * stopped, or ActiveState for a unit file without a loaded unit; status
 * the unit's SUB... as Ansible's parser reads its columns, including the
 * quirk that a line holding not-found, masked or failed loses its first
 * column); none found: skipped with Ansible's message. Read only, so the
 * same in check mode. The commands run under C.UTF-8 as Ansible's
 * run_command with its best parsable locale. A node with chkconfig,
 * initctl (upstart), rc-status (OpenRC), lssrc (AIX) or rcctl (OpenBSD)
 * is not implemented: the task fails saying so rather than report fewer
 * services than Ansible. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The probe: which tools exist (Ansible's get_bin_path looks in PATH and
 * the sbin directories), then each listing between markers. */
static const char PROBE[] =
	"export LANG=C.UTF-8 LC_ALL=C.UTF-8; PATH=\"$PATH:/sbin:/usr/sbin:/usr/local/sbin\"; "
	"for t in service chkconfig initctl rc-status rc-update lssrc rcctl; do "
	"command -v \"$t\" >/dev/null 2>&1 && echo \"__imc_bin__ $t\"; done; "
	"[ -e /etc/init.d ] && echo __imc_initd__; "
	"if command -v service >/dev/null 2>&1 && ! command -v chkconfig >/dev/null 2>&1 && "
	"! command -v rc-status >/dev/null 2>&1; then "
	"o=$(service --status-all 2>\"${TMPDIR:-/tmp}/.imc_sf.$$\"); r=$?; "
	"echo \"__imc_sysv__ $r\"; printf '%s\\n' \"$o\"; echo __imc_err__; "
	"cat \"${TMPDIR:-/tmp}/.imc_sf.$$\"; rm -f \"${TMPDIR:-/tmp}/.imc_sf.$$\"; echo __imc_end__; fi; "
	"if grep -q systemd /proc/1/comm 2>/dev/null; then "
	"s=$(PATH=\"$PATH:/usr/bin:/usr/local/bin\" command -v systemctl); if [ -n \"$s\" ]; then "
	"o=$(\"$s\" list-units --no-pager --type service --all 2>&1); echo \"__imc_units__ $?\"; printf '%s\\n' \"$o\"; echo __imc_end__; "
	"o=$(\"$s\" list-unit-files --no-pager --type service --all 2>&1); echo \"__imc_files__ $?\"; printf '%s\\n' \"$o\"; echo __imc_end__; "
	"for u in $(printf '%s\\n' \"$o\" | grep '\\.service' | awk '{print $1}'); do "
	"a=$(\"$s\" show \"$u\" --property=ActiveState 2>/dev/null); echo \"__imc_show__ $? $u ${a#ActiveState=}\"; done; "
	"fi; fi";

/* The text between a marker line "M ..." and the next "__imc_end__" (or
 * "__imc_err__"); *rc the number after the marker. NULL when absent. */
static char *section(const char *o, const char *marker, int *rc)
{
	const char *p = strstr(o, marker);
	if (!p)
		return NULL;
	p += strlen(marker);
	*rc = (int)strtol(p, NULL, 10);
	p = strchr(p, '\n');
	if (!p)
		return NULL;
	p++;
	const char *e = strstr(p, "__imc_e");
	return xstrndup(p, e ? (size_t)(e - p) : strlen(p));
}

static bool has_line(const char *o, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = o; (p = strstr(p, line)); p += n)
		if ((p == o || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/* Python's str.split() of a line into at most max fields. */
static size_t split_ws(char *line, char **f, size_t max)
{
	size_t n = 0;
	for (char *p = line; *p && n < max;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
	return n;
}

static void add_service(json_t *svcs, const char *name, const char *state, const char *status,
			const char *source)
{
	json_t *s = json_pack("{s:s, s:s}", "name", name, "state", state);
	if (status)
		json_object_set_new(s, "status", json_string(status));
	json_object_set_new(s, "source", json_string(source));
	json_object_set_new(svcs, name, s);
}

static void parse_sysv(json_t *svcs, const char *out)
{
	/* ^\s*\[ (?P<state>\+|\-) \]\s+(?P<name>.+)$ */
	char *copy = xstrdup(out);
	for (char *l = copy, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		while (*l == ' ' || *l == '\t')
			l++;
		if (strncmp(l, "[ ", 2) || (l[2] != '+' && l[2] != '-') || strncmp(l + 3, " ]", 2))
			continue;
		char *name = l + 5;
		if (*name != ' ' && *name != '\t')
			continue;
		while (*name == ' ' || *name == '\t')
			name++;
		if (!*name)
			continue;
		add_service(svcs, name, l[2] == '+' ? "running" : "stopped", NULL, "sysv");
	}
	free(copy);
}

static bool bad_state(const char *f)
{
	return !strcmp(f, "not-found") || !strcmp(f, "masked") || !strcmp(f, "failed");
}

static void parse_units(json_t *svcs, const char *out)
{
	char *copy = xstrdup(out);
	for (char *l = copy, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		if (!strstr(l, ".service"))
			continue;
		char *f[64];
		size_t n = split_ws(l, f, 64);
		const char *status = NULL;
		size_t off = 0;
		for (size_t i = 0; i < n && !status; i++)
			if (bad_state(f[i])) {
				status = f[i];
				off = 1;
			}
		if (!status && n > 2)
			status = f[2];
		if (n < off + 4 || !status)
			continue; /* Python would fail on the index; no such line in practice */
		add_service(svcs, f[off], !strcmp(f[off + 3], "running") ? "running" : "stopped", status,
			    "systemd");
	}
	free(copy);
}

static json_t *parse_unit_files(json_t *svcs, const char *out, const char *all)
{
	char *copy = xstrdup(out);
	json_t *fail = NULL;
	for (char *l = copy, *nl; l && *l && !fail; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		if (!strstr(l, ".service"))
			continue;
		char *line = xstrdup(l);
		char *f[3];
		if (split_ws(l, f, 3) < 2) {
			fail = res_fail("Malformed output discovered from systemd list-unit-files: %s", line);
			free(line);
			break;
		}
		free(line);
		json_t *s = json_object_get(svcs, f[0]);
		if (!s) {
			/* the show line: "__imc_show__ RC NAME STATE" */
			char *key = xasprintf("__imc_show__ 0 %s ", f[0]);
			const char *sh = strstr(all, key);
			const char *state = "unknown";
			char *st = NULL;
			if (sh) {
				sh += strlen(key);
				st = xstrndup(sh, strcspn(sh, "\n"));
				size_t k = strlen(st);
				while (k && (st[k - 1] == ' ' || st[k - 1] == '\t' || st[k - 1] == '\r'))
					st[--k] = 0;
				if (*st)
					state = st;
			}
			add_service(svcs, f[0], state, f[1], "systemd");
			free(st);
			free(key);
		} else if (!bad_state(json_string_value(json_object_get(s, "status"))))
			json_object_set_new(s, "status", json_string(f[1]));
	}
	free(copy);
	return fail;
}

static json_t *service_facts_run(struct exec_ctx *x, json_t *args)
{
	(void)args;
	json_t *res = NULL;
	struct conn_result cr;
	conn_result_init(&cr);
	if (mod_sh(x, PROBE, NULL, 0, &cr, &res) < 0)
		goto out;
	const char *o = strbuf_str(&cr.out);
	static const char *const other[] = { "chkconfig", "initctl", "rc-status", "lssrc", "rcctl", NULL };
	for (const char *const *t = other; *t; t++) {
		char *l = xasprintf("__imc_bin__ %s", *t);
		bool has = has_line(o, l);
		free(l);
		if (has) {
			res = res_fail("service_facts: the node has %s, whose services imc does not list natively", *t);
			goto out;
		}
	}
	json_t *svcs = json_object();
	json_t *warnings = json_array();
	int rc;
	char *sysv = section(o, "__imc_sysv__ ", &rc);
	if (sysv && !(rc == 4 && !has_line(o, "__imc_initd__"))) {
		if (rc != 0) {
			int dummy;
			char *err = section(o, "__imc_err__", &dummy);
			char *w = xasprintf("Unable to query 'service' tool (%d): %s", rc, err ? err : "");
			json_array_append_new(warnings, json_string(w));
			free(w);
			free(err);
		}
		parse_sysv(svcs, sysv);
	}
	free(sysv);
	char *units = section(o, "__imc_units__ ", &rc);
	if (units) {
		if (rc != 0) {
			char *w = xasprintf("Could not list units from systemd: %s", units);
			json_array_append_new(warnings, json_string(w));
			free(w);
		} else
			parse_units(svcs, units);
	}
	free(units);
	char *files = section(o, "__imc_files__ ", &rc);
	if (files) {
		if (rc != 0) {
			char *w = xasprintf("Could not get unit files data from systemd: %s", files);
			json_array_append_new(warnings, json_string(w));
			free(w);
		} else if ((res = parse_unit_files(svcs, files, o))) {
			free(files);
			json_decref(svcs);
			json_decref(warnings);
			goto out;
		}
	}
	free(files);
	if (!json_object_size(svcs)) {
		res = json_pack("{s:b, s:b, s:s}", "changed", 0, "skipped", 1, "msg",
				"Failed to find any services. This can be due to privileges or some other configuration issue.");
		json_decref(svcs);
	} else {
		/* a fact, as a variable and under ansible_facts, never templated again */
		struct task_host *fh = x->facts_host ? x->facts_host : x->host;
		exec_module_fact(x->run, fh, "services", svcs);
		res = res_new(false);
		json_object_set_new(res, "ansible_facts", json_pack("{s:o}", "services", svcs));
	}
	if (json_array_size(warnings))
		json_object_set_new(res, "warnings", warnings);
	else
		json_decref(warnings);
out:
	conn_result_release(&cr);
	return res;
}

/* It takes no parameter: any is Ansible's to refuse, in its words. */
static int service_facts_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { NULL };
	return mod_check_params("service_facts", args, known, d, loc);
}

const struct task_module mod_service_facts = {
	.name = "service_facts", .check = service_facts_check, .run = service_facts_run,
	.same_in_check_mode = true,
};
