/* async_status.c: the `async_status` module and the job table it reads:
 * a job started with async is either a detached command on the node,
 * whose files ~/.ansible_async/JID.{out,err,rc} are read back (finished
 * with its result, or still running), or a module run synchronously at
 * start, whose stored result is reported; mode=cleanup removes the job's
 * files. exec-async.c starts the jobs and adds them here. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "provision/module.h"
#include "provision/modules/module-shared.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct job {
	char *jid;
	json_t *cmd;      /* cmd repr (command/shell) */
	json_t *result;   /* finished result of a synchronously run module */
};

static struct job *jobs;
static size_t njobs;
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long job_seq;

char *async_job_new_id(void)
{
	pthread_mutex_lock(&jobs_lock);
	unsigned long n = ++job_seq;
	pthread_mutex_unlock(&jobs_lock);
	return xasprintf("j%lu%06lu.%d", (unsigned long)time(NULL) % 1000000ul, n, (int)getpid());
}

void async_job_add(const char *jid, json_t *cmd, json_t *result)
{
	pthread_mutex_lock(&jobs_lock);
	jobs = xreallocarray(jobs, njobs + 1, sizeof(*jobs));
	jobs[njobs].jid = xstrdup(jid);
	jobs[njobs].cmd = cmd ? json_incref(cmd) : NULL;
	jobs[njobs].result = result ? json_incref(result) : NULL;
	njobs++;
	pthread_mutex_unlock(&jobs_lock);
}

static bool find_job(const char *jid, json_t **cmd, json_t **result)
{
	bool found = false;
	pthread_mutex_lock(&jobs_lock);
	for (size_t i = 0; i < njobs; i++)
		if (!strcmp(jobs[i].jid, jid)) {
			*cmd = jobs[i].cmd ? json_incref(jobs[i].cmd) : NULL;
			*result = jobs[i].result ? json_incref(jobs[i].result) : NULL;
			found = true;
		}
	pthread_mutex_unlock(&jobs_lock);
	return found;
}

/* Reads the job files: 1 finished (res filled), 0 running, -1 error (res). */
static int job_read(struct exec_ctx *x, const char *jid, json_t *cmd, json_t **res)
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
		if (cmd)
			json_object_set(*res, "cmd", cmd);
		res_set_output(*res, &jr);
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

json_t *async_job_status(struct exec_ctx *x, const char *jid)
{
	json_t *cmd = NULL, *result = NULL;
	find_job(jid, &cmd, &result);
	json_t *res = NULL;
	if (result) {
		res = json_deep_copy(result);
		json_decref(result);
	} else {
		int r = job_read(x, jid, cmd, &res);
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

static json_t *async_status_run(struct exec_ctx *x, json_t *args)
{
	const char *jid = args_str(args, "jid");
	if (!jid)
		return res_fail("missing required arguments: jid");
	const char *mode = args_str(args, "mode");
	if (mode && !strcmp(mode, "cleanup")) {
		struct strbuf c = STRBUF_INIT;
		strbuf_addstr(&c, "rm -f \"$HOME/.ansible_async/\"");
		sh_quote(&c, jid);
		strbuf_addstr(&c, ".*");
		struct conn_result cr;
		conn_result_init(&cr);
		json_t *res = NULL;
		if (mod_sh(x, c.buf, NULL, 0, &cr, &res) == 0)
			res = json_pack("{s:b, s:s, s:b}", "changed", 0, "ansible_job_id", jid, "erased", 1);
		conn_result_release(&cr);
		strbuf_release(&c);
		return res;
	}
	return async_job_status(x, jid);
}

const struct task_module mod_async_status = {
	.name = "async_status", .run = async_status_run,
};
