/* exec-async.c: `async`/`poll`. Commands (command, shell) are started
 * detached on the node (setsid, bounded by timeout(1)), their output and
 * status kept in ~/.ansible_async/JID.* of the (become) user, so that a
 * 5-day training job survives the controller. Other modules run
 * synchronously and their result is kept in the job table of
 * modules/async_status.c, which reads both kinds back; poll waits on it,
 * recording the job's progress as it goes (exec-progress.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provision/args.h"
#include "provision/conn/conn.h"
#include "provision/exec.h"
#include "provision/module.h"
#include "provision/modules/module-shared.h"
#include "provision/output.h"
#include "provision/run.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The shell text a command-like module would run, and its cmd repr. */
static char *command_text(json_t *args, const char *module, json_t **repr)
{
	const char *raw = args_str(args, "_raw_params");
	if (!raw)
		raw = args_str(args, "cmd");
	struct strbuf c = STRBUF_INIT;
	const char *chdir = args_str(args, "chdir");
	if (chdir) {
		strbuf_addstr(&c, "cd ");
		sh_quote(&c, chdir);
		strbuf_addstr(&c, " || exit 1; ");
	}
	if (!strcmp(module, "command")) {
		json_t *w = json_is_array(json_object_get(args, "argv")) && !raw
				    ? json_deep_copy(json_object_get(args, "argv"))
				    : raw ? args_shlex(raw) : NULL;
		if (!w) {
			strbuf_release(&c);
			return NULL;
		}
		strbuf_addstr(&c, "exec");
		size_t i;
		json_t *e;
		json_array_foreach(w, i, e) {
			strbuf_addch(&c, ' ');
			sh_quote(&c, json_string_value(e) ? json_string_value(e) : "");
		}
		*repr = w;
	} else {
		if (!raw) {
			strbuf_release(&c);
			return NULL;
		}
		strbuf_addstr(&c, raw);
		*repr = json_string(raw);
	}
	return strbuf_detach(&c);
}

/* The modules whose Ansible action plugin runs on the controller without
 * async support (its ActionBase refuses the task before anything runs):
 * every module with an action plugin of its own, but command/shell,
 * package, service, reboot, uri and yum, which support it. A module
 * without an action plugin of its own runs through the normal action,
 * which supports async. */
static const char *const no_async[] = {
	"add_host", "assemble", "assert", "async_status", "copy", "debug", "fail", "fetch",
	"gather_facts", "group_by", "include_vars", "pause", "raw", "script", "set_fact",
	"set_stats", "template", "unarchive", "validate_argument_spec", "wait_for_connection",
	NULL,
};

json_t *exec_async_refusal(const struct exec_ctx *x, const struct task_module *mod)
{
	for (size_t i = 0; no_async[i]; i++)
		if (!strcmp(mod->name, no_async[i]))
			return res_fail("async is not supported for this task.");
	if (x->check_mode)
		return res_fail("check mode and async cannot be used on same task.");
	return NULL;
}

json_t *exec_async_start(struct exec_ctx *x, const struct task_module *mod, json_t *args,
			 long async_s, long poll)
{
	char *jid = async_job_new_id();
	json_t *res = NULL;
	bool cmdlike = !strcmp(mod->name, "command") || !strcmp(mod->name, "shell");
	if (cmdlike && !json_object_get(args, "creates") && !json_object_get(args, "removes") &&
	    !json_object_get(args, "stdin")) {
		json_t *repr = NULL;
		char *text = command_text(args, mod->name, &repr);
		if (!text) {
			free(jid);
			return res_fail("no command given");
		}
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "d=\"$HOME/.ansible_async\"; mkdir -p \"$d\" || exit 1; f=\"$d/\"");
		sh_quote(&c, jid);
		strbuf_addf(&c, "; : > \"$f.out\"; nohup setsid sh -c 'timeout %ld sh -c \"$1\" </dev/null >\"$2.out\" 2>\"$2.err\"; "
			    "echo $? >\"$2.rc.tmp\"; mv \"$2.rc.tmp\" \"$2.rc\"' imc-async ", async_s);
		sh_quote(&c, text);
		strbuf_addstr(&c, " \"$f\" >/dev/null 2>&1 </dev/null &");
		struct conn_result cr;
		conn_result_init(&cr);
		int rc = mod_sh(x, c.buf, NULL, 0, &cr, &res);
		strbuf_release(&c);
		free(text);
		if (rc < 0) {
			conn_result_release(&cr);
			json_decref(repr);
			free(jid);
			return res;
		}
		if (cr.rc != 0) {
			res = res_fail("could not start the async job: %s", strbuf_str(&cr.err));
			conn_result_release(&cr);
			json_decref(repr);
			free(jid);
			return res;
		}
		conn_result_release(&cr);
		async_job_add(jid, repr, NULL);
		json_decref(repr);
	} else {
		/* run it now; async_status will report the stored result */
		json_t *r = mod->run(x, args);
		json_object_set_new(r, "finished", json_integer(1));
		async_job_add(jid, NULL, r);
		json_decref(r);
	}
	if (poll <= 0) {
		res = json_pack("{s:s, s:i, s:i, s:s, s:b}", "ansible_job_id", jid, "started", 1,
				"finished", 0, "results_file", "~/.ansible_async", "changed", 1);
		free(jid);
		return res;
	}
	double end = task_now() + (double)async_s;
	struct exec_progress pg;
	exec_progress_begin(x, &pg);
	for (;;) {
		res = async_job_status(x, jid);
		exec_progress_poll(x, &pg);
		if (json_integer_value(json_object_get(res, "finished")) == 1 ||
		    json_object_get(res, "unreachable"))
			break;
		json_decref(res);
		res = NULL;
		out_line(x->run->out, x->host->index, "ASYNC POLL on %s: jid=%s started=1 finished=0",
			 x->host->name, jid);
		if (task_now() > end) {
			res = res_fail("async task did not complete within the requested time - %lds", async_s);
			json_object_set_new(res, "ansible_job_id", json_string(jid));
			exec_progress_end(&pg);
			free(jid);
			return res;
		}
		sleep((unsigned)poll);
	}
	exec_progress_end(&pg);
	out_line(x->run->out, x->host->index, "ASYNC %s on %s: jid=%s",
		 json_is_true(json_object_get(res, "failed")) ? "FAILED" : "OK", x->host->name, jid);
	free(jid);
	return res;
}
