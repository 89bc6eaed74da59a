/* ec2-sg.c: security groups. Each RADL network of an infrastructure gets
 * one group named imc-INFRA-NET (deterministic, so a retried or resumed
 * deployment finds it instead of making a second one), tagged with the
 * infrastructure id (so cleanup finds it even when the store lost it).
 * Its ingress rules come from the network's outports: single ports, a:b
 * ranges, tcp/udp/icmp, an optional source CIDR; for a remote-local
 * mapping only the remote port is opened, as IM does.
 * 22/tcp is always open on a public network, and all traffic from the
 * group itself is allowed (the nodes of a network talk freely).
 *
 * Every step is idempotent: CreateSecurityGroup answered with
 * InvalidGroup.Duplicate means an earlier attempt made it (the name is
 * ours), InvalidPermission.Duplicate means the rule is there already. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/ec2.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* PORT [":" PORT] ["/" PROTO]; returns 0 and advances *sp. */
static int parse_portspec(const char **sp, int *from, int *to, char proto[8])
{
	const char *s = *sp;
	char *end;
	if (!isdigit((unsigned char)*s))
		return -1;
	long a = strtol(s, &end, 10), b = a;
	s = end;
	if (*s == ':') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		b = strtol(s, &end, 10);
		s = end;
	}
	proto[0] = '\0';
	if (*s == '/') {
		s++;
		size_t k = 0;
		while (*s >= 'a' && *s <= 'z' && k < 7)
			proto[k++] = *s++;
		proto[k] = '\0';
		if (strcmp(proto, "tcp") && strcmp(proto, "udp") && strcmp(proto, "icmp"))
			return -1;
	}
	if (a < 0 || a > 65535 || b < a || b > 65535)
		return -1;
	*from = (int)a;
	*to = (int)b;
	*sp = s;
	return 0;
}

/* d.d.d.d/n followed by '-': returns its length, or 0. */
static size_t cidr_prefix(const char *s)
{
	const char *p = s;
	for (int oct = 0; oct < 4; oct++) {
		int k = 0;
		while (isdigit((unsigned char)*p) && k < 4)
			p++, k++;
		if (k < 1 || k > 3)
			return 0;
		if (oct < 3) {
			if (*p != '.')
				return 0;
			p++;
		}
	}
	if (*p++ != '/')
		return 0;
	int k = 0;
	while (isdigit((unsigned char)*p))
		p++, k++;
	if (k < 1 || k > 2 || *p != '-')
		return 0;
	return (size_t)(p - s);
}

static void add_rule(struct ec2_rule **v, size_t *n, const char *proto, int from, int to,
		     const char *cidr)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].proto, proto) == 0 && (*v)[i].from == from &&
		    (*v)[i].to == to && strcmp((*v)[i].cidr, cidr) == 0)
			return;
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	struct ec2_rule *r = &(*v)[(*n)++];
	memset(r, 0, sizeof(*r));
	snprintf(r->proto, sizeof(r->proto), "%s", proto);
	r->from = from;
	r->to = to;
	snprintf(r->cidr, sizeof(r->cidr), "%s", cidr);
}

int ec2_outports_parse(const char *net, const char *outports, bool public,
		       struct ec2_rule **rules, size_t *n, struct diag *d)
{
	*rules = NULL;
	*n = 0;
	if (outports && !*outports) {
		diag_error(d, IMC_EXIT_DATAERR, NULL, "network '%s': empty outports", net);
		return -1;
	}
	const char *p = outports ? outports : "";
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char *part = xstrndup(p, len);
		const char *s = part;
		char cidr[48] = "0.0.0.0/0";
		char rproto[8], lproto[8];
		int rfrom, rto, lfrom, lto;
		size_t cl = cidr_prefix(s);
		if (cl) {
			snprintf(cidr, sizeof(cidr), "%.*s", (int)cl, s);
			s += cl + 1;
		}
		int bad = parse_portspec(&s, &rfrom, &rto, rproto);
		lproto[0] = '\0';
		if (!bad && *s == '-') {
			s++;
			bad = parse_portspec(&s, &lfrom, &lto, lproto);
		}
		if (!bad && *s)
			bad = -1;
		if (!bad) {
			/* The first protocol defaults to tcp and the second to the
			 * first; if they differ the entry is invalid (so 8080-80/udp
			 * is refused while 8080/udp-80 is fine, as IM's RADL reader does). */
			const char *rp = rproto[0] ? rproto : "tcp";
			const char *lp = lproto[0] ? lproto : rp;
			if (strcmp(lp, rp) != 0) {
				bad = -1;
			} else if (strcmp(rp, "icmp") == 0) {
				add_rule(rules, n, "icmp", -1, -1, cidr);
			} else {
				add_rule(rules, n, rp, rfrom, rto, cidr);
			}
		}
		if (bad) {
			diag_error(d, IMC_EXIT_DATAERR, NULL,
				   "network '%s': invalid outports entry '%s' (want [CIDR-]PORT[:PORT][/tcp|udp|icmp][-PORT[/PROTO]])",
				   net, part);
			free(part);
			free(*rules);
			*rules = NULL;
			*n = 0;
			return -1;
		}
		free(part);
		if (!comma)
			break;
		p = comma + 1;
		if (!*p) {
			diag_error(d, IMC_EXIT_DATAERR, NULL, "network '%s': trailing comma in outports",
				   net);
			free(*rules);
			*rules = NULL;
			*n = 0;
			return -1;
		}
	}
	if (public)
		add_rule(rules, n, "tcp", 22, 22, "0.0.0.0/0");
	return 0;
}

int ec2_sg_lookup(struct ec2_conn *c, const char *name, char **group_id, struct diag *d)
{
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	char **ids = NULL;
	size_t n = 0;

	*group_id = NULL;
	ec2_query_init(&q, "DescribeSecurityGroups");
	ec2_query_add(&q, "Filter.1.Name", "group-name");
	ec2_query_add(&q, "Filter.1.Value.1", name);
	int rc = ec2_call(c, &q, &doc, &e);
	ec2_query_release(&q);
	if (rc < 0) {
		char *what = xasprintf("look up security group '%s'", name);
		ec2_error_diag(c, &e, d, what);
		free(what);
		ec2_error_release(&e);
		return -1;
	}
	ec2_xml_set_values(doc, "securityGroupInfo", "groupId", &ids, &n);
	xmlFreeDoc(doc);
	if (n)
		*group_id = xstrdup(ids[0]);
	ec2_strv_free(ids, n);
	return 0;
}

/* Permission k: rule r, or all traffic from group gid itself when r is NULL. */
static void add_permission(struct ec2_query *q, int k, const struct ec2_rule *r, const char *gid)
{
	if (!r) {
		ec2_query_addf(q, "-1", "IpPermissions.%d.IpProtocol", k);
		ec2_query_addf(q, gid, "IpPermissions.%d.Groups.1.GroupId", k);
		return;
	}
	char buf[16];
	ec2_query_addf(q, r->proto, "IpPermissions.%d.IpProtocol", k);
	snprintf(buf, sizeof(buf), "%d", r->from);
	ec2_query_addf(q, buf, "IpPermissions.%d.FromPort", k);
	snprintf(buf, sizeof(buf), "%d", r->to);
	ec2_query_addf(q, buf, "IpPermissions.%d.ToPort", k);
	ec2_query_addf(q, r->cidr, "IpPermissions.%d.IpRanges.1.CidrIp", k);
}

/* Authorizes one permission (r, or self when r is NULL); a duplicate is fine. */
static int authorize(struct ec2_conn *c, const char *gid, const struct ec2_rule *r,
		     struct diag *d)
{
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	ec2_query_init(&q, "AuthorizeSecurityGroupIngress");
	ec2_query_add(&q, "GroupId", gid);
	add_permission(&q, 1, r, gid);
	int rc = ec2_call(c, &q, &doc, &e);
	ec2_query_release(&q);
	xmlFreeDoc(doc);
	if (rc < 0 && !ec2_error_is(&e, "InvalidPermission.Duplicate")) {
		char *what = r ? xasprintf("open %s %d-%d from %s in security group %s", r->proto,
					   r->from, r->to, r->cidr, gid)
			       : xasprintf("allow traffic within security group %s", gid);
		ec2_error_diag(c, &e, d, what);
		free(what);
		ec2_error_release(&e);
		return -1;
	}
	ec2_error_release(&e);
	return 0;
}

int ec2_sg_ensure(struct ec2_conn *c, const char *infra, const char *name,
		  const struct ec2_rule *rules, size_t n, char **group_id, struct diag *d)
{
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	char *gid = NULL;

	*group_id = NULL;
	if (ec2_sg_lookup(c, name, &gid, d) < 0)
		return -1;
	if (!gid) {
		char *desc = xasprintf("imc infrastructure %s", infra);
		ec2_query_init(&q, "CreateSecurityGroup");
		ec2_query_add(&q, "GroupName", name);
		ec2_query_add(&q, "GroupDescription", desc);
		ec2_query_add(&q, "TagSpecification.1.ResourceType", "security-group");
		ec2_query_add(&q, "TagSpecification.1.Tag.1.Key", EC2_TAG_INFRA);
		ec2_query_add(&q, "TagSpecification.1.Tag.1.Value", infra);
		ec2_query_add(&q, "TagSpecification.1.Tag.2.Key", "Name");
		ec2_query_add(&q, "TagSpecification.1.Tag.2.Value", name);
		free(desc);
		int rc = ec2_call(c, &q, &doc, &e);
		ec2_query_release(&q);
		if (rc == 0) {
			gid = ec2_xml_text(xmlDocGetRootElement(doc), "groupId");
			xmlFreeDoc(doc);
			if (!gid) {
				diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
					   "ec2 (%s): CreateSecurityGroup reply for '%s' has no groupId",
					   c->region, name);
				return -1;
			}
			log_info("ec2", "%s: created security group %s (%s)", c->region, name, gid);
		} else if (ec2_error_is(&e, "InvalidGroup.Duplicate")) {
			ec2_error_release(&e);
			if (ec2_sg_lookup(c, name, &gid, d) < 0)
				return -1;
			if (!gid) {
				diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
					   "ec2 (%s): security group '%s' exists but cannot be found",
					   c->region, name);
				return -1;
			}
		} else {
			char *what = xasprintf("create security group '%s'", name);
			ec2_error_diag(c, &e, d, what);
			free(what);
			ec2_error_release(&e);
			return -1;
		}
	}
	/* One permission per call: a batch fails whole on one duplicate. */
	if (authorize(c, gid, NULL, d) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (authorize(c, gid, &rules[i], d) < 0)
			goto fail;
	*group_id = gid;
	return 0;
fail:
	free(gid);
	return -1;
}
