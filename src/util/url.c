/* url.c: the host of a URL, as the OpenStack backend names its Keystone
 * endpoint's server and GET /stats names a cloud's host (IM's cloud_host). */
#include "config.h"

#include <string.h>

#include "util/url.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *url_host(const char *url)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	size_t n = strcspn(p, ":/?#");
	return n ? xstrndup(p, n) : NULL;
}
