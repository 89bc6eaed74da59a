/* module-paths.c: a module's 'path' parameters as Ansible's AnsibleModule
 * reads them on the node (_check_type_path): os.path.expandvars with the
 * module's environment (the node's, plus the task's environment:), then
 * os.path.expanduser with the module's user (the become user: sudo -H
 * sets $HOME). imc's modules run as shell commands, where a ~ or a $ in a
 * quoted word stays text, so the parameters are expanded here first, with
 * Python's rules (util/pypath.c) and the values the node answers: at most
 * two round trips, and only for a task whose path has a '$' or a leading
 * '~'. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/pypath.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The parameter's strings that may expand, as pointers into args; a list
 * parameter ("NAME[]") given as a comma-separated string is split first,
 * as Ansible's list type does before the module expands each path. */
static void collect(json_t *args, const char *spec, json_t *slots)
{
	size_t n = strlen(spec);
	bool list = n > 2 && !strcmp(spec + n - 2, "[]");
	char *name = xstrndup(spec, list ? n - 2 : n);
	json_t *v = json_object_get(args, name);
	if (list && json_is_string(v) && strchr(json_string_value(v), ',') &&
	    pypath_may_expand(json_string_value(v))) {
		json_t *arr = json_array();
		const char *p = json_string_value(v);
		for (;;) {
			const char *c = strchr(p, ',');
			json_array_append_new(arr, json_stringn(p, c ? (size_t)(c - p) : strlen(p)));
			if (!c)
				break;
			p = c + 1;
		}
		json_object_set_new(args, name, arr);
		v = arr;
	}
	if (json_is_string(v) && pypath_may_expand(json_string_value(v)))
		json_array_append_new(slots, json_pack("[O,s]", args, name));
	else if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			if (json_is_string(e) && pypath_may_expand(json_string_value(e)))
				json_array_append_new(slots, json_pack("[O,I]", v, (json_int_t)i));
	}
	free(name);
}

static json_t *slot_get(json_t *slot)
{
	json_t *c = json_array_get(slot, 0), *k = json_array_get(slot, 1);
	return json_is_string(k) ? json_object_get(c, json_string_value(k))
				 : json_array_get(c, (size_t)json_integer_value(k));
}

static void slot_set(json_t *slot, char *s)
{
	json_t *c = json_array_get(slot, 0), *k = json_array_get(slot, 1);
	if (json_is_string(k))
		json_object_set_new(c, json_string_value(k), json_string(s));
	else
		json_array_set_new(c, (size_t)json_integer_value(k), json_string(s));
	free(s);
}

/* pypath callbacks: while asking, record what is looked up (the answer is
 * "unset"); once answered, read the node's answers. */
struct lookups {
	json_t *asked;   /* names (or users, "" for the module's own) */
	json_t *answers; /* name -> value, or null when unset */
};

static const char *recorded(struct lookups *l, const char *key)
{
	if (l->answers) {
		json_t *v = json_object_get(l->answers, key);
		return json_string_value(v);
	}
	json_object_set_new(l->asked, key, json_null());
	return NULL;
}

static const char *env_of(void *ud, const char *name)
{
	return recorded(ud, name);
}

static const char *home_of(void *ud, const char *user)
{
	return recorded(ud, user ? user : "");
}

static bool shell_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

/* One round trip: each asked key's value, "s"VALUE or "u" (unset), NUL
 * terminated, in the order asked. homes: the keys are users. */
static int ask_node(struct exec_ctx *x, struct lookups *l, bool homes, json_t **res)
{
	struct strbuf cmd = STRBUF_INIT;
	const char *k;
	json_t *v;
	json_object_foreach(l->asked, k, v) {
		if (homes && !*k)
			/* os.path.expanduser: $HOME, else the passwd entry */
			strbuf_addstr(&cmd, "if [ \"${HOME+s}\" = s ]; then printf 's%s\\0' \"$HOME\"; "
					    "elif imc_e=$(getent passwd \"$(id -u)\"); then "
					    "printf 's%s\\0' \"$(printf '%s\\n' \"$imc_e\" | cut -d: -f6)\"; "
					    "else printf 'u\\0'; fi; ");
		else if (homes && strspn(k, "0123456789") != strlen(k)) {
			/* pwd.getpwnam: by name only (getent would take a uid) */
			strbuf_addstr(&cmd, "if imc_e=$(getent passwd -- ");
			sh_quote(&cmd, k);
			strbuf_addstr(&cmd, "); then printf 's%s\\0' \"$(printf '%s\\n' \"$imc_e\" | cut -d: -f6)\"; "
					    "else printf 'u\\0'; fi; ");
		} else if (!homes && shell_name(k))
			strbuf_addf(&cmd, "if [ \"${%s+s}\" = s ]; then printf 's%%s\\0' \"$%s\"; "
					  "else printf 'u\\0'; fi; ", k, k);
		else
			strbuf_addstr(&cmd, "printf 'u\\0'; ");
	}
	struct conn_result cr;
	conn_result_init(&cr);
	int rc = mod_sh(x, strbuf_str(&cmd), NULL, 0, &cr, res);
	strbuf_release(&cmd);
	if (rc < 0) {
		conn_result_release(&cr);
		return -1;
	}
	l->answers = json_object();
	const char *p = strbuf_str(&cr.out), *end = p + cr.out.len;
	json_object_foreach(l->asked, k, v) {
		if (p >= end)
			break;
		size_t n = strnlen(p, (size_t)(end - p));
		json_object_set_new(l->answers, k, *p == 's' ? json_stringn(p + 1, n - 1) : json_null());
		p += n + 1;
	}
	conn_result_release(&cr);
	return 0;
}

/* Expands every slot with f (expandvars or expanduser) in two passes: one
 * to learn what it looks up, one with the node's answers. */
static int expand_slots(struct exec_ctx *x, json_t *slots, bool homes, json_t **res)
{
	struct lookups l = { .asked = json_object(), .answers = NULL };
	size_t i;
	json_t *slot;
	json_array_foreach(slots, i, slot) {
		const char *s = json_string_value(slot_get(slot));
		free(homes ? pypath_expanduser(s, home_of, &l) : pypath_expandvars(s, env_of, &l));
	}
	int rc = 0;
	if (json_object_size(l.asked) && (rc = ask_node(x, &l, homes, res)) == 0)
		json_array_foreach(slots, i, slot) {
			const char *s = json_string_value(slot_get(slot));
			slot_set(slot, homes ? pypath_expanduser(s, home_of, &l) : pypath_expandvars(s, env_of, &l));
		}
	json_decref(l.asked);
	json_decref(l.answers);
	return rc;
}

int mod_expand_paths(struct exec_ctx *x, json_t *args, const char *const *names, json_t **res)
{
	json_t *slots = json_array();
	for (size_t i = 0; names && names[i]; i++)
		collect(args, names[i], slots);
	int rc = 0;
	if (json_array_size(slots))
		rc = expand_slots(x, slots, false, res);
	if (rc == 0 && json_array_size(slots))
		rc = expand_slots(x, slots, true, res);
	json_decref(slots);
	return rc;
}

int mod_expand_action_home(struct exec_ctx *x, json_t *args, const char *const *names, json_t **res)
{
	json_t *slots = json_array();
	for (size_t i = 0; names && names[i]; i++)
		collect(args, names[i], slots);
	/* "~" alone names the user whose home it is: the become user, else
	 * the connection's; "~NAME" that user, $HOME never */
	const char *user = x->become_user ? x->become_user : x->conn->user;
	json_t *tilde = json_array();
	size_t i;
	json_t *slot;
	json_array_foreach(slots, i, slot) {
		const char *s = json_string_value(slot_get(slot));
		if (s[0] != '~')
			continue;
		if ((s[1] == '/' || !s[1]) && user && *user)
			slot_set(slot, xasprintf("~%s%s", user, s + 1));
		json_array_append(tilde, slot);
	}
	int rc = json_array_size(tilde) ? expand_slots(x, tilde, true, res) : 0;
	json_decref(tilde);
	json_decref(slots);
	return rc;
}

