/* pause.c: the `pause` module: waits seconds or minutes on the controller
 * and answers as Ansible's pause action does. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "provision/module.h"
#include "provision/output.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Now as Python's str(datetime.datetime.now()): local time, microseconds */
static json_t *now_text(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	localtime_r(&tv.tv_sec, &tm);
	char b[40];
	strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", &tm);
	return json_sprintf("%s.%06ld", b, (long)tv.tv_usec);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The Python class of a text argument as Ansible's validation names it:
 * the YAML loader's, whether written in the task or passed through a
 * variable. NEEDSWORK: text a template builds anew is str there. */
static const char *text_class(void)
{
	return "ansible.parsing.yaml.objects.AnsibleUnicode";
}

/* seconds or minutes as the action's `int` type reads it: a number
 * (a float truncated), or text Python's int() takes; else *res is
 * Ansible's validation error. */
static int int_arg(json_t *v, const char *name, long *out, json_t **res)
{
	if (json_is_integer(v) || json_is_real(v)) {
		*out = (long)json_number_value(v);
		return 0;
	}
	const char *s = json_string_value(v);
	char *end = NULL;
	const char *p = s ? s + strspn(s, " \t\n") : "";
	long n = strtol(p, &end, 10);
	if (s && end != p && (end[strspn(end, " \t\n")] == 0)) {
		*out = n;
		return 0;
	}
	*res = res_fail("argument '%s' is of type <class '%s'> and we were unable to convert to int: "
			"invalid literal for int() with base 10: '%s'", name, text_class(), s ? s : "");
	return -1;
}

/* Ansible's pause action. With seconds or minutes: "Pausing for N
 * seconds" and how to interrupt, the prompt when one is given, then at
 * least one second (its alarm counts whole seconds). Without: the prompt
 * ("[TASK]\nPROMPT:"), and as imc's standard input is never the
 * terminal Ansible reads the answer from, its warning that it does not
 * wait, and no wait; reading an answer from a terminal imc does not do,
 * so that is refused. Then its result: the time paused in the unit asked
 * for (minutes by default), rounded to two decimals as Python prints a
 * float, no user input, rc 0, echo as given, start and stop. */
static json_t *pause_run(struct exec_ctx *x, json_t *args)
{
	json_t *sv = json_object_get(args, "seconds"), *mv = json_object_get(args, "minutes");
	json_t *ev = json_object_get(args, "echo"), *err = NULL;
	const char *prompt = json_string_value(json_object_get(args, "prompt"));
	if (sv && json_is_null(sv))
		sv = NULL;
	if (mv && json_is_null(mv))
		mv = NULL;
	/* its argument spec: any other name is refused, sorted, first */
	struct strbuf bad = STRBUF_INIT;
	const char **names = xcalloc(json_object_size(args) + 1, sizeof(*names));
	size_t nbad = 0;
	const char *k;
	json_t *v;
	json_object_foreach(args, k, v)
		if (strcmp(k, "echo") && strcmp(k, "minutes") && strcmp(k, "prompt") && strcmp(k, "seconds") && k[0] != '_')
			names[nbad++] = k;
	qsort(names, nbad, sizeof(*names), cmp_name);
	for (size_t i = 0; i < nbad; i++)
		strbuf_addf(&bad, "%s%s", i ? ", " : "", names[i]);
	free(names);
	if (nbad) {
		err = res_fail("Unsupported parameters for (pause) module: %s. Supported parameters include: echo, "
			       "minutes, prompt, seconds.", bad.buf);
		strbuf_release(&bad);
		return err;
	}
	strbuf_release(&bad);
	if (sv && mv)
		return res_fail("parameters are mutually exclusive: minutes|seconds");
	long secs = 0, mins = 0;
	if ((sv && int_arg(sv, "seconds", &secs, &err) < 0) || (mv && int_arg(mv, "minutes", &mins, &err) < 0))
		return err;
	static const char *const bools[] = { "y", "yes", "on", "1", "true", "t", "n", "no", "off", "0", "false", "f", NULL };
	bool known = !ev || json_is_boolean(ev) || json_is_null(ev) ||
		     (json_is_integer(ev) && (json_integer_value(ev) == 0 || json_integer_value(ev) == 1));
	for (size_t i = 0; !known && json_is_string(ev) && bools[i]; i++)
		known = !strcasecmp(json_string_value(ev), bools[i]);
	if (!known)
		return res_fail("argument 'echo' is of type <class '%s'> and we were unable to convert to bool: The value "
				"'%s' is not a valid boolean.  Valid booleans include: 'n', 1, 0, 't', 'false', 'off', "
				"'yes', 'y', '0', 'true', '1', 'f', 'no', 'on'",
				json_is_string(ev) ? text_class() : mod_pytype(ev),
				json_is_string(ev) ? json_string_value(ev) : "");
	bool echo = args_bool(ev, true);
	bool timed = sv || mv;
	if (!timed && isatty(STDIN_FILENO))
		return res_refused("pause without seconds or minutes waits for an answer on the terminal, which "
				   "imc does not read: not supported by imc");
	long whole = mv ? mins * 60 : secs;
	if (whole < 1)
		whole = 1;
	const char *hidden = echo ? "" : " (output is hidden)";
	char *shown = xasprintf("[%s]\n%s%s:", x->task->display, prompt ? prompt : "Press enter to continue, Ctrl+C to interrupt",
				hidden);
	struct task_out *o = x->run->out;
	if (timed) {
		out_line(o, x->host->index, "Pausing for %ld seconds%s", whole, hidden);
		out_line(o, x->host->index, "(ctrl+C then 'C' = continue early, ctrl+C then 'A' = abort)\r");
		if (prompt)
			out_line(o, x->host->index, "%s", shown);
	} else {
		out_line(o, x->host->index, "%s", shown);
		out_warning(o, "[WARNING]: Not waiting for response to prompt as stdin is not interactive");
	}
	free(shown);
	json_t *start = now_text();
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (timed)
		sleep((unsigned)whole);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	bool minutes = !sv;
	char num[64];
	snprintf(num, sizeof(num), "%.2f", minutes ? took / 60.0 : took);
	/* Python's str of the rounded float: "1.0", "1.01", "1.1" */
	size_t n = strlen(num);
	while (n > 0 && num[n - 1] == '0' && num[n - 2] != '.')
		num[--n] = 0;
	json_t *res = res_new(false);
	json_object_set_new(res, "start", start);
	json_object_set_new(res, "stop", now_text());
	json_object_set_new(res, "delta", json_integer((json_int_t)took));
	json_object_set_new(res, "stdout", json_sprintf("Paused for %s %s", num, minutes ? "minutes" : "seconds"));
	json_object_set_new(res, "stderr", json_string(""));
	json_object_set_new(res, "rc", json_integer(0));
	json_object_set_new(res, "user_input", json_string(""));
	json_object_set_new(res, "echo", json_boolean(echo));
	return res;
}

const struct task_module mod_pause = {
	.name = "pause", .controller = true, .same_in_check_mode = true, .run = pause_run,
};
