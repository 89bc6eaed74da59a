/* custom-stats.h: set_stats' custom stats gathered over a run
 * (custom-stats.c). */
#ifndef IMC_PROVISION_CUSTOM_STATS_H
#define IMC_PROVISION_CUSTOM_STATS_H

#include <jansson.h>

/* Adds what a task's result for host sets (its ansible_stats, or each
 * loop item's) to custom: {HOST or "_run": {NAME: VALUE}}. */
void custom_stats_record(json_t *custom, const char *host, json_t *res);

#endif
