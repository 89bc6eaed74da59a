/* dist.h: entry point of imc-train's distributed roles (ps, chief, worker),
 * called by main.c when --role is given. */
#ifndef IMC_TRAINER_DIST_H
#define IMC_TRAINER_DIST_H

/* Returns an exit status. */
int trainer_dist_main(int argc, char **argv);

#endif
