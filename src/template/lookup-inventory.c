/* lookup-inventory.c: the inventory_hostnames lookup — the names of the
 * hosts a host pattern selects, as Ansible's plugin finds them: from the
 * `groups` variable alone (an inventory rebuilt from it, every group flat,
 * so a group's hosts are its list in `groups` and the hosts' order is that
 * of groups.all), the pattern evaluated as InventoryManager.get_hosts does.
 *
 * A pattern is split on commas, else (unless it is one address: host:port
 * or IPv6) on colons outside brackets; the plain words come first, then the
 * &intersections, then the !exclusions ("all" when there is no plain
 * word). A word is a host's name, or names groups (their hosts) and, when
 * it is a glob or matches no group, hosts: a glob (fnmatch) or, after '~',
 * a Python regex matched at the start of the name; NAME[i] and NAME[i:j]
 * (inclusive, j empty = the last) pick from its hosts. localhost,
 * 127.0.0.1 and ::1 match themselves when nothing else does (Ansible's
 * implicit localhost). Any pattern error (a regex that does not compile,
 * an index past a word's hosts) gives [], as the plugin's own except
 * clause does. */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* the pattern's words, in Ansible's split_host_pattern */
static json_t *split_pattern(const char *p)
{
	json_t *words = json_array();
	const char *sep = strchr(p, ',') ? "," : NULL;
	/* one address: host:port or an IPv6 address, never a list */
	size_t ncolon = 0;
	for (const char *c = p; *c; c++)
		ncolon += *c == ':';
	const char *colon = strchr(p, ':');
	bool port = ncolon == 1 && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
		    strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == (size_t)(colon - p) &&
		    colon > p;
	bool ipv6 = ncolon >= 2 && strspn(p, "0123456789abcdefABCDEF:.") == strlen(p);
	if (!sep && (port || ipv6 || !ncolon)) {
		json_array_append_new(words, json_string(p));
	} else {
		size_t n = strlen(p), i = 0;
		while (i < n) {
			/* a word: characters other than whitespace, the separator
			 * and brackets, or whole bracketed expressions */
			size_t j = i;
			for (;;) {
				if (p[j] == '[') {
					const char *close = strchr(p + j, ']');
					if (!close)
						break;
					j = (size_t)(close - p) + 1;
				} else if (p[j] && p[j] != ']' && !strchr(sep ? "," : ": \t\n\r\f\v", p[j]) &&
					   (sep || !strchr(" \t\n\r\f\v", p[j]))) {
					j++;
				} else {
					break;
				}
			}
			if (j > i) {
				/* strip, as Ansible strips each word */
				size_t a = i, b = j;
				while (a < b && strchr(" \t\n\r\f\v", p[a]))
					a++;
				while (b > a && strchr(" \t\n\r\f\v", p[b - 1]))
					b--;
				if (b > a)
					json_array_append_new(words, json_stringn(p + a, b - a));
				i = j;
			} else {
				i++;
			}
		}
	}
	return words;
}

/* a name against one word: glob, or '~' regex matched at the start;
 * 1, 0, or -1 for a regex that does not compile */
static int name_matches(struct ev *ev, const char *word, const char *name, size_t pos)
{
	if (word[0] == '~')
		return regex_search(ev, word + 1, 0, name, strlen(name), true, pos);
	return fnmatch(word, name, FNM_NOESCAPE) == 0;
}

static void add_unique(json_t *list, json_t *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e)
		if (json_equal(e, name))
			return;
	json_array_append(list, name);
}

static bool is_localhost(const char *s)
{
	return !strcmp(s, "localhost") || !strcmp(s, "127.0.0.1") || !strcmp(s, "::1");
}

/* _enumerate_matches: the hosts one word (subscript aside) names; NULL
 * when a regex does not compile */
static json_t *enumerate(struct ev *ev, json_t *groups, json_t *all, const char *word, size_t pos)
{
	if (word[0] == '~') {
		char *why = regex_error(word + 1);
		if (why) {
			free(why);
			return NULL;
		}
	}
	json_t *out = json_array();
	bool group_matched = false;
	const char *g;
	json_t *members;
	json_object_foreach(groups, g, members) {
		if (name_matches(ev, word, g, pos) != 1)
			continue;
		group_matched = true;
		size_t i;
		json_t *h;
		json_array_foreach(members, i, h)
			if (json_is_string(h))
				add_unique(out, h);
	}
	if (!group_matched || word[0] == '~' || strpbrk(word, ".?*[")) {
		size_t i;
		json_t *h;
		json_array_foreach(all, i, h)
			if (json_is_string(h) && name_matches(ev, word, json_string_value(h), pos) == 1)
				json_array_append(out, h);
	}
	if (!json_array_size(out) && is_localhost(word))
		json_array_append_new(out, json_string(word));
	return out;
}

/* digits at s (a '-' first when sign): their end, or NULL when none */
static const char *digits(const char *s, bool sign)
{
	const char *d = sign && *s == '-' ? s + 1 : s;
	size_t n = strspn(d, "0123456789");
	return n ? d + n : NULL;
}

/* NAME[i] or NAME[i:j] / NAME[i-j] (Ansible's pattern_with_subscript:
 * i may be negative alone, j empty means the last): the word without it
 * in *expr, and the subscript; false when there is none */
static bool split_subscript(const char *word, char **expr, long *start, long *end, bool *range)
{
	size_t n = strlen(word);
	const char *open = strrchr(word, '[');
	if (word[0] == '~' || !n || word[n - 1] != ']' || !open || open == word)
		return false;
	const char *s = open + 1, *last = word + n - 1;
	const char *e = digits(s, true);
	if (e == last) {
		*range = false;
	} else if ((e = digits(s, false)) && (*e == ':' || *e == '-') &&
		   (e + 1 == last || digits(e + 1, false) == last)) {
		*range = true;
		*end = e + 1 == last ? -1 : strtol(e + 1, NULL, 10);
	} else {
		return false;
	}
	*start = strtol(s, NULL, 10);
	*expr = xstrndup(word, (size_t)(open - word));
	return true;
}

/* _match_one_pattern: a word's hosts, its subscript applied; NULL for a
 * bad regex or an index past the hosts */
static json_t *match_one(struct ev *ev, json_t *groups, json_t *all, const char *word, size_t pos)
{
	char *expr = NULL;
	long a = 0, b = 0;
	bool range = false;
	bool sub = split_subscript(word, &expr, &a, &b, &range);
	json_t *hosts = enumerate(ev, groups, all, sub ? expr : word, pos);
	free(expr);
	if (!hosts || !sub)
		return hosts;
	long n = (long)json_array_size(hosts);
	json_t *out = json_array();
	if (range && b != 0) {
		/* Python's hosts[a:b + 1], b = -1 meaning the last */
		if (b == -1)
			b = n - 1;
		for (long i = a; i <= b && i < n; i++)
			json_array_append(out, json_array_get(hosts, (size_t)i));
	} else {
		long i = a < 0 ? n + a : a;
		if (i < 0 || i >= n) {
			json_decref(out);
			json_decref(hosts);
			return NULL;
		}
		json_array_append(out, json_array_get(hosts, (size_t)i));
	}
	json_decref(hosts);
	return out;
}

static bool contains(json_t *list, json_t *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e)
		if (json_equal(e, name))
			return true;
	return false;
}

LOOKUP_FN(inventory_hostnames)
{
	(void)kw;
	json_t *groups = ev_lookup_name(ev, "groups", pos);
	if (!groups && ev->failed)
		return NULL;
	if (!json_is_object(groups)) {
		json_decref(groups);
		groups = json_object();
	}
	json_t *all = json_object_get(groups, "all");
	all = json_is_array(all) ? json_incref(all) : json_array();
	json_t *words = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(terms, i, t) {
		char *s = val_to_cstr(t);
		json_t *w = split_pattern(s);
		json_array_extend(words, w);
		json_decref(w);
		free(s);
	}
	/* plain words, then &intersections, then !exclusions */
	json_t *ordered = json_array();
	for (int pass = 0; pass < 3; pass++)
		json_array_foreach(words, i, t) {
			const char *w = json_string_value(t);
			int kind = w[0] == '&' ? 1 : w[0] == '!' ? 2 : 0;
			if (kind == pass)
				json_array_append(ordered, t);
		}
	bool plain = false;
	json_array_foreach(ordered, i, t)
		plain = plain || !strchr("&!", json_string_value(t)[0]);
	if (!plain)
		json_array_insert_new(ordered, 0, json_string("all"));
	json_t *hosts = json_array();
	bool bad = false;
	json_array_foreach(ordered, i, t) {
		const char *w = json_string_value(t);
		json_t *named = json_string(w);
		bool is_host = contains(all, named);
		json_decref(named);
		if (is_host) {
			json_array_append(hosts, t);
			continue;
		}
		bool op = w[0] == '&' || w[0] == '!';
		json_t *that = match_one(ev, groups, all, op ? w + 1 : w, pos);
		if (!that) {
			bad = true;
			break;
		}
		json_t *next = json_array();
		size_t k;
		json_t *h;
		if (w[0] == '!' || w[0] == '&') {
			json_array_foreach(hosts, k, h)
				if (contains(that, h) == (w[0] == '&'))
					json_array_append(next, h);
		} else {
			json_array_extend(next, hosts);
			json_array_foreach(that, k, h)
				if (!contains(hosts, h))
					json_array_append(next, h);
		}
		json_decref(that);
		json_decref(hosts);
		hosts = next;
	}
	json_decref(ordered);
	json_decref(words);
	json_decref(all);
	json_decref(groups);
	json_t *out = json_array();
	if (!bad)
		json_array_foreach(hosts, i, t)
			add_unique(out, t);
	json_decref(hosts);
	return out;
}
