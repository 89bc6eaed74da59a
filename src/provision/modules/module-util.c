/* module-util.c: what modules share: result dicts, running a shell snippet on
 * the node as the task's become user with its environment, and the file
 * primitives (stat, read, atomic write, mode/owner/group) built on that
 * one exec call, so that every module behaves the same over the local and
 * the SSH connection and no Python is needed on the node. */
#include "config.h"

#include <ctype.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "provision/module.h"
#include "util/hash.h"
#include "util/vault.h"
#include "util/pypath.h"
#include "util/xalloc.h"
#include "util/banned.h"

json_t *res_new(bool changed)
{
	return json_pack("{s:b}", "changed", changed);
}

json_t *res_fail(const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	json_t *r = json_pack("{s:b, s:b, s:s}", "changed", 0, "failed", 1, "msg", strbuf_str(&sb));
	strbuf_release(&sb);
	return r;
}

json_t *res_refused(const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	json_t *r = res_fail("%s", strbuf_str(&sb));
	json_object_set_new(r, RES_REFUSED, json_true());
	strbuf_release(&sb);
	return r;
}

json_t *res_module_failure(void)
{
	json_t *r = res_fail("MODULE FAILURE\nSee stdout/stderr for the exact error");
	json_object_set_new(r, "rc", json_integer(1));
	return r;
}

json_t *res_bad_options(json_t *args, const char *module, const char *const *valid)
{
	struct strbuf bad = STRBUF_INIT;
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v) {
		const char *const *ok = valid;
		while (*ok && strcmp(*ok, k))
			ok++;
		if (!*ok)
			strbuf_addf(&bad, "%s%s", bad.len ? "," : "", k);
	}
	json_t *r = bad.len ? res_fail("Invalid options for %s: %s", module, strbuf_str(&bad)) : NULL;
	strbuf_release(&bad);
	return r;
}

static char *strip_ends(const char *s, size_t n)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

json_t *mod_splitlines(const char *s)
{
	json_t *a = json_array();
	const char *p = s;
	while (*p) {
		size_t n = strcspn(p, "\r\n");
		json_array_append_new(a, json_stringn(p, n));
		p += n;
		if (*p == '\r' && p[1] == '\n')
			p += 2;
		else if (*p)
			p++;
	}
	return a;
}

void res_set_output(json_t *res, const struct conn_result *cr)
{
	char *o = strip_ends(strbuf_str(&cr->out), cr->out.len);
	char *e = strip_ends(strbuf_str(&cr->err), cr->err.len);
	json_object_set_new(res, "rc", json_integer(cr->rc));
	json_object_set_new(res, "stdout", json_string(o));
	json_object_set_new(res, "stderr", json_string(e));
	json_object_set_new(res, "stdout_lines", mod_splitlines(o));
	json_object_set_new(res, "stderr_lines", mod_splitlines(e));
	free(o);
	free(e);
}

static bool need_sudo(struct exec_ctx *x)
{
	const char *u = x->become_user;
	if (!u)
		return false;
	return strcmp(u, x->conn->user) || (x->run && x->run->become_same_user);
}

/* The command string actually sent: environment, become wrapper. */
static char *wrap_cmd(struct exec_ctx *x, const char *cmd)
{
	struct strbuf inner = STRBUF_INIT;
	if (x->env) {
		const char *k;
		json_t *v;
		json_object_foreach(x->env, k, v) {
			strbuf_addf(&inner, "export %s=", k);
			if (json_is_string(v))
				sh_quote(&inner, json_string_value(v));
			else {
				struct strbuf t = STRBUF_INIT;
				args_pystr(&t, v);
				sh_quote(&inner, strbuf_str(&t));
				strbuf_release(&t);
			}
			strbuf_addstr(&inner, "; ");
		}
	}
	strbuf_addstr(&inner, cmd);
	if (x->task_deadline > 0) {
		/* the task's timeout: timeout(1) kills the command's process
		 * group, inside the become wrapper so that it may */
		double left = x->task_deadline - task_now();
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "timeout -s KILL %.3f /bin/sh -c ", left > 0.001 ? left : 0.001);
		sh_quote(&t, strbuf_str(&inner));
		strbuf_release(&inner);
		inner = t;
	}
	if (!need_sudo(x))
		return strbuf_detach(&inner);
	struct strbuf outer = STRBUF_INIT;
	if (x->become_su) {
		/* as Ansible's su: the user's own shell runs /bin/sh -c */
		strbuf_addstr(&outer, "su ");
		sh_quote(&outer, x->become_user);
		strbuf_addstr(&outer, " -c ");
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "/bin/sh -c ");
		sh_quote(&c, strbuf_str(&inner));
		sh_quote(&outer, strbuf_str(&c));
		strbuf_release(&c);
	} else {
		strbuf_addstr(&outer, x->conn->is_root ? "sudo -H -n -u " : "sudo -H -S -n -u ");
		sh_quote(&outer, x->become_user);
		strbuf_addstr(&outer, " /bin/sh -c ");
		sh_quote(&outer, strbuf_str(&inner));
	}
	strbuf_release(&inner);
	return strbuf_detach(&outer);
}

/* Over SSH the command runs under the user's login shell, and bash run by
 * sshd reads ~/.bashrc, whose output (a pyenv warning, a banner) would end
 * up in the module's stdout and stderr: Ansible's modules report their own
 * streams only. A mark printed first on both streams, by the shell that then
 * runs the command, lets everything before it be dropped. */
#define SHELL_MARK "\037imc\037"
#define SHELL_MARK_CMD "printf '\\037imc\\037'; printf '\\037imc\\037' >&2; "

static void drop_through_mark(struct strbuf *sb)
{
	const char *at = sb->buf ? memmem(sb->buf, sb->len, SHELL_MARK, sizeof(SHELL_MARK) - 1) : NULL;
	if (!at)
		return;
	size_t cut = (size_t)(at - sb->buf) + sizeof(SHELL_MARK) - 1;
	memmove(sb->buf, sb->buf + cut, sb->len - cut + 1); /* with the NUL */
	sb->len -= cut;
}

static int run_sh(struct exec_ctx *x, const char *cmd, const void *in, size_t inlen,
		  struct conn_result *cr, json_t **res, bool marked)
{
	/* whatever this command does, a stat printed before it is stale, and
	 * a write the last one made is no longer the node's last answer */
	free(x->stat_memo);
	x->stat_memo = NULL;
	free(x->write_memo);
	x->write_memo = NULL;
	/* Ansible runs a local connection's commands in the playbook's
	 * directory (its loader's basedir), not where it was started; one
	 * the (become) user cannot read, its modules leave for $HOME, else
	 * the temporary directory (AnsibleModule._set_cwd) */
	char *in_dir = NULL;
	if (!strcmp(x->conn->ops->name, "local") && x->run && x->run->pb && x->run->pb->dir) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "imc_cd=");
		sh_quote(&c, x->run->pb->dir);
		strbuf_addstr(&c, "; { [ -r \"$imc_cd\" ] && cd -- \"$imc_cd\"; } 2>/dev/null || "
				  "{ [ -r \"$HOME\" ] && cd -- \"$HOME\"; } 2>/dev/null || cd /tmp || exit 1; unset imc_cd; ");
		strbuf_addstr(&c, cmd);
		in_dir = strbuf_detach(&c);
		cmd = in_dir;
	}
	char *full = wrap_cmd(x, cmd);
	free(in_dir);
	if (marked) {
		char *plain = full;
		full = xasprintf("%s%s", SHELL_MARK_CMD, plain);
		free(plain);
	}
	struct diag d = DIAG_INIT;
	/* raw wants the login shell's own interpretation and output */
	int (*exec)(struct task_conn *, const char *, const void *, size_t, struct conn_result *,
		    struct diag *) = !marked && x->conn->ops->exec_login ? x->conn->ops->exec_login
									: x->conn->ops->exec;
	int rc = x->task_deadline > 0 && task_now() >= x->task_deadline
			 ? 0 : exec(x->conn, full, in, inlen, cr, &d);
	free(full);
	if (x->task_deadline > 0 && task_now() >= x->task_deadline) {
		/* killed (or not started) for the task's timeout: the module
		 * goes on with a failed command, and its result is replaced */
		x->timed_out = true;
		cr->rc = 128 + 9;
	}
	if (rc == 0 && marked) {
		drop_through_mark(&cr->out);
		drop_through_mark(&cr->err);
	}
	if (rc < 0) {
		if (res)
			*res = json_pack("{s:b, s:b, s:s}", "changed", 0, "unreachable", 1, "msg",
					 diag_first_message(&d));
		diag_release(&d);
		return -1;
	}
	diag_release(&d);
	return 0;
}

int mod_sh(struct exec_ctx *x, const char *cmd, const void *in, size_t inlen,
	   struct conn_result *cr, json_t **res)
{
	return run_sh(x, cmd, in, inlen, cr, res, true);
}

int mod_sh_as_is(struct exec_ctx *x, const char *cmd, const void *in, size_t inlen,
		 struct conn_result *cr, json_t **res)
{
	return run_sh(x, cmd, in, inlen, cr, res, false);
}

json_t *mod_sh_changed(struct exec_ctx *x, const char *cmd, const char *what)
{
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, cmd, NULL, 0, &cr, &res) == 0) {
		if (cr.rc)
			res = res_fail("%s failed: %s", what, strbuf_str(&cr.err));
		else
			res = res_new(strstr(strbuf_str(&cr.out), "__imc_changed__") != NULL);
	}
	conn_result_release(&cr);
	return res;
}

void mod_sh_flag(struct strbuf *c, const char *flag, const char *v)
{
	if (!v)
		return;
	strbuf_addf(c, " %s ", flag);
	sh_quote(c, v);
}

static json_t *unreach(void)
{
	return json_pack("{s:b, s:b, s:s}", "changed", 0, "unreachable", 1, "msg",
			 "connection lost");
}

/* Parses what STAT_SCRIPT prints: "MISSING", or the stat(1) fields, the
 * link target line and the checksum line. */
static int parse_stat(const char *o, const char *path, struct node_stat *st, json_t **res)
{
	memset(st, 0, sizeof(*st));
	if (!strncmp(o, "MISSING", 7)) {
		st->notdir = strstr(o, "NOTDIR") != NULL;
		return 0;
	}
	unsigned long rawmode = 0;
	long size = 0, uid = 0, gid = 0;
	double at = 0, mt = 0, ct = 0;
	char owner[64] = "", group[64] = "";
	if (sscanf(o, "%lx %ld %ld %ld %lf %lf %lf %63s %63s", &rawmode, &size, &uid, &gid, &at, &mt,
		   &ct, owner, group) < 7) {
		(void)path;
		return -1;
	}
	st->exists = true;
	st->mode = (long)(rawmode & 07777);
	st->isdir = S_ISDIR(rawmode);
	st->isreg = S_ISREG(rawmode);
	st->islnk = S_ISLNK(rawmode);
	st->isblk = S_ISBLK(rawmode);
	st->ischr = S_ISCHR(rawmode);
	st->isfifo = S_ISFIFO(rawmode);
	st->issock = S_ISSOCK(rawmode);
	st->size = size;
	st->uid = uid;
	st->gid = gid;
	st->atime = at;
	st->mtime = mt;
	st->ctime = ct;
	snprintf(st->owner, sizeof(st->owner), "%s", owner);
	snprintf(st->group, sizeof(st->group), "%s", group);
	const char *l2 = strchr(o, '\n');
	if (l2) {
		l2++;
		size_t n = strcspn(l2, "\n");
		snprintf(st->target, sizeof(st->target), "%.*s", (int)n, l2);
		const char *l3 = l2 + n;
		if (*l3 == '\n') {
			l3++;
			size_t m = strcspn(l3, "\n");
			if (m == 40)
				snprintf(st->sha1, sizeof(st->sha1), "%.40s", l3);
		}
	}
	(void)res;
	return 0;
}

/* appends the shell that prints a stat of "$p" for parse_stat: "MISSING",
 * or the stat line (with the link count last), the link's target and the
 * checksum (empty when not asked); readlink(1) runs for a link only (an
 * empty line otherwise, as its failure gave): a process less per stat */
static void stat_script_h(struct strbuf *c, bool follow, bool checksum, bool keep)
{
	/* followed, a dangling link is missing (Python's os.stat); keep: the
	 * checksum also in $h (empty when there is none) */
	strbuf_addf(c, "if [ -e \"$p\" ] || { [ %d = 0 ] && [ -L \"$p\" ]; }; then stat %s-c '%%f %%s %%u %%g %%X %%Y %%Z %%U %%G %%h' -- \"$p\" || exit 1; "
		    "if [ -L \"$p\" ]; then readlink -- \"$p\" 2>/dev/null || echo; else echo; fi; "
		    "if [ %d = 1 ] && [ -f \"$p\" ] && [ -r \"$p\" ]; then %s; else echo; fi; ",
		    follow ? 1 : 0, follow ? "-L " : "", checksum ? 1 : 0,
		    keep ? "h=$(sha1sum < \"$p\"); h=${h%% *}; echo \"$h\"" : "h=$(sha1sum < \"$p\"); echo \"${h%% *}\"");
	strbuf_addstr(c,
		      /* the nearest existing ancestor not a directory: ENOTDIR */
		      "else echo MISSING; d=\"$p\"; while :; do n=\"${d%/*}\"; [ \"$n\" = \"$d\" ] && break; d=\"$n\"; "
		      "[ -z \"$d\" ] && break; [ -e \"$d\" ] && break; done; "
		      "if [ -n \"$d\" ] && [ \"$d\" != \"$p\" ] && [ -e \"$d\" ] && [ ! -d \"$d\" ]; then echo NOTDIR; fi; fi");
}

static void stat_script(struct strbuf *c, bool follow, bool checksum)
{
	stat_script_h(c, follow, checksum, false);
}

/* ---- the stat memo ------------------------------------------------------
 * A module often stats a path right after a command that could have
 * printed that stat in the same round trip (its probe, its change), and
 * Ansible's add_path_info stats it again at the end. A command that ends
 * with mod_stat_memo_script() prints the stat of "$p" after a mark;
 * mod_stat_memo_take() cuts it from the output and keeps it in x until the
 * next command is sent (run_sh clears it), and mod_stat and mod_path_info
 * answer from it while it holds: nothing sent since could have changed
 * the path, so the answer is the one another round trip would give. */
#define MEMO_MARK "\036imc-stat\036\n"
#define SEEN_TAG '\001'

void mod_stat_memo_script(struct strbuf *c)
{
	/* "$p" exists following links on a fourth line: add_path_info's test.
	 * A stat that fails here is no memo, never the command's failure */
	strbuf_addstr(c, "printf '\\036imc-stat\\036\\n'; "
			 "if [ -e \"$p\" ] || [ -L \"$p\" ]; then stat -c '%f %s %u %g %X %Y %Z %U %G %h' -- \"$p\" 2>/dev/null || exit 0; "
			 "if [ -L \"$p\" ]; then readlink -- \"$p\" 2>/dev/null || echo; else echo; fi; echo; "
			 "if [ -e \"$p\" ]; then echo 1; else echo 0; fi; else echo MISSING; fi");
}

void mod_stat_memo_take(struct exec_ctx *x, const char *path, struct strbuf *out)
{
	const char *at = NULL;
	for (const char *q = out->buf; out->buf && (q = memmem(q, out->len - (size_t)(q - out->buf),
							      MEMO_MARK, sizeof(MEMO_MARK) - 1));
	     q++)
		at = q;
	if (!at)
		return;
	const char *what = at + sizeof(MEMO_MARK) - 1;
	struct node_stat st;
	/* only a complete stat is kept: MISSING, or the four lines */
	size_t lines = 0;
	for (const char *q = what; *q; q++)
		lines += *q == '\n';
	if ((!strncmp(what, "MISSING", 7) || lines == 4) && parse_stat(what, path, &st, NULL) == 0) {
		free(x->stat_memo);
		size_t pl = strlen(path), wl = strlen(what);
		x->stat_memo = xmalloc(pl + wl + 2);
		memcpy(x->stat_memo, path, pl + 1);
		memcpy(x->stat_memo + pl + 1, what, wl + 1);
	}
	out->len = (size_t)(at - out->buf);
	out->buf[out->len] = '\0';
}

/* The memo's stat of path (what follows its path), or NULL. */
static const char *memo_of(struct exec_ctx *x, const char *path)
{
	if (!x->stat_memo || x->stat_memo[0] == SEEN_TAG || strcmp(x->stat_memo, path))
		return NULL;
	return x->stat_memo + strlen(x->stat_memo) + 1;
}

/* The memo also keeps what mod_stat's own script last printed (stat_script,
 * a format of its own), under a key no path spells: SEEN_TAG, '1' when
 * followed, '1' when checksummed, then the path; so that a module that
 * stats a path twice with nothing sent between (copy's action stats dest,
 * then its module with the checksum) asks once. */
static void seen_keep(struct exec_ctx *x, const char *path, bool follow, bool checksum,
		      const char *what)
{
	free(x->stat_memo);
	x->stat_memo = xasprintf("%c%c%c%s%c%s", SEEN_TAG, follow ? '1' : '0', checksum ? '1' : '0',
				 path, '\0', what);
}

/* What stat_script printed of path, followed or not, when it is the last
 * command sent; a checksum asked for is in it, or was not to be had (a
 * missing path, or no regular file). NULL otherwise. */
static const char *seen_of(struct exec_ctx *x, const char *path, bool follow, bool checksum)
{
	const char *m = x->stat_memo;
	if (!m || m[0] != SEEN_TAG || m[1] != (follow ? '1' : '0') || strcmp(m + 3, path))
		return NULL;
	const char *what = m + strlen(m) + 1;
	if (checksum && m[2] != '1') {
		struct node_stat st;
		if (parse_stat(what, path, &st, NULL) < 0 || (st.exists && st.isreg))
			return NULL;
	}
	return what;
}

int mod_stat(struct exec_ctx *x, const char *path, bool follow, bool checksum,
	     struct node_stat *st, json_t **res)
{
	memset(st, 0, sizeof(*st));
	const char *m = checksum ? NULL : memo_of(x, path);
	if (m && parse_stat(m, path, st, NULL) == 0 && (!follow || !st->islnk))
		return 0; /* a stat that follows links is the same of a non-link */
	memset(st, 0, sizeof(*st));
	const char *seen = seen_of(x, path, follow, checksum);
	if (seen && parse_stat(seen, path, st, NULL) == 0) {
		if (!checksum)
			st->sha1[0] = '\0'; /* as a stat that did not ask */
		return 0;
	}
	memset(st, 0, sizeof(*st));
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; ");
	stat_script(&c, follow, checksum);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc < 0) {
		conn_result_release(&cr);
		return -1;
	}
	int r = parse_stat(strbuf_str(&cr.out), path, st, res);
	if (r < 0 && res && !*res)
		*res = res_fail("cannot stat '%s': %s", path, strbuf_str(&cr.err));
	if (r == 0)
		seen_keep(x, path, follow, checksum, strbuf_str(&cr.out));
	conn_result_release(&cr);
	return r;
}

/* what separates the stat from what mod_stat_and runs after it */
#define AND_MARK "\036imc-and\036\n"

int mod_stat_and(struct exec_ctx *x, const char *path, bool follow, bool checksum,
		 const char *then, struct node_stat *st, struct conn_result *tcr, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; ");
	/* a stat the memo answers (as mod_stat would) leaves then alone in
	 * its round trip */
	const char *m = checksum ? NULL : memo_of(x, path);
	struct node_stat ms;
	bool memo = m && parse_stat(m, path, &ms, NULL) == 0 && (!follow || !ms.islnk);
	if (memo)
		*st = ms;
	else {
		strbuf_addstr(&c, "{ ");
		stat_script(&c, follow, checksum);
		strbuf_addstr(&c, "; }; ");
	}
	/* then runs when the path is there as the stat saw it */
	strbuf_addf(&c, "printf '\\036imc-and\\036\\n'; "
		    "if [ -e \"$p\" ] || { [ %d = 0 ] && [ -L \"$p\" ]; }; then %s\nfi",
		    follow ? 1 : 0, then);
	int rc = mod_sh(x, c.buf, NULL, 0, tcr, res);
	strbuf_release(&c);
	if (rc < 0)
		return -1;
	const char *o = strbuf_str(&tcr->out);
	const char *at = memmem(o, tcr->out.len, AND_MARK, sizeof(AND_MARK) - 1);
	size_t cut = at ? (size_t)(at - o) : tcr->out.len;
	if (!memo) {
		char *head = xstrndup(o, cut);
		int r = parse_stat(head, path, st, res);
		free(head);
		if (r < 0) {
			if (res && !*res)
				*res = res_fail("cannot stat '%s': %s", path, strbuf_str(&tcr->err));
			return -1;
		}
	}
	/* what then printed, alone */
	size_t from = at ? cut + sizeof(AND_MARK) - 1 : tcr->out.len;
	memmove(tcr->out.buf, tcr->out.buf + from, tcr->out.len - from + 1);
	tcr->out.len -= from;
	return 0;
}

int mod_read(struct exec_ctx *x, const char *path, struct strbuf *data, bool *exists, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; [ -e \"$p\" ] || exit 99; [ -d \"$p\" ] && exit 98; exec cat -- \"$p\"");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc < 0) {
		conn_result_release(&cr);
		return -1;
	}
	*exists = cr.rc != 99;
	if (cr.rc == 98) {
		/* the words of lineinfile, blockinfile and replace for it */
		if (res) {
			*res = res_fail("Path %s is a directory !", path);
			json_object_set_new(*res, "rc", json_integer(256));
		}
		conn_result_release(&cr);
		return -1;
	}
	if (cr.rc != 0 && cr.rc != 99) {
		if (res)
			*res = res_fail("cannot read '%s': %s", path, strbuf_str(&cr.err));
		conn_result_release(&cr);
		return -1;
	}
	strbuf_reset(data);
	strbuf_add(data, cr.out.buf ? cr.out.buf : "", cr.out.len);
	if (*exists)
		conn_memo_keep(x->conn, path, strbuf_str(data), data->len);
	conn_result_release(&cr);
	return 0;
}

bool mod_read_recall(struct exec_ctx *x, const char *path, struct strbuf *data, char sum[41])
{
	return conn_memo_recall(x->conn, path, data, sum);
}

int mod_backup(struct exec_ctx *x, const char *path, char **dest, json_t **res)
{
	*dest = NULL;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	/* the shell's PID stands for the module process's in Ansible's name */
	strbuf_addstr(&c, "; [ -e \"$p\" ] || exit 0; b=\"$p.$$.$(date +%Y-%m-%d@%H:%M:%S~)\"; "
			 "cp -p -- \"$p\" \"$b\" || exit 1; printf '%s' \"$b\"");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("Could not make backup of %s: %s", path, strbuf_str(&cr.err));
		rc = -1;
	}
	if (rc == 0)
		*dest = xstrdup(strbuf_str(&cr.out));
	conn_result_release(&cr);
	return rc;
}

int mod_validate(struct exec_ctx *x, const char *validate, const void *data, size_t len,
		 struct conn_result *cr, json_t **res)
{
	const char *pct = strstr(validate, "%s");
	if (!pct) {
		*res = res_fail("validate must contain %%s: %s", validate);
		return -1;
	}
	/* the temporary file's name goes into the command as text, as
	 * Ansible's validate % tmpfile does, so that it reaches a command
	 * quoted inside it (sh -c '... %s'): mktemp names need no quoting */
	if (mod_sh(x, "t=$(mktemp) && cat > \"$t\" && printf '%s' \"$t\"", data, len, cr, res) < 0)
		return -1;
	if (cr->rc != 0 || strspn(strbuf_str(&cr->out), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789/._-") != cr->out.len || !cr->out.len) {
		*res = res_fail("cannot write a temporary file to validate: %s", strbuf_str(&cr->err));
		return -1;
	}
	char *tmp = xstrdup(strbuf_str(&cr->out));
	conn_result_release(cr);
	conn_result_init(cr);
	struct strbuf c = STRBUF_INIT;
	strbuf_add(&c, validate, (size_t)(pct - validate));
	strbuf_addstr(&c, tmp);
	strbuf_addstr(&c, pct + 2);
	strbuf_addstr(&c, "\nrc=$?; rm -f -- ");
	sh_quote(&c, tmp);
	strbuf_addstr(&c, "; exit $rc");
	int rc = mod_sh(x, c.buf, NULL, 0, cr, res);
	strbuf_release(&c);
	free(tmp);
	return rc;
}

int mod_validated(struct exec_ctx *x, json_t *args, const void *data, size_t len, json_t **res)
{
	const char *validate = args_str(args, "validate");
	if (!validate)
		return 0;
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_validate(x, validate, data, len, &cr, res);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("failed to validate: rc:%d error:%s", cr.rc, strbuf_str(&cr.err));
		rc = -1;
	}
	conn_result_release(&cr);
	return rc;
}

json_t *mod_content_diff(struct exec_ctx *x, const char *path, const struct strbuf *before,
			 const struct strbuf *after)
{
	bool want = mod_diff_wanted(x);
	char *h = xasprintf("%s (content)", path);
	char *ha = xasprintf("%s (file attributes)", path);
	json_t *d = json_pack("[{s:s, s:s, s:s, s:s}, {s:s, s:s}]",
			      "before", want ? strbuf_str(before) : "",
			      "after", want ? strbuf_str(after) : "",
			      "before_header", h, "after_header", h,
			      "before_header", ha, "after_header", ha);
	free(h);
	free(ha);
	return d;
}

int mod_mkdir_parent(struct exec_ctx *x, const char *path, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, MOD_SH_DIRNAME "imc_dn ");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; mkdir -p -- \"$imc_d\"");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	conn_result_release(&cr);
	strbuf_release(&c);
	return rc;
}

/* The start of a script that writes path atomically: a temporary file $t
 * beside it ($p), with the existing file's mode and owner (or the umask's
 * mode for a new file), then mode when >= 0. The caller fills $t from stdin
 * and renames it. */
static void write_script_start(struct strbuf *c, const char *path, long mode)
{
	strbuf_addstr(c, "p=");
	sh_quote(c, path);
	/* the temporary file made by the shell's noclobber redirection (an
	 * O_EXCL open, which no existing name or dangling link passes), named
	 * by the shell's PID, unique among the running; mktemp(1) only when
	 * that name is taken (a leftover): a process less per write */
	strbuf_addstr(c, "; " MOD_SH_DIRNAME "imc_dn \"$p\"; d=$imc_d; t=$d/.imc_tmp.$$; set -C; "
			 "if true 2>/dev/null >\"$t\"; then set +C; else set +C; "
			 "t=$(mktemp \"$d/.imc_tmp.XXXXXX\") || exit 1; fi; ");
	/* a numeric mode sets every bit of a regular file's, whatever came
	 * before it (the reference's, the umask's, what chown cleared), so
	 * with one given only the owner is copied: a process less */
	if (mode >= 0) {
		strbuf_addf(c, "if [ -e \"$p\" ]; then chown --reference=\"$p\" \"$t\" 2>/dev/null; fi; "
			    "chmod %lo \"$t\"; ", mode);
		return;
	}
	strbuf_addstr(c, "if [ -e \"$p\" ]; then chmod --reference=\"$p\" \"$t\"; "
			 "chown --reference=\"$p\" \"$t\" 2>/dev/null; "
			 "else chmod $(printf '%o' $(( 0666 & ~0$(umask) ))) \"$t\"; fi; ");
}

/* mod_write, and mod_write_if when sum is not NULL */
static int write_run(struct exec_ctx *x, const char *path, const char *sum, const void *data,
		     size_t len, long mode, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	if (sum) {
		/* the guess holds: a regular file (through a link, as cat reads
		 * it) that this user reads, with the guess's checksum */
		strbuf_addstr(&c, "p=");
		sh_quote(&c, path);
		strbuf_addf(&c, "; h=; [ -f \"$p\" ] && [ -r \"$p\" ] && h=$(sha1sum < \"$p\"); "
			    "[ \"${h%%%% *}\" = %s ] || exit 97; ", sum);
	}
	write_script_start(&c, path, mode);
	/* -T: a rename onto a directory fails, as Python's os.rename does,
	 * rather than moving the file into it */
	strbuf_addstr(&c, "cat > \"$t\" && mv -fT -- \"$t\" \"$p\" || { rm -f \"$t\"; exit 1; }; ");
	mod_stat_memo_script(&c);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, data, len, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && sum && cr.rc == 97) {
		/* nothing ran past the guard: the caller reads the file */
		conn_memo_forget(x->conn, path);
		rc = 1;
		goto out;
	}
	if (rc == 0 && cr.rc == 0) {
		mod_stat_memo_take(x, path, &cr.out);
		conn_memo_keep(x->conn, path, data, len);
	} else
		conn_memo_forget(x->conn, path);
	if (rc == 0 && cr.rc != 0) {
		if (res)
			*res = res_fail("cannot write '%s': %s", path, strbuf_str(&cr.err));
		rc = -1;
	}
out:
	conn_result_release(&cr);
	return rc;
}

int mod_write(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
	      json_t **res)
{
	return write_run(x, path, NULL, data, len, mode, res);
}

int mod_write_if(struct exec_ctx *x, const char *path, const char *sum, const void *data,
		 size_t len, long mode, json_t **res)
{
	return write_run(x, path, sum, data, len, mode, res);
}

int mod_sh_stat(struct exec_ctx *x, const char *path, const char *pre, struct node_stat *st,
		json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addf(&c, "; { %s; } || exit 1; ", pre);
	stat_script(&c, false, false);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && (cr.rc != 0 || parse_stat(strbuf_str(&cr.out), path, st, res) < 0)) {
		if (res)
			*res = res_fail("%s: %s", path, cr.err.len ? strbuf_str(&cr.err) : "failed");
		rc = -1;
	}
	conn_result_release(&cr);
	return rc;
}

/* The script of mod_write_stat (of mod_write_stat_new when parent): it
 * ends with the stat of the written path, or exits (4 with the missing
 * directory printed, for parent; else 1). */
static void write_stat_script(struct strbuf *c, const char *path, long mode, const char *owner,
			      const char *group, bool parent)
{
	if (parent) {
		strbuf_addstr(c, MOD_SH_DIRNAME "imc_dn ");
		sh_quote(c, path);
		strbuf_addstr(c, "; d=$imc_d; [ -e \"$d\" ] || { printf '%s' \"$d\"; exit 4; }; ");
	}
	write_script_start(c, path, mode);
	if (owner) {
		strbuf_addstr(c, "chown ");
		sh_quote(c, owner);
		strbuf_addstr(c, " \"$t\" || { rm -f \"$t\"; exit 1; }; ");
	}
	if (group) {
		strbuf_addstr(c, "chgrp ");
		sh_quote(c, group);
		strbuf_addstr(c, " \"$t\" || { rm -f \"$t\"; exit 1; }; ");
	}
	strbuf_addstr(c, "cat > \"$t\" && mv -f -- \"$t\" \"$p\" || { rm -f \"$t\"; exit 1; }; ");
	stat_script(c, true, false);
}

/* What write_stat_script's run answered (status rc, stdout out, stderr
 * err) as write_stat returns it. */
static int write_stat_answer(const char *path, int rc, const char *out, const char *err,
			     struct node_stat *st, char **parent, json_t **res)
{
	if (parent && rc == 4) {
		*parent = xstrdup(out);
		return 1;
	}
	if (rc != 0 || parse_stat(out, path, st, res) < 0) {
		if (res)
			*res = res_fail("cannot write '%s': %s", path, err);
		return -1;
	}
	return 0;
}

/* ---- the write memo -------------------------------------------------
 * mod_stat_write's write, made in its stat's round trip, waits in x for
 * the write the module decides on from that stat (mod_write_stat or
 * mod_write_stat_new of the same path, bytes and attributes), which
 * takes its answer from here instead of writing again; any command sent
 * clears it (run_sh), as it does the stat memo. One allocation. */
struct write_memo {
	int rc;
	const char *out, *err;
	size_t keylen;
	char key[];
};

/* What identifies a write: path, bytes, mode, owner, group, and
 * whether it was of a missing path (mod_write_stat_new). */
static void write_key(struct strbuf *k, const char *path, const void *data, size_t len, long mode,
		      const char *owner, const char *group, bool new)
{
	char sum[41];
	hash_sha1_hex(data, len, sum);
	strbuf_addf(k, "%d %ld %zu %s %c%c", new, mode, len, sum, owner ? 'o' : '-', group ? 'g' : '-');
	strbuf_add(k, path, strlen(path) + 1);
	strbuf_add(k, owner ? owner : "", strlen(owner ? owner : "") + 1);
	strbuf_add(k, group ? group : "", strlen(group ? group : "") + 1);
}

/* The node's file is data after a write that succeeded (write_stat's rc
 * 0), unknown after any other (conn-memo.c). */
static void write_stat_remember(struct exec_ctx *x, const char *path, const void *data, size_t len,
				int rc)
{
	if (rc == 0)
		conn_memo_keep(x->conn, path, data, len);
	else
		conn_memo_forget(x->conn, path);
}

/* mod_write_stat, and mod_write_stat_new when parent is not NULL */
static int write_stat(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
		      const char *owner, const char *group, struct node_stat *st, char **parent,
		      json_t **res)
{
	if (x->write_memo) {
		struct strbuf k = STRBUF_INIT;
		write_key(&k, path, data, len, mode, owner, group, parent != NULL);
		struct write_memo *w = x->write_memo;
		bool same = k.len == w->keylen && !memcmp(k.buf, w->key, k.len);
		strbuf_release(&k);
		if (same) {
			x->write_memo = NULL;
			int rc = write_stat_answer(path, w->rc, w->out, w->err, st, parent, res);
			free(w);
			write_stat_remember(x, path, data, len, rc);
			return rc;
		}
	}
	struct strbuf c = STRBUF_INIT;
	write_stat_script(&c, path, mode, owner, group, parent != NULL);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, data, len, &cr, res);
	strbuf_release(&c);
	if (rc == 0) {
		rc = write_stat_answer(path, cr.rc, strbuf_str(&cr.out), strbuf_str(&cr.err), st,
				       parent, res);
		write_stat_remember(x, path, data, len, rc);
	}
	conn_result_release(&cr);
	return rc;
}

/* what separates mod_stat_write's stat from its write */
#define WRITE_MARK "\036imc-write\036\n"

int mod_stat_write(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
		   const char *owner, const char *group, struct node_stat *st, json_t **res)
{
	char sum[41];
	hash_sha1_hex(data, len, sum);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; h=; { ");
	stat_script_h(&c, true, true, true);
	/* the node decides as the module will from this stat: a directory
	 * is refused; a file is written when its checksum differs (none,
	 * for what is not a readable regular file); a missing path when its
	 * directory is one (else the module fails, or its own write says
	 * the directory is missing). The write is the script's last command */
	strbuf_addstr(&c, "; }; " MOD_SH_DIRNAME);
	strbuf_addf(&c, "if [ -d \"$p\" ]; then exit 0; elif [ -e \"$p\" ]; then [ \"$h\" = %s ] && exit 0; n=0; "
		    "else imc_dn \"$p\"; [ -d \"$imc_d\" ] || exit 0; n=1; fi; printf '" WRITE_MARK "'; "
		    "printf '" WRITE_MARK "' >&2; if [ $n = 1 ]; then ", sum);
	write_stat_script(&c, path, mode, owner, group, true);
	strbuf_addstr(&c, "\nelse ");
	write_stat_script(&c, path, mode, owner, group, false);
	strbuf_addstr(&c, "\nfi");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, data, len, &cr, res);
	strbuf_release(&c);
	if (rc < 0)
		goto out;
	char *o = cr.out.buf ? memmem(cr.out.buf, cr.out.len, WRITE_MARK, sizeof(WRITE_MARK) - 1) : NULL;
	char *e = cr.err.buf ? memmem(cr.err.buf, cr.err.len, WRITE_MARK, sizeof(WRITE_MARK) - 1) : NULL;
	const char *wout = "", *werr = "";
	if (o) {
		*o = '\0';
		wout = o + sizeof(WRITE_MARK) - 1;
	}
	if (e) {
		*e = '\0';
		werr = e + sizeof(WRITE_MARK) - 1;
	}
	const char *head = strbuf_str(&cr.out);
	if (parse_stat(head, path, st, res) < 0) {
		/* the stat failed: it exited before any write */
		if (res && !*res)
			*res = res_fail("cannot stat '%s': %s", path, strbuf_str(&cr.err));
		rc = -1;
		goto out;
	}
	seen_keep(x, path, true, true, head);
	/* the file already holds data: what a module editing it next may
	 * start from (conn-memo.c) */
	if (st->exists && st->isreg && !strcmp(st->sha1, sum))
		conn_memo_keep(x->conn, path, data, len);
	if (o) {
		struct strbuf k = STRBUF_INIT;
		write_key(&k, path, data, len, mode, owner, group, !st->exists);
		size_t ol = strlen(wout), el = strlen(werr);
		struct write_memo *w = xmalloc(sizeof(*w) + k.len + ol + el + 2);
		w->rc = cr.rc;
		w->keylen = k.len;
		memcpy(w->key, k.buf, k.len);
		memcpy(w->key + k.len, wout, ol + 1);
		memcpy(w->key + k.len + ol + 1, werr, el + 1);
		w->out = w->key + k.len;
		w->err = w->key + k.len + ol + 1;
		x->write_memo = w;
		strbuf_release(&k);
	}
out:
	conn_result_release(&cr);
	return rc;
}

int mod_write_stat(struct exec_ctx *x, const char *path, const void *data, size_t len, long mode,
		   const char *owner, const char *group, struct node_stat *st, json_t **res)
{
	return write_stat(x, path, data, len, mode, owner, group, st, NULL, res);
}

int mod_write_stat_new(struct exec_ctx *x, const char *path, const void *data, size_t len,
		       long mode, const char *owner, const char *group, struct node_stat *st,
		       char **parent, json_t **res)
{
	*parent = NULL;
	return write_stat(x, path, data, len, mode, owner, group, st, parent, res);
}

/* Adds "CMD -h WANT -- "$p" || exit 1; " to c when a path's owner (CMD
 * chown) or group (chgrp) is not want: neither its name nor, for a
 * number, its id. Returns whether it would change. A name is looked up
 * first, failing in Ansible's words when unknown; in check mode that is
 * all, and the lookup prints "owner ID" or "group ID" for the diff. */
static bool add_chown(struct strbuf *c, const char *cmd, const char *want, const char *name, long id,
		      bool check)
{
	bool num = want && strspn(want, "0123456789") == strlen(want);
	if (!want || !strcmp(want, name) || (num && strtol(want, NULL, 10) == id))
		return false;
	if (!num) {
		bool user = !strcmp(cmd, "chown");
		strbuf_addf(c, "e=$(getent %s ", user ? "passwd" : "group");
		sh_quote(c, want);
		strbuf_addf(c, ") || { echo %s failed: failed to look up %s ", cmd, user ? "user" : "group");
		sh_quote(c, want);
		strbuf_addstr(c, " >&2; exit 1; }; ");
		if (check)
			strbuf_addf(c, "echo \"%s $(echo \"$e\" | cut -d: -f3)\"; ", user ? "owner" : "group");
	}
	if (check)
		return true;
	strbuf_addf(c, "%s -h ", cmd);
	sh_quote(c, want);
	strbuf_addstr(c, " -- \"$p\" || exit 1; ");
	return true;
}

/* The id check mode's lookup printed as "KEY ID", or dflt. */
static long looked_up(const char *out, const char *key, long dflt)
{
	size_t kl = strlen(key);
	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtol(p + kl + 1, NULL, 10);
	return dflt;
}

void mod_diff_attr(json_t *diff, const char *key, json_t *before, json_t *after)
{
	if (!diff) {
		json_decref(before);
		json_decref(after);
		return;
	}
	if (!json_object_get(diff, "before"))
		json_object_set_new(diff, "before", json_object());
	if (!json_object_get(diff, "after"))
		json_object_set_new(diff, "after", json_object());
	json_object_set_new(json_object_get(diff, "before"), key, before);
	json_object_set_new(json_object_get(diff, "after"), key, after);
}

/* Ansible's set_fs_attributes_if_different for mode, owner and group on
 * path whose stat is st: applies what differs (check mode: only says it
 * would, after looking the names up; a missing file then would change),
 * sets *changed, updates st, and, when diff is not NULL, records each
 * change's before and after in it as Ansible's attribute diff does
 * (owner and group as ids, mode as "0NNN"). 0, or -1 with *res set. */
static int attrs_set(struct exec_ctx *x, const char *path, json_t *args, struct node_stat *st,
		     bool *changed, json_t *diff, json_t **res)
{
	json_t *mv = json_object_get(args, "mode");
	const char *owner = args_str(args, "owner");
	const char *group = args_str(args, "group");
	if (!mv && !owner && !group)
		return 0;
	if (!st->exists) {
		*changed |= x->check_mode;
		return 0;
	}
	bool check = x->check_mode;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; ");
	size_t start = c.len;
	long newmode = -1;
	bool bad_mode = false;
	if (mv && !st->islnk) {
		long m = args_mode(mv, st->mode | (st->isdir ? 040000 : 0));
		/* as Ansible: owner and group are applied first, then a mode
		 * neither octal nor symbolic fails (mod_mode_error) */
		bad_mode = m == -2;
		if (m >= 0 && (m & 07777) != st->mode)
			newmode = m & 07777;
	}
	/* Ansible's order: owner, group, then mode */
	bool chown = add_chown(&c, "chown", owner, st->owner, st->uid, check);
	bool chgrp = add_chown(&c, "chgrp", group, st->group, st->gid, check);
	if (newmode >= 0 && !check)
		strbuf_addf(&c, "chmod %lo -- \"$p\" || exit 1; ", newmode);
	if (newmode < 0 && !chown && !chgrp) {
		strbuf_release(&c);
		if (bad_mode) {
			*res = mod_mode_error(x, path, mv);
			return -1;
		}
		return 0;
	}
	if ((chown || chgrp) && !check)
		stat_script(&c, false, false);
	/* a change of mode alone leaves the path's stat in the memo (the
	 * same round trip prints it) */
	bool memo = !check && !chown && !chgrp;
	if (memo)
		mod_stat_memo_script(&c);
	int rc = 0;
	struct conn_result cr;
	conn_result_init(&cr);
	if (c.len > start && (rc = mod_sh(x, c.buf, NULL, 0, &cr, res)) == 0 && cr.rc != 0) {
		const char *err = strbuf_str(&cr.err);
		if (!strncmp(err, "chown failed: ", 14) || !strncmp(err, "chgrp failed: ", 14)) {
			/* the lookup's failure, worded and detailed as Ansible's */
			size_t n = cr.err.len;
			while (n && err[n - 1] == '\n')
				n--;
			*res = res_fail("%.*s", (int)n, err);
			json_object_set_new(*res, "path", json_string(path));
			mod_path_info(x, *res);
		} else
			*res = res_fail("cannot set attributes of '%s': %s", path, strbuf_str(&cr.err));
		rc = -1;
	}
	if (rc == 0 && memo)
		mod_stat_memo_take(x, path, &cr.out);
	if (rc == 0) {
		*changed = true;
		long uid = st->uid, gid = st->gid;
		if ((chown || chgrp) && !check) {
			char sha[41];
			memcpy(sha, st->sha1, sizeof(sha));
			parse_stat(strbuf_str(&cr.out), path, st, NULL);
			memcpy(st->sha1, sha, sizeof(sha));
		} else if (check) {
			const char *o = strbuf_str(&cr.out);
			if (chown)
				st->uid = looked_up(o, "owner", strtol(owner, NULL, 10));
			if (chgrp)
				st->gid = looked_up(o, "group", strtol(group, NULL, 10));
		}
		if (chown)
			mod_diff_attr(diff, "owner", json_integer(uid), json_integer(st->uid));
		if (chgrp)
			mod_diff_attr(diff, "group", json_integer(gid), json_integer(st->gid));
		if (newmode >= 0) {
			mod_diff_attr(diff, "mode", json_sprintf("0%03lo", st->mode),
				  json_sprintf("0%03lo", newmode));
			if (!check)
				st->mode = newmode;
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	if (rc == 0 && bad_mode) {
		*res = mod_mode_error(x, path, mv);
		rc = -1;
	}
	return rc;
}

int mod_attrs_st(struct exec_ctx *x, const char *path, json_t *args, struct node_stat *st,
		 bool *changed, json_t **res)
{
	return attrs_set(x, path, args, st, changed, NULL, res);
}

int mod_attrs_st_diff(struct exec_ctx *x, const char *path, json_t *args, struct node_stat *st,
		      bool *changed, json_t *diff, json_t **res)
{
	return attrs_set(x, path, args, st, changed, diff, res);
}

int mod_attrs_diff(struct exec_ctx *x, const char *path, json_t *args, bool *changed, json_t *diff,
		   json_t **res)
{
	if (!json_object_get(args, "mode") && !args_str(args, "owner") && !args_str(args, "group"))
		return 0;
	struct node_stat st;
	if (mod_stat(x, path, false, false, &st, res) < 0)
		return -1;
	return attrs_set(x, path, args, &st, changed, diff, res);
}

int mod_attrs(struct exec_ctx *x, const char *path, json_t *args, bool *changed, json_t **res)
{
	return mod_attrs_diff(x, path, args, changed, NULL, res);
}

json_t *mod_mode_error(struct exec_ctx *x, const char *path, json_t *mode)
{
	json_t *res = res_fail("mode must be in octal or symbolic form");
	struct strbuf m = STRBUF_INIT;
	if (json_is_string(mode))
		strbuf_addstr(&m, json_string_value(mode));
	else
		args_pystr(&m, mode);
	json_object_set_new(res, "details", json_sprintf("bad symbolic permission for mode: %s",
							 strbuf_str(&m)));
	strbuf_release(&m);
	json_object_set_new(res, "path", json_string(path));
	mod_path_info(x, res);
	return res;
}

int mod_read_src(const char *path, struct strbuf *data, json_t **res)
{
	*res = NULL;
	if (strbuf_read_file(data, path) < 0)
		return -1;
	if (!vault_is_encrypted(strbuf_str(data), data->len))
		return 0;
	char *plain = NULL, *err = NULL;
	size_t np = 0;
	if (vault_decrypt_real_file(strbuf_str(data), data->len, path, &plain, &np, &err) < 0) {
		/* Ansible's action fails with the message alone */
		*res = res_fail("%s", err);
		json_object_del(*res, "changed");
		free(err);
		return -1;
	}
	vault_wipe(data->buf, data->len);
	strbuf_reset(data);
	strbuf_add(data, plain, np);
	vault_free_plain(plain, np);
	return 0;
}

char *mod_find_src(struct exec_ctx *x, const char *sub, const char *src)
{
	/* an absolute or ~ name is the controller's own path, its $VARs and
	 * ~ expanded there (Ansible's unfrackpath) */
	if (src[0] == '/' || src[0] == '~')
		return pypath_expand_local(src);
	struct task_role *role = NULL;
	for (struct ptask *p = x->task; p && !role; p = p->parent)
		role = p->role;
	const char *dirs[6];
	char *own[3] = { NULL, NULL, NULL };
	int n = 0;
	if (role) {
		own[0] = xasprintf("%s/%s", role->dir, sub);
		dirs[n++] = own[0];
		dirs[n++] = role->dir;
	}
	if (x->task && x->task->dir) {
		own[1] = xasprintf("%s/%s", x->task->dir, sub);
		dirs[n++] = own[1];
		dirs[n++] = x->task->dir;
	}
	if (x->run->pb) {
		own[2] = xasprintf("%s/%s", x->run->pb->dir, sub);
		dirs[n++] = own[2];
		dirs[n++] = x->run->pb->dir;
	}
	char *r = NULL;
	for (int i = 0; i < n && !r; i++) {
		char *p = xasprintf("%s/%s", dirs[i], src);
		struct stat sb;
		if (stat(p, &sb) == 0)
			r = p;
		else
			free(p);
	}
	for (int i = 0; i < 3; i++)
		free(own[i]);
	return r;
}

static const char *mode_str(long m, char buf[16])
{
	snprintf(buf, 16, "0%03lo", m);
	return buf;
}

void mod_file_result(json_t *res, const struct node_stat *st, const char *path)
{
	char mb[16];
	if (!st->exists) {
		json_object_set_new(res, "path", json_string(path));
		json_object_set_new(res, "state", json_string("absent"));
		return;
	}
	json_object_set_new(res, "mode", json_string(mode_str(st->islnk ? 0777 : st->mode, mb)));
	json_object_set_new(res, "owner", json_string(st->owner));
	json_object_set_new(res, "group", json_string(st->group));
	json_object_set_new(res, "uid", json_integer(st->uid));
	json_object_set_new(res, "gid", json_integer(st->gid));
	json_object_set_new(res, "size", json_integer(st->size));
	json_object_set_new(res, "state", json_string(st->islnk ? "link" : st->isdir ? "directory"
						      : "file"));
}

bool mod_diff_wanted(struct exec_ctx *x)
{
	struct diag d = DIAG_INIT;
	json_t *kw = exec_keyword(x->run, x->task, "diff");
	json_t *v = kw ? xt_value(x, kw, &d) : NULL;
	bool want = args_bool(v, x->run->diff);
	json_decref(v);
	diag_release(&d);
	return want;
}

/* mod_path_info's answer from a memo m of path: the same fields its stat
 * prints (stat's %a of a link is its own 0777; 'hard' is the link count
 * of a non-link, which is the same followed or not) */
static int path_info_memo(const char *m, const char *path, json_t *res)
{
	struct node_stat st;
	long nlink = 0;
	const char *l4 = m;
	for (int i = 0; i < 3 && l4; i++)
		if ((l4 = strchr(l4, '\n')))
			l4++;
	if (parse_stat(m, path, &st, NULL) < 0 || !st.exists || !l4 || *l4 != '1' ||
	    sscanf(m, "%*x %*d %*d %*d %*f %*f %*f %*s %*s %ld", &nlink) != 1)
		return 0;
	char owner[64], group[64], mb[16];
	/* stat says UNKNOWN for an id without a name; Python, the number */
	snprintf(owner, sizeof(owner), "%s", st.owner);
	snprintf(group, sizeof(group), "%s", st.group);
	if (!strcmp(owner, "UNKNOWN"))
		snprintf(owner, sizeof(owner), "%ld", st.uid);
	if (!strcmp(group, "UNKNOWN"))
		snprintf(group, sizeof(group), "%ld", st.gid);
	json_object_set_new(res, "uid", json_integer(st.uid));
	json_object_set_new(res, "gid", json_integer(st.gid));
	json_object_set_new(res, "owner", json_string(owner));
	json_object_set_new(res, "group", json_string(group));
	json_object_set_new(res, "mode", json_string(mode_str(st.mode, mb)));
	json_object_set_new(res, "state", json_string(st.islnk ? "link" : st.isdir ? "directory"
						      : nlink > 1 ? "hard" : "file"));
	json_object_set_new(res, "size", json_integer(st.size));
	return 0;
}

/* Ansible's add_path_info, which every module's result (success or
 * failure) goes through: when it names a path (or dest) that exists
 * (following links), its owner, group, mode (of the link itself), state
 * ('hard' for a file with more than one link) and size. */
int mod_path_info(struct exec_ctx *x, json_t *res)
{
	const char *path = json_string_value(json_object_get(res, "path"));
	if (!path)
		path = json_string_value(json_object_get(res, "dest"));
	if (!path)
		return 0;
	const char *m = memo_of(x, path);
	if (m)
		return path_info_memo(m, path, res);
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; [ -e \"$p\" ] || exit 0; stat -c '%u %g %a %s %U %G' -- \"$p\" || exit 1; "
			 "if [ -L \"$p\" ]; then echo link; elif [ -d \"$p\" ]; then echo directory; "
			 "elif [ \"$(stat -L -c %h -- \"$p\")\" -gt 1 ]; then echo hard; else echo file; fi");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *unr = NULL;
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, &unr);
	strbuf_release(&c);
	json_decref(unr);
	long uid, gid, size;
	unsigned long mode;
	char owner[64], group[64], state[16];
	if (rc == 0 && cr.rc == 0 &&
	    sscanf(strbuf_str(&cr.out), "%ld %ld %lo %ld %63s %63s %15s", &uid, &gid, &mode, &size,
		   owner, group, state) == 7) {
		char mb[16];
		json_object_set_new(res, "uid", json_integer(uid));
		json_object_set_new(res, "gid", json_integer(gid));
		/* stat says UNKNOWN for an id without a name; Python, the number */
		if (!strcmp(owner, "UNKNOWN"))
			snprintf(owner, sizeof(owner), "%ld", uid);
		if (!strcmp(group, "UNKNOWN"))
			snprintf(group, sizeof(group), "%ld", gid);
		json_object_set_new(res, "owner", json_string(owner));
		json_object_set_new(res, "group", json_string(group));
		json_object_set_new(res, "mode", json_string(mode_str((long)mode, mb)));
		json_object_set_new(res, "state", json_string(state));
		json_object_set_new(res, "size", json_integer(size));
	}
	conn_result_release(&cr);
	return rc;
}

json_t *mod_run_command(struct exec_ctx *x, const char *cmd, json_t *cmd_repr, const char *in,
			const char *chdir)
{
	struct strbuf c = STRBUF_INIT;
	if (chdir) {
		strbuf_addstr(&c, "cd ");
		sh_quote(&c, chdir);
		strbuf_addstr(&c, " || exit 1; ");
	}
	strbuf_addstr(&c, cmd);
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	time_t t0 = time(NULL);
	if (mod_sh(x, c.buf, in, in ? strlen(in) : 0, &cr, &res) < 0) {
		strbuf_release(&c);
		conn_result_release(&cr);
		return res ? res : unreach();
	}
	strbuf_release(&c);
	res = mod_command_result(&cr, cmd_repr, t0);
	conn_result_release(&cr);
	return res;
}

json_t *mod_command_result(const struct conn_result *cr, json_t *cmd_repr, time_t t0)
{
	json_t *res = json_object();
	json_object_set_new(res, "changed", json_true());
	json_object_set(res, "cmd", cmd_repr);
	res_set_output(res, cr);
	char tb[64];
	struct tm tm;
	localtime_r(&t0, &tm);
	strftime(tb, sizeof(tb), "%Y-%m-%d %H:%M:%S.000000", &tm);
	json_object_set_new(res, "start", json_string(tb));
	json_object_set_new(res, "end", json_string(tb));
	json_object_set_new(res, "delta", json_string("0:00:00.000000"));
	if (cr->rc != 0) {
		json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "msg", json_string("non-zero return code"));
	} else
		json_object_set_new(res, "msg", json_string(""));
	return res;
}

int mod_check_params(const char *module, json_t *args, const char *const *known, struct diag *d,
		     const struct src_loc *loc)
{
	const char *k;
	json_t *v;
	int rc = 0;
	json_object_foreach(args, k, v) {
		bool ok = k[0] == '_'; /* the loader's own keys (_raw_params...) */
		for (const char *const *n = known; *n && !ok; n++)
			ok = !strcmp(*n, k);
		if (ok)
			continue;
		/* "unsupported " marks it for the fallback (play_error_unsupported) */
		diag_error(d, IMC_EXIT_DATAERR, loc, "%s: unsupported parameter '%s'", module, k);
		rc = -1;
	}
	return rc;
}

json_t *mod_list(json_t *v)
{
	json_t *l = json_array();
	if (!v || json_is_null(v))
		return l;
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			struct strbuf sb = STRBUF_INIT;
			if (json_is_string(e))
				strbuf_addstr(&sb, json_string_value(e));
			else
				args_pystr(&sb, e);
			json_array_append_new(l, json_string(strbuf_str(&sb)));
			strbuf_release(&sb);
		}
		return l;
	}
	struct strbuf sb = STRBUF_INIT;
	if (json_is_string(v))
		strbuf_addstr(&sb, json_string_value(v));
	else
		args_pystr(&sb, v);
	/* Ansible's list type splits a string on commas */
	const char *s = strbuf_str(&sb);
	for (;;) {
		size_t n = strcspn(s, ",");
		json_array_append_new(l, json_stringn(s, n));
		if (!s[n])
			break;
		s += n + 1;
	}
	strbuf_release(&sb);
	return l;
}

int mod_re(const char *pat, const char *s, size_t len, bool anchored, char **err)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &eo, NULL);
	if (!c) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(ec, buf, sizeof(buf));
		/* a quantifier with nothing before it: PCRE2 points after
		 * it, Python's re (whose words the modules' errors carry) at it */
		if (err && ec == PCRE2_ERROR_QUANTIFIER_INVALID)
			*err = xasprintf("nothing to repeat at position %zu", (size_t)(eo ? eo - 1 : 0));
		else if (err)
			*err = xasprintf("%s at position %zu", (const char *)buf, (size_t)eo);
		return -1;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
	int rc = pcre2_match(c, (PCRE2_SPTR)s, len, 0, anchored ? PCRE2_ANCHORED : 0, md, NULL) >= 0;
	pcre2_match_data_free(md);
	pcre2_code_free(c);
	return rc;
}

json_t *mod_unexpanded(const char *module, json_t *args, const char *const *keys)
{
	for (const char *const *k = keys; *k; k++) {
		const char *v = args_str(args, *k);
		if (v && (v[0] == '~' || strchr(v, '$')))
			return res_refused("%s: unsupported: %s '%s' still holds a ~ or $ once expanded on the "
					"node, which this module of imc does not take as written", module, *k, v);
	}
	return NULL;
}

json_t *mod_exclusive(json_t *args, const char *const *pairs)
{
	struct strbuf m = STRBUF_INIT;
	for (const char *const *p = pairs; p[0] && p[1]; p += 2)
		if (json_object_get(args, p[0]) && json_object_get(args, p[1]))
			strbuf_addf(&m, "%s%s|%s", m.len ? ", " : "", p[0], p[1]);
	json_t *res = NULL;
	if (m.len)
		res = res_fail("parameters are mutually exclusive: %s", m.buf);
	strbuf_release(&m);
	return res;
}

const char *mod_pytype(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "dict";
	case JSON_ARRAY: return "list";
	case JSON_STRING: return "str";
	case JSON_INTEGER: return "int";
	case JSON_REAL: return "float";
	case JSON_TRUE:
	case JSON_FALSE: return "bool";
	default: return "NoneType";
	}
}

char *mod_strip(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

int mod_bin_path(struct exec_ctx *x, const char *name, bool required, char **path, json_t **res)
{
	/* PATH's directories, then the sbin ones that exist and it lacks;
	 * prints the first executable regular file, or (status 3) the paths */
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "n=");
	sh_quote(&c, name);
	strbuf_addstr(&c, "; p=$PATH; for s in /sbin /usr/sbin /usr/local/sbin; do case \":$PATH:\" in "
			 "*\":$s:\"*) ;; *) [ -e \"$s\" ] && p=\"$p:$s\";; esac; done; IFS=:; "
			 "for d in $p; do [ -n \"$d\" ] && [ -f \"$d/$n\" ] && [ -x \"$d/$n\" ] "
			 "&& { printf '%s' \"$d/$n\"; exit 0; }; done; printf '%s' \"$p\"; exit 3");
	struct conn_result cr;
	conn_result_init(&cr);
	*path = NULL;
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	if (rc == 0 && cr.rc == 0) {
		*path = xstrdup(strbuf_str(&cr.out));
	} else if (rc == 0 && required) {
		*res = res_fail("Failed to find required executable \"%s\" in paths: %s", name,
				strbuf_str(&cr.out));
		rc = -1;
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	return rc;
}

json_t *mod_bool_arg(json_t *args, const char *key, bool dflt, bool *out)
{
	json_t *v = json_object_get(args, key);
	*out = dflt;
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return NULL;
	}
	/* Ansible's BOOLEANS_TRUE and BOOLEANS_FALSE, strings compared
	 * lowercased, numbers only as 1 and 0; its message lists them in
	 * the order of a Python set, which changes from run to run */
	static const char *const t[] = { "y", "yes", "on", "1", "true", "t", NULL };
	static const char *const f[] = { "n", "no", "off", "0", "false", "f", NULL };
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		for (int i = 0; t[i]; i++) {
			if (!strcasecmp(s, t[i]) || !strcasecmp(s, f[i])) {
				*out = !strcasecmp(s, t[i]);
				return NULL;
			}
		}
	} else if (json_is_number(v) && (json_number_value(v) == 1 || json_number_value(v) == 0)) {
		*out = json_number_value(v) == 1;
		return NULL;
	}
	struct strbuf r = STRBUF_INIT;
	args_pystr(&r, v);
	json_t *res = res_fail("argument '%s' is of type <class '%s'> and we were unable to convert "
			       "to bool: The value '%s' is not a valid boolean.  Valid booleans include: "
			       "'n', 'on', 'no', 'false', '0', 't', 'yes', 'f', 'true', 'y', '1', 'off', 1, 0",
			       key, mod_pytype(v), r.buf);
	strbuf_release(&r);
	return res;
}

json_t *mod_check_unsupported(struct exec_ctx *x, const char *module, json_t *args, const char *what)
{
	/* through the executor's hook: the modules never call the fallback
	 * (which calls the modules) directly */
	if (x->check_unsupported)
		return x->check_unsupported(x, module, args, what);
	return res_fail("module '%s' with %s in check mode needs Ansible (imc's own module would act)",
			module, what);
}
