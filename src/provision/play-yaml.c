/* play-yaml.c: YAML text -> jansson values, with the scalar typing of YAML
 * 1.1 as PyYAML (and so Ansible) applies it: yes/no/on/off are booleans,
 * 0644 is octal, quoted scalars are strings. The line where every node
 * starts is kept in a side table so that errors about tasks can name their
 * line (shifted by line_offset for recipes embedded in RADL files). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "provision/play.h"
#include "util/strbuf.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct yaml_line { const json_t *node; int line, col; };

struct yaml_doc {
	struct yaml_line *v;
	size_t n, alloc;
};

struct anchor { char *name; json_t *val; };

struct yload {
	yaml_parser_t p;
	const char *file;
	int off;
	struct yaml_doc *doc;
	struct anchor *anchors;
	size_t nanchors;
	struct diag *d;
	int depth;
};

static void note_line(struct yload *y, const json_t *n, const yaml_mark_t *m)
{
	struct yaml_doc *doc = y->doc;
	if (!doc)
		return;
	if (doc->n == doc->alloc) {
		doc->alloc = doc->alloc ? doc->alloc * 2 : 64;
		doc->v = xreallocarray(doc->v, doc->alloc, sizeof(*doc->v));
	}
	doc->v[doc->n].node = n;
	doc->v[doc->n].line = (int)m->line + 1 + y->off;
	doc->v[doc->n].col = (int)m->column + 1;
	doc->n++;
}

/* A scalar tagged !unsafe: Ansible never templates it. The text is kept
 * as a template that renders to itself ({% raw %}, each "{%" in it put
 * back by an expression so that no "{% endraw %}" can end the block, a
 * leading line break by one so that trim_blocks keeps it), so that every
 * place that templates a value gives it back as it was written; text
 * without template syntax stays as it is. NEEDSWORK: the value a task
 * makes from it (set_fact) is templated again where it is used, where
 * Ansible's stays unsafe. */
static json_t *unsafe_text(const char *s, size_t n)
{
	if (!memmem(s, n, "{{", 2) && !memmem(s, n, "{%", 2) && !memmem(s, n, "{#", 2))
		return json_stringn(s, n);
	struct strbuf sb = STRBUF_INIT;
	if (n && s[0] == '\n')
		strbuf_addstr(&sb, "{{ '\n' }}"); /* a line break in the literal itself */
	strbuf_addstr(&sb, "{% raw %}");
	for (size_t i = n && s[0] == '\n' ? 1 : 0; i < n; i++) {
		if (s[i] == '{' && i + 1 < n && s[i + 1] == '%')
			strbuf_addstr(&sb, "{% endraw %}{{ '{' }}{% raw %}");
		else
			strbuf_addch(&sb, s[i]);
	}
	strbuf_addstr(&sb, "{% endraw %}");
	json_t *v = json_stringn(sb.buf, sb.len);
	strbuf_release(&sb);
	return v;
}

static const struct yaml_line *where(const struct yaml_doc *doc, const json_t *node)
{
	for (size_t i = 0; doc && node && i < doc->n; i++)
		if (doc->v[i].node == node)
			return &doc->v[i];
	return NULL;
}

int yaml_line_of(const struct yaml_doc *doc, const json_t *node)
{
	const struct yaml_line *w = where(doc, node);
	return w ? w->line : 0;
}

int yaml_col_of(const struct yaml_doc *doc, const json_t *node)
{
	const struct yaml_line *w = where(doc, node);
	return w ? w->col : 0;
}

void yaml_doc_free(struct yaml_doc *doc)
{
	if (!doc)
		return;
	free(doc->v);
	free(doc);
}

static bool is_one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* The YAML 1.1 implicit resolvers PyYAML uses for plain scalars. */
static json_t *plain_scalar(const char *s)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "yes", "Yes", "YES", "true", "True", "TRUE",
					     "on", "On", "ON", NULL };
	static const char *const falses[] = { "no", "No", "NO", "false", "False", "FALSE",
					      "off", "Off", "OFF", NULL };
	if (is_one_of(s, nulls))
		return json_null();
	if (is_one_of(s, trues))
		return json_true();
	if (is_one_of(s, falses))
		return json_false();
	const char *p = s;
	int sign = 1;
	if (*p == '+' || *p == '-') {
		if (*p == '-')
			sign = -1;
		p++;
	}
	if (!*p)
		return json_string(s);
	/* integers */
	char digits[128];
	size_t nd = 0;
	int base = 10;
	const char *q = p;
	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
		base = 16;
		q += 2;
	} else if (q[0] == '0' && (q[1] == 'b' || q[1] == 'B')) {
		base = 2;
		q += 2;
	} else if (q[0] == '0' && q[1]) {
		base = 8;
		q += 1;
	}
	bool okint = *q != 0;
	for (const char *r = q; *r && okint; r++) {
		if (*r == '_')
			continue;
		int c = (unsigned char)*r;
		bool good = base == 16 ? strchr("0123456789abcdefABCDEF", c) != NULL
			    : base == 8 ? (c >= '0' && c <= '7')
			    : base == 2 ? (c == '0' || c == '1') : (c >= '0' && c <= '9');
		if (!good || nd + 1 >= sizeof(digits))
			okint = false;
		else
			digits[nd++] = (char)c;
	}
	if (okint && nd) {
		digits[nd] = 0;
		errno = 0;
		long long v = strtoll(digits, NULL, base);
		if (!errno)
			return json_integer(sign * v);
	}
	/* floats: PyYAML requires a '.' (1e3 stays a string) */
	if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF"))
		return json_real(sign * 1e308 * 10);
	if (strchr(p, '.')) {
		bool okf = true, seen_digit = false;
		const char *r = p;
		while (*r && (strchr("0123456789_", *r))) {
			seen_digit |= *r != '_';
			r++;
		}
		if (*r == '.') {
			r++;
			while (*r && strchr("0123456789_", *r)) {
				seen_digit = true;
				r++;
			}
		} else
			okf = false;
		if (okf && (*r == 'e' || *r == 'E')) {
			r++;
			if (*r == '+' || *r == '-')
				r++;
			if (!(*r >= '0' && *r <= '9'))
				okf = false;
			while (*r >= '0' && *r <= '9')
				r++;
		}
		if (okf && !*r && seen_digit) {
			char buf[128];
			size_t k = 0;
			for (const char *t = s; *t && k + 1 < sizeof(buf); t++)
				if (*t != '_')
					buf[k++] = *t;
			buf[k] = 0;
			return json_real(strtod(buf, NULL));
		}
	}
	return json_string(s);
}

/* A !vault value: its plain text, decrypted with the keyring in use.
 * Ansible decrypts such a value only when it is used, so one that cannot
 * be decrypted (no secret, the wrong one) is not an error here: it
 * becomes a template that fails with Ansible's message when, and only
 * when, it is rendered. */
static json_t *vault_scalar(const char *s, size_t n)
{
	char *plain = NULL, *err = NULL;
	size_t np = 0;
	json_t *v = NULL;
	if (vault_decrypt(s, n, NULL, &plain, &np, &err) == 0) {
		v = json_stringn(plain, np);
		if (v)
			vault_mark_text(plain, np); /* for the vault_encrypted test */
		vault_free_plain(plain, np);
		if (v)
			return v;
		err = xstrdup("the decrypted vault value is not UTF-8 text");
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "{{ " PLAY_VAULT_UNDECRYPTABLE " | mandatory('");
	for (const char *p = err; *p; p++) {
		if (*p == '\\' || *p == '\'')
			strbuf_addch(&sb, '\\');
		strbuf_addch(&sb, *p);
	}
	strbuf_addstr(&sb, "') }}");
	free(err);
	v = json_string(sb.buf);
	strbuf_release(&sb);
	return v;
}

static json_t *load_node(struct yload *y, yaml_event_t *ev);

static void remember_anchor(struct yload *y, const yaml_char_t *anchor, json_t *v)
{
	if (!anchor)
		return;
	y->anchors = xreallocarray(y->anchors, y->nanchors + 1, sizeof(*y->anchors));
	y->anchors[y->nanchors].name = xstrdup((const char *)anchor);
	y->anchors[y->nanchors].val = json_incref(v);
	y->nanchors++;
}

static void yerr(struct yload *y, const yaml_mark_t *m, const char *msg)
{
	struct src_loc loc = { y->file, (int)m->line + 1 + y->off, (int)m->column + 1 };
	diag_error(y->d, IMC_EXIT_DATAERR, &loc, "invalid YAML: %s", msg);
}

static int next_event(struct yload *y, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&y->p, ev)) {
		struct src_loc loc = { y->file, (int)y->p.problem_mark.line + 1 + y->off,
				       (int)y->p.problem_mark.column + 1 };
		diag_error(y->d, IMC_EXIT_DATAERR, &loc, "invalid YAML: %s%s%s",
			   y->p.problem ? y->p.problem : "syntax error",
			   y->p.context ? " " : "", y->p.context ? y->p.context : "");
		return -1;
	}
	return 0;
}

static json_t *load_node(struct yload *y, yaml_event_t *ev)
{
	json_t *v = NULL;
	if (++y->depth > 200) {
		yerr(y, &ev->start_mark, "nesting too deep");
		y->depth--;
		return NULL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		const char *s = (const char *)ev->data.scalar.value;
		const char *tag = (const char *)ev->data.scalar.tag;
		if (tag && !strcmp(tag, "!vault")) {
			v = vault_scalar(s, ev->data.scalar.length);
			note_line(y, v, &ev->start_mark);
			remember_anchor(y, ev->data.scalar.anchor, v);
			break;
		}
		if (tag && !strcmp(tag, "!unsafe"))
			v = unsafe_text(s, ev->data.scalar.length);
		else if (tag && !strcmp(tag, "tag:yaml.org,2002:str"))
			v = json_stringn(s, ev->data.scalar.length);
		else if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !tag)
			v = plain_scalar(s);
		else if (tag && !strcmp(tag, "tag:yaml.org,2002:int"))
			v = plain_scalar(s);
		else if (tag && !strcmp(tag, "tag:yaml.org,2002:null"))
			v = json_null(); /* PyYAML's construct_yaml_null: None, whatever the text */
		else
			v = json_stringn(s, ev->data.scalar.length);
		if (!v)
			v = json_string("");
		note_line(y, v, &ev->start_mark);
		remember_anchor(y, ev->data.scalar.anchor, v);
		break;
	}
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		for (size_t i = y->nanchors; i-- > 0;)
			if (!strcmp(y->anchors[i].name, name)) {
				v = json_incref(y->anchors[i].val);
				break;
			}
		if (!v)
			yerr(y, &ev->start_mark, "unknown alias");
		break;
	}
	case YAML_SEQUENCE_START_EVENT: {
		v = json_array();
		note_line(y, v, &ev->start_mark);
		remember_anchor(y, ev->data.sequence_start.anchor, v);
		for (;;) {
			yaml_event_t e;
			if (next_event(y, &e) < 0)
				goto fail;
			if (e.type == YAML_SEQUENCE_END_EVENT) {
				yaml_event_delete(&e);
				break;
			}
			json_t *c = load_node(y, &e);
			yaml_event_delete(&e);
			if (!c)
				goto fail;
			json_array_append_new(v, c);
		}
		break;
	}
	case YAML_MAPPING_START_EVENT: {
		v = json_object();
		note_line(y, v, &ev->start_mark);
		remember_anchor(y, ev->data.mapping_start.anchor, v);
		for (;;) {
			yaml_event_t e;
			if (next_event(y, &e) < 0)
				goto fail;
			if (e.type == YAML_MAPPING_END_EVENT) {
				yaml_event_delete(&e);
				break;
			}
			yaml_mark_t km = e.start_mark;
			json_t *k = load_node(y, &e);
			yaml_event_delete(&e);
			if (!k)
				goto fail;
			if (next_event(y, &e) < 0) {
				json_decref(k);
				goto fail;
			}
			json_t *val = load_node(y, &e);
			yaml_event_delete(&e);
			if (!val) {
				json_decref(k);
				goto fail;
			}
			char kb[64];
			const char *key;
			if (json_is_string(k))
				key = json_string_value(k);
			else if (json_is_integer(k)) {
				snprintf(kb, sizeof(kb), "%lld", (long long)json_integer_value(k));
				key = kb;
			} else if (json_is_boolean(k))
				key = json_is_true(k) ? "True" : "False";
			else if (json_is_null(k))
				key = "None";
			else {
				yerr(y, &km, "mapping keys must be scalars");
				json_decref(k);
				json_decref(val);
				goto fail;
			}
			if (!strcmp(key, "<<") && json_is_object(val)) {
				const char *mk;
				json_t *mv;
				json_object_foreach(val, mk, mv)
					if (!json_object_get(v, mk))
						json_object_set(v, mk, mv);
			} else
				json_object_set(v, key, val);
			json_decref(k);
			json_decref(val);
		}
		break;
	}
	default:
		yerr(y, &ev->start_mark, "unexpected event");
		break;
	}
	y->depth--;
	return v;
fail:
	y->depth--;
	json_decref(v);
	return NULL;
}

json_t *yaml_load(const char *text, size_t len, const char *file, int line_offset,
		  struct yaml_doc **lines, struct diag *d)
{
	struct yload y = { .file = file, .off = line_offset, .d = d };
	json_t *root = NULL;
	bool done = false;
	char *plain = NULL;
	size_t nplain = 0;
	/* a vault-encrypted file is read as its plain text, as Ansible's
	 * loader does for every YAML file it reads */
	if (vault_is_encrypted(text, len)) {
		char *err = NULL;
		if (vault_decrypt(text, len, file, &plain, &nplain, &err) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "%s", err);
			free(err);
			return NULL;
		}
		text = plain;
		len = nplain;
	}
	if (lines)
		y.doc = xcalloc(1, sizeof(*y.doc));
	yaml_parser_initialize(&y.p);
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	while (!done) {
		yaml_event_t ev;
		if (next_event(&y, &ev) < 0)
			goto fail;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		default:
			if (root) {
				yerr(&y, &ev.start_mark, "more than one document");
				yaml_event_delete(&ev);
				goto fail;
			}
			root = load_node(&y, &ev);
			if (!root) {
				yaml_event_delete(&ev);
				goto fail;
			}
		}
		yaml_event_delete(&ev);
	}
	if (!root)
		root = json_null();
	goto out;
fail:
	json_decref(root);
	root = NULL;
	yaml_doc_free(y.doc);
	y.doc = NULL;
out:
	yaml_parser_delete(&y.p);
	for (size_t i = 0; i < y.nanchors; i++) {
		free(y.anchors[i].name);
		json_decref(y.anchors[i].val);
	}
	free(y.anchors);
	vault_free_plain(plain, nplain);
	if (lines)
		*lines = y.doc;
	return root;
}
