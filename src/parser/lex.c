/* lex.c: the RADL lexer. It turns the (newline-normalised) input into
 * tokens that each carry their physical line and column.
 *
 * It follows IM's lexer (PLY rules tried in order, first match wins, not the
 * longest): numbers are \d+\.?\d* (so '512m' is NUMBER NAME and '1e3' is 1
 * with unit 'e3'), names are [A-Za-z_.][A-Za-z0-9_.-]*, strings are single
 * quoted with \' as the only escape, '#' comments run to the end of the line,
 * and '@begin' ... '@end' (at column 0) is one recipe token. Unlike IM, a
 * character that no rule matches is an error at its position, not silently
 * skipped (so '!=' is not '=', and '-1' is not '1'): see radl(5). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/radl-int.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define KW(w, t) { w, sizeof(w) - 1, t }
static const struct {
	const char *word;
	size_t len;
	enum radl_tok t;
} keywords[] = {
	KW("and", TK_AND), KW("network", TK_NETWORK), KW("system", TK_SYSTEM),
	KW("ansible", TK_ANSIBLE), KW("configure", TK_CONFIGURE),
	KW("contextualize", TK_CONTEXTUALIZE), KW("deploy", TK_DEPLOY),
	KW("description", TK_DESCRIPTION), KW("soft", TK_SOFT), KW("contains", TK_CONTAINS),
	KW("step", TK_STEP), KW("with", TK_WITH), KW("option", TK_OPTION),
};

const char *radl_tok_name(enum radl_tok t)
{
	switch (t) {
	case TK_EOF: return "end of input";
	case TK_NAME: return "a name";
	case TK_NUMBER: return "a number";
	case TK_STRING: return "a string";
	case TK_RANDOM: return "a random string";
	case TK_RECIPE: return "a recipe";
	case TK_LPAREN: return "'('";
	case TK_RPAREN: return "')'";
	case TK_LBRACK: return "'['";
	case TK_RBRACK: return "']'";
	case TK_COMMA: return "','";
	case TK_EQ: return "'='";
	case TK_LT: return "'<'";
	case TK_GT: return "'>'";
	case TK_LE: return "'<='";
	case TK_GE: return "'>='";
	default:
		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
			if (keywords[i].t == t)
				return keywords[i].word;
	}
	return "?";
}

void radl_lex_init(struct radl_lexer *lx, const char *file, const char *text, size_t len,
		   struct diag *d)
{
	memset(lx, 0, sizeof(*lx));
	lx->text = lx->p = lx->line_start = text;
	lx->end = text + len;
	lx->line = 1;
	lx->file = file;
	lx->d = d;
	lx->at_bol = true;
}

static struct src_loc here(const struct radl_lexer *lx, const char *p)
{
	struct src_loc loc = { lx->file, lx->line, (int)(p - lx->line_start) + 1 };
	return loc;
}

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
static inline bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}
static inline bool is_name_char(char c) { return is_name_start(c) || is_digit(c) || c == '-'; }

static void newline(struct radl_lexer *lx, const char *nl)
{
	lx->line++;
	lx->line_start = nl + 1;
	lx->at_bol = true;
}

static void bad_char(struct radl_lexer *lx, const char *p)
{
	struct src_loc loc = here(lx, p);
	unsigned char c = (unsigned char)*p;
	if (++lx->errors > RADL_MAX_LEX_ERRORS)
		return; /* the parser says "too many errors" */
	if (c == '-' && p + 1 < lx->end && is_digit(p[1]))
		diag_error(lx->d, IMC_EXIT_DATAERR, &loc,
			   "unexpected character '-': RADL numbers are never negative");
	else if (c == '"')
		diag_error(lx->d, IMC_EXIT_DATAERR, &loc,
			   "unexpected character '\"': RADL strings use single quotes");
	else if (c == '!' && p + 1 < lx->end && p[1] == '=')
		diag_error(lx->d, IMC_EXIT_DATAERR, &loc,
			   "unexpected character '!': RADL has no '!=' comparator");
	else if (c == '@')
		diag_error(lx->d, IMC_EXIT_DATAERR, &loc,
			   "unexpected character '@': only '@begin' starts a recipe");
	else if (c >= 0x21 && c < 0x7f)
		diag_error(lx->d, IMC_EXIT_DATAERR, &loc, "unexpected character '%c'", c);
	else
		diag_error(lx->d, IMC_EXIT_DATAERR, &loc, "unexpected byte 0x%02x", c);
}

/* '@begin' ... '@end': p points just past '@begin'. The recipe is the rest of
 * the @begin line and every following line up to a line starting with
 * '@end' (IM's RECIPE_LINE / RECIPE_END rules). */
static void lex_recipe(struct radl_lexer *lx, struct radl_token *tok, const char *p)
{
	const char *body = p;
	for (;;) {
		if (lx->end - p >= 4 && memcmp(p, "@end", 4) == 0) {
			tok->t = TK_RECIPE;
			tok->val = body;
			tok->vlen = (size_t)(p - body);
			tok->end_loc = here(lx, p);
			tok->end_line = lx->line;
			lx->p = p + 4;
			lx->at_bol = false;
			return;
		}
		const char *nl = memchr(p, '\n', (size_t)(lx->end - p));
		if (!nl)
			break;
		newline(lx, nl);
		p = nl + 1;
	}
	lx->errors++;
	diag_error(lx->d, IMC_EXIT_DATAERR, &tok->loc,
		   "recipe is never closed: '@end' must start a line");
	lx->fatal = true;
	lx->p = lx->end;
	tok->t = TK_EOF;
	tok->loc = here(lx, lx->end);
}

/* A quoted string: p points at the opening quote. */
static void lex_string(struct radl_lexer *lx, struct radl_token *tok, const char *p)
{
	const char *q = p + 1;
	int open_line = lx->line;
	bool esc = false;
	while (q < lx->end && *q != '\'') {
		if (*q == '\\') {
			if (q + 1 >= lx->end || q[1] == '\n') {
				struct src_loc loc = here(lx, q);
				lx->errors++;
				diag_error(lx->d, IMC_EXIT_DATAERR, &loc,
					   "a backslash cannot end a line inside a string");
				if (q + 1 < lx->end) {
					q++;
					continue;
				}
				break;
			}
			esc = true;
			q += 2;
			continue;
		}
		if (*q == '\n')
			newline(lx, q);
		q++;
	}
	if (q >= lx->end) {
		lx->errors++;
		diag_error(lx->d, IMC_EXIT_DATAERR, &tok->loc,
			   "unterminated string: the quote opened on line %d is never closed",
			   open_line);
		lx->fatal = true;
		lx->p = lx->end;
		tok->t = TK_EOF;
		return;
	}
	tok->t = TK_STRING;
	tok->val = p + 1;
	tok->vlen = (size_t)(q - p - 1);
	tok->escaped = esc;
	tok->end_line = lx->line;
	lx->p = q + 1;
}

/* 'random(N)' (quotes included): IM replaces it by N random characters. */
static bool lex_random(struct radl_lexer *lx, struct radl_token *tok, const char *p)
{
	const char *q = p + 1;
	if (lx->end - q < 7 || memcmp(q, "random(", 7) != 0)
		return false;
	q += 7;
	const char *digits = q;
	double n = 0;
	while (q < lx->end && is_digit(*q))
		n = n * 10 + (*q++ - '0');
	if (q == digits || lx->end - q < 2 || q[0] != ')' || q[1] != '\'')
		return false;
	tok->t = TK_RANDOM;
	tok->num = n;
	lx->p = q + 2;
	return true;
}

void radl_lex_next(struct radl_lexer *lx, struct radl_token *tok)
{
	const char *p = lx->p;
	bool reported = false; /* one error for a run of unknown characters */

	memset(tok, 0, sizeof(*tok));
	for (;;) {
		if (p >= lx->end) {
			lx->p = p;
			tok->t = TK_EOF;
			tok->loc = here(lx, p);
			tok->start = p;
			return;
		}
		char c = *p;
		if (c == ' ' || c == '\t') {
			p++;
			continue;
		}
		if (c == '\n') {
			newline(lx, p);
			p++;
			reported = false;
			continue;
		}
		if (c == '#') {
			const char *nl = memchr(p, '\n', (size_t)(lx->end - p));
			p = nl ? nl : lx->end;
			continue;
		}
		if (c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == '=' ||
		    c == '<' || c == '>' || c == '\'' || is_digit(c) || is_name_start(c) ||
		    (c == '@' && lx->end - p >= 6 && memcmp(p, "@begin", 6) == 0))
			break;
		if (!reported)
			bad_char(lx, p);
		reported = true;
		p++;
	}

	tok->start = p;
	tok->loc = here(lx, p);
	tok->bol = lx->at_bol;
	tok->end_line = lx->line;
	lx->at_bol = false;
	char c = *p;
	const char *q = p + 1;
	switch (c) {
	case '(': tok->t = TK_LPAREN; break;
	case ')': tok->t = TK_RPAREN; break;
	case '[': tok->t = TK_LBRACK; break;
	case ']': tok->t = TK_RBRACK; break;
	case ',': tok->t = TK_COMMA; break;
	case '=': tok->t = TK_EQ; break;
	case '<':
		if (q < lx->end && *q == '=') {
			tok->t = TK_LE;
			q++;
		} else {
			tok->t = TK_LT;
		}
		break;
	case '>':
		if (q < lx->end && *q == '=') {
			tok->t = TK_GE;
			q++;
		} else {
			tok->t = TK_GT;
		}
		break;
	case '\'':
		if (!lex_random(lx, tok, p))
			lex_string(lx, tok, p);
		tok->len = (size_t)(lx->p - p);
		return;
	case '@':
		lex_recipe(lx, tok, p + 6);
		tok->len = (size_t)(lx->p - p);
		return;
	default:
		if (is_digit(c)) {
			double v = c - '0';
			while (q < lx->end && is_digit(*q))
				v = v * 10 + (*q++ - '0');
			tok->is_int = true;
			if (q < lx->end && *q == '.') {
				tok->is_int = false;
				q++;
				while (q < lx->end && is_digit(*q))
					q++;
			}
			/* Beyond 15 digits the sum above may round differently from a
			 * correct conversion; decimals always need one. strtod() gets
			 * a copy, since the text after the token could extend it
			 * ('1.5e3' is 1.5 with unit 'e3'). */
			size_t n = (size_t)(q - p);
			if (!tok->is_int || n > 15) {
				char buf[64];
				char *copy = n < sizeof(buf) ? buf : xmalloc(n + 1);
				memcpy(copy, p, n);
				copy[n] = '\0';
				v = strtod(copy, NULL);
				if (copy != buf)
					free(copy);
			}
			tok->t = TK_NUMBER;
			tok->num = v;
		} else {
			while (q < lx->end && is_name_char(*q))
				q++;
			tok->t = TK_NAME;
			size_t n = (size_t)(q - p);
			if (n >= 3 && n <= 13 && *p >= 'a' && *p <= 'w')
				for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
					if (keywords[i].word[0] == *p && keywords[i].len == n &&
					    memcmp(keywords[i].word, p, n) == 0) {
						tok->t = keywords[i].t;
						break;
					}
		}
	}
	lx->p = q;
	tok->len = (size_t)(q - p);
}

char *radl_string_value(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			if (s[i + 1] == '\'') {
				*o++ = '\'';
			} else {
				*o++ = s[i];
				*o++ = s[i + 1];
			}
			i++;
			continue;
		}
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}

bool radl_is_name(const char *s)
{
	size_t n = strlen(s);
	if (!n || !is_name_start(s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!is_name_char(s[i]))
			return false;
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strcmp(keywords[i].word, s) == 0)
			return false;
	return true;
}
