/* git.c: the `git` module: clone when dest has no checkout (clone:
 * yes), else fetch and move to `version` when update: yes (refusing local
 * modifications unless force: yes); depth, recursive, remote,
 * accept_hostkey, key_file. Changed when HEAD moved (before != after). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

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

const struct task_module mod_git = { .name = "git", .params = git_params, .run = git_run };
