/* cluster.c: parsing TF_CONFIG-shaped cluster descriptions with jansson,
 * resolving task addresses, and the worker-id and shard arithmetic that
 * every task of a job computes identically (see cluster.h). */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "trainer/cluster.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void cluster_release(struct cluster *c)
{
	if (!c)
		return;
	free_list(c->ps, c->n_ps);
	free_list(c->chief, c->n_chief);
	free_list(c->worker, c->n_worker);
	free(c->task_type);
	memset(c, 0, sizeof(*c));
	c->task_index = -1;
}

int cluster_split_addr(const char *addr, char **host, char **port, struct diag *d)
{
	const char *colon, *hs = addr, *he;
	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');
		if (!rb || rb[1] != ':') {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "address '%s' is not '[v6-address]:port'", addr);
			return -1;
		}
		hs = addr + 1;
		he = rb;
		colon = rb + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || strchr(addr, ':') != colon) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "address '%s' is not 'host:port'", addr);
			return -1;
		}
		he = colon;
	}
	if (he == hs) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "address '%s' has an empty host", addr);
		return -1;
	}
	const char *p = colon + 1;
	char *end;
	errno = 0;
	long v = strtol(p, &end, 10);
	if (!*p || *end || errno || v < 1 || v > 65535) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "address '%s' has port '%s' (1 to 65535 expected)", addr, p);
		return -1;
	}
	*host = xstrndup(hs, (size_t)(he - hs));
	*port = xstrdup(p);
	return 0;
}

static void err_at(struct diag *d, const char *origin, json_t *at, const char *fmt,
		   const char *arg)
{
	(void)at; /* jansson keeps no positions on values, only on parse errors */
	diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: %s%s", origin, fmt, arg ? arg : "");
}

static int read_list(json_t *v, const char *origin, const char *role, char ***out, size_t *n,
		     struct diag *d)
{
	if (!json_is_array(v)) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "%s: cluster.%s must be an array of \"host:port\" strings", origin, role);
		return -1;
	}
	size_t cnt = json_array_size(v);
	if (cnt > 4096) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: cluster.%s has %zu tasks (4096 at most)",
			   origin, role, cnt);
		return -1;
	}
	char **list = xcalloc(cnt ? cnt : 1, sizeof(*list));
	for (size_t i = 0; i < cnt; i++) {
		json_t *s = json_array_get(v, i);
		char *h, *p;
		if (!json_is_string(s)) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: cluster.%s[%zu] is not a string",
				   origin, role, i);
			free_list(list, i);
			return -1;
		}
		struct diag sub = DIAG_INIT;
		if (cluster_split_addr(json_string_value(s), &h, &p, &sub) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: cluster.%s[%zu]: %s", origin, role,
				   i, diag_first_message(&sub));
			diag_release(&sub);
			free_list(list, i);
			return -1;
		}
		free(h);
		free(p);
		list[i] = xstrdup(json_string_value(s));
	}
	*out = list;
	*n = cnt;
	return 0;
}

/* Every task listens on its own address: two with the same one would
 * fail to bind at run time, or worse, talk to each other. Exact strings
 * are compared (host names are not resolved here). */
static int check_distinct(const struct cluster *c, const char *origin, struct diag *d)
{
	const struct { const char *role; char **list; size_t n; } r[] = {
		{ "ps", c->ps, c->n_ps }, { "chief", c->chief, c->n_chief },
		{ "worker", c->worker, c->n_worker },
	};
	for (size_t a = 0; a < 3; a++)
		for (size_t i = 0; i < r[a].n; i++)
			for (size_t b = a; b < 3; b++)
				for (size_t j = b == a ? i + 1 : 0; j < r[b].n; j++)
					if (strcmp(r[a].list[i], r[b].list[j]) == 0) {
						diag_error(d, IMC_EXIT_DATAERR, NULL,
							   "%s: %s:%zu and %s:%zu have the same address "
							   "'%s' (each task needs its own)",
							   origin, r[a].role, i, r[b].role, j, r[a].list[i]);
						return -1;
					}
	return 0;
}

int cluster_parse(const char *text, size_t len, const char *origin, struct cluster *c,
		  struct diag *d)
{
	json_error_t je;
	memset(c, 0, sizeof(*c));
	c->task_index = -1;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		struct src_loc loc = { .file = origin, .line = je.line > 0 ? je.line : 1,
				       .col = je.column > 0 ? je.column : 1 };
		diag_error(d, IMC_EXIT_DATAERR, &loc, "invalid JSON: %s", je.text);
		return -1;
	}
	int rc = -1;
	json_t *cl = json_object_get(root, "cluster");
	if (!json_is_object(root) || !json_is_object(cl)) {
		err_at(d, origin, root, "expected an object with a \"cluster\" object", NULL);
		goto out;
	}
	const char *key;
	json_t *val;
	json_object_foreach(root, key, val) {
		if (strcmp(key, "cluster") && strcmp(key, "task") && strcmp(key, "environment")) {
			err_at(d, origin, val, "unknown top-level key ", key);
			goto out;
		}
	}
	json_object_foreach(cl, key, val) {
		int r;
		if (strcmp(key, "ps") == 0)
			r = read_list(val, origin, key, &c->ps, &c->n_ps, d);
		else if (strcmp(key, "chief") == 0)
			r = read_list(val, origin, key, &c->chief, &c->n_chief, d);
		else if (strcmp(key, "worker") == 0)
			r = read_list(val, origin, key, &c->worker, &c->n_worker, d);
		else {
			err_at(d, origin, val, "unknown role in cluster: ", key);
			r = -1;
		}
		if (r < 0)
			goto out;
	}
	if (c->n_chief > 1) {
		err_at(d, origin, cl, "cluster.chief must have at most one task", NULL);
		goto out;
	}
	if (c->n_chief + c->n_worker == 0) {
		err_at(d, origin, cl, "the cluster has no chief and no worker", NULL);
		goto out;
	}
	if (check_distinct(c, origin, d) < 0)
		goto out;
	json_t *task = json_object_get(root, "task");
	if (task) {
		json_t *ty = json_object_get(task, "type"), *ix = json_object_get(task, "index");
		if (!json_is_object(task) || !json_is_string(ty) ||
		    (ix && !json_is_integer(ix))) {
			err_at(d, origin, task,
			       "task must be {\"type\": \"ps|chief|worker\", \"index\": N}", NULL);
			goto out;
		}
		c->task_type = xstrdup(json_string_value(ty));
		c->task_index = ix ? (long)json_integer_value(ix) : 0;
		struct diag sub = DIAG_INIT;
		if (cluster_check_task(c, c->task_type, c->task_index, &sub) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "%s: %s", origin,
				   diag_first_message(&sub));
			diag_release(&sub);
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(root);
	if (rc < 0)
		cluster_release(c);
	return rc;
}

int cluster_load(const char *path, struct cluster *c, struct diag *d)
{
	if (!path) {
		const char *env = getenv("TF_CONFIG");
		if (!env || !*env) {
			diag_error(d, IMC_EXIT_USAGE, NULL,
				   "no cluster: pass --cluster FILE or set TF_CONFIG");
			return -1;
		}
		return cluster_parse(env, strlen(env), "TF_CONFIG", c, d);
	}
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		diag_error(d, IMC_EXIT_NOINPUT, NULL, "cannot read cluster file '%s': %s", path,
			   strerror(errno));
		strbuf_release(&sb);
		return -1;
	}
	int rc = cluster_parse(sb.buf ? sb.buf : "", sb.len, path, c, d);
	strbuf_release(&sb);
	return rc;
}

static size_t role_count(const struct cluster *c, const char *role)
{
	if (strcmp(role, "ps") == 0)
		return c->n_ps;
	if (strcmp(role, "chief") == 0)
		return c->n_chief;
	if (strcmp(role, "worker") == 0)
		return c->n_worker;
	return 0;
}

int cluster_check_task(const struct cluster *c, const char *role, long index, struct diag *d)
{
	if (strcmp(role, "ps") && strcmp(role, "chief") && strcmp(role, "worker")) {
		diag_error(d, IMC_EXIT_USAGE, NULL, "unknown role '%s' (ps, chief or worker)", role);
		return -1;
	}
	size_t n = role_count(c, role);
	if (index < 0 || (size_t)index >= n) {
		diag_error(d, IMC_EXIT_USAGE, NULL,
			   "task %s:%ld is not in the cluster (it has %zu %s task%s)", role, index,
			   n, role, n == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

int cluster_check_ps(const struct cluster *c, struct diag *d)
{
	if (c->n_ps)
		return 0;
	diag_error(d, IMC_EXIT_DATAERR, NULL,
		   "cluster.ps must list at least one parameter server (or run --strategy allreduce)");
	return -1;
}

size_t cluster_n_workers(const struct cluster *c)
{
	return c->n_chief + c->n_worker;
}

long cluster_worker_id(const struct cluster *c, const char *role, long index)
{
	if (strcmp(role, "chief") == 0 && index == 0 && c->n_chief == 1)
		return 0;
	if (strcmp(role, "worker") == 0 && index >= 0 && (size_t)index < c->n_worker)
		return (long)c->n_chief + index;
	return -1;
}

int cluster_is_chief(const struct cluster *c, const char *role, long index)
{
	return cluster_worker_id(c, role, index) == 0;
}

const char *cluster_addr(const struct cluster *c, const char *role, long index)
{
	if (index < 0 || (size_t)index >= role_count(c, role))
		return NULL;
	if (strcmp(role, "ps") == 0)
		return c->ps[index];
	if (strcmp(role, "chief") == 0)
		return c->chief[index];
	return c->worker[index];
}

void cluster_shard(uint64_t total, size_t n_ps, size_t i, uint64_t *off, uint64_t *count)
{
	uint64_t base = total / n_ps, extra = total % n_ps;
	*off = base * i + (i < extra ? i : extra);
	*count = base + (i < extra ? 1 : 0);
}

int cluster_resolve(const char *addr, struct sockaddr_storage *sa, socklen_t *salen,
		    struct diag *d)
{
	char *host, *port;
	if (cluster_split_addr(addr, &host, &port, d) < 0)
		return -1;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	int e = getaddrinfo(host, port, &hints, &res);
	if (e) {
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "cannot resolve '%s': %s", host,
			   gai_strerror(e));
		free(host);
		free(port);
		return -1;
	}
	memcpy(sa, res->ai_addr, res->ai_addrlen);
	*salen = res->ai_addrlen;
	freeaddrinfo(res);
	free(host);
	free(port);
	return 0;
}
