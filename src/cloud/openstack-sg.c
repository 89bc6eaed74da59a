/* openstack-sg.c: Neutron security groups. Each RADL network of an
 * infrastructure gets one group named imc-INFRA-NET (deterministic, so a
 * retried or resumed deployment finds it instead of making a second one).
 * Its description records the infrastructure and whether the network is
 * public, which is how a later process (adding a VM) knows to give the VM
 * a floating IP without a state file of its own. The rules: the outports
 * (parsed by the EC2 backend's reader, which implements RADL's syntax and
 * opens 22/tcp on a public network), plus tcp and udp from the group
 * itself, as IM does (the nodes of a network talk freely).
 *
 * Idempotent: an existing group is reused, and a rule Neutron already has
 * (409 SecurityGroupRuleExists) counts as made. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cloud/ec2.h"
#include "cloud/openstack.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

static char *describe(const char *infra, const char *net, bool public)
{
	return xasprintf("%s=%s net=%s %s", OS_META_INFRA, infra, net, public ? "public" : "private");
}

int os_sg_lookup(struct os_conn *c, const char *name, char **id, bool *public, struct diag *d)
{
	char *q = os_urlencode(name), *path = xasprintf("/security-groups?name=%s", q);
	json_t *reply = NULL, *g;
	struct os_error e;
	size_t i;
	int ret = 0;
	*id = NULL;
	free(q);
	if (os_call(c, OS_NETWORK, "GET", path, NULL, 0, &reply, &e) < 0) {
		char *what = xasprintf("look up security group '%s'", name);
		os_error_diag(&e, d, what);
		free(what);
		os_error_release(&e);
		free(path);
		return -1;
	}
	json_array_foreach(json_object_get(reply, "security_groups"), i, g) {
		const char *n = json_string_value(json_object_get(g, "name"));
		const char *gid = json_string_value(json_object_get(g, "id"));
		const char *desc = json_string_value(json_object_get(g, "description"));
		if (!n || !gid || strcmp(n, name) != 0)
			continue;
		*id = xstrdup(gid);
		if (public) {
			size_t dl = desc ? strlen(desc) : 0;
			*public = dl >= 7 && strcmp(desc + dl - 7, " public") == 0;
		}
		ret = 1;
		break;
	}
	json_decref(reply);
	free(path);
	return ret;
}

static int add_rule(struct os_conn *c, const char *gid, const char *proto, int from, int to,
		    const char *cidr, const char *remote_group, struct diag *d)
{
	json_t *r = json_pack("{s:s,s:s,s:s}", "security_group_id", gid, "direction", "ingress",
			      "ethertype", "IPv4");
	json_object_set_new(r, "protocol", json_string(proto));
	if (from >= 0) {
		json_object_set_new(r, "port_range_min", json_integer(from));
		json_object_set_new(r, "port_range_max", json_integer(to));
	}
	if (cidr)
		json_object_set_new(r, "remote_ip_prefix", json_string(cidr));
	if (remote_group)
		json_object_set_new(r, "remote_group_id", json_string(remote_group));
	json_t *body = json_pack("{s:o}", "security_group_rule", r);
	struct os_error e;
	int rc = os_call(c, OS_NETWORK, "POST", "/security-group-rules", body, 0, NULL, &e);
	json_decref(body);
	if (rc < 0 && e.status != 409) {
		char *what = xasprintf("add a %s rule to security group %s", proto, gid);
		os_error_diag(&e, d, what);
		free(what);
		os_error_release(&e);
		return -1;
	}
	os_error_release(&e);
	return 0;
}

int os_sg_ensure(struct os_conn *c, const char *infra, const char *name, const char *net,
		 bool public, const char *outports, char **id, struct diag *d)
{
	struct ec2_rule *rules = NULL;
	size_t n = 0;
	int ret = -1;
	*id = NULL;
	if (ec2_outports_parse(net, outports, public, &rules, &n, d) < 0)
		return -1;
	int rc = os_sg_lookup(c, name, id, NULL, d);
	if (rc < 0)
		goto out;
	if (rc == 0) {
		char *desc = describe(infra, net, public);
		json_t *body = json_pack("{s:{s:s,s:s}}", "security_group", "name", name,
					 "description", desc), *reply = NULL;
		struct os_error e;
		free(desc);
		rc = os_call(c, OS_NETWORK, "POST", "/security-groups", body, 0, &reply, &e);
		json_decref(body);
		if (rc < 0) {
			char *what = xasprintf("create security group '%s'", name);
			os_error_diag(&e, d, what);
			free(what);
			os_error_release(&e);
			goto out;
		}
		const char *gid = json_string_value(
			json_object_get(json_object_get(reply, "security_group"), "id"));
		if (gid)
			*id = xstrdup(gid);
		json_decref(reply);
		if (!*id) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "openstack: the reply creating security group '%s' has no id", name);
			goto out;
		}
		log_info("openstack", "security group %s is %s", name, *id);
	}
	if (add_rule(c, *id, "tcp", -1, -1, NULL, *id, d) < 0 ||
	    add_rule(c, *id, "udp", -1, -1, NULL, *id, d) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (add_rule(c, *id, rules[i].proto, rules[i].from, rules[i].to, rules[i].cidr, NULL,
			     d) < 0)
			goto out;
	ret = 0;
out:
	if (ret < 0) {
		free(*id);
		*id = NULL;
	}
	free(rules);
	return ret;
}
