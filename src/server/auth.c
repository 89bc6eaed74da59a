/* auth.c: who a request of `imc serve` comes from, and what it may touch
 * (see server.h). The Authorization header carries the lines of an IM
 * auth file joined by the two characters backslash-n (a backslash-n that
 * belongs inside a value comes doubled); they are read by the same parser
 * as the CLI's auth file (cloud/auth.c), which registers every secret as
 * it reads it. The InfrastructureManager line (username, password) names
 * the user; the other lines are the clouds' credentials, written for the
 * deployment engine to a file of the request's (authfile.c).
 *
 * An infrastructure belongs to the user who created it: the store keeps
 * "SALT$SHA256(SALT:username:password)", never the password, and a request
 * is the owner's when the hash of its credentials with that salt matches.
 * An infrastructure the CLI created has no owner and is no REST user's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "deploy/deploy.h"
#include "server/server.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define NO_AUTH "No authentication data provided"

/* The header as auth file text: a backslash-n is a line break, a doubled
 * one stays a backslash-n for the parser (a newline inside a value). */
static char *header_lines(const char *h)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = h; *p; p++) {
		if (p[0] == '\\' && p[1] == '\\' && p[2] == 'n') {
			strbuf_addstr(&sb, "\\n");
			p += 2;
		} else if (p[0] == '\\' && p[1] == 'n') {
			strbuf_addch(&sb, '\n');
			p++;
		} else
			strbuf_addch(&sb, *p);
	}
	return strbuf_detach(&sb);
}

/* A value file(PATH) makes the auth parser read PATH: fine for a user's
 * own file, not for a request, which would read the server's files. */
static bool names_a_file(const char *text)
{
	for (const char *p = strstr(text, "file("); p; p = strstr(p + 1, "file(")) {
		const char *q = p;
		while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		if (q > text && q[-1] == '=')
			return true;
	}
	return false;
}

/* Writes the lines of text that are not the InfrastructureManager's to
 * the request's auth file (authfile.c); *path gets its name. */
static int write_cloud_lines(const char *home, const char *text, const struct auth_file *af, char **path,
			     struct diag *d)
{
	struct strbuf sb = STRBUF_INIT;
	int lineno = 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		lineno++;
		bool im = false;
		for (size_t i = 0; i < af->n; i++) {
			const char *type = auth_get(&af->creds[i], "type");
			if (af->creds[i].line == lineno && type && strcasecmp(type, "InfrastructureManager") == 0)
				im = true;
		}
		if (!im) {
			strbuf_add(&sb, p, n);
			strbuf_addch(&sb, '\n');
		}
		p += n;
		if (*p)
			p++;
	}
	int rc = srv_authfile_write(home, strbuf_str(&sb), sb.len, path, d);
	/* the buffer held the clouds' credentials */
	if (sb.buf)
		memset(sb.buf, 0, sb.len);
	strbuf_release(&sb);
	return rc;
}

int srv_auth(struct srv_request *r, struct srv_reply *out)
{
	const char *h = r->authorization;
	if (!h || !*h) {
		srv_reply_error(r, out, 401, NO_AUTH);
		return -1;
	}
	if (strncasecmp(h, "Bearer ", 7) == 0) {
		srv_reply_error(r, out, 401, "Invalid InfrastructureManager credentials: bearer (OIDC) tokens are not"
			       " supported by this server");
		return -1;
	}
	char *text = header_lines(h);
	struct diag d = DIAG_INIT;
	int rc = -1;
	if (names_a_file(text)) {
		srv_reply_error(r, out, 401, "%s: file() values are not accepted in the Authorization header", NO_AUTH);
		goto out;
	}
	r->user.af = auth_file_parse("Authorization", text, strlen(text), &d);
	if (!r->user.af) {
		srv_reply_diag(r, out, 401, NO_AUTH, &d);
		goto out;
	}
	const struct auth_cred *im = auth_find(r->user.af, NULL, "InfrastructureManager");
	if (!im) {
		srv_reply_error(r, out, 401, "No credentials provided for the InfrastructureManager.");
		goto out;
	}
	const char *user = auth_get(im, "username"), *pass = auth_get(im, "password");
	if (!user || !pass || !*user) {
		srv_reply_error(r, out, 401, "Invalid InfrastructureManager credentials: %s",
				auth_get(im, "token") ? "tokens are not supported by this server, give username and password"
						      : "username and password are needed");
		goto out;
	}
	r->user.username = user;
	if (write_cloud_lines(r->cfg->home, text, r->user.af, &r->user.auth_path, &d) < 0) {
		srv_reply_diag(r, out, 500, "Error reading the authorization data", &d);
		goto out;
	}
	rc = 0;
out:
	diag_release(&d);
	free(text);
	return rc;
}

void srv_user_release(const char *home, struct srv_user *u)
{
	auth_file_free(u->af);
	if (!u->keep_auth)
		srv_authfile_drop(home, u->auth_path);
	free(u->auth_path);
	memset(u, 0, sizeof(*u));
}

static const char *im_password(const struct srv_user *u)
{
	return auth_get(auth_find(u->af, NULL, "InfrastructureManager"), "password");
}

/* SALT$HEX for salt (16 hex digits): the hash of the user's name and
 * password, never the password itself. */
static char *owner_hash(const char *user, const char *password, const char *salt, size_t saltlen)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, salt, saltlen);
	strbuf_addf(&sb, ":%s:%s", user, password);
	char hex[65];
	hash_sha256_hex(sb.buf, sb.len, hex);
	/* the buffer held the password: cleared before it is freed */
	memset(sb.buf, 0, sb.len);
	strbuf_release(&sb);
	return xasprintf("%.*s$%s", (int)saltlen, salt, hex);
}

char *srv_owner_entry(const char *user, const char *password)
{
	unsigned char raw[8];
	char salt[17];
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		/* getrandom on Linux >= 3.17 does not fail for 8 bytes; the
		 * time still makes the salt differ between infrastructures */
		long t = (long)time(NULL) ^ (long)getpid();
		memcpy(raw, &t, sizeof(raw) < sizeof(t) ? sizeof(raw) : sizeof(t));
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(salt + 2 * i, 3, "%02x", raw[i]);
	char *hash = owner_hash(user, password, salt, 16);
	char *entry = xasprintf("%s %s", hash, user);
	free(hash);
	return entry;
}

char *srv_owner_new(const struct srv_user *u)
{
	return srv_owner_entry(u->username, im_password(u));
}

bool srv_owner_next(const char **pos, struct srv_owner_line *line)
{
	const char *p = *pos;
	if (!p || !*p)
		return false;
	size_t n = strcspn(p, "\n");
	const char *sp = memchr(p, ' ', n);
	line->hash = p;
	line->hash_len = sp ? (size_t)(sp - p) : n;
	line->name = sp ? sp + 1 : p + n;
	line->name_len = (size_t)(p + n - line->name);
	*pos = p[n] ? p + n + 1 : p + n;
	return true;
}

bool srv_owner_match(const char *owner, const char *user, const char *password)
{
	struct srv_owner_line line;
	for (const char *pos = owner; srv_owner_next(&pos, &line);) {
		const char *dollar = memchr(line.hash, '$', line.hash_len);
		if (!dollar)
			continue;
		char *mine = owner_hash(user, password, line.hash, (size_t)(dollar - line.hash));
		bool same = strlen(mine) == line.hash_len && memcmp(mine, line.hash, line.hash_len) == 0;
		free(mine);
		if (same)
			return true;
	}
	return false;
}

bool srv_owner_is(const struct srv_user *u, const char *owner)
{
	return u->username && im_password(u) && srv_owner_match(owner, u->username, im_password(u));
}

int srv_infra(struct srv_request *r, const char *id, const char *what, bool recover, struct state_infra *in,
	      struct srv_reply *out)
{
	struct diag d = DIAG_INIT;
	int g = state_infra_get(r->st, id, in, &d);
	int rc = -1;
	if (g < 0)
		srv_reply_diag(r, out, 400, what, &d);
	else if (g > 0)
		srv_reply_error(r, out, 404, "%s: Invalid infrastructure ID or access not granted.", what);
	else if (in->deleted)
		srv_reply_error(r, out, 404, "%s: Deleted infrastructure.", what);
	else if (!srv_owner_is(&r->user, in->owner))
		srv_reply_error(r, out, 403, "%s: Access to this infrastructure not granted.", what);
	else
		rc = 0;
	/* *in holds nothing to free after a read error (g < 0) */
	if (rc < 0 && g == 0)
		state_infra_release(in);
	else if (rc < 0 && g < 0)
		memset(in, 0, sizeof(*in));
	else if (recover)
		deploy_recover(r->st, in, &d);
	diag_release(&d);
	return rc;
}
