/* git.c: the `git` module, as ansible-core 2.14's runs on the node: the
 * same git commands in the same order (ls-remote to tell branches and
 * tags, clone with --origin or --bare, --depth and --branch, and
 * --single-branch; for a checkout: status for local modifications,
 * refused without force and reset with it, remote set-url, fetch --tags
 * or the refspecs a depth wants, then switch_version's checkout --force,
 * checkout --track -b or reset --hard), so that a failure is the failing
 * command's (cmd, rc, stdout, stderr) with the module's message, and
 * changed is before != after, local modifications or a changed remote
 * URL. Submodules are updated with submodule update --init --recursive
 * (--remote with track_submodules). Check mode is native (git_check):
 * what Ansible's module reports from git ls-remote, nothing fetched or
 * written. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Check mode, as Ansible's module: no checkout at dest, changed with
 * after the remote's revision of version (git ls-remote; a sha1 as is);
 * a checkout and update=no, unchanged at its HEAD; else local
 * modifications (untracked files aside) fail without force, and changed
 * is whether HEAD differs from the remote's revision (through the named
 * remote) or the remote's URL differs from repo. Nothing is fetched or
 * written. The script's first lines set r, d, v, o and the environment. */
/* unfrackgitpath's comparison: os.path.realpath then normpath of each
 * side, so a URL compares as a relative path under the same directory
 * ("file:///r" becomes "file:/r", not "/r": a plain-path remote and the
 * file:// URL Ansible makes of an absolute repo differ, as in Ansible).
 * Lexical here: a symbolic link along a local repository's path is not
 * resolved. */
static bool git_url_same(const char *cur, const char *url)
{
	if (!strcmp(cur, url))
		return true;
	if ((cur[0] == '/') != (url[0] == '/'))
		return false;
	char *a = path_normpath(cur), *b = path_normpath(url);
	bool same = !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

static json_t *git_check(struct exec_ctx *x, struct strbuf *c, const char *repo, const char *dest,
			 const char *version, bool update, bool force)
{
	strbuf_addstr(c, "if [ ! -f \"$d/.git/config\" ]; then R=$r; cw=.; echo M=clone; "
			 "else echo \"B=$(git -C \"$d\" rev-parse HEAD 2>/dev/null)\"; ");
	if (!update)
		strbuf_addstr(c, "echo M=keep; exit 0; ");
	strbuf_addstr(c, "[ -n \"$(git -C \"$d\" status --porcelain | grep -v '^?\?')\" ] && echo LM=1; "
			 "echo \"URL=$(git -C \"$d\" config --get \"remote.$o.url\")\"; R=$o; cw=$d; echo M=update; fi; "
			 "cd \"$cw\" || exit 1; tag=0; "
			 "if [ \"$v\" = HEAD ]; then if [ \"$R\" = \"$r\" ]; then out=$(git ls-remote \"$R\" -h HEAD) || exit 1; "
			 "else hb=$(git symbolic-ref -q \"refs/remotes/$o/HEAD\" || git symbolic-ref -q HEAD); hb=${hb##*/}; "
			 "out=$(git ls-remote \"$R\" -h \"refs/heads/$hb\") || exit 1; fi; "
			 "elif out=$(git ls-remote \"$R\" -h \"refs/heads/$v\") && [ -n \"$out\" ]; then :; "
			 "elif out=$(git ls-remote \"$R\" -t \"refs/tags/$v\"'*') && [ -n \"$out\" ]; then tag=1; "
			 "else echo \"H=$v\"; exit 0; fi; "
			 "[ -n \"$out\" ] || { echo NOREV=1; exit 0; }; "
			 "if [ $tag = 1 ]; then sel=''; for l in $(printf '%s\\n' \"$out\" | tr '\\t' ' ' | sed 's/ /|/'); do "
			 "case \"$l\" in *\"$v^{}\") sel=$l; break;; *\"$v\") sel=$l;; esac; done; [ -z \"$sel\" ] || out=${sel%%|*}; fi; "
			 "echo \"H=$(printf '%s\\n' \"$out\" | head -n 1 | cut -f1 | cut -d' ' -f1)\"");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c->buf, NULL, 0, &cr, &res) < 0)
		goto out;
	if (cr.rc != 0) {
		res = res_fail("%s", cr.err.len ? strbuf_str(&cr.err) : "git ls-remote failed");
		json_object_set_new(res, "rc", json_integer(cr.rc));
		goto out;
	}
	const char *o = strbuf_str(&cr.out);
	const char *m = strstr(o, "M=");
	const char *b = strstr(o, "B=");
	const char *h = strstr(o, "H=");
	const char *u = strstr(o, "URL=");
	char *before = b ? xstrndup(b + 2, strcspn(b + 2, "\n")) : NULL;
	char *head = h ? xstrndup(h + 2, strcspn(h + 2, "\n")) : NULL;
	res = res_new(false);
	json_object_set_new(res, "before", before && *before ? json_string(before) : json_null());
	if (m && !strncmp(m + 2, "keep", 4)) {
		json_object_set_new(res, "after", before && *before ? json_string(before) : json_null());
	} else if (strstr(o, "LM=1") && !force) {
		json_object_set_new(res, "failed", json_true());
		json_object_set_new(res, "msg", json_sprintf("Local modifications exist in the destination: %s (force=no).",
							     dest));
	} else if (strstr(o, "NOREV=1")) {
		json_decref(res);
		res = res_fail("Could not determine remote revision for %s", version);
	} else {
		bool url_changed = false;
		if (u) {
			char *url = xstrndup(u + 4, strcspn(u + 4, "\n"));
			url_changed = *url && !git_url_same(url, repo);
			free(url);
			json_object_set_new(res, "remote_url_changed", json_boolean(url_changed));
		}
		bool clone = m && !strncmp(m + 2, "clone", 5);
		json_object_set_new(res, "after", head ? json_string(head) : json_null());
		json_object_set_new(res, "changed", json_boolean(clone || url_changed || !before || !head ||
								    strcmp(before, head)));
	}
	free(before);
	free(head);
out:
	conn_result_release(&cr);
	return res;
}

/* One run of Ansible's git module, its commands run one at a time as the
 * module runs them (so that a failure is the same command's, with the
 * same cmd, rc, stdout, stderr and message). */
struct git_run {
	struct exec_ctx *x;
	const char *git;       /* the node's path of git (get_bin_path) */
	const char *env;       /* GIT_SSH_COMMAND's export, or "" */
	const char *dest;
	const char *repo;      /* repo as given (get_remote_head's test) */
	const char *url;       /* repo, file:// before an absolute path */
	const char *remote;
	const char *version;
	bool bare;
	long depth;
	int rc;
	struct strbuf out, err;
	struct strbuf repr;    /* the command as Ansible's _clean_args shows it */
	json_t *fail;          /* the module's failure, once one happened */
	json_t *warnings;      /* module.warn's, or NULL */
};

/* shlex.quote, as Python words it for the cmd Ansible reports */
static void py_quote(struct strbuf *b, const char *s)
{
	bool safe = *s != '\0';
	for (const char *p = s; *p && safe; p++)
		safe = isalnum((unsigned char)*p) || strchr("@%+=:,./-_", *p);
	if (safe) {
		strbuf_addstr(b, s);
		return;
	}
	strbuf_addch(b, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(b, "'\"'\"'");
		else
			strbuf_addch(b, *p);
	}
	strbuf_addch(b, '\'');
}

/* git ARGV... in cwd (left as is when it is not a directory, as
 * run_command's ignore_invalid_cwd), in the C locale the module asks
 * for; 0 ran (g->rc its status), -1 unreachable (g->fail set) */
static int gx(struct git_run *g, const char *cwd, const char *const *argv)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_reset(&g->repr);
	strbuf_addstr(&c, g->env);
	if (cwd) {
		strbuf_addstr(&c, "cd ");
		sh_quote(&c, cwd);
		strbuf_addstr(&c, " 2>/dev/null; ");
	}
	strbuf_addstr(&c, "LC_ALL=C LANG=C LC_MESSAGES=C LC_CTYPE=C exec ");
	sh_quote(&c, g->git);
	py_quote(&g->repr, g->git);
	for (const char *const *a = argv; *a; a++) {
		strbuf_addch(&c, ' ');
		sh_quote(&c, *a);
		strbuf_addch(&g->repr, ' ');
		py_quote(&g->repr, *a);
	}
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	int r = mod_sh(g->x, c.buf, NULL, 0, &cr, &res);
	strbuf_release(&c);
	if (r < 0) {
		g->fail = res;
		conn_result_release(&cr);
		return -1;
	}
	g->rc = cr.rc;
	strbuf_reset(&g->out);
	strbuf_reset(&g->err);
	strbuf_add(&g->out, cr.out.buf, cr.out.len);
	strbuf_add(&g->err, cr.err.buf, cr.err.len);
	conn_result_release(&cr);
	return 0;
}

/* the last command's output in a failure: stdout, stderr (with their
 * _lines, as Ansible's executor adds them) and rc */
static void g_output(struct git_run *g, json_t *res, bool cmd, bool cmd_list, const char *const *argv)
{
	if (cmd && !cmd_list)
		json_object_set_new(res, "cmd", json_string(g->repr.buf));
	if (cmd && cmd_list) {
		json_t *l = json_array();
		json_array_append_new(l, json_string(g->git));
		for (const char *const *a = argv; *a; a++)
			json_array_append_new(l, json_string(*a));
		json_object_set_new(res, "cmd", l);
	}
	json_object_set_new(res, "rc", json_integer(g->rc));
	json_object_set_new(res, "stdout", json_string(strbuf_str(&g->out)));
	json_object_set_new(res, "stdout_lines", mod_splitlines(strbuf_str(&g->out)));
	json_object_set_new(res, "stderr", json_string(strbuf_str(&g->err)));
	json_object_set_new(res, "stderr_lines", mod_splitlines(strbuf_str(&g->err)));
}

/* run_command(check_rc=True): a failure is the command's stderr */
static int gx_check(struct git_run *g, const char *cwd, const char *const *argv)
{
	if (gx(g, cwd, argv) < 0)
		return -1;
	if (g->rc == 0)
		return 0;
	size_t n = g->err.len;
	while (n && isspace((unsigned char)g->err.buf[n - 1]))
		n--;
	g->fail = res_fail("%.*s", (int)n, strbuf_str(&g->err));
	g_output(g, g->fail, true, false, argv);
	return -1;
}

/* what `git rev-parse HEAD` prints, "" when it fails (get_version) */
static char *g_version(struct git_run *g)
{
	const char *argv[] = { "rev-parse", "HEAD", NULL };
	if (gx(g, g->dest, argv) < 0)
		return NULL;
	size_t n = g->out.len;
	while (n && g->out.buf[n - 1] == '\n')
		n--;
	return xstrndup(strbuf_str(&g->out), n);
}

/* is_remote_branch / is_remote_tag: ls-remote's output holds version */
static int g_remote_ref(struct git_run *g, const char *remote, bool tag, bool *found)
{
	char *ref = xasprintf("refs/%s/%s", tag ? "tags" : "heads", g->version);
	const char *argv[] = { "ls-remote", remote, tag ? "-t" : "-h", ref, NULL };
	int r = gx_check(g, g->dest, argv);
	free(ref);
	if (r == 0)
		*found = strstr(strbuf_str(&g->out), g->version) != NULL;
	return r;
}

/* git branch --no-color -a, each line stripped */
static int g_branches(struct git_run *g, json_t **list)
{
	const char *argv[] = { "branch", "--no-color", "-a", NULL };
	if (gx(g, g->dest, argv) < 0)
		return -1;
	if (g->rc != 0) {
		g->fail = res_fail("Could not determine branch data - received %s", strbuf_str(&g->out));
		json_object_set_new(g->fail, "stdout", json_string(strbuf_str(&g->out)));
		json_object_set_new(g->fail, "stderr", json_string(strbuf_str(&g->err)));
		return -1;
	}
	*list = json_array();
	for (const char *l = strbuf_str(&g->out); *l;) {
		size_t n = strcspn(l, "\n");
		char *t = mod_strip(l, n);
		if (*t)
			json_array_append_new(*list, json_string(t));
		free(t);
		l += n + (l[n] != '\0');
	}
	return 0;
}

static bool in_list(json_t *list, const char *prefix, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v) {
		const char *s = json_string_value(v);
		size_t n = strlen(prefix);
		if (!strncmp(s, prefix, n) && !strcmp(s + n, name))
			return true;
	}
	return false;
}

/* get_head_branch: the branch HEAD names, or, detached, the one the
 * remote's HEAD names (head_splitter's parsing: the last word, the
 * remote's prefix dropped, all after the second '/') */
static int g_head_branch(struct git_run *g, char **branch)
{
	json_t *list;
	if (g_branches(g, &list) < 0)
		return -1;
	bool detached = false;
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v) {
		const char *s = json_string_value(v);
		if (!strncmp(s, "* ", 2) && (strstr(s, "no branch") || strstr(s, "detached from") ||
					     strstr(s, "detached at")))
			detached = true;
	}
	json_decref(list);
	char *head = g->bare ? xasprintf("%s/HEAD", g->dest)
		: detached ? xasprintf("%s/.git/refs/remotes/%s/HEAD", g->dest, g->remote)
			   : xasprintf("%s/.git/HEAD", g->dest);
	struct strbuf data = STRBUF_INIT;
	bool exists = false;
	json_t *res = NULL;
	int r = mod_read(g->x, head, &data, &exists, &res);
	free(head);
	*branch = NULL;
	if (r < 0) {
		strbuf_release(&data);
		g->fail = res;
		return -1;
	}
	json_decref(res);
	if (exists && data.len) {
		char *line = xstrndup(data.buf, strcspn(data.buf, "\n"));
		char *pre = xasprintf("refs/remotes/%s", g->remote);
		char *at = strstr(line, pre);
		if (at)
			memmove(at, at + strlen(pre), strlen(at + strlen(pre)) + 1);
		free(pre);
		const char *w = strrchr(line, ' ');
		w = w ? w + 1 : line;
		const char *p = w;
		for (int k = 0; k < 2 && strchr(p, '/'); k++)
			p = strchr(p, '/') + 1;
		*branch = xstrdup(p);
		free(line);
	}
	strbuf_release(&data);
	return 0;
}

/* get_remote_head: the revision version names at remote */
static int g_remote_head(struct git_run *g, const char *remote, char **rev)
{
	char *fileurl = xasprintf("file://%s", g->repo);
	bool cloning = !strcmp(remote, g->repo) || !strcmp(remote, fileurl);
	free(fileurl);
	const char *cwd = cloning ? NULL : g->dest;
	bool tag = false, found = false;
	char *ref = NULL;
	const char *kind = "-h";
	if (!strcmp(g->version, "HEAD")) {
		if (cloning) {
			ref = xstrdup("HEAD");
		} else {
			char *hb;
			if (g_head_branch(g, &hb) < 0)
				return -1;
			ref = xasprintf("refs/heads/%s", hb ? hb : "None");
			free(hb);
		}
	} else {
		if (g_remote_ref(g, remote, false, &found) < 0)
			return -1;
		if (found) {
			ref = xasprintf("refs/heads/%s", g->version);
		} else {
			if (g_remote_ref(g, remote, true, &found) < 0)
				return -1;
			if (!found) {
				*rev = xstrdup(g->version);
				return 0;
			}
			tag = true;
			kind = "-t";
			ref = xasprintf("refs/tags/%s*", g->version);
		}
	}
	const char *argv[] = { "ls-remote", remote, kind, ref, NULL };
	int r = gx_check(g, cwd, argv);
	free(ref);
	if (r < 0)
		return -1;
	if (g->out.len < 1) {
		g->fail = res_fail("Could not determine remote revision for %s", g->version);
		g_output(g, g->fail, false, false, NULL);
		json_object_del(g->fail, "stdout_lines");
		json_object_del(g->fail, "stderr_lines");
		return -1;
	}
	char *out = xstrdup(strbuf_str(&g->out));
	char *pick = out;
	if (tag) {
		char *v1 = xasprintf("%s^{}", g->version);
		for (char *line = out, *next; line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			size_t n = strlen(line), k1 = strlen(v1), k = strlen(g->version);
			if (n >= k1 && !strcmp(line + n - k1, v1)) {
				pick = line;
				break;
			}
			if (n >= k && !strcmp(line + n - k, g->version))
				pick = line;
		}
		free(v1);
	}
	*rev = xstrndup(pick + strspn(pick, " \t\n"), strcspn(pick + strspn(pick, " \t\n"), " \t\n"));
	free(out);
	return 0;
}

/* clone(): git clone with Ansible's options, then the extra remote of a
 * bare clone */
static int g_clone(struct git_run *g, bool single_branch)
{
	char *parent = xstrdup(g->dest);
	char *sl = strrchr(parent, '/');
	if (sl)
		*(sl == parent ? sl + 1 : sl) = '\0';
	struct strbuf mk = STRBUF_INIT;
	strbuf_addstr(&mk, "mkdir -p -- ");
	sh_quote(&mk, parent);
	strbuf_addstr(&mk, " 2>/dev/null; exit 0");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	int r = mod_sh(g->x, mk.buf, NULL, 0, &cr, &res);
	strbuf_release(&mk);
	conn_result_release(&cr);
	if (r < 0) {
		g->fail = res;
		free(parent);
		return -1;
	}
	bool found = false;
	if (g_remote_ref(g, g->url, false, &found) < 0 || (!found && g_remote_ref(g, g->url, true, &found) < 0)) {
		free(parent);
		return -1;
	}
	const char *argv[16];
	int n = 0;
	char depth[32];
	snprintf(depth, sizeof(depth), "%ld", g->depth);
	argv[n++] = "clone";
	if (g->bare) {
		argv[n++] = "--bare";
	} else {
		argv[n++] = "--origin";
		argv[n++] = g->remote;
	}
	if (g->depth) {
		if (!strcmp(g->version, "HEAD")) {
			argv[n++] = "--depth";
			argv[n++] = depth;
		} else if (found) {
			argv[n++] = "--depth";
			argv[n++] = depth;
			argv[n++] = "--branch";
			argv[n++] = g->version;
		} else {
			if (!g->warnings)
				g->warnings = json_array();
			json_array_append_new(g->warnings, json_string("Ignoring depth argument. Shallow clones are only "
								      "available for HEAD, branches, tags or in "
								      "combination with refspec."));
		}
	}
	if (single_branch) {
		argv[n++] = "--single-branch";
		if (found) {
			argv[n++] = "--branch";
			argv[n++] = g->version;
		}
	}
	argv[n++] = g->url;
	argv[n++] = g->dest;
	argv[n] = NULL;
	r = gx_check(g, parent, argv);
	free(parent);
	if (r < 0)
		return -1;
	if (g->bare && strcmp(g->remote, "origin")) {
		const char *add[] = { "remote", "add", g->remote, g->url, NULL };
		return gx_check(g, g->dest, add);
	}
	return 0;
}

/* set_remote_url: the remote's URL made repo; changed when it had one */
static int g_set_url(struct git_run *g, bool *changed)
{
	const char *get[] = { "ls-remote", "--get-url", g->remote, NULL };
	if (gx(g, g->dest, get) < 0)
		return -1;
	char *cur = NULL;
	if (g->rc == 0) {
		size_t n = g->out.len;
		while (n && g->out.buf[n - 1] == '\n')
			n--;
		cur = xstrndup(strbuf_str(&g->out), n);
	}
	*changed = false;
	bool same = cur && git_url_same(cur, g->url);
	if (same) {
		free(cur);
		return 0;
	}
	const char *set[] = { "remote", "set-url", g->remote, g->url, NULL };
	if (gx(g, g->dest, set) < 0) {
		free(cur);
		return -1;
	}
	if (g->rc != 0) {
		g->fail = res_fail("Failed to set a new url %s for %s: %s %s", g->url, g->remote,
				   strbuf_str(&g->out), strbuf_str(&g->err));
		free(cur);
		return -1;
	}
	*changed = cur != NULL;
	free(cur);
	return 0;
}

/* fetch(): tags and the remote's refs (a shallow fetch of the one ref a
 * depth wants) */
static int g_fetch(struct git_run *g, bool force)
{
	bool unused;
	if (g_set_url(g, &unused) < 0)
		return -1;
	const char *argv[16];
	char *own[4] = { NULL, NULL, NULL, NULL };
	int n = 0, refs = 0;
	char depth[32];
	snprintf(depth, sizeof(depth), "%ld", g->depth);
	argv[n++] = "fetch";
	const char *refv[4];
	if (g->depth) {
		char *hb = NULL;
		if (g_head_branch(g, &hb) < 0)
			return -1;
		bool found = false;
		if (!strcmp(g->version, "HEAD")) {
			refv[refs++] = own[0] = xstrdup(hb ? hb : "None");
		} else {
			if (g_remote_ref(g, g->url, false, &found) < 0) {
				free(hb);
				return -1;
			}
			if (found) {
				if (!hb || strcmp(hb, g->version))
					refv[refs++] = own[1] = xasprintf("+refs/heads/%s:refs/heads/%s", g->version,
									 g->version);
				refv[refs++] = own[2] = xasprintf("+refs/heads/%s:refs/remotes/%s/%s", g->version,
								 g->remote, g->version);
			} else {
				if (g_remote_ref(g, g->url, true, &found) < 0) {
					free(hb);
					return -1;
				}
				if (found)
					refv[refs++] = own[3] = xasprintf("+refs/tags/%s:refs/tags/%s", g->version,
									 g->version);
			}
		}
		free(hb);
		if (refs) {
			argv[n++] = "--depth";
			argv[n++] = depth;
		}
	}
	if (!g->depth || !refs) {
		if (g->bare) {
			refv[refs++] = "+refs/heads/*:refs/heads/*";
			refv[refs++] = "+refs/tags/*:refs/tags/*";
		} else {
			argv[n++] = "--tags";
		}
	}
	if (force)
		argv[n++] = "--force";
	argv[n++] = g->remote;
	for (int i = 0; i < refs; i++)
		argv[n++] = refv[i];
	argv[n] = NULL;
	int r = gx(g, g->dest, argv);
	if (r == 0 && g->rc != 0) {
		g->fail = res_fail("Failed to download remote objects and refs: %s %s", strbuf_str(&g->out),
				   strbuf_str(&g->err));
		g_output(g, g->fail, true, true, argv);
		json_object_del(g->fail, "rc");
		json_object_del(g->fail, "stdout");
		json_object_del(g->fail, "stderr");
		json_object_del(g->fail, "stdout_lines");
		json_object_del(g->fail, "stderr_lines");
		r = -1;
	}
	for (int i = 0; i < 4; i++)
		free(own[i]);
	return r;
}

/* a failed checkout as switch_version words it */
static int g_checkout_fail(struct git_run *g, const char *what, const char *name, bool cmd)
{
	g->fail = res_fail("Failed to checkout %s%s", what, name ? name : "None");
	g_output(g, g->fail, cmd, false, NULL);
	json_object_del(g->fail, "stdout_lines");
	json_object_del(g->fail, "stderr_lines");
	json_object_set_new(g->fail, "stdout_lines", mod_splitlines(strbuf_str(&g->out)));
	json_object_set_new(g->fail, "stderr_lines", mod_splitlines(strbuf_str(&g->err)));
	return -1;
}

/* switch_version: HEAD's branch, a remote branch (tracked), or anything
 * checkout takes */
static int g_switch(struct git_run *g)
{
	char *rref = NULL, *branch = NULL;
	const char *argv[8];
	int r = -1;
	bool head = !strcmp(g->version, "HEAD");
	if (head) {
		if (g_head_branch(g, &branch) < 0)
			return -1;
		const char *co[] = { "checkout", "--force", branch ? branch : "None", NULL };
		if (gx(g, g->dest, co) < 0)
			goto out;
		if (g->rc != 0) {
			g_checkout_fail(g, "branch ", branch, false);
			goto out;
		}
		rref = xasprintf("%s/%s", g->remote, branch ? branch : "None");
		argv[0] = "reset", argv[1] = "--hard", argv[2] = rref, argv[3] = "--", argv[4] = NULL;
	} else {
		bool remote_branch = false;
		if (g_remote_ref(g, g->remote, false, &remote_branch) < 0)
			goto out;
		if (remote_branch) {
			json_t *list;
			if (g_branches(g, &list) < 0)
				goto out;
			bool local = in_list(list, "", g->version) || in_list(list, "* ", g->version);
			json_decref(list);
			if (g->depth && !local) {
				char d[32];
				snprintf(d, sizeof(d), "--depth=%ld", g->depth);
				char *r1 = xasprintf("+refs/heads/%s:refs/heads/%s", g->version, g->version);
				char *r2 = xasprintf("+refs/heads/%s:refs/remotes/%s/%s", g->version, g->remote, g->version);
				const char *f[] = { "fetch", d, g->remote, r1, r2, NULL };
				int fr = gx(g, g->dest, f);
				free(r1);
				free(r2);
				if (fr < 0)
					goto out;
				if (g->rc != 0) {
					g->fail = res_fail("Failed to fetch branch from remote: %s", g->version);
					g_output(g, g->fail, false, false, NULL);
					goto out;
				}
				if (g_branches(g, &list) < 0)
					goto out;
				local = in_list(list, "", g->version) || in_list(list, "* ", g->version);
				json_decref(list);
			}
			rref = xasprintf("%s/%s", g->remote, g->version);
			if (!local) {
				argv[0] = "checkout", argv[1] = "--track", argv[2] = "-b", argv[3] = g->version;
				argv[4] = rref, argv[5] = NULL;
			} else {
				const char *co[] = { "checkout", "--force", g->version, NULL };
				if (gx(g, g->dest, co) < 0)
					goto out;
				if (g->rc != 0) {
					g_checkout_fail(g, "branch ", g->version, false);
					goto out;
				}
				argv[0] = "reset", argv[1] = "--hard", argv[2] = rref, argv[3] = NULL;
			}
		} else {
			argv[0] = "checkout", argv[1] = "--force", argv[2] = g->version, argv[3] = NULL;
		}
	}
	if (gx(g, g->dest, argv) < 0)
		goto out;
	if (g->rc != 0) {
		if (head)
			g_checkout_fail(g, "branch ", branch, true);
		else
			g_checkout_fail(g, "", g->version, true);
		goto out;
	}
	r = 0;
out:
	free(rref);
	free(branch);
	return r;
}

/* dest made absolute as Ansible's os.path.abspath makes it: against the
 * module's working directory on the node (its physical path, as
 * os.getcwd gives it), then normalised */
static json_t *git_abs_dest(struct exec_ctx *x, const char *dest, char **abs)
{
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, "pwd -P", NULL, 0, &cr, &res) < 0) {
		conn_result_release(&cr);
		return res;
	}
	size_t n = cr.out.len;
	while (n && cr.out.buf[n - 1] == '\n')
		n--;
	char *joined = xasprintf("%.*s/%s", (int)n, strbuf_str(&cr.out), dest);
	*abs = path_normpath(joined);
	free(joined);
	conn_result_release(&cr);
	return NULL;
}

static json_t *git_run_abs(struct exec_ctx *x, json_t *args);

static json_t *git_run(struct exec_ctx *x, json_t *args)
{
	static const char *const paths[] = { "dest", "key_file", NULL };
	json_t *bad = mod_unexpanded("git", args, paths);
	if (bad)
		return bad;
	const char *dest = args_str(args, "dest");
	if (!dest || dest[0] == '/')
		return git_run_abs(x, args);
	char *abs = NULL;
	json_t *res = git_abs_dest(x, dest, &abs);
	if (res)
		return res;
	json_t *copy = json_deep_copy(args);
	json_object_set_new(copy, "dest", json_string(abs));
	free(abs);
	res = git_run_abs(x, copy);
	json_decref(copy);
	return res;
}

/* the module, dest absolute */
static json_t *git_run_abs(struct exec_ctx *x, json_t *args)
{
	const char *repo = args_str(args, "repo");
	if (!repo)
		repo = args_str(args, "name");
	const char *dest = args_str(args, "dest");
	if (!repo || !dest)
		return res_fail("missing required arguments: repo, dest");
	const char *version = args_str(args, "version");
	if (!version)
		version = "HEAD";
	const char *remote = args_str(args, "remote");
	if (!remote)
		remote = "origin";
	bool clone = args_bool(json_object_get(args, "clone"), true);
	bool update = args_bool(json_object_get(args, "update"), true);
	bool force = args_bool(json_object_get(args, "force"), false);
	bool bare = args_bool(json_object_get(args, "bare"), false);
	bool single_branch = args_bool(json_object_get(args, "single_branch"), false);
	bool recursive = args_bool(json_object_get(args, "recursive"), true);
	bool track = args_bool(json_object_get(args, "track_submodules"), false);
	json_t *dv = json_object_get(args, "depth");
	long depth = dv ? (json_is_integer(dv) ? (long)json_integer_value(dv)
			   : strtol(json_string_value(dv) ? json_string_value(dv) : "0", NULL, 10)) : 0;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "export GIT_TERMINAL_PROMPT=0; ");
	const char *key = args_str(args, "key_file");
	bool accept = args_bool(json_object_get(args, "accept_hostkey"), false);
	if (key || accept) {
		strbuf_addstr(&c, "export GIT_SSH_COMMAND=");
		struct strbuf s = STRBUF_INIT;
		strbuf_addstr(&s, "ssh");
		if (accept)
			strbuf_addstr(&s, " -o StrictHostKeyChecking=no");
		if (key)
			strbuf_addf(&s, " -i '%s' -o IdentitiesOnly=yes", key);
		sh_quote(&c, s.buf);
		strbuf_release(&s);
		strbuf_addstr(&c, "; ");
	}
	/* the file:// URL Ansible makes of an absolute path (for depth) */
	char *url = repo[0] == '/' ? xasprintf("file://%s", repo) : xstrdup(repo);
	if (x->check_mode) {
		if (bare) {
			free(url);
			strbuf_release(&c);
			return res_refused("imc: git's check mode with bare=yes is not implemented");
		}
		strbuf_addstr(&c, "d=");
		sh_quote(&c, dest);
		strbuf_addstr(&c, "; r=");
		sh_quote(&c, url);
		strbuf_addstr(&c, "; v=");
		sh_quote(&c, version);
		strbuf_addstr(&c, "; o=");
		sh_quote(&c, remote);
		strbuf_addstr(&c, "; ");
		json_t *res = git_check(x, &c, url, dest, version, update, force);
		strbuf_release(&c);
		free(url);
		return res;
	}
	char *gitpath = NULL;
	json_t *res = NULL;
	if (mod_bin_path(x, "git", true, &gitpath, &res) < 0) {
		strbuf_release(&c);
		free(url);
		return res;
	}
	struct git_run g = {
		.x = x, .git = gitpath, .env = c.buf, .dest = dest, .repo = repo, .url = url,
		.remote = remote, .version = version, .bare = bare, .depth = depth,
		.out = STRBUF_INIT, .err = STRBUF_INIT, .repr = STRBUF_INIT,
	};
	res = res_new(false);
	json_object_set_new(res, "before", json_null());
	char *gitconfig = xasprintf(bare ? "%s/config" : "%s/.git/config", dest);
	struct node_stat st;
	json_t *sres = NULL;
	int sr = mod_stat(x, gitconfig, true, false, &st, &sres);
	free(gitconfig);
	char *before = NULL, *after = NULL;
	bool local_mods = false, url_changed = false;
	if (sr < 0) {
		json_decref(res);
		res = sres;
		goto out;
	}
	json_decref(sres);
	if (!st.exists) {
		if (!clone) {
			if (g_remote_head(&g, url, &after) < 0)
				goto fail;
			json_object_set_new(res, "changed", json_true());
			json_object_set_new(res, "after", json_string(after));
			goto out;
		}
		if (g_clone(&g, single_branch) < 0)
			goto fail;
	} else if (!update) {
		before = g_version(&g);
		if (!before)
			goto fail;
		json_object_set_new(res, "before", json_string(before));
		json_object_set_new(res, "after", json_string(before));
		goto out;
	} else {
		if (!bare) {
			const char *st_argv[] = { "status", "--porcelain", NULL };
			if (gx(&g, dest, st_argv) < 0)
				goto fail;
			for (const char *l = strbuf_str(&g.out); *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
				if (strncmp(l, "??", 2) && l[0] != '\n')
					local_mods = true;
		}
		before = g_version(&g);
		if (!before)
			goto fail;
		json_object_set_new(res, "before", json_string(before));
		if (local_mods) {
			if (!force) {
				json_object_set_new(res, "failed", json_true());
				json_object_set_new(res, "msg", json_sprintf("Local modifications exist in the destination: %s (force=no).",
									     dest));
				goto out;
			}
			const char *reset[] = { "reset", "--hard", "HEAD", NULL };
			if (gx_check(&g, dest, reset) < 0)
				goto fail;
			json_object_set_new(res, "changed", json_true());
			json_object_set_new(res, "msg", json_sprintf("Local modifications exist in the destination: %s", dest));
		}
		if (g_set_url(&g, &url_changed) < 0)
			goto fail;
		json_object_set_new(res, "remote_url_changed", json_boolean(url_changed));
		if (g_fetch(&g, force) < 0)
			goto fail;
	}
	if (!bare && g_switch(&g) < 0)
		goto fail;
	if (recursive && !bare) {
		/* submodules (the generated cases have none): brought to the
		 * superproject's commits, or their remotes' with track_submodules */
		const char *sm[] = { "submodule", "update", "--init", "--recursive",
				     track ? "--remote" : NULL, NULL };
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "%s/.gitmodules", dest);
		struct node_stat mst;
		json_t *mres = NULL;
		int mr = mod_stat(x, t.buf, true, false, &mst, &mres);
		strbuf_release(&t);
		if (mr < 0) {
			json_decref(res);
			res = mres;
			goto out;
		}
		json_decref(mres);
		if (mst.exists && gx_check(&g, dest, sm) < 0)
			goto fail;
	}
	after = g_version(&g);
	if (!after)
		goto fail;
	json_object_set_new(res, "after", json_string(after));
	if (!before || strcmp(before, after) || local_mods || url_changed)
		json_object_set_new(res, "changed", json_true());
	goto out;
fail:
	/* the module's fail_json with what the failing step says alone */
	if (g.fail) {
		json_decref(res);
		res = g.fail;
		g.fail = NULL;
	}
out:
	if (g.warnings)
		json_object_set(res, "warnings", g.warnings);
	json_decref(g.warnings);
	json_decref(g.fail);
	free(before);
	free(after);
	free(url);
	free(gitpath);
	strbuf_release(&g.out);
	strbuf_release(&g.err);
	strbuf_release(&g.repr);
	strbuf_release(&c);
	return res;
}

/* what run implements (module.h) */
static const char *const git_params[] = {
	"accept_hostkey", "bare", "clone", "depth", "dest", "force", "key_file", "name", "recursive",
	"remote", "repo", "single_branch", "track_submodules", "update", "version", NULL
};

static const char *const git_node_paths[] = { "dest", "key_file", "executable", "archive", "separate_git_dir", NULL };

const struct task_module mod_git = {
	.name = "git", .params = git_params, .check_mode_native = true, .run = git_run,
	.node_paths = git_node_paths,
};
