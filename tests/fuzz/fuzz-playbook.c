/* fuzz-playbook.c: libFuzzer harness for the recipe loader: a RADL configure
 * block's YAML (play-yaml.c, with PyYAML's YAML 1.1 scalars) turned into
 * plays and tasks (play-load.c), with and without IM's header. Any text must
 * load or be refused with located errors, never crash, hang or leak. The
 * loader reads the files a recipe names (import_playbook, vars_files,
 * roles...) relative to its directory, here one that does not exist; inputs
 * with a '/' (an absolute path) or a backslash (a YAML escape that could
 * make one) are left out, so that a fuzz input never picks a file to read
 * (/dev/zero, /proc/kmsg). Built as a libFuzzer program with
 * --enable-fuzzing (CC=clang), and as a plain replay program (replay.c)
 * without it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provision/exec.h"
#include "provision/play.h"
#include "util/diag.h"

#include "fuzz-diag.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The loader asks whether Ansible knows a module name, which runs
 * 'ansible --version' once per process (seconds on a loaded machine):
 * done here, before the first input, so that it is not charged to
 * whichever unit first names a module, against libFuzzer's -timeout. The
 * replay program does without it. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	(void)fallback_resolve("ansible.builtin.ping", NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096 || memchr(data, 0, size))
		return 0;
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	if (strpbrk(text, "/\\")) {
		free(text);
		return 0;
	}
	for (int im_header = 0; im_header < 2; im_header++) {
		struct diag d = DIAG_INIT;
		diag_add_source(&d, "fuzz.yml", text, size);
		struct task_playbook *pb =
			play_load_text(text, "fuzz.yml", 0, "/nonexistent", NULL, im_header, &d);
		if (pb)
			play_free(pb);
		else
			play_error_unsupported(&d);
		fuzz_print_diag(&d);
		diag_release(&d);
	}
	free(text);
	return 0;
}
