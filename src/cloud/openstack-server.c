/* openstack-server.c: reading Nova servers. A server's IPv4 addresses
 * are classified by their OS-EXT-IPS:type (floating = public) and, for the
 * others, by whether they are routable, never by network names, which are
 * the site's choice.
 * The servers of an infrastructure are those whose metadata carries its
 * id (imc-infra-id), found by listing /servers/detail page by page: Nova
 * cannot filter on metadata, and a name can be reused by anyone. */
#include "config.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/openstack.h"
#include "util/xalloc.h"
#include "util/banned.h"

void os_server_release(struct os_server *s)
{
	free(s->id);
	free(s->status);
	free(s->fault);
	free(s->private_ip);
	free(s->public_ip);
	memset(s, 0, sizeof(*s));
	s->vm_num = -1;
}

void os_servers_free(struct os_server *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		os_server_release(&v[i]);
	free(v);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Not routable on the Internet: RFC 1918, shared (100.64/10), loopback,
 * link-local. */
static bool private_v4(const char *addr)
{
	struct in_addr a;
	if (inet_pton(AF_INET, addr, &a) != 1)
		return true;
	uint32_t b = ntohl(a.s_addr);
	return (b >> 24) == 10 || (b >> 20) == 0xac1 || (b >> 16) == 0xc0a8 ||
	       (b >> 22) == (0x64400000u >> 22) || (b >> 24) == 127 || (b >> 16) == 0xa9fe;
}

void os_server_read(json_t *server, struct os_server *out)
{
	const char *key;
	json_t *net;
	const char *floating = NULL, *routable = NULL, *fixed = NULL;
	memset(out, 0, sizeof(*out));
	out->vm_num = -1;
	json_t *id = json_object_get(server, "id");
	/* old clouds (libcloud's fixtures) have integer ids */
	out->id = json_is_integer(id) ? xasprintf("%lld", (long long)json_integer_value(id))
				      : dup_or_null(json_string_value(id));
	out->status = dup_or_null(json_string_value(json_object_get(server, "status")));
	out->fault = dup_or_null(
		json_string_value(json_object_get(json_object_get(server, "fault"), "message")));
	const char *num = json_string_value(
		json_object_get(json_object_get(server, "metadata"), OS_META_VMNUM));
	if (num) {
		char *end;
		long v = strtol(num, &end, 10);
		if (end != num && *end == '\0' && v >= 0 && v < 1000000)
			out->vm_num = (int)v;
	}
	/* A floating address is the public one; else a routable fixed one (a
	 * provider network, or an old cloud that gives no type); the private
	 * one is the first non-routable fixed address. */
	json_object_foreach(json_object_get(server, "addresses"), key, net) {
		size_t i;
		json_t *a;
		json_array_foreach(net, i, a) {
			const char *addr = json_string_value(json_object_get(a, "addr"));
			const char *type = json_string_value(json_object_get(a, "OS-EXT-IPS:type"));
			if (!addr || json_integer_value(json_object_get(a, "version")) != 4)
				continue;
			if (type && strcmp(type, "floating") == 0) {
				if (!floating)
					floating = addr;
			} else if (!private_v4(addr)) {
				if (!routable)
					routable = addr;
			} else if (!fixed) {
				fixed = addr;
			}
		}
	}
	out->public_ip = dup_or_null(floating ? floating : routable);
	out->private_ip = dup_or_null(fixed ? fixed : routable);
}

enum vm_state os_server_state(const char *status)
{
	static const struct {
		const char *status;
		enum vm_state state;
	} map[] = {
		{ "ACTIVE", VM_RUNNING },    { "BUILD", VM_PENDING },     { "REBUILD", VM_PENDING },
		{ "REBOOT", VM_PENDING },    { "HARD_REBOOT", VM_PENDING }, { "RESIZE", VM_PENDING },
		{ "VERIFY_RESIZE", VM_PENDING }, { "MIGRATING", VM_PENDING }, { "PASSWORD", VM_PENDING },
		{ "SHUTOFF", VM_STOPPED },   { "STOPPED", VM_STOPPED },   { "SUSPENDED", VM_STOPPED },
		{ "PAUSED", VM_STOPPED },    { "SHELVED", VM_STOPPED },   { "SHELVED_OFFLOADED", VM_STOPPED },
		{ "ERROR", VM_FAILED },      { "DELETED", VM_OFF },       { "SOFT_DELETED", VM_OFF },
	};
	for (size_t i = 0; status && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].status, status) == 0)
			return map[i].state;
	return VM_UNKNOWN;
}

int os_server_get(struct os_conn *c, const char *id, struct os_server *out, struct diag *d)
{
	char *path = xasprintf("/servers/%s", id);
	json_t *reply = NULL;
	struct os_error e;
	memset(out, 0, sizeof(*out));
	out->vm_num = -1;
	int rc = os_call(c, OS_COMPUTE, "GET", path, NULL, 0, &reply, &e);
	free(path);
	if (rc < 0) {
		if (e.status == 404) {
			os_error_release(&e);
			return 0;
		}
		char *what = xasprintf("read server %s", id);
		os_error_diag(&e, d, what);
		free(what);
		os_error_release(&e);
		return -1;
	}
	json_t *server = json_object_get(reply, "server");
	if (!json_is_object(server)) {
		json_decref(reply);
		diag_error(d, IMC_EXIT_UNAVAILABLE, NULL, "openstack: the reply for server %s has no server",
			   id);
		return -1;
	}
	os_server_read(server, out);
	json_decref(reply);
	return 1;
}

/* The path of the next page: servers_links' rel=next href from its
 * "/servers/detail" on (relative to the compute URL), or NULL. */
static char *next_page(json_t *reply)
{
	size_t i;
	json_t *l;
	json_array_foreach(json_object_get(reply, "servers_links"), i, l) {
		const char *rel = json_string_value(json_object_get(l, "rel"));
		const char *href = json_string_value(json_object_get(l, "href"));
		if (!rel || !href || strcmp(rel, "next") != 0)
			continue;
		const char *q = strstr(href, "/servers/detail");
		return q ? xstrdup(q) : NULL;
	}
	return NULL;
}

int os_servers_of(struct os_conn *c, const char *infra, struct os_server **v, size_t *n,
		  struct diag *d)
{
	char *path = xstrdup("/servers/detail");
	size_t alloc = 0;
	*v = NULL;
	*n = 0;
	for (int page = 0; path && page < 1000; page++) {
		json_t *reply = NULL, *s;
		struct os_error e;
		size_t i;
		if (os_call(c, OS_COMPUTE, "GET", path, NULL, 0, &reply, &e) < 0) {
			os_error_diag(&e, d, "list servers");
			os_error_release(&e);
			free(path);
			os_servers_free(*v, *n);
			*v = NULL;
			*n = 0;
			return -1;
		}
		json_array_foreach(json_object_get(reply, "servers"), i, s) {
			const char *owner = json_string_value(
				json_object_get(json_object_get(s, "metadata"), OS_META_INFRA));
			if (!owner || strcmp(owner, infra) != 0)
				continue;
			if (*n == alloc) {
				alloc = alloc ? 2 * alloc : 8;
				*v = xreallocarray(*v, alloc, sizeof(**v));
			}
			os_server_read(s, &(*v)[(*n)++]);
		}
		free(path);
		path = next_page(reply);
		json_decref(reply);
	}
	free(path);
	return 0;
}
