/* stats.c: GET /stats of `imc serve` (IM's REST.rst): one row per
 * infrastructure the user created, destroyed ones included, created
 * between init_date and end_date (YYYY/MM/dd or YYYY-MM-dd, midnight of
 * the server's time zone, as IM reads them), with what deploy/stats.c
 * counts; as {"stats": [...]} or, with Accept: text/csv or the text
 * wildcard, as CSV with a header line. The columns and their order are IM's; tosca_name
 * stays empty (imc takes no TOSCA). GET and POST /oai answer what an IM
 * without an OAI-PMH repository answers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deploy/deploy.h"
#include "server/server.h"
#include "util/pyfloat.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A date of the query ("2024/07/12", "2024-7-12") into *t, the local
 * midnight that starts it: 0, or -1 when it is not a valid date. */
static int query_date(const char *s, time_t *t)
{
	int v[3];
	for (int i = 0; i < 3; i++) {
		char *end;
		if (*s < '0' || *s > '9')
			return -1;
		long n = strtol(s, &end, 10);
		if (n > 99999 || (i < 2 ? (*end != '/' && *end != '-') : *end != '\0'))
			return -1;
		v[i] = (int)n;
		s = end + (i < 2);
	}
	struct tm tm = { .tm_year = v[0] - 1900, .tm_mon = v[1] - 1, .tm_mday = v[2], .tm_isdst = -1 };
	struct tm check = tm;
	*t = mktime(&tm);
	/* mktime normalises 2024-02-30 to March: such a date is invalid */
	if (*t == (time_t)-1 || v[0] < 1 || tm.tm_year != check.tm_year || tm.tm_mon != check.tm_mon ||
	    tm.tm_mday != check.tm_mday)
		return -1;
	return 0;
}

static char *local_date(double when)
{
	time_t t = (time_t)when;
	struct tm tm;
	char buf[32];
	if (!localtime_r(&t, &tm) || strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		buf[0] = '\0';
	return xstrdup(buf);
}

/* The row of one infrastructure, in IM's order of keys. */
static json_t *stats_row(const struct srv_request *r, const struct state_infra *in, json_t *had)
{
	char *created = local_date(in->created);
	char *last = local_date(json_real_value(json_object_get(had, "last_date")));
	json_t *row = json_pack("{s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:s, s:s, s:s}",
		"creation_date", created, "tosca_name", "",
		"vm_count", json_object_get(had, "vm_count"), "cpu_count", json_object_get(had, "cpu_count"),
		"memory_size", json_object_get(had, "memory_size"), "cloud_type", json_object_get(had, "cloud_type"),
		"cloud_host", json_object_get(had, "cloud_host"), "hybrid", json_object_get(had, "hybrid"),
		"deleted", json_object_get(had, "deleted"), "im_user", r->user.username ? r->user.username : "",
		"inf_id", in->id, "last_date", last);
	free(created);
	free(last);
	return row;
}

/* One CSV field as Python's csv module writes it: quoted only when it
 * holds a comma, a quote or a line break; booleans as True/False. */
static void csv_field(struct strbuf *sb, json_t *v)
{
	if (json_is_boolean(v)) {
		strbuf_addstr(sb, json_is_true(v) ? "True" : "False");
		return;
	}
	if (json_is_integer(v)) {
		strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
		return;
	}
	if (json_is_real(v)) {
		py_float_repr(sb, json_real_value(v));
		return;
	}
	const char *s = json_string_value(v) ? json_string_value(v) : "";
	if (!s[strcspn(s, ",\"\r\n")]) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

static void reply_csv(struct srv_reply *out, json_t *rows)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *row;
	const char *key;
	json_t *v;
	/* the header line names the first row's keys: empty without rows */
	bool first = true;
	json_object_foreach(json_array_get(rows, 0), key, v) {
		strbuf_addf(&sb, "%s%s", first ? "" : ",", key);
		first = false;
	}
	strbuf_addstr(&sb, "\r\n");
	json_array_foreach(rows, i, row) {
		first = true;
		json_object_foreach(row, key, v) {
			if (!first)
				strbuf_addch(&sb, ',');
			first = false;
			csv_field(&sb, v);
		}
		strbuf_addstr(&sb, "\r\n");
	}
	srv_reply_text(out, 200, strbuf_str(&sb));
	out->type = "text/csv";
	strbuf_release(&sb);
}

void srv_stats(struct srv_request *r, struct srv_reply *out)
{
	const char *init = srv_query(r, "init_date"), *end = srv_query(r, "end_date");
	time_t from = 0, to = 0;
	if (init && *init && query_date(init, &from) < 0) {
		srv_reply_error(r, out, 400, "Incorrect format in init_date parameter: YYYY/MM/dd");
		return;
	}
	if (end && *end && query_date(end, &to) < 0) {
		srv_reply_error(r, out, 400, "Incorrect format in end_date parameter: YYYY/MM/dd");
		return;
	}
	struct diag d = DIAG_INIT;
	char **ids = NULL;
	size_t n = 0;
	json_t *rows = json_array();
	if (state_infra_list_all(r->st, true, &ids, &n, &d) < 0) {
		srv_reply_diag(r, out, 400, "Error getting stats", &d);
		goto out;
	}
	/* IM lists the newest first */
	for (size_t i = n; i-- > 0;) {
		struct state_infra in;
		if (state_infra_get(r->st, ids[i], &in, &d) != 0)
			continue;
		json_t *had = NULL;
		if (srv_owner_is(&r->user, in.owner) && (!init || !*init || in.created >= (double)from) &&
		    (!end || !*end || in.created <= (double)to))
			had = deploy_infra_stats(r->st, &in, NULL, &d);
		if (had)
			json_array_append_new(rows, stats_row(r, &in, had));
		json_decref(had);
		state_infra_release(&in);
	}
	if (r->accept && (strcmp(r->accept, "text/csv") == 0 || strcmp(r->accept, "text/*") == 0))
		reply_csv(out, rows);
	else
		srv_reply_prop(r, out, "stats", NULL, json_incref(rows));
out:
	json_decref(rows);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	diag_release(&d);
}

void srv_oai(struct srv_request *r, struct srv_reply *out)
{
	srv_reply_error(r, out, 400, "OAI-PMH not enabled.");
}
