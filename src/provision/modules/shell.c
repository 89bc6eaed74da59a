/* shell.c: the `shell` module: the command module's run (command.c) with
 * the text given to /bin/sh or `executable` instead of split into argv. */
#include "config.h"

#include "provision/modules/module-shared.h"
#include "util/banned.h"

static json_t *shell_run(struct exec_ctx *x, json_t *args)
{
	return command_module_run(x, args, true);
}

static const char *const shell_node_paths[] = { "chdir", "creates", "removes", NULL };

const struct task_module mod_shell = {
	.name = "shell", .free_form = true, .check = command_module_check, .run = shell_run,
	.check_mode_native = true,
	.node_paths = shell_node_paths,
};
