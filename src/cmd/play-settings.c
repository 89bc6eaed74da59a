/* play-settings.c: the Ansible settings `imc play` runs under. A playbook
 * means what ansible-playbook makes of it under the user's ANSIBLE_*
 * variables and ansible.cfg: force_handlers or a strategy there changes
 * the run as much as in the play. So each setting that differs from
 * Ansible's default is honoured, or is only about what is printed (a
 * warning says imc prints the default callback's output), or stops the
 * run as unsupported; none is silently ignored.
 *
 * Which settings differ, and from which origin, is asked of Ansible's own
 * resolver (ansible-config dump --only-changed -t all, base and plugin
 * settings) rather than imitated: the precedence of variables over the
 * ini file, the file's search order and each setting's aliases are its
 * own. That costs about two seconds, so it is asked only when there is a
 * configuration file or an ANSIBLE_* variable not in the table below;
 * when Ansible is not installed, the variables of that table are read
 * directly and any other is warned about. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/play-settings.h"
#include "provision/module.h"
#include "provision/play.h"
#include "util/capture.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

extern char **environ;

/* What a setting different from Ansible's default does to imc's run. */
enum kind {
	K_REFUSE,         /* changes the run in a way imc does not implement */
	K_HARMLESS,       /* changes nothing imc's run shows or does */
	K_DISPLAY,        /* changes only what is printed: a warning */
	K_REMOTE,         /* about a remote connection: harmless on the local one */
	K_WHEN_FALSE,     /* harmless while false (true is a feature imc lacks) */
	K_FORCE_HANDLERS, /* s->force_handlers */
	K_MISSING_HANDLER, /* s->missing_handler_warns when false */
	K_SAME_USER,      /* s->become_same_user */
	K_INJECT_FACTS,   /* s->facts_not_vars when false */
	K_STRATEGY,       /* s->free (a strategy imc lacks is refused) */
	K_VERBOSITY,      /* s->verbosity */
	K_EXPORT,         /* honoured through the variable imc reads it from */
	K_ROLES_PATH,     /* searched before IMC_ROLES_PATH */
	K_MODULE_PATH,    /* harmless unless a module there shadows a native one */
	K_ONLY,           /* harmless with the value in arg, else refused */
	K_INTERPRETER,    /* a path, or imc's discovery ('auto'): exported */
};

struct rule {
	const char *key; /* base setting, or TYPE.PLUGIN.NAME ("*" any) */
	const char *env; /* its variable, for reading without ansible-config */
	enum kind kind;
	const char *arg; /* K_EXPORT: the variable; K_ONLY: the value */
	/* Ansible's default ("True"/"False" compared as booleans): a setting
	 * given its default value changes nothing, whatever its kind (and
	 * ansible-config lists it as changed all the same) */
	const char *def;
};

static const struct rule rules[] = {
	{ "CONFIG_FILE", NULL, K_HARMLESS, NULL },
	{ "ANSIBLE_NOCOLOR", "ANSIBLE_NOCOLOR", K_HARMLESS, NULL },
	{ "ANSIBLE_FORCE_COLOR", "ANSIBLE_FORCE_COLOR", K_DISPLAY, NULL, "False" },
	{ "ANSIBLE_HOME", "ANSIBLE_HOME", K_HARMLESS, NULL },
	{ "DEFAULT_LOCAL_TMP", "ANSIBLE_LOCAL_TEMP", K_HARMLESS, NULL },
	{ "shell.sh.remote_tmp", "ANSIBLE_REMOTE_TEMP", K_HARMLESS, NULL },
	{ "shell.sh.remote_tmp", "ANSIBLE_REMOTE_TMP", K_HARMLESS, NULL },
	{ "shell.sh.system_tmpdirs", "ANSIBLE_SYSTEM_TMPDIRS", K_HARMLESS, NULL },
	/* warnings imc does not print in the first place */
	{ "DEPRECATION_WARNINGS", "ANSIBLE_DEPRECATION_WARNINGS", K_HARMLESS, NULL },
	{ "SYSTEM_WARNINGS", "ANSIBLE_SYSTEM_WARNINGS", K_HARMLESS, NULL },
	{ "COMMAND_WARNINGS", "ANSIBLE_COMMAND_WARNINGS", K_HARMLESS, NULL },
	{ "LOCALHOST_WARNING", "ANSIBLE_LOCALHOST_WARNING", K_HARMLESS, NULL },
	{ "ACTION_WARNINGS", "ANSIBLE_ACTION_WARNINGS", K_HARMLESS, NULL },
	{ "INVENTORY_UNPARSED_WARNING", "ANSIBLE_INVENTORY_UNPARSED_WARNING", K_HARMLESS, NULL },
	/* how fast, not what: parallelism, timeouts, polling */
	{ "DEFAULT_FORKS", "ANSIBLE_FORKS", K_HARMLESS, NULL },
	{ "DEFAULT_TIMEOUT", "ANSIBLE_TIMEOUT", K_HARMLESS, NULL },
	{ "DEFAULT_POLL_INTERVAL", "ANSIBLE_POLL_INTERVAL", K_HARMLESS, NULL },
	{ "DEFAULT_INTERNAL_POLL_INTERVAL", "ANSIBLE_INTERNAL_POLL_INTERVAL", K_HARMLESS, NULL },
	{ "DEFAULT_KEEP_REMOTE_FILES", "ANSIBLE_KEEP_REMOTE_FILES", K_HARMLESS, NULL },
	{ "DEFAULT_NO_TARGET_SYSLOG", "ANSIBLE_NO_TARGET_SYSLOG", K_HARMLESS, NULL },
	{ "DEFAULT_SYSLOG_FACILITY", "ANSIBLE_SYSLOG_FACILITY", K_HARMLESS, NULL },
	{ "RETRY_FILES_SAVE_PATH", "ANSIBLE_RETRY_FILES_SAVE_PATH", K_HARMLESS, NULL },
	{ "RETRY_FILES_ENABLED", "ANSIBLE_RETRY_FILES_ENABLED", K_WHEN_FALSE, NULL, "False" },
	{ "DEFAULT_LOAD_CALLBACK_PLUGINS", "ANSIBLE_LOAD_CALLBACK_PLUGINS", K_HARMLESS, NULL },
	{ "AGNOSTIC_BECOME_PROMPT", "ANSIBLE_AGNOSTIC_BECOME_PROMPT", K_HARMLESS, NULL },
	{ "HOST_KEY_CHECKING", "ANSIBLE_HOST_KEY_CHECKING", K_REMOTE, NULL },
	{ "DEFAULT_REMOTE_USER", "ANSIBLE_REMOTE_USER", K_REMOTE, NULL },
	{ "DEFAULT_REMOTE_PORT", "ANSIBLE_REMOTE_PORT", K_REMOTE, NULL },
	{ "DEFAULT_PRIVATE_KEY_FILE", "ANSIBLE_PRIVATE_KEY_FILE", K_REMOTE, NULL },
	{ "INTERPRETER_PYTHON", "ANSIBLE_PYTHON_INTERPRETER", K_INTERPRETER, "ANSIBLE_PYTHON_INTERPRETER" },
	{ "COLLECTIONS_PATHS", "ANSIBLE_COLLECTIONS_PATHS", K_HARMLESS, NULL },
	{ "COLLECTIONS_PATHS", "ANSIBLE_COLLECTIONS_PATH", K_HARMLESS, NULL },
	{ "COLLECTIONS_SCAN_SYS_PATH", "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", K_HARMLESS, NULL },
	/* plugins imc does not know are run by Ansible or refused when a task
	 * uses them; a module that shadows a native one is checked */
	{ "DEFAULT_MODULE_PATH", "ANSIBLE_LIBRARY", K_MODULE_PATH, NULL },
	{ "DEFAULT_ACTION_PLUGIN_PATH", "ANSIBLE_ACTION_PLUGINS", K_MODULE_PATH, NULL },
	{ "DEFAULT_MODULE_UTILS_PATH", "ANSIBLE_MODULE_UTILS", K_HARMLESS, NULL },
	{ "DEFAULT_CALLBACK_PLUGIN_PATH", "ANSIBLE_CALLBACK_PLUGINS", K_HARMLESS, NULL },
	{ "DEFAULT_CONNECTION_PLUGIN_PATH", "ANSIBLE_CONNECTION_PLUGINS", K_HARMLESS, NULL },
	{ "DEFAULT_FILTER_PLUGIN_PATH", "ANSIBLE_FILTER_PLUGINS", K_HARMLESS, NULL },
	{ "DEFAULT_LOOKUP_PLUGIN_PATH", "ANSIBLE_LOOKUP_PLUGINS", K_HARMLESS, NULL },
	{ "DEFAULT_TEST_PLUGIN_PATH", "ANSIBLE_TEST_PLUGINS", K_HARMLESS, NULL },
	/* honoured */
	{ "DEFAULT_FORCE_HANDLERS", "ANSIBLE_FORCE_HANDLERS", K_FORCE_HANDLERS, NULL, "False" },
	{ "DEFAULT_VERBOSITY", "ANSIBLE_VERBOSITY", K_VERBOSITY, NULL },
	{ "DEFAULT_ROLES_PATH", "ANSIBLE_ROLES_PATH", K_ROLES_PATH, NULL },
	{ "SHOW_CUSTOM_STATS", "ANSIBLE_SHOW_CUSTOM_STATS", K_EXPORT, "ANSIBLE_SHOW_CUSTOM_STATS" },
	{ "callback.default.show_custom_stats", NULL, K_EXPORT, "ANSIBLE_SHOW_CUSTOM_STATS" },
	{ "DEFAULT_VAULT_PASSWORD_FILE", "ANSIBLE_VAULT_PASSWORD_FILE", K_EXPORT, "ANSIBLE_VAULT_PASSWORD_FILE" },
	{ "DEFAULT_VAULT_IDENTITY", "ANSIBLE_VAULT_IDENTITY", K_EXPORT, "ANSIBLE_VAULT_IDENTITY" },
	{ "DEFAULT_VAULT_IDENTITY_LIST", "ANSIBLE_VAULT_IDENTITY_LIST", K_EXPORT, "ANSIBLE_VAULT_IDENTITY_LIST" },
	{ "DEFAULT_VAULT_ID_MATCH", "ANSIBLE_VAULT_ID_MATCH", K_EXPORT, "ANSIBLE_VAULT_ID_MATCH" },
	{ "DEFAULT_STRATEGY", "ANSIBLE_STRATEGY", K_STRATEGY, NULL, "linear" },
	/* the implicit fact gathering's setup arguments (exec-play.c reads them) */
	{ "DEFAULT_GATHER_SUBSET", "ANSIBLE_GATHER_SUBSET", K_EXPORT, "ANSIBLE_GATHER_SUBSET" },
	{ "DEFAULT_GATHER_TIMEOUT", "ANSIBLE_GATHER_TIMEOUT", K_EXPORT, "ANSIBLE_GATHER_TIMEOUT" },
	{ "HOST_PATTERN_MISMATCH", "ANSIBLE_HOST_PATTERN_MISMATCH", K_ONLY, "warning" },
	{ "CACHE_PLUGIN", "ANSIBLE_CACHE_PLUGIN", K_ONLY, "memory" },
	/* only what is printed */
	{ "DEFAULT_STDOUT_CALLBACK", "ANSIBLE_STDOUT_CALLBACK", K_DISPLAY, NULL, "default" },
	{ "CALLBACKS_ENABLED", "ANSIBLE_CALLBACKS_ENABLED", K_DISPLAY, NULL, "" },
	{ "DEFAULT_LOG_PATH", "ANSIBLE_LOG_PATH", K_DISPLAY, NULL, "" },
	{ "DISPLAY_SKIPPED_HOSTS", "ANSIBLE_DISPLAY_SKIPPED_HOSTS", K_DISPLAY, NULL, "True" },
	{ "DISPLAY_ARGS_TO_STDOUT", "ANSIBLE_DISPLAY_ARGS_TO_STDOUT", K_DISPLAY, NULL, "False" },
	{ "callback.default.display_skipped_hosts", NULL, K_DISPLAY, NULL, "True" },
	{ "callback.default.display_ok_hosts", NULL, K_DISPLAY, NULL, "True" },
	{ "callback.default.display_failed_stderr", NULL, K_DISPLAY, NULL, "False" },
	{ "callback.default.show_per_host_start", NULL, K_DISPLAY, NULL, "False" },
	{ "callback.default.check_mode_markers", NULL, K_DISPLAY, NULL, "False" },
	{ "callback.default.show_task_path_on_failure", NULL, K_DISPLAY, NULL, "False" },
	{ "callback.default.result_format", "ANSIBLE_CALLBACK_RESULT_FORMAT", K_DISPLAY, NULL, "json" },
	{ "callback.default.*", NULL, K_DISPLAY, NULL },
	{ "callback.*", NULL, K_HARMLESS, NULL },
	/* the ssh connection's own: how it connects, not what runs */
	{ "connection.ssh.remote_user", NULL, K_REMOTE, NULL },
	{ "connection.ssh.port", NULL, K_REMOTE, NULL },
	{ "connection.ssh.private_key_file", NULL, K_REMOTE, NULL },
	{ "connection.ssh.password", NULL, K_REMOTE, NULL },
	{ "connection.ssh.host", NULL, K_REMOTE, NULL },
	{ "connection.ssh.*", NULL, K_HARMLESS, NULL },
	{ "connection.paramiko_ssh.*", NULL, K_REMOTE, NULL },
	{ "connection.local.*", NULL, K_REFUSE, NULL },
	{ "connection.*", NULL, K_HARMLESS, NULL },
	{ "cache.*", NULL, K_HARMLESS, NULL },
	{ "cliconf.*", NULL, K_HARMLESS, NULL },
	{ "httpapi.*", NULL, K_HARMLESS, NULL },
	{ "netconf.*", NULL, K_HARMLESS, NULL },
	/* refused, listed for their variables so that no ansible-config is
	 * needed to say so (any other setting is refused too) */
	{ "DEFAULT_GATHERING", "ANSIBLE_GATHERING", K_REFUSE, NULL, "implicit" },
	{ "INJECT_FACTS_AS_VARS", "ANSIBLE_INJECT_FACT_VARS", K_INJECT_FACTS, NULL, "True" },
	{ "ERROR_ON_MISSING_HANDLER", "ANSIBLE_ERROR_ON_MISSING_HANDLER", K_MISSING_HANDLER, NULL, "True" },
	{ "DEFAULT_JINJA2_NATIVE", "ANSIBLE_JINJA2_NATIVE", K_REFUSE, NULL, "False" },
	{ "BECOME_ALLOW_SAME_USER", "ANSIBLE_BECOME_ALLOW_SAME_USER", K_SAME_USER, NULL, "False" },
	{ "DEFAULT_HOST_LIST", "ANSIBLE_INVENTORY", K_REFUSE, NULL },
	{ "TAGS_RUN", "ANSIBLE_RUN_TAGS", K_REFUSE, NULL, "" },
	{ "TAGS_SKIP", "ANSIBLE_SKIP_TAGS", K_REFUSE, NULL, "" },
	{ "PLAYBOOK_VARS_ROOT", "ANSIBLE_PLAYBOOK_VARS_ROOT", K_REFUSE, NULL, "top" },
	{ "ANY_ERRORS_FATAL", "ANSIBLE_ANY_ERRORS_FATAL", K_REFUSE, NULL, "False" },
	{ "DEFAULT_HASH_BEHAVIOUR", "ANSIBLE_HASH_BEHAVIOUR", K_REFUSE, NULL, "replace" },
	{ "DEFAULT_PRIVATE_ROLE_VARS", "ANSIBLE_PRIVATE_ROLE_VARS", K_REFUSE, NULL, "False" },
	{ "DEFAULT_BECOME", "ANSIBLE_BECOME", K_REFUSE, NULL, "False" },
	{ "DEFAULT_BECOME_USER", "ANSIBLE_BECOME_USER", K_REFUSE, NULL, "root" },
	{ "DEFAULT_BECOME_METHOD", "ANSIBLE_BECOME_METHOD", K_REFUSE, NULL, "sudo" },
	{ "DEFAULT_TRANSPORT", "ANSIBLE_TRANSPORT", K_REFUSE, NULL, "smart" },
	{ "DEFAULT_UNDEFINED_VAR_BEHAVIOR", "ANSIBLE_ERROR_ON_UNDEFINED_VARS", K_REFUSE, NULL, "True" },
	{ "DEFAULT_MANAGED_STR", "ANSIBLE_MANAGED", K_REFUSE, NULL, "Ansible managed" },
	{ "STRING_CONVERSION_ACTION", "ANSIBLE_STRING_CONVERSION_ACTION", K_REFUSE, NULL, "warn" },
};

static bool matches(const char *pattern, const char *key)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return strncmp(pattern, key, n - 1) == 0;
	return strcmp(pattern, key) == 0;
}

static const struct rule *rule_for_key(const char *key)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++)
		if (matches(rules[i].key, key))
			return &rules[i];
	return NULL;
}

static const struct rule *rule_for_env(const char *env)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++)
		if (rules[i].env && !strcmp(rules[i].env, env))
			return &rules[i];
	return NULL;
}

/* Ansible's boolean() of a setting's value */
static bool truthy(const json_t *v)
{
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_integer(v))
		return json_integer_value(v) == 1;
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on", NULL };
	const char *s = json_string_value(v);
	for (size_t i = 0; s && yes[i]; i++)
		if (!strcasecmp(s, yes[i]))
			return true;
	return false;
}

/* A value as the variable that carries it: lists joined by sep */
static char *text_of(const json_t *v, char sep)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_boolean(v))
		return xstrdup(json_is_true(v) ? "True" : "False");
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e) {
		char *t = text_of(e, sep);
		if (i)
			strbuf_addch(&sb, sep);
		strbuf_addstr(&sb, t);
		free(t);
	}
	return strbuf_detach(&sb);
}

/* The first file in a directory of the module path that Ansible would run
 * for a module imc runs natively (NAME or NAME.py), or NULL. */
static char *native_shadowed(json_t *dirs)
{
	json_t *list = json_is_array(dirs) ? json_incref(dirs) : json_array();
	if (json_is_string(dirs)) {
		char *s = xstrdup(json_string_value(dirs)), *save = NULL;
		for (char *t = strtok_r(s, ":", &save); t; t = strtok_r(NULL, ":", &save))
			json_array_append_new(list, json_string(t));
		free(s);
	}
	char *found = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		DIR *dir = json_string_value(e) ? opendir(json_string_value(e)) : NULL;
		struct dirent *de;
		while (dir && !found && (de = readdir(dir))) {
			char *name = xstrdup(de->d_name), *dot = strrchr(name, '.');
			if (dot && !strcmp(dot, ".py"))
				*dot = 0;
			const struct task_module *m = task_module_find(name);
			if (m && m->run)
				found = xasprintf("%s/%s", json_string_value(e), de->d_name);
			free(name);
		}
		if (dir)
			closedir(dir);
		if (found)
			break;
	}
	json_decref(list);
	return found;
}

/* Whether a setting's value is def, its default (booleans as booleans) */
static bool is_default(const char *def, const json_t *value, const char *text)
{
	if (!strcmp(def, "True"))
		return truthy(value);
	if (!strcmp(def, "False"))
		return !truthy(value);
	return !strcmp(text, def);
}

/* One setting that differs from Ansible's default: key, value, where it
 * comes from. 0, or -1 with d set when imc cannot run under it. */
static int apply(struct play_settings *s, bool local, const char *key, json_t *value, const char *origin,
		 struct diag *d)
{
	const struct rule *r = rule_for_key(key);
	enum kind k = r ? r->kind : K_REFUSE;
	char *text = text_of(value, ',');
	int rc = 0;
	if (r && r->def && is_default(r->def, value, text))
		k = K_HARMLESS;
	switch (k) {
	case K_HARMLESS:
		break;
	case K_DISPLAY:
		diag_warning(d, NULL, "Ansible setting %s = %s (%s) changes only what is printed: imc prints "
			  "what Ansible's default callback prints", key, text, origin);
		break;
	case K_REMOTE:
		if (!local)
			k = K_REFUSE;
		break;
	case K_WHEN_FALSE:
		if (truthy(value))
			k = K_REFUSE;
		break;
	case K_ONLY:
		if (strcmp(text, r->arg))
			k = K_REFUSE;
		break;
	case K_FORCE_HANDLERS:
		s->force_handlers = truthy(value);
		break;
	case K_MISSING_HANDLER:
		s->missing_handler_warns = !truthy(value);
		break;
	case K_SAME_USER:
		s->become_same_user = truthy(value);
		break;
	case K_INJECT_FACTS:
		s->facts_not_vars = !truthy(value);
		break;
	case K_STRATEGY: {
		int f = play_strategy_free(text);
		if (f < 0)
			k = K_REFUSE;
		else
			s->free = f > 0;
		break;
	}
	case K_VERBOSITY: {
		long v = strtol(text, NULL, 10);
		if (v > s->verbosity && v < 100)
			s->verbosity = (int)v;
		break;
	}
	case K_INTERPRETER:
		/* imc's discovery is Ansible's 'auto' (auto_silent only does not
		 * warn); auto_legacy prefers /usr/bin/python, which it has not */
		if (text[0] != '/' && strcmp(text, "auto") && strcmp(text, "auto_silent")) {
			k = K_REFUSE;
			break;
		}
		/* fall through */
	case K_EXPORT:
		setenv(r->arg, text, 1);
		break;
	case K_ROLES_PATH: {
		char *t = text_of(value, ':');
		const char *old = getenv("IMC_ROLES_PATH");
		char *both = old && *old ? xasprintf("%s:%s", t, old) : xstrdup(t);
		setenv("IMC_ROLES_PATH", both, 1);
		free(both);
		free(t);
		break;
	}
	case K_MODULE_PATH: {
		char *file = native_shadowed(value);
		if (file) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "unsupported Ansible setting %s (%s): its %s replaces a module imc runs natively",
				   key, origin, file);
			rc = -1;
		}
		free(file);
		break;
	}
	case K_REFUSE:
		break;
	}
	if (k == K_REFUSE && rc == 0) {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   "unsupported Ansible setting %s = %s (%s): imc does not run playbooks under it%s", key,
			   text, origin, k == K_REFUSE && r && r->kind == K_REMOTE ? " on a remote connection" : "");
		rc = -1;
	}
	free(text);
	return rc;
}

/* The ini file Ansible reads, in its order: $ANSIBLE_CONFIG (a file, or a
 * directory holding ansible.cfg), ./ansible.cfg, ~/.ansible.cfg,
 * /etc/ansible/ansible.cfg; whether there is one. */
static bool have_config_file(void)
{
	const char *env = getenv("ANSIBLE_CONFIG"), *home = getenv("HOME");
	char *cands[5] = { 0 };
	size_t n = 0;
	struct stat sb;
	if (env && *env)
		cands[n++] = stat(env, &sb) == 0 && S_ISDIR(sb.st_mode) ? xasprintf("%s/ansible.cfg", env) : xstrdup(env);
	cands[n++] = xstrdup("ansible.cfg");
	if (home && *home)
		cands[n++] = xasprintf("%s/.ansible.cfg", home);
	cands[n++] = xstrdup("/etc/ansible/ansible.cfg");
	bool found = false;
	for (size_t i = 0; i < n; i++) {
		found |= stat(cands[i], &sb) == 0 && S_ISREG(sb.st_mode);
		free(cands[i]);
	}
	return found;
}

/* Every ANSIBLE_* variable has a rule: no need to ask Ansible. */
static bool env_all_known(void)
{
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, "ANSIBLE_", 8))
			continue;
		char *name = xstrndup(*e, strcspn(*e, "="));
		bool known = !strcmp(name, "ANSIBLE_CONFIG") || rule_for_env(name);
		free(name);
		if (!known)
			return false;
	}
	return true;
}

/* The settings from the variables alone (no ini file, or no Ansible to
 * read it): each known one by its rule, an unknown one warned about. */
static int apply_env(struct play_settings *s, bool local, bool warn_unknown, struct diag *d)
{
	int rc = 0;
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, "ANSIBLE_", 8))
			continue;
		const char *eq = strchr(*e, '=');
		char *name = xstrndup(*e, eq ? (size_t)(eq - *e) : strlen(*e));
		const struct rule *r = rule_for_env(name);
		if (r) {
			json_t *v = json_string(eq ? eq + 1 : "");
			char *origin = xasprintf("env: %s", name);
			if (apply(s, local, r->key, v, origin, d) < 0)
				rc = -1;
			free(origin);
			json_decref(v);
		} else if (warn_unknown && strcmp(name, "ANSIBLE_CONFIG")) {
			diag_warning(d, NULL, "%s is not a setting imc knows, and ansible-config, which would tell, is "
				  "not installed: ignored", name);
		}
		free(name);
	}
	return rc;
}

/* One entry of the dump: {"name", "origin", "value"}; key is NAME for a
 * base setting, TYPE.PLUGIN.NAME for a plugin's. */
static int apply_entry(struct play_settings *s, bool local, const char *prefix, json_t *e, struct diag *d)
{
	const char *name = json_string_value(json_object_get(e, "name"));
	const char *origin = json_string_value(json_object_get(e, "origin"));
	if (!name)
		return 0;
	char *key = prefix ? xasprintf("%s.%s", prefix, name) : xstrdup(name);
	int rc = apply(s, local, key, json_object_get(e, "value"), origin && *origin ? origin : "default", d);
	free(key);
	return rc;
}

/* The dump of ansible-config: base settings as entries, then one
 * {"TYPE_PLUGINS": [{PLUGIN: [entries]}]} per plugin type. */
static int apply_dump(struct play_settings *s, bool local, json_t *dump, struct diag *d)
{
	int rc = 0;
	size_t i;
	json_t *e;
	json_array_foreach(dump, i, e) {
		if (json_object_get(e, "name")) {
			if (apply_entry(s, local, NULL, e, d) < 0)
				rc = -1;
			continue;
		}
		const char *type;
		json_t *plugins;
		json_object_foreach(e, type, plugins) {
			char *t = xstrndup(type, strcspn(type, "_"));
			for (char *c = t; *c; c++)
				*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
			size_t j;
			json_t *pl;
			json_array_foreach(plugins, j, pl) {
				const char *plugin;
				json_t *entries;
				json_object_foreach(pl, plugin, entries) {
					char *prefix = xasprintf("%s.%s", t, plugin);
					size_t k;
					json_t *pe;
					json_array_foreach(entries, k, pe)
						if (apply_entry(s, local, prefix, pe, d) < 0)
							rc = -1;
					free(prefix);
				}
			}
			free(t);
		}
	}
	return rc;
}

int play_settings_read(struct play_settings *s, bool local, struct diag *d)
{
	bool file = have_config_file();
	if (!file && env_all_known())
		return apply_env(s, local, false, d);
	static const char *const argv[] = { "ansible-config", "dump", "--only-changed", "-t", "all", "--format",
					    "json", NULL };
	struct strbuf out = STRBUF_INIT;
	int st = capture_output(argv, 4 << 20, &out);
	json_t *dump = st == 0 ? json_loadb(out.buf ? out.buf : "", out.len, 0, NULL) : NULL;
	strbuf_release(&out);
	int rc;
	if (json_is_array(dump)) {
		rc = apply_dump(s, local, dump, d);
	} else if (st == 127 && !file) {
		rc = apply_env(s, local, true, d);
	} else {
		diag_error(d, IMC_EXIT_DATAERR, NULL,
			   st == 127 ? "unsupported Ansible settings: there is an ansible.cfg, and ansible-config, "
				       "which reads it, is not installed"
				     : "unsupported Ansible settings: ansible-config could not read them "
				       "(ansible-config dump failed)");
		rc = -1;
	}
	json_decref(dump);
	return rc;
}
