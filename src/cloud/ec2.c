/* ec2.c: the 'ec2' cloud backend (placeholder: no operations yet). */
#include "config.h"

#include "cloud/cloud.h"
#include "util/banned.h"

const struct cloud_driver cloud_ec2 = {
	.name = "ec2",
};
