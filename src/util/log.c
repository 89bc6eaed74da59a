/* log.c: leveled stderr logging and secret redaction (see log.h). */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const level_names[] = { "error", "warn", "info", "debug", "trace" };

static enum log_level default_level = LOG_WARN;

/* Per-module overrides from IMC_LOG ("cloud=trace,ssh=debug"). */
#define MAX_MODULE_RULES 16
static struct { char name[32]; enum log_level level; } rules[MAX_MODULE_RULES];
static int nrules;

static pthread_mutex_t secret_lock = PTHREAD_MUTEX_INITIALIZER;
static char **secrets;
static size_t *lens;   /* strlen(secrets[i]), which redact() needs at every byte */
static unsigned *refs; /* registrations of secrets[i] not yet released */
static int nsecrets;
/* The registrations of this thread since secret_scope_begin. */
static __thread bool scope_open;
static __thread char **scope;
static __thread size_t nscope;

static int parse_level(const char *s, size_t n, enum log_level *out)
{
	for (int i = 0; i <= LOG_TRACE; i++)
		if (strlen(level_names[i]) == n && strncasecmp(s, level_names[i], n) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	return -1;
}

void log_init(int verbose)
{
	if (verbose >= 2)
		default_level = LOG_DEBUG;
	else if (verbose == 1)
		default_level = LOG_INFO;
	const char *env = getenv("IMC_LOG");
	if (!env)
		return;
	const char *p = env;
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		enum log_level lv;
		if (!eq) {
			if (parse_level(p, n, &lv) == 0)
				default_level = lv;
			else if (nrules < MAX_MODULE_RULES && n < sizeof(rules[0].name)) {
				/* a bare module name means "debug for that module" */
				memcpy(rules[nrules].name, p, n);
				rules[nrules].name[n] = '\0';
				rules[nrules++].level = LOG_DEBUG;
			}
		} else if (nrules < MAX_MODULE_RULES && (size_t)(eq - p) < sizeof(rules[0].name) &&
			   parse_level(eq + 1, n - (size_t)(eq - p) - 1, &lv) == 0) {
			memcpy(rules[nrules].name, p, (size_t)(eq - p));
			rules[nrules].name[eq - p] = '\0';
			rules[nrules++].level = lv;
		}
		p += n;
		if (*p == ',')
			p++;
	}
}

void log_set_level(enum log_level level)
{
	default_level = level;
}

bool log_enabled(enum log_level level, const char *module)
{
	for (int i = 0; module && i < nrules; i++)
		if (strcmp(rules[i].name, module) == 0)
			return level <= rules[i].level;
	return level <= default_level;
}

void log_vmsg(enum log_level level, const char *module, const char *fmt, va_list ap)
{
	if (!log_enabled(level, module))
		return;
	struct strbuf sb = STRBUF_INIT;
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strbuf_addf(&sb, "%02d:%02d:%02d.%03ld %s[%ld] %s %s: ", tm.tm_hour, tm.tm_min,
		    tm.tm_sec, ts.tv_nsec / 1000000, diag_program(), (long)getpid(), level_names[level],
		    module ? module : "-");
	strbuf_vaddf(&sb, fmt, ap);
	if (sb.len == 0 || sb.buf[sb.len - 1] != '\n')
		strbuf_addch(&sb, '\n');
	char *safe = redact(sb.buf);
	fputs(safe, stderr);
	free(safe);
	strbuf_release(&sb);
}

void log_msg(enum log_level level, const char *module, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, module, fmt, ap);
	va_end(ap);
}

/* Adds one secret (n bytes of s), or counts one more registration of it;
 * with a scope open in this thread, the scope remembers it. Under
 * secret_lock. */
static void add_secret(const char *s, size_t n)
{
	int i;
	for (i = 0; i < nsecrets; i++)
		if (lens[i] == n && strncmp(secrets[i], s, n) == 0)
			break;
	if (i == nsecrets) {
		secrets = xreallocarray(secrets, (size_t)nsecrets + 1, sizeof(*secrets));
		lens = xreallocarray(lens, (size_t)nsecrets + 1, sizeof(*lens));
		refs = xreallocarray(refs, (size_t)nsecrets + 1, sizeof(*refs));
		secrets[nsecrets] = xstrndup(s, n);
		lens[nsecrets] = strlen(secrets[nsecrets]);
		refs[nsecrets++] = 0;
	}
	refs[i]++;
	if (scope_open) {
		scope = xreallocarray(scope, nscope + 1, sizeof(*scope));
		scope[nscope++] = xstrndup(s, n);
	}
}

void secret_register(const char *secret)
{
	if (!secret || strlen(secret) < 4)
		return;
	pthread_mutex_lock(&secret_lock);
	add_secret(secret, strlen(secret));
	/* A multi-line secret (a PEM key) is also masked line by line, because
	 * log lines and excerpts show one line at a time. */
	if (strchr(secret, '\n')) {
		const char *p = secret;
		while (*p) {
			size_t n = strcspn(p, "\r\n");
			if (n >= 16)
				add_secret(p, n);
			p += n;
			while (*p == '\r' || *p == '\n')
				p++;
		}
	}
	pthread_mutex_unlock(&secret_lock);
}

void secret_scope_begin(void)
{
	scope_open = true;
}

void secret_scope_end(void)
{
	pthread_mutex_lock(&secret_lock);
	for (size_t k = 0; k < nscope; k++) {
		for (int i = 0; i < nsecrets; i++) {
			if (strcmp(secrets[i], scope[k]) != 0)
				continue;
			if (--refs[i] == 0) {
				free(secrets[i]);
				secrets[i] = secrets[nsecrets - 1];
				lens[i] = lens[nsecrets - 1];
				refs[i] = refs[nsecrets - 1];
				nsecrets--;
			}
			break;
		}
		free(scope[k]);
	}
	pthread_mutex_unlock(&secret_lock);
	free(scope);
	scope = NULL;
	nscope = 0;
	scope_open = false;
}

int secret_count(void)
{
	pthread_mutex_lock(&secret_lock);
	int n = nsecrets;
	pthread_mutex_unlock(&secret_lock);
	return n;
}

void secret_forget_all(void)
{
	pthread_mutex_lock(&secret_lock);
	for (int i = 0; i < nsecrets; i++)
		free(secrets[i]);
	free(secrets);
	free(lens);
	free(refs);
	secrets = NULL;
	lens = NULL;
	refs = NULL;
	nsecrets = 0;
	pthread_mutex_unlock(&secret_lock);
}

/* The first two bytes at s (s[0] not NUL) as one number. */
#define REDACT_PAIR(s) ((unsigned)(unsigned char)(s)[0] << 8 | (unsigned char)(s)[1])

char *redact(const char *s)
{
	if (!s)
		return xstrdup("");
	struct strbuf sb = STRBUF_INIT;
	pthread_mutex_lock(&secret_lock);
	/* Where a secret can start: the pairs of bytes secrets start with (a
	 * secret has at least 4), as a bit set, and the secrets grouped by
	 * their first byte (in order, so that the first of two equally long
	 * ones still wins). Text between two such places is copied whole, and
	 * a place is compared only with the secrets of its first byte: a
	 * diagnostic of an auth file with hundreds of secrets took seconds. */
	uint64_t pairs[65536 / 64] = { 0 };
	int first[257] = { 0 }, next[256];
	int *by_first = xreallocarray(NULL, nsecrets > 0 ? (size_t)nsecrets : 1, sizeof(*by_first));
	for (int i = 0; i < nsecrets; i++) {
		unsigned pr = REDACT_PAIR(secrets[i]);
		pairs[pr / 64] |= 1ULL << (pr % 64);
		first[(unsigned char)secrets[i][0] + 1]++;
	}
	for (int c = 0; c < 256; c++)
		first[c + 1] += first[c];
	memcpy(next, first, sizeof(next));
	for (int i = 0; i < nsecrets; i++)
		by_first[next[(unsigned char)secrets[i][0]]++] = i;
	const char *p = s;
	while (*p) {
		const char *q = p;
		while (*q && !(pairs[REDACT_PAIR(q) / 64] >> (REDACT_PAIR(q) % 64) & 1))
			q++;
		strbuf_add(&sb, p, (size_t)(q - p));
		p = q;
		if (!*p)
			break;
		int hit = -1;
		size_t hitlen = 0;
		/* longest secret starting here wins, so a secret that contains
		 * another is masked whole */
		unsigned char c = (unsigned char)*p;
		for (int k = first[c]; k < first[c + 1]; k++) {
			int i = by_first[k];
			size_t n = lens[i];
			if (n > hitlen && secrets[i][1] == p[1] && strncmp(p, secrets[i], n) == 0) {
				hit = i;
				hitlen = n;
			}
		}
		if (hit >= 0) {
			strbuf_addstr(&sb, "***");
			p += hitlen;
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	pthread_mutex_unlock(&secret_lock);
	free(by_first);
	return strbuf_detach(&sb);
}
