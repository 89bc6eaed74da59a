/* regex.c: regular expressions with Python `re` semantics on top of PCRE2,
 * for the regex filters (filters-regex.c), the match/search/regex tests
 * (tests.c) and to_datetime's parser (filters-datetime.c). Patterns are
 * compiled once and kept in a small cache, because recipes evaluate the
 * same `when: x is search('...')` on every host and loop item. The cache
 * is per thread: a full one is emptied, codes and all, which is safe only
 * because no other thread can be using them (and no caller keeps a code
 * across another regex_get); a thread's cache goes with the thread. */
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

struct rx_cache {
	struct rx_entry *slot[CACHE_SLOTS];
	size_t count;
};

static pthread_key_t rx_key;
static pthread_once_t rx_once = PTHREAD_ONCE_INIT;
/* the key finds the cache for its destructor; this, faster, for lookups */
static __thread struct rx_cache *rx_tl;

static void rx_clear(struct rx_cache *c)
{
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		struct rx_entry *e = c->slot[i];
		while (e) {
			struct rx_entry *nx = e->next;
			free(e->pat);
			pcre2_code_free(e->code);
			free(e);
			e = nx;
		}
		c->slot[i] = NULL;
	}
	c->count = 0;
}

static void rx_cache_free(void *p)
{
	rx_clear(p);
	free(p);
}

static void rx_key_make(void)
{
	if (pthread_key_create(&rx_key, rx_cache_free) != 0)
		abort(); /* out of keys: a build error, not a run-time state */
}

/* This thread's cache, made at its first use. */
static struct rx_cache *rx_mine(void)
{
	if (!rx_tl) {
		pthread_once(&rx_once, rx_key_make);
		rx_tl = xcalloc(1, sizeof(*rx_tl));
		pthread_setspecific(rx_key, rx_tl);
	}
	return rx_tl;
}

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
	struct rx_cache *c = rx_mine();
	unsigned h = hash_str(pat, flags) % CACHE_SLOTS;
	for (struct rx_entry *e = c->slot[h]; e; e = e->next)
		if (e->flags == flags && !strcmp(e->pat, pat))
			return e->code;
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
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)tp, PCRE2_ZERO_TERMINATED, opts, &err, &off, NULL);
	free(tp);
	if (!code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof(msg));
		ev_error(ev, TMPL_ERR_TYPE, pos, "invalid regular expression '%s': %s at position %zu", pat, (char *)msg, (size_t)off);
		return NULL;
	}
	if (c->count >= 1024)
		rx_clear(c);
	struct rx_entry *e = xcalloc(1, sizeof(*e));
	e->pat = xstrdup(pat);
	e->flags = flags;
	e->code = code;
	e->next = c->slot[h];
	c->slot[h] = e;
	c->count++;
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
