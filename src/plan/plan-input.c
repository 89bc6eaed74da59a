/* plan-input.c: IM's @input.KEY@ placeholders (the client replaces them
 * before parsing, asking the user for each) and -e KEY=VALUE extra
 * variables, which both fill the placeholders and reach recipes with the
 * highest precedence. Without a terminal a missing value is an error at the
 * placeholder, never a silent empty string. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

int plan_parse_extra_var(json_t **vars, const char *arg, struct diag *d)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "-e wants KEY=VALUE, not '%s'", arg);
		return -1;
	}
	if (!*vars)
		*vars = json_object();
	char *key = xstrndup(arg, (size_t)(eq - arg));
	json_object_set_new(*vars, key, json_string(eq + 1));
	free(key);
	return 0;
}

static char *ask(const char *key)
{
	fprintf(stderr, "Enter value for input '%s': ", key);
	fflush(stderr);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, stdin);
	if (n < 0) {
		free(line);
		return NULL;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	return line;
}

char *plan_substitute_inputs(const char *file, const char *text, json_t *vars, bool interactive,
			     struct diag *d)
{
	static const char tag[] = "@input.";
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "");
	int line = 1, col = 1;
	bool bad = false;
	const char *p = text;
	while (*p) {
		if (strncmp(p, tag, sizeof(tag) - 1) == 0) {
			const char *k = p + sizeof(tag) - 1, *e = k;
			while (isalnum((unsigned char)*e) || *e == '_' || *e == '-' || *e == '.')
				e++;
			if (*e == '@' && e > k) {
				char *key = xstrndup(k, (size_t)(e - k));
				const char *val = json_string_value(json_object_get(vars, key));
				char *asked = NULL;
				if (!val && interactive && isatty(STDIN_FILENO)) {
					asked = ask(key);
					if (asked)
						json_object_set_new(vars, key, json_string(asked));
					val = asked;
				}
				if (!val) {
					struct src_loc loc = { file, line, col };
					diag_error(d, IMC_EXIT_DATAERR, &loc,
						   "no value for '@input.%s@': give it with -e %s=VALUE", key, key);
					bad = true;
				} else
					strbuf_addstr(&sb, val);
				free(asked);
				free(key);
				col += (int)(e + 1 - p);
				p = e + 1;
				continue;
			}
		}
		if (*p == '\n') {
			line++;
			col = 1;
		} else
			col++;
		strbuf_addch(&sb, *p++);
	}
	if (bad) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}
