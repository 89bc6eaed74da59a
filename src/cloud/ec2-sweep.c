/* ec2-sweep.c: what destroy runs so that nothing of an infrastructure stays
 * billed, including what the state store never learnt of (a crash between
 * RunInstances and the store write; IM's grycap/im #804 and #1575 are this
 * class of leak). Everything the backend creates is tagged imc-infra-id =
 * INFRA and named from INFRA (ec2.c), so one region is swept by:
 *   1. instances with the tag, in every state but terminated (all pages):
 *      TerminateInstances, then DescribeInstances polls until none is left;
 *   2. elastic IPs with the tag: disassociated, released;
 *   3. security groups with the tag or named imc-INFRA-*: deleted, with
 *      DependencyViolation retried with backoff (a terminated instance's
 *      network interface holds its groups for a while);
 *   4. key pairs with the tag, and imc-INFRA: deleted.
 * Groups go only after the instances are terminated, or AWS refuses them.
 * Throttling (RequestLimitExceeded, Throttling, 5xx) is retried for the
 * whole sweep, not only ec2_call's five attempts.
 *
 * Every wait is bounded by one deadline per command (struct ec2_deadline,
 * IMC_EC2_SWEEP_DEADLINE seconds, 600 by default). When it passes, the
 * sweep stops, says what is left, and exits 75: every step is idempotent,
 * so running destroy again carries on where this one stopped. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloud/ec2.h"
#include "util/log.h"
#include "cloud/names.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SWEEP_DEADLINE 600.0 /* s; instances terminate in ~1 min, ENIs a few more */
#define POLL_DELAY 15.0      /* waiters-2.json: InstanceTerminated */
#define DV_DELAY 5.0         /* first DependencyViolation backoff, doubling */
#define DV_DELAY_MAX 60.0
#define MAX_PAGES 1000       /* a server that keeps sending nextToken is broken */
#define TERMINATE_BATCH 100

static const char *const live_states[] = { "pending", "running", "shutting-down", "stopping",
					   "stopped" };

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double deadline_left(const struct ec2_deadline *dl)
{
	return dl->end - (mono() + dl->skipped);
}

bool ec2_deadline_sleep(struct ec2_deadline *dl, const struct ec2_conn *c, double seconds)
{
	double left = deadline_left(dl);
	if (left <= 0)
		return false;
	if (seconds > left)
		seconds = left;
	ec2_sleep(c, seconds);
	if (c->time_scale < 1.0)
		dl->skipped += seconds * (1.0 - c->time_scale);
	return true;
}

void ec2_sweep_init(struct ec2_sweep *sw, struct ec2_conn *c, const char *infra,
		    struct ec2_deadline *dl)
{
	memset(sw, 0, sizeof(*sw));
	sw->conn = c;
	sw->infra = infra;
	sw->dl = dl;
	strbuf_init(&sw->left, 0);
	if (dl->started)
		return;
	dl->budget = SWEEP_DEADLINE;
	const char *env = getenv("IMC_EC2_SWEEP_DEADLINE");
	if (env && *env) {
		char *end;
		double v = strtod(env, &end);
		if (*end == '\0' && v >= 0 && v <= 86400)
			dl->budget = v;
		else
			log_warn("ec2", "IMC_EC2_SWEEP_DEADLINE='%s' is not a number of seconds; using %.0f",
				 env, SWEEP_DEADLINE);
	}
	dl->end = mono() + dl->budget;
	dl->skipped = 0;
	dl->started = true;
}

void ec2_sweep_release(struct ec2_sweep *sw)
{
	strbuf_release(&sw->left);
}

static void left_add(struct ec2_sweep *sw, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void left_add(struct ec2_sweep *sw, const char *fmt, ...)
{
	va_list ap;
	if (sw->left.len)
		strbuf_addstr(&sw->left, ", ");
	va_start(ap, fmt);
	strbuf_vaddf(&sw->left, fmt, ap);
	va_end(ap);
}

/* ec2_call, with retryable errors (throttling, 5xx, connection) retried
 * with backoff until the deadline. */
static int sweep_call(struct ec2_sweep *sw, const struct ec2_query *q, xmlDoc **doc,
		      struct ec2_error *e)
{
	for (int attempt = 1;; attempt++) {
		if (ec2_call(sw->conn, q, doc, e) == 0)
			return 0;
		if (!e->retryable)
			return -1;
		double delay = ec2_backoff(sw->conn, attempt);
		log_info("ec2", "%s %s: still %s; the sweep retries until its deadline", sw->conn->region,
			 ec2_query_action(q), e->code ? e->code : "failing");
		if (!ec2_deadline_sleep(sw->dl, sw->conn, delay))
			return -1;
		ec2_error_release(e);
	}
}

/* The filter tag:imc-infra-id = INFRA as filter number k. */
static void add_tag_filter(struct ec2_query *q, int k, const char *infra)
{
	ec2_query_addf(q, "tag:" EC2_TAG_INFRA, "Filter.%d.Name", k);
	ec2_query_addf(q, infra, "Filter.%d.Value.1", k);
}

int ec2_sweep_list_instances(struct ec2_sweep *sw, struct ec2_instance **v, size_t *n,
			     struct diag *d)
{
	char *token = NULL;
	size_t alloc = 0;
	*v = NULL;
	*n = 0;
	for (int page = 0;; page++) {
		struct ec2_query q;
		struct ec2_error e;
		xmlDoc *doc = NULL;
		if (page == MAX_PAGES) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "ec2 (%s): DescribeInstances still sends a nextToken after %d pages",
				   sw->conn->region, MAX_PAGES);
			goto fail;
		}
		ec2_query_init(&q, "DescribeInstances");
		add_tag_filter(&q, 1, sw->infra);
		ec2_query_add(&q, "Filter.2.Name", "instance-state-name");
		for (size_t i = 0; i < sizeof(live_states) / sizeof(live_states[0]); i++)
			ec2_query_addf(&q, live_states[i], "Filter.2.Value.%zu", i + 1);
		if (token)
			ec2_query_add(&q, "NextToken", token);
		int rc = sweep_call(sw, &q, &doc, &e);
		ec2_query_release(&q);
		if (rc < 0) {
			ec2_error_diag(sw->conn, &e, d, "list the infrastructure's instances");
			ec2_error_release(&e);
			goto fail;
		}
		struct ec2_instance *pv = NULL;
		size_t pn = 0;
		if (ec2_xml_instances(doc, &pv, &pn) < 0) {
			xmlFreeDoc(doc);
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "ec2 (%s): DescribeInstances reply has no reservationSet",
				   sw->conn->region);
			goto fail;
		}
		if (*n + pn > alloc) {
			alloc = *n + pn + 8;
			*v = xreallocarray(*v, alloc, sizeof(**v));
		}
		if (pn)
			memcpy(*v + *n, pv, pn * sizeof(*pv));
		*n += pn;
		free(pv); /* the strings moved to *v */
		free(token);
		token = ec2_xml_text(xmlDocGetRootElement(doc), "nextToken");
		xmlFreeDoc(doc);
		if (!token)
			return 0;
	}
fail:
	free(token);
	ec2_instances_free(*v, *n);
	*v = NULL;
	*n = 0;
	return -1;
}

static int terminate(struct ec2_sweep *sw, const struct ec2_instance *v, size_t n,
		     struct diag *d)
{
	for (size_t i = 0; i < n;) {
		struct ec2_query q;
		struct ec2_error e;
		xmlDoc *doc = NULL;
		size_t k = 0;
		ec2_query_init(&q, "TerminateInstances");
		for (; i < n && k < TERMINATE_BATCH; i++)
			if (v[i].id && !(v[i].state && strcmp(v[i].state, "shutting-down") == 0))
				ec2_query_addf(&q, v[i].id, "InstanceId.%zu", ++k);
		int rc = k ? sweep_call(sw, &q, &doc, &e) : 0;
		ec2_query_release(&q);
		xmlFreeDoc(doc);
		/* An instance already gone makes the whole call fail with
		 * NotFound: the polls below see whether any is still there. */
		if (rc < 0 && !ec2_error_is(&e, "InvalidInstanceID.NotFound")) {
			ec2_error_diag(sw->conn, &e, d, "terminate the infrastructure's instances");
			ec2_error_release(&e);
			return -1;
		}
		if (rc < 0)
			ec2_error_release(&e);
	}
	return 0;
}

int ec2_sweep_instances(struct ec2_sweep *sw, struct diag *d)
{
	struct ec2_instance *v = NULL;
	size_t n = 0;
	bool sent = false;
	int ret = -1;
	for (;;) {
		if (ec2_sweep_list_instances(sw, &v, &n, d) < 0) {
			left_add(sw, "its instances (they could not be listed)");
			return -1;
		}
		if (n == 0)
			return 0;
		/* Terminate once, and again whatever came back to life or
		 * appeared since (a launch whose answer was still on its way). */
		bool need = !sent;
		for (size_t i = 0; i < n && !need; i++)
			need = v[i].state && strcmp(v[i].state, "shutting-down") != 0;
		if (need) {
			log_info("ec2", "%s: terminating %zu instance(s) of infrastructure %s",
				 sw->conn->region, n, sw->infra);
			if (terminate(sw, v, n, d) < 0)
				break;
			sent = true;
		}
		if (!ec2_deadline_sleep(sw->dl, sw->conn, POLL_DELAY)) {
			struct strbuf ids = STRBUF_INIT;
			for (size_t i = 0; i < n; i++)
				strbuf_addf(&ids, "%s%s (%s)", i ? ", " : "", v[i].id ? v[i].id : "?",
					    v[i].state ? v[i].state : "?");
			diag_error(d, IMC_EXIT_TEMPFAIL, NULL,
				   "ec2 (%s): %zu instance(s) of infrastructure %s not terminated within %.0f s: %s",
				   sw->conn->region, n, sw->infra, sw->dl->budget, strbuf_str(&ids));
			strbuf_release(&ids);
			break;
		}
		ec2_instances_free(v, n);
		v = NULL;
		n = 0;
	}
	for (size_t i = 0; i < n; i++)
		left_add(sw, "instance %s (%s)", v[i].id ? v[i].id : "?", v[i].state ? v[i].state : "?");
	ec2_instances_free(v, n);
	return ret;
}

/* Group ids matching one filter (all pages), appended to *ids. */
static int list_groups(struct ec2_sweep *sw, const char *filter, const char *value, char ***ids,
		       char ***names, size_t *n, struct diag *d)
{
	char *token = NULL;
	for (int page = 0;; page++) {
		struct ec2_query q;
		struct ec2_error e;
		xmlDoc *doc = NULL;
		if (page == MAX_PAGES) {
			diag_error(d, IMC_EXIT_UNAVAILABLE, NULL,
				   "ec2 (%s): DescribeSecurityGroups still sends a nextToken after %d pages",
				   sw->conn->region, MAX_PAGES);
			free(token);
			return -1;
		}
		ec2_query_init(&q, "DescribeSecurityGroups");
		ec2_query_add(&q, "Filter.1.Name", filter);
		ec2_query_add(&q, "Filter.1.Value.1", value);
		if (token)
			ec2_query_add(&q, "NextToken", token);
		int rc = sweep_call(sw, &q, &doc, &e);
		ec2_query_release(&q);
		if (rc < 0) {
			ec2_error_diag(sw->conn, &e, d, "list the infrastructure's security groups");
			ec2_error_release(&e);
			free(token);
			return -1;
		}
		xmlNode *info = ec2_xml_child(xmlDocGetRootElement(doc), "securityGroupInfo");
		for (xmlNode *it = info ? info->children : NULL; it; it = it->next) {
			char *id = it->type == XML_ELEMENT_NODE ? ec2_xml_text(it, "groupId") : NULL;
			bool seen = !id;
			for (size_t i = 0; i < *n && !seen; i++)
				seen = strcmp((*ids)[i], id) == 0;
			if (seen) {
				free(id);
				continue;
			}
			*ids = xreallocarray(*ids, *n + 1, sizeof(char *));
			*names = xreallocarray(*names, *n + 1, sizeof(char *));
			(*ids)[*n] = id;
			(*names)[(*n)++] = ec2_xml_text(it, "groupName");
		}
		free(token);
		token = ec2_xml_text(xmlDocGetRootElement(doc), "nextToken");
		xmlFreeDoc(doc);
		if (!token)
			return 0;
	}
}

static int delete_group(struct ec2_sweep *sw, const char *gid, const char *name, struct diag *d)
{
	double delay = DV_DELAY;
	for (;;) {
		struct ec2_query q;
		struct ec2_error e;
		xmlDoc *doc = NULL;
		ec2_query_init(&q, "DeleteSecurityGroup");
		ec2_query_add(&q, "GroupId", gid);
		int rc = sweep_call(sw, &q, &doc, &e);
		ec2_query_release(&q);
		xmlFreeDoc(doc);
		if (rc == 0 || ec2_error_is(&e, "InvalidGroup.NotFound") ||
		    ec2_error_is(&e, "InvalidGroupId.NotFound")) {
			if (rc == 0)
				log_info("ec2", "%s: deleted security group %s (%s)", sw->conn->region, gid,
					 name ? name : "?");
			ec2_error_release(&e);
			return 0;
		}
		if (ec2_error_is(&e, "DependencyViolation")) {
			ec2_error_release(&e);
			log_info("ec2", "%s: security group %s is still in use; retrying in %.0f s",
				 sw->conn->region, gid, delay);
			if (ec2_deadline_sleep(sw->dl, sw->conn, delay)) {
				delay = delay * 2 > DV_DELAY_MAX ? DV_DELAY_MAX : delay * 2;
				continue;
			}
			diag_error(d, IMC_EXIT_TEMPFAIL, NULL,
				   "ec2 (%s): security group %s (%s) is still in use (DependencyViolation) after %.0f s",
				   sw->conn->region, gid, name ? name : "?", sw->dl->budget);
		} else {
			char *what = xasprintf("delete security group %s (%s)", gid, name ? name : "?");
			ec2_error_diag(sw->conn, &e, d, what);
			free(what);
			ec2_error_release(&e);
		}
		left_add(sw, "security group %s (%s)", gid, name ? name : "?");
		return -1;
	}
}

int ec2_sweep_group_named(struct ec2_sweep *sw, const char *name, struct diag *d)
{
	char **ids = NULL, **names = NULL;
	size_t n = 0;
	int ret = list_groups(sw, "group-name", name, &ids, &names, &n, d);
	if (ret < 0)
		left_add(sw, "security group %s", name);
	for (size_t i = 0; i < n; i++)
		if (delete_group(sw, ids[i], names[i], d) < 0)
			ret = -1;
	ec2_strv_free(ids, n);
	ec2_strv_free(names, n);
	return ret;
}

static int groups(struct ec2_sweep *sw, struct diag *d)
{
	char **ids = NULL, **names = NULL;
	size_t n = 0;
	char *prefix = cloud_name_prefix(sw->infra), *pattern = xasprintf("%s*", prefix);
	free(prefix);
	int ret = 0;
	/* The tag finds them; the name also finds a group whose tag was lost
	 * (created by an imc that did not tag, or tagged by hand). */
	if (list_groups(sw, "tag:" EC2_TAG_INFRA, sw->infra, &ids, &names, &n, d) < 0 ||
	    list_groups(sw, "group-name", pattern, &ids, &names, &n, d) < 0) {
		left_add(sw, "security groups %s", pattern);
		ret = -1;
	}
	for (size_t i = 0; i < n; i++)
		if (delete_group(sw, ids[i], names[i], d) < 0)
			ret = -1;
	free(pattern);
	ec2_strv_free(ids, n);
	ec2_strv_free(names, n);
	return ret;
}

/* One action on one resource where NotFound codes mean done already and
 * retry_code (if any) is retried with backoff until the deadline. */
static int simple(struct ec2_sweep *sw, struct ec2_query *q, const char *const *gone,
		  const char *retry_code, const char *what, struct diag *d)
{
	double delay = DV_DELAY;
	for (;;) {
		struct ec2_error e;
		xmlDoc *doc = NULL;
		int rc = sweep_call(sw, q, &doc, &e);
		xmlFreeDoc(doc);
		bool ok = rc == 0;
		for (size_t i = 0; !ok && gone[i]; i++)
			ok = ec2_error_is(&e, gone[i]);
		if (!ok && retry_code && ec2_error_is(&e, retry_code) &&
		    ec2_deadline_sleep(sw->dl, sw->conn, delay)) {
			ec2_error_release(&e);
			delay = delay * 2 > DV_DELAY_MAX ? DV_DELAY_MAX : delay * 2;
			continue;
		}
		if (!ok)
			ec2_error_diag(sw->conn, &e, d, what);
		ec2_error_release(&e);
		return ok ? 0 : -1;
	}
}

static int addresses(struct ec2_sweep *sw, struct diag *d)
{
	static const char *const assoc_gone[] = { "InvalidAssociationID.NotFound", NULL };
	static const char *const addr_gone[] = { "InvalidAllocationID.NotFound",
						 "InvalidAddress.NotFound", NULL };
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	int ret = 0;
	ec2_query_init(&q, "DescribeAddresses");
	add_tag_filter(&q, 1, sw->infra);
	int rc = sweep_call(sw, &q, &doc, &e);
	ec2_query_release(&q);
	if (rc < 0) {
		ec2_error_diag(sw->conn, &e, d, "list the infrastructure's elastic IPs");
		ec2_error_release(&e);
		left_add(sw, "its elastic IPs (they could not be listed)");
		return -1;
	}
	xmlNode *set = ec2_xml_child(xmlDocGetRootElement(doc), "addressesSet");
	for (xmlNode *it = set ? set->children : NULL; it; it = it->next) {
		if (it->type != XML_ELEMENT_NODE)
			continue;
		char *alloc = ec2_xml_text(it, "allocationId"), *ip = ec2_xml_text(it, "publicIp");
		char *assoc = ec2_xml_text(it, "associationId");
		char *what = xasprintf("release elastic IP %s (%s)", ip ? ip : "?",
				       alloc ? alloc : "classic");
		int r = 0;
		if (assoc) {
			ec2_query_init(&q, "DisassociateAddress");
			ec2_query_add(&q, "AssociationId", assoc);
			r = simple(sw, &q, assoc_gone, NULL, what, d);
			ec2_query_release(&q);
		}
		if (r == 0 && (alloc || ip)) {
			ec2_query_init(&q, "ReleaseAddress");
			if (alloc)
				ec2_query_add(&q, "AllocationId", alloc);
			else
				ec2_query_add(&q, "PublicIp", ip);
			/* still attached to an interface that is going away */
			r = simple(sw, &q, addr_gone, "InvalidIPAddress.InUse", what, d);
			ec2_query_release(&q);
			if (r == 0)
				log_info("ec2", "%s: released elastic IP %s", sw->conn->region,
					 ip ? ip : alloc);
		}
		if (r < 0) {
			left_add(sw, "elastic IP %s", ip ? ip : alloc ? alloc : "?");
			ret = -1;
		}
		free(what);
		free(alloc);
		free(ip);
		free(assoc);
	}
	xmlFreeDoc(doc);
	return ret;
}

static int keys(struct ec2_sweep *sw, const char *key, struct diag *d)
{
	static const char *const gone[] = { "InvalidKeyPair.NotFound", NULL };
	struct ec2_query q;
	struct ec2_error e;
	xmlDoc *doc = NULL;
	char **names = NULL;
	size_t n = 0;
	int ret = 0;
	ec2_query_init(&q, "DescribeKeyPairs");
	add_tag_filter(&q, 1, sw->infra);
	int rc = sweep_call(sw, &q, &doc, &e);
	ec2_query_release(&q);
	if (rc < 0) {
		/* The deterministic name is still deleted below. */
		ec2_error_diag(sw->conn, &e, d, "list the infrastructure's key pairs");
		ec2_error_release(&e);
		ret = -1;
	}
	ec2_xml_set_values(doc, "keySet", "keyName", &names, &n);
	xmlFreeDoc(doc);
	bool listed = false;
	for (size_t i = 0; i < n && !listed; i++)
		listed = strcmp(names[i], key) == 0;
	if (!listed) {
		names = xreallocarray(names, n + 1, sizeof(char *));
		names[n++] = xstrdup(key);
	}
	for (size_t i = 0; i < n; i++) {
		char *what = xasprintf("delete key pair '%s'", names[i]);
		ec2_query_init(&q, "DeleteKeyPair");
		ec2_query_add(&q, "KeyName", names[i]);
		if (simple(sw, &q, gone, NULL, what, d) < 0) {
			left_add(sw, "key pair %s", names[i]);
			ret = -1;
		}
		ec2_query_release(&q);
		free(what);
	}
	ec2_strv_free(names, n);
	return ret;
}

int ec2_sweep_rest(struct ec2_sweep *sw, const char *key, struct diag *d)
{
	int ret = 0;
	/* Addresses first: an elastic IP on an interface keeps it, and so the
	 * interface's groups, in use. */
	if (addresses(sw, d) < 0)
		ret = -1;
	if (groups(sw, d) < 0)
		ret = -1;
	if (keys(sw, key, d) < 0)
		ret = -1;
	return ret;
}

int ec2_sweep_region(struct ec2_sweep *sw, const char *key, struct diag *d)
{
	if (ec2_sweep_instances(sw, d) < 0) {
		left_add(sw, "and the security groups, elastic IPs and key pair they use");
		return -1;
	}
	return ec2_sweep_rest(sw, key, d);
}

int ec2_sweep_finish(struct ec2_sweep *sw, struct diag *d)
{
	if (!sw->left.len)
		return 0;
	diag_error(d, IMC_EXIT_TEMPFAIL, NULL,
		   "ec2 (%s): infrastructure %s is not completely destroyed; left: %s",
		   sw->conn->region, sw->infra, strbuf_str(&sw->left));
	diag_note(d, NULL, "every step is idempotent: 'imc destroy %s' again finishes the job",
		  sw->infra);
	strbuf_reset(&sw->left);
	return -1;
}
