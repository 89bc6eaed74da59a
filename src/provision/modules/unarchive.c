/* unarchive.c: the `unarchive` module: extracts a controller archive (sent over the
 * connection), a node path or a URL with tar/unzip on the node, skipping
 * when `creates` exists. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/banned.h"

static json_t *unarchive_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src");
	const char *dest = args_str(args, "dest");
	if (!src || !dest)
		return res_fail("missing required arguments: src, dest");
	const char *creates = args_str(args, "creates");
	json_t *res = NULL;
	if (creates) {
		struct node_stat st;
		if (mod_stat(x, creates, true, false, &st, &res) < 0)
			return res;
		if (st.exists) {
			res = res_new(false);
			json_object_set_new(res, "dest", json_string(dest));
			json_object_set_new(res, "src", json_string(src));
			json_object_set_new(res, "msg", json_string("skipped, since creates exists"));
			return res;
		}
	}
	bool remote = args_bool(json_object_get(args, "remote_src"), false) ||
		      (json_object_get(args, "copy") && !args_bool(json_object_get(args, "copy"), true));
	bool is_url = !strncmp(src, "http://", 7) || !strncmp(src, "https://", 8) || !strncmp(src, "ftp://", 6);
	struct strbuf data = STRBUF_INIT;
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "d=");
	sh_quote(&c, dest);
	/* the action's check of dest, then the module's of a node src
	 * (missing, unreadable, empty), before anything is extracted */
	strbuf_addstr(&c, "; [ -d \"$d\" ] || { printf \"dest '%s' must be an existing dir\" \"$d\"; exit 30; }");
	if (remote && !is_url) {
		strbuf_addstr(&c, "; s=");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; [ -e \"$s\" ] || { printf \"Source '%s' does not exist\" \"$s\"; exit 30; }; "
				 "[ -r \"$s\" ] || { printf \"Source '%s' not readable\" \"$s\"; exit 30; }; "
				 "[ -s \"$s\" ] || { printf \"Invalid archive '%s', the file is 0 bytes\" \"$s\"; exit 30; }");
	}
	strbuf_addstr(&c, "; t=$(mktemp /tmp/.imc_ar.XXXXXX) || exit 1; ");
	if (is_url) {
		strbuf_addstr(&c, "if command -v curl >/dev/null 2>&1; then curl -fsSL -o \"$t\" ");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; else wget -q -O \"$t\" ");
		sh_quote(&c, src);
		strbuf_addstr(&c, "; fi || { rm -f \"$t\"; exit 1; }; ");
	} else if (remote) {
		strbuf_addstr(&c, "cp -- ");
		sh_quote(&c, src);
		strbuf_addstr(&c, " \"$t\" || { rm -f \"$t\"; exit 1; }; ");
	} else {
		char *path = mod_find_src(x, "files", src);
		if (!path || strbuf_read_file(&data, path) < 0) {
			free(path);
			strbuf_release(&c);
			strbuf_release(&data);
			return res_fail("Could not find or access '%s' on the Ansible Controller.", src);
		}
		free(path);
		strbuf_addstr(&c, "cat > \"$t\"; ");
	}
	const char *extra = NULL;
	json_t *eo = json_object_get(args, "extra_opts");
	struct strbuf ex = STRBUF_INIT;
	if (json_is_array(eo)) {
		size_t i;
		json_t *e;
		json_array_foreach(eo, i, e) {
			strbuf_addch(&ex, ' ');
			sh_quote(&ex, json_string_value(e) ? json_string_value(e) : "");
		}
		extra = ex.buf;
	} else if (json_is_string(eo)) {
		strbuf_addch(&ex, ' ');
		strbuf_addstr(&ex, json_string_value(eo));
		extra = ex.buf;
	}
	const char *lower = src;
	size_t sl = strlen(lower);
	bool zip = sl > 4 && !strcasecmp(lower + sl - 4, ".zip");
	if (zip)
		strbuf_addf(&c, "unzip -o -q%s \"$t\" -d \"$d\"; rc=$?; ", extra ? extra : "");
	else
		strbuf_addf(&c, "tar -xf \"$t\" -C \"$d\"%s; rc=$?; ", extra ? extra : "");
	strbuf_addstr(&c, "rm -f \"$t\"; exit $rc");
	struct conn_result cr;
	conn_result_init(&cr);
	if (mod_sh(x, c.buf, data.buf, data.len, &cr, &res) == 0) {
		if (cr.rc == 30)
			res = res_fail("%s", strbuf_str(&cr.out));
		else if (cr.rc != 0)
			res = res_fail("Failed to unpack %s into %s: %s", src, dest, strbuf_str(&cr.err));
		else {
			bool changed = true;
			if (mod_attrs(x, dest, args, &changed, &res) == 0) {
				res = res_new(true);
				json_object_set_new(res, "dest", json_string(dest));
				json_object_set_new(res, "src", json_string(src));
				json_object_set_new(res, "extract_results", json_pack("{s:i}", "rc", 0));
			}
		}
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	strbuf_release(&data);
	strbuf_release(&ex);
	return res;
}

/* what run implements (module.h) */
static const char *const unarchive_params[] = {
	"copy", "creates", "dest", "extra_opts", "remote_src", "src", "mode", "owner", "group",
	"unsafe_writes", NULL
};

const struct task_module mod_unarchive = {
	.name = "unarchive",
	.params = unarchive_params,
	.run = unarchive_run,
};
