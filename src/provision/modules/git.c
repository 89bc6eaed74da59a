/* git.c: the `git` module: clone when dest has no checkout (clone:
 * yes), else fetch and move to `version` when update: yes (refusing local
 * modifications unless force: yes); depth, recursive, remote,
 * accept_hostkey, key_file. Changed when HEAD moved (before != after).
 * Check mode is native (git_check): what Ansible's module reports from
 * git ls-remote, nothing fetched or written. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Check mode, as Ansible's module: no checkout at dest, changed with
 * after the remote's revision of version (git ls-remote; a sha1 as is);
 * a checkout and update=no, unchanged at its HEAD; else local
 * modifications (untracked files aside) fail without force, and changed
 * is whether HEAD differs from the remote's revision (through the named
 * remote) or the remote's URL differs from repo. Nothing is fetched or
 * written. The script's first lines set r, d, v, o and the environment. */
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
			url_changed = *url && strcmp(url, repo);
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

static json_t *git_run(struct exec_ctx *x, json_t *args)
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
	bool recursive = args_bool(json_object_get(args, "recursive"), true);
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
	strbuf_addstr(&c, "d=");
	sh_quote(&c, dest);
	strbuf_addstr(&c, "; r=");
	sh_quote(&c, repo);
	strbuf_addstr(&c, "; v=");
	sh_quote(&c, version);
	strbuf_addstr(&c, "; o=");
	sh_quote(&c, remote);
	if (x->check_mode) {
		strbuf_addstr(&c, "; ");
		json_t *res = git_check(x, &c, repo, dest, version, update, force);
		strbuf_release(&c);
		return res;
	}
	strbuf_addstr(&c, "; if [ -d \"$d/.git\" ] || [ -f \"$d/HEAD\" ]; then b=$(git -C \"$d\" rev-parse HEAD 2>/dev/null); ");
	if (update) {
		if (!force)
			strbuf_addstr(&c, "if [ -n \"$(git -C \"$d\" status --porcelain --untracked-files=no)\" ]; then "
					  "echo \"Local modifications exist in repository (force=no).\" >&2; exit 3; fi; ");
		strbuf_addstr(&c, "git -C \"$d\" fetch -q");
		if (depth > 0)
			strbuf_addf(&c, " --depth %ld", depth);
		strbuf_addstr(&c, " \"$o\" || exit 1; ");
		strbuf_addstr(&c, "if [ \"$v\" = HEAD ]; then t=$(git -C \"$d\" rev-parse \"$o/HEAD\" 2>/dev/null || git -C \"$d\" rev-parse FETCH_HEAD); "
				  "elif git -C \"$d\" rev-parse -q --verify \"$o/$v^{commit}\" >/dev/null; then t=$(git -C \"$d\" rev-parse \"$o/$v^{commit}\"); "
				  "else t=$(git -C \"$d\" rev-parse \"$v^{commit}\") || exit 1; fi; ");
		strbuf_addf(&c, "if [ \"$t\" != \"$b\" ]; then git -C \"$d\" %s -q \"$t\" || exit 1; fi; ",
			    force ? "reset --hard" : "checkout");
		if (recursive)
			strbuf_addstr(&c, "[ -f \"$d/.gitmodules\" ] && git -C \"$d\" submodule -q update --init --recursive; ");
	}
	strbuf_addstr(&c, "else b=''; ");
	if (!clone)
		strbuf_addstr(&c, "echo __imc_noclone__; exit 0; ");
	else {
		strbuf_addstr(&c, "mkdir -p \"$(dirname -- \"$d\")\" && git clone -q");
		if (depth > 0)
			strbuf_addf(&c, " --depth %ld", depth);
		if (recursive)
			strbuf_addstr(&c, " --recursive");
		strbuf_addstr(&c, " --origin \"$o\" \"$r\" \"$d\" || exit 1; "
				  "if [ \"$v\" != HEAD ]; then git -C \"$d\" checkout -q \"$v\" || exit 1; fi; ");
	}
	strbuf_addstr(&c, "fi; echo \"__imc_before__=$b\"; echo \"__imc_after__=$(git -C \"$d\" rev-parse HEAD)\"");
	struct conn_result cr;
	conn_result_init(&cr);
	json_t *res = NULL;
	if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0) {
		const char *o = strbuf_str(&cr.out);
		const char *b = strstr(o, "__imc_before__=");
		const char *a = strstr(o, "__imc_after__=");
		char *before = b ? xstrndup(b + 15, strcspn(b + 15, "\n")) : xstrdup("");
		char *after = a ? xstrndup(a + 14, strcspn(a + 14, "\n")) : xstrdup("");
		if (cr.rc != 0) {
			res = res_fail("%s", cr.err.len ? strbuf_str(&cr.err) : "git failed");
			json_object_set_new(res, "rc", json_integer(cr.rc));
		} else {
			res = res_new(strcmp(before, after) != 0);
			json_object_set_new(res, "before", *before ? json_string(before) : json_null());
			json_object_set_new(res, "after", json_string(after));
			/* Ansible reports it when it updated a checkout */
			if (*before)
				json_object_set_new(res, "remote_url_changed", json_false());
		}
		free(before);
		free(after);
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	return res;
}

/* what run implements (module.h) */
static const char *const git_params[] = {
	"accept_hostkey", "clone", "depth", "dest", "force", "key_file", "name", "recursive",
	"remote", "repo", "update", "version", NULL
};

const struct task_module mod_git = {
	.name = "git", .params = git_params, .check_mode_native = true, .run = git_run,
};
