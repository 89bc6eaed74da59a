/* inventory.h: Ansible inventory sources (`imc play -i FILE|DIR|a,b`) read
 * into one model, as Ansible's inventory manager builds it from its ini
 * and yaml plugins (inventory-model.c: the model and host patterns;
 * inventory-file.c: the sources, the YAML form, the group_vars/ and
 * host_vars/ directories; inventory-ini.c: the INI form with
 * Python-literal values). The run-time inventory the plays change is
 * inventory.c (run.h). An inv_model owns all its JSON. */
#ifndef IMC_PROVISION_INVENTORY_H
#define IMC_PROVISION_INVENTORY_H

#include <jansson.h>

#include "util/diag.h"

struct inv_model {
	/* host -> its inventory variables, in the order Ansible adds hosts */
	json_t *hosts;
	/* group -> {"hosts": [direct members], "children": [child groups],
	 * "vars": {...}}, in creation order; "all" and "ungrouped" first,
	 * "ungrouped" a child of "all" */
	json_t *groups;
	/* group -> {host: true, ...}: its direct members as a set, so that
	 * adding a host stays O(1) in large inventories */
	json_t *members;
	/* the directories whose group_vars/ and host_vars/ apply, in source
	 * order (a file source's directory, a directory source itself) */
	json_t *dirs;
	/* what Ansible only warns about (printed by the caller as
	 * "[WARNING]: ...") */
	json_t *warnings;
};

void inv_model_init(struct inv_model *m);
void inv_model_release(struct inv_model *m);

/* inventory-model.c: the model operations the parsers share (Ansible's
 * InventoryData): */
json_t *inv_add_group(struct inv_model *m, const char *name);
/* Adds host (when new) and puts it in group (NULL: none); port >= 0 sets
 * its ansible_port. */
void inv_add_host(struct inv_model *m, const char *host, const char *group, int port);
/* Makes child a child group of parent; -1 on a cycle (d, at loc). */
int inv_add_child(struct inv_model *m, const char *parent, const char *child,
		  const struct src_loc *loc, struct diag *d);
/* A host pattern of an inventory file ("web[01:03].example:2222",
 * "[::1]:22"): the host names into names (an array), the port into *port
 * (-1 when none). -1 with d set on a malformed one. */
int inv_expand_hosts(const char *pattern, json_t *names, int *port, const struct src_loc *loc,
		     struct diag *d);

/* inventory-ini.c: parses text (the INI form) of file into m. */
int inventory_ini_parse(struct inv_model *m, const char *file, const char *text, struct diag *d);
/* Python's ast.literal_eval of an INI value, as Ansible types them: the
 * value (new reference), or a string of s when s is no literal; NULL with
 * d set when it is a literal JSON cannot hold the same (a tuple, a set,
 * bytes, a complex number, a key that is not a string...). */
json_t *inventory_ini_value(const char *s, const struct src_loc *loc, struct diag *d);

/* inventory-file.c: one -i argument: a comma list (hosts reached by the
 * local connection, as imc play always took them), an INI or YAML file,
 * or a directory of them. */
int inventory_load(struct inv_model *m, const char *source, struct diag *d);
/* The group_vars/ and host_vars/ files of dir as {"group_vars": {NAME:
 * vars}, "host_vars": {NAME: vars}} (new reference; empty objects when
 * dir has none); NULL with d set on a file that is not a mapping or does
 * not load. */
json_t *inventory_vars_dirs(const char *dir, struct diag *d);
/* Ansible's group priorities (group -> ansible_group_priority, which is
 * no variable: taken out of file's group -> vars), new reference; NULL
 * with d set when one is not an integer. */
json_t *inventory_group_priorities(json_t *file, struct diag *d);
/* inventory-model.c: the groups object a run holds (group -> every host of it and of its
 * descendants, Ansible's order), the hosts in Ansible's order of "all"
 * (an array) and the parents of each group (group -> [parents]); new
 * references. */
void inventory_model_groups(struct inv_model *m, json_t **groups, json_t **order,
			    json_t **parents);

#endif
