/* exec-async.c: `async`/`poll` (the async_status module reads the jobs
 * back through exec_async_status). Commands
 * (command, shell, raw) are started detached on the node (setsid, bounded
 * by timeout(1)), their output and status kept in ~/.ansible_async/JID.*
 * of the (become) user, so that a 5-day training job survives the
 * controller; async_status reads those files back into the command's
 * result. Other modules run synchronously and their result is kept in a
 * table here, which async_status consults first. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provision/task.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct job {
	char *jid;
	json_t *cmd;      /* cmd repr (command/shell) */
	json_t *result;   /* finished result of a synchronously run module */
	bool raw;
};

static struct job *jobs;
static size_t njobs;
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long job_seq;

static char *new_jid(void)
{
	pthread_mutex_lock(&jobs_lock);
	unsigned long n = ++job_seq;
	pthread_mutex_unlock(&jobs_lock);
	return xasprintf("j%lu%06lu.%d", (unsigned long)time(NULL) % 1000000ul, n, (int)getpid());
}

static void add_job(const char *jid, json_t *cmd, json_t *result, bool raw)
{
	pthread_mutex_lock(&jobs_lock);
	jobs = xreallocarray(jobs, njobs + 1, sizeof(*jobs));
	jobs[njobs].jid = xstrdup(jid);
	jobs[njobs].cmd = cmd ? json_incref(cmd) : NULL;
	jobs[njobs].result = result ? json_incref(result) : NULL;
	jobs[njobs].raw = raw;
	njobs++;
	pthread_mutex_unlock(&jobs_lock);
}

static bool find_job(const char *jid, json_t **cmd, json_t **result, bool *raw)
{
	bool found = false;
	pthread_mutex_lock(&jobs_lock);
	for (size_t i = 0; i < njobs; i++)
		if (!strcmp(jobs[i].jid, jid)) {
			*cmd = jobs[i].cmd ? json_incref(jobs[i].cmd) : NULL;
			*result = jobs[i].result ? json_incref(jobs[i].result) : NULL;
			*raw = jobs[i].raw;
			found = true;
		}
	pthread_mutex_unlock(&jobs_lock);
	return found;
}

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

/* Reads the job files: 1 finished (res filled), 0 running, -1 error (res). */
static int job_read(struct exec_ctx *x, const char *jid, json_t *cmd, bool raw, json_t **res)
{
	struct strbuf c = STRBUF_INIT;
	strbuf_addstr(&c, "f=\"$HOME/.ansible_async/\"");
	sh_quote(&c, jid);
	/* a job that ends within a moment is reported finished, as Ansible's
	 * own polling latency would see it */
	strbuf_addstr(&c, "; i=0; while [ -f \"$f.out\" ] && [ ! -f \"$f.rc\" ] && [ $i -lt 4 ]; do "
			  "sleep 0.05; i=$((i + 1)); done");
	strbuf_addstr(&c, "; if [ -f \"$f.rc\" ]; then printf 'RC=%s\\n' \"$(cat \"$f.rc\")\"; cat \"$f.out\"; "
			  "printf '\\000'; cat \"$f.err\"; elif [ -f \"$f.out\" ]; then echo RUNNING; "
			  "else echo MISSING; fi");
	struct conn_result cr;
	conn_result_init(&cr);
	if (mod_sh(x, c.buf, NULL, 0, &cr, res) < 0) {
		strbuf_release(&c);
		conn_result_release(&cr);
		return -1;
	}
	strbuf_release(&c);
	const char *o = strbuf_str(&cr.out);
	int r;
	if (!strncmp(o, "RC=", 3)) {
		int rc = (int)strtol(o + 3, NULL, 10);
		const char *nl = strchr(o, '\n');
		const char *body = nl ? nl + 1 : o + strlen(o);
		size_t blen = cr.out.len - (size_t)(body - o);
		const char *z = memchr(body, 0, blen);
		struct conn_result jr;
		conn_result_init(&jr);
		jr.rc = rc;
		if (z) {
			strbuf_add(&jr.out, body, (size_t)(z - body));
			strbuf_add(&jr.err, z + 1, blen - (size_t)(z - body) - 1);
		} else
			strbuf_add(&jr.out, body, blen);
		*res = json_object();
		json_object_set_new(*res, "changed", json_true());
		if (cmd && !raw)
			json_object_set(*res, "cmd", cmd);
		res_set_output(*res, &jr);
		if (!raw)
			json_object_set_new(*res, "msg", json_string(""));
		if (rc != 0) {
			json_object_set_new(*res, "failed", json_true());
			json_object_set_new(*res, "msg", json_string(rc == 124 ? "Timeout exceeded" :
								      "non-zero return code"));
		}
		conn_result_release(&jr);
		r = 1;
	} else if (!strncmp(o, "RUNNING", 7))
		r = 0;
	else {
		*res = res_fail("could not find job %s", jid);
		json_object_set_new(*res, "ansible_job_id", json_string(jid));
		json_object_set_new(*res, "started", json_integer(1));
		json_object_set_new(*res, "finished", json_integer(1));
		r = -1;
	}
	conn_result_release(&cr);
	return r;
}

json_t *exec_async_status(struct exec_ctx *x, const char *jid)
{
	json_t *cmd = NULL, *result = NULL;
	bool raw = false;
	find_job(jid, &cmd, &result, &raw);
	json_t *res = NULL;
	if (result) {
		res = json_deep_copy(result);
		json_decref(result);
	} else {
		int r = job_read(x, jid, cmd, raw, &res);
		if (r == 0) {
			res = json_pack("{s:b, s:i, s:i}", "changed", 0, "started", 1, "finished", 0);
		} else if (r < 0) {
			json_decref(cmd);
			return res;
		}
	}
	json_decref(cmd);
	json_object_set_new(res, "ansible_job_id", json_string(jid));
	json_object_set_new(res, "started", json_integer(1));
	if (!json_object_get(res, "finished"))
		json_object_set_new(res, "finished", json_integer(1));
	return res;
}

json_t *exec_async_start(struct exec_ctx *x, const struct task_module *mod, json_t *args,
			 long async_s, long poll)
{
	char *jid = new_jid();
	json_t *res = NULL;
	bool cmdlike = !strcmp(mod->name, "command") || !strcmp(mod->name, "shell") ||
		       !strcmp(mod->name, "raw");
	if (cmdlike && !json_object_get(args, "creates") && !json_object_get(args, "removes") &&
	    !json_object_get(args, "stdin")) {
		json_t *repr = NULL;
		char *text = command_text(args, !strcmp(mod->name, "command") ? "command" : "shell", &repr);
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
		add_job(jid, repr, NULL, !strcmp(mod->name, "raw"));
		json_decref(repr);
	} else {
		/* run it now; async_status will report the stored result */
		json_t *r = mod->run(x, args);
		json_object_set_new(r, "finished", json_integer(1));
		add_job(jid, NULL, r, false);
		json_decref(r);
	}
	if (poll <= 0) {
		res = json_pack("{s:s, s:i, s:i, s:s, s:b}", "ansible_job_id", jid, "started", 1,
				"finished", 0, "results_file", "~/.ansible_async", "changed", 1);
		free(jid);
		return res;
	}
	double end = task_now() + (double)async_s;
	for (;;) {
		res = exec_async_status(x, jid);
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
			free(jid);
			return res;
		}
		sleep((unsigned)poll);
	}
	out_line(x->run->out, x->host->index, "ASYNC %s on %s: jid=%s",
		 json_is_true(json_object_get(res, "failed")) ? "FAILED" : "OK", x->host->name, jid);
	free(jid);
	return res;
}
