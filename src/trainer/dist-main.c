/* dist-main.c: imc-train --role ... (placeholder until the distributed
 * trainer lands). */
#include "config.h"

#include <stdio.h>

#include "trainer/dist.h"
#include "util/exitcode.h"
#include "util/banned.h"

int trainer_dist_main(int argc, char **argv)
{
	(void)argc; (void)argv;
	fputs("imc-train: error: distributed roles not implemented yet\n", stderr);
	return IMC_EXIT_SOFTWARE;
}
