/* iptables.c: the `iptables` module, as ansible-core 2.14's: the rule's
 * parameters become the iptables arguments in Ansible's order
 * (construct_rule: protocol, source, destination, matches, jump, ports,
 * interfaces, ctstate, ranges, sets, limit, owner, reject, icmp type,
 * comment; a leading '!' negates), and the node's iptables (ip6tables for
 * ipv6) applies them: flush (-F), policy (-P, changed when -L shows
 * another), a chain alone with state=absent (-L, then -X under
 * chain_management), else -C says whether the rule is there and -A or -I
 * [rule_num] adds it, -D removes it, creating the chain first (-N) under
 * chain_management. changed and the result keys (ip_version, table,
 * chain, flush, rule, state, chain_management) are Ansible's; a failing
 * command fails with its cmd, rc, stdout and stderr, msg its stderr, as
 * Ansible's run_command does. Check mode as Ansible: the queries run and
 * nothing changes. The node's iptables must be 1.6.0 or newer when wait is
 * given (older ones take -w without seconds, not implemented). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A parameter as Ansible's str type gives it: a stringified copy, or NULL. */
static char *p_str(json_t *args, const char *k)
{
	json_t *v = json_object_get(args, k);
	if (!v || json_is_null(v))
		return NULL;
	return args_strdup(args, k);
}

static void add(json_t *rule, const char *s)
{
	json_array_append_new(rule, json_string(s));
}

/* append_param: "! flag v" for "!v", else "flag v"; nothing for NULL */
static void append_param(json_t *rule, const char *v, const char *flag)
{
	if (!v)
		return;
	if (v[0] == '!') {
		add(rule, "!");
		add(rule, flag);
		add(rule, v + 1);
	} else {
		add(rule, flag);
		add(rule, v);
	}
}

static void append_param_k(json_t *rule, json_t *args, const char *k, const char *flag)
{
	char *v = p_str(args, k);
	append_param(rule, v, flag);
	free(v);
}

static void append_match_flag(json_t *rule, const char *v, const char *flag, bool negatable)
{
	if (v && !strcmp(v, "match"))
		add(rule, flag);
	else if (v && negatable && !strcmp(v, "negate")) {
		add(rule, "!");
		add(rule, flag);
	}
}

static void append_csv(json_t *rule, json_t *list, const char *flag)
{
	if (!json_array_size(list))
		return;
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e)
		strbuf_addf(&sb, "%s%s", i ? "," : "", json_string_value(e));
	add(rule, flag);
	add(rule, sb.buf);
	strbuf_release(&sb);
}

static bool truthy(const char *s)
{
	return s && *s;
}

static void append_match(json_t *rule, bool cond, const char *match)
{
	if (cond) {
		add(rule, "-m");
		add(rule, match);
	}
}

static bool list_has(json_t *list, const char *s)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e)
		if (!strcmp(json_string_value(e), s))
			return true;
	return false;
}

/* construct_rule() of Ansible's module; jump is passed apart because
 * the rule reported is built before log_prefix turns it into LOG. */
static json_t *construct_rule(json_t *args, const char *jump, const char *ipv, char **err)
{
	json_t *rule = json_array();
	json_t *match = mod_list(json_object_get(args, "match"));
	json_t *dports = mod_list(json_object_get(args, "destination_ports"));
	json_t *ctstate = mod_list(json_object_get(args, "ctstate"));
	append_param_k(rule, args, "wait", "-w");
	append_param_k(rule, args, "protocol", "-p");
	append_param_k(rule, args, "source", "-s");
	append_param_k(rule, args, "destination", "-d");
	size_t i;
	json_t *e;
	json_array_foreach(match, i, e)
		append_param(rule, json_string_value(e), "-m");
	json_t *tf = json_object_get(args, "tcp_flags");
	if (json_is_object(tf) && json_object_get(tf, "flags") && json_object_get(tf, "flags_set")) {
		json_t *f = mod_list(json_object_get(tf, "flags"));
		json_t *fs = mod_list(json_object_get(tf, "flags_set"));
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		json_array_foreach(f, i, e)
			strbuf_addf(&a, "%s%s", i ? "," : "", json_string_value(e));
		json_array_foreach(fs, i, e)
			strbuf_addf(&b, "%s%s", i ? "," : "", json_string_value(e));
		add(rule, "--tcp-flags");
		add(rule, strbuf_str(&a));
		add(rule, strbuf_str(&b));
		strbuf_release(&a);
		strbuf_release(&b);
		json_decref(f);
		json_decref(fs);
	}
	append_param(rule, jump, "-j");
	if (jump && !strcasecmp(jump, "tee"))
		append_param_k(rule, args, "gateway", "--gateway");
	append_param_k(rule, args, "log_prefix", "--log-prefix");
	append_param_k(rule, args, "log_level", "--log-level");
	append_param_k(rule, args, "to_destination", "--to-destination");
	append_match(rule, json_array_size(dports), "multiport");
	append_csv(rule, dports, "--dports");
	append_param_k(rule, args, "to_source", "--to-source");
	append_param_k(rule, args, "goto", "-g");
	append_param_k(rule, args, "in_interface", "-i");
	append_param_k(rule, args, "out_interface", "-o");
	append_param_k(rule, args, "fragment", "-f");
	append_param_k(rule, args, "set_counters", "-c");
	append_param_k(rule, args, "source_port", "--source-port");
	append_param_k(rule, args, "destination_port", "--destination-port");
	append_param_k(rule, args, "to_ports", "--to-ports");
	append_param_k(rule, args, "set_dscp_mark", "--set-dscp");
	append_param_k(rule, args, "set_dscp_mark_class", "--set-dscp-class");
	char *syn = p_str(args, "syn");
	append_match_flag(rule, syn ? syn : "ignore", "--syn", true);
	free(syn);
	if (list_has(match, "conntrack"))
		append_csv(rule, ctstate, "--ctstate");
	else if (list_has(match, "state"))
		append_csv(rule, ctstate, "--state");
	else if (json_array_size(ctstate)) {
		append_match(rule, true, "conntrack");
		append_csv(rule, ctstate, "--ctstate");
	}
	char *src_range = p_str(args, "src_range"), *dst_range = p_str(args, "dst_range");
	if (list_has(match, "iprange") || truthy(src_range) || truthy(dst_range)) {
		if (!list_has(match, "iprange"))
			append_match(rule, true, "iprange");
		append_param(rule, src_range, "--src-range");
		append_param(rule, dst_range, "--dst-range");
	}
	free(src_range);
	free(dst_range);
	char *set = p_str(args, "match_set"), *set_flags = p_str(args, "match_set_flags");
	if (list_has(match, "set") || truthy(set)) {
		if (!list_has(match, "set"))
			append_match(rule, true, "set");
		append_param(rule, set, "--match-set");
		/* Ansible passes the flags where the flag name goes: they follow bare */
		if (!set_flags)
			*err = xstrdup("match_set without match_set_flags: Ansible's module fails on it "
				       "(it joins a None into the rule)");
		else
			add(rule, set_flags);
	}
	free(set);
	free(set_flags);
	char *limit = p_str(args, "limit"), *burst = p_str(args, "limit_burst");
	append_match(rule, truthy(limit) || truthy(burst), "limit");
	append_param(rule, limit, "--limit");
	append_param(rule, burst, "--limit-burst");
	free(limit);
	free(burst);
	static const char *const owners[][2] = { { "uid_owner", "--uid-owner" }, { "gid_owner", "--gid-owner" } };
	for (size_t k = 0; k < 2; k++) {
		char *o = p_str(args, owners[k][0]);
		append_match(rule, truthy(o), "owner");
		append_match_flag(rule, o, owners[k][1], true);
		append_param(rule, o, owners[k][1]);
		free(o);
	}
	char *rw = p_str(args, "reject_with");
	if (!jump && truthy(rw)) {
		add(rule, "-j");
		add(rule, "REJECT");
	}
	append_param(rule, rw, "--reject-with");
	free(rw);
	append_param_k(rule, args, "icmp_type", !strcmp(ipv, "ipv6") ? "--icmpv6-type" : "--icmp-type");
	char *comment = p_str(args, "comment");
	append_match(rule, truthy(comment), "comment");
	append_param(rule, comment, "--comment");
	free(comment);
	json_decref(match);
	json_decref(dports);
	json_decref(ctstate);
	return rule;
}

/* Python's shlex.quote, which Ansible's failure prints the command with */
static void py_quote(struct strbuf *sb, const char *s)
{
	bool safe = *s != 0;
	for (const char *p = s; *p && safe; p++)
		safe = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		       strchr("_@%+=:,./-", *p);
	if (safe) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			strbuf_addstr(sb, "'\"'\"'");
		else
			strbuf_addch(sb, *p);
	strbuf_addch(sb, '\'');
}

static char *join(json_t *rule, bool quote)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *e;
	json_array_foreach(rule, i, e) {
		if (i)
			strbuf_addch(&sb, ' ');
		if (quote)
			sh_quote(&sb, json_string_value(e));
		else
			strbuf_addstr(&sb, json_string_value(e));
	}
	return strbuf_detach(&sb);
}

/* push_arguments(): [iptables, -t, table, action, chain, [rule_num], rule...] */
static json_t *command(const char *ipt, const char *table, const char *action, const char *chain,
		       const char *rule_num, json_t *rule)
{
	json_t *c = json_pack("[ssss]", ipt, "-t", table, action);
	/* a missing chain is Python's None: the argument list then fails */
	add(c, chain ? chain : "None");
	if (!strcmp(action, "-I") && truthy(rule_num))
		add(c, rule_num);
	if (rule)
		json_array_extend(c, rule);
	return c;
}

/* Runs cmd on the node: 0 with cr filled, -1 unreachable (*res set). */
static int run(struct exec_ctx *x, json_t *cmd, struct conn_result *cr, json_t **res)
{
	char *line = join(cmd, true);
	struct strbuf c = STRBUF_INIT;
	/* Ansible's run_command: LANG/LC_ALL/LC_MESSAGES C */
	strbuf_addf(&c, "LANG=C LC_ALL=C LC_MESSAGES=C %s", line);
	free(line);
	conn_result_release(cr);
	conn_result_init(cr);
	int rc = mod_sh(x, c.buf, NULL, 0, cr, res);
	strbuf_release(&c);
	return rc;
}

static json_t *splitlines(const char *s)
{
	json_t *a = json_array();
	while (*s) {
		size_t n = strcspn(s, "\n");
		json_array_append_new(a, json_stringn(s, n));
		s += n;
		if (*s)
			s++;
	}
	return a;
}

/* run_command(check_rc=True)'s failure */
static json_t *cmd_failed(json_t *cmd, const struct conn_result *cr)
{
	const char *e = strbuf_str(&cr->err);
	size_t n = strlen(e);
	while (n && (e[n - 1] == '\n' || e[n - 1] == ' ' || e[n - 1] == '\t' || e[n - 1] == '\r'))
		n--;
	char *msg = xstrndup(e, n);
	json_t *res = res_fail("%s", msg);
	free(msg);
	struct strbuf line = STRBUF_INIT;
	size_t i;
	json_t *a;
	json_array_foreach(cmd, i, a) {
		if (i)
			strbuf_addch(&line, ' ');
		py_quote(&line, json_string_value(a));
	}
	json_object_set_new(res, "cmd", json_string(strbuf_str(&line)));
	strbuf_release(&line);
	json_object_set_new(res, "rc", json_integer(cr->rc));
	json_object_set_new(res, "stdout", json_string(strbuf_str(&cr->out)));
	json_object_set_new(res, "stderr", json_string(e));
	json_object_set_new(res, "stdout_lines", splitlines(strbuf_str(&cr->out)));
	json_object_set_new(res, "stderr_lines", splitlines(e));
	return res;
}

/* Runs next (which replaces *cmd, kept for the failure's report): 0 when
 * it ran (its status in cr), -1 with *res set when the node is
 * unreachable or, checked, the command failed (run_command's check_rc). */
static int step(struct exec_ctx *x, json_t **cmd, json_t *next, bool checked, struct conn_result *cr,
		json_t **res)
{
	json_decref(*cmd);
	*cmd = next;
	if (run(x, next, cr, res) < 0)
		return -1;
	if (checked && cr->rc != 0) {
		*res = cmd_failed(next, cr);
		return -1;
	}
	return 0;
}

static const char *choice(json_t *args, const char *k, const char *dflt, const char *const *ok,
			  const char *names, json_t **res)
{
	const char *v = args_str(args, k);
	if (!v)
		return dflt;
	for (const char *const *p = ok; *p; p++)
		if (!strcmp(*p, v))
			return v;
	*res = res_fail("value of %s must be one of: %s, got: %s", k, names, v);
	return NULL;
}

static json_t *iptables_run(struct exec_ctx *x, json_t *args)
{
	static const char *const tables[] = { "filter", "nat", "mangle", "raw", "security", NULL };
	static const char *const states[] = { "absent", "present", NULL };
	static const char *const actions[] = { "append", "insert", NULL };
	static const char *const ipvs[] = { "ipv4", "ipv6", NULL };
	static const char *const syns[] = { "ignore", "match", "negate", NULL };
	static const char *const policies[] = { "ACCEPT", "DROP", "QUEUE", "RETURN", NULL };
	static const char *const levels[] = { "0", "1", "2", "3", "4", "5", "6", "7", "emerg", "alert",
					      "crit", "error", "warning", "notice", "info", "debug", NULL };
	static const char *const msflags[] = { "src", "dst", "src,dst", "dst,src", NULL };
	static const char *const excl[] = { "set_dscp_mark", "set_dscp_mark_class", "flush", "policy", NULL };
	/* AnsibleModule checks mutual exclusion before the choices */
	json_t *res = mod_exclusive(args, excl);
	if (res)
		return res;
	const char *table = choice(args, "table", "filter", tables, "filter, nat, mangle, raw, security", &res);
	const char *state = res ? NULL : choice(args, "state", "present", states, "absent, present", &res);
	const char *action = res ? NULL : choice(args, "action", "append", actions, "append, insert", &res);
	const char *ipv = res ? NULL : choice(args, "ip_version", "ipv4", ipvs, "ipv4, ipv6", &res);
	if (!res)
		choice(args, "syn", "ignore", syns, "ignore, match, negate", &res);
	const char *policy = res ? NULL : choice(args, "policy", NULL, policies, "ACCEPT, DROP, QUEUE, RETURN", &res);
	if (!res)
		choice(args, "log_level", NULL, levels,
		       "0, 1, 2, 3, 4, 5, 6, 7, emerg, alert, crit, error, warning, notice, info, debug", &res);
	if (!res)
		choice(args, "match_set_flags", NULL, msflags, "src, dst, src,dst, dst,src", &res);
	if (res)
		return res;
	char *jump = p_str(args, "jump");
	char *chain = p_str(args, "chain");
	char *rule_num = p_str(args, "rule_num");
	char *err = NULL;
	json_t *rule = NULL, *cmd = NULL;
	struct conn_result cr;
	conn_result_init(&cr);
	if (jump && !strcasecmp(jump, "tee") && !json_object_get(args, "gateway")) {
		res = res_fail("jump is %s but all of the following are missing: gateway", jump);
		goto out;
	}
	bool flush = args_bool(json_object_get(args, "flush"), false);
	bool chain_mgmt = args_bool(json_object_get(args, "chain_management"), false);
	rule = construct_rule(args, jump, ipv, &err);
	if (err) {
		res = res_fail("%s", err);
		goto out;
	}
	char *rule_s = join(rule, false);
	json_t *out_args = json_pack("{s:b, s:b, s:s, s:s, s:o, s:b, s:s, s:s, s:b}", "changed", 0, "failed", 0,
				     "ip_version", ipv, "table", table, "chain",
				     chain ? json_string(chain) : json_null(), "flush", flush, "rule", rule_s,
				     "state", state, "chain_management", chain_mgmt);
	bool rule_empty = !*rule_s;
	free(rule_s);
	if (!flush && !chain) {
		json_decref(out_args);
		res = res_fail("Either chain or flush parameter must be specified.");
		goto out;
	}
	char *lp = p_str(args, "log_prefix"), *ll = p_str(args, "log_level");
	bool logging = truthy(lp) || truthy(ll);
	free(lp);
	free(ll);
	if (logging) {
		if (!jump) {
			jump = xstrdup("LOG");
		} else if (strcmp(jump, "LOG")) {
			json_decref(out_args);
			res = res_fail("Logging options can only be used with the LOG jump target.");
			goto out;
		}
		json_decref(rule);
		rule = construct_rule(args, jump, ipv, &err);
	}

	/* the binary, its version, and the state the decision needs */
	const char *bin = !strcmp(ipv, "ipv6") ? "ip6tables" : "iptables";
	struct strbuf c = STRBUF_INIT;
	strbuf_addf(&c, "PATH=\"$PATH:/sbin:/usr/sbin:/usr/local/sbin\"; i=$(command -v %s) || exit 3; "
		    "echo \"__imc_bin__ $i\"; LANG=C LC_ALL=C \"$i\" --version", bin);
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0) {
		strbuf_release(&c);
		json_decref(out_args);
		goto out;
	}
	strbuf_release(&c);
	if (cr.rc == 3) {
		json_decref(out_args);
		res = res_fail("Failed to find required executable \"%s\" in paths: /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", bin);
		goto out;
	}
	const char *o = strbuf_str(&cr.out);
	const char *bp = strstr(o, "__imc_bin__ ");
	char *ipt = bp ? xstrndup(bp + 12, strcspn(bp + 12, "\n")) : xstrdup(bin);
	const char *vp = strstr(o, " v");
	int maj = 0, min = 0;
	if (vp)
		sscanf(vp + 2, "%d.%d", &maj, &min);
	if (json_object_get(args, "wait") && (maj < 1 || (maj == 1 && min < 6))) {
		json_decref(out_args);
		free(ipt);
		res = res_fail("iptables: wait with iptables older than 1.6.0 is not implemented by imc");
		goto out;
	}
	bool changed = false;
	if (flush) {
		changed = true;
		if (!x->check_mode) {
			if (step(x, &cmd, command(ipt, table, "-F", chain, rule_num, NULL), true, &cr, &res) < 0)
				goto fail_out;
		}
	} else if (policy) {
		if (step(x, &cmd, command(ipt, table, "-L", chain, rule_num, NULL), true, &cr, &res) < 0)
			goto fail_out;
		const char *pp = strstr(strbuf_str(&cr.out), "(policy ");
		const char *nl = strchr(strbuf_str(&cr.out), '\n');
		if (!pp || (nl && pp > nl)) {
			res = res_fail("Can't detect current policy");
			goto fail_out;
		}
		pp += 8;
		size_t n = 0;
		while (pp[n] >= 'A' && pp[n] <= 'Z')
			n++;
		changed = pp[n] != ')' || strlen(policy) != n || strncmp(pp, policy, n);
		if (changed && !x->check_mode) {
			json_t *pc = command(ipt, table, "-P", chain, rule_num, NULL);
			add(pc, policy);
			if (step(x, &cmd, pc, true, &cr, &res) < 0)
				goto fail_out;
		}
	} else if (!strcmp(state, "absent") && rule_empty) {
		if (step(x, &cmd, command(ipt, table, "-L", chain, rule_num, NULL), false, &cr, &res) < 0)
			goto fail_out;
		changed = cr.rc == 0;
		if (changed && chain_mgmt && !x->check_mode) {
			if (step(x, &cmd, command(ipt, table, "-X", chain, rule_num, NULL), true, &cr, &res) < 0)
				goto fail_out;
		}
	} else {
		bool insert = !strcmp(action, "insert");
		if (step(x, &cmd, command(ipt, table, "-C", chain, rule_num, rule), false, &cr, &res) < 0)
			goto fail_out;
		bool present = cr.rc == 0, chain_present = present;
		if (!present) {
			if (step(x, &cmd, command(ipt, table, "-L", chain, rule_num, NULL), false, &cr, &res) < 0)
				goto fail_out;
			chain_present = cr.rc == 0;
		}
		bool want = !strcmp(state, "present");
		changed = present != want;
		if (changed && !x->check_mode) {
			if (want && !chain_present && chain_mgmt) {
				json_t *nc = command(ipt, table, "-N", chain, rule_num, NULL);
				if (step(x, &cmd, nc, true, &cr, &res) < 0)
					goto fail_out;
			}
			const char *op = !want ? "-D" : insert ? "-I" : "-A";
			if (step(x, &cmd, command(ipt, table, op, chain, rule_num, rule), true, &cr, &res) < 0)
				goto fail_out;
		}
	}
	json_object_set_new(out_args, "changed", json_boolean(changed));
	res = out_args;
	out_args = NULL;
fail_out:
	json_decref(out_args);
	free(ipt);
out:
	conn_result_release(&cr);
	json_decref(cmd);
	json_decref(rule);
	free(jump);
	free(chain);
	free(rule_num);
	free(err);
	return res;
}

static int iptables_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = {
		"table", "state", "action", "ip_version", "chain", "rule_num", "protocol", "wait",
		"source", "to_source", "destination", "to_destination", "match", "tcp_flags", "jump",
		"gateway", "log_prefix", "log_level", "goto", "in_interface", "out_interface",
		"fragment", "set_counters", "source_port", "destination_port", "destination_ports",
		"to_ports", "set_dscp_mark", "set_dscp_mark_class", "comment", "ctstate", "src_range",
		"dst_range", "match_set", "match_set_flags", "limit", "limit_burst", "uid_owner",
		"gid_owner", "reject_with", "icmp_type", "syn", "flush", "policy", "chain_management",
		NULL };
	return mod_check_params("iptables", args, known, d, loc);
}

const struct task_module mod_iptables = {
	.name = "iptables", .check = iptables_check, .run = iptables_run, .check_mode_native = true,
};
