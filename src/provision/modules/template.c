/* template.c: the `template` module: renders a controller-side Jinja2
 * template (role templates/ or the play's directory) with the task's
 * variables, then writes it as copy does (copy_put_content: checksum
 * compare, atomic write, attributes, backup). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static json_t *template_run(struct exec_ctx *x, json_t *args)
{
	const char *src = args_str(args, "src");
	const char *dest0 = args_str(args, "dest");
	if (!src || !dest0)
		return res_fail("missing required arguments: src, dest");
	char *path = mod_find_src(x, "templates", src);
	if (!path)
		return res_fail("Could not find or access '%s'", src);
	struct strbuf data = STRBUF_INIT;
	json_t *res = NULL;
	if (strbuf_read_file(&data, path) < 0) {
		res = res_fail("Could not read '%s'", path);
		goto out;
	}
	json_object_set_new(x->vars, "template_path", json_string(path));
	json_object_set_new(x->vars, "template_fullpath", json_string(path));
	json_object_set_new(x->vars, "template_host", json_string(x->host->name));
	json_object_set_new(x->vars, "template_destpath", json_string(dest0));
	struct diag d = DIAG_INIT;
	char *text = xt_render_text(x, data.buf ? data.buf : "", path, &d);
	if (!text) {
		res = res_fail("%s", diag_first_message(&d));
		diag_release(&d);
		goto out;
	}
	diag_release(&d);
	char *dest = copy_final_dest(x, dest0, src, &res);
	if (dest) {
		res = copy_put_content(x, args, dest, text, strlen(text));
		free(dest);
	}
	free(text);
out:
	strbuf_release(&data);
	free(path);
	return res;
}

static int template_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	if (!json_object_get(args, "src") || !json_object_get(args, "dest")) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "template: missing required arguments: src, dest");
		return -1;
	}
	return 0;
}

const struct task_module mod_template = {
	.name = "template", .check = template_check, .run = template_run,
	.check_mode_native = true,
};
