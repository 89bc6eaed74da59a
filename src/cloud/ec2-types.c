/* ec2-types.c: the bundled EC2 instance-type table, and the choice of the
 * cheapest type that meets a system's cpu.count, memory.size and gpu.count.
 *
 * IM downloads a price list at run time; imc bundles a small table instead,
 * so that planning works offline and gives the same answer every time.
 * Figures: vCPUs, memory (MiB) and GPUs as AWS documents them for each type;
 * prices are on-demand Linux USD/hour in us-east-1 as published by AWS in
 * 2023, used only to order the types (regional prices differ by a roughly
 * constant factor, so the order holds). A recipe that needs an exact type
 * names it with instance_type; a type not in this table is still accepted
 * then (AWS checks it). Current generations only (t3, m5, c5, r5, g4dn,
 * p3), which every commercial region offers. */
#include "config.h"

#include <fnmatch.h>
#include <string.h>

#include "cloud/ec2.h"
#include "util/banned.h"

static const struct ec2_type types[] = {
	{ "t3.nano", 2, 512, 0, 0.0052 },
	{ "t3.micro", 2, 1024, 0, 0.0104 },
	{ "t3.small", 2, 2048, 0, 0.0208 },
	{ "t3.medium", 2, 4096, 0, 0.0416 },
	{ "t3.large", 2, 8192, 0, 0.0832 },
	{ "t3.xlarge", 4, 16384, 0, 0.1664 },
	{ "t3.2xlarge", 8, 32768, 0, 0.3328 },
	{ "c5.large", 2, 4096, 0, 0.085 },
	{ "c5.xlarge", 4, 8192, 0, 0.17 },
	{ "c5.2xlarge", 8, 16384, 0, 0.34 },
	{ "c5.4xlarge", 16, 32768, 0, 0.68 },
	{ "c5.9xlarge", 36, 73728, 0, 1.53 },
	{ "c5.12xlarge", 48, 98304, 0, 2.04 },
	{ "c5.18xlarge", 72, 147456, 0, 3.06 },
	{ "c5.24xlarge", 96, 196608, 0, 4.08 },
	{ "m5.large", 2, 8192, 0, 0.096 },
	{ "m5.xlarge", 4, 16384, 0, 0.192 },
	{ "m5.2xlarge", 8, 32768, 0, 0.384 },
	{ "m5.4xlarge", 16, 65536, 0, 0.768 },
	{ "m5.8xlarge", 32, 131072, 0, 1.536 },
	{ "m5.12xlarge", 48, 196608, 0, 2.304 },
	{ "m5.16xlarge", 64, 262144, 0, 3.072 },
	{ "m5.24xlarge", 96, 393216, 0, 4.608 },
	{ "r5.large", 2, 16384, 0, 0.126 },
	{ "r5.xlarge", 4, 32768, 0, 0.252 },
	{ "r5.2xlarge", 8, 65536, 0, 0.504 },
	{ "r5.4xlarge", 16, 131072, 0, 1.008 },
	{ "r5.8xlarge", 32, 262144, 0, 2.016 },
	{ "r5.12xlarge", 48, 393216, 0, 3.024 },
	{ "r5.16xlarge", 64, 524288, 0, 4.032 },
	{ "r5.24xlarge", 96, 786432, 0, 6.048 },
	{ "g4dn.xlarge", 4, 16384, 1, 0.526 },
	{ "g4dn.2xlarge", 8, 32768, 1, 0.752 },
	{ "g4dn.4xlarge", 16, 65536, 1, 1.204 },
	{ "g4dn.8xlarge", 32, 131072, 1, 2.176 },
	{ "g4dn.12xlarge", 48, 196608, 4, 3.912 },
	{ "g4dn.16xlarge", 64, 262144, 1, 4.352 },
	{ "p3.2xlarge", 8, 62464, 1, 3.06 },
	{ "p3.8xlarge", 32, 249856, 4, 12.24 },
	{ "p3.16xlarge", 64, 499712, 8, 24.48 },
};

const struct ec2_type *ec2_types(size_t *n)
{
	*n = sizeof(types) / sizeof(types[0]);
	return types;
}

const struct ec2_type *ec2_type_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i].name, name) == 0)
			return &types[i];
	return NULL;
}

/* IM's instance_type patterns ('m5.*', 'g4dn.?xlarge') pick among the
 * matching types. Ties on price go to the earlier entry (the table order is stable), and a
 * GPU type is only chosen when GPUs are asked for: nobody wants to pay for
 * a GPU they did not request, even if it happened to be cheapest. */
const struct ec2_type *ec2_type_pick(int cpus, long long memory_bytes, int gpus)
{
	return ec2_type_pick_pattern(NULL, cpus, memory_bytes, gpus);
}

const struct ec2_type *ec2_type_pick_pattern(const char *pattern, int cpus, long long memory_bytes,
					     int gpus)
{
	const struct ec2_type *best = NULL;
	long long mib = memory_bytes > 0 ? (memory_bytes + (1 << 20) - 1) >> 20 : 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const struct ec2_type *t = &types[i];
		if (t->vcpus < cpus || t->memory_mib < mib || t->gpus < gpus)
			continue;
		if (pattern && fnmatch(pattern, t->name, 0) != 0)
			continue;
		if (gpus <= 0 && t->gpus > 0)
			continue;
		if (!best || t->usd_hour < best->usd_hour)
			best = t;
	}
	return best;
}
