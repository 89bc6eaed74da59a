/* local.c: the 'local' cloud backend (placeholder: no operations yet). */
#include "config.h"

#include "cloud/cloud.h"
#include "util/banned.h"

const struct cloud_driver cloud_local = {
	.name = "local",
};
