/* names.c: the names of imc's objects on remote clouds (see names.h). */
#include "config.h"

#include "cloud/names.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *cloud_name_key(const char *infra_id)
{
	return xasprintf("imc-%s", infra_id);
}

char *cloud_name_net(const char *infra_id, const char *net)
{
	return xasprintf("imc-%s-%s", infra_id, net);
}

char *cloud_name_vm(const char *infra_id, int num)
{
	return xasprintf("imc-%s-%d", infra_id, num);
}

char *cloud_name_prefix(const char *infra_id)
{
	return xasprintf("imc-%s-", infra_id);
}
