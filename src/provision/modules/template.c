/* template.c: the `template` module: renders a controller-side Jinja2
 * template (role templates/ or the play's directory) with the task's
 * variables and Ansible's Jinja options (trim_blocks, lstrip_blocks,
 * newline_sequence, the block/variable/comment start and end strings; the
 * template's own "#jinja2:" line is the engine's), then writes it as copy
 * does (copy_put_content: checksum compare, atomic write, attributes,
 * backup), in output_encoding (util/textenc.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "provision/modules/module-shared.h"
#include "template/template.h"
#include "util/textenc.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* newline_sequence as Ansible's template action takes it: the characters
 * themselves or their escapes ("\\r\\n"); NULL when neither. */
static const char *newline_of(const char *v)
{
	if (!v || !strcmp(v, "\n") || !strcmp(v, "\\n"))
		return "\n";
	if (!strcmp(v, "\r\n") || !strcmp(v, "\\r\\n"))
		return "\r\n";
	if (!strcmp(v, "\r") || !strcmp(v, "\\r"))
		return "\r";
	return NULL;
}

/* A Python datetime of the local time at epoch seconds t, as
 * datetime.fromtimestamp() gives it (new reference; NULL if it fails). */
static json_t *local_datetime(double t)
{
	time_t sec = (time_t)t;
	struct tm tm;
	if (!localtime_r(&sec, &tm))
		return NULL;
	return tmpl_datetime(&tm, (int)((t - (double)sec) * 1e6));
}

/* The variables Ansible's template action adds (its
 * generate_ansible_template_vars): the template's path, full path and
 * owner, its modification time and the run's date as datetimes, the
 * controller's host name (this machine's, where imc renders), the
 * destination, and ansible_managed ("Ansible managed", the default of
 * DEFAULT_MANAGED_STR, run through strftime as Ansible does). */
static void template_vars(struct exec_ctx *x, const char *path, const char *dest)
{
	struct stat st;
	bool have = stat(path, &st) == 0;
	char *full = realpath(path, NULL);
	struct utsname un;
	json_object_set_new(x->vars, "template_path", json_string(path));
	json_object_set_new(x->vars, "template_fullpath", json_string(full ? full : path));
	json_object_set_new(x->vars, "template_host",
			    json_string(uname(&un) == 0 ? un.nodename : x->host->name));
	json_object_set_new(x->vars, "template_destpath", json_string(dest));
	free(full);
	if (!have)
		return;
	struct passwd *pw = getpwuid(st.st_uid);
	if (pw)
		json_object_set_new(x->vars, "template_uid", json_string(pw->pw_name));
	else
		json_object_set_new(x->vars, "template_uid", json_sprintf("%lu", (unsigned long)st.st_uid));
	json_t *mt = local_datetime((double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	json_t *rd = local_datetime((double)now.tv_sec + (double)now.tv_nsec / 1e9);
	if (mt)
		json_object_set_new(x->vars, "template_mtime", mt);
	if (rd)
		json_object_set_new(x->vars, "template_run_date", rd);
	json_object_set_new(x->vars, "ansible_managed", json_string("Ansible managed"));
}

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
	if (mod_read_src(path, &data, &res) < 0) {
		if (!res)
			res = res_fail("Could not read '%s'", path);
		goto out;
	}
	const char *nl = newline_of(args_str(args, "newline_sequence"));
	if (!nl) {
		res = json_pack("{s:b, s:s}", "failed", 1, "msg",
				"newline_sequence needs to be one of: \n, \r or \r\n");
		goto out;
	}
	/* the delimiters are the templating environment's, so the variables
	 * the template reads are templated with them too, as Ansible does */
	struct tmpl_syntax syn = {
		.block_start = args_str(args, "block_start_string"),
		.block_end = args_str(args, "block_end_string"),
		.variable_start = args_str(args, "variable_start_string"),
		.variable_end = args_str(args, "variable_end_string"),
		.comment_start = args_str(args, "comment_start_string"),
		.comment_end = args_str(args, "comment_end_string"),
	};
	/* the rendered text is written in output_encoding (an empty one is
	 * utf-8); Python's strict encoding errors fail the task */
	const char *enc = args_str(args, "output_encoding");
	if (!enc || !*enc)
		enc = "utf-8";
	template_vars(x, path, dest0);
	struct diag d = DIAG_INIT;
	char *text = xt_render_template(x, data.buf ? data.buf : "", path,
					args_bool(json_object_get(args, "trim_blocks"), true),
					args_bool(json_object_get(args, "lstrip_blocks"), false), nl, &syn, &d);
	if (!text) {
		res = res_fail("%s", diag_first_message(&d));
		diag_release(&d);
		goto out;
	}
	diag_release(&d);
	/* mode=preserve: the template file's own mode, as the action
	 * passes it on ('0%03o' of the source's permission bits) */
	json_t *wargs = json_incref(args);
	const char *mode = args_str(args, "mode");
	struct stat st;
	if (mode && !strcmp(mode, "preserve") && stat(path, &st) == 0) {
		json_decref(wargs);
		wargs = json_copy(args);
		char m[16];
		snprintf(m, sizeof(m), "0%03o", (unsigned)(st.st_mode & 07777));
		json_object_set_new(wargs, "mode", json_string(m));
	}
	struct strbuf bytes = STRBUF_INIT;
	char *err = NULL;
	if (text_encode(enc, text, strlen(text), &bytes, &err) < 0) {
		res = res_fail("Unexpected failure during module execution: %s", err);
		free(err);
	} else {
		const char *b = bytes.buf ? bytes.buf : "";
		char *dest = copy_final_dest_put(x, dest0, src, wargs, b, bytes.len, &res);
		if (dest) {
			res = copy_put_content(x, wargs, dest, dest0, b, bytes.len);
			free(dest);
		} else
			copy_sum_failure(res, b, bytes.len);
	}
	strbuf_release(&bytes);
	json_decref(wargs);
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

static const char *const template_home_paths[] = { "dest", NULL };
static const char *const template_node_paths[] = { "dest", NULL };

const struct task_module mod_template = {
	.name = "template", .check = template_check, .run = template_run,
	.check_mode_native = true,
	.node_paths = template_node_paths, .action_home_paths = template_home_paths,
};
