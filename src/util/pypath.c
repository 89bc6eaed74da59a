/* pypath.c: see pypath.h. Written from Python's posixpath documentation
 * and behaviour: _varprog is r'\$(\w+|\{[^}]*\})' under re.ASCII, a match
 * whose variable is unset is skipped and the search goes on after it, a
 * replaced value is not searched again. */
#include "config.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/pypath.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

char *pypath_expandvars(const char *s, pypath_env_fn env, void *ud)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = s;
	while (*p) {
		const char *dollar = strchr(p, '$');
		if (!dollar) {
			strbuf_addstr(&out, p);
			break;
		}
		strbuf_add(&out, p, (size_t)(dollar - p));
		const char *name = dollar + 1, *end;
		size_t len;
		if (*name == '{') {
			end = strchr(name, '}');
			/* no closing brace: not a match, the '$' is text */
			if (!end) {
				strbuf_addch(&out, '$');
				p = dollar + 1;
				continue;
			}
			name++;
			len = (size_t)(end - name);
			end++;
		} else {
			for (end = name; is_word(*end); end++)
				;
			len = (size_t)(end - name);
			if (!len) {
				strbuf_addch(&out, '$');
				p = dollar + 1;
				continue;
			}
		}
		char *n = xstrndup(name, len);
		const char *v = env(ud, n);
		free(n);
		if (v)
			strbuf_addstr(&out, v);
		else
			strbuf_add(&out, dollar, (size_t)(end - dollar));
		p = end;
	}
	return strbuf_detach(&out);
}

char *pypath_expanduser(const char *s, pypath_home_fn home, void *ud)
{
	if (s[0] != '~')
		return xstrdup(s);
	const char *slash = strchr(s + 1, '/');
	size_t ulen = slash ? (size_t)(slash - s - 1) : strlen(s + 1);
	char *user = ulen ? xstrndup(s + 1, ulen) : NULL;
	const char *h = home(ud, user);
	free(user);
	if (!h)
		return xstrdup(s);
	size_t hlen = strlen(h);
	while (hlen && h[hlen - 1] == '/')
		hlen--;
	const char *rest = s + 1 + ulen;
	if (!hlen && !*rest)
		return xstrdup("/");
	return xasprintf("%.*s%s", (int)hlen, h, rest);
}

bool pypath_may_expand(const char *s)
{
	return s[0] == '~' || strchr(s, '$');
}

static const char *local_env(void *ud, const char *name)
{
	(void)ud;
	return getenv(name);
}

/* getpwnam_r's entry and strings, per call (hosts run in threads) */
struct local_pw {
	struct passwd pw;
	char buf[4096];
};

static const char *local_home(void *ud, const char *user)
{
	struct local_pw *l = ud;
	if (!user && getenv("HOME"))
		return getenv("HOME");
	struct passwd *found = NULL;
	if (user)
		getpwnam_r(user, &l->pw, l->buf, sizeof(l->buf), &found);
	else
		getpwuid_r(getuid(), &l->pw, l->buf, sizeof(l->buf), &found);
	return found ? found->pw_dir : NULL;
}

char *pypath_expandvars_local(const char *s)
{
	return pypath_expandvars(s, local_env, NULL);
}

char *pypath_expand_local(const char *s)
{
	char *v = pypath_expandvars_local(s);
	struct local_pw l;
	char *u = pypath_expanduser(v, local_home, &l);
	free(v);
	return u;
}
