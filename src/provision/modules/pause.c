/* pause.c: the `pause` module: waits seconds or minutes on the controller
 * and answers as Ansible's pause action does. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "provision/module.h"
#include "util/banned.h"

/* Ansible's pause action: at least one second (seconds under 1 are 1, as
 * its alarm counts whole seconds), then its result: the time paused in the
 * unit asked for, rounded to two decimals as Python prints a float, no
 * user input, rc 0, echo as given. */
static json_t *pause_run(struct exec_ctx *x, json_t *args)
{
	(void)x;
	double s = 0;
	json_t *sv = json_object_get(args, "seconds"), *mv = json_object_get(args, "minutes");
	if (sv)
		s = json_is_number(sv) ? json_number_value(sv) : strtod(json_string_value(sv) ? json_string_value(sv) : "0", NULL);
	if (mv)
		s += 60 * (json_is_number(mv) ? json_number_value(mv) : strtod(json_string_value(mv) ? json_string_value(mv) : "0", NULL));
	if (!sv && !mv && json_object_get(args, "prompt"))
		return res_fail("pause with a prompt needs a terminal; imc runs unattended");
	long whole = (long)s;
	if (whole < 1)
		whole = 1;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sleep((unsigned)whole);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	bool minutes = mv && !sv;
	char num[64];
	snprintf(num, sizeof(num), "%.2f", minutes ? took / 60.0 : took);
	/* Python's str of the rounded float: "1.0", "1.01", "1.1" */
	size_t n = strlen(num);
	while (n > 0 && num[n - 1] == '0' && num[n - 2] != '.')
		num[--n] = 0;
	json_t *res = res_new(false);
	json_object_set_new(res, "delta", json_integer((json_int_t)took));
	json_object_set_new(res, "stdout", json_sprintf("Paused for %s %s", num, minutes ? "minutes" : "seconds"));
	json_object_set_new(res, "stderr", json_string(""));
	json_object_set_new(res, "rc", json_integer(0));
	json_object_set_new(res, "user_input", json_string(""));
	json_object_set_new(res, "echo", json_boolean(args_bool(json_object_get(args, "echo"), true)));
	return res;
}

const struct task_module mod_pause = {
	.name = "pause", .controller = true, .same_in_check_mode = true, .run = pause_run,
};
