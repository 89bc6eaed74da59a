/* reconfigure.c: the contextualization run again, what 'imc reconfigure'
 * and `imc serve`'s PUT /infrastructures/ID/reconfigure both do (see
 * deploy.h, deploy_reconfigure, IM's Reconfigure): when a RADL is given,
 * the infrastructure's configure sections and contextualize sentence are
 * replaced by its own first (the result checked as a whole before it is
 * stored), then a worker contextualizes the VMs listed (default all). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "deploy/deploy.h"
#include "deploy/spawn.h"
#include "util/strbuf.h"
#include "util/banned.h"

/* The stored document with FILE's configures and contextualize in place. */
static char *replace_configures(const struct radl_doc *old, const struct radl_doc *add)
{
	struct strbuf sb = STRBUF_INIT;
	if (old->description) {
		radl_print_aspect(&sb, old->description);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nansibles; i++) {
		radl_print_aspect(&sb, &old->ansibles[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nnetworks; i++) {
		radl_print_aspect(&sb, &old->networks[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nsystems; i++) {
		radl_print_aspect(&sb, &old->systems[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < old->nconfigures; i++) {
		const struct radl_configure *c = radl_find_configure(add, old->configures[i].id);
		radl_print_configure(&sb, c && !c->reference ? c : &old->configures[i]);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < add->nconfigures; i++)
		if (!add->configures[i].reference && !radl_find_configure(old, add->configures[i].id)) {
			radl_print_configure(&sb, &add->configures[i]);
			strbuf_addch(&sb, '\n');
		}
	for (size_t i = 0; i < old->ndeploys; i++) {
		radl_print_deploy(&sb, &old->deploys[i]);
		strbuf_addch(&sb, '\n');
	}
	if (add->ctxt.present)
		radl_print_contextualize(&sb, &add->ctxt);
	else if (old->ctxt.present)
		radl_print_contextualize(&sb, &old->ctxt);
	return strbuf_detach(&sb);
}

int deploy_reconfigure(struct state_store **st, const char *id, const struct deploy_submission *req,
		       const char *vms, struct diag *d)
{
	struct radl_doc *old = NULL, *add = NULL, *check = NULL;
	struct state_infra in = { 0 };
	char *text = NULL, *merged = NULL;
	json_t *vars = NULL;
	int lock = -1, rc = -1;
	/* read again under the lock: the RADL replaced is the current one */
	if (deploy_lock_live(*st, id, &lock, &in, d) < 0)
		goto out;
	if (req && (req->file || req->text)) {
		vars = in.extra_vars ? json_loads(in.extra_vars, 0, NULL) : json_object();
		if (!(old = deploy_radl(&in, d)))
			goto out;
		if (req->text)
			add = deploy_parse_radl(req->file, req->text, req->len, vars, false, &text, d);
		else
			add = deploy_load_radl_unchecked(req->file, vars, req->interactive, &text, d);
		if (!add)
			goto out;
		merged = replace_configures(old, add);
		struct diag cd = DIAG_INIT;
		check = radl_parse(in.radl_path ? in.radl_path : "infrastructure.radl", merged, strlen(merged), &cd);
		if (!check || radl_check(check, &cd) < 0) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "the configures of '%s' do not fit the infrastructure: %s",
				   req->file, diag_first_message(&cd));
			diag_release(&cd);
			goto out;
		}
		diag_release(&cd);
		if (state_infra_set_radl(*st, in.id, merged, d) < 0)
			goto out;
	}
	if (state_infra_set_phase(*st, in.id, PHASE_NEW, d) < 0 ||
	    deploy_spawn(st, in.id, lock, WORKER_CONFIGURE, vms, d) < 0)
		goto out;
	rc = 0;
out:
	state_unlock_infra(lock);
	state_infra_release(&in);
	radl_doc_free(old);
	radl_doc_free(add);
	radl_doc_free(check);
	json_decref(vars);
	free(text);
	free(merged);
	return rc;
}
