/* fuzz-inventory.c: libFuzzer harness for the INI inventory reader
 * (provision/inventory.h: sections, host lines split as shlex, Python
 * literal values, host ranges) and the groups a run is given from what it
 * read. Any text must be read or refused with an error naming its line,
 * never crash, loop or leak; a host range never makes more than the cap.
 * Built as a libFuzzer program with --enable-fuzzing (CC=clang), and as a
 * plain replay program (replay.c) without it. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "provision/inventory.h"
#include "fuzz-diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct inv_model m;
	inv_model_init(&m);
	struct diag d = DIAG_INIT;
	if (inventory_ini_parse(&m, "fuzz.ini", text, &d) == 0) {
		json_t *groups, *order, *parents;
		inventory_model_groups(&m, &groups, &order, &parents);
		json_decref(groups);
		json_decref(order);
		json_decref(parents);
	}
	fuzz_print_diag(&d);
	diag_release(&d);
	/* the first line alone, as a value and as a host pattern */
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	struct diag d2 = DIAG_INIT;
	json_decref(inventory_ini_value(text, NULL, &d2));
	json_t *names = json_array();
	int port;
	inv_expand_hosts(text, names, &port, NULL, &d2);
	json_decref(names);
	diag_release(&d2);
	inv_model_release(&m);
	free(text);
	return 0;
}
