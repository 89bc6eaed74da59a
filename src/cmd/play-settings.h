/* play-settings.h: the Ansible settings `imc play` runs under
 * (play-settings.c). */
#ifndef IMC_CMD_PLAY_SETTINGS_H
#define IMC_CMD_PLAY_SETTINGS_H

#include <stdbool.h>

#include "util/diag.h"

/* What imc takes from the settings ansible-playbook would run with. */
struct play_settings {
	bool force_handlers; /* DEFAULT_FORCE_HANDLERS */
	bool missing_handler_warns; /* ERROR_ON_MISSING_HANDLER false */
	bool become_same_user;      /* BECOME_ALLOW_SAME_USER */
	bool facts_not_vars;        /* INJECT_FACTS_AS_VARS false */
	int verbosity;       /* DEFAULT_VERBOSITY */
	bool free;           /* DEFAULT_STRATEGY is free or host_pinned */
};

/* Reads the settings ansible-playbook would run with (its ANSIBLE_*
 * variables and its ansible.cfg) and checks each against what imc does.
 * Those imc honours go to s, or to the variables through which imc reads
 * them (ANSIBLE_SHOW_CUSTOM_STATS, the vault's, IMC_ROLES_PATH,
 * ANSIBLE_GATHER_SUBSET and ANSIBLE_GATHER_TIMEOUT); those that
 * change only what is printed are warned about; any other is an error in
 * d, worded "unsupported Ansible setting ..." so that the caller can hand
 * the playbook to ansible-playbook instead (play_error_unsupported).
 * local: the play runs on the local connection, where the settings of a
 * remote connection do not apply. 0, or -1 with d set. */
int play_settings_read(struct play_settings *s, bool local, struct diag *d);

#endif
