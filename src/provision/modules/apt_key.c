/* apt_key.c: the `apt_key` module (ansible.builtin.apt_key of ansible-core
 * 2.14) for keys given inline (data) or as a file on the node (file), or
 * by id alone: the key id is read from the key with `gpg --with-colons`
 * when id is not given, the keys of the keyring (apt-key's default ones,
 * or keyring=) are listed with `apt-key adv --list-public-keys`, and the
 * key is added with `apt-key add` when its id is not among them (present)
 * or removed with `apt-key del` by its last 8 digits (absent), then the
 * keys listed again to verify. An 8-digit id is compared with the short
 * ids, a longer one by its last 16 digits. Returns changed, id, short_id,
 * fp, key_id, before and (after a change outside check mode) after, and
 * Ansible's failures word for word. Check mode lists and compares only.
 * A key fetched from a url or a keyserver is not implemented: refused when
 * the play is loaded, so the task goes to Ansible. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* gpg's messages in English, as the module asks for a parsable locale */
#define LANG_C "LANG=C LC_ALL=C LC_MESSAGES=C "

#define NO_ERROR "apt-key did not return an error, but %s (check that the id is correct and *not* a subkey)"

struct keyctx {
	struct exec_ctx *x;
	char *apt_key;
	const char *keyring;
	json_t *r; /* the result being built (Ansible's r) */
};

/* The module's parse_output_for_keys: the key ids of the pub and sub
 * lines not marked expired, from apt-key's listing ("pub rsa2048/ID ...")
 * or gpg's colons (the 5th field); short: their last 8 digits. */
static json_t *parse_keys(const char *out, bool short_format)
{
	json_t *found = json_array();
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *line = xstrndup(l, strcspn(l, "\n"));
		if ((strncmp(line, "pub", 3) && strncmp(line, "sub", 3)) || strstr(line, "expired")) {
			free(line);
			continue;
		}
		char *code = NULL;
		/* tokens[1] of str.split(), when it is LEN/ID */
		const char *p = line + strspn(line, " \t\r\f\v");
		p += strcspn(p, " \t\r\f\v");
		p += strspn(p, " \t\r\f\v");
		size_t n = strcspn(p, " \t\r\f\v");
		const char *slash = n ? memchr(p, '/', n) : NULL;
		if (slash && !memchr(slash + 1, '/', n - (size_t)(slash + 1 - p))) {
			code = xstrndup(slash + 1, n - (size_t)(slash + 1 - p));
		} else {
			/* the 5th ':' field */
			const char *f = line;
			for (int i = 0; i < 4 && f; i++)
				f = strchr(f, ':') ? strchr(f, ':') + 1 : NULL;
			if (f)
				code = xstrndup(f, strcspn(f, ":"));
		}
		if (code) {
			size_t cl = strlen(code);
			json_array_append_new(found, json_string(short_format && cl > 8 ? code + cl - 8 : code));
			free(code);
		}
		free(line);
	}
	return found;
}

static bool in_list(json_t *l, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(l, i, v)
		if (!strcmp(json_string_value(v), s))
			return true;
	return false;
}

/* Fails res with Ansible's keys of a command that failed. */
static void add_cmd(json_t *res, const char *cmd, const struct conn_result *cr)
{
	json_object_set_new(res, "cmd", json_string(cmd));
	json_object_set_new(res, "rc", json_integer(cr->rc));
	json_object_set_new(res, "stdout", json_string(strbuf_str(&cr->out)));
	json_object_set_new(res, "stderr", json_string(strbuf_str(&cr->err)));
}

/* `apt-key [--keyring K] WORDS`, as the module builds it: the shell line
 * in c (words already quoted), the command as Ansible reports it in shown
 * (shown_words, unquoted as the module joins them). */
static void apt_key_cmd(struct keyctx *k, const char *words, const char *shown_words,
			struct strbuf *c, struct strbuf *shown)
{
	sh_quote(c, k->apt_key);
	strbuf_addstr(shown, k->apt_key);
	if (k->keyring) {
		strbuf_addstr(c, " --keyring ");
		sh_quote(c, k->keyring);
		strbuf_addf(shown, " --keyring %s", k->keyring);
	}
	strbuf_addf(c, " %s", words);
	strbuf_addf(shown, " %s", shown_words);
}

/* The module's all_keys: 0 with *keys, or -1 with *res. */
static int all_keys(struct keyctx *k, bool short_format, json_t **keys, json_t **res)
{
	struct strbuf c = STRBUF_INIT, shown = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	apt_key_cmd(k, "adv --list-public-keys --keyid-format=long",
		    "adv --list-public-keys --keyid-format=long", &c, &shown);
	int rc = mod_sh(k->x, c.buf, NULL, 0, &cr, res);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("Unable to list public keys");
		add_cmd(*res, shown.buf, &cr);
		rc = -1;
	} else if (rc == 0) {
		*keys = parse_keys(strbuf_str(&cr.out), short_format);
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	strbuf_release(&shown);
	return rc;
}

/* The module's get_key_id_from_file: the first key id gpg finds in the
 * file (or in data, fed as '-'); *id NULL when none. */
static int key_id_of(struct keyctx *k, char *gpg, const char *file, const char *data, char **id,
		     json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	strbuf_addstr(&c, LANG_C);
	sh_quote(&c, gpg);
	strbuf_addstr(&c, " --with-colons ");
	sh_quote(&c, data ? "-" : file);
	int rc = mod_sh(k->x, c.buf, data, data ? strlen(data) : 0, &cr, res);
	*id = NULL;
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("Unable to extract key from '%s'", data ? "inline data" : file);
		json_object_set_new(*res, "stdout", json_string(strbuf_str(&cr.out)));
		json_object_set_new(*res, "stderr", json_string(strbuf_str(&cr.err)));
		rc = -1;
	} else if (rc == 0) {
		json_t *keys = parse_keys(strbuf_str(&cr.out), false);
		if (json_array_size(keys))
			*id = xstrdup(json_string_value(json_array_get(keys, 0)));
		json_decref(keys);
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	return rc;
}

/* Python's int(s, 16): blanks around, a sign, an optional 0x, hex digits
 * with single underscores between them. */
static bool py_hex(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2 + (s[2] == '_');
	if (!isxdigit((unsigned char)*s))
		return false;
	while (isxdigit((unsigned char)*s) || (*s == '_' && isxdigit((unsigned char)s[1])))
		s++;
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

/* Runs `apt-key [--keyring K] VERB ARG` (stdin data when not NULL); a
 * failure "MSG" with cmd, rc, stdout, stderr and xkey: arg when xkey. */
static int apt_key_run_cmd(struct keyctx *k, const char *verb, const char *arg, const char *data,
			   const char *msg, const char *xkey, json_t **res)
{
	struct strbuf c = STRBUF_INIT, shown = STRBUF_INIT, w = STRBUF_INIT;
	struct conn_result cr;
	conn_result_init(&cr);
	strbuf_addf(&w, "%s ", verb);
	sh_quote(&w, arg);
	char *sw = xasprintf("%s %s", verb, arg);
	apt_key_cmd(k, w.buf, sw, &c, &shown);
	free(sw);
	strbuf_release(&w);
	int rc = mod_sh(k->x, c.buf, data, data ? strlen(data) : 0, &cr, res);
	if (rc == 0 && cr.rc != 0) {
		*res = res_fail("%s", msg);
		add_cmd(*res, shown.buf, &cr);
		if (xkey)
			json_object_set_new(*res, xkey, json_string(arg));
		rc = -1;
	}
	conn_result_release(&cr);
	strbuf_release(&c);
	strbuf_release(&shown);
	return rc;
}

/* A failure carrying r's fields, as fail_json(msg, **r). */
static json_t *fail_r(struct keyctx *k, json_t *res)
{
	const char *key;
	json_t *v;
	json_object_foreach(k->r, key, v)
		if (!json_object_get(res, key) || !strcmp(key, "changed"))
			json_object_set(res, key, v);
	return res;
}

static json_t *apt_key_run(struct exec_ctx *x, json_t *args)
{
	const char *state = args_str(args, "state"), *file = args_str(args, "file");
	char *id = args_strdup(args, "id"), *data = args_strdup(args, "data");
	char *gpg = NULL, *upper = NULL, *msg = NULL;
	struct keyctx k = { .x = x, .keyring = args_str(args, "keyring"), .r = json_object() };
	json_t *res = NULL, *keys = NULL, *keys2 = NULL;
	bool validate;
	if (!state)
		state = "present";
	static const char *const excl[] = { "data", "file", "keyserver", "url", NULL };
	int given = 0;
	for (const char *const *e = excl; *e; e++)
		given += json_object_get(args, *e) != NULL;
	if (given > 1) {
		res = res_fail("parameters are mutually exclusive: data|file|keyserver|url");
		goto out;
	}
	static const char *const paths[] = { "file", "keyring", NULL };
	if ((res = mod_bool_arg(args, "validate_certs", true, &validate)) ||
	    (res = mod_unexpanded("apt_key", args, paths)))
		goto out;
	if (strcmp(state, "present") && strcmp(state, "absent")) {
		res = res_fail("value of state must be one of: absent, present, got: %s", state);
		goto out;
	}
	if (json_object_get(args, "url") || json_object_get(args, "keyserver")) {
		res = res_fail("apt_key: unsupported parameter '%s'",
			       json_object_get(args, "url") ? "url" : "keyserver");
		goto out;
	}
	if (mod_bin_path(x, "apt-key", true, &k.apt_key, &res) < 0 ||
	    mod_bin_path(x, "gpg", true, &gpg, &res) < 0)
		goto out;
	json_object_set_new(k.r, "changed", json_false());
	if (!id || !*id) {
		char *found = NULL;
		if (file || (data && *data)) {
			if (key_id_of(&k, gpg, file, file ? NULL : data, &found, &res) < 0)
				goto out;
			free(id);
			id = found;
		}
	}
	json_object_set_new(k.r, "id", id ? json_string(id) : json_null());
	/* parse_key_id: hex, 8, 16 or more digits after an optional 0x */
	if (!id || !py_hex(id)) {
		res = fail_r(&k, res_fail("Invalid key_id"));
		goto out;
	}
	upper = xstrdup(id);
	for (char *p = upper; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	const char *key_id = !strncmp(upper, "0X", 2) ? upper + 2 : upper;
	size_t len = strlen(key_id);
	if (len != 8 && len != 16 && len <= 16) {
		res = fail_r(&k, res_fail("Invalid key_id"));
		goto out;
	}
	char *short_id = xstrdup(key_id + len - 8);
	char *fp = xstrdup(len > 16 ? key_id + len - 16 : key_id);
	json_object_set_new(k.r, "short_id", json_string(short_id));
	json_object_set_new(k.r, "fp", json_string(fp));
	json_object_set_new(k.r, "key_id", json_string(key_id));
	bool short_format = len == 8;
	if (all_keys(&k, short_format, &keys, &res) < 0)
		goto out_ids;
	json_object_set(k.r, "before", keys);
	if (!strcmp(state, "present")) {
		if (in_list(keys, short_format ? short_id : fp))
			goto done;
		json_object_set_new(k.r, "changed", json_true());
		if (x->check_mode)
			goto done;
		if (file) {
			msg = xasprintf("Unable to add a key from file %s", file);
			if (apt_key_run_cmd(&k, "add", file, NULL, msg, "keyfile", &res) < 0)
				goto out_ids;
		} else if (data && *data) {
			if (apt_key_run_cmd(&k, "add", "-", data, "Unable to add a key from binary data",
					    NULL, &res) < 0)
				goto out_ids;
		} else {
			res = fail_r(&k, res_fail("No key to add ... how did i get here?!?!"));
			goto out_ids;
		}
		if (all_keys(&k, short_format, &keys2, &res) < 0)
			goto out_ids;
		json_object_set(k.r, "after", keys2);
		if (!in_list(keys2, short_format ? short_id : fp)) {
			res = fail_r(&k, res_fail(NO_ERROR, "failed to add the key"));
			goto out_ids;
		}
	} else if (in_list(keys, fp)) {
		json_object_set_new(k.r, "changed", json_true());
		if (x->check_mode)
			goto done;
		/* apt-key del by the short id: older apt-key mishandles longer ones */
		char *m = xasprintf("Unable to remove a key with id %s", short_id);
		int rc = apt_key_run_cmd(&k, "del", short_id, NULL, m, "key_id", &res);
		free(m);
		if (rc < 0)
			goto out_ids;
		if (all_keys(&k, short_format, &keys2, &res) < 0)
			goto out_ids;
		json_object_set(k.r, "after", keys2);
		if (in_list(keys2, fp)) {
			res = fail_r(&k, res_fail(NO_ERROR, "the key was not removed"));
			goto out_ids;
		}
	}
done:
	res = k.r;
	k.r = NULL;
out_ids:
	free(short_id);
	free(fp);
out:
	free(id);
	free(data);
	free(gpg);
	free(upper);
	free(msg);
	free(k.apt_key);
	json_decref(k.r);
	json_decref(keys);
	json_decref(keys2);
	return res;
}

static int apt_key_check(json_t *args, struct diag *d, const struct src_loc *loc)
{
	static const char *const known[] = { "id", "data", "file", "keyring", "state",
					     "validate_certs", NULL };
	if (json_object_get(args, "url") || json_object_get(args, "keyserver")) {
		diag_error(d, IMC_EXIT_DATAERR, loc,
			   "apt_key: unsupported parameter '%s' (fetching a key is not implemented)",
			   json_object_get(args, "url") ? "url" : "keyserver");
		return -1;
	}
	return mod_check_params("apt_key", args, known, d, loc);
}

static const char *const apt_key_node_paths[] = { "file", "keyring", NULL };

const struct task_module mod_apt_key = {
	.name = "apt_key", .check = apt_key_check, .run = apt_key_run, .check_mode_native = true,
	.node_paths = apt_key_node_paths,
};
