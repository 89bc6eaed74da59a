/* main.c: imc-train's entry point (placeholder until the trainer lands). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "util/exitcode.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("imc-train %s\n", PACKAGE_VERSION);
		return IMC_EXIT_OK;
	}
	fputs("imc-train: error: not implemented yet\n", stderr);
	return IMC_EXIT_SOFTWARE;
}
