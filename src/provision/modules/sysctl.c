/* sysctl.c: the `sysctl` module (ansible.posix.sysctl) on Linux, as the
 * collection Debian 12's ansible ships behaves: the key's line NAME=VALUE
 * in sysctl_file (default /etc/sysctl.conf) is added, replaced or (state
 * absent) removed, the file rewritten with every line stripped and later
 * lines of the same key dropped; sysctl_set writes the running value with
 * `sysctl -w`, and reload runs `sysctl -p FILE` whenever the task changed
 * something (also when only the running value differs from the file's).
 * Values are compared as the module does: yes/true/on... are 1, no/false/
 * off... are 0, and the running value equals when its whitespace-separated
 * words do. Check mode reports the same changed and touches nothing. The
 * only return value is changed, as Ansible's. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* sysctl prints errors in English only under the C locale, and the
 * module reads its stderr */
#define LANG_C "LANG=C LC_ALL=C LC_MESSAGES=C "

/* The module's _parse_value: booleans as 1 and 0, else stripped. */
static char *parse_value(const char *v)
{
	static const char *const t[] = { "y", "yes", "on", "1", "true", "t", NULL };
	static const char *const f[] = { "n", "no", "off", "0", "false", "f", NULL };
	if (!v)
		return xstrdup("");
	for (int i = 0; t[i]; i++) {
		if (!strcasecmp(v, t[i]))
			return xstrdup("1");
		if (!strcasecmp(v, f[i]))
			return xstrdup("0");
	}
	return mod_strip(v, strlen(v));
}

/* _values_is_equal: the same whitespace-separated words in the same order. */
static bool same_words(const char *a, const char *b)
{
	for (;;) {
		while (isspace((unsigned char)*a))
			a++;
		while (isspace((unsigned char)*b))
			b++;
		size_t na = strcspn(a, " \t\n\r\f\v"), nb = strcspn(b, " \t\n\r\f\v");
		if (na != nb || strncmp(a, b, na))
			return false;
		if (!na)
			return true;
		a += na;
		b += nb;
	}
}

static bool is_setting(const char *line)
{
	return *line && *line != '#' && *line != ';' && strchr(line, '=');
}

/* k=v of a setting line: the stripped key (malloc'd), *v the stripped value. */
static char *split_setting(const char *line, char **v)
{
	const char *eq = strchr(line, '=');
	*v = mod_strip(eq + 1, strlen(eq + 1));
	return mod_strip(line, (size_t)(eq - line));
}

/* The error lines sysctl prints with status 0 that the module fails on. */
static bool stderr_failed(const char *err)
{
	return mod_re("^sysctl: setting key \"[^\"]+\": (Invalid argument|Read-only file system)$",
		      err, strlen(err), false, NULL) == 1;
}

/* The file's lines, stripped (Python's readlines and strip: \n, \r\n and
 * \r end lines), into out; *found the last value of name, or NULL. */
static void read_lines(const struct strbuf *data, const char *name, json_t *out, char **found)
{
	*found = NULL;
	for (size_t i = 0; i < data->len;) {
		size_t j = i;
		while (j < data->len && data->buf[j] != '\n' && data->buf[j] != '\r')
			j++;
		char *line = mod_strip(data->buf + i, j - i);
		if (j < data->len && data->buf[j] == '\r' && j + 1 < data->len && data->buf[j + 1] == '\n')
			j++;
		i = j + 1;
		if (is_setting(line)) {
			char *v, *k = split_setting(line, &v);
			if (!strcmp(k, name)) {
				free(*found);
				*found = v;
			} else {
				free(v);
			}
			free(k);
		}
		json_array_append_new(out, json_string(line));
		free(line);
	}
}

/* The module's fix_lines and write_sysctl: the new file's text (every
 * line already stripped, as the module writes them). */
static void fix_lines(json_t *lines, const char *name, const char *value, bool present,
		      struct strbuf *out)
{
	json_t *seen = json_object();
	size_t i;
	json_t *l;
	json_array_foreach(lines, i, l) {
		const char *line = json_string_value(l);
		if (!is_setting(line)) {
			strbuf_addf(out, "%s\n", line);
			continue;
		}
		char *v, *k = split_setting(line, &v);
		if (!json_object_get(seen, k)) {
			json_object_set_new(seen, k, json_true());
			if (strcmp(k, name))
				strbuf_addf(out, "%s=%s\n", k, v);
			else if (present)
				strbuf_addf(out, "%s=%s\n", k, value);
		}
		free(k);
		free(v);
	}
	if (!json_object_get(seen, name) && present)
		strbuf_addf(out, "%s=%s\n", name, value);
	json_decref(seen);
}

/* Runs cmd (under the C locale); a failure "WHAT: stdout+stderr" when
 * its status is not 0 or its stderr names a key it could not set. */
static int run_checked(struct exec_ctx *x, const char *cmd, const char *what, json_t **res)
{
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, cmd, NULL, 0, &cr, res);
	if (rc == 0 && (cr.rc != 0 || stderr_failed(strbuf_str(&cr.err)))) {
		*res = res_fail("%s%s%s", what, strbuf_str(&cr.out), strbuf_str(&cr.err));
		rc = -1;
	}
	conn_result_release(&cr);
	return rc;
}

/* Ansible's write_sysctl onto a sysctl_file that is a directory (not a
 * link to one, which the rename replaces): its temporary file is made
 * beside it with the directory's mode and owner, and the rename onto the
 * directory fails with Python's EISDIR, the temporary file left there.
 * -1 with *res that failure; 0 when the path is no directory after all
 * (mod_write then writes it). */
static int dir_write(struct exec_ctx *x, const char *file, const struct strbuf *content, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, file);
	strbuf_addstr(&c, "; { [ -d \"$p\" ] && [ ! -L \"$p\" ]; } || exit 0; "
			 "t=$(mktemp --suffix=.conf \"$(dirname -- \"$p\")/.imc_sysctl_XXXXXXXX\") || exit 1; "
			 "cat > \"$t\"; chmod --reference=\"$p\" \"$t\"; chown --reference=\"$p\" \"$t\" 2>/dev/null; "
			 "printf '%s' \"$t\"; exit 3");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, content->buf ? content->buf : "", content->len, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc == 3) {
		const char *t = strbuf_str(&cr.out);
		*res = res_fail("Could not replace file: %s to %s: [Errno 21] Is a directory: b'%s' -> b'%s'", t,
				file, t, file);
		rc = -1;
	} else if (rc == 0 && cr.rc != 0) {
		*res = res_fail("cannot write '%s': %s", file, strbuf_str(&cr.err));
		rc = -1;
	}
	conn_result_release(&cr);
	return rc;
}

static json_t *sysctl_run(struct exec_ctx *x, json_t *args)
{
	char *name = args_strdup(args, "name"), *raw = args_strdup(args, "value");
	const char *state = args_str(args, "state"), *file = args_str(args, "sysctl_file");
	char *bin = NULL, *proc = NULL, *value = NULL, *fileval = NULL, *what = NULL;
	json_t *res = NULL, *lines = json_array();
	struct strbuf c = STRBUF_INIT, data = STRBUF_INIT, out = STRBUF_INIT;
	bool reload, sysctl_set, ignoreerrors;
	if (!name)
		name = args_strdup(args, "key");
	if (!raw)
		raw = args_strdup(args, "val");
	if (!state)
		state = "present";
	if (!file)
		file = "/etc/sysctl.conf";
	static const char *const paths[] = { "sysctl_file", NULL };
	if (!name) {
		res = res_fail("missing required arguments: name");
		goto out;
	}
	if ((res = mod_bool_arg(args, "reload", true, &reload)) ||
	    (res = mod_bool_arg(args, "sysctl_set", false, &sysctl_set)) ||
	    (res = mod_bool_arg(args, "ignoreerrors", false, &ignoreerrors)) ||
	    (res = mod_unexpanded("sysctl", args, paths)))
		goto out;
	if (strcmp(state, "present") && strcmp(state, "absent")) {
		res = res_fail("value of state must be one of: present, absent, got: %s", state);
		goto out;
	}
	bool present = !strcmp(state, "present");
	if (present && !raw) {
		res = res_fail("state is present but all of the following are missing: value");
		goto out;
	}
	if (!*name) {
		res = res_fail("name cannot be blank");
		goto out;
	}
	if (present && !*raw) {
		res = res_fail("value cannot be blank");
		goto out;
	}
	if (mod_bin_path(x, "sysctl", true, &bin, &res) < 0)
		goto out;
	{
		char *s = mod_strip(name, strlen(name));
		free(name);
		name = s;
	}
	value = parse_value(raw);

	/* the running value: None when sysctl cannot read it */
	strbuf_addstr(&c, LANG_C);
	sh_quote(&c, bin);
	strbuf_addstr(&c, " -e -n ");
	sh_quote(&c, name);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
	if (rc == 0 && cr.rc == 0)
		proc = xstrdup(strbuf_str(&cr.out));
	conn_result_release(&cr);
	if (rc < 0)
		goto out;

	struct node_stat st;
	if (mod_stat(x, file, true, false, &st, &res) < 0)
		goto out;
	if (st.isreg) {
		bool exists;
		if (mod_read(x, file, &data, &exists, &res) < 0)
			goto out;
	}
	read_lines(&data, name, lines, &fileval);
	fix_lines(lines, name, value, present, &out);

	bool changed = false, write_file = false, set_proc = false;
	if (!fileval && present) {
		changed = write_file = true;
	} else if (!fileval) {
		changed = false;
	} else if (*fileval && !present) {
		changed = write_file = true;
	} else if (strcmp(fileval, value)) {
		changed = write_file = true;
	} else if (reload) {
		/* the file holds the value: reload when the kernel does not */
		changed = !proc || !same_words(proc, value);
	}
	if (sysctl_set && present) {
		if (!proc) {
			changed = true;
		} else if (!same_words(proc, value)) {
			changed = true;
			set_proc = true;
		}
	}

	if (!x->check_mode) {
		if (set_proc) {
			strbuf_reset(&c);
			strbuf_addstr(&c, LANG_C);
			sh_quote(&c, bin);
			strbuf_addstr(&c, ignoreerrors ? " -e -w " : " -w ");
			char *kv = xasprintf("%s=%s", name, value);
			sh_quote(&c, kv);
			free(kv);
			what = xasprintf("setting %s failed: ", name);
			if (run_checked(x, c.buf, what, &res) < 0)
				goto out;
		}
		if (write_file && st.isdir && dir_write(x, file, &out, &res) < 0)
			goto out;
		if (write_file && mod_write(x, file, out.buf ? out.buf : "", out.len, -1, &res) < 0)
			goto out;
		if (changed && reload) {
			strbuf_reset(&c);
			strbuf_addstr(&c, LANG_C);
			sh_quote(&c, bin);
			strbuf_addstr(&c, ignoreerrors ? " -e -p " : " -p ");
			sh_quote(&c, file);
			if (run_checked(x, c.buf, "Failed to reload sysctl: ", &res) < 0)
				goto out;
		}
	}
	res = res_new(changed);
out:
	free(name);
	free(raw);
	free(bin);
	free(proc);
	free(value);
	free(fileval);
	free(what);
	json_decref(lines);
	strbuf_release(&c);
	strbuf_release(&data);
	strbuf_release(&out);
	return res;
}

static int sysctl_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "name", "key", "value", "val", "state", "reload",
					     "sysctl_set", "ignoreerrors", "sysctl_file", NULL };
	return mod_check_params("sysctl", args, known, d, loc);
}

static const char *const sysctl_node_paths[] = { "sysctl_file", NULL };

const struct task_module mod_sysctl = {
	.name = "sysctl", .check = sysctl_check, .run = sysctl_run, .check_mode_native = true,
	.node_paths = sysctl_node_paths,
};
