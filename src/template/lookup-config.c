/* lookup-config.c: the config lookup — the value of each named setting of
 * Ansible's own configuration (DEFAULT_ROLES_PATH, DEFAULT_TIMEOUT, ...),
 * as Ansible resolves it from its defaults, ansible.cfg (ANSIBLE_CONFIG,
 * ./ansible.cfg, ~/.ansible.cfg, /etc/ansible/ansible.cfg) and ANSIBLE_*
 * variables. Rather than a copy of that resolution, the values are the
 * ones `ansible-config dump --format json` prints, read once per process:
 * the real tool, so that they are exactly this installation's. Options:
 * on_missing error (Ansible's message), warn (its warning) or skip. A
 * plugin's settings (plugin_type with plugin_name: the ssh connection's
 * port, the sh shell's remote_tmp...) depend on the task's variables as
 * well, so they are asked of Ansible's config manager itself, run by the
 * controller's Python with those variables (plugin_settings). Its own
 * file: it is the one lookup that asks Ansible. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "template/engine.h"
#include "util/capture.h"
#include "util/strbuf.h"
#include "util/which.h"
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

/* The lookup's plugin_type choices, as its documentation lists them */
static const char *const plugin_types[] = { "become", "cache", "callback", "cliconf", "connection", "httpapi",
					    "inventory", "lookup", "netconf", "shell", "vars", NULL };

/* Run by the controller's Python (argv: type, name, a file holding the
 * task's variables, the terms as JSON): for each term, the value
 * Ansible's config manager gives that setting of the plugin with those
 * variables (each setting's own variables, its environment variables,
 * ansible.cfg, its default, cast to its type); with no type (and "-" for
 * the file), the attribute of ansible.constants that the lookup reads
 * for a global setting. Or why not: "missing" when there is no such
 * setting (which on_missing decides about), "raise" for any other
 * AnsibleError, with its class and text, "type" for a value JSON cannot
 * hold. Prints one JSON list; exit status 3 when Ansible cannot be
 * imported. */
static const char plugin_py[] =
	"import json, sys\n"
	"try:\n"
	"    from ansible import constants as C\n"
	"    from ansible.errors import AnsibleError, AnsibleLookupError\n"
	"    import ansible.plugins.loader as loaders\n"
	"except Exception:\n"
	"    sys.exit(3)\n"
	"ptype, pname, vfile, terms = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])\n"
	"variables = None\n"
	"if vfile != '-':\n"
	"    with open(vfile) as f:\n"
	"        variables = json.load(f)\n"
	"out = []\n"
	"for term in terms:\n"
	"    try:\n"
	"        if not ptype:\n"
	"            try:\n"
	"                value = getattr(C, term)\n"
	"            except AttributeError as e:\n"
	"                out.append({'k': 'missing', 's': str(e)})\n"
	"                continue\n"
	"            if callable(value):\n"
	"                raise AnsibleLookupError('Invalid setting \"%s\" attempted' % term)\n"
	"        else:\n"
	"            plugin = getattr(loaders, ptype + '_loader').get(pname, class_only=True)\n"
	"            if plugin is None:\n"
	"                raise AnsibleLookupError('Unable to load %s plugin \"%s\"' % (ptype, pname))\n"
	"            value = C.config.get_config_value(term, plugin_type=ptype, plugin_name=plugin._load_name,\n"
	"                                              variables=variables)\n"
	"        json.dumps(value)\n"
	"        out.append({'v': value})\n"
	"    except AnsibleError as e:\n"
	"        kind = 'raise' if isinstance(e, AnsibleLookupError) or 'was not defined' not in str(e) else 'missing'\n"
	"        out.append({'k': kind, 'c': type(e).__module__ + '.' + type(e).__qualname__, 's': str(e)})\n"
	"    except TypeError as e:\n"
	"        out.append({'k': 'type', 's': str(e)})\n"
	"json.dump(out, sys.stdout)\n";

/* The task's variables as they are (the config manager reads them
 * untemplated), but for the two that hold everything else, into a
 * private file whose path is returned (NULL on failure). */
static char *write_variables(struct ev *ev)
{
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/.imc-config-vars.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	json_t *vars = json_object();
	const char *k;
	json_t *v;
	json_t *all = ev->env ? ev->env->vars : NULL;
	json_object_foreach(all, k, v)
		if (strcmp(k, "hostvars") && strcmp(k, "vars"))
			json_object_set(vars, k, v);
	FILE *f = fdopen(fd, "w");
	int rc = f ? json_dumpf(vars, f, JSON_ENCODE_ANY) : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	else if (!f)
		close(fd);
	json_decref(vars);
	if (rc < 0) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

/* What plugin_py says of each term, of a plugin's settings (ptype and
 * pname) or of global ones (both ""): a JSON list, or NULL with the error
 * recorded. */
static json_t *ask_ansible(struct ev *ev, const char *ptype, const char *pname, json_t *terms, size_t pos)
{
	char *vfile = *ptype ? write_variables(ev) : xstrdup("-");
	if (!vfile) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "the config lookup could not write the task's variables "
			 "for Ansible to read");
		return NULL;
	}
	char *tj = json_dumps(terms, JSON_COMPACT);
	const char *argv[] = { which_python(), "-c", plugin_py, ptype, pname, vfile, tj, NULL };
	struct strbuf sb = STRBUF_INIT;
	int st = capture_output(argv, CONFIG_DUMP_MAX, &sb);
	if (*ptype)
		unlink(vfile);
	free(vfile);
	free(tj);
	json_t *r = st == 0 ? json_loadb(sb.buf ? sb.buf : "", sb.len, 0, NULL) : NULL;
	strbuf_release(&sb);
	if (!json_is_array(r) || json_array_size(r) != json_array_size(terms)) {
		json_decref(r);
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s",
			 st == 3 || st == 127 ? "the config lookup reads this setting with Ansible's own "
						"configuration, and Ansible is not installed"
					      : "the config lookup could not read the setting from Ansible");
		return NULL;
	}
	return r;
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
	/* set_options first: each option against its choices, in the order
	 * the plugin defines them */
	const char *mode = missing && !json_is_null(missing) ? json_string_value(missing) : "error";
	if (!mode || (strcmp(mode, "error") && strcmp(mode, "warn") && strcmp(mode, "skip"))) {
		char *s = val_to_cstr(missing);
		ev_error(ev, TMPL_ERR_LOOKUP, pos,
			 "Invalid value \"%s\" for configuration option \"plugin_type: lookup plugin: config "
			 "setting: on_missing \", valid values are: error, skip, warn", s);
		free(s);
		return NULL;
	}
	bool pt = ptype && !json_is_null(ptype), pn = pname && !json_is_null(pname);
	char *ptype_s = pt ? val_to_cstr(ptype) : NULL;
	size_t k = 0;
	while (ptype_s && plugin_types[k] && strcmp(ptype_s, plugin_types[k]))
		k++;
	if (ptype_s && !plugin_types[k]) {
		ev_error(ev, TMPL_ERR_LOOKUP, pos,
			 "Invalid value \"%s\" for configuration option \"plugin_type: lookup plugin: config "
			 "setting: plugin_type \", valid values are: become, cache, callback, cliconf, connection, "
			 "httpapi, inventory, lookup, netconf, shell, vars", ptype_s);
		free(ptype_s);
		return NULL;
	}
	if (pt != pn) {
		free(ptype_s);
		ev_error(ev, TMPL_ERR_LOOKUP, pos,
			 "Both plugin_type and plugin_name are required, cannot use one without the other");
		return NULL;
	}
	/* the terms up to the first that is not a string (which ends the
	 * run with its error) are asked of Ansible at once */
	size_t nstr = 0;
	while (nstr < json_array_size(terms) && json_is_string(json_array_get(terms, nstr)))
		nstr++;
	/* a global setting is taken from ansible-config's dump, read once;
	 * a plugin's, or any other attribute of ansible.constants, from
	 * Ansible itself (ask_ansible) */
	bool ask = pt;
	if (!pt) {
		pthread_mutex_lock(&dump_lock);
		if (!dump && !dump_error)
			read_dump();
		pthread_mutex_unlock(&dump_lock);
		if (!dump) {
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s", dump_error);
			return NULL;
		}
		for (size_t i = 0; i < nstr; i++)
			if (!json_object_get(dump, json_string_value(json_array_get(terms, i))))
				ask = true;
	}
	json_t *settings = NULL;
	if (ask && nstr) {
		char *pname_s = pt ? val_to_cstr(pname) : xstrdup("");
		json_t *asked = json_array();
		for (size_t i = 0; i < nstr; i++)
			json_array_append(asked, json_array_get(terms, i));
		settings = ask_ansible(ev, pt ? ptype_s : "", pname_s, asked, pos);
		json_decref(asked);
		free(pname_s);
		if (!settings) {
			free(ptype_s);
			return NULL;
		}
	}
	free(ptype_s);
	json_t *r = json_array();
	char *unrepresentable = NULL;
	for (size_t i = 0; i < json_array_size(terms); i++) {
		json_t *t = json_array_get(terms, i);
		const char *name = json_string_value(t);
		if (!name) {
			char *s = val_to_cstr(t);
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "Invalid setting identifier, \"%s\" is not a string, its a %s",
				 s, py_class(t));
			free(s);
			goto fail;
		}
		/* what Ansible said of it: a value, or why none */
		json_t *said = settings ? json_array_get(settings, i) : NULL;
		json_t *val = settings ? json_object_get(said, "v") : json_object_get(dump, name);
		const char *kind = json_string_value(json_object_get(said, "k"));
		const char *why = json_string_value(json_object_get(said, "s"));
		if (val) {
			json_array_append(r, val);
		} else if (kind && !strcmp(kind, "type")) {
			/* Ansible has it (a frozenset...): only an error of a later
			 * term would come first */
			if (!unrepresentable)
				unrepresentable = xasprintf("setting %s has a value imc cannot represent: %s", name,
							    why ? why : "?");
		} else if (kind && strcmp(kind, "missing")) {
			/* raised as it is: an AnsibleLookupError or AnsibleOptionsError
			 * unwrapped, any other AnsibleError wrapped by the templar */
			const char *cls = json_string_value(json_object_get(said, "c"));
			if (cls && !strcmp(cls, "ansible.errors.AnsibleLookupError"))
				ev->lookup_exc = LOOKUP_RAISED;
			else if (!cls || strcmp(cls, LOOKUP_OPTIONS))
				ev->lookup_exc = cls;
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s", why ? why : "?");
			ev->lookup_exc = LOOKUP_OPTIONS;
			goto fail;
		} else if (!strcmp(mode, "error")) {
			ev->lookup_exc = LOOKUP_RAISED;
			/* Ansible's AnsibleLookupError, its cause's text twice */
			ev_error(ev, TMPL_ERR_LOOKUP, pos, "Unable to find setting %s. %s. %s", name, why ? why : "?",
				 why ? why : "?");
			goto fail;
		} else if (!strcmp(mode, "warn")) {
			ev_warn(ev, "Skipping, did not find setting %s", name);
		}
	}
	json_decref(settings);
	if (unrepresentable) {
		ev->lookup_exc = LOOKUP_RAISED;
		ev_error(ev, TMPL_ERR_LOOKUP, pos, "%s", unrepresentable);
		free(unrepresentable);
		json_decref(r);
		return NULL;
	}
	return r;
fail:
	free(unrepresentable);
	json_decref(settings);
	json_decref(r);
	return NULL;
}
