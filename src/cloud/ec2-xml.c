/* ec2-xml.c: reading EC2 Query API replies with libxml2. Elements are
 * matched by local name whatever their namespace, because EC2 has changed
 * namespace with every API version (doc/2009-11-30/ ... doc/2016-11-15/)
 * while keeping the element names. Texts are trimmed (fingerprints and
 * error messages arrive wrapped in whitespace). The parser never touches
 * the network (no DTD loading, no entity expansion). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "cloud/ec2.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* libxml2 reports some errors (a body that is not in its declared
 * encoding) through its generic handler on stderr, whatever the parse
 * options: a reply imc cannot read is reported by imc, once, not by it. */
static void xml_quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

xmlDoc *ec2_xml_parse(const char *buf, size_t len)
{
	if (!buf || len == 0 || len > (size_t)1 << 30)
		return NULL;
	xmlSetGenericErrorFunc(NULL, xml_quiet); /* per thread in libxml2 */
	xmlDoc *doc = xmlReadMemory(buf, (int)len, "ec2-reply.xml", NULL,
				    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (doc && !xmlDocGetRootElement(doc)) {
		xmlFreeDoc(doc);
		doc = NULL;
	}
	return doc;
}

static bool named(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNode *ec2_xml_child(const xmlNode *n, const char *name)
{
	if (!n)
		return NULL;
	for (xmlNode *c = n->children; c; c = c->next)
		if (named(c, name))
			return c;
	return NULL;
}

xmlNode *ec2_xml_find(const xmlNode *n, const char *name)
{
	if (!n)
		return NULL;
	for (xmlNode *c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (named(c, name))
			return c;
		xmlNode *r = ec2_xml_find(c, name);
		if (r)
			return r;
	}
	return NULL;
}

static char *node_text(const xmlNode *n)
{
	if (!n)
		return NULL;
	xmlChar *t = xmlNodeGetContent(n);
	if (!t)
		return NULL;
	const char *s = (const char *)t;
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	char *r = len ? xstrndup(s, len) : NULL;
	xmlFree(t);
	return r;
}

char *ec2_xml_text(const xmlNode *n, const char *name)
{
	return node_text(ec2_xml_child(n, name));
}

int ec2_xml_error(const char *buf, size_t len, struct ec2_error *e)
{
	xmlDoc *doc = ec2_xml_parse(buf, len);
	if (!doc)
		return -1;
	xmlNode *root = xmlDocGetRootElement(doc);
	xmlNode *errors = named(root, "Errors") ? root : ec2_xml_child(root, "Errors");
	xmlNode *first = ec2_xml_child(errors, "Error");
	if (!first && named(root, "Error"))
		first = root; /* some services answer a bare <Error> */
	if (!first) {
		xmlFreeDoc(doc);
		return -1;
	}
	free(e->code);
	free(e->message);
	free(e->request_id);
	e->code = ec2_xml_text(first, "Code");
	e->message = ec2_xml_text(first, "Message");
	e->request_id = ec2_xml_text(root, "RequestID");
	if (!e->request_id)
		e->request_id = ec2_xml_text(root, "RequestId");
	xmlFreeDoc(doc);
	return e->code ? 0 : -1;
}

static void add_instance(const xmlNode *item, struct ec2_instance **v, size_t *n, size_t *alloc)
{
	if (*n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 4;
		*v = xreallocarray(*v, *alloc, sizeof(**v));
	}
	struct ec2_instance *in = &(*v)[(*n)++];
	memset(in, 0, sizeof(*in));
	in->id = ec2_xml_text(item, "instanceId");
	/* DescribeInstances/RunInstances: instanceState; Start/Stop: currentState;
	 * TerminateInstances in older fixtures: shutdownState. */
	xmlNode *st = ec2_xml_child(item, "instanceState");
	if (!st)
		st = ec2_xml_child(item, "currentState");
	if (!st)
		st = ec2_xml_child(item, "shutdownState");
	in->state = ec2_xml_text(st, "name");
	char *code = ec2_xml_text(st, "code");
	in->code = code ? (int)strtol(code, NULL, 10) : -1;
	free(code);
	in->private_ip = ec2_xml_text(item, "privateIpAddress");
	in->public_ip = ec2_xml_text(item, "ipAddress");
	in->reason = ec2_xml_text(ec2_xml_child(item, "stateReason"), "message");
	in->client_token = ec2_xml_text(item, "clientToken");
	in->type = ec2_xml_text(item, "instanceType");
}

static void items_of(const xmlNode *set, struct ec2_instance **v, size_t *n, size_t *alloc)
{
	for (xmlNode *it = set ? set->children : NULL; it; it = it->next)
		if (named(it, "item"))
			add_instance(it, v, n, alloc);
}

int ec2_xml_instances(xmlDoc *doc, struct ec2_instance **out, size_t *n)
{
	size_t alloc = 0;
	*out = NULL;
	*n = 0;
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	if (!root)
		return -1;
	xmlNode *rs = ec2_xml_child(root, "reservationSet");
	if (rs) {
		for (xmlNode *r = rs->children; r; r = r->next)
			if (named(r, "item"))
				items_of(ec2_xml_child(r, "instancesSet"), out, n, &alloc);
		return 0;
	}
	xmlNode *set = ec2_xml_child(root, "instancesSet");
	if (!set)
		return -1;
	items_of(set, out, n, &alloc);
	return 0;
}

void ec2_instances_free(struct ec2_instance *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].state);
		free(v[i].private_ip);
		free(v[i].public_ip);
		free(v[i].reason);
		free(v[i].client_token);
		free(v[i].type);
	}
	free(v);
}

int ec2_xml_set_values(xmlDoc *doc, const char *set, const char *field, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
	if (!root)
		return -1;
	xmlNode *s = ec2_xml_child(root, set);
	if (!s)
		return 0;
	for (xmlNode *it = s->children; it; it = it->next) {
		if (!named(it, "item"))
			continue;
		char *v = ec2_xml_text(it, field);
		if (!v)
			continue;
		*out = xreallocarray(*out, *n + 1, sizeof(char *));
		(*out)[(*n)++] = v;
	}
	return 0;
}

void ec2_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
