/* template-header.c: Jinja environment overrides of one rendering: a
 * template's "#jinja2:" first line (Ansible's do_template), and the checks
 * Jinja's lexer makes of the delimiters however they were set (template
 * module options, lookup('template') options, that line).
 *
 * Ansible reads the line as comma-separated "key: value" pairs, each value a
 * Python literal set as an attribute of the Jinja environment, and renders
 * the text after the line. The keys imc renders exactly are the lexer's
 * (delimiters, line statement/comment prefixes, trim_blocks, lstrip_blocks,
 * newline_sequence, keep_trailing_newline); any other key is an error naming
 * it, never ignored. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define HEADER "#jinja2:"

void header_release(struct tmpl_header *h)
{
	for (size_t i = 0; i < h->nowned; i++)
		free(h->owned[i]);
	free(h->owned);
	h->owned = NULL;
	h->nowned = 0;
}

/* The string member of syn a key names, or NULL. */
static const char **syntax_member(struct tmpl_syntax *syn, const char *key)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "block_start_string", offsetof(struct tmpl_syntax, block_start) },
		{ "block_end_string", offsetof(struct tmpl_syntax, block_end) },
		{ "variable_start_string", offsetof(struct tmpl_syntax, variable_start) },
		{ "variable_end_string", offsetof(struct tmpl_syntax, variable_end) },
		{ "comment_start_string", offsetof(struct tmpl_syntax, comment_start) },
		{ "comment_end_string", offsetof(struct tmpl_syntax, comment_end) },
		{ "line_statement_prefix", offsetof(struct tmpl_syntax, line_statement_prefix) },
		{ "line_comment_prefix", offsetof(struct tmpl_syntax, line_comment_prefix) },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i].key))
			return (const char **)(void *)((char *)syn + keys[i].off);
	return NULL;
}

static char *keep(struct tmpl_header *h, char *s)
{
	h->owned = xreallocarray(h->owned, h->nowned + 1, sizeof(*h->owned));
	h->owned[h->nowned++] = s;
	return s;
}

/* Applies one "key: value" pair. */
static int apply_pair(struct tmpl_header *h, struct lexopt *o, char *pair, const char **err)
{
	static char msg[512];
	char *colon = strchr(pair, ':');
	char *key = pair;
	while (*key == ' ' || *key == '\t')
		key++;
	if (!colon) {
		char *e = key + strlen(key);
		while (e > key && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = 0;
		snprintf(msg, sizeof(msg), "failed to parse jinja2 override '%s'. Did you use something different from "
			 "colon as key-value separator?", key);
		*err = msg;
		return -1;
	}
	*colon = 0;
	char *e = colon;
	while (e > key && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = 0;
	char *val = colon + 1;
	while (*val == ' ' || *val == '\t')
		val++;
	e = val + strlen(val);
	while (e > val && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	json_t *v = val_literal_eval(val);
	if (!v) {
		snprintf(msg, sizeof(msg), "failed to parse jinja2 override '%s': '%s' is not a Python literal", key, val);
		*err = msg;
		return -1;
	}
	int rc = -1;
	const char **member = syntax_member(&h->syn, key);
	if (member) {
		bool prefix = strstr(key, "prefix") != NULL;
		if (json_is_string(v)) {
			*member = keep(h, xstrdup(json_string_value(v)));
			rc = 0;
		} else if (prefix && json_is_null(v)) {
			*member = NULL;
			rc = 0;
		}
	} else if (!strcmp(key, "trim_blocks")) {
		o->trim_blocks = val_truthy(v);
		rc = 0;
	} else if (!strcmp(key, "lstrip_blocks")) {
		o->lstrip_blocks = val_truthy(v);
		rc = 0;
	} else if (!strcmp(key, "keep_trailing_newline")) {
		o->keep_trailing_newline = val_truthy(v);
		rc = 0;
	} else if (!strcmp(key, "newline_sequence")) {
		if (json_is_string(v)) {
			o->newline = keep(h, xstrdup(json_string_value(v)));
			rc = 0;
		}
	} else if (!strcmp(key, "autoescape") && !val_truthy(v)) {
		rc = 0; /* Jinja's default, as Ansible sets it */
	} else {
		snprintf(msg, sizeof(msg), "the jinja2 override '%s' is not supported by imc", key);
		*err = msg;
		json_decref(v);
		return -1;
	}
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "the jinja2 override '%s' must be a string, not %s", key, val);
		*err = msg;
	}
	json_decref(v);
	return rc;
}

const char *header_apply(struct tmpl_header *h, const char *text, struct lexopt *o, const char **err)
{
	*err = NULL;
	if (strncmp(text, HEADER, strlen(HEADER)) != 0)
		return text;
	if (o->syn)
		h->syn = *o->syn;
	/* as Ansible slices it: the line without its '\n'; with no line
	 * break, the text but its last character, and the whole text is
	 * then rendered */
	const char *eol = strchr(text, '\n');
	size_t n = strlen(text);
	const char *line = text + strlen(HEADER);
	size_t ln = eol ? (size_t)(eol - line) : (n > strlen(HEADER) ? n - 1 - strlen(HEADER) : 0);
	char *copy = xstrndup(line, ln);
	int rc = 0;
	for (char *p = copy, *next; p && rc == 0; p = next) {
		next = strchr(p, ',');
		if (next)
			*next++ = 0;
		rc = apply_pair(h, o, p, err);
	}
	free(copy);
	if (rc < 0)
		return NULL;
	o->syn = &h->syn;
	return eol ? eol + 1 : text;
}

int syntax_check(const struct lexopt *o, const char **err)
{
	*err = NULL;
	if (o->newline && strcmp(o->newline, "\n") && strcmp(o->newline, "\r\n") && strcmp(o->newline, "\r")) {
		*err = "newline_sequence set to unknown line ending string.";
		return -1;
	}
	const struct tmpl_syntax *y = o->syn;
	if (!y)
		return 0;
	const char *bs = y->block_start ? y->block_start : "{%", *vs = y->variable_start ? y->variable_start : "{{",
		   *cs = y->comment_start ? y->comment_start : "{#";
	const char *all[] = { bs, y->block_end, vs, y->variable_end, cs, y->comment_end };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] && !*all[i]) {
			/* Jinja would build a lexer matching everywhere */
			*err = "an empty Jinja delimiter is not supported by imc";
			return -1;
		}
	/* Jinja asserts bs != vs != cs (a chained comparison: bs and cs
	 * are not compared with each other) */
	if (!strcmp(bs, vs) || !strcmp(vs, cs)) {
		*err = "block, variable and comment start strings must be different.";
		return -1;
	}
	return 0;
}
