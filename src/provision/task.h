/* task.h: the executor's interfaces as they were before issue 16 split
 * them by concern: conn/conn.h (connections), play.h (the loaded
 * playbook), args.h (a task's arguments), run.h (run state), vars.h
 * (variables and templating), exec.h (the play loop), module.h (modules)
 * and output.h (the output sink). Files in src/provision include those.
 * NEEDSWORK: src/cmd/cmd-play.c and src/template/filters-data.c still
 * include this one; once they include what they use, delete it. */
#ifndef IMC_PROVISION_TASK_H
#define IMC_PROVISION_TASK_H

#include "provision/args.h"
#include "provision/conn/conn.h"
#include "provision/exec.h"
#include "provision/module.h"
#include "provision/output.h"
#include "provision/play.h"
#include "provision/run.h"
#include "provision/vars.h"

#endif
