/* template-lex.c: the lexer of the templating engine. It splits a template
 * into data and tags ({{ }}, {% %}, {# #}) and the tags into expression
 * tokens, applying Jinja's whitespace control ({%- -%}, trim_blocks,
 * lstrip_blocks) and {% raw %} on the way, so that the parser only sees a
 * flat token array. Bare expressions (when:) are lexed with expr_only.
 *
 * Why our own lexer: Jinja's rules for end markers inside braces (a '}}'
 * closing a dict literal is not the end of the tag), for floats after a dot
 * (item.0.1 is two subscripts) and Ansible's backslash handling inside {{ }}
 * (escape_backslashes) all matter for recipes, and are easy to get exactly
 * right in a hand-written scanner. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct lexer {
	const char *s;
	size_t len, i;
	const struct lexopt *o;
	struct tokens *out;
	size_t errpos;
	char *errmsg;
	bool lstrip_next;   /* a '-' end marker: strip leading whitespace of next data */
	bool trim_next;     /* trim_blocks: drop one newline after a block end */
	/* the delimiters (lexopt's syntax or Jinja's) and their lengths;
	 * custom: any differs from Jinja's, so the fast '{' scan won't do */
	const char *bs, *be, *vs, *ve, *cs, *ce, *lsp, *lcp;
	size_t bsl, bel, vsl, vel, csl, cel, lspl, lcpl;
	bool custom;
};

static bool at(const struct lexer *lx, size_t i, const char *w, size_t wl)
{
	return wl && i + wl <= lx->len && memcmp(lx->s + i, w, wl) == 0;
}

/* Fills the lexer's delimiters from syn (NULL members: Jinja's). */
static void set_delims(struct lexer *lx, const struct tmpl_syntax *syn)
{
	static const struct tmpl_syntax dflt = { "{%", "%}", "{{", "}}", "{#", "#}", NULL, NULL };
	const struct tmpl_syntax *y = syn ? syn : &dflt;
	lx->bs = y->block_start ? y->block_start : dflt.block_start;
	lx->be = y->block_end ? y->block_end : dflt.block_end;
	lx->vs = y->variable_start ? y->variable_start : dflt.variable_start;
	lx->ve = y->variable_end ? y->variable_end : dflt.variable_end;
	lx->cs = y->comment_start ? y->comment_start : dflt.comment_start;
	lx->ce = y->comment_end ? y->comment_end : dflt.comment_end;
	lx->lsp = y->line_statement_prefix && *y->line_statement_prefix ? y->line_statement_prefix : NULL;
	lx->lcp = y->line_comment_prefix && *y->line_comment_prefix ? y->line_comment_prefix : NULL;
	lx->bsl = strlen(lx->bs);
	lx->bel = strlen(lx->be);
	lx->vsl = strlen(lx->vs);
	lx->vel = strlen(lx->ve);
	lx->csl = strlen(lx->cs);
	lx->cel = strlen(lx->ce);
	lx->lspl = lx->lsp ? strlen(lx->lsp) : 0;
	lx->lcpl = lx->lcp ? strlen(lx->lcp) : 0;
	lx->custom = strcmp(lx->bs, "{%") || strcmp(lx->be, "%}") || strcmp(lx->vs, "{{") || strcmp(lx->ve, "}}") ||
		     strcmp(lx->cs, "{#") || strcmp(lx->ce, "#}") || lx->lsp || lx->lcp;
}

static struct token *push(struct lexer *lx, enum tk type, size_t pos)
{
	struct tokens *t = lx->out;
	if (t->n == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 32;
		t->v = xreallocarray(t->v, t->alloc, sizeof(*t->v));
	}
	struct token *k = &t->v[t->n++];
	memset(k, 0, sizeof(*k));
	k->type = type;
	k->pos = pos;
	return k;
}

static int fail(struct lexer *lx, size_t pos, const char *msg)
{
	if (!lx->errmsg) {
		lx->errpos = pos;
		lx->errmsg = xstrdup(msg);
	}
	return -1;
}

void tokens_release(struct tokens *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].str);
	free(t->v);
	t->v = NULL;
	t->n = t->alloc = 0;
}

/* Jinja's lexer skips whitespace with Python's \s on str, which takes the
 * Unicode spaces too (a no-break space typed inside "{{ item }}" is
 * whitespace there). The code point of UTF-8 text at s[i] (n bytes left)
 * is one of them: its length in bytes, else 0. */
static size_t space_at(const char *s, size_t i, size_t n)
{
	unsigned char c = (unsigned char)s[i];
	if (c < 0x80)
		return isspace(c) || (c >= 0x1c && c <= 0x1f) ? 1 : 0;
	unsigned char c1 = i + 1 < n ? (unsigned char)s[i + 1] : 0;
	unsigned char c2 = i + 2 < n ? (unsigned char)s[i + 2] : 0;
	if (c == 0xc2)
		return c1 == 0x85 || c1 == 0xa0 ? 2 : 0;
	if (c == 0xe1)
		return c1 == 0x9a && c2 == 0x80 ? 3 : 0; /* U+1680 */
	if (c == 0xe2 && c1 == 0x80)                     /* U+2000..200A, 2028, 2029, 202F */
		return c2 <= 0x8a || c2 == 0xa8 || c2 == 0xa9 || c2 == 0xaf ? (c2 >= 0x80 ? 3 : 0) : 0;
	if (c == 0xe2 && c1 == 0x81)
		return c2 == 0x9f ? 3 : 0; /* U+205F */
	if (c == 0xe3)
		return c1 == 0x80 && c2 == 0x80 ? 3 : 0; /* U+3000 */
	return 0;
}

/* As space_at for the code point that ends just before s[b] (a the
 * earliest byte it may start at). */
static size_t space_before(const char *s, size_t a, size_t b)
{
	for (size_t w = 1; w <= 3 && w <= b - a; w++)
		if (space_at(s, b - w, b) == w)
			return w;
	return 0;
}

/* Appends data text [a, b), honouring pending lstrip/trim and a following
 * rstrip request. */
static void emit_data(struct lexer *lx, size_t a, size_t b, bool rstrip, bool lstrip_line, bool raw)
{
	if (lx->trim_next) {
		if (a < b && lx->s[a] == '\n')
			a++;
		else if (a + 1 < b && lx->s[a] == '\r' && lx->s[a + 1] == '\n')
			a += 2;
		else if (a < b && lx->s[a] == '\r')
			a++;
		lx->trim_next = false;
	}
	if (lx->lstrip_next) {
		size_t w;
		while (a < b && (w = space_at(lx->s, a, b)) > 0)
			a += w;
		lx->lstrip_next = false;
	}
	if (rstrip) {
		size_t w;
		while (b > a && (w = space_before(lx->s, a, b)) > 0)
			b -= w;
	} else if (lstrip_line) {
		/* lstrip_blocks: spaces/tabs between the line start and the tag */
		size_t k = b;
		while (k > a && (lx->s[k - 1] == ' ' || lx->s[k - 1] == '\t'))
			k--;
		if (k == 0 || lx->s[k - 1] == '\n' || lx->s[k - 1] == '\r')
			b = k;
	}
	if (b <= a)
		return;
	struct tokens *t = lx->out;
	if (t->n && t->v[t->n - 1].type == TK_DATA && !raw && !t->v[t->n - 1].raw_block) {
		/* merge adjacent data (after comments) */
		struct token *k = &t->v[t->n - 1];
		k->str = xrealloc(k->str, k->slen + (b - a) + 1);
		memcpy(k->str + k->slen, lx->s + a, b - a);
		k->slen += b - a;
		k->str[k->slen] = 0;
		return;
	}
	struct token *k = push(lx, TK_DATA, a);
	k->str = xstrndup(lx->s + a, b - a);
	k->slen = b - a;
	k->raw_block = raw;
}

static void utf8_put(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (char)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (char)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else {
		if (cp > 0x10ffff)
			cp = 0xfffd;
		strbuf_addch(sb, (char)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes a string literal body as Python's unicode-escape does. */
static void decode_escapes(struct strbuf *sb, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (c != '\\' || i + 1 >= n) {
			strbuf_addch(sb, c);
			continue;
		}
		char e = p[++i];
		switch (e) {
		case '\n': break;
		case '\\': strbuf_addch(sb, '\\'); break;
		case '\'': strbuf_addch(sb, '\''); break;
		case '"': strbuf_addch(sb, '"'); break;
		case 'a': strbuf_addch(sb, '\a'); break;
		case 'b': strbuf_addch(sb, '\b'); break;
		case 'f': strbuf_addch(sb, '\f'); break;
		case 'n': strbuf_addch(sb, '\n'); break;
		case 'r': strbuf_addch(sb, '\r'); break;
		case 't': strbuf_addch(sb, '\t'); break;
		case 'v': strbuf_addch(sb, '\v'); break;
		case 'x': case 'u': case 'U': {
			int nd = e == 'x' ? 2 : e == 'u' ? 4 : 8;
			unsigned long cp = 0;
			int k;
			for (k = 0; k < nd && i + 1 + k < n && hexval(p[i + 1 + k]) >= 0; k++)
				cp = cp * 16 + (unsigned long)hexval(p[i + 1 + k]);
			if (k < nd) { /* malformed: keep as written */
				strbuf_addch(sb, '\\');
				strbuf_addch(sb, e);
				break;
			}
			i += (size_t)nd;
			utf8_put(sb, cp);
			break;
		}
		default:
			if (e >= '0' && e <= '7') {
				unsigned long cp = (unsigned long)(e - '0');
				for (int k = 0; k < 2 && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '7'; k++)
					cp = cp * 8 + (unsigned long)(p[++i] - '0');
				utf8_put(sb, cp);
			} else {
				strbuf_addch(sb, '\\');
				strbuf_addch(sb, e);
			}
		}
	}
}

static bool is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* A line statement ends, outside brackets, at the last line break of the
 * whitespace at i, or at the end of the text (Jinja's \s*(\n|$)): the
 * position after it, or 0. */
static size_t line_stmt_end(const struct lexer *lx, size_t i)
{
	size_t j = i, nl = 0;
	while (j < lx->len && isspace((unsigned char)lx->s[j])) {
		if (lx->s[j] == '\n')
			nl = j + 1;
		j++;
	}
	return j >= lx->len ? j : nl;
}

/* Lexes expression tokens until the end marker (end: the variable's or the
 * block's end string, "\n" for a line statement, NULL for expr_only).
 * Returns 0 and leaves lx->i after the end marker. */
static int lex_expr(struct lexer *lx, const char *end, bool raw_strings)
{
	const char *s = lx->s;
	int depth = 0;
	bool is_var = end && end == lx->ve, line = end && !strcmp(end, "\n");
	size_t endl = end ? strlen(end) : 0;
	for (;;) {
		size_t sw;
		if (line && depth == 0) {
			size_t e = line_stmt_end(lx, lx->i);
			if (e) {
				push(lx, TK_BLOCK_END, lx->i);
				lx->i = e;
				return 0;
			}
		}
		while (lx->i < lx->len && (sw = space_at(s, lx->i, lx->len)) > 0)
			lx->i += sw;
		size_t i = lx->i;
		if (i >= lx->len) {
			if (!end)
				return 0;
			return fail(lx, i, is_var ? "unexpected end of template, expected 'end of print statement'"
						  : "unexpected end of template, expected 'end of statement block'");
		}
		if (end && !line && depth == 0) {
			/* "-}}" / "+%}" / "}}" */
			size_t k = i;
			bool minus = false, plus = false;
			if (s[k] == '-' || s[k] == '+') {
				minus = s[k] == '-';
				plus = s[k] == '+';
				k++;
			}
			if (at(lx, k, end, endl)) {
				lx->i = k + endl;
				if (minus)
					lx->lstrip_next = true;
				else if (!is_var && lx->o->trim_blocks && !plus)
					lx->trim_next = true;
				push(lx, is_var ? TK_VAR_END : TK_BLOCK_END, i);
				return 0;
			}
		}
		char c = s[i];
		if (is_name_start(c)) {
			size_t j = i;
			while (j < lx->len && is_name_char(s[j]))
				j++;
			struct token *k = push(lx, TK_NAME, i);
			k->str = xstrndup(s + i, j - i);
			k->slen = j - i;
			lx->i = j;
			continue;
		}
		if (isdigit((unsigned char)c)) {
			size_t j = i;
			bool after_dot = i > 0 && s[i - 1] == '.';
			struct strbuf nb = STRBUF_INIT;
			int base = 10;
			if (c == '0' && j + 1 < lx->len && strchr("xXoObB", s[j + 1]) && j + 2 < lx->len &&
			    isxdigit((unsigned char)s[j + 2])) {
				base = (s[j + 1] == 'x' || s[j + 1] == 'X') ? 16 : (s[j + 1] == 'o' || s[j + 1] == 'O') ? 8 : 2;
				j += 2;
				while (j < lx->len && (isxdigit((unsigned char)s[j]) || s[j] == '_')) {
					if (s[j] != '_')
						strbuf_addch(&nb, s[j]);
					j++;
				}
			} else {
				while (j < lx->len && (isdigit((unsigned char)s[j]) || (s[j] == '_' && j + 1 < lx->len && isdigit((unsigned char)s[j + 1])))) {
					if (s[j] != '_')
						strbuf_addch(&nb, s[j]);
					j++;
				}
			}
			bool isfloat = false;
			if (base == 10 && !after_dot) {
				if (j + 1 < lx->len && s[j] == '.' && isdigit((unsigned char)s[j + 1])) {
					isfloat = true;
					strbuf_addch(&nb, '.');
					j++;
					while (j < lx->len && (isdigit((unsigned char)s[j]) || (s[j] == '_' && j + 1 < lx->len && isdigit((unsigned char)s[j + 1])))) {
						if (s[j] != '_')
							strbuf_addch(&nb, s[j]);
						j++;
					}
				}
				if (j < lx->len && (s[j] == 'e' || s[j] == 'E')) {
					size_t k = j + 1;
					if (k < lx->len && (s[k] == '+' || s[k] == '-'))
						k++;
					if (k < lx->len && isdigit((unsigned char)s[k])) {
						isfloat = true;
						strbuf_add(&nb, s + j, k - j);
						j = k;
						while (j < lx->len && isdigit((unsigned char)s[j]))
							strbuf_addch(&nb, s[j++]);
					}
				}
			}
			struct token *k = push(lx, isfloat ? TK_FLOAT : TK_INT, i);
			errno = 0;
			if (isfloat) {
				k->fval = strtod(strbuf_str(&nb), NULL);
			} else {
				unsigned long long v = strtoull(strbuf_str(&nb), NULL, base);
				if (errno == ERANGE || v > (unsigned long long)9223372036854775807LL) {
					k->type = TK_FLOAT;
					k->fval = strtod(strbuf_str(&nb), NULL);
				} else {
					k->ival = (long long)v;
				}
			}
			strbuf_release(&nb);
			lx->i = j;
			continue;
		}
		if (c == '\'' || c == '"') {
			size_t j = i + 1;
			while (j < lx->len && s[j] != c) {
				if (s[j] == '\\' && j + 1 < lx->len)
					j++;
				j++;
			}
			if (j >= lx->len)
				return fail(lx, i, "unexpected end of string literal");
			struct strbuf sb = STRBUF_INIT;
			if (raw_strings)
				strbuf_add(&sb, s + i + 1, j - i - 1);
			else
				decode_escapes(&sb, s + i + 1, j - i - 1);
			struct token *k = push(lx, TK_STRING, i);
			k->slen = sb.len;
			k->str = strbuf_detach(&sb);
			lx->i = j + 1;
			continue;
		}
		enum tk t;
		size_t w = 1;
		char c2 = i + 1 < lx->len ? s[i + 1] : 0;
		switch (c) {
		case '+': t = TK_ADD; break;
		case '-': t = TK_SUB; break;
		case '*': if (c2 == '*') { t = TK_POW; w = 2; } else t = TK_MUL; break;
		case '/': if (c2 == '/') { t = TK_FLOORDIV; w = 2; } else t = TK_DIV; break;
		case '%': t = TK_MOD; break;
		case '~': t = TK_TILDE; break;
		case '=': if (c2 == '=') { t = TK_EQ; w = 2; } else t = TK_ASSIGN; break;
		case '!':
			if (c2 != '=')
				return fail(lx, i, "unexpected char '!'");
			t = TK_NE; w = 2; break;
		case '<': if (c2 == '=') { t = TK_LE; w = 2; } else t = TK_LT; break;
		case '>': if (c2 == '=') { t = TK_GE; w = 2; } else t = TK_GT; break;
		case '.': t = TK_DOT; break;
		case ',': t = TK_COMMA; break;
		case ':': t = TK_COLON; break;
		case '|': t = TK_PIPE; break;
		case '(': t = TK_LPAREN; depth++; break;
		case '[': t = TK_LBRACKET; depth++; break;
		case '{': t = TK_LBRACE; depth++; break;
		case ')': t = TK_RPAREN; depth--; break;
		case ']': t = TK_RBRACKET; depth--; break;
		case '}': t = TK_RBRACE; depth--; break;
		default: {
			char msg[64];
			if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
				snprintf(msg, sizeof(msg), "unexpected char '%c'", c);
			else
				snprintf(msg, sizeof(msg), "unexpected char '\\x%02x'", (unsigned char)c);
			return fail(lx, i, msg);
		}
		}
		if (depth < 0)
			depth = 0;
		push(lx, t, i);
		lx->i = i + w;
	}
}

/* Does the text at p start a block tag named kw ("{% raw %}")? Returns the
 * length of the whole tag, or 0. *minus_before/after report '-' markers. */
static size_t match_tag(const struct lexer *lx, size_t p, const char *kw, bool *mb, bool *ma, bool *plus_after)
{
	const char *s = lx->s;
	size_t len = lx->len, i = p;
	if (!at(lx, i, lx->bs, lx->bsl))
		return 0;
	i += lx->bsl;
	*mb = false;
	*ma = false;
	*plus_after = false;
	if (i < len && (s[i] == '-' || s[i] == '+')) {
		*mb = s[i] == '-';
		i++;
	}
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	size_t kl = strlen(kw);
	if (i + kl > len || strncmp(s + i, kw, kl) != 0)
		return 0;
	i += kl;
	if (i < len && is_name_char(s[i]))
		return 0;
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	if (i < len && (s[i] == '-' || s[i] == '+')) {
		*ma = s[i] == '-';
		*plus_after = s[i] == '+';
		i++;
	}
	if (!at(lx, i, lx->be, lx->bel))
		return 0;
	return i + lx->bel - p;
}

/* The tag (or line statement, or line comment) starting at i, if any:
 * 'v', 'b', 'c', 'l' (line statement) or 'm' (line comment), with where
 * its delimiter starts (*t) and where the data before it ends (*dend: a
 * line statement's or line comment's leading blanks go with it). A longer
 * delimiter wins over a shorter one at the same place, as in Jinja's
 * lexer, whose alternatives are sorted by length. */
static char tag_at(const struct lexer *lx, size_t i, size_t data_start, size_t *t, size_t *dend)
{
	const char *s = lx->s;
	char best = 0;
	size_t bl = 0;
	if (lx->lsp && (i == 0 || s[i - 1] == '\n')) {
		size_t q = i;
		while (q < lx->len && (s[q] == ' ' || s[q] == '\t' || s[q] == '\v'))
			q++;
		if (at(lx, q, lx->lsp, lx->lspl)) {
			best = 'l';
			bl = lx->lspl + (q - i);
			*t = q;
			*dend = i;
		}
	}
	if (lx->lcp && at(lx, i, lx->lcp, lx->lcpl) && lx->lcpl > bl) {
		/* the blanks before it on its line go too (Jinja:
		 * (^|(?<=\S))[^\S\r\n]*PREFIX) */
		size_t w = i;
		while (w > data_start && (s[w - 1] == ' ' || s[w - 1] == '\t' || s[w - 1] == '\v' || s[w - 1] == '\f'))
			w--;
		best = 'm';
		bl = lx->lcpl;
		*t = i;
		*dend = w;
	}
	static const char kinds[] = { 'b', 'v', 'c' };
	const char *starts[] = { lx->bs, lx->vs, lx->cs };
	size_t lens[] = { lx->bsl, lx->vsl, lx->csl };
	for (int k = 0; k < 3; k++)
		if (lens[k] > bl && at(lx, i, starts[k], lens[k])) {
			best = kinds[k];
			bl = lens[k];
			*t = i;
			*dend = i;
		}
	return best;
}

/* The next tag at or after lx->i (see tag_at); 0 at the end of the text. */
static char next_tag(const struct lexer *lx, size_t data_start, size_t *t, size_t *dend)
{
	const char *s = lx->s;
	size_t i = lx->i;
	if (!lx->custom) {
		/* Jinja's delimiters: all start with '{' */
		while (i + 1 < lx->len) {
			const char *p = memchr(s + i, '{', lx->len - i - 1);
			if (!p)
				return 0;
			char n = p[1];
			if (n == '{' || n == '%' || n == '#') {
				*t = *dend = (size_t)(p - s);
				return n == '{' ? 'v' : n == '%' ? 'b' : 'c';
			}
			i = (size_t)(p - s) + 1;
		}
		return 0;
	}
	for (; i < lx->len; i++) {
		char k = tag_at(lx, i, data_start, t, dend);
		if (k)
			return k;
	}
	return 0;
}

static int lex_template(struct lexer *lx)
{
	const char *s = lx->s;
	size_t data_start = 0;
	for (;;) {
		size_t t, dend;
		char kind = next_tag(lx, data_start, &t, &dend);
		if (!kind) {
			emit_data(lx, data_start, lx->len, false, false, false);
			push(lx, TK_EOF, lx->len);
			return 0;
		}
		if (kind == 'm') {
			/* a line comment: up to its line break, which stays */
			emit_data(lx, data_start, dend, false, false, false);
			const char *e = memchr(s + t, '\n', lx->len - t);
			lx->i = e ? (size_t)(e - s) : lx->len;
			data_start = lx->i;
			continue;
		}
		if (kind == 'l') {
			emit_data(lx, data_start, dend, false, false, false);
			push(lx, TK_BLOCK_BEGIN, t);
			lx->i = t + lx->lspl;
			if (lex_expr(lx, "\n", false) < 0)
				return -1;
			data_start = lx->i;
			continue;
		}
		size_t sl = kind == 'v' ? lx->vsl : kind == 'b' ? lx->bsl : lx->csl;
		bool minus = t + sl < lx->len && s[t + sl] == '-';
		bool plus = t + sl < lx->len && s[t + sl] == '+';
		bool lstrip = lx->o->lstrip_blocks && kind != 'v' && !plus;
		if (kind == 'b') {
			bool mb, ma, pa;
			size_t tl = match_tag(lx, t, "raw", &mb, &ma, &pa);
			if (tl) {
				emit_data(lx, data_start, t, mb, lstrip, false);
				size_t j = t + tl;
				/* find {% endraw %} */
				size_t e = j;
				size_t el = 0;
				bool emb = false, ema = false, epa = false;
				while (e < lx->len) {
					const char *q = memchr(s + e, lx->bs[0], lx->len - e);
					if (!q)
						break;
					e = (size_t)(q - s);
					el = match_tag(lx, e, "endraw", &emb, &ema, &epa);
					if (el)
						break;
					e++;
				}
				if (!el)
					return fail(lx, t, "missing end of raw directive");
				size_t a = j, b = e;
				if (ma)
					while (a < b && isspace((unsigned char)s[a]))
						a++;
				else if (lx->o->trim_blocks && !pa && a < b && s[a] == '\n')
					a++;
				if (emb)
					while (b > a && isspace((unsigned char)s[b - 1]))
						b--;
				lx->lstrip_next = false;
				lx->trim_next = false;
				if (b > a) {
					struct token *k = push(lx, TK_DATA, a);
					k->str = xstrndup(s + a, b - a);
					k->slen = b - a;
					k->raw_block = true;
				}
				lx->i = e + el;
				data_start = lx->i;
				if (ema)
					lx->lstrip_next = true;
				else if (lx->o->trim_blocks && !epa)
					lx->trim_next = true;
				continue;
			}
		}
		emit_data(lx, data_start, t, minus, lstrip, false);
		if (kind == 'c') {
			size_t e = t + lx->csl;
			while (e < lx->len && !at(lx, e, lx->ce, lx->cel))
				e++;
			if (e >= lx->len)
				return fail(lx, t, "missing end of comment tag");
			lx->i = e + lx->cel;
			if (e > t + lx->csl && s[e - 1] == '-')
				lx->lstrip_next = true;
			else if (lx->o->trim_blocks && !(e > t + lx->csl && s[e - 1] == '+'))
				lx->trim_next = true;
			data_start = lx->i;
			continue;
		}
		push(lx, kind == 'v' ? TK_VAR_BEGIN : TK_BLOCK_BEGIN, t);
		lx->i = t + sl + ((minus || plus) ? 1 : 0);
		if (lex_expr(lx, kind == 'v' ? lx->ve : lx->be, kind == 'v' && lx->o->raw_var_strings) < 0)
			return -1;
		data_start = lx->i;
	}
}

int tmpl_lex(const char *src, size_t len, const struct lexopt *o,
	     struct tokens *out, size_t *errpos, char **errmsg)
{
	struct lexer lx = { .s = src, .len = len, .o = o, .out = out };
	int rc;
	set_delims(&lx, o->syn);
	if (o->expr_only) {
		rc = lex_expr(&lx, NULL, o->raw_var_strings);
		if (rc == 0)
			push(&lx, TK_EOF, len);
	} else {
		rc = lex_template(&lx);
	}
	if (rc < 0) {
		*errpos = lx.errpos;
		*errmsg = lx.errmsg;
		return -1;
	}
	return 0;
}

/* Cheap pre-check of the public API (template.h): text without "{{", "{%"
 * or "{#" is used verbatim. */
bool tmpl_has_template(const char *s)
{
	if (!s)
		return false;
	for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{'))
		if (p[1] == '{' || p[1] == '%' || p[1] == '#')
			return true;
	return false;
}

bool tmpl_syntax_has_template(const struct tmpl_syntax *syn, const char *s)
{
	if (!syn)
		return tmpl_has_template(s);
	if (!s)
		return false;
	const char *starts[] = { syn->block_start ? syn->block_start : "{%",
				 syn->variable_start ? syn->variable_start : "{{",
				 syn->comment_start ? syn->comment_start : "{#" };
	for (int k = 0; k < 3; k++)
		if (strstr(s, starts[k]))
			return true;
	return false;
}
