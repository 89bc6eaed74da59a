/* reboot.c: the `reboot` action, as ansible-core 2.14's: refused on the
 * local connection (it would restart the controller), reported as done in
 * check mode; otherwise the node's boot id is read (boot_time_command),
 * the reboot command runs (shutdown -r MINUTES "msg", the binary looked up
 * in search_paths; reboot_command replaces both; a connection dropped by
 * the reboot counts as success), and, after post_reboot_delay, imc waits
 * for the boot id to change and then for test_command to succeed, each
 * within reboot_timeout, retrying with Ansible's growing pauses (2^n
 * seconds plus a random fraction, at most 12) while the SSH connection
 * reconnects by itself. The result (changed, rebooted, elapsed) and the
 * failures are worded as Ansible's. Only Linux nodes: the BSDs, macOS,
 * Solaris, AIX and ESXi have other commands in Ansible's tables and are
 * refused rather than rebooted differently. connect_timeout changes
 * Ansible's connection plugin: not implemented, so it makes the task fall
 * back to Ansible when the play is loaded. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Ansible's int(args.get(key, default)), negatives as 0 for the delays */
static long num(json_t *args, const char *k, long dflt, bool *bad)
{
	json_t *v = json_object_get(args, k);
	if (!v)
		return dflt;
	if (json_is_integer(v))
		return (long)json_integer_value(v);
	const char *s = json_string_value(v);
	char *e;
	long n = s ? strtol(s, &e, 10) : 0;
	if (!s || !*s || *e)
		*bad = true;
	return n;
}

/* Ansible's pause between two failed attempts: 2^n + a random fraction,
 * capped at 12 (+ fraction). */
static void pause_after(int fails)
{
	double r = (double)(rand() % 1001) / 1000.0;
	double s = (fails < 4 ? (double)(1 << fails) : 16.0) + r;
	if (s > 12)
		s = 12 + r;
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

/* One command on the node as the task's become user: 0 ran (cr filled),
 * -1 the node could not be reached. */
static int node(struct exec_ctx *x, const char *cmd, struct conn_result *cr)
{
	json_t *unr = NULL;
	conn_result_release(cr);
	conn_result_init(cr);
	int rc = mod_sh(x, cmd, NULL, 0, cr, &unr);
	json_decref(unr);
	return rc;
}

static char *trimmed(const struct strbuf *sb)
{
	const char *s = strbuf_str(sb);
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

/* Waits for the boot id to differ from before (before != NULL) or for the
 * test command to succeed; false when timeout seconds passed first. */
static bool until_ok(struct exec_ctx *x, const char *cmd, const char *before, long timeout)
{
	double end = now_s() + (double)timeout;
	struct conn_result cr;
	conn_result_init(&cr);
	bool ok = false;
	for (int fails = 0; now_s() < end; fails++) {
		if (node(x, cmd, &cr) == 0 && cr.rc == 0) {
			char *t = trimmed(&cr.out);
			ok = !before || (*t && strcmp(t, before));
			free(t);
			if (ok)
				break;
		}
		pause_after(fails);
	}
	conn_result_release(&cr);
	return ok;
}

static json_t *reboot_run(struct exec_ctx *x, json_t *args)
{
	static const char *const valid[] = { "boot_time_command", "connect_timeout", "msg",
					     "post_reboot_delay", "pre_reboot_delay", "reboot_command",
					     "reboot_timeout", "search_paths", "test_command", NULL };
	if (x->conn && !strcmp(x->conn->ops->name, "local")) {
		/* the action's name as the task wrote it */
		static const char *const names[] = { "ansible.builtin.reboot", "ansible.legacy.reboot", NULL };
		const char *name = "reboot";
		for (const char *const *n = names; *n; n++)
			if (json_object_get(x->task->raw, *n))
				name = *n;
		char *m = xasprintf("Running %s with local connection would reboot the control node.", name);
		json_t *r = json_pack("{s:b, s:i, s:b, s:b, s:s}", "changed", 0, "elapsed", 0, "rebooted", 0,
				      "failed", 1, "msg", m);
		free(m);
		return r;
	}
	if (x->check_mode)
		return json_pack("{s:b, s:i, s:b}", "changed", 1, "elapsed", 0, "rebooted", 1);
	json_t *res = res_bad_options(args, "reboot", valid);
	if (res)
		return res;
	bool bad = false;
	long pre = num(args, "pre_reboot_delay", 0, &bad);
	long post = num(args, "post_reboot_delay", 0, &bad);
	long timeout = num(args, "reboot_timeout", 600, &bad);
	if (bad)
		return res_fail("reboot: a delay or timeout that is not an integer");
	if (pre < 0)
		pre = 0;
	if (post < 0)
		post = 0;
	const char *msg = args_str(args, "msg");
	const char *boot_cmd = args_str(args, "boot_time_command");
	if (!boot_cmd || !*boot_cmd)
		boot_cmd = "cat /proc/sys/kernel/random/boot_id";
	const char *test_cmd = args_str(args, "test_command");
	if (!test_cmd)
		test_cmd = "whoami";
	const char *rcmd = args_str(args, "reboot_command");
	json_t *paths = json_object_get(args, "search_paths");
	paths = paths ? mod_list(paths) : json_pack("[sssss]", "/sbin", "/bin", "/usr/sbin", "/usr/bin",
						    "/usr/local/sbin");
	char *before = NULL, *bin = NULL, *bin_args = NULL, *full = NULL;
	struct conn_result cr;
	conn_result_init(&cr);

	/* the distribution: Ansible's tables differ for alpine and void only
	 * among Linux systems; other kernels are not implemented */
	if (node(x, "uname -s; . /etc/os-release 2>/dev/null; echo \"$ID\"", &cr) < 0) {
		res = json_pack("{s:b, s:b, s:s}", "unreachable", 1, "changed", 0, "msg", "connection lost");
		goto out;
	}
	const char *o = strbuf_str(&cr.out);
	if (strncmp(o, "Linux\n", 6)) {
		res = res_fail("reboot: imc reboots Linux nodes only (this one runs %.*s)",
			       (int)strcspn(o, "\n"), o);
		goto out;
	}
	char *id = xstrndup(o + 6, strcspn(o + 6, "\n"));
	bool alpine = !strcmp(id, "alpine"), void_linux = !strcmp(id, "void");
	free(id);
	if (rcmd) {
		size_t sp = strcspn(rcmd, " ");
		bin = xstrndup(rcmd, sp);
		bin_args = xstrdup(rcmd[sp] ? rcmd + sp + 1 : "");
	} else {
		bin = xstrdup(alpine ? "reboot" : "shutdown");
		if (alpine)
			bin_args = xstrdup("");
		else
			bin_args = xasprintf(void_linux ? "-r +%ld \"%s\"" : "-r %ld \"%s\"", pre / 60,
					     msg ? msg : "Reboot initiated by Ansible");
	}

	/* the boot id before */
	if (node(x, boot_cmd, &cr) < 0) {
		res = json_pack("{s:b, s:b, s:s}", "unreachable", 1, "changed", 0, "msg", "connection lost");
		goto out;
	}
	if (cr.rc != 0) {
		res = res_fail("reboot: failed to get host boot time info, rc: %d, stdout: %s, stderr: %s",
			       cr.rc, strbuf_str(&cr.out), strbuf_str(&cr.err));
		json_object_set_new(res, "reboot", json_false());
		goto out;
	}
	before = trimmed(&cr.out);

	/* the command, as Ansible's find module finds it in search_paths */
	if (bin[0] == '/')
		full = xstrdup(bin);
	else {
		struct strbuf c = STRBUF_INIT, repr = STRBUF_INIT;
		strbuf_addstr(&c, "b=");
		sh_quote(&c, bin);
		strbuf_addstr(&c, "; for p in");
		strbuf_addch(&repr, '[');
		size_t i;
		json_t *e;
		json_array_foreach(paths, i, e) {
			strbuf_addch(&c, ' ');
			sh_quote(&c, json_string_value(e));
			strbuf_addf(&repr, "%s'%s'", i ? ", " : "", json_string_value(e));
		}
		strbuf_addch(&repr, ']');
		strbuf_addstr(&c, "; do [ -e \"$p/$b\" ] && { printf '%s\\n' \"${p%/}/$b\"; exit 0; }; done; exit 1");
		int rc = node(x, c.buf, &cr);
		strbuf_release(&c);
		if (rc < 0 || cr.rc != 0) {
			res = rc < 0 ? json_pack("{s:b, s:b, s:s}", "unreachable", 1, "changed", 0, "msg",
						 "connection lost")
				     : res_fail("Unable to find command \"%s\" in search paths: %s", bin,
						strbuf_str(&repr));
			/* an AnsibleError of the action: the result has no changed */
			if (rc == 0)
				json_object_del(res, "changed");
			strbuf_release(&repr);
			goto out;
		}
		strbuf_release(&repr);
		full = xstrndup(strbuf_str(&cr.out), strcspn(strbuf_str(&cr.out), "\n"));
	}

	/* the reboot: a connection the reboot drops is a success */
	char *line = xasprintf("%s %s", full, bin_args);
	int rrc = node(x, line, &cr);
	free(line);
	double start = now_s();
	if (rrc == 0 && cr.rc != 0) {
		char *so = trimmed(&cr.out), *se = trimmed(&cr.err);
		res = res_fail("Reboot command failed. Error was: '%s, %s'", so, se);
		json_object_set_new(res, "rebooted", json_false());
		json_object_set_new(res, "elapsed", json_integer((json_int_t)(now_s() - start)));
		free(so);
		free(se);
		goto out;
	}
	if (post > 0)
		sleep((unsigned)post);
	const char *timed_out = NULL;
	if (!until_ok(x, boot_cmd, before, timeout))
		timed_out = "last boot time check";
	else if (!until_ok(x, test_cmd, NULL, timeout))
		timed_out = "post-reboot test command";
	if (timed_out) {
		res = res_fail("Timed out waiting for %s (timeout=%ld)", timed_out, timeout);
		json_object_set_new(res, "rebooted", json_true());
	} else
		res = json_pack("{s:b, s:b}", "changed", 1, "rebooted", 1);
	json_object_set_new(res, "elapsed", json_integer((json_int_t)(now_s() - start)));
out:
	conn_result_release(&cr);
	json_decref(paths);
	free(before);
	free(bin);
	free(bin_args);
	free(full);
	return res;
}

static int reboot_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	/* connect_timeout is left to Ansible (imc's SSH reconnects with its own
	 * deadline); an unknown option is the run's error, in Ansible's words */
	if (json_object_get(args, "connect_timeout")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "reboot: unsupported parameter 'connect_timeout'");
		return -1;
	}
	return 0;
}

const struct task_module mod_reboot = {
	.name = "reboot", .check = reboot_check, .run = reboot_run, .check_mode_native = true,
};
