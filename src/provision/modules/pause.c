/* pause.c: the `pause` module: waits seconds or minutes on the controller. */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "provision/module.h"
#include "util/banned.h"

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
	if (s > 0)
		usleep((useconds_t)(s * 1e6));
	json_t *res = res_new(false);
	json_object_set_new(res, "delta", json_integer((json_int_t)s));
	json_object_set_new(res, "stdout", json_string("Paused"));
	return res;
}

const struct task_module mod_pause = {
	.name = "pause", .controller = true, .same_in_check_mode = true, .run = pause_run,
};
