/* filters-jmespath.c: the json_query filter (community.general), a JMESPath
 * evaluator, because IM's test recipes and golden scenario 10 select from
 * registered results with it ("[?value.name==`bob`].key"). It covers the
 * JMESPath grammar (fields, sub-expressions, index/slice, list and value
 * projections, flatten, filters, multiselect list/hash, pipes, ||, &&, !,
 * comparisons, literals, @) and the common functions; a Pratt parser with
 * the specification's binding powers builds a small AST. */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum jt {
	J_EOF, J_ID, J_QID, J_NUM, J_LIT, J_RAW, J_DOT, J_STAR, J_LBRACKET, J_RBRACKET, J_FLATTEN, J_FILTER,
	J_LBRACE, J_RBRACE, J_LPAREN, J_RPAREN, J_COMMA, J_COLON, J_PIPE, J_OR, J_AND, J_NOT, J_AT,
	J_EQ, J_NE, J_LT, J_LE, J_GT, J_GE, J_AMP,
};

struct jtok {
	enum jt t;
	char *s;        /* identifiers, raw strings */
	json_t *lit;    /* literals */
	long long num;
	size_t pos;
};

enum jk {
	JN_CURRENT, JN_FIELD, JN_SUB, JN_INDEX, JN_SLICE, JN_PROJECT, JN_VPROJECT, JN_FLATTEN, JN_FILTER,
	JN_PIPE, JN_OR, JN_AND, JN_NOT, JN_CMP, JN_LIT, JN_MLIST, JN_MHASH, JN_FUNC, JN_EXPREF,
};

struct jnode {
	enum jk k;
	int op;
	char *name;
	json_t *lit;
	long long idx[3];
	bool has[3];
	struct jnode *a, *b, *c;
	struct jnode **kids;
	char **keys;
	size_t nkids;
};

struct jp {
	struct jtok *t;
	size_t n, i;
	const char *src;
	char *err;
	int depth;
};

static void jfree(struct jnode *n)
{
	if (!n)
		return;
	free(n->name);
	json_decref(n->lit);
	jfree(n->a);
	jfree(n->b);
	jfree(n->c);
	for (size_t i = 0; i < n->nkids; i++) {
		jfree(n->kids[i]);
		if (n->keys)
			free(n->keys[i]);
	}
	free(n->kids);
	free(n->keys);
	free(n);
}

static struct jnode *jmk(enum jk k)
{
	struct jnode *n = xcalloc(1, sizeof(*n));
	n->k = k;
	return n;
}

static void jerr(struct jp *p, const char *msg)
{
	if (!p->err)
		p->err = xasprintf("%s at column %zu", msg, p->i < p->n ? p->t[p->i].pos + 1 : strlen(p->src) + 1);
}

/* ---- lexer ------------------------------------------------------------------ */

static int jlex(struct jp *p)
{
	const char *s = p->src;
	size_t i = 0, n = strlen(s), alloc = 0;
	for (;;) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (p->n == alloc) {
			alloc = alloc ? alloc * 2 : 16;
			p->t = xreallocarray(p->t, alloc, sizeof(*p->t));
		}
		struct jtok *k = &p->t[p->n];
		memset(k, 0, sizeof(*k));
		k->pos = i;
		if (i >= n) {
			k->t = J_EOF;
			p->n++;
			return 0;
		}
		char c = s[i], c2 = i + 1 < n ? s[i + 1] : 0;
		if (isalpha((unsigned char)c) || c == '_') {
			size_t j = i;
			while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
				j++;
			k->t = J_ID;
			k->s = xstrndup(s + i, j - i);
			i = j;
		} else if (isdigit((unsigned char)c) || (c == '-' && isdigit((unsigned char)c2))) {
			char *e;
			k->t = J_NUM;
			k->num = strtoll(s + i, &e, 10);
			i = (size_t)(e - s);
		} else if (c == '"' || c == '\'' || c == '`') {
			size_t j = i + 1;
			struct strbuf sb = STRBUF_INIT;
			while (j < n && s[j] != c) {
				if (s[j] == '\\' && j + 1 < n && (s[j + 1] == c || (c != '`' && s[j + 1] == '\\'))) {
					if (c == '"')
						strbuf_addch(&sb, '\\');
					j++;
				}
				strbuf_addch(&sb, s[j]);
				j++;
			}
			if (j >= n) {
				strbuf_release(&sb);
				p->i = p->n;
				p->err = xasprintf("unterminated string at column %zu", i + 1);
				return -1;
			}
			if (c == '\'') {
				k->t = J_RAW;
				k->s = strbuf_detach(&sb);
			} else {
				/* "quoted id" and `literal` are JSON text */
				char *txt = c == '"' ? xasprintf("\"%s\"", strbuf_str(&sb)) : xstrdup(strbuf_str(&sb));
				strbuf_release(&sb);
				json_t *v = json_loads(txt, JSON_DECODE_ANY, NULL);
				if (!v && c == '`') {
					/* legacy: `foo` is the string foo */
					v = json_string(txt);
				}
				free(txt);
				if (!v) {
					p->err = xasprintf("bad literal at column %zu", i + 1);
					return -1;
				}
				if (c == '"') {
					k->t = J_QID;
					k->s = xstrdup(json_string_value(v) ? json_string_value(v) : "");
					json_decref(v);
				} else {
					k->t = J_LIT;
					k->lit = v;
				}
			}
			i = j + 1;
		} else {
			size_t w = 1;
			switch (c) {
			case '.': k->t = J_DOT; break;
			case '*': k->t = J_STAR; break;
			case '[':
				if (c2 == ']') { k->t = J_FLATTEN; w = 2; }
				else if (c2 == '?') { k->t = J_FILTER; w = 2; }
				else k->t = J_LBRACKET;
				break;
			case ']': k->t = J_RBRACKET; break;
			case '{': k->t = J_LBRACE; break;
			case '}': k->t = J_RBRACE; break;
			case '(': k->t = J_LPAREN; break;
			case ')': k->t = J_RPAREN; break;
			case ',': k->t = J_COMMA; break;
			case ':': k->t = J_COLON; break;
			case '@': k->t = J_AT; break;
			case '|': if (c2 == '|') { k->t = J_OR; w = 2; } else k->t = J_PIPE; break;
			case '&': if (c2 == '&') { k->t = J_AND; w = 2; } else k->t = J_AMP; break;
			case '!': if (c2 == '=') { k->t = J_NE; w = 2; } else k->t = J_NOT; break;
			case '=':
				if (c2 != '=') {
					p->err = xasprintf("unexpected '=' at column %zu", i + 1);
					return -1;
				}
				k->t = J_EQ; w = 2; break;
			case '<': if (c2 == '=') { k->t = J_LE; w = 2; } else k->t = J_LT; break;
			case '>': if (c2 == '=') { k->t = J_GE; w = 2; } else k->t = J_GT; break;
			default:
				p->err = xasprintf("unexpected character '%c' at column %zu", c, i + 1);
				return -1;
			}
			i += w;
		}
		p->n++;
	}
}

/* ---- parser ------------------------------------------------------------------ */

static int lbp(enum jt t)
{
	switch (t) {
	case J_PIPE: return 1;
	case J_OR: return 2;
	case J_AND: return 3;
	case J_EQ: case J_NE: case J_LT: case J_LE: case J_GT: case J_GE: return 5;
	case J_FLATTEN: return 9;
	case J_STAR: return 20;
	case J_FILTER: return 21;
	case J_DOT: return 40;
	case J_NOT: return 45;
	case J_LBRACE: return 50;
	case J_LBRACKET: return 55;
	case J_LPAREN: return 60;
	default: return 0;
	}
}

static enum jt cur_t(struct jp *p) { return p->t[p->i].t; }
static void jadv(struct jp *p) { if (p->i + 1 < p->n) p->i++; }

static struct jnode *jexpr(struct jp *p, int rbp);

static bool jexpect(struct jp *p, enum jt t, const char *what)
{
	if (cur_t(p) != t) {
		char msg[64];
		snprintf(msg, sizeof(msg), "expected %s", what);
		jerr(p, msg);
		return false;
	}
	jadv(p);
	return true;
}

static struct jnode *bin2(enum jk k, struct jnode *a, struct jnode *b)
{
	struct jnode *n = jmk(k);
	n->a = a;
	n->b = b;
	return n;
}

static struct jnode *projection_rhs(struct jp *p, int bp)
{
	enum jt t = cur_t(p);
	if (lbp(t) < 10)
		return jmk(JN_CURRENT);
	if (t == J_LBRACKET || t == J_FILTER)
		return jexpr(p, bp);
	if (t == J_DOT) {
		jadv(p);
		return jexpr(p, bp);
	}
	jerr(p, "syntax error in projection");
	return NULL;
}

/* '[' already consumed: index, slice or star projection; left may be NULL */
static struct jnode *bracket(struct jp *p, struct jnode *left)
{
	if (cur_t(p) == J_STAR && p->t[p->i + 1 < p->n ? p->i + 1 : p->i].t == J_RBRACKET) {
		jadv(p);
		jadv(p);
		struct jnode *n = jmk(JN_PROJECT);
		n->a = left ? left : jmk(JN_CURRENT);
		n->b = projection_rhs(p, lbp(J_STAR));
		if (!n->b) {
			jfree(n);
			return NULL;
		}
		return n;
	}
	long long v[3] = { 0, 0, 0 };
	bool has[3] = { false, false, false };
	int part = 0;
	while (cur_t(p) != J_RBRACKET) {
		if (cur_t(p) == J_COLON) {
			if (++part > 2) {
				jerr(p, "too many colons in slice");
				jfree(left);
				return NULL;
			}
			jadv(p);
		} else if (cur_t(p) == J_NUM) {
			v[part] = p->t[p->i].num;
			has[part] = true;
			jadv(p);
		} else {
			jerr(p, "expected a number in brackets");
			jfree(left);
			return NULL;
		}
	}
	jadv(p);
	struct jnode *n;
	if (part == 0) {
		if (!has[0]) {
			jerr(p, "empty brackets");
			jfree(left);
			return NULL;
		}
		n = jmk(JN_INDEX);
		n->idx[0] = v[0];
		n->a = left ? left : jmk(JN_CURRENT);
		return n;
	}
	n = jmk(JN_SLICE);
	memcpy(n->idx, v, sizeof(v));
	memcpy(n->has, has, sizeof(has));
	n->a = left ? left : jmk(JN_CURRENT);
	/* a slice is a projection */
	struct jnode *pr = jmk(JN_PROJECT);
	pr->a = n;
	pr->b = projection_rhs(p, lbp(J_STAR));
	if (!pr->b) {
		jfree(pr);
		return NULL;
	}
	return pr;
}

static struct jnode *multilist(struct jp *p)
{
	struct jnode *n = jmk(JN_MLIST);
	for (;;) {
		struct jnode *e = jexpr(p, 0);
		if (!e) {
			jfree(n);
			return NULL;
		}
		n->kids = xreallocarray(n->kids, n->nkids + 1, sizeof(*n->kids));
		n->kids[n->nkids++] = e;
		if (cur_t(p) == J_COMMA) {
			jadv(p);
			continue;
		}
		if (!jexpect(p, J_RBRACKET, "']'")) {
			jfree(n);
			return NULL;
		}
		return n;
	}
}

static struct jnode *multihash(struct jp *p)
{
	struct jnode *n = jmk(JN_MHASH);
	for (;;) {
		enum jt t = cur_t(p);
		if (t != J_ID && t != J_QID) {
			jerr(p, "expected a key in multiselect hash");
			jfree(n);
			return NULL;
		}
		char *key = xstrdup(p->t[p->i].s);
		jadv(p);
		if (!jexpect(p, J_COLON, "':'")) {
			free(key);
			jfree(n);
			return NULL;
		}
		struct jnode *e = jexpr(p, 0);
		if (!e) {
			free(key);
			jfree(n);
			return NULL;
		}
		n->kids = xreallocarray(n->kids, n->nkids + 1, sizeof(*n->kids));
		n->keys = xreallocarray(n->keys, n->nkids + 1, sizeof(*n->keys));
		n->keys[n->nkids] = key;
		n->kids[n->nkids++] = e;
		if (cur_t(p) == J_COMMA) {
			jadv(p);
			continue;
		}
		if (!jexpect(p, J_RBRACE, "'}'")) {
			jfree(n);
			return NULL;
		}
		return n;
	}
}

static struct jnode *nud(struct jp *p)
{
	struct jtok *k = &p->t[p->i];
	jadv(p);
	struct jnode *n;
	switch (k->t) {
	case J_ID:
		if (cur_t(p) == J_LPAREN) {
			jadv(p);
			n = jmk(JN_FUNC);
			n->name = xstrdup(k->s);
			while (cur_t(p) != J_RPAREN) {
				struct jnode *e;
				if (cur_t(p) == J_AMP) {
					jadv(p);
					e = jmk(JN_EXPREF);
					e->a = jexpr(p, 0);
					if (!e->a) {
						jfree(e);
						e = NULL;
					}
				} else {
					e = jexpr(p, 0);
				}
				if (!e) {
					jfree(n);
					return NULL;
				}
				n->kids = xreallocarray(n->kids, n->nkids + 1, sizeof(*n->kids));
				n->kids[n->nkids++] = e;
				if (cur_t(p) == J_COMMA)
					jadv(p);
				else if (cur_t(p) != J_RPAREN) {
					jerr(p, "expected ',' or ')'");
					jfree(n);
					return NULL;
				}
			}
			jadv(p);
			return n;
		}
		/* fall through */
	case J_QID:
		n = jmk(JN_FIELD);
		n->name = xstrdup(k->s);
		return n;
	case J_LIT:
		n = jmk(JN_LIT);
		n->lit = json_incref(k->lit);
		return n;
	case J_RAW:
		n = jmk(JN_LIT);
		n->lit = json_string(k->s);
		if (!n->lit)
			n->lit = json_string("");
		return n;
	case J_AT:
		return jmk(JN_CURRENT);
	case J_STAR: {
		n = jmk(JN_VPROJECT);
		n->a = jmk(JN_CURRENT);
		n->b = projection_rhs(p, lbp(J_STAR));
		if (!n->b) {
			jfree(n);
			return NULL;
		}
		return n;
	}
	case J_NOT:
		n = jmk(JN_NOT);
		n->a = jexpr(p, lbp(J_NOT));
		if (!n->a) {
			jfree(n);
			return NULL;
		}
		return n;
	case J_LPAREN:
		n = jexpr(p, 0);
		if (n && !jexpect(p, J_RPAREN, "')'")) {
			jfree(n);
			return NULL;
		}
		return n;
	case J_FLATTEN:
		n = jmk(JN_FLATTEN);
		n->a = jmk(JN_CURRENT);
		n->b = projection_rhs(p, lbp(J_FLATTEN));
		if (!n->b) {
			jfree(n);
			return NULL;
		}
		return n;
	case J_FILTER: {
		n = jmk(JN_FILTER);
		n->a = jmk(JN_CURRENT);
		n->c = jexpr(p, 0);
		if (!n->c || !jexpect(p, J_RBRACKET, "']'")) {
			jfree(n);
			return NULL;
		}
		n->b = projection_rhs(p, lbp(J_FILTER));
		if (!n->b) {
			jfree(n);
			return NULL;
		}
		return n;
	}
	case J_LBRACKET:
		if (cur_t(p) == J_NUM || cur_t(p) == J_COLON || (cur_t(p) == J_STAR && p->t[p->i + 1].t == J_RBRACKET))
			return bracket(p, NULL);
		return multilist(p);
	case J_LBRACE:
		return multihash(p);
	default:
		p->i--;
		jerr(p, "unexpected token");
		jadv(p);
		return NULL;
	}
}

static struct jnode *led(struct jp *p, struct jnode *left)
{
	struct jtok *k = &p->t[p->i];
	enum jt t = k->t;
	jadv(p);
	struct jnode *n, *r;
	switch (t) {
	case J_DOT:
		if (cur_t(p) == J_STAR) {
			jadv(p);
			n = jmk(JN_VPROJECT);
			n->a = left;
			n->b = projection_rhs(p, lbp(J_STAR));
			if (!n->b) {
				jfree(n);
				return NULL;
			}
			return n;
		}
		if (cur_t(p) == J_LBRACKET) {
			jadv(p);
			r = multilist(p);
		} else if (cur_t(p) == J_LBRACE) {
			jadv(p);
			r = multihash(p);
		} else {
			r = jexpr(p, lbp(J_DOT));
		}
		if (!r) {
			jfree(left);
			return NULL;
		}
		return bin2(JN_SUB, left, r);
	case J_PIPE:
	case J_OR:
	case J_AND:
		r = jexpr(p, lbp(t));
		if (!r) {
			jfree(left);
			return NULL;
		}
		return bin2(t == J_PIPE ? JN_PIPE : t == J_OR ? JN_OR : JN_AND, left, r);
	case J_EQ: case J_NE: case J_LT: case J_LE: case J_GT: case J_GE:
		r = jexpr(p, lbp(t));
		if (!r) {
			jfree(left);
			return NULL;
		}
		n = bin2(JN_CMP, left, r);
		n->op = (int)t;
		return n;
	case J_FLATTEN:
		n = jmk(JN_FLATTEN);
		n->a = left;
		n->b = projection_rhs(p, lbp(J_FLATTEN));
		if (!n->b) {
			jfree(n);
			return NULL;
		}
		return n;
	case J_FILTER:
		n = jmk(JN_FILTER);
		n->a = left;
		n->c = jexpr(p, 0);
		if (!n->c || !jexpect(p, J_RBRACKET, "']'")) {
			jfree(n);
			return NULL;
		}
		n->b = projection_rhs(p, lbp(J_FILTER));
		if (!n->b) {
			jfree(n);
			return NULL;
		}
		return n;
	case J_LBRACKET:
		return bracket(p, left);
	default:
		jfree(left);
		p->i--;
		jerr(p, "unexpected token");
		return NULL;
	}
}

static struct jnode *jexpr(struct jp *p, int rbp)
{
	if (++p->depth > 100) {
		jerr(p, "expression nested too deeply");
		p->depth--;
		return NULL;
	}
	struct jnode *left = nud(p);
	while (left && rbp < lbp(cur_t(p)))
		left = led(p, left);
	p->depth--;
	return left;
}

/* ---- evaluation ------------------------------------------------------------ */

struct jev {
	struct ev *ev;
	size_t pos;
	bool failed;
	int depth;
};

static json_t *jeval(struct jev *e, const struct jnode *n, json_t *cur);

static bool jtruthy(const json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return false;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_object(v))
		return json_object_size(v) > 0;
	return true;
}

static json_t *jfail(struct jev *e, const char *msg, const char *fn)
{
	if (!e->failed)
		ev_error(e->ev, TMPL_ERR_TYPE, e->pos, "json_query: %s%s%s", msg, fn ? ": " : "", fn ? fn : "");
	e->failed = true;
	return NULL;
}

static json_t *project(struct jev *e, json_t *list, const struct jnode *rhs)
{
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *x = jeval(e, rhs, json_array_get(list, i));
		if (e->failed) {
			json_decref(r);
			return NULL;
		}
		if (x && !json_is_null(x))
			json_array_append_new(r, x);
		else
			json_decref(x);
	}
	return r;
}

static int jcmp_sort(struct jev *e, json_t *a, json_t *b)
{
	if (json_is_number(a) && json_is_number(b)) {
		double x = json_number_value(a), y = json_number_value(b);
		return x < y ? -1 : x > y;
	}
	if (json_is_string(a) && json_is_string(b))
		return strcmp(json_string_value(a), json_string_value(b));
	jfail(e, "sort requires all numbers or all strings", NULL);
	return 0;
}

static json_t *sort_by(struct jev *e, json_t *list, const struct jnode *key)
{
	size_t n = json_array_size(list);
	json_t **items = xcalloc(n + 1, sizeof(json_t *)), **keys = xcalloc(n + 1, sizeof(json_t *));
	for (size_t i = 0; i < n; i++) {
		items[i] = json_array_get(list, i);
		keys[i] = key ? jeval(e, key, items[i]) : json_incref(items[i]);
		if (!keys[i])
			keys[i] = json_null();
	}
	/* insertion sort: stable, lists are small */
	for (size_t i = 1; i < n && !e->failed; i++) {
		for (size_t j = i; j > 0 && !e->failed && jcmp_sort(e, keys[j - 1], keys[j]) > 0; j--) {
			json_t *t = items[j]; items[j] = items[j - 1]; items[j - 1] = t;
			t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t;
		}
	}
	json_t *r = e->failed ? NULL : json_array();
	for (size_t i = 0; i < n; i++) {
		if (r)
			json_array_append(r, items[i]);
		json_decref(keys[i]);
	}
	free(items);
	free(keys);
	return r;
}

static json_t *call_fn(struct jev *e, const struct jnode *n, json_t *cur)
{
	const char *f = n->name;
	size_t na = n->nkids;
	json_t *a[3] = { NULL, NULL, NULL };
	const struct jnode *exref = NULL;
	for (size_t i = 0; i < na && i < 3; i++) {
		if (n->kids[i]->k == JN_EXPREF) {
			exref = n->kids[i]->a;
			continue;
		}
		a[i] = jeval(e, n->kids[i], cur);
		if (e->failed)
			goto out;
		if (!a[i])
			a[i] = json_null();
	}
	json_t *r = NULL;
	if (!strcmp(f, "length") && na == 1) {
		if (json_is_string(a[0]))
			r = json_integer((json_int_t)utf8_len(json_string_value(a[0]), json_string_length(a[0])));
		else if (json_is_array(a[0]))
			r = json_integer((json_int_t)json_array_size(a[0]));
		else if (json_is_object(a[0]))
			r = json_integer((json_int_t)json_object_size(a[0]));
		else
			jfail(e, "invalid type for length()", NULL);
	} else if ((!strcmp(f, "keys") || !strcmp(f, "values")) && na == 1 && json_is_object(a[0])) {
		r = json_array();
		const char *k;
		json_t *v;
		json_object_foreach(a[0], k, v)
			json_array_append_new(r, f[0] == 'k' ? json_string(k) : json_incref(v));
	} else if (!strcmp(f, "contains") && na == 2) {
		bool res = false;
		if (json_is_array(a[0]) || json_is_string(a[0]))
			val_contains(a[0], a[1], &res);
		r = json_boolean(res);
	} else if ((!strcmp(f, "starts_with") || !strcmp(f, "ends_with")) && na == 2 && json_is_string(a[0]) && json_is_string(a[1])) {
		size_t l0 = json_string_length(a[0]), l1 = json_string_length(a[1]);
		const char *s0 = json_string_value(a[0]);
		r = json_boolean(l1 <= l0 && !memcmp(f[0] == 's' ? s0 : s0 + l0 - l1, json_string_value(a[1]), l1));
	} else if (!strcmp(f, "join") && na == 2 && json_is_string(a[0]) && json_is_array(a[1])) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < json_array_size(a[1]); i++) {
			if (!json_is_string(json_array_get(a[1], i))) {
				strbuf_release(&sb);
				jfail(e, "join expects strings", NULL);
				goto out;
			}
			if (i)
				strbuf_addstr(&sb, json_string_value(a[0]));
			strbuf_addstr(&sb, json_string_value(json_array_get(a[1], i)));
		}
		r = json_string(strbuf_str(&sb));
		strbuf_release(&sb);
	} else if ((!strcmp(f, "sort") && na == 1 && json_is_array(a[0])) ||
		   (!strcmp(f, "sort_by") && na == 2 && json_is_array(a[0]) && exref)) {
		r = sort_by(e, a[0], exref);
	} else if ((!strcmp(f, "max") || !strcmp(f, "min") || !strcmp(f, "max_by") || !strcmp(f, "min_by")) &&
		   json_is_array(a[0])) {
		json_t *best = NULL, *bk = NULL;
		bool mx = f[1] == 'a';
		for (size_t i = 0; i < json_array_size(a[0]) && !e->failed; i++) {
			json_t *x = json_array_get(a[0], i);
			json_t *k = exref ? jeval(e, exref, x) : json_incref(x);
			if (!k)
				k = json_null();
			if (!bk || (mx ? jcmp_sort(e, k, bk) > 0 : jcmp_sort(e, k, bk) < 0)) {
				json_decref(bk);
				bk = k;
				best = x;
			} else {
				json_decref(k);
			}
		}
		json_decref(bk);
		r = e->failed ? NULL : json_incref(best ? best : json_null());
	} else if ((!strcmp(f, "sum") || !strcmp(f, "avg")) && na == 1 && json_is_array(a[0])) {
		double s = 0;
		size_t cnt = json_array_size(a[0]);
		bool ints = true;
		for (size_t i = 0; i < cnt; i++) {
			json_t *x = json_array_get(a[0], i);
			if (!json_is_number(x)) {
				jfail(e, "sum/avg expect numbers", NULL);
				goto out;
			}
			ints = ints && json_is_integer(x);
			s += json_number_value(x);
		}
		if (f[0] == 's')
			r = ints ? json_integer((json_int_t)s) : val_real(s);
		else
			r = cnt ? val_real(s / (double)cnt) : json_null();
	} else if (!strcmp(f, "reverse") && na == 1 && (json_is_array(a[0]) || json_is_string(a[0]))) {
		r = ev_call_filter(e->ev, "reverse", a[0], NULL, NULL, e->pos);
	} else if (!strcmp(f, "to_string") && na == 1) {
		r = json_is_string(a[0]) ? json_incref(a[0]) : ev_call_filter(e->ev, "to_json", a[0], NULL, NULL, e->pos);
	} else if (!strcmp(f, "to_number") && na == 1) {
		if (json_is_number(a[0]))
			r = json_incref(a[0]);
		else if (json_is_string(a[0])) {
			char *end;
			double d = strtod(json_string_value(a[0]), &end);
			r = *end || end == json_string_value(a[0]) ? json_null()
								    : (d == floor(d) && !strchr(json_string_value(a[0]), '.') ? json_integer((json_int_t)d) : val_real(d));
		} else {
			r = json_null();
		}
	} else if (!strcmp(f, "type") && na == 1) {
		const char *tn = json_is_string(a[0]) ? "string" : json_is_number(a[0]) ? "number" : json_is_boolean(a[0]) ? "boolean"
			       : json_is_array(a[0]) ? "array" : json_is_object(a[0]) ? "object" : "null";
		r = json_string(tn);
	} else if (!strcmp(f, "not_null")) {
		for (size_t i = 0; i < na && i < 3 && !r; i++)
			if (a[i] && !json_is_null(a[i]))
				r = json_incref(a[i]);
		if (!r)
			r = json_null();
	} else if (!strcmp(f, "map") && na == 2 && exref && json_is_array(a[1])) {
		r = json_array();
		for (size_t i = 0; i < json_array_size(a[1]) && !e->failed; i++) {
			json_t *x = jeval(e, exref, json_array_get(a[1], i));
			json_array_append_new(r, x ? x : json_null());
		}
	} else if (!strcmp(f, "abs") && na == 1 && json_is_number(a[0])) {
		r = json_is_integer(a[0]) ? json_integer(llabs(json_integer_value(a[0]) == LLONG_MIN ? 0 : json_integer_value(a[0])))
					  : val_real(fabs(json_real_value(a[0])));
	} else {
		jfail(e, "unknown function or invalid arguments", f);
	}
	for (int i = 0; i < 3; i++)
		json_decref(a[i]);
	return r;
out:
	for (int i = 0; i < 3; i++)
		json_decref(a[i]);
	return NULL;
}

static json_t *jeval(struct jev *e, const struct jnode *n, json_t *cur)
{
	if (e->failed || !ev_step(e->ev, e->pos)) {
		e->failed = true;
		return NULL;
	}
	json_t *l, *r;
	switch (n->k) {
	case JN_CURRENT:
		return json_incref(cur);
	case JN_FIELD:
		if (json_is_object(cur) && (r = json_object_get(cur, n->name)))
			return json_incref(r);
		return json_null();
	case JN_LIT:
		return json_incref(n->lit);
	case JN_SUB:
		l = jeval(e, n->a, cur);
		if (!l || json_is_null(l)) {
			json_decref(l);
			return e->failed ? NULL : json_null();
		}
		r = jeval(e, n->b, l);
		json_decref(l);
		return r;
	case JN_PIPE:
		l = jeval(e, n->a, cur);
		if (!l)
			return NULL;
		r = jeval(e, n->b, l);
		json_decref(l);
		return r;
	case JN_INDEX: {
		l = jeval(e, n->a, cur);
		if (!json_is_array(l)) {
			json_decref(l);
			return e->failed ? NULL : json_null();
		}
		long long i = n->idx[0], sz = (long long)json_array_size(l);
		if (i < 0)
			i += sz;
		r = i >= 0 && i < sz ? json_incref(json_array_get(l, (size_t)i)) : json_null();
		json_decref(l);
		return r;
	}
	case JN_SLICE: {
		l = jeval(e, n->a, cur);
		if (!json_is_array(l)) {
			json_decref(l);
			return e->failed ? NULL : json_null();
		}
		json_t *res = json_array();
		long long sz = (long long)json_array_size(l), step = n->has[2] ? n->idx[2] : 1;
		if (step == 0) {
			json_decref(res);
			json_decref(l);
			return jfail(e, "slice step cannot be 0", NULL);
		}
		long long st, sp;
		if (step > 0) {
			st = n->has[0] ? n->idx[0] : 0;
			sp = n->has[1] ? n->idx[1] : sz;
			if (st < 0) st += sz;
			if (sp < 0) sp += sz;
			if (st < 0) st = 0;
			if (sp > sz) sp = sz;
			for (long long i = st; i < sp;) {
				json_array_append(res, json_array_get(l, (size_t)i));
				if (__builtin_add_overflow(i, step, &i))
					break;
			}
		} else {
			st = n->has[0] ? n->idx[0] : sz - 1;
			sp = n->has[1] ? n->idx[1] : -sz - 1;
			if (st < 0) st += sz;
			if (sp < 0) sp += sz;
			if (st >= sz) st = sz - 1;
			if (sp < -1) sp = -1;
			for (long long i = st; i > sp;) {
				json_array_append(res, json_array_get(l, (size_t)i));
				if (__builtin_add_overflow(i, step, &i))
					break;
			}
		}
		json_decref(l);
		return res;
	}
	case JN_PROJECT:
	case JN_FLATTEN:
	case JN_FILTER: {
		l = jeval(e, n->a, cur);
		if (!json_is_array(l)) {
			json_decref(l);
			return e->failed ? NULL : json_null();
		}
		json_t *list = l;
		if (n->k == JN_FLATTEN) {
			list = json_array();
			for (size_t i = 0; i < json_array_size(l); i++) {
				json_t *x = json_array_get(l, i);
				if (json_is_array(x))
					json_array_extend(list, x);
				else
					json_array_append(list, x);
			}
			json_decref(l);
		} else if (n->k == JN_FILTER) {
			list = json_array();
			for (size_t i = 0; i < json_array_size(l) && !e->failed; i++) {
				json_t *c = jeval(e, n->c, json_array_get(l, i));
				if (jtruthy(c))
					json_array_append(list, json_array_get(l, i));
				json_decref(c);
			}
			json_decref(l);
		}
		r = e->failed ? NULL : project(e, list, n->b);
		json_decref(list);
		return r;
	}
	case JN_VPROJECT: {
		l = jeval(e, n->a, cur);
		if (!json_is_object(l)) {
			json_decref(l);
			return e->failed ? NULL : json_null();
		}
		json_t *vals = json_array();
		const char *k;
		json_t *v;
		json_object_foreach(l, k, v)
			json_array_append(vals, v);
		json_decref(l);
		r = project(e, vals, n->b);
		json_decref(vals);
		return r;
	}
	case JN_OR:
	case JN_AND:
		l = jeval(e, n->a, cur);
		if (!l)
			return NULL;
		if (jtruthy(l) == (n->k == JN_OR))
			return l;
		json_decref(l);
		return jeval(e, n->b, cur);
	case JN_NOT:
		l = jeval(e, n->a, cur);
		if (!l)
			return NULL;
		r = json_boolean(!jtruthy(l));
		json_decref(l);
		return r;
	case JN_CMP: {
		l = jeval(e, n->a, cur);
		r = l ? jeval(e, n->b, cur) : NULL;
		if (!r) {
			json_decref(l);
			return NULL;
		}
		json_t *res;
		if (n->op == J_EQ || n->op == J_NE) {
			bool eq = json_equal(l, r) || (json_is_number(l) && json_is_number(r) && json_number_value(l) == json_number_value(r));
			res = json_boolean(n->op == J_EQ ? eq : !eq);
		} else if (json_is_number(l) && json_is_number(r)) {
			double x = json_number_value(l), y = json_number_value(r);
			res = json_boolean(n->op == J_LT ? x < y : n->op == J_LE ? x <= y : n->op == J_GT ? x > y : x >= y);
		} else {
			res = json_null();
		}
		json_decref(l);
		json_decref(r);
		return res;
	}
	case JN_MLIST:
		if (json_is_null(cur))
			return json_null();
		r = json_array();
		for (size_t i = 0; i < n->nkids; i++) {
			json_t *x = jeval(e, n->kids[i], cur);
			if (!x) {
				json_decref(r);
				return NULL;
			}
			json_array_append_new(r, x);
		}
		return r;
	case JN_MHASH:
		if (json_is_null(cur))
			return json_null();
		r = json_object();
		for (size_t i = 0; i < n->nkids; i++) {
			json_t *x = jeval(e, n->kids[i], cur);
			if (!x) {
				json_decref(r);
				return NULL;
			}
			json_object_set_new(r, n->keys[i], x);
		}
		return r;
	case JN_FUNC:
		return call_fn(e, n, cur);
	case JN_EXPREF:
		return jfail(e, "expression reference used outside a function", NULL);
	}
	return NULL;
}

FILTER_FN(json_query)
{
	json_t *q = arg_get(args, kw, 0, "expr");
	if (!json_is_string(q)) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "json_query: the query must be a string");
		return NULL;
	}
	struct jp p = { .src = json_string_value(q) };
	struct jnode *ast = NULL;
	if (jlex(&p) == 0) {
		ast = jexpr(&p, 0);
		if (ast && cur_t(&p) != J_EOF) {
			jerr(&p, "unexpected token after the expression");
			jfree(ast);
			ast = NULL;
		}
	}
	json_t *r = NULL;
	if (!ast) {
		ev_error(ev, TMPL_ERR_TYPE, pos, "json_query: invalid query '%s': %s", p.src, p.err ? p.err : "syntax error");
	} else {
		struct jev e = { .ev = ev, .pos = pos };
		r = jeval(&e, ast, in);
		if (!r && !ev->failed)
			ev_error(ev, TMPL_ERR_TYPE, pos, "json_query: evaluation failed");
	}
	jfree(ast);
	for (size_t i = 0; i < p.n; i++) {
		free(p.t[i].s);
		json_decref(p.t[i].lit);
	}
	free(p.t);
	free(p.err);
	return r;
}
