/* cron.c: the `cron` module on a cron file (cron_file=, absolute or under
 * /etc/cron.d), as Ansible 2.14's: a job is a "#Ansible: NAME" marker line
 * followed by its line ("M H DoM Mon DoW USER JOB", or "@SPECIAL USER
 * JOB", "#"-prefixed when disabled); env=yes manages a NAME="JOB"
 * variable line instead (inserted first, or after/before another one).
 * state=absent removes the job (or variable), and the file when nothing
 * but blank lines is left. changed, jobs, envs and cron_file as Ansible
 * reports them, including its quirks: an unmarked line equal to the job
 * gets the marker inserted before it, and a file not ending in a newline
 * is always rewritten; and, as Ansible's module, it fails when the node
 * has no crontab command. Check mode reports the same and writes
 * nothing. A user's crontab (no cron_file) goes through the
 * crontab command and backup through a temporary file: neither is
 * implemented, and both are refused when the play is loaded. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MARK "#Ansible: "

struct crontab {
	char **l;
	size_t n;
};

static void ct_insert(struct crontab *c, size_t at, const char *s)
{
	c->l = xrealloc(c->l, (c->n + 1) * sizeof(*c->l));
	memmove(c->l + at + 1, c->l + at, (c->n - at) * sizeof(*c->l));
	c->l[at] = xstrdup(s);
	c->n++;
}

static void ct_free(struct crontab *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->l[i]);
	free(c->l);
}

/* Python's str.splitlines on \n, \r\n and \r (the separators a cron file holds). */
static void ct_split(struct crontab *c, const char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && s[j] != '\n' && s[j] != '\r')
			j++;
		char *line = xstrndup(s + i, j - i);
		ct_insert(c, c->n, line);
		free(line);
		if (j < len && s[j] == '\r' && j + 1 < len && s[j + 1] == '\n')
			j++;
		i = j + 1;
	}
}

static bool is_mark(const char *l)
{
	return !strncmp(l, MARK, strlen(MARK));
}

/* Ansible's find_job: [marker, job] of the job named name, or the job
 * line found unmarked (its marker then inserted; *inserted set). */
static int find_job(struct crontab *c, const char *name, const char *job, bool *inserted)
{
	*inserted = false;
	const char *comment = NULL;
	for (size_t i = 0; i < c->n; i++) {
		if (comment) {
			if (!strcmp(comment, name))
				return (int)i;
			comment = NULL;
		} else if (is_mark(c->l[i])) {
			comment = c->l[i] + strlen(MARK);
		}
	}
	if (!job)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->l[i], job))
			continue;
		/* lines[i - 1] is Python's: the last line when i is 0 */
		const char *prev = c->l[i ? i - 1 : c->n - 1];
		if (!is_mark(prev)) {
			char *m = xasprintf(MARK "%s", name);
			ct_insert(c, i, m);
			free(m);
			*inserted = true;
			return (int)i + 1;
		}
		if (!strcmp(prev, MARK "None")) {
			free(c->l[i ? i - 1 : c->n - 1]);
			c->l[i ? i - 1 : c->n - 1] = xasprintf(MARK "%s", name);
			*inserted = true;
			return (int)i;
		}
	}
	return -1;
}

/* Ansible's _update_job: the line after each "#Ansible: NAME" marker is
 * replaced by the marker and job (job NULL: both dropped). */
static void update_job(struct crontab *c, const char *name, const char *job)
{
	char *mark = xasprintf(MARK "%s", name);
	struct crontab out = { 0 };
	const char *comment = NULL;
	for (size_t i = 0; i < c->n; i++) {
		if (comment) {
			if (job) {
				ct_insert(&out, out.n, comment);
				ct_insert(&out, out.n, job);
			}
			comment = NULL;
		} else if (!strcmp(c->l[i], mark)) {
			comment = c->l[i];
		} else {
			ct_insert(&out, out.n, c->l[i]);
		}
	}
	ct_free(c);
	*c = out;
	free(mark);
}

/* re.match('^NAME=', line), NAME taken as a regex as Ansible does; names
 * are plain words in practice, compared literally here. */
static bool env_is(const char *l, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(l, name, n) && l[n] == '=';
}

static int find_env(struct crontab *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (env_is(c->l[i], name))
			return (int)i;
	return -1;
}

static void update_env(struct crontab *c, const char *name, const char *decl)
{
	size_t o = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (!env_is(c->l[i], name)) {
			c->l[o++] = c->l[i];
		} else if (decl) {
			free(c->l[i]);
			c->l[o++] = xstrdup(decl);
		} else {
			free(c->l[i]);
		}
	}
	c->n = o;
}

static void render(const struct crontab *c, struct strbuf *out)
{
	for (size_t i = 0; i < c->n; i++)
		strbuf_addf(out, "%s%s", i ? "\n" : "", c->l[i]);
	while (out->len && (out->buf[out->len - 1] == '\n' || out->buf[out->len - 1] == '\r'))
		out->buf[--out->len] = '\0';
	if (out->len)
		strbuf_addch(out, '\n');
}

static json_t *names(const struct crontab *c, bool env)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n; i++) {
		const char *l = c->l[i];
		if (!env && is_mark(l)) {
			json_array_append_new(a, json_string(l + strlen(MARK)));
		} else if (env) {
			/* re.match(r'^\S+=', l), then l.split('=')[0]: an '='
			 * after the first character of the line's first word,
			 * the name what precedes the first '=' (empty for
			 * "=a=b") */
			size_t w = strcspn(l, " \t\n\r\f\v");
			const char *eq = w > 1 ? memchr(l + 1, '=', w - 1) : NULL;
			if (eq)
				json_array_append_new(a, json_stringn(l, strcspn(l, "=")));
		}
	}
	return a;
}

/* A time field; with both the name and its alias given, the alias's value
 * wins, as AnsibleModule's alias handling copies it over the name's. */
static const char *field(json_t *args, const char *k, const char *alias)
{
	const char *v = alias ? args_str(args, alias) : NULL;
	if (!v)
		v = args_str(args, k);
	return v ? v : "*";
}

/* Ansible's module wants the crontab command even for a cron file, and
 * fails as get_bin_path words it when the node has none. */
static int need_crontab(struct exec_ctx *x, json_t **res)
{
	char *p = NULL;
	int rc = mod_bin_path(x, "crontab", true, &p, res);
	free(p);
	return rc;
}

static json_t *cron_run(struct exec_ctx *x, json_t *args)
{
	const char *name = args_str(args, "name"), *user = args_str(args, "user");
	const char *job = args_str(args, "job"), *file = args_str(args, "cron_file");
	const char *state = args_str(args, "state"), *special = args_str(args, "special_time");
	const char *after = args_str(args, "insertafter"), *before = args_str(args, "insertbefore");
	bool disabled = args_bool(json_object_get(args, "disabled"), false);
	bool env = args_bool(json_object_get(args, "env"), false);
	if (!job)
		job = args_str(args, "value");
	const char *f[5] = { field(args, "minute", NULL), field(args, "hour", NULL),
			     field(args, "day", "dom"), field(args, "month", NULL),
			     field(args, "weekday", "dow") };
	json_t *res = NULL;
	struct crontab c = { 0 };
	struct strbuf data = STRBUF_INIT, after_s = STRBUF_INIT;
	char *path = NULL, *line = NULL;
	if (!name)
		return res_fail("missing required arguments: name");
	if (!state)
		state = "present";
	if (strcmp(state, "present") && strcmp(state, "absent"))
		return res_fail("value of state must be one of: present, absent, got: %s", state);
	static const char *const specials[] = { "reboot", "yearly", "annually", "monthly", "weekly",
						"daily", "hourly", NULL };
	bool okspecial = !special;
	for (const char *const *s = specials; *s && !okspecial; s++)
		okspecial = !strcmp(*s, special);
	if (!okspecial)
		return res_fail("value of special_time must be one of: reboot, yearly, annually, "
				"monthly, weekly, daily, hourly, got: %s", special);
	if (after && before)
		return res_fail("parameters are mutually exclusive: insertafter|insertbefore");
	if (!file)
		return res_fail("cron: unsupported: a user's crontab (no cron_file)");
	static const char *const paths[] = { "cron_file", NULL };
	if ((res = mod_unexpanded("cron", args, paths)))
		return res;
	if (!strcmp(file, "/etc/crontab"))
		return res_fail("Will not manage /etc/crontab via cron_file, see documentation.");
	path = file[0] == '/' ? xstrdup(file) : xasprintf("/etc/cron.d/%s", file);
	bool install = !strcmp(state, "present");
	json_t *warnings = json_array();
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	bool okbase = *base != '\0';
	for (const char *p = base; *p; p++)
		okbase &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '-';
	if (!okbase) {
		char *w = xasprintf("Filename portion of cron_file (\"%s\") should consist solely of "
				    "upper- and lower-case letters, digits, underscores, and hyphens",
				    base);
		json_array_append_new(warnings, json_string(w));
		free(w);
	}
	if (need_crontab(x, &res) < 0)
		goto out;
	bool exists, unreadable = false;
	if (mod_read(x, path, &data, &exists, &res) < 0) {
		/* Ansible's CronTab.read catches the IOError of a cron file
		 * that is a directory and reads it as empty; writing it later
		 * raises (a module failure, below) */
		json_t *rc = json_object_get(res, "rc");
		if (!json_is_integer(rc) || json_integer_value(rc) != 256)
			goto out;
		json_decref(res);
		res = NULL;
		strbuf_reset(&data);
		unreadable = true;
	}
	ct_split(&c, data.buf ? data.buf : "", data.len);
	if (special) {
		for (int i = 0; i < 5; i++)
			if (strcmp(f[i], "*")) {
				res = res_fail("You must specify time and date fields or special time.");
				goto out;
			}
	}
	if (install) {
		if (!user) {
			res = res_fail("To use cron_file=... parameter you must specify user=... as well");
			goto out;
		}
		if (!job) {
			res = res_fail("You must specify 'job' to install a new cron job or variable");
			goto out;
		}
		if ((after || before) && !env) {
			res = res_fail("Insertafter and insertbefore parameters are valid only with env=yes");
			goto out;
		}
	}
	bool changed = false;
	if (env) {
		if (strchr(name, ' ')) {
			res = res_fail("Invalid name for environment variable");
			goto out;
		}
		char *decl = xasprintf("%s=\"%s\"", name, job ? job : "None");
		int old = find_env(&c, name);
		if (install && old < 0) {
			const char *other = after ? after : before;
			if (!other) {
				ct_insert(&c, 0, decl);
			} else {
				int at = find_env(&c, other);
				if (at < 0) {
					res = res_fail("Variable named '%s' not found.", other);
					free(decl);
					goto out;
				}
				ct_insert(&c, (size_t)at + (after ? 1 : 0), decl);
			}
			changed = true;
		} else if (install && strcmp(c.l[old], decl)) {
			update_env(&c, name, decl);
			changed = true;
		} else if (!install && old >= 0) {
			update_env(&c, name, NULL);
			changed = true;
		}
		free(decl);
	} else if (install) {
		size_t jl = strlen(job);
		while (jl && (job[jl - 1] == '\r' || job[jl - 1] == '\n'))
			jl--;
		size_t js = strspn(job, "\r\n");
		char *j = xstrndup(job + js, jl > js ? jl - js : 0);
		if (strpbrk(j, "\r\n"))
			json_array_append_new(warnings, json_string("Job should not contain line breaks"));
		if (special)
			line = xasprintf("%s@%s %s %s", disabled ? "#" : "", special, user, j);
		else
			line = xasprintf("%s%s %s %s %s %s %s %s", disabled ? "#" : "", f[0], f[1], f[2],
					 f[3], f[4], user, j);
		free(j);
		bool inserted;
		int at = find_job(&c, name, line, &inserted);
		if (at < 0) {
			char *m = xasprintf(MARK "%s", name);
			ct_insert(&c, c.n, m);
			ct_insert(&c, c.n, line);
			free(m);
			changed = true;
		} else if (strcmp(c.l[at], line) || inserted) {
			update_job(&c, name, line);
			changed = true;
		}
	} else {
		bool inserted;
		if (find_job(&c, name, NULL, &inserted) >= 0) {
			update_job(&c, name, NULL);
			changed = true;
			bool empty = true;
			for (size_t i = 0; i < c.n && empty; i++)
				empty = !c.l[i][strspn(c.l[i], " \t\n\r\f\v")];
			if (empty && x->check_mode) {
				/* Ansible's check mode: changed when the file is
				 * there to remove (os.path.isfile) */
				struct node_stat st;
				if (mod_stat(x, path, true, false, &st, &res) < 0)
					goto out;
				res = res_new(st.exists && st.isreg);
				json_object_set_new(res, "cron_file", json_string(file));
				json_object_set_new(res, "state", json_string(state));
				json_object_set_new(res, "diff", json_object());
				goto out;
			}
			if (empty) {
				struct strbuf rm = STRBUF_INIT;
				strbuf_addstr(&rm, "rm -- ");
				sh_quote(&rm, path);
				struct conn_result cr;
				conn_result_init(&cr);
				int rc = mod_sh(x, rm.buf, NULL, 0, &cr, &res);
				strbuf_release(&rm);
				if (rc == 0) {
					res = res_new(cr.rc == 0);
					json_object_set_new(res, "cron_file", json_string(file));
					json_object_set_new(res, "state", json_string(state));
					json_object_set_new(res, "diff", json_object());
				}
				conn_result_release(&cr);
				goto out;
			}
		}
	}
	if (!changed && data.len && data.buf[data.len - 1] != '\n' && data.buf[data.len - 1] != '\r')
		changed = true;
	if (changed && !x->check_mode) {
		if (unreadable) {
			res = res_module_failure();
			goto out;
		}
		render(&c, &after_s);
		if (mod_write(x, path, after_s.buf ? after_s.buf : "", after_s.len, -1, &res) < 0)
			goto out;
	}
	res = res_new(changed);
	json_object_set_new(res, "jobs", names(&c, false));
	json_object_set_new(res, "envs", names(&c, true));
	json_object_set_new(res, "warnings", json_incref(warnings));
	json_object_set_new(res, "cron_file", json_string(file));
out:
	json_decref(warnings);
	ct_free(&c);
	strbuf_release(&data);
	strbuf_release(&after_s);
	free(path);
	free(line);
	return res;
}

static int cron_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "name", "user", "job", "value", "cron_file", "state",
					     "minute", "hour", "day", "dom", "month", "weekday",
					     "dow", "special_time", "disabled", "env", "insertafter",
					     "insertbefore", NULL };
	if (mod_check_params("cron", args, known, d, loc) < 0)
		return -1;
	if (!json_object_get(args, "cron_file")) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "cron: unsupported without cron_file (a user's crontab)");
		return -1;
	}
	if (!json_object_get(args, "name")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "cron: missing required arguments: name");
		return -1;
	}
	return 0;
}

static const char *const cron_node_paths[] = { "cron_file", NULL };

const struct task_module mod_cron = {
	.name = "cron",
	/* check mode as Ansible's module: everything computed, nothing written */
	.check_mode_native = true,
	.check = cron_check,
	.run = cron_run,
	.node_paths = cron_node_paths,
};
