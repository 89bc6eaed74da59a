/* file.c: the `file` module, state by state as ansible-core 2.14's
 * (modules/file.py): the path's previous kind (absent, file, hard, link,
 * directory) decides what each state does, refuses (with Ansible's
 * message) or replaces, force and follow included; every result carries
 * Ansible's `diff` and, through mod_path_info, the path's owner, mode,
 * state and size, on failure too. The node is probed with one shell round
 * trip, then changed with small commands, so no Python is needed there;
 * the probe and each change also print the path's stat (module-util.c's
 * stat memo), which the attributes and the path info then need not ask
 * for again. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* What one probe learns of a path (and of the link source, when given). */
struct probe {
	char state[16];      /* Ansible's get_state: absent file hard link directory */
	bool exists;         /* os.path.exists: follows links */
	bool isdir;          /* os.path.isdir: follows links */
	char target[1024];   /* readlink, for a link */
	char real[1024];     /* realpath -m */
	bool src_exists;     /* the src (as given, or joined for links) exists */
	bool same_inode;     /* path and src are the same file */
	/* the src the probe was made with (NULL: none), so that a state
	 * needing src's lines from a probe nothing has run since takes them
	 * from it instead of probing again */
	const char *src_asked;
};

/* The shell function printing get_state of "$1", kept in $st too (for
 * a change the probe carries, struct spec). */
#define GET_STATE_SH \
	"gs() { if [ -L \"$1\" ]; then st=link; elif [ -d \"$1\" ]; then st=directory; " \
	"elif [ -e \"$1\" ]; then if [ \"$(stat -L -c %h -- \"$1\")\" -gt 1 ]; then st=hard; " \
	"else st=file; fi; else st=absent; fi; echo \"$st\"; }; "

/* A change the probe carries out in its own round trip, after its
 * lines, when the path's state is one of when (a case pattern): the
 * change the state's function would make next with run_op (it decides
 * the same from the probe, and takes the outcome from here instead of
 * sending it), so a state's usual change costs no round trip of its
 * own. Only where nothing else the module does comes between. */
struct spec {
	const char *when;    /* NULL: no change rides along */
	const char *cmd;     /* as run_op's cmd, with $p and $s set */
	bool ran;            /* the state matched: cmd ran */
	int rc;              /* its status */
	struct strbuf out;   /* what it printed (run_op_out's out) */
	struct strbuf err;
};

#define SPEC_MARK "\036imc-op\036\n"

static void next_line(const char **p, char *out, size_t n)
{
	size_t len = strcspn(*p, "\n");
	snprintf(out, n, "%.*s", (int)len, *p);
	*p += len;
	if (**p == '\n')
		(*p)++;
}

/* The probe of path (and src), carrying sp's change when sp is not NULL. */
static int probe_spec(struct exec_ctx *x, const char *path, const char *src, struct probe *pr,
		      struct spec *sp, json_t **res)
{
	memset(pr, 0, sizeof(*pr));
	pr->src_asked = src;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, GET_STATE_SH "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; s=");
	sh_quote(&c, src ? src : "");
	strbuf_addstr(&c, "; gs \"$p\"; [ -e \"$p\" ] && echo 1 || echo 0; [ -d \"$p\" ] && echo 1 || echo 0; "
			 /* the target and real path serve a link only: two
			  * processes less for anything else */
			 "if [ \"$st\" = link ]; then readlink -- \"$p\" || echo; realpath -m -- \"$p\" || echo; "
			 "else echo; echo; fi; "
			 "[ -n \"$s\" ] && [ -e \"$s\" ] && echo 1 || echo 0; "
			 "[ -n \"$s\" ] && [ -e \"$p\" ] && [ \"$p\" -ef \"$s\" ] && echo 1 || echo 0; ");
	if (sp && sp->when)
		/* a failed change exits as run_op's does, with no stat after it */
		strbuf_addf(&c, "case $st in %s) printf '" SPEC_MARK "'; printf '" SPEC_MARK "' >&2; "
			    "{ %s\n} || exit $?;; esac; ", sp->when, sp->cmd);
	mod_stat_memo_script(&c);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && sp && sp->when) {
		const char *o = cr.out.buf ? memmem(cr.out.buf, cr.out.len, SPEC_MARK, sizeof(SPEC_MARK) - 1) : NULL;
		const char *e = cr.err.buf ? memmem(cr.err.buf, cr.err.len, SPEC_MARK, sizeof(SPEC_MARK) - 1) : NULL;
		sp->ran = o != NULL;
		if (sp->ran) {
			sp->rc = cr.rc;
			if (sp->rc == 0)
				mod_stat_memo_take(x, path, &cr.out);
			size_t from = (size_t)(o - cr.out.buf) + sizeof(SPEC_MARK) - 1;
			strbuf_add(&sp->out, cr.out.buf + from, cr.out.len - from);
			cr.out.len = (size_t)(o - cr.out.buf);
			cr.out.buf[cr.out.len] = '\0';
			if (e) {
				from = (size_t)(e - cr.err.buf) + sizeof(SPEC_MARK) - 1;
				strbuf_add(&sp->err, cr.err.buf + from, cr.err.len - from);
			}
		}
	}
	if (rc == 0) {
		if (!sp || !sp->ran)
			mod_stat_memo_take(x, path, &cr.out);
		const char *o = strbuf_str(&cr.out);
		char b[8];
		next_line(&o, pr->state, sizeof(pr->state));
		next_line(&o, b, sizeof(b));
		pr->exists = b[0] == '1';
		next_line(&o, b, sizeof(b));
		pr->isdir = b[0] == '1';
		next_line(&o, pr->target, sizeof(pr->target));
		next_line(&o, pr->real, sizeof(pr->real));
		next_line(&o, b, sizeof(b));
		pr->src_exists = b[0] == '1';
		next_line(&o, b, sizeof(b));
		pr->same_inode = b[0] == '1';
		if (!pr->state[0]) {
			*res = res_fail("cannot inspect %s: %s", path, strbuf_str(&cr.err));
			rc = -1;
		}
	}
	conn_result_release(&cr);
	return rc;
}

static int probe(struct exec_ctx *x, const char *path, const char *src, struct probe *pr,
		 json_t **res)
{
	return probe_spec(x, path, src, pr, NULL, res);
}

/* run_op's failure: what, then the shell's error (err, its trailing
 * newlines cut), naming the path. */
/* A first line of a command's error that says the rest is the module's
 * whole message, what it failed at included (MKDIR_PY) */
#define OP_WHOLE_MSG "imc-whole-message"

static json_t *op_failed(const char *what, const char *path, const struct strbuf *err)
{
	const char *e = err->buf ? err->buf : "";
	size_t n = err->len;
	if (!strncmp(e, OP_WHOLE_MSG "\n", sizeof(OP_WHOLE_MSG))) {
		e += sizeof(OP_WHOLE_MSG);
		n -= sizeof(OP_WHOLE_MSG);
		what = NULL;
	}
	while (n && e[n - 1] == '\n')
		n--;
	json_t *res = what ? res_fail("%s: %.*s", what, (int)n, n ? e : "failed") : res_fail("%.*s", (int)n, e);
	json_object_set_new(res, "path", json_string(path));
	return res;
}

/* Runs cmd (with $p, $s set); on failure *res is Ansible's message: what
 * (e.g. "Error while linking") then the shell's error. Every change the
 * module makes goes through here, so check mode runs none; on success
 * the same round trip leaves the stat of path in the memo, and what cmd
 * printed is appended to out (when not NULL). */
static int run_op_out(struct exec_ctx *x, const char *path, const char *src, const char *cmd,
		      const char *what, struct strbuf *out, json_t **res)
{
	if (x->check_mode)
		return 0;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; s=");
	sh_quote(&c, src ? src : "");
	strbuf_addf(&c, "; { %s\n} || exit $?; ", cmd);
	mod_stat_memo_script(&c);
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0 && cr.rc == 0)
		mod_stat_memo_take(x, path, &cr.out);
	if (rc == 0 && cr.rc == 0 && out)
		strbuf_add(out, cr.out.buf ? cr.out.buf : "", cr.out.len);
	if (rc == 0 && cr.rc != 0) {
		*res = op_failed(what, path, &cr.err);
		rc = -1;
	}
	conn_result_release(&cr);
	return rc;
}

/* run_op_out of cmd, or what sp says of it when the probe carried it. */
static int run_op_spec(struct exec_ctx *x, const char *path, const char *src, const char *cmd,
		       const char *what, struct strbuf *out, const struct spec *sp, json_t **res)
{
	if (!sp || !sp->ran)
		return run_op_out(x, path, src, cmd, what, out, res);
	if (sp->rc != 0) {
		*res = op_failed(what, path, &sp->err);
		return -1;
	}
	if (out)
		strbuf_add(out, sp->out.buf ? sp->out.buf : "", sp->out.len);
	return 0;
}

/* ln of "$s" to "$t" failing as Python's os.link: "[Errno N] strerror:
 * b'SRC' -> b'DEST'" (a directory, which ln refuses itself, is link(2)'s
 * EPERM) */
#define LN_PY "e=$(ln -- \"$s\" \"$t\" 2>&1) || { case $e in " \
	"*'hard link not allowed for directory'|*'Operation not permitted') m='[Errno 1] Operation not permitted';; " \
	"*'No such file or directory') m='[Errno 2] No such file or directory';; " \
	"*'Permission denied') m='[Errno 13] Permission denied';; *'File exists') m='[Errno 17] File exists';; " \
	"*'Invalid cross-device link') m='[Errno 18] Invalid cross-device link';; " \
	"*'Too many links') m='[Errno 31] Too many links';; *) m=${e#ln: };; esac; " \
	"printf \"%s: b'%s' -> b'%s'\\n\" \"$m\" \"$s\" \"$t\" >&2; false; }"

/* run_op for a change whose output is not wanted */
static int run_op(struct exec_ctx *x, const char *path, const char *src, const char *cmd,
		  const char *what, json_t **res)
{
	return run_op_out(x, path, src, cmd, what, NULL, res);
}

/* Whether the directory path has entries (os.listdir), -1 with *res */
static int dir_nonempty(struct exec_ctx *x, const char *path, bool *nonempty, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; [ -n \"$(ls -A -- \"$p\" 2>/dev/null)\" ] && echo 1 || echo 0");
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	strbuf_release(&c);
	if (rc == 0)
		*nonempty = strbuf_str(&cr.out)[0] == '1';
	conn_result_release(&cr);
	return rc;
}

/* A failure naming the path under key (Ansible's results={'msg', 'path'}). */
static json_t *fail_path(const char *key, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static json_t *fail_path(const char *key, const char *path, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	json_t *r = res_fail("%s", strbuf_str(&sb));
	strbuf_release(&sb);
	json_object_set_new(r, key, json_string(path));
	return r;
}

/* Ansible's initial_diff */
static json_t *initial_diff(const char *path, const char *state, const char *prev)
{
	json_t *d = json_pack("{s:{s:s}, s:{s:s}}", "before", "path", path, "after", "path", path);
	if (strcmp(prev, state)) {
		json_object_set_new(json_object_get(d, "before"), "state", json_string(prev));
		json_object_set_new(json_object_get(d, "after"), "state", json_string(state));
	}
	return d;
}

/* set_fs_attributes_if_different on fpath: mode/owner/group, each change
 * recorded in the diff as Ansible does (check mode: what would change). */
static int apply_attrs(struct exec_ctx *x, const char *fpath, json_t *args, json_t *diff,
		       bool *changed, json_t **res)
{
	struct node_stat st;
	if (mod_stat(x, fpath, false, false, &st, res) < 0)
		return -1;
	return mod_attrs_st_diff(x, fpath, args, &st, changed, diff, res);
}

/* The path attributes are set on: the link's target when following one. */
static const char *attr_path(const struct probe *pr, const char *path, bool follow)
{
	return follow && !strcmp(pr->state, "link") ? pr->real : path;
}

/* state=absent's change of what is not a directory */
#define ABSENT_CMD "rm -f -- \"$p\""

static json_t *ensure_absent(struct exec_ctx *x, const char *path, const struct probe *pr0,
			     const struct spec *sp)
{
	struct probe pr = *pr0;
	json_t *res = NULL;
	if (!strcmp(pr.state, "absent"))
		return json_pack("{s:b, s:s, s:s}", "changed", 0, "path", path, "state", "absent");
	json_t *diff = initial_diff(path, "absent", pr.state);
	if (!strcmp(pr.state, "directory")) {
		struct strbuf l = STRBUF_INIT;
		json_t *dirs = json_array(), *files = json_array();
		struct conn_result cr;
		conn_result_init(&cr);
		strbuf_addstr(&l, "find ");
		sh_quote(&l, path);
		strbuf_addstr(&l, " -mindepth 1 \\( -type d -printf 'd%p\\n' \\) -o -printf 'f%p\\n'");
		if (mod_sh(x, l.buf, NULL, 0, &cr, NULL) == 0) {
			const char *o = strbuf_str(&cr.out);
			while (*o) {
				size_t n = strcspn(o, "\n");
				if (n > 1)
					json_array_append_new(*o == 'd' ? dirs : files, json_stringn(o + 1, n - 1));
				o += n + (o[n] == '\n');
			}
		}
		conn_result_release(&cr);
		strbuf_release(&l);
		json_object_set_new(json_object_get(diff, "before"), "path_content",
				    json_pack("{s:o, s:o}", "directories", dirs, "files", files));
		if (run_op(x, path, NULL, "rm -rf -- \"$p\"", "rmtree failed", &res) < 0)
			goto fail;
	} else if (run_op_spec(x, path, NULL, ABSENT_CMD, "unlinking failed", NULL, sp, &res) < 0)
		goto fail;
	return json_pack("{s:b, s:s, s:o, s:s}", "changed", 1, "path", path, "diff", diff, "state",
			 "absent");
fail:
	json_decref(diff);
	return res;
}

/* Appends to c the shell that sets the time of "$p" that stat's %FMT
 * shows and touch's FLAG sets, as Ansible's update_timestamp_for_file:
 * 'preserve' keeps it, 'now' sets it (always a change), else the time
 * VAL in format FMT is the node's local time, a change when it differs
 * from the file's to the nanosecond. A change prints "__imc_time__ LETTER
 * OLD NEW". -1 with *res on a time that does not parse. Check mode only
 * says whether it would change (ck). */
static int time_sh(struct strbuf *c, const char *val, const char *fmt, char sfmt, char flag,
		   json_t **res)
{
	if (!strcmp(val, "preserve"))
		return 0;
	if (!strcmp(val, "now")) {
		strbuf_addf(c, "echo \"__imc_time__ %c $(stat -L -c %%.9%c -- \"$p\") $(date +%%s.%%N)\"; "
			    "[ -n \"$ck\" ] || touch -%c -- \"$p\" || exit 1; ", flag, sfmt, flag);
		return 0;
	}
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *end = strptime(val, fmt, &tm);
	if (!end || *end) {
		*res = res_fail("Error while obtaining timestamp for time %s using format %s: "
				"time data '%s' does not match format '%s'", val, fmt, val, fmt);
		return -1;
	}
	/* Python's time.mktime of it, on the node (whose local time it is) */
	strbuf_addf(c, "t=$(date -d '%04d-%02d-%02d %02d:%02d:%02d' +%%s) || exit 1; "
		    "o=$(stat -L -c %%.9%c -- \"$p\") || exit 1; [ \"$o\" = \"$t.000000000\" ] || "
		    "{ echo \"__imc_time__ %c $o $t\"; [ -n \"$ck\" ] || touch -%c -d \"@$t\" -- \"$p\" || exit 1; }; ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, sfmt,
		    flag, flag);
	return 0;
}

/* Appends to c the shell that sets the times (modification_time,
 * access_time; dflt, 'now' for touch and 'preserve' for the other
 * states, when not given) of "$p", through a link as os.utime; each
 * change prints a line for times_take. 0 when neither time changes
 * anything (nothing appended), 1 when appended, -1 with *res on a time
 * that does not parse. In check mode, a path that is not there yet has
 * no times to change. */
static int times_script(struct exec_ctx *x, json_t *args, const char *dflt, struct strbuf *c,
			json_t **res)
{
	const char *mt = args_str(args, "modification_time"), *at = args_str(args, "access_time");
	const char *mf = args_str(args, "modification_time_format");
	const char *af = args_str(args, "access_time_format");
	if (!strcmp(mt ? mt : dflt, "preserve") && !strcmp(at ? at : dflt, "preserve"))
		return 0;
	strbuf_addf(c, "ck=%s; [ -n \"$ck\" ] && ! [ -e \"$p\" ] && exit 0; ", x->check_mode ? "1" : "");
	if (!strcmp(mt ? mt : dflt, "now") && !strcmp(at ? at : dflt, "now")) {
		/* both 'now': what time_sh prints for each, from one stat and
		 * one clock reading (Ansible's diff takes one time.time() for
		 * both), and one touch setting both: 3 processes, not 6 */
		strbuf_addstr(c, "o=$(stat -L -c '%.9Y %.9X' -- \"$p\"); n=$(date +%s.%N); "
				 "echo \"__imc_time__ m ${o% *} $n\"; echo \"__imc_time__ a ${o#* } $n\"; "
				 "[ -n \"$ck\" ] || touch -- \"$p\" || exit 1; ");
		return 1;
	}
	if (time_sh(c, mt ? mt : dflt, mf ? mf : "%Y%m%d%H%M.%S", 'Y', 'm', res) < 0 ||
	    time_sh(c, at ? at : dflt, af ? af : "%Y%m%d%H%M.%S", 'X', 'a', res) < 0)
		return -1;
	return 1;
}

/* Each time the script of times_script changed (what out holds): its
 * letter, the old and the new time, which Ansible's diff shows as
 * mtime/atime before and after; *changed set when one did. */
static void times_take(const char *out, bool *changed, json_t *diff)
{
	for (const char *o = strstr(out, "__imc_time__ "); o; o = strstr(o + 1, "__imc_time__ ")) {
		char k = o[13];
		char *e;
		double before = strtod(o + 15, &e), after = strtod(e, NULL);
		*changed = true;
		const char *key = k == 'm' ? "mtime" : "atime";
		json_t *b = json_object_get(diff, "before"), *a = json_object_get(diff, "after");
		if (json_is_object(b) && json_is_object(a)) {
			json_object_set_new(b, key, json_real(before));
			json_object_set_new(a, key, json_real(after));
		}
	}
}

/* The times of path (times_script), in a round trip of their own;
 * *changed set when one changes. */
static int set_times(struct exec_ctx *x, const char *path, json_t *args, const char *dflt,
		     bool *changed, json_t *diff, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "p=");
	sh_quote(&c, path);
	strbuf_addstr(&c, "; ");
	int rc = times_script(x, args, dflt, &c, res);
	if (rc <= 0)
		goto out;
	/* the path's stat after the change rides along, as run_op's does, for
	 * the result's path info */
	if (x->check_mode)
		strbuf_addstr(&c, "true");
	else
		mod_stat_memo_script(&c);
	struct conn_result cr;
	conn_result_init(&cr);
	rc = mod_sh(x, c.buf, NULL, 0, &cr, res);
	if (rc == 0 && cr.rc == 0 && !x->check_mode)
		mod_stat_memo_take(x, path, &cr.out);
	if (rc == 0 && cr.rc != 0) {
		size_t n = cr.err.len;
		while (n && cr.err.buf[n - 1] == '\n')
			n--;
		*res = res_fail("Error while updating modification or access time: %.*s", (int)n,
				n ? cr.err.buf : "failed");
		json_object_set_new(*res, "path", json_string(path));
		rc = -1;
	}
	if (rc == 0)
		times_take(strbuf_str(&cr.out), changed, diff);
	conn_result_release(&cr);
out:
	strbuf_release(&c);
	return rc < 0 ? -1 : 0;
}

/* The mode args give, when it is the same whatever the path's mode was
 * (octal, or symbolic that sets every bit: u=rw,g=r,o=), or -1. */
static long absolute_mode(json_t *args)
{
	json_t *mv = json_object_get(args, "mode");
	long m = args_mode(mv, 0);
	return m >= 0 && m == args_mode(mv, 07777) ? m & 07777 : -1;
}

/* What touch runs on an absent path into cmd: it creates the file, then
 * (neither chmod nor chown moves a file's mtime or atime, and a created
 * file is removed whichever of them fails) its times, in the same round
 * trip. An absolute mode without owner or group, which cannot depend on
 * the stat the attributes start from, is applied between them, as
 * Ansible's order has it, printing "__imc_mode__ OLD" when it changed
 * it; should it fail, "__imc_attrs_failed__" and nothing more, so that
 * the attributes and the times are set again in their turn, which
 * reports it as Ansible does. *times_made says the times are in cmd. */
static void touch_cmd(struct exec_ctx *x, json_t *args, struct strbuf *cmd, bool *times_made)
{
	struct strbuf tc = STRBUF_INIT;
	json_t *terr = NULL;
	*times_made = times_script(x, args, "now", &tc, &terr) > 0;
	json_decref(terr);
	long mode = args_str(args, "owner") || args_str(args, "group") ? -1 : absolute_mode(args);
	strbuf_addstr(cmd, ": > \"$p\"");
	if (mode >= 0)
		strbuf_addf(cmd, "\nif o=$(stat -c %%a -- \"$p\") && { [ \"$o\" = %lo ] || "
			    "{ chmod %lo -- \"$p\" && echo \"__imc_mode__ $o\"; }; }; then :",
			    mode, mode);
	if (*times_made)
		strbuf_addf(cmd, "\n( %s\n) || echo __imc_times_failed__", tc.buf);
	if (mode >= 0)
		strbuf_addf(cmd, "\nelse echo __imc_attrs_failed__; echo __imc_times_failed__; fi");
	strbuf_release(&tc);
}

static json_t *execute_touch(struct exec_ctx *x, const char *path, json_t *args, bool follow,
			     const struct probe *pr0, const struct spec *sp)
{
	struct probe pr = *pr0;
	json_t *res = NULL;
	bool created = false;
	if (!strcmp(pr.state, "absent") && x->check_mode)
		return json_pack("{s:s, s:b}", "dest", path, "changed", 1);
	/* a file created here gets its times (and an absolute mode) in the
	 * same round trip (touch_cmd) */
	struct strbuf made = STRBUF_INIT;
	bool times_made = false;
	if (!strcmp(pr.state, "absent")) {
		struct strbuf cmd = STRBUF_INIT;
		touch_cmd(x, args, &cmd, &times_made);
		int rc = run_op_spec(x, path, NULL, cmd.buf, "Error, could not touch target", &made, sp,
				     &res);
		strbuf_release(&cmd);
		if (rc < 0) {
			strbuf_release(&made);
			return res;
		}
		times_made = times_made && !strstr(strbuf_str(&made), "__imc_times_failed__");
		created = true;
	}
	json_t *diff = initial_diff(path, "touch", pr.state);
	const char *mo = strstr(strbuf_str(&made), "__imc_mode__ ");
	if (mo)
		mod_diff_attr(diff, "mode", json_sprintf("0%03lo", strtol(mo + 13, NULL, 8)),
			      json_sprintf("0%03lo", absolute_mode(args)));
	bool changed;
	const char *fpath = attr_path(&pr, path, follow);
	/* the times are set through the link (os.utime): a dangling one
	 * fails, followed or not; not followed, the link itself has been
	 * given owner and group first (os.lchown), as Ansible sets the
	 * attributes before the times */
	if (!strcmp(pr.state, "link") && !pr.exists) {
		bool ignored_changed = false;
		if (!follow && apply_attrs(x, fpath, args, diff, &ignored_changed, &res) < 0)
			goto fail;
		res = res_fail("Error while updating modification or access time: [Errno 2] No such file or directory: b'%s'",
			       fpath);
		json_object_set_new(res, "path", json_string(fpath));
		goto fail;
	}
	changed = created;
	if (apply_attrs(x, fpath, args, diff, &changed, &res) < 0 ||
	    (times_made ? (times_take(strbuf_str(&made), &changed, diff), 0)
			: set_times(x, fpath, args, "now", &changed, diff, &res)) < 0) {
		if (created) {
			/* Ansible removes the file it just created */
			json_t *ignored = NULL;
			run_op(x, path, NULL, "rm -f -- \"$p\"", "cannot remove", &ignored);
			json_decref(ignored);
		}
		goto fail;
	}
	strbuf_release(&made);
	return json_pack("{s:b, s:s, s:o}", "changed", changed, "dest", path, "diff", diff);
fail:
	strbuf_release(&made);
	json_decref(diff);
	return res;
}

static json_t *ensure_file(struct exec_ctx *x, const char *path, json_t *args, bool follow,
			   const struct probe *pr0)
{
	struct probe pr = *pr0;
	json_t *res = NULL;
	char *p = xstrdup(path);
	if (follow && !strcmp(pr.state, "link")) {
		free(p);
		p = xstrdup(pr.real);
		if (probe(x, p, NULL, &pr, &res) < 0)
			goto out;
	}
	if (strcmp(pr.state, "file") && strcmp(pr.state, "hard")) {
		res = fail_path("path", p, "file (%s) is %s, cannot continue", p, pr.state);
		json_object_set_new(res, "state", json_string(pr.state));
		goto out;
	}
	json_t *diff = initial_diff(p, "file", pr.state);
	bool changed = false;
	if (apply_attrs(x, p, args, diff, &changed, &res) < 0) {
		json_decref(diff);
		goto out;
	}
	res = json_pack("{s:b, s:s, s:o}", "changed", changed, "path", p, "diff", diff);
out:
	free(p);
	return res;
}

/* mkdir of "$x", one missing directory after the other from the top as
 * Ansible's module makes them: one that cannot be made fails the module
 * with its message, which names that directory and the error as
 * Python's os.mkdir raises it (see op_failed) */
#define MKDIR_PY "e=$(mkdir -- \"$x\" 2>&1) || [ -d \"$x\" ] || { case $e in " \
	"*'No such file or directory') n='[Errno 2] No such file or directory';; " \
	"*'Permission denied') n='[Errno 13] Permission denied';; *'File exists') n='[Errno 17] File exists';; " \
	"*'Not a directory') n='[Errno 20] Not a directory';; *'No space left on device') n='[Errno 28] No space left on device';; " \
	"*'Read-only file system') n='[Errno 30] Read-only file system';; " \
	"*'File name too long') n='[Errno 36] File name too long';; " \
	"*'Too many levels of symbolic links') n='[Errno 40] Too many levels of symbolic links';; *) n=${e##*: };; esac; " \
	"printf \"%s\\nThere was an issue creating %s as requested: %s: b'%s'\\n\" '" OP_WHOLE_MSG "' \"$x\" \"$n\" \"$x\" >&2; " \
	"exit 1; }; "

/* What state=directory runs on an absent path into c: each missing
 * directory made (MKDIR_PY), the attributes applied to every directory
 * created; with first_only, the first one alone, its path printed. -1
 * on a mode neither octal nor symbolic. */
static int mkdir_cmd(json_t *args, bool first_only, struct strbuf *c)
{
	long mode = args_mode(json_object_get(args, "mode"), 0755 | 040000);
	if (mode == -2)
		return -1;
	strbuf_addstr(c, MOD_SH_DIRNAME "m=''; d=\"$p\"; while [ ! -e \"$d\" ]; do m=\"$d\n$m\"; imc_dn \"$d\"; d=$imc_d; done; "
		      "printf '%s\\n' \"$m\" | while IFS= read -r x; do [ -n \"$x\" ] || continue; " MKDIR_PY);
	if (mode >= 0)
		strbuf_addf(c, "chmod %lo -- \"$x\" || exit 1; ", mode & 07777);
	const char *o = args_str(args, "owner"), *g = args_str(args, "group");
	if (o) {
		strbuf_addstr(c, "chown ");
		sh_quote(c, o);
		strbuf_addstr(c, " -- \"$x\" || exit 1; ");
	}
	if (g) {
		strbuf_addstr(c, "chgrp ");
		sh_quote(c, g);
		strbuf_addstr(c, " -- \"$x\" || exit 1; ");
	}
	if (first_only)
		strbuf_addstr(c, "printf '%s\\n' \"$x\"; break; ");
	strbuf_addstr(c, "done");
	return 0;
}

/* A mode neither octal nor symbolic on an absent path: Ansible makes the
 * first missing directory, gives it its owner and group, and fails on
 * the mode there, with that directory's path and information. */
static json_t *mkdir_bad_mode(struct exec_ctx *x, const char *p, json_t *args, const struct spec *sp)
{
	json_t *nomode = json_deep_copy(args), *res = NULL;
	json_object_del(nomode, "mode");
	struct strbuf c = STRBUF_INIT, made = STRBUF_INIT;
	mkdir_cmd(nomode, true, &c);
	char *what = xasprintf("There was an issue creating %s as requested", p);
	if (run_op_spec(x, p, NULL, c.buf, what, &made, sp, &res) == 0) {
		while (made.len && made.buf[made.len - 1] == '\n')
			made.buf[--made.len] = '\0';
		res = mod_mode_error(x, made.len ? made.buf : p, json_object_get(args, "mode"));
	}
	free(what);
	strbuf_release(&c);
	strbuf_release(&made);
	json_decref(nomode);
	return res;
}

/* A digest of the modes and owners of everything below $p, and with
 * follow of what the links there point to: it changes when recursion
 * changed something. */
static void attrs_digest(struct strbuf *c, bool follow)
{
	strbuf_addstr(c, "$(find \"$p\" -printf '%m %u %g\\n'");
	if (follow)
		strbuf_addstr(c, "; find -L \"$p\" -printf '%m %u %g\\n'");
	strbuf_addstr(c, " | md5sum)");
}

/* chmod's MODE argument: an integer mode in octal, else the text */
static void mode_arg(struct strbuf *c, json_t *mv)
{
	if (json_is_integer(mv))
		strbuf_addf(c, "%llo", (unsigned long long)json_integer_value(mv));
	else
		sh_quote(c, json_string_value(mv) ? json_string_value(mv) : "");
}

/* chown's OWNER:GROUP argument, either side possibly absent */
static void owner_group(struct strbuf *c, const char *o, const char *g)
{
	sh_quote(c, o ? o : "");
	if (g) {
		strbuf_addch(c, ':');
		sh_quote(c, g);
	}
}

/* Ansible's recursion with follow also sets the attributes on what each
 * link below the path points to, and walks into a linked directory (its
 * recursive_set_attributes); `find -L` reaches the same targets. chmod -R
 * and chown -R before it have done the links themselves (a link's mode
 * cannot change; its owner can). A dangling link (still a link under -L)
 * is left alone, as Ansible finds it does not exist. */
static void recurse_into_link_targets(struct strbuf *c, json_t *mv, const char *o,
				      const char *g)
{
	if (mv) {
		strbuf_addstr(c, "find -L \"$p\" -mindepth 1 ! -type l -exec chmod ");
		mode_arg(c, mv);
		strbuf_addstr(c, " -- {} + || exit 1; ");
	}
	if (o || g) {
		/* the links below a linked directory are given their own
		 * owner too (-xtype l: a link, under -L), then the targets */
		strbuf_addstr(c, "find -L \"$p\" -mindepth 1 -xtype l -exec chown -h ");
		owner_group(c, o, g);
		strbuf_addstr(c, " -- {} + || exit 1; ");
		strbuf_addstr(c, "find -L \"$p\" -mindepth 1 ! -type l -exec chown ");
		owner_group(c, o, g);
		strbuf_addstr(c, " -- {} + || exit 1; ");
	}
}

static json_t *ensure_directory(struct exec_ctx *x, const char *path, json_t *args, bool follow,
				bool recurse, const struct probe *pr0, const struct spec *sp)
{
	struct probe pr = *pr0;
	json_t *res = NULL, *diff = NULL;
	char *p = xstrdup(path);
	struct strbuf c = STRBUF_INIT;
	if (follow && !strcmp(pr.state, "link")) {
		free(p);
		p = xstrdup(pr.real);
		if (probe(x, p, NULL, &pr, &res) < 0)
			goto out;
	}
	bool changed = false;
	diff = initial_diff(p, "directory", pr.state);
	if (!strcmp(pr.state, "absent") && x->check_mode) {
		res = json_pack("{s:s, s:b, s:O}", "path", p, "changed", 1, "diff", diff);
		goto out;
	}
	if (!strcmp(pr.state, "absent")) {
		if (mkdir_cmd(args, false, &c) < 0) {
			res = mkdir_bad_mode(x, p, args, sp);
			goto out;
		}
		char *what = xasprintf("There was an issue creating %s as requested", p);
		int rc = run_op_spec(x, p, NULL, c.buf, what, NULL, sp, &res);
		free(what);
		if (rc < 0)
			goto out;
		res = json_pack("{s:b, s:s, s:O}", "changed", 1, "path", p, "diff", diff);
		goto out;
	}
	if (strcmp(pr.state, "directory")) {
		res = fail_path("path", p, "%s already exists as a %s", p, pr.state);
		goto out;
	}
	if (apply_attrs(x, p, args, diff, &changed, &res) < 0)
		goto out;
	if (recurse && x->check_mode) {
		/* what recursion would change is not computed: Ansible's own
		 * module answers, or the task fails saying so */
		json_decref(res);
		res = mod_check_unsupported(x, "file", args, "recurse");
		goto out;
	}
	if (recurse) {
		json_t *mv = json_object_get(args, "mode");
		const char *o = args_str(args, "owner"), *g = args_str(args, "group");
		/* applied to everything below; changed when a listing differs */
		strbuf_addstr(&c, "p=");
		sh_quote(&c, p);
		strbuf_addstr(&c, "; b=");
		attrs_digest(&c, follow);
		strbuf_addstr(&c, "; ");
		if (mv) {
			strbuf_addstr(&c, "chmod -R ");
			mode_arg(&c, mv);
			strbuf_addstr(&c, " -- \"$p\" || exit 1; ");
		}
		if (o) {
			strbuf_addstr(&c, "chown -R ");
			sh_quote(&c, o);
			strbuf_addstr(&c, " -- \"$p\" || exit 1; ");
		}
		if (g) {
			strbuf_addstr(&c, "chgrp -R ");
			sh_quote(&c, g);
			strbuf_addstr(&c, " -- \"$p\" || exit 1; ");
		}
		if (follow)
			recurse_into_link_targets(&c, mv, o, g);
		strbuf_addstr(&c, "a=");
		attrs_digest(&c, follow);
		strbuf_addstr(&c, "; [ \"$a\" = \"$b\" ] || echo changed");
		struct conn_result cr;
		conn_result_init(&cr);
		if (mod_sh(x, c.buf, NULL, 0, &cr, &res) < 0) {
			conn_result_release(&cr);
			goto out;
		}
		if (cr.rc) {
			res = fail_path("path", p, "cannot set attributes recursively: %s",
					strbuf_str(&cr.err));
			conn_result_release(&cr);
			goto out;
		}
		changed |= strstr(strbuf_str(&cr.out), "changed") != NULL;
		conn_result_release(&cr);
	}
	res = json_pack("{s:b, s:s, s:O}", "changed", changed, "path", p, "diff", diff);
out:
	json_decref(diff);
	strbuf_release(&c);
	free(p);
	return res;
}

static json_t *ensure_symlink(struct exec_ctx *x, const char *path, const char *src,
			      json_t *args, bool follow, bool force, const struct probe *pr0)
{
	struct probe pr = *pr0;
	json_t *res = NULL, *diff = NULL;
	char *absrc = NULL, *own_src = NULL;
	/* the last probe of path sent: what a probe after no change gives */
	struct probe last = pr;
	if (!src && follow && pr.exists)
		src = own_src = xstrdup(pr.target); /* update the existing link's attributes */
	if (src) {
		/* a relative src is relative to the link's directory */
		if (src[0] == '/')
			absrc = xstrdup(src);
		else if (strcmp(pr.state, "link") && pr.isdir)
			absrc = xasprintf("%s/%s", path, src);
		else {
			const char *sl = strrchr(path, '/');
			absrc = sl ? xasprintf("%.*s/%s", (int)(sl - path), path, src) : xstrdup(src);
		}
		struct probe ps;
		if (pr.src_asked && !strcmp(pr.src_asked, absrc))
			ps = pr;
		else if (probe(x, path, absrc, &ps, &res) < 0)
			goto out;
		last = ps;
		if (!force && !ps.src_exists) {
			res = fail_path("path", path, "src file does not exist, use \"force=yes\" if you really want to create the link: %s",
					absrc);
			json_object_set_new(res, "src", json_string(src));
			goto out;
		}
	}
	if (!strcmp(pr.state, "directory")) {
		if (!force) {
			res = fail_path("path", path, "refusing to convert from %s to symlink for %s",
					pr.state, path);
			goto out;
		}
		/* asked only here: listing a directory sets its atime, which
		 * Ansible's other states leave as it is */
		bool nonempty = false;
		if (dir_nonempty(x, path, &nonempty, &res) < 0)
			goto out;
		if (nonempty) {
			res = fail_path("path", path, "the directory %s is not empty, refusing to convert it",
					path);
			goto out;
		}
	} else if ((!strcmp(pr.state, "file") || !strcmp(pr.state, "hard")) && !force) {
		res = fail_path("path", path, "refusing to convert from %s to symlink for %s", pr.state,
				path);
		goto out;
	}
	diff = initial_diff(path, "link", pr.state);
	bool changed = false;
	if (strcmp(pr.state, "link")) {
		if (!src) {
			res = res_fail("src is required for creating new symlinks");
			goto out;
		}
		changed = true;
	} else if (src && strcmp(pr.target, src)) {
		json_object_set_new(json_object_get(diff, "before"), "src", json_string(pr.target));
		json_object_set_new(json_object_get(diff, "after"), "src", json_string(src));
		changed = true;
	}
	if (changed) {
		/* replaced atomically: a link beside it renamed over it */
		const char *cmd = !strcmp(pr.state, "absent")
			? "ln -s -- \"$s\" \"$p\""
			: MOD_SH_DIRNAME "imc_dn \"$p\"; t=$imc_d/.imc.$$.tmp; { [ ! -d \"$p\" ] || [ -L \"$p\" ] || rmdir -- \"$p\"; } && "
			  "ln -s -- \"$s\" \"$t\" && mv -Tf -- \"$t\" \"$p\" || { rm -f -- \"$t\"; exit 1; }";
		if (run_op(x, path, src, cmd, !strcmp(pr.state, "absent") ? "Error while linking"
					      : "Error while replacing", &res) < 0)
			goto out;
	}
	struct probe after;
	if (!changed) {
		/* nothing was sent since that probe (a directory to check
		 * would have been a change): its path lines are the answer */
		after = last;
		after.src_exists = after.same_inode = false;
		after.src_asked = NULL;
	} else if (probe(x, path, NULL, &after, &res) < 0)
		goto out;
	if (x->check_mode && !after.exists) {
		/* Ansible's check mode stops here when the path is not there */
		res = json_pack("{s:s, s:s?, s:b, s:O}", "dest", path, "src", src, "changed", changed,
				"diff", diff);
		goto out;
	}
	if (follow && !strcmp(after.state, "link") && !after.exists)
		; /* Ansible warns: no attributes on a missing target */
	else if (apply_attrs(x, attr_path(&after, path, follow), args, diff, &changed, &res) < 0)
		goto out;
	res = json_pack("{s:b, s:s, s:s?, s:O}", "changed", changed, "dest", path, "src", src, "diff",
			diff);
out:
	json_decref(diff);
	free(absrc);
	free(own_src);
	return res;
}

static json_t *ensure_hardlink(struct exec_ctx *x, const char *path, const struct probe *pr0,
			       const char *src, json_t *args, bool follow, bool force)
{
	struct probe pr = *pr0;
	json_t *res = NULL, *diff = NULL;
	/* file_run's probe, when it asked for this src (or for none, as here) */
	bool same = src ? pr.src_asked && !strcmp(pr.src_asked, src) : !pr.src_asked;
	if (!same && probe(x, path, src, &pr, &res) < 0)
		return res;
	if (strcmp(pr.state, "hard") && !src)
		return res_fail("src is required for creating new hardlinks");
	if (src && !pr.src_exists) {
		res = res_fail("src does not exist");
		json_object_set_new(res, "dest", json_string(path));
		json_object_set_new(res, "src", json_string(src));
		return res;
	}
	diff = initial_diff(path, "hard", pr.state);
	bool changed = false;
	const char *refuse = NULL;
	if (!strcmp(pr.state, "absent"))
		changed = true;
	else if (!strcmp(pr.state, "link")) {
		if (strcmp(pr.target, src ? src : "")) {
			json_object_set_new(json_object_get(diff, "before"), "src", json_string(pr.target));
			json_object_set_new(json_object_get(diff, "after"), "src", json_string(src));
			changed = true;
		}
	} else if (!strcmp(pr.state, "hard")) {
		if (src && !pr.same_inode) {
			changed = true;
			refuse = "Cannot link, different hard link exists at destination";
		}
	} else if (!strcmp(pr.state, "file")) {
		changed = true;
		refuse = "Cannot link, file exists at destination";
	} else {
		changed = true;
		if (pr.same_inode) {
			res = json_pack("{s:s, s:b}", "path", path, "changed", 0);
			goto out;
		}
		refuse = "Cannot link: different hard link exists at destination";
	}
	if (refuse && !force) {
		res = res_fail("%s", refuse);
		json_object_set_new(res, "dest", json_string(path));
		json_object_set_new(res, "src", json_string(src));
		goto out;
	}
	if (changed) {
		const char *cmd = !strcmp(pr.state, "absent")
			? "t=$p; " LN_PY
			: MOD_SH_DIRNAME "imc_dn \"$p\"; t=$imc_d/.imc.$$.tmp; " LN_PY " && mv -Tf -- \"$t\" \"$p\" || "
			  "{ rm -f -- \"$t\"; exit 1; }";
		if (run_op(x, path, src, cmd, !strcmp(pr.state, "absent") ? "Error while linking"
					      : "Error while replacing", &res) < 0)
			goto out;
	}
	if (x->check_mode && !pr.exists) {
		/* Ansible's check mode stops here when the path is not there */
		res = json_pack("{s:s, s:s?, s:b, s:O}", "dest", path, "src", src, "changed", changed,
				"diff", diff);
		goto out;
	}
	if (apply_attrs(x, attr_path(&pr, path, follow), args, diff,
			&changed, &res) < 0)
		goto out;
	res = json_pack("{s:b, s:s, s:s?, s:O}", "changed", changed, "dest", path, "src", src, "diff",
			diff);
out:
	json_decref(diff);
	return res;
}

static const char *path_arg(json_t *args)
{
	const char *p = args_str(args, "path");
	if (!p)
		p = args_str(args, "dest");
	if (!p)
		p = args_str(args, "name");
	return p;
}

/* The change file_run's probe carries (struct spec) for a state given
 * as such: the one its state function makes first from the probed
 * state, where nothing file_run checks after the probe can fail first
 * (src, recurse, times with it; check mode changes nothing):
 * absent's removal of a file or link, directory's mkdir of an absent
 * path, touch's creation. cmd holds the command sp points to. */
static void spec_for(struct exec_ctx *x, json_t *args, const char *state, const char *src,
		     bool recurse, struct spec *sp, struct strbuf *cmd)
{
	if (!state || src || x->check_mode)
		return;
	bool times = false;
	for (const char *const *k = (const char *const[]){ "modification_time", "access_time", NULL }; *k; k++)
		times |= args_str(args, *k) && strcmp(args_str(args, *k), "preserve");
	if (!strcmp(state, "absent") && !recurse && !times) {
		sp->when = "file|hard|link";
		strbuf_addstr(cmd, ABSENT_CMD);
	} else if (!strcmp(state, "directory") && !(recurse && times) && mkdir_cmd(args, false, cmd) == 0) {
		sp->when = "absent";
	} else if (!strcmp(state, "touch") && !recurse) {
		bool times_made;
		touch_cmd(x, args, cmd, &times_made);
		sp->when = "absent";
	}
	sp->cmd = cmd->buf;
}

/* Ansible's file module in check mode (any state but absent) warns about
 * an owner or group the node does not have, by name or, when it is a
 * number, by id, before it goes on (check_owner_exists and
 * check_group_exists): the run it rehearses could have created them.
 * One round trip of getent on the node. */
static json_t *check_mode_warnings(struct exec_ctx *x, json_t *args, const char *state)
{
	const char *o = args_str(args, "owner"), *g = args_str(args, "group");
	if (!x->check_mode || (state && !strcmp(state, "absent")) || (!(o && *o) && !(g && *g)))
		return NULL;
	struct strbuf c = STRBUF_INIT;
	if (o && *o) {
		strbuf_addstr(&c, "getent passwd ");
		sh_quote(&c, o);
		strbuf_addstr(&c, " >/dev/null || echo u; ");
	}
	if (g && *g) {
		strbuf_addstr(&c, "getent group ");
		sh_quote(&c, g);
		strbuf_addstr(&c, " >/dev/null || echo g; ");
	}
	strbuf_addstr(&c, "true");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *err = NULL, *w = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &err) == 0 && cr.rc == 0) {
		const char *out = strbuf_str(&cr.out);
		w = json_array();
		for (int k = 0; k < 2; k++) {
			const char *name = k ? g : o;
			if (!strchr(out, k ? 'g' : 'u'))
				continue;
			char *end;
			long id = strtol(name, &end, 10);
			const char *what = k ? "group" : "user";
			char *t = *name && !*end
					  ? xasprintf("failed to look up %s with %s %ld. Create %s up to this point in real play",
						      what, k ? "gid" : "uid", id, what)
					  : xasprintf("failed to look up %s %s. Create %s up to this point in real play", what,
						      name, what);
			json_array_append_new(w, json_string(t));
			free(t);
		}
		if (!json_array_size(w)) {
			json_decref(w);
			w = NULL;
		}
	}
	json_decref(err);
	conn_result_release(&cr);
	strbuf_release(&c);
	return w;
}

static json_t *file_run(struct exec_ctx *x, json_t *args)
{
	const char *path0 = path_arg(args);
	if (!path0)
		return res_fail("missing required arguments: path");
	const char *state = args_str(args, "state");
	const char *src = args_str(args, "src");
	bool force = args_bool(json_object_get(args, "force"), false);
	bool follow = args_bool(json_object_get(args, "follow"), true);
	bool recurse = args_bool(json_object_get(args, "recurse"), false);
	static const char *const states[] = { "absent", "directory", "file", "hard", "link", "touch" };
	bool known = !state;
	for (size_t i = 0; state && i < sizeof(states) / sizeof(*states); i++)
		known |= !strcmp(state, states[i]);
	if (!known)
		return res_fail("value of state must be one of: absent, directory, file, hard, link, touch, got: %s",
				state);
	char *path = xstrdup(path0);
	json_t *res = NULL, *warnings = NULL;
	struct probe pr;
	struct spec sp = { .when = NULL };
	strbuf_init(&sp.out, 0);
	strbuf_init(&sp.err, 0);
	struct strbuf spcmd = STRBUF_INIT;
	spec_for(x, args, state, src, recurse, &sp, &spcmd);
	/* a link's or hard link's src probed with path, when it is the src
	 * the state probes (a link's relative src is joined to a directory
	 * the probe decides): the state's own probe of both is spared */
	const char *psrc = NULL;
	if (state && src && (!strcmp(state, "hard") || (!strcmp(state, "link") && src[0] == '/')))
		psrc = src;
	if (probe_spec(x, path, psrc, &pr, &sp, &res) < 0)
		goto out;
	/* a directory given for a link source's copy: the file inside it */
	if ((!state || (strcmp(state, "link") && strcmp(state, "absent"))) && pr.isdir && src) {
		const char *b = strrchr(src, '/');
		char *np = xasprintf("%s/%s", path, b ? b + 1 : src);
		free(path);
		path = np;
		if (probe(x, path, NULL, &pr, &res) < 0)
			goto out;
	}
	warnings = check_mode_warnings(x, args, state);
	if (!state)
		state = strcmp(pr.state, "absent") ? pr.state : recurse ? "directory" : "file";
	/* the times of the other states are set last, as Ansible's; those of
	 * what recurse reaches, or of an absent path, are not done here:
	 * said, never ignored */
	bool times = false;
	for (const char *const *k = (const char *const[]){ "modification_time", "access_time", NULL }; *k; k++)
		if (strcmp(state, "touch") && args_str(args, *k) && strcmp(args_str(args, *k), "preserve")) {
			times = true;
			if (recurse || !strcmp(state, "absent")) {
				res = res_refused("imc's file module does not set %s with %s", *k,
					       recurse ? "recurse" : "state=absent");
				goto out;
			}
		}
	if (recurse && strcmp(state, "directory")) {
		res = fail_path("path", path, "recurse option requires state to be 'directory'");
		goto out;
	}
	if (src && strcmp(state, "link") && strcmp(state, "hard")) {
		res = fail_path("path", path, "src option requires state to be 'link' or 'hard'");
		goto out;
	}
	/* the states start from this probe of path: nothing ran since */
	if (!strcmp(state, "absent"))
		res = ensure_absent(x, path, &pr, &sp);
	else if (!strcmp(state, "touch"))
		res = execute_touch(x, path, args, follow, &pr, &sp);
	else if (!strcmp(state, "file"))
		res = ensure_file(x, path, args, follow, &pr);
	else if (!strcmp(state, "directory"))
		res = ensure_directory(x, path, args, follow, recurse, &pr, &sp);
	else if (!strcmp(state, "link"))
		res = ensure_symlink(x, path, src, args, follow, force, &pr);
	else
		res = ensure_hardlink(x, path, &pr, src, args, follow, force);
	if (times && !json_is_true(json_object_get(res, "failed"))) {
		bool changed = json_is_true(json_object_get(res, "changed"));
		json_t *err = NULL;
		if (set_times(x, path, args, "preserve", &changed, json_object_get(res, "diff"), &err) < 0) {
			json_decref(res);
			res = err;
			goto out;
		}
		json_object_set_new(res, "changed", json_boolean(changed));
	}
out:
	free(path);
	strbuf_release(&spcmd);
	strbuf_release(&sp.out);
	strbuf_release(&sp.err);
	if (!json_object_get(res, "unreachable"))
		mod_path_info(x, res);
	if (warnings) {
		json_t *w = json_object_get(res, "warnings");
		if (json_is_array(w))
			json_array_extend(warnings, w);
		json_object_set(res, "warnings", warnings);
		json_decref(warnings);
	}
	return res;
}

static int file_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	if (!path_arg(args)) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "file: missing required arguments: path");
		return -1;
	}
	return 0;
}

static const char *const file_node_paths[] = { "path", "dest", "name", "src", NULL };

const struct task_module mod_file = {
	.name = "file", .check = file_check, .run = file_run, .check_mode_native = true,
	.node_paths = file_node_paths,
};
