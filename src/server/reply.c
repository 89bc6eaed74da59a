/* reply.c: the answers of `imc serve` as IM gives them (see server.h):
 * lists of URIs as text/uri-list or, with Accept: application/json,
 * {"uri-list": [{"uri": ...}]}; a property as text/plain or {"NAME":
 * VALUE}; errors as text/plain, {"message": ..., "code": N} or a small
 * HTML page, by Accept. Every text that leaves passes through redact(),
 * so a secret the engine knows never reaches a client that did not send
 * it in this very request. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "server/server.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool wants_json(const struct srv_request *r)
{
	return r->accept && strcmp(r->accept, "application/json") == 0;
}

static void set_body(struct srv_reply *out, const char *text)
{
	char *safe = redact(text);
	strbuf_reset(&out->body);
	strbuf_addstr(&out->body, safe);
	free(safe);
}

static void set_json(struct srv_reply *out, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	set_body(out, s);
	free(s);
	json_decref(j);
	out->type = "application/json";
}

void srv_reply_text(struct srv_reply *out, unsigned status, const char *text)
{
	out->status = status;
	out->type = "text/plain";
	set_body(out, text);
}

static void html_escape(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		default: strbuf_addch(sb, *s);
		}
	}
}

static void reply_error_msg(const struct srv_request *r, struct srv_reply *out, unsigned status, const char *msg)
{
	out->status = status;
	if (wants_json(r)) {
		set_json(out, json_pack("{s:s, s:i}", "message", msg, "code", (int)status));
	} else if (r->accept && strcmp(r->accept, "text/html") == 0) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "<!DOCTYPE html>\n<html><head><title>Error %u</title></head>\n<body><h1>Error %u</h1>\n<p>",
			    status, status);
		html_escape(&sb, msg);
		strbuf_addstr(&sb, "</p></body></html>\n");
		set_body(out, strbuf_str(&sb));
		strbuf_release(&sb);
		out->type = "text/html";
	} else
		srv_reply_text(out, status, msg);
}

void srv_reply_error(const struct srv_request *r, struct srv_reply *out, unsigned status, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	reply_error_msg(r, out, status, strbuf_str(&sb));
	strbuf_release(&sb);
}

void srv_reply_diag(const struct srv_request *r, struct srv_reply *out, unsigned status, const char *what,
		    const struct diag *d)
{
	/* every error, one per line, as the CLI would print them (without
	 * the source excerpts, which would repeat the request's body) */
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s: ", what);
	bool first = true;
	for (size_t i = 0; i < d->n; i++) {
		if (d->items[i].level != DIAG_ERROR)
			continue;
		if (!first)
			strbuf_addch(&sb, '\n');
		first = false;
		if (d->items[i].file && d->items[i].line)
			strbuf_addf(&sb, "%s:%d:%d: ", d->items[i].file, d->items[i].line, d->items[i].col);
		strbuf_addstr(&sb, d->items[i].msg);
	}
	if (first)
		strbuf_addstr(&sb, "unknown error");
	reply_error_msg(r, out, status, strbuf_str(&sb));
	strbuf_release(&sb);
}

void srv_reply_uris(const struct srv_request *r, struct srv_reply *out, char **paths, size_t n)
{
	out->status = 200;
	if (wants_json(r)) {
		json_t *arr = json_array();
		for (size_t i = 0; i < n; i++) {
			char *u = xasprintf("%s/%s", r->base, paths[i]);
			json_array_append_new(arr, json_pack("{s:s}", "uri", u));
			free(u);
		}
		set_json(out, json_pack("{s:o}", "uri-list", arr));
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s/%s", i ? "\n" : "", r->base, paths[i]);
	set_body(out, strbuf_str(&sb));
	strbuf_release(&sb);
	out->type = "text/uri-list";
}

void srv_reply_uri(const struct srv_request *r, struct srv_reply *out, const char *path)
{
	char *u = xasprintf("%s/%s", r->base, path);
	out->status = 200;
	if (wants_json(r))
		set_json(out, json_pack("{s:s}", "uri", u));
	else {
		set_body(out, u);
		out->type = "text/uri-list";
	}
	free(u);
}

void srv_reply_prop(const struct srv_request *r, struct srv_reply *out, const char *name, const char *text,
		    json_t *json)
{
	out->status = 200;
	if (wants_json(r) || !text) {
		set_json(out, json_pack("{s:o}", name, json ? json : json_string(text ? text : "")));
		return;
	}
	json_decref(json);
	set_body(out, text);
	out->type = "text/plain";
}

void srv_reply_empty(const struct srv_request *r, struct srv_reply *out)
{
	(void)r;
	srv_reply_text(out, 200, "");
}
