/* timezone.c: the `timezone` module (community.general.timezone) on Linux,
 * as the collection Debian 12's ansible ships behaves. With a working
 * timedatectl (systemd) the zone and the hardware clock are read from
 * `timedatectl status` and set with set-timezone and set-local-rtc.
 * Without it, on Debian (dpkg-reconfigure present), the zone is the first
 * word of /etc/timezone and /etc/localtime's link (or content), set by
 * rewriting /etc/timezone, linking /etc/localtime and running
 * `dpkg-reconfigure tzdata`; the hardware clock is UTC= in
 * /etc/default/rcS, then /etc/adjtime, set there and with `hwclock
 * --systohc`. Each value is read before and, outside check mode, after the
 * change, which must have reached the planned value; changed when before
 * and after differ, and the diff {before, after} is always returned, with
 * msg the module's log of what it did. Check mode reports the planned
 * values as after and changes nothing. Other Linux systems without
 * timedatectl (RHEL's /etc/sysconfig/clock, Alpine, Gentoo) are not
 * implemented and fail saying so. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum { K_HWCLOCK, K_NAME, K_N };
static const char *const key_name[K_N] = { "hwclock", "name" };

struct tz {
	struct exec_ctx *x;
	bool systemd;
	char *timedatectl, *hwclock, *ln, *dpkg_reconfigure;
	char *planned[K_N], *before[K_N], *after[K_N]; /* NULL: key not given */
	char *status;                                   /* timedatectl status of this phase */
	json_t *msg;                                    /* the module's log lines */
};

/* The module's abort(): its message, then the log so far. */
static json_t *tz_abort(struct tz *t, const char *msg)
{
	struct strbuf m = STRBUF_INIT;
	strbuf_addf(&m, "Error message:\n%s", msg);
	if (json_array_size(t->msg)) {
		size_t i;
		json_t *l;
		strbuf_addstr(&m, "\nOther message(s):");
		json_array_foreach(t->msg, i, l)
			strbuf_addf(&m, "\n%s", json_string_value(l));
	}
	json_t *res = res_fail("%s", m.buf);
	strbuf_release(&m);
	return res;
}

/* The module's execute(): runs the command words (run_command with
 * check_rc), its stdout in *out when out; a failure as run_command words
 * it (msg the stderr without its trailing blanks, cmd, rc, stdout,
 * stderr). log: the command goes to the module's log. */
static int tz_exec(struct tz *t, const char *const *words, bool log, char **out, json_t **res)
{
	struct strbuf c = STRBUF_INIT, shown = STRBUF_INIT;
	for (size_t i = 0; words[i]; i++) {
		if (i) {
			strbuf_addch(&c, ' ');
			strbuf_addch(&shown, ' ');
		}
		sh_quote(&c, words[i]);
		strbuf_addstr(&shown, words[i]);
	}
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(t->x, c.buf, NULL, 0, &cr, res);
	if (rc == 0 && cr.rc != 0) {
		const char *e = strbuf_str(&cr.err);
		size_t n = strlen(e);
		while (n && isspace((unsigned char)e[n - 1]))
			n--;
		*res = res_fail("%.*s", (int)n, e);
		json_object_set_new(*res, "cmd", json_string(shown.buf));
		json_object_set_new(*res, "rc", json_integer(cr.rc));
		json_object_set_new(*res, "stdout", json_string(strbuf_str(&cr.out)));
		json_object_set_new(*res, "stderr", json_string(e));
		rc = -1;
	} else if (rc == 0) {
		if (out)
			*out = xstrdup(strbuf_str(&cr.out));
		if (log) {
			char *l = xasprintf("executed `%s`", shown.buf);
			json_array_append_new(t->msg, json_string(l));
			free(l);
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	strbuf_release(&shown);
	return rc;
}

/* The first line of s starting with prefix (after blanks when lead):
 * the word following "PREFIX <blanks> : <blanks>" (or '=' for sep),
 * malloc'd, or NULL. */
static char *line_value(const char *s, const char *prefix, bool lead, char sep)
{
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l;
		if (lead)
			while (*p == ' ' || *p == '\t')
				p++;
		if (strncmp(p, prefix, strlen(prefix)))
			continue;
		p += strlen(prefix);
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != sep)
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \t\n\r\f\v");
		if (n)
			return xstrndup(p, n);
	}
	return NULL;
}

/* Python's boolean() of a config value: true for yes, on, 1, true... */
static bool truthy(const char *v)
{
	static const char *const t[] = { "y", "yes", "on", "1", "true", "t", NULL };
	for (const char *const *w = t; *w; w++)
		if (!strcasecmp(v, *w))
			return true;
	return false;
}

/* ---- systemd: timedatectl ---------------------------------------------- */

static int systemd_get(struct tz *t, int k, char **v, json_t **res)
{
	if (!t->status) {
		const char *w[] = { t->timedatectl, "status", NULL };
		if (tz_exec(t, w, false, &t->status, res) < 0)
			return -1;
	}
	char *s = NULL;
	if (k == K_NAME) {
		s = line_value(t->status, "Time zone", true, ':');
		if (!s)
			s = line_value(t->status, "Timezone", true, ':');
	} else {
		s = line_value(t->status, "RTC in local TZ", true, ':');
	}
	if (!s) {
		*res = res_fail("timezone: `timedatectl status` printed no %s line",
				k == K_NAME ? "Time zone" : "RTC in local TZ");
		return -1;
	}
	if (k == K_HWCLOCK) {
		bool local = truthy(s);
		free(s);
		s = xstrdup(local ? "local" : "UTC");
	}
	*v = s;
	return 0;
}

static int systemd_set(struct tz *t, int k, const char *v, json_t **res)
{
	const char *w[] = { t->timedatectl, k == K_NAME ? "set-timezone" : "set-local-rtc",
			    k == K_NAME ? v : !strcmp(v, "local") ? "yes" : "no", NULL };
	return tz_exec(t, w, true, NULL, res);
}

/* ---- Debian without systemd: files, ln, dpkg-reconfigure, hwclock -------- */

#define TZ_FILE "/etc/timezone"
#define RCS_FILE "/etc/default/rcS"
#define ADJTIME "/etc/adjtime"

/* /etc/timezone's zone: the first line's first word when the line does
 * not start with a blank. */
static char *first_word(const char *s)
{
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n = strcspn(l, " \t\n\r\f\v");
		if (n)
			return xstrndup(l, n);
	}
	return NULL;
}

static bool adjtime_line(const char *l, size_t n, const char **v)
{
	if (n == 3 && !strncmp(l, "UTC", 3))
		*v = "UTC";
	else if (n == 5 && !strncmp(l, "LOCAL", 5))
		*v = "local";
	else
		return false;
	return true;
}

/* The module's _get_value_from_config for key k (or adjtime when
 * adjtime): *v the value, "n/a" for a missing file or no value. */
static int config_value(struct tz *t, int k, bool adjtime, bool before, char **v, json_t **res)
{
	const char *file = adjtime ? ADJTIME : k == K_NAME ? TZ_FILE : RCS_FILE;
	struct strbuf data = STRBUF_INIT;
	bool exists;
	int rc = mod_read(t->x, file, &data, &exists, res);
	*v = NULL;
	if (rc < 0)
		goto out;
	const char *s = strbuf_str(&data);
	if (!exists) {
		*v = xstrdup(adjtime ? "UTC" : "n/a");
	} else if (adjtime) {
		const char *a = NULL;
		for (const char *l = s; l && *l && !a; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			adjtime_line(l, strcspn(l, "\n"), &a);
		*v = xstrdup(a ? a : "UTC");
	} else if (k == K_HWCLOCK) {
		char *u = line_value(s, "UTC", false, '=');
		*v = xstrdup(!u ? "n/a" : truthy(u) ? "UTC" : "local");
		free(u);
	} else if (!(*v = first_word(s))) {
		if (before) {
			*v = xstrdup("n/a");
		} else {
			*res = tz_abort(t, "tried to configure name using a file \"" TZ_FILE
					   "\", but could not find a valid value in it");
			rc = -1;
		}
	}
out:
	strbuf_release(&data);
	return rc;
}

/* Where /etc/localtime points when it is the planned zone's file: the
 * zone its link names, "n/a" when it names none (or is broken, or is a
 * file that differs), or the planned zone itself. */
static int localtime_zone(struct tz *t, const char *planned, char **v, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "f=/usr/share/zoneinfo/");
	sh_quote(&c, planned);
	strbuf_addstr(&c, "; if [ -L /etc/localtime ]; then [ -e /etc/localtime ] || { echo broken; exit 0; }; "
			 "printf 'link '; readlink /etc/localtime; "
			 "elif cmp -s /etc/localtime \"$f\"; then echo same; else echo differs; fi");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(t->x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc < 0)
		goto out;
	const char *o = strbuf_str(&cr.out);
	if (!strncmp(o, "link ", 5)) {
		/* the part after the first /usr/share/zoneinfo/ or /etc/zoneinfo/ */
		const char *a = strstr(o + 5, "/usr/share/zoneinfo/"), *b = strstr(o + 5, "/etc/zoneinfo/");
		const char *z = a && (!b || a < b) ? a + 20 : b ? b + 14 : NULL;
		if (!z)
			*v = xstrdup("n/a");
		else
			*v = xstrndup(z, strcspn(z, "\n"));
	} else {
		*v = xstrdup(!strncmp(o, "same", 4) ? planned : "n/a");
	}
out:
	conn_result_release(&cr);
	return rc;
}

static int nosystemd_get(struct tz *t, int k, bool before, char **v, json_t **res)
{
	if (config_value(t, k, false, before, v, res) < 0)
		return -1;
	if (strcmp(*v, t->planned[k]))
		return 0;
	/* the file holds the planned value: the clock's other record decides */
	free(*v);
	*v = NULL;
	if (k == K_HWCLOCK)
		return config_value(t, k, true, before, v, res);
	return localtime_zone(t, t->planned[k], v, res);
}

/* The module's _edit_file: every line the key's pattern matches is
 * removed and line put where the first was (or first); the file written
 * in place, as Python's open(..., 'w'). */
static int edit_file(struct tz *t, int k, const char *line, json_t **res)
{
	const char *file = k == K_NAME ? TZ_FILE : RCS_FILE;
	struct strbuf data = STRBUF_INIT, out = STRBUF_INIT, c = STRBUF_INIT;
	bool exists;
	size_t deleted = 0;
	bool placed = false;
	int rc = mod_read(t->x, file, &data, &exists, res);
	if (rc < 0)
		goto out;
	const char *s = strbuf_str(&data);
	for (const char *l = s; *l;) {
		size_t n = strcspn(l, "\n");
		n += l[n] == '\n';
		char *cur = xstrndup(l, n), *w = NULL;
		bool match = k == K_NAME ? (w = first_word(cur)) && !isspace((unsigned char)*cur)
					 : (w = line_value(cur, "UTC", false, '=')) != NULL;
		free(w);
		if (match) {
			deleted++;
			if (!placed)
				strbuf_addstr(&out, line);
			placed = true;
		} else {
			strbuf_addstr(&out, cur);
		}
		free(cur);
		l += n;
	}
	if (!placed) {
		struct strbuf tmp = STRBUF_INIT;
		strbuf_addf(&tmp, "%s%s", line, strbuf_str(&out));
		strbuf_release(&out);
		out = tmp;
	}
	strbuf_addstr(&c, "cat > ");
	sh_quote(&c, file);
	strbuf_addstr(&c, " 2>/dev/null");
	struct conn_result cr;
	conn_result_init(&cr);
	rc = mod_sh(t->x, c.buf, out.buf, out.len, &cr, res);
	if (rc == 0 && cr.rc != 0) {
		char *m = xasprintf("tried to configure %s using a file \"%s\", but could not write to it",
				    key_name[k], file);
		*res = tz_abort(t, m);
		free(m);
		rc = -1;
	}
	conn_result_release(&cr);
	if (rc == 0) {
		char *m = xasprintf("Added 1 line and deleted %zu line(s) on %s", deleted, file);
		json_array_append_new(t->msg, json_string(m));
		free(m);
	}
out:
	strbuf_release(&data);
	strbuf_release(&out);
	strbuf_release(&c);
	return rc;
}

static int nosystemd_set(struct tz *t, int k, const char *v, json_t **res)
{
	if (k == K_NAME) {
		char *line = xasprintf("%s\n", v), *tzfile = xasprintf("/usr/share/zoneinfo/%s", v);
		const char *ln[] = { t->ln, "-sf", tzfile, "/etc/localtime", NULL };
		const char *dr[] = { t->dpkg_reconfigure, "--frontend", "noninteractive", "tzdata", NULL };
		int rc = edit_file(t, k, line, res);
		if (rc == 0)
			rc = tz_exec(t, ln, false, NULL, res);
		if (rc == 0)
			rc = tz_exec(t, dr, false, NULL, res);
		free(line);
		free(tzfile);
		return rc;
	}
	bool local = !strcmp(v, "local");
	const char *w[] = { t->hwclock, "--systohc", local ? "--localtime" : "--utc", NULL };
	if (edit_file(t, k, local ? "UTC=no\n" : "UTC=yes\n", res) < 0)
		return -1;
	return tz_exec(t, w, true, NULL, res);
}

/* ---- the module ------------------------------------------------------------ */

static int tz_get(struct tz *t, int k, bool before, char **v, json_t **res)
{
	return t->systemd ? systemd_get(t, k, v, res) : nosystemd_get(t, k, before, v, res);
}

/* Which implementation the node takes, and the commands it needs, in the
 * order the module looks for them. */
static int tz_setup(struct tz *t, json_t **res)
{
	struct exec_ctx *x = t->x;
	char *p = NULL;
	if (mod_bin_path(x, "timedatectl", false, &t->timedatectl, res) < 0)
		return -1;
	if (t->timedatectl) {
		struct strbuf c = STRBUF_INIT;
		sh_quote(&c, t->timedatectl);
		struct conn_result cr;
		conn_result_init(&cr);
		int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
		t->systemd = rc == 0 && cr.rc == 0;
		conn_result_release(&cr);
		strbuf_release(&c);
		if (rc < 0)
			return -1;
	}
	if (t->planned[K_NAME]) {
		struct node_stat st;
		char *f = xasprintf("/usr/share/zoneinfo/%s", t->planned[K_NAME]);
		int rc = mod_stat(x, f, true, false, &st, res);
		free(f);
		if (rc < 0)
			return -1;
		if (!st.isreg) {
			char *m = xasprintf("given timezone \"%s\" is not available", t->planned[K_NAME]);
			*res = tz_abort(t, m);
			free(m);
			return -1;
		}
	}
	if (t->systemd)
		return 0;
	if (t->planned[K_NAME]) {
		if (mod_bin_path(x, "cp", true, &p, res) < 0)
			return -1;
		free(p);
	}
	if (mod_bin_path(x, "hwclock", true, &t->hwclock, res) < 0 ||
	    mod_bin_path(x, "dpkg-reconfigure", false, &t->dpkg_reconfigure, res) < 0)
		return -1;
	if (!t->dpkg_reconfigure) {
		*res = res_fail("timezone: unsupported: a Linux node with neither a working timedatectl "
				"nor dpkg-reconfigure (RHEL's /etc/sysconfig/clock, Alpine and Gentoo are "
				"not implemented)");
		return -1;
	}
	if (t->planned[K_NAME]) {
		free(t->dpkg_reconfigure);
		t->dpkg_reconfigure = NULL;
		if (mod_bin_path(x, "ln", true, &t->ln, res) < 0 ||
		    mod_bin_path(x, "dpkg-reconfigure", true, &t->dpkg_reconfigure, res) < 0)
			return -1;
	}
	return 0;
}

/* Python's str() of the dict of the given keys' values. */
static void pydict(struct strbuf *sb, struct tz *t, char **v)
{
	bool first = true;
	strbuf_addch(sb, '{');
	for (int k = 0; k < K_N; k++) {
		if (!t->planned[k])
			continue;
		strbuf_addf(sb, "%s'%s': '%s'", first ? "" : ", ", key_name[k], v[k]);
		first = false;
	}
	strbuf_addch(sb, '}');
}

static json_t *dict(struct tz *t, char **v)
{
	json_t *d = json_object();
	for (int k = 0; k < K_N; k++)
		if (t->planned[k])
			json_object_set_new(d, key_name[k], json_string(v[k]));
	return d;
}

static json_t *timezone_run(struct exec_ctx *x, json_t *args)
{
	struct tz t = { .x = x, .msg = json_array() };
	json_t *res = NULL;
	t.planned[K_NAME] = args_strdup(args, "name");
	t.planned[K_HWCLOCK] = args_strdup(args, "hwclock");
	if (!t.planned[K_HWCLOCK])
		t.planned[K_HWCLOCK] = args_strdup(args, "rtc");
	if (!t.planned[K_NAME] && !t.planned[K_HWCLOCK]) {
		res = res_fail("one of the following is required: hwclock, name");
		goto out;
	}
	if (t.planned[K_HWCLOCK] && strcmp(t.planned[K_HWCLOCK], "local") &&
	    strcmp(t.planned[K_HWCLOCK], "UTC")) {
		res = res_fail("value of hwclock must be one of: local, UTC, got: %s", t.planned[K_HWCLOCK]);
		goto out;
	}
	if (tz_setup(&t, &res) < 0)
		goto out;
	for (int k = 0; k < K_N; k++)
		if (t.planned[k] && tz_get(&t, k, true, &t.before[k], &res) < 0)
			goto out;
	char **after = t.planned;
	if (!x->check_mode) {
		for (int k = 0; k < K_N; k++) {
			if (!t.planned[k] || !strcmp(t.before[k], t.planned[k]))
				continue;
			if ((t.systemd ? systemd_set(&t, k, t.planned[k], &res)
				       : nosystemd_set(&t, k, t.planned[k], &res)) < 0)
				goto out;
		}
		free(t.status); /* the after phase asks timedatectl again */
		t.status = NULL;
		bool same = true;
		for (int k = 0; k < K_N; k++) {
			if (!t.planned[k])
				continue;
			if (tz_get(&t, k, false, &t.after[k], &res) < 0)
				goto out;
			same &= !strcmp(t.after[k], t.planned[k]);
		}
		if (!same) {
			struct strbuf m = STRBUF_INIT;
			strbuf_addstr(&m, "still not desired state, though changes have made - planned: ");
			pydict(&m, &t, t.planned);
			strbuf_addstr(&m, ", after: ");
			pydict(&m, &t, t.after);
			res = tz_abort(&t, m.buf);
			strbuf_release(&m);
			goto out;
		}
		after = t.after;
	}
	bool changed = false;
	for (int k = 0; k < K_N; k++)
		if (t.planned[k])
			changed |= strcmp(t.before[k], after[k]) != 0;
	res = res_new(changed);
	json_object_set_new(res, "diff", json_pack("{s:o, s:o}", "before", dict(&t, t.before), "after",
						   dict(&t, after)));
	if (json_array_size(t.msg)) {
		struct strbuf m = STRBUF_INIT;
		size_t i;
		json_t *l;
		json_array_foreach(t.msg, i, l)
			strbuf_addf(&m, "%s%s", i ? "\n" : "", json_string_value(l));
		json_object_set_new(res, "msg", json_string(m.buf));
		strbuf_release(&m);
	}
out:
	for (int k = 0; k < K_N; k++) {
		free(t.planned[k]);
		free(t.before[k]);
		free(t.after[k]);
	}
	free(t.timedatectl);
	free(t.hwclock);
	free(t.ln);
	free(t.dpkg_reconfigure);
	free(t.status);
	json_decref(t.msg);
	return res;
}

static int timezone_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "name", "hwclock", "rtc", NULL };
	return mod_check_params("timezone", args, known, d, loc);
}

const struct task_module mod_timezone = {
	.name = "timezone", .check = timezone_check, .run = timezone_run, .check_mode_native = true,
};
