/* lookup-config.c: the config lookup — the value of each named setting of
 * Ansible's own configuration (DEFAULT_ROLES_PATH, DEFAULT_TIMEOUT, ...),
 * as Ansible resolves it from its defaults, ansible.cfg (ANSIBLE_CONFIG,
 * ./ansible.cfg, ~/.ansible.cfg, /etc/ansible/ansible.cfg) and ANSIBLE_*
 * variables. Rather than a copy of that resolution, the values are the
 * ones `ansible-config dump --format json` prints, read once per process:
 * the real tool, so that they are exactly this installation's. Options:
 * on_missing error (Ansible's message), warn (its warning) or skip; the
 * plugin settings (plugin_type with plugin_name) are refused by name. Its own
 * file: it is the one lookup that asks Ansible. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "template/engine.h"
#include "util/capture.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define CONFIG_DUMP_MAX (4 << 20)

static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *dump;     /* setting name -> value, once read */
static char *dump_error; /* why it could not be read */

/* Runs ansible-config dump and keeps {name: value}; on failure, why. */
static void read_dump(void)
{
	static const char *const argv[] = { "ansible-config", "dump", "--format", "json", NULL };
	struct strbuf sb = STRBUF_INIT;
	int st = capture_output(argv, CONFIG_DUMP_MAX, &sb);
	json_t *list = st == 0 ? json_loadb(sb.buf ? sb.buf : "", sb.len, 0, NULL) : NULL;
	if (!json_is_array(list)) {
		dump_error = xstrdup(st == 127 ? "the config lookup reads Ansible's settings with ansible-config, "
						 "which is not installed"
					       : "the config lookup could not read Ansible's settings "
						 "(ansible-config dump --format json failed)");
	} else {
		dump = json_object();
		size_t i;
		json_t *e;
		json_array_foreach(list, i, e) {
			const char *name = json_string_value(json_object_get(e, "name"));
			json_t *v = json_object_get(e, "value");
			if (name && v)
				json_object_set(dump, name, v);
		}
	}
	json_decref(list);
	strbuf_release(&sb);
}

/* Python's type() of a JSON value, as Ansible's message prints it */
static const char *py_class(const json_t *v)
{
	return json_is_integer(v) ? "<class 'int'>" : json_is_real(v) ? "<class 'float'>"
	       : json_is_boolean(v) ? "<class 'bool'>" : json_is_null(v) ? "<class 'NoneType'>"
	       : json_is_array(v) ? "<class 'list'>" : "<class 'dict'>";
}

LOOKUP_FN(config)
{
	json_t *missing = kw ? json_object_get(kw, "on_missing") : NULL;
	json_t *ptype = kw ? json_object_get(kw, "plugin_type") : NULL;
	json_t *pname = kw ? json_object_get(kw, "plugin_name") : NULL;
	/* The option errors are Ansible's AnsibleOptionsError, raised even
	 * under errors='ignore', and so are imc's own refusals (what Ansible
	 * would answer is unknown, so no errors= may hide them); a missing
	 * setting is its AnsibleLookupError. lookup() reports all unwrapped. An option the plugin
	 * does not define is ignored, as Ansible's config manager reads only
	 * those it defines. */
	ev->lookup_exc = LOOKUP_OPTIONS;
	bool pt = ptype && !json_is_null(ptype), pn = pname && !json_is_null(pname);
	if (pt != pn) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos,
			 "Both plugin_type and plugin_name are required, cannot use one without the other");
		return NULL;
	}
	if (pt) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos,
			 "the config lookup's plugin settings (plugin_type, plugin_name) are not supported by imc");
		return NULL;
	}
	const char *mode = missing && !json_is_null(missing) ? json_string_value(missing) : "error";
	if (!mode || (strcmp(mode, "error") && strcmp(mode, "warn") && strcmp(mode, "skip"))) {
		char *s = val_to_cstr(missing);
		ev_error(ev, TMPL_ERR_LOOKUP, pos,
			 "Invalid value \"%s\" for configuration option \"plugin_type: lookup plugin: config "
			 "setting: on_missing \", valid values are: error, skip, warn", s);
		free(s);
		return NULL;
	}
	pthread_mutex_lock(&dump_lock);
	if (!dump && !dump_error)
		read_dump();
	pthread_mutex_unlock(&dump_lock);
	if (!dump) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s", dump_error);
		return NULL;
	}
	json_t *r = json_array();
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *t = json_array_get(terms, i);
		const char *name = json_string_value(t);
		if (!name) {
			char *s = val_to_cstr(t);
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "Invalid setting identifier, \"%s\" is not a string, its a %s",
				 s, py_class(t));
			free(s);
			json_decref(r);
			return NULL;
		}
		json_t *val = json_object_get(dump, name);
		if (val)
			json_array_append(r, val);
		else if (!strcmp(mode, "error")) {
			ev->lookup_exc = LOOKUP_RAISED;
			ev_error(ev, TMPL_ERR_LOOKUP, pos,
				 "Unable to find setting %s. module 'ansible.constants' has no attribute '%s'. "
				 "module 'ansible.constants' has no attribute '%s'", name, name, name);
			json_decref(r);
			return NULL;
		} else if (!strcmp(mode, "warn")) {
			ev_warn(ev, "Skipping, did not find setting %s", name);
		}
	}
	return r;
}
