/* template.c: the `template` module: renders a controller-side Jinja2
 * template (role templates/ or the play's directory) with the task's
 * variables and Ansible's Jinja options (trim_blocks, lstrip_blocks,
 * newline_sequence, variable_start/end_string), then writes it as copy
 * does (copy_put_content: checksum compare, atomic write, attributes,
 * backup). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static bool at(const char *s, const char *w)
{
	return !strncmp(s, w, strlen(w));
}

/* Copies the tag or comment at s (through its closing "%}" or "#}") to o;
 * returns the text after it. */
static const char *copy_tag(struct strbuf *o, const char *s, const char *close)
{
	const char *e = strstr(s + 2, close);
	size_t n = e ? (size_t)(e - s) + 2 : strlen(s);
	strbuf_add(o, s, n);
	return s + n;
}

/* The template rewritten with Jinja's own variable delimiters, for a
 * template written with variable_start_string vs and variable_end_string
 * ve: their expressions become {{ }}, a "{{" of the text stays text
 * ({{ '{{' }}); blocks, comments and raw blocks are copied as they are. */
static char *translate_delims(const char *s, const char *vs, const char *ve)
{
	struct strbuf o = STRBUF_INIT;
	while (*s) {
		if (at(s, vs)) {
			strbuf_addstr(&o, "{{");
			s += strlen(vs);
			char q = 0;
			while (*s && (q || !at(s, ve))) {
				if (q && *s == '\\' && s[1]) {
					strbuf_add(&o, s, 2);
					s += 2;
					continue;
				}
				if (*s == q)
					q = 0;
				else if (!q && (*s == '\'' || *s == '"'))
					q = *s;
				strbuf_addch(&o, *s++);
			}
			if (*s) {
				strbuf_addstr(&o, "}}");
				s += strlen(ve);
			}
		} else if (at(s, "{{")) {
			strbuf_addstr(&o, "{{ '{{' }}");
			s += 2;
		} else if (at(s, "{#")) {
			s = copy_tag(&o, s, "#}");
		} else if (at(s, "{%")) {
			const char *start = s;
			s = copy_tag(&o, s, "%}");
			/* {% raw %}: its text up to {% endraw %} is text */
			const char *k = start + 2;
			while (*k == '-' || *k == '+' || *k == ' ' || *k == '\t')
				k++;
			if (at(k, "raw") && (k[3] == ' ' || k[3] == '-' || k[3] == '%' || k[3] == '\t')) {
				const char *e = strstr(s, "endraw");
				const char *c = e ? strstr(e, "%}") : NULL;
				const char *b = e;
				while (b && b > s && b[-1] != '{')
					b--;
				if (c && b > s) {
					strbuf_add(&o, s, (size_t)(b - 1 - s));
					s = copy_tag(&o, b - 1, "%}");
				}
			}
		} else
			strbuf_addch(&o, *s++);
	}
	if (!o.buf)
		strbuf_addstr(&o, "");
	return strbuf_detach(&o);
}

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
	const char *nl = newline_of(args_str(args, "newline_sequence"));
	if (!nl) {
		res = json_pack("{s:b, s:s}", "failed", 1, "msg",
				"newline_sequence needs to be one of: \n, \r or \r\n");
		goto out;
	}
	const char *vs = args_str(args, "variable_start_string");
	const char *ve = args_str(args, "variable_end_string");
	if ((vs && strcmp(vs, "{{")) || (ve && strcmp(ve, "}}"))) {
		char *t = translate_delims(strbuf_str(&data), vs ? vs : "{{", ve ? ve : "}}");
		strbuf_reset(&data);
		strbuf_addstr(&data, t);
		free(t);
	}
	json_object_set_new(x->vars, "template_path", json_string(path));
	json_object_set_new(x->vars, "template_fullpath", json_string(path));
	json_object_set_new(x->vars, "template_host", json_string(x->host->name));
	json_object_set_new(x->vars, "template_destpath", json_string(dest0));
	struct diag d = DIAG_INIT;
	char *text = xt_render_template(x, data.buf ? data.buf : "", path,
					args_bool(json_object_get(args, "trim_blocks"), true),
					args_bool(json_object_get(args, "lstrip_blocks"), false), nl, &d);
	if (!text) {
		res = res_fail("%s", diag_first_message(&d));
		diag_release(&d);
		goto out;
	}
	diag_release(&d);
	char *dest = copy_final_dest(x, dest0, src, &res);
	if (dest) {
		res = copy_put_content(x, args, dest, dest0, text, strlen(text));
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
	/* the block and comment delimiters Jinja could be given: not
	 * implemented, so the task goes to Ansible rather than be rendered
	 * with the usual ones ("unsupported " marks it for the fallback) */
	static const char *const delims[] = { "block_start_string", "block_end_string",
					      "comment_start_string", "comment_end_string", NULL };
	for (const char *const *k = delims; *k; k++)
		if (json_object_get(args, *k)) {
			diag_error(d, IMC_EXIT_DATAERR, loc, "template: unsupported parameter '%s'", *k);
			return -1;
		}
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
