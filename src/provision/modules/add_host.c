/* add_host.c: the `add_host` module: puts a host (name, hostname or host;
 * "NAME:PORT" sets ansible_ssh_port) in the run's in-memory inventory, in
 * the groups of groupname, groups or group (a list, or a comma-separated
 * string), with every other argument as a host variable — group and host
 * included, as Ansible keeps them. The play loop runs it once per play,
 * on the first host (Ansible's BYPASS_HOST_LOOP); free-form arguments must
 * template to a mapping, which the others override. changed is whether the
 * inventory changed; the result's add_host says what was added. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "provision/module.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* "NAME:PORT" or "[ADDR]:PORT" -> NAME and PORT (0 when none); anything
 * else is the name as given, as Ansible keeps a name it cannot parse. */
static char *split_port(const char *s, long *port)
{
	*port = 0;
	const char *colon = NULL;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end)
			return xstrdup(s);
		if (!end[1])
			return xstrndup(s + 1, (size_t)(end - s - 1));
		if (end[1] != ':')
			return xstrdup(s);
		colon = end + 1;
	} else {
		colon = strchr(s, ':');
		if (!colon || strchr(colon + 1, ':'))
			return xstrdup(s);
	}
	const char *p = colon + 1;
	if (!*p)
		return xstrdup(s);
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q))
			return xstrdup(s);
	*port = strtol(p, NULL, 10);
	return s[0] == '[' ? xstrndup(s + 1, (size_t)(colon - s - 2)) : xstrndup(s, (size_t)(colon - s));
}

/* The groups argument as Ansible splits it; NULL when it is neither a
 * list nor a string. */
static json_t *group_list(json_t *g)
{
	json_t *out = json_array();
	if (!g || (json_is_string(g) && !*json_string_value(g)))
		return out;
	json_t *items = NULL;
	if (json_is_array(g))
		items = json_incref(g);
	else if (json_is_string(g)) {
		items = json_array();
		const char *s = json_string_value(g);
		for (;;) {
			size_t n = strcspn(s, ",");
			json_array_append_new(items, json_stringn(s, n));
			if (!s[n])
				break;
			s += n + 1;
		}
	} else {
		json_decref(out);
		return NULL;
	}
	size_t i;
	json_t *e;
	json_array_foreach(items, i, e) {
		if (!json_is_string(e)) {
			json_decref(items);
			json_decref(out);
			return NULL;
		}
		/* Ansible compares the name as given with the stripped ones it kept */
		const char *s = json_string_value(e);
		size_t j;
		json_t *o;
		bool dup = false;
		json_array_foreach(out, j, o)
			dup |= !strcmp(json_string_value(o), s);
		if (dup)
			continue;
		while (isspace((unsigned char)*s))
			s++;
		size_t n = strlen(s);
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		json_array_append_new(out, json_stringn(s, n));
	}
	json_decref(items);
	return out;
}

static json_t *add_host_args(struct exec_ctx *x, json_t *args)
{
	const char *given = args_str(args, "name");
	if (!given)
		given = args_str(args, "hostname");
	if (!given)
		given = args_str(args, "host");
	if (!given)
		return res_fail("name, host or hostname needs to be provided");
	json_t *g = json_object_get(args, "groupname");
	if (!g)
		g = json_object_get(args, "groups");
	if (!g)
		g = json_object_get(args, "group");
	json_t *groups = group_list(g);
	if (!groups)
		return res_fail("Groups must be specified as a list.");
	long port;
	char *name = split_port(given, &port);
	json_t *vars = json_object();
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v)
		if (strcmp(k, "name") && strcmp(k, "hostname") && strcmp(k, "groupname") &&
		    strcmp(k, "groups"))
			json_object_set(vars, k, v);
	if (port)
		json_object_set_new(vars, "ansible_ssh_port", json_integer(port));
	bool changed = inventory_add_host(x->run, name, groups, vars);
	json_t *res = res_new(changed);
	json_object_set_new(res, "add_host", json_pack("{s:s, s:o, s:o}", "host_name", name,
						       "groups", groups, "host_vars", vars));
	free(name);
	return res;
}

static json_t *add_host_run(struct exec_ctx *x, json_t *given_args)
{
	/* free-form arguments must template to a mapping, which the other
	 * arguments override */
	json_t *raw = json_object_get(given_args, "_raw_params");
	if (raw && !json_is_object(raw))
		return res_fail("Invalid raw parameters passed, requires a dictonary/mapping got a  <class '%s'>",
				mod_pytype(raw));
	json_t *args = raw ? json_deep_copy(raw) : json_object();
	json_object_update(args, given_args);
	json_object_del(args, "_raw_params");
	json_t *res = add_host_args(x, args);
	json_decref(args);
	return res;
}

const struct task_module mod_add_host = {
	.name = "add_host", .controller = true, .same_in_check_mode = true, .bypass_host_loop = true,
	.run = add_host_run,
};
