/* train-local.h: imc-train --local, single-process training (train-local.c). */
#ifndef IMC_TRAINER_TRAIN_LOCAL_H
#define IMC_TRAINER_TRAIN_LOCAL_H

#include <stdio.h>

/* Returns an exit status (util/exitcode.h). */
int trainer_local_main(int argc, char **argv);
/* Prints the usage text of imc-train to fp. */
void trainer_usage(FILE *fp);

#endif
