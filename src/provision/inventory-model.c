/* inventory-model.c: the inventory model the -i sources build
 * (inventory.h), with the operations of Ansible's InventoryData the
 * parsers share: groups, hosts and their ports, child groups (a cycle is
 * refused, as Ansible refuses it), and the expansion of a host pattern's
 * ranges ("web[01:03]", "db-[a:c]", "[1:9:2]") and ":port", as Ansible's
 * expand_hostname_range and parse_address read them; and the groups
 * object a run is given, with hosts in Ansible's order. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "provision/inventory.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* No inventory range expands to more hosts than this (a typo such as
 * [0:99999999] would otherwise exhaust memory). The fuzz build's cap is
 * smaller: 10^5 hosts take about a minute under ASan, which libFuzzer
 * would count as a hang, and with 2,000 the inputs that reach the cap made
 * fuzz-inventory 2.6 times slower in CPU (30,000 runs from its corpus: 13 s
 * against 5 s at 200) while reaching no code 200 does not. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define MAX_RANGE_HOSTS 200
#else
#define MAX_RANGE_HOSTS 100000
#endif

void inv_model_init(struct inv_model *m)
{
	m->hosts = json_object();
	m->groups = json_object();
	m->dirs = json_array();
	m->warnings = json_array();
	m->members = json_object();
	inv_add_group(m, "all");
	inv_add_group(m, "ungrouped");
	json_array_append_new(json_object_get(json_object_get(m->groups, "all"), "children"),
			      json_string("ungrouped"));
}

void inv_model_release(struct inv_model *m)
{
	json_decref(m->hosts);
	json_decref(m->groups);
	json_decref(m->dirs);
	json_decref(m->warnings);
	json_decref(m->members);
	m->hosts = m->groups = m->dirs = m->warnings = m->members = NULL;
}

static bool has_str(json_t *arr, const char *s)
{
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
		if (!strcmp(json_string_value(e), s))
			return true;
	return false;
}

json_t *inv_add_group(struct inv_model *m, const char *name)
{
	json_t *g = json_object_get(m->groups, name);
	if (!g) {
		g = json_pack("{s:[], s:[], s:{}}", "hosts", "children", "vars");
		json_object_set_new(m->groups, name, g);
	}
	return g;
}

void inv_add_host(struct inv_model *m, const char *host, const char *group, int port)
{
	json_t *h = json_object_get(m->hosts, host);
	if (!h) {
		h = json_object();
		json_object_set_new(m->hosts, host, h);
	}
	if (port >= 0)
		json_object_set_new(h, "ansible_port", json_integer(port));
	if (group) {
		json_t *members = json_object_get(inv_add_group(m, group), "hosts");
		json_t *set = json_object_get(m->members, group);
		if (!set) {
			set = json_object();
			json_object_set_new(m->members, group, set);
		}
		if (!json_object_get(set, host)) {
			json_object_set_new(set, host, json_true());
			json_array_append_new(members, json_string(host));
		}
	}
}

/* Whether target is group or one of its descendants; seen holds the
 * groups already walked, so that a group reached by many paths is walked
 * once (the paths through shared children can be exponentially many). */
static bool descends(struct inv_model *m, const char *group, const char *target, json_t *seen,
		     int depth)
{
	if (!strcmp(group, target))
		return true;
	if (depth > 256)
		return true;
	if (json_object_get(seen, group))
		return false;
	json_object_set_new(seen, group, json_true());
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(json_object_get(m->groups, group), "children"), i, c)
		if (descends(m, json_string_value(c), target, seen, depth + 1))
			return true;
	return false;
}

int inv_add_child(struct inv_model *m, const char *parent, const char *child,
		  const struct src_loc *loc, struct diag *d)
{
	inv_add_group(m, parent);
	inv_add_group(m, child);
	json_t *seen = json_object();
	bool loop = descends(m, child, parent, seen, 0);
	json_decref(seen);
	if (loop) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "adding group '%s' as child to '%s' creates a recursive dependency loop",
			   child, parent);
		return -1;
	}
	json_t *kids = json_object_get(json_object_get(m->groups, parent), "children");
	if (!has_str(kids, child))
		json_array_append_new(kids, json_string(child));
	return 0;
}

/* ---- host patterns ----------------------------------------------------------- */

static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static bool parse_int(const char *s, long *v)
{
	char *end;
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (!all_digits(p))
		return false;
	/* a number past a long is refused, not clamped: Python's int has no
	 * bound, so a clamped value would silently name another host */
	errno = 0;
	*v = strtol(s, &end, 10);
	return *end == 0 && errno != ERANGE;
}

/* One [BEG:END[:STEP]] of a host pattern: where it stands, and its values
 * (numbers, zero-padded to width when BEG is; or single letters). */
struct host_range {
	size_t head;	  /* offset of its '[' in the pattern */
	const char *tail; /* the text after its ']' */
	const char *letter; /* its first letter, or NULL for numbers */
	long first, step, count;
	int width;
};

/* The first range of text (a pattern's tail after the ranges before it),
 * as Ansible's expand_hostname_range reads it, with its errors. */
static int parse_range(const char *text, const char *pattern, struct host_range *r,
		       const struct src_loc *loc, struct diag *d)
{
	const char *lb = strchr(text, '['), *rb = strchr(lb, ']');
	if (!rb) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "invalid host range in '%s'", pattern);
		return -1;
	}
	char *inner = xstrndup(lb + 1, (size_t)(rb - lb - 1));
	char *parts[4] = { 0 };
	int np = 0;
	for (char *p = inner, *c; np < 4; p = c + 1) {
		parts[np++] = p;
		c = strchr(p, ':');
		if (!c)
			break;
		*c = 0;
	}
	int rc = -1;
	const char *beg = *parts[0] ? parts[0] : "0", *end = parts[1];
	long b, e;
	r->tail = rb + 1;
	r->step = 1;
	r->width = 0;
	r->letter = NULL;
	if (np != 2 && np != 3)
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "host range must be begin:end or begin:end:step ('%s')", pattern);
	else if (!*end)
		diag_error(d, IMC_EXIT_DATAERR, loc, "host range must specify end value ('%s')",
			   pattern);
	else if (np == 3 && (!parse_int(parts[2], &r->step) || r->step <= 0))
		diag_error(d, IMC_EXIT_DATAERR, loc, "invalid host range step in '%s'", pattern);
	else if (beg[0] == '0' && strlen(beg) > 1 && strlen(end) != strlen(beg))
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "host range must specify equal-length begin and end formats ('%s')",
			   pattern);
	else {
		const char *lbp = strlen(beg) == 1 ? strchr(letters, beg[0]) : NULL;
		const char *lep = strlen(end) == 1 ? strchr(letters, end[0]) : NULL;
		if (beg[0] == '0' && strlen(beg) > 1)
			r->width = (int)strlen(beg);
		if (lbp && lep) {
			if (lbp > lep)
				diag_error(d, IMC_EXIT_DATAERR, loc,
					   "host range must have begin <= end ('%s')", pattern);
			else {
				r->letter = lbp;
				r->first = 0;
				r->count = (lep - lbp) / r->step + 1;
				rc = 0;
			}
		} else if (parse_int(beg, &b) && parse_int(end, &e)) {
			r->first = b;
			/* Python's range(b, e + 1, step): empty when e < b; past the
			 * cap, its size only needs to say so (e - b can pass a long) */
			unsigned long span = ((unsigned long)e - (unsigned long)b) /
					     (unsigned long)r->step;
			r->count = e < b ? 0 : span >= MAX_RANGE_HOSTS ? MAX_RANGE_HOSTS + 1
								      : (long)span + 1;
			rc = 0;
		} else
			diag_error(d, IMC_EXIT_DATAERR, loc, "invalid host range '[%s:%s]' in '%s'",
				   beg, end, pattern);
	}
	r->head = (size_t)(lb - text);
	free(inner);
	return rc;
}

/* Ansible's expand_hostname_range: the first range of the pattern
 * expanded, and each result expanded again while it has a '['. Every
 * result of a range has the same later ranges, so they are read once, left
 * to right, as Ansible meets them: the first bad one is the error, an empty
 * one makes the whole expansion empty (Ansible never reads past it), and
 * the product of their sizes is checked against MAX_RANGE_HOSTS before any
 * host is made (an empty range after "[1:2000][1:2000]" would otherwise
 * cost 4·10^6 expansions for nothing). The hosts come in Ansible's order:
 * the last range varies fastest. */
static int expand_range(const char *pattern, json_t *out, const struct src_loc *loc,
			struct diag *d)
{
	struct host_range *r = NULL;
	size_t n = 0, cap = 0;
	double total = 1;
	int rc = 0;
	for (const char *rest = pattern; strchr(rest, '['); rest = r[n++].tail) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			r = xreallocarray(r, cap, sizeof(*r));
		}
		if (parse_range(rest, pattern, &r[n], loc, d) < 0) {
			rc = -1;
			goto out;
		}
		if (r[n].count == 0)
			goto out;
		total *= (double)r[n].count;
	}
	if (total > MAX_RANGE_HOSTS) {
		diag_error(d, IMC_EXIT_DATAERR, loc, "host range '%s' has more than %d hosts", pattern,
			   MAX_RANGE_HOSTS);
		rc = -1;
		goto out;
	}
	long *at = xcalloc(n, sizeof(*at));
	struct strbuf sb = STRBUF_INIT;
	for (;;) {
		strbuf_reset(&sb);
		const char *text = pattern;
		for (size_t i = 0; i < n; i++) {
			strbuf_add(&sb, text, r[i].head);
			/* in unsigned arithmetic: first + at·step stays within
			 * [BEG, END], but at·step alone can pass LONG_MAX */
			long v = (long)((unsigned long)r[i].first +
					(unsigned long)at[i] * (unsigned long)r[i].step);
			if (r[i].letter)
				strbuf_addch(&sb, r[i].letter[v]);
			else
				strbuf_addf(&sb, "%0*ld", r[i].width, v);
			text = r[i].tail;
		}
		strbuf_addstr(&sb, text);
		json_array_append_new(out, json_string(sb.buf));
		size_t i = n;
		while (i > 0 && ++at[i - 1] == r[i - 1].count)
			at[--i] = 0;
		if (i == 0)
			break;
	}
	strbuf_release(&sb);
	free(at);
out:
	free(r);
	return rc;
}

/* Whether s (an address between brackets) is an IPv6 address rather than
 * a range: "::" in it, or its eight groups. */
static bool ipv6ish(const char *s)
{
	size_t colons = 0;
	for (const char *p = s; *p; p++) {
		if (!isxdigit((unsigned char)*p) && *p != ':' && *p != '.')
			return false;
		colons += *p == ':';
	}
	return strstr(s, "::") || colons == 7;
}

int inv_expand_hosts(const char *pattern, json_t *names, int *port, const struct src_loc *loc,
		     struct diag *d)
{
	*port = -1;
	char *host = xstrdup(pattern);
	int rc = -1;
	/* [IPv6]:PORT and [IPv6] */
	if (host[0] == '[') {
		char *close = strchr(host, ']');
		if (close) {
			*close = 0;
			bool v6 = ipv6ish(host + 1);
			*close = ']';
			if (v6 && (!close[1] || (close[1] == ':' && all_digits(close + 2)))) {
				if (close[1])
					*port = (int)strtol(close + 2, NULL, 10);
				*close = 0;
				json_array_append_new(names, json_string(host + 1));
				rc = 0;
				goto out;
			}
		}
	}
	/* the colons outside brackets: one is HOST:PORT, more a bare IPv6 */
	int colons = 0, inb = 0;
	char *last = NULL;
	for (char *p = host; *p; p++) {
		inb += *p == '[';
		inb -= *p == ']' && inb > 0;
		if (*p == ':' && !inb) {
			colons++;
			last = p;
		}
	}
	if (colons == 1) {
		if (!last[1]) {
			diag_error(d, IMC_EXIT_DATAERR, loc,
				   "invalid host pattern '%s' supplied, ending in ':' is not allowed, this character is reserved to provide a port",
				   pattern);
			goto out;
		}
		if (all_digits(last + 1)) {
			long pv = strtol(last + 1, NULL, 10);
			if (pv > 65535) {
				diag_error(d, IMC_EXIT_DATAERR, loc, "invalid port in host pattern '%s'", pattern);
				goto out;
			}
			*port = (int)pv;
			*last = 0;
		}
	}
	if (!strcmp(host, "---")) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "invalid host pattern '%s' supplied, '---' is normally a sign this is a YAML file",
			   pattern);
		goto out;
	}
	if (colons <= 1 && strchr(host, '['))
		rc = expand_range(host, names, loc, d);
	else {
		json_array_append_new(names, json_string(host));
		rc = 0;
	}
out:
	free(host);
	return rc;
}

/* ---- the run's groups -------------------------------------------------------- */

/* Ansible's reconcile for "ungrouped": it keeps its members that are in
 * no other group, in their order, then gains the other hosts in no group,
 * in host order. Sets keep it linear in the hosts (inventories of 10^5
 * hosts are read). */
static void ungroup(struct inv_model *m)
{
	json_t *grouped = json_object(), *kept = json_array(), *kept_set = json_object();
	json_t *ung = json_object_get(json_object_get(m->groups, "ungrouped"), "hosts");
	json_t *was_ung = json_object_get(m->members, "ungrouped");
	const char *name;
	json_t *v;
	json_object_foreach(m->members, name, v)
		if (strcmp(name, "all") && strcmp(name, "ungrouped"))
			json_object_update(grouped, v);
	size_t i;
	json_array_foreach(ung, i, v)
		if (!json_object_get(grouped, json_string_value(v)))
			json_array_append(kept, v);
	json_object_foreach(m->hosts, name, v)
		if (!json_object_get(grouped, name) && !json_object_get(was_ung, name))
			json_array_append_new(kept, json_string(name));
	json_array_foreach(kept, i, v)
		json_object_set_new(kept_set, json_string_value(v), json_true());
	json_array_clear(ung);
	json_array_extend(ung, kept);
	json_object_set_new(m->members, "ungrouped", kept_set);
	json_decref(kept);
	json_decref(grouped);
}

/* Ansible's reconcile_inventory: a group with no parent becomes a child of
 * "all"; a host in no group but "all" goes to "ungrouped", and leaves it
 * when it is in another. */
static void reconcile(struct inv_model *m, json_t *parents)
{
	const char *g;
	json_t *gv;
	json_object_foreach(m->groups, g, gv) {
		size_t i;
		json_t *c;
		json_array_foreach(json_object_get(gv, "children"), i, c) {
			json_t *p = json_object_get(parents, json_string_value(c));
			if (!p) {
				p = json_array();
				json_object_set_new(parents, json_string_value(c), p);
			}
			if (!has_str(p, g))
				json_array_append_new(p, json_string(g));
		}
	}
	json_object_foreach(m->groups, g, gv)
		if (strcmp(g, "all") && !json_array_size(json_object_get(parents, g))) {
			json_array_append_new(json_object_get(json_object_get(m->groups, "all"), "children"),
					      json_string(g));
			json_object_set_new(parents, g, json_pack("[s]", "all"));
		}
	ungroup(m);
}

/* The hosts of group and of its descendants: the group's own, then its
 * children's level by level (Ansible's get_hosts, preserve_ordering). */
static json_t *group_hosts(struct inv_model *m, const char *group)
{
	json_t *r = json_array(), *in_r = json_object(), *seen = json_object();
	json_t *queue = json_pack("[s]", group);
	json_object_set_new(seen, group, json_true());
	for (size_t qi = 0; qi < json_array_size(queue); qi++) {
		json_t *gv = json_object_get(m->groups, json_string_value(json_array_get(queue, qi)));
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(gv, "hosts"), i, e)
			if (!json_object_get(in_r, json_string_value(e))) {
				json_object_set_new(in_r, json_string_value(e), json_true());
				json_array_append(r, e);
			}
		json_array_foreach(json_object_get(gv, "children"), i, e)
			if (!json_object_get(seen, json_string_value(e))) {
				json_object_set_new(seen, json_string_value(e), json_true());
				json_array_append(queue, e);
			}
	}
	json_decref(in_r);
	json_decref(seen);
	json_decref(queue);
	return r;
}

void inventory_model_groups(struct inv_model *m, json_t **groups, json_t **order, json_t **parents)
{
	*parents = json_object();
	reconcile(m, *parents);
	*groups = json_object();
	const char *g;
	json_t *gv;
	json_object_foreach(m->groups, g, gv)
		json_object_set_new(*groups, g, group_hosts(m, g));
	*order = json_incref(json_object_get(*groups, "all"));
	/* "all" and "ungrouped" have no parent in the run's model */
	json_object_del(*parents, "all");
}
