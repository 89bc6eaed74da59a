/* error-context.c: the text Ansible appends to an error it can place in a
 * playbook file: where (file, line, column), the offending line with the
 * line before it and a "^ here" under the column, then the hint Ansible
 * gives for the line's look (an unquoted template, a k=v shorthand, a tab,
 * unbalanced quotes...). A task that fails on an undefined variable in its
 * options carries this text in its result's msg, and recipes match that msg
 * (is search(...)), so imc words it as Ansible does, hints included.
 *
 * The rules, as ansible-core 2.14 applies them:
 * - the file is read as text, lines split on \n, \r\n or \r; a line past
 *   the end means the last one; a blank target line means the nearest
 *   non-blank line above it; the line before is empty for the first line;
 * - when the line before holds a k=v pair (a word, '=', a word, path or
 *   dash; blanks allowed around '='), the place is that line at its first
 *   '=' and the k=v-and-YAML hint follows;
 * - then, on the target line: a tab adds the tab hint; '{{' and '}}' (not
 *   both quoted forms) add the unquoted-template hint; else ':{{' (blanks
 *   ignored) the dict hint; else a ':' just after the column with more than
 *   one ':' the colon hint; else the text after the first ':' starting with
 *   a quote it does not end with adds the partial-quote hint, and quotes at
 *   both ends with more than two single quotes, or more than two double
 *   quotes anywhere, the unbalanced-quotes hint.
 * A file that cannot be read gives the position and "(could not open file
 * to display line)". */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "provision/exec.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define POSITION "The error appears to be in '%s': line %d, column %d, but may\n" \
		 "be elsewhere in the file depending on the exact syntax problem.\n"

static const char HINT_SHORTHAND[] =
	"There appears to be both 'k=v' shorthand syntax and YAML in this task. "
	"Only one syntax may be used.\n";

static const char HINT_TAB[] =
	"There appears to be a tab character at the start of the line.\n"
	"\n"
	"YAML does not use tabs for formatting. Tabs should be replaced with spaces.\n"
	"\n"
	"For example:\n"
	"    - name: update tooling\n"
	"      vars:\n"
	"        version: 1.2.3\n"
	"#    ^--- there is a tab there.\n"
	"\n"
	"Should be written as:\n"
	"    - name: update tooling\n"
	"      vars:\n"
	"        version: 1.2.3\n"
	"# ^--- all spaces here.\n";

static const char HINT_UNQUOTED_VAR[] =
	"We could be wrong, but this one looks like it might be an issue with\n"
	"missing quotes. Always quote template expression brackets when they\n"
	"start a value. For instance:\n"
	"\n"
	"    with_items:\n"
	"      - {{ foo }}\n"
	"\n"
	"Should be written as:\n"
	"\n"
	"    with_items:\n"
	"      - \"{{ foo }}\"\n";

static const char HINT_DICT[] =
	"This one looks easy to fix. YAML thought it was looking for the start of a\n"
	"hash/dictionary and was confused to see a second \"{\". Most likely this was\n"
	"meant to be an ansible template evaluation instead, so we have to give the\n"
	"parser a small hint that we wanted a string instead. The solution here is to\n"
	"just quote the entire value.\n"
	"\n"
	"For instance, if the original line was:\n"
	"\n"
	"    app_path: {{ base_path }}/foo\n"
	"\n"
	"It should be written as:\n"
	"\n"
	"    app_path: \"{{ base_path }}/foo\"\n";

static const char HINT_COLON[] =
	"This one looks easy to fix. There seems to be an extra unquoted colon in the line\n"
	"and this is confusing the parser. It was only expecting to find one free\n"
	"colon. The solution is just add some quotes around the colon, or quote the\n"
	"entire line after the first colon.\n"
	"\n"
	"For instance, if the original line was:\n"
	"\n"
	"    copy: src=file.txt dest=/path/filename:with_colon.txt\n"
	"\n"
	"It can be written as:\n"
	"\n"
	"    copy: src=file.txt dest='/path/filename:with_colon.txt'\n"
	"\n"
	"Or:\n"
	"\n"
	"    copy: 'src=file.txt dest=/path/filename:with_colon.txt'\n";

static const char HINT_PARTIAL_QUOTE[] =
	"This one looks easy to fix. It seems that there is a value started\n"
	"with a quote, and the YAML parser is expecting to see the line ended\n"
	"with the same kind of quote. For instance:\n"
	"\n"
	"    when: \"ok\" in result.stdout\n"
	"\n"
	"Could be written as:\n"
	"\n"
	"   when: '\"ok\" in result.stdout'\n"
	"\n"
	"Or equivalently:\n"
	"\n"
	"   when: \"'ok' in result.stdout\"\n";

static const char HINT_UNBALANCED[] =
	"We could be wrong, but this one looks like it might be an issue with\n"
	"unbalanced quotes. If starting a value with a quote, make sure the\n"
	"line ends with the same set of quotes. For instance this arbitrary\n"
	"example:\n"
	"\n"
	"    foo: \"bad\" \"wolf\"\n"
	"\n"
	"Could be written as:\n"
	"\n"
	"    foo: '\"bad\" \"wolf\"'\n";

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Python's \w on text: letters, digits, '_' (non-ASCII bytes counted as
 * letters, which is what they are in the recipes seen) */
static bool is_word(char c)
{
	unsigned char u = (unsigned char)c;
	return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
	       u == '_' || u >= 0x80;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_space(s[i]))
			return false;
	return true;
}

static size_t rstrip_len(const char *s, size_t n)
{
	while (n && is_space(s[n - 1]))
		n--;
	return n;
}

/* \w+\s*=\s*[\w/-]+ anywhere in s */
static bool has_kv(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '=')
			continue;
		size_t l = i;
		while (l && is_space(s[l - 1]))
			l--;
		if (!l || !is_word(s[l - 1]))
			continue;
		size_t r = i + 1;
		while (r < n && is_space(s[r]))
			r++;
		if (r < n && (is_word(s[r]) || s[r] == '/' || s[r] == '-'))
			return true;
	}
	return false;
}

static size_t count_ch(const char *s, size_t n, char c)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

/* the byte offset of character idx (UTF-8) in s, or n when past the end */
static size_t char_offset(const char *s, size_t n, long idx)
{
	size_t i = 0;
	for (long c = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xC0) == 0x80)
			continue;
		if (c++ == idx)
			return i;
	}
	return n;
}

static bool contains(const char *s, size_t n, const char *what)
{
	size_t w = strlen(what);
	for (size_t i = 0; i + w <= n; i++)
		if (!memcmp(s + i, what, w))
			return true;
	return false;
}

/* the hints of the target line t (with its newline), n bytes, col 1-based */
static void add_hints(struct strbuf *o, const char *t, size_t n, int col)
{
	if (memchr(t, '\t', n))
		strbuf_addstr(o, HINT_TAB);
	struct strbuf nospace = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		if (t[i] != ' ')
			strbuf_addch(&nospace, t[i]);
	size_t at = char_offset(t, n, col);
	if (contains(t, n, "{{") && contains(t, n, "}}") &&
	    (!contains(t, n, "\"{{") || !contains(t, n, "'{{")))
		strbuf_addstr(o, HINT_UNQUOTED_VAR);
	else if (contains(nospace.buf ? nospace.buf : "", nospace.len, ":{{") &&
		 contains(nospace.buf ? nospace.buf : "", nospace.len, "}}"))
		strbuf_addstr(o, HINT_DICT);
	else if (at < n && t[at] == ':' && count_ch(t, n, ':') > 1)
		strbuf_addstr(o, HINT_COLON);
	else {
		const char *c1 = memchr(t, ':', n);
		if (c1) {
			/* the text between the first and the second ':', stripped */
			const char *m = c1 + 1, *end = memchr(m, ':', n - (size_t)(m - t));
			size_t mn = end ? (size_t)(end - m) : n - (size_t)(m - t);
			while (mn && is_space(*m))
				m++, mn--;
			mn = rstrip_len(m, mn);
			bool partial = mn && (m[0] == '\'' || m[0] == '"') && m[mn - 1] != m[0];
			bool quoted = mn && (m[0] == '\'' || m[0] == '"') &&
				      (m[mn - 1] == '\'' || m[mn - 1] == '"');
			if (partial)
				strbuf_addstr(o, HINT_PARTIAL_QUOTE);
			if ((quoted && count_ch(t, n, '\'') > 2) || count_ch(t, n, '"') > 2)
				strbuf_addstr(o, HINT_UNBALANCED);
		}
	}
	strbuf_release(&nospace);
}

char *ansible_error_context(const char *file, int line, int col)
{
	struct strbuf o = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	char *real = file ? realpath(file, NULL) : NULL;
	const char *name = real ? real : file ? file : "<unknown>";
	if (!file || line < 1 || strbuf_read_file(&text, file) < 0) {
		strbuf_addf(&o, POSITION, name, line, col);
		strbuf_addstr(&o, "\n(could not open file to display line)");
		goto out;
	}
	/* the lines, each with its end (normalised to \n as Python's text mode
	 * reads them) */
	size_t nl = 0, cap = 64;
	const char **ls = xreallocarray(NULL, cap, sizeof(*ls));
	size_t *lens = xreallocarray(NULL, cap, sizeof(*lens));
	for (const char *p = strbuf_str(&text), *e = p + text.len; p < e;) {
		size_t k = 0;
		while (p + k < e && p[k] != '\n' && p[k] != '\r')
			k++;
		if (nl == cap) {
			cap *= 2;
			ls = xreallocarray(ls, cap, sizeof(*ls));
			lens = xreallocarray(lens, cap, sizeof(*lens));
		}
		ls[nl] = p;
		lens[nl++] = k;
		p += k;
		if (p < e && p[0] == '\r' && p + 1 < e && p[1] == '\n')
			p += 2;
		else if (p < e)
			p++;
	}
	strbuf_addf(&o, POSITION, name, line, col);
	if (!nl) {
		strbuf_addstr(&o, "\n(specified line no longer in file, maybe it changed?)");
		goto lines_out;
	}
	size_t i = (size_t)line - 1 < nl ? (size_t)line - 1 : nl - 1;
	while (i > 0 && blank(ls[i], lens[i]))
		i--;
	/* the target line with its "\n", as the hints look at it */
	struct strbuf tl = STRBUF_INIT;
	strbuf_add(&tl, ls[i], lens[i]);
	strbuf_addch(&tl, '\n');
	const char *prev = i > 0 ? ls[i - 1] : "";
	size_t pn = i > 0 ? lens[i - 1] : 0;
	if (has_kv(prev, pn)) {
		size_t eq = (size_t)((const char *)memchr(prev, '=', rstrip_len(prev, pn)) - prev);
		strbuf_reset(&o);
		strbuf_addf(&o, POSITION, name, line - 1, (int)eq + 1);
		strbuf_addf(&o, "\nThe offending line appears to be:\n\n%.*s\n%*s^ here\n\n",
			    (int)rstrip_len(prev, pn), prev, (int)eq, "");
		strbuf_addstr(&o, HINT_SHORTHAND);
	} else {
		strbuf_addf(&o, "\nThe offending line appears to be:\n\n%.*s\n%.*s\n%*s^ here\n",
			    (int)rstrip_len(prev, pn), prev, (int)rstrip_len(tl.buf, tl.len), tl.buf,
			    col > 1 ? col - 1 : 0, "");
	}
	add_hints(&o, tl.buf, tl.len, col);
	strbuf_release(&tl);
lines_out:
	free(ls);
	free(lens);
out:
	free(real);
	strbuf_release(&text);
	return strbuf_detach(&o);
}

char *ansible_task_error(const struct ptask *t, const char *msg)
{
	if (!t || !t->file || t->line < 1)
		return xstrdup(msg);
	char *ctx = ansible_error_context(t->file, t->line, t->col ? t->col : 1);
	char *r = xasprintf("%s\n\n%s", msg, ctx);
	free(ctx);
	return r;
}

/* whether s is one of the strings in v (a value, a list, a mapping) */
static bool among_strings(json_t *v, const char *s)
{
	if (json_is_string(v))
		return !strcmp(json_string_value(v), s);
	size_t i;
	const char *k;
	json_t *e;
	if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			if (among_strings(e, s))
				return true;
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, e)
			if (among_strings(e, s))
				return true;
	}
	return false;
}

char *ansible_undefined_in_args(const struct ptask *t, const char *msg)
{
	static const char pre[] = "AnsibleUndefinedVariable: ";
	if (!msg || strncmp(msg, pre, sizeof(pre) - 1))
		return NULL;
	const char *m = msg + sizeof(pre) - 1;
	/* the engine's "M (in 'TEXT', column N)": TEXT is the template that
	 * failed; one the task does not hold itself is a variable's value,
	 * templated when the variable was used, which Ansible names first */
	const char *in = NULL;
	for (const char *p = strstr(m, " (in '"); p; p = strstr(p + 1, " (in '"))
		in = p;
	const char *end = in ? strstr(in, "', column ") : NULL;
	char *inner;
	if (!in || !end || m[strlen(m) - 1] != ')')
		inner = xstrdup(m);
	else {
		char *text = xstrndup(in + 6, (size_t)(end - (in + 6)));
		int mn = (int)(in - m);
		if (strstr(text, "...") || among_strings(t ? t->args : NULL, text))
			inner = xasprintf("%.*s", mn, m);
		else
			inner = xasprintf("%s: %.*s. %.*s", text, mn, m, mn, m);
		free(text);
	}
	char *e = xasprintf("The task includes an option with an undefined variable. The error was: "
			    "%s. %s", inner, inner);
	free(inner);
	char *r = ansible_task_error(t, e);
	free(e);
	return r;
}
