/* commands.c: the commands `imc --server URL` runs against a remote
 * `imc serve` or IM server (see client.h), one REST call or two each, as
 * IM's im_client.py makes them, printing what the local command prints.
 * What IM's REST API does not carry is not printed: the
 * contextualization steps of getstate and getcontmsg (imc's own, from the
 * local store); create without -d prints the state once the
 * contextualization ended, not the local command's progress. A
 * command that has no REST call (plan, play, ssh, export, ...) is refused
 * with --server rather than run on the local store. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "client/client.h"
#include "cmd/cli.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The request's answer when it is a 200: 0; else -1 with the server's
 * message in d (its status as the exit status the local command gives). */
static int call(const struct client *c, const char *method, const char *path, const char *accept, const char *body,
		size_t len, struct client_reply *rep, struct diag *d)
{
	if (client_request(c, method, path, accept, body, len, rep, d) < 0)
		return -1;
	if (rep->status == 200)
		return 0;
	int code = rep->status == 401 || rep->status == 403 ? IMC_EXIT_NOPERM
		   : rep->status == 404			 ? IMC_EXIT_NOINPUT
		   : rep->status >= 500			 ? IMC_EXIT_UNAVAILABLE
							 : IMC_EXIT_DATAERR;
	/* IM's error: the text, or {"message", "code"} when JSON was asked */
	json_t *j = json_loads(strbuf_str(&rep->body), 0, NULL);
	const char *msg = json_string_value(json_object_get(j, "message"));
	const char *text = msg ? msg : strbuf_str(&rep->body);
	size_t n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	diag_error(d, code, NULL, "%s: %ld: %.*s", c->url, rep->status, (int)n, n ? text : "(no message)");
	json_decref(j);
	return -1;
}

/* The id of an infrastructure URI ("BASE/infrastructures/ID"). */
static const char *uri_id(const char *uri)
{
	const char *s = strrchr(uri, '/');
	return s ? s + 1 : uri;
}

static void print_redacted(const char *text)
{
	char *safe = redact(text);
	fputs(safe, stdout);
	free(safe);
}

/* The infrastructure's {"state": {"state", "vm_states"}} (IM's JSON
 * answer to GET .../state): the document, or NULL with d set. */
static json_t *get_state(const struct client *c, const char *id, struct diag *d)
{
	struct client_reply rep;
	char *path = xasprintf("infrastructures/%s/state", id);
	json_t *doc = NULL;
	if (call(c, "GET", path, "application/json", NULL, 0, &rep, d) == 0) {
		doc = json_loads(strbuf_str(&rep.body), 0, NULL);
		json_t *st = json_object_get(doc, "state");
		if (!json_string_value(json_object_get(st, "state")) || !json_is_object(json_object_get(st, "vm_states"))) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "%s: the state of %s is not IM's JSON", c->url, id);
			json_decref(doc);
			doc = NULL;
		}
	}
	client_reply_release(&rep);
	free(path);
	return doc;
}

static const char *state_of(json_t *doc)
{
	return json_string_value(json_object_get(json_object_get(doc, "state"), "state"));
}

/* "The infrastructure is in state: S" and a line per VM, in their
 * numbers' order, as the local command lists them. */
static void print_state(json_t *doc)
{
	json_t *vms = json_object_get(json_object_get(doc, "state"), "vm_states");
	printf("The infrastructure is in state: %s\n", state_of(doc));
	for (long num = 0, left = (long)json_object_size(vms); left > 0 && num < 10000000; num++) {
		char k[24];
		snprintf(k, sizeof(k), "%ld", num);
		const char *vs = json_string_value(json_object_get(vms, k));
		if (vs) {
			printf("VM ID: %ld is in state: %s.\n", num, vs);
			left--;
		}
	}
}

/* The state once the contextualization ended: IM's synchronous create
 * answers as soon as the VMs exist, while they are still pending or
 * running through their configure steps, and the local `imc create` ends
 * only when they are done. So the state is polled, as IM's own client
 * waits, until it is none of pending, running, unknown. The interval
 * grows from 0.1 s to 5 s: quick for a fast server, light on a slow one. */
static json_t *wait_settled(const struct client *c, const char *id, struct diag *d)
{
	double pause = 0.1;
	for (;;) {
		json_t *doc = get_state(c, id, d);
		const char *s = doc ? state_of(doc) : NULL;
		if (!s || (strcmp(s, "pending") != 0 && strcmp(s, "running") != 0 && strcmp(s, "unknown") != 0))
			return doc;
		json_decref(doc);
		struct timespec ts = { (time_t)pause, (long)((pause - (double)(time_t)pause) * 1e9) };
		nanosleep(&ts, NULL);
		pause = pause * 2 > 5 ? 5 : pause * 2;
	}
}

static int do_create(const struct client *c, struct cmd_args *a)
{
	struct strbuf radl = STRBUF_INIT;
	struct client_reply rep;
	bool detach = false;
	int rc = IMC_EXIT_OK;
	strbuf_init(&rep.body, 0);
	for (int k = 0; a->cmd->options && a->cmd->options[k].lng; k++) {
		if (strcmp(a->cmd->options[k].lng, "detach") == 0)
			detach = a->opt[k].set;
		else if (a->opt[k].set) {
			diag_error(a->d, IMC_EXIT_USAGE, NULL, "imc create --%s: not with --server (IM's API has no such parameter)",
				   a->cmd->options[k].lng);
			goto out;
		}
	}
	if (strbuf_read_file(&radl, a->operands[0]) < 0) {
		diag_error(a->d, IMC_EXIT_NOINPUT, NULL, "cannot read '%s'", a->operands[0]);
		goto out;
	}
	if (call(c, "POST", detach ? "infrastructures?async=yes" : "infrastructures", NULL, strbuf_str(&radl), radl.len,
		 &rep, a->d) < 0)
		goto out;
	char *uri = xstrndup(strbuf_str(&rep.body), strcspn(strbuf_str(&rep.body), "\r\n"));
	printf("%s\n", uri_id(uri));
	fflush(stdout);
	if (!detach) {
		json_t *doc = wait_settled(c, uri_id(uri), a->d);
		if (doc) {
			print_state(doc);
			if (strcmp(state_of(doc), "configured") != 0)
				rc = IMC_EXIT_FAILED;
		}
		json_decref(doc);
	}
	free(uri);
out:
	client_reply_release(&rep);
	strbuf_release(&radl);
	return rc;
}

static int do_list(const struct client *c, struct cmd_args *a)
{
	struct client_reply rep;
	char *path = NULL;
	if (a->noperands) {
		char *e = client_escape(a->operands[0]);
		path = xasprintf("infrastructures?filter=%s", e);
		free(e);
	}
	if (call(c, "GET", path ? path : "infrastructures", "text/uri-list", NULL, 0, &rep, a->d) == 0) {
		const char *p = strbuf_str(&rep.body);
		if (!*p)
			printf("No Infrastructures.\n");
		else
			printf("Infrastructure IDs: \n");
		while (*p) {
			size_t n = strcspn(p, "\r\n");
			char *line = xstrndup(p, n);
			if (n)
				printf("  %s\n", uri_id(line));
			free(line);
			p += n;
			p += strspn(p, "\r\n");
		}
	}
	client_reply_release(&rep);
	free(path);
	return IMC_EXIT_OK;
}

static int do_getstate(const struct client *c, struct cmd_args *a)
{
	json_t *doc = get_state(c, a->operands[0], a->d);
	if (doc)
		print_state(doc);
	json_decref(doc);
	return IMC_EXIT_OK;
}

/* GET PATH as text and prints it (masked), with prefix when not empty and
 * empty_text when empty. */
static int print_text(const struct client *c, struct cmd_args *a, const char *path, const char *prefix,
		      const char *empty_text)
{
	struct client_reply rep;
	if (call(c, "GET", path, "text/plain", NULL, 0, &rep, a->d) == 0) {
		if (!rep.body.len && empty_text)
			fputs(empty_text, stdout);
		else {
			if (prefix)
				fputs(prefix, stdout);
			print_redacted(strbuf_str(&rep.body));
		}
	}
	client_reply_release(&rep);
	return IMC_EXIT_OK;
}

static int do_getcontmsg(const struct client *c, struct cmd_args *a)
{
	char *path = xasprintf("infrastructures/%s/contmsg", a->operands[0]);
	int rc = print_text(c, a, path, "Msg Contextualizator: \n\n", "No Msg Contextualizator avaliable\n");
	free(path);
	return rc;
}

static int do_getradl(const struct client *c, struct cmd_args *a)
{
	char *path = xasprintf("infrastructures/%s/radl", a->operands[0]);
	int rc = print_text(c, a, path, NULL, NULL);
	free(path);
	return rc;
}

static int do_getvmcontmsg(const struct client *c, struct cmd_args *a)
{
	char *path = xasprintf("infrastructures/%s/vms/%s/contmsg", a->operands[0], a->operands[1]);
	int rc = print_text(c, a, path, NULL, NULL);
	free(path);
	return rc;
}

static int do_getvminfo(const struct client *c, struct cmd_args *a)
{
	char *path = a->noperands > 2 ? xasprintf("infrastructures/%s/vms/%s/%s", a->operands[0], a->operands[1],
						  a->operands[2])
				      : xasprintf("infrastructures/%s/vms/%s", a->operands[0], a->operands[1]);
	struct client_reply rep;
	if (call(c, "GET", path, "text/plain", NULL, 0, &rep, a->d) == 0) {
		print_redacted(strbuf_str(&rep.body));
		/* a property is printed on a line of its own */
		if (a->noperands > 2)
			fputc('\n', stdout);
	}
	client_reply_release(&rep);
	free(path);
	return IMC_EXIT_OK;
}

static int do_getoutputs(const struct client *c, struct cmd_args *a)
{
	struct client_reply rep;
	char *path = xasprintf("infrastructures/%s/outputs", a->operands[0]);
	if (call(c, "GET", path, "application/json", NULL, 0, &rep, a->d) == 0) {
		json_t *doc = json_loads(strbuf_str(&rep.body), 0, NULL);
		json_t *o = json_object_get(doc, "outputs");
		const char *k;
		json_t *v;
		json_object_foreach(o, k, v) {
			char *text = json_is_string(v) ? xstrdup(json_string_value(v))
						       : json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
			/* one line per output, as the local command prints them */
			printf("%s = %.*s\n", k, (int)strcspn(text ? text : "", "\n"), text ? text : "");
			free(text);
		}
		json_decref(doc);
	}
	client_reply_release(&rep);
	free(path);
	return IMC_EXIT_OK;
}

static int do_destroy(const struct client *c, struct cmd_args *a)
{
	struct client_reply rep;
	bool force = false;
	for (int k = 0; a->cmd->options && a->cmd->options[k].lng; k++)
		if (strcmp(a->cmd->options[k].lng, "force") == 0)
			force = a->opt[k].set;
	char *path = xasprintf("infrastructures/%s%s", a->operands[0], force ? "?force=yes" : "");
	if (call(c, "DELETE", path, NULL, NULL, 0, &rep, a->d) == 0)
		printf("Infrastructure successfully destroyed\n");
	client_reply_release(&rep);
	free(path);
	return IMC_EXIT_OK;
}

/* start, stop (of the infrastructure) and startvm, stopvm, rebootvm */
static int do_op(const struct client *c, struct cmd_args *a)
{
	const char *name = a->cmd->name;
	bool vm = strstr(name, "vm") != NULL;
	char *op = xstrndup(name, vm ? strlen(name) - 2 : strlen(name));
	char *path = vm ? xasprintf("infrastructures/%s/vms/%s/%s", a->operands[0], a->operands[1], op)
			: xasprintf("infrastructures/%s/%s", a->operands[0], op);
	struct client_reply rep;
	call(c, "PUT", path, NULL, "", 0, &rep, a->d);
	client_reply_release(&rep);
	free(path);
	free(op);
	return IMC_EXIT_OK;
}

static const struct {
	const char *name;
	int (*fn)(const struct client *c, struct cmd_args *a);
} remote[] = {
	{ "create", do_create },	 { "list", do_list },
	{ "getstate", do_getstate },	 { "getcontmsg", do_getcontmsg },
	{ "getradl", do_getradl },	 { "getvminfo", do_getvminfo },
	{ "getvmcontmsg", do_getvmcontmsg }, { "getoutputs", do_getoutputs },
	{ "destroy", do_destroy },	 { "start", do_op },
	{ "stop", do_op },		 { "startvm", do_op },
	{ "stopvm", do_op },		 { "rebootvm", do_op },
};

int client_run(struct cmd_args *a, bool *handled)
{
	struct client c;
	*handled = true;
	for (size_t i = 0; i < sizeof(remote) / sizeof(remote[0]); i++) {
		if (strcmp(remote[i].name, a->cmd->name) != 0)
			continue;
		if (a->ctx->json) {
			diag_error(a->d, IMC_EXIT_USAGE, NULL, "imc %s: --json is not available with --server", a->cmd->name);
			return IMC_EXIT_OK;
		}
		if (client_open(&c, a->ctx->server, a->ctx->auth_file, a->d) < 0)
			return IMC_EXIT_OK;
		int rc = remote[i].fn(&c, a);
		client_close(&c);
		return rc;
	}
	*handled = false;
	return IMC_EXIT_OK;
}
