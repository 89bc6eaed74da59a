/* path.c: os.path.normpath (see path.h). Lexical only: no symbolic link is
 * resolved and nothing is read from any file system, so the result is the
 * same on the controller and on the node. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *path_normpath(const char *p)
{
	if (!*p)
		return xstrdup(".");
	int lead = p[0] == '/' ? (p[1] == '/' && p[2] != '/' ? 2 : 1) : 0;
	char **parts = NULL;
	size_t n = 0;
	char *dup = xstrdup(p);
	char *save = NULL;
	for (char *s = strtok_r(dup, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (!strcmp(s, "."))
			continue;
		if (!strcmp(s, "..")) {
			/* under the root ".." is the root; in a relative path it
			 * folds only a name, never another ".." */
			if (lead) {
				if (n)
					n--;
				continue;
			}
			if (n && strcmp(parts[n - 1], "..")) {
				n--;
				continue;
			}
		}
		parts = xrealloc(parts, (n + 1) * sizeof(*parts));
		parts[n++] = s;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, lead == 2 ? "//" : lead ? "/" : "");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? "/" : "", parts[i]);
	if (!sb.len)
		strbuf_addch(&sb, '.');
	free(parts);
	free(dup);
	return strbuf_detach(&sb);
}
