/* regex.c: regular expressions with Python `re` semantics on top of PCRE2,
 * for the regex filters (filters-regex.c), the match/search/regex tests
 * (tests.c) and to_datetime's parser (filters-datetime.c). Patterns are
 * compiled once and kept in a small mutex-protected cache, because recipes
 * evaluate the same `when: x is search('...')` on every host and loop
 * item. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "template/engine.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define CACHE_SLOTS 256

struct rx_entry {
	char *pat;
	int flags;
	pcre2_code *code;
	struct rx_entry *next;
};

static pthread_mutex_t rx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rx_entry *rx_cache[CACHE_SLOTS];
static size_t rx_count;

static unsigned hash_str(const char *s, int flags)
{
	unsigned h = 2166136261u ^ (unsigned)flags;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Python re syntax -> PCRE2: \Z is \z; the rest is shared. */
static char *translate(const char *pat)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = pat; *p; p++) {
		if (p[0] == '\\' && p[1]) {
			if (p[1] == 'Z')
				strbuf_addstr(&sb, "\\z");
			else {
				strbuf_addch(&sb, p[0]);
				strbuf_addch(&sb, p[1]);
			}
			p++;
			continue;
		}
		strbuf_addch(&sb, *p);
	}
	return strbuf_detach(&sb);
}

char *regex_error(const char *pat)
{
	int err;
	PCRE2_SIZE off;
	char *tp = translate(pat);
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)tp, PCRE2_ZERO_TERMINATED,
					 PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &err, &off, NULL);
	free(tp);
	if (code) {
		pcre2_code_free(code);
		return NULL;
	}
	/* PCRE2 reports a quantifier with nothing before it after the
	 * quantifier; Python's re at it, in its own words */
	if (err == PCRE2_ERROR_QUANTIFIER_INVALID)
		return xasprintf("nothing to repeat at position %zu", (size_t)(off ? off - 1 : 0));
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(err, msg, sizeof(msg));
	return xasprintf("%s at position %zu", (char *)msg, (size_t)off);
}

const pcre2_code *regex_get(struct ev *ev, const char *pat, int flags, size_t pos)
{
	unsigned h = hash_str(pat, flags) % CACHE_SLOTS;
	pcre2_code *code = NULL;
	pthread_mutex_lock(&rx_lock);
	for (struct rx_entry *e = rx_cache[h]; e; e = e->next)
		if (e->flags == flags && !strcmp(e->pat, pat)) {
			code = e->code;
			break;
		}
	pthread_mutex_unlock(&rx_lock);
	if (code)
		return code;
	uint32_t opts = PCRE2_UTF | PCRE2_UCP;
	/* flag 4: for subjects known to be valid UTF-8, matched with
	 * PCRE2_NO_UTF_CHECK (see loop_code) */
	if (!(flags & 4))
		opts |= PCRE2_MATCH_INVALID_UTF;
	if (flags & 1)
		opts |= PCRE2_CASELESS;
	if (flags & 2)
		opts |= PCRE2_MULTILINE;
	int err;
	PCRE2_SIZE off;
	char *tp = translate(pat);
	code = pcre2_compile((PCRE2_SPTR)tp, PCRE2_ZERO_TERMINATED, opts, &err, &off, NULL);
	free(tp);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof(msg));
		ev_error(ev, TMPL_ERR_TYPE, pos, "invalid regular expression '%s': %s at position %zu", pat, (char *)msg, (size_t)off);
		return NULL;
	}
	pthread_mutex_lock(&rx_lock);
	if (rx_count >= 1024) {
		/* Full: drop everything. Codes handed out earlier stay valid
		 * because they are never freed (a bounded leak by design). */
		for (size_t i = 0; i < CACHE_SLOTS; i++) {
			struct rx_entry *e = rx_cache[i];
			while (e) {
				struct rx_entry *nx = e->next;
				free(e->pat);
				/* e->code intentionally kept: another thread may use it */
				free(e);
				e = nx;
			}
			rx_cache[i] = NULL;
		}
		rx_count = 0;
	}
	struct rx_entry *e = xcalloc(1, sizeof(*e));
	e->pat = xstrdup(pat);
	e->flags = flags;
	e->code = code;
	e->next = rx_cache[h];
	rx_cache[h] = e;
	rx_count++;
	pthread_mutex_unlock(&rx_lock);
	return code;
}

int regex_search(struct ev *ev, const char *pat, int flags, const char *subj, size_t slen, bool anchored, size_t pos)
{
	const pcre2_code *code = regex_get(ev, pat, flags, pos);
	if (!code)
		return -1;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
	int rc = pcre2_match(code, (PCRE2_SPTR)subj, slen, 0, anchored ? PCRE2_ANCHORED : 0, md, NULL);
	pcre2_match_data_free(md);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(rc, msg, sizeof(msg));
		ev_error(ev, TMPL_ERR_TYPE, pos, "regular expression '%s' failed: %s", pat, (char *)msg);
		return -1;
	}
	return 1;
}
