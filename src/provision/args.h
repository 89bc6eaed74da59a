/* args.h: a task's arguments (exec-args.c): k=v strings split as
 * Ansible's parse_kv/split_args, shlex, and reading an argument as a
 * bool, string, mode or Python-rendered text. */
#ifndef IMC_PROVISION_ARGS_H
#define IMC_PROVISION_ARGS_H

#include <stdbool.h>

#include <jansson.h>

#include "util/diag.h"
#include "util/strbuf.h"

/* Splits free-form text into k=v pairs and the rest (_raw_params). check_raw:
 * only the keys in raw_keys are taken from a free-form string. */
json_t *args_parse_kv(const char *s, bool free_form, struct diag *d);
/* POSIX shlex split (for command). Returns a JSON array of strings or NULL. */
json_t *args_shlex(const char *s);
/* Option coercion helpers. */
bool args_bool(json_t *v, bool dflt);
/* Ansible's isidentifier (a variable name set_fact, set_stats and a
 * task's register accept):
 * a Python identifier (a byte past ASCII taken as a letter Python would
 * accept) that is no Python keyword, nor True, False or None. */
bool args_identifier(const char *s);
bool args_is_bool(json_t *v);
const char *args_str(json_t *args, const char *key);      /* borrowed; NULL when absent */
char *args_strdup(json_t *args, const char *key);          /* stringified copy or NULL */
/* Mode: from "0644", "644", "u=rw,g=r", or an integer; -1 when absent; -2 invalid. */
long args_mode(json_t *v, long cur_mode);
/* Python str() rendering of a value (True, None, ['a', 1]) */
void args_pystr(struct strbuf *sb, json_t *v);

#endif
