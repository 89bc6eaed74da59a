/* test-ec2.c: unit tests of the ec2 backend's pieces that need no network:
 * reply parsing against the recorded responses (tests/vectors/ec2, the
 * values its README lists), the error documents, the retry classifier
 * against botocore's policy, the query encoding against the ec2 protocol
 * tests, outports -> rules, and the instance-type choice. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cloud/ec2.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static char vec[4096];

static int have_vectors(void)
{
	const char *top = getenv("top_srcdir");
	snprintf(vec, sizeof(vec), "%s/tests/vectors/ec2", top ? top : IMC_SRCDIR);
	return access(vec, R_OK) == 0;
}

static xmlDoc *load(const char *rel)
{
	char *path = xasprintf("%s/%s", vec, rel);
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(strbuf_read_file(&sb, path), 0);
	xmlDoc *doc = ec2_xml_parse(sb.buf, sb.len);
	assert_non_null(doc);
	strbuf_release(&sb);
	free(path);
	return doc;
}

static void expect_instances(const char *rel, size_t want, const char *const *rows)
{
	xmlDoc *doc = load(rel);
	struct ec2_instance *v;
	size_t n;
	assert_int_equal(ec2_xml_instances(doc, &v, &n), 0);
	assert_int_equal(n, want);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(v[i].id, rows[4 * i]);
		assert_string_equal(v[i].state, rows[4 * i + 1]);
		if (rows[4 * i + 2])
			assert_string_equal(v[i].private_ip, rows[4 * i + 2]);
		else
			assert_null(v[i].private_ip);
		if (rows[4 * i + 3])
			assert_string_equal(v[i].public_ip, rows[4 * i + 3]);
		else
			assert_null(v[i].public_ip);
	}
	ec2_instances_free(v, n);
	xmlFreeDoc(doc);
}

#define R "responses/api-2016-11-15/"
#define O "responses/older-api-versions/"

static void test_instances(void **state)
{
	assert_true(have_vectors());
	static const char *const run[] = { "i-2ba64342", "pending", NULL, NULL };
	expect_instances(R "RunInstances.xml", 1, run);
	static const char *const runsub[] = { "i-11111111", "pending", "192.0.2.5", NULL };
	expect_instances(R "RunInstances-with-subnet-and-security-group.xml", 1, runsub);
	static const char *const stopped[] = {
		"i-4382922a", "stopped", "10.211.11.211", "1.2.3.4",
		"i-8474834a", "stopped", "172.16.9.139", "1.2.3.5",
	};
	expect_instances(R "DescribeInstances-stopped-with-ips.xml", 2, stopped);
	static const char *const pend[] = { "i-32451248", "pending", "10.194.149.220", "23.20.17.42" };
	expect_instances(O "DescribeInstances-pending-with-ips.api-2012-06-01.xml", 1, pend);
	static const char *const run2[] = {
		"i-911444f0", "running", "10.212.81.7", "174.129.173.155",
		"i-931444f2", "running", "10.212.185.8", "50.19.207.248",
	};
	expect_instances(O "DescribeInstances-running-with-ips.api-2012-06-01.xml", 2, run2);
	static const char *const run3[] = { "i-2baa5550", "running", "10.28.89.195", "50.16.1.166" };
	expect_instances(O "DescribeInstances-running-with-ips.api-2011-05-15.xml", 1, run3);
	expect_instances(O "DescribeInstances-empty.api-2009-11-30.xml", 0, NULL);
	static const char *const stop[] = { "i-2ba64342", "stopping", NULL, NULL };
	expect_instances(R "StopInstances.xml", 1, stop);
	static const char *const start[] = { "i-ff5de6aa", "pending", NULL, NULL };
	expect_instances(R "StartInstances.xml", 1, start);
	/* legacy <shutdownState> */
	static const char *const term[] = { "i-4382922a", "shutting-down", NULL, NULL };
	expect_instances(R "TerminateInstances.xml", 1, term);
}

/* instanceType (what vm_alter compares with the wanted type), and no type
 * where a reply has none (state changes). */
static void test_instance_types(void **state)
{
	assert_true(have_vectors());
	static const struct {
		const char *file;
		size_t n;
		const char *types[2];
	} cases[] = {
		{ R "DescribeInstances-stopped-with-ips.xml", 2, { "m1.small", "t1.micro" } },
		{ R "RunInstances.xml", 1, { "m1.small", NULL } },
		{ R "StopInstances.xml", 1, { NULL, NULL } },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		xmlDoc *doc = load(cases[c].file);
		struct ec2_instance *v;
		size_t n;
		assert_int_equal(ec2_xml_instances(doc, &v, &n), 0);
		assert_int_equal(n, cases[c].n);
		for (size_t i = 0; i < n; i++) {
			if (cases[c].types[i])
				assert_string_equal(v[i].type, cases[c].types[i]);
			else
				assert_null(v[i].type);
		}
		ec2_instances_free(v, n);
		xmlFreeDoc(doc);
	}
}

static void test_other_replies(void **state)
{
	assert_true(have_vectors());
	xmlDoc *doc = load(R "CreateSecurityGroup.xml");
	char *gid = ec2_xml_text(xmlDocGetRootElement(doc), "groupId");
	assert_string_equal(gid, "sg-52e2f530");
	free(gid);
	xmlFreeDoc(doc);

	doc = load(R "DescribeSecurityGroups.xml");
	char **ids;
	size_t n;
	assert_int_equal(ec2_xml_set_values(doc, "securityGroupInfo", "groupId", &ids, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ids[0], "sg-443d0a12");
	assert_string_equal(ids[1], "sg-5ff8a023");
	ec2_strv_free(ids, n);
	xmlFreeDoc(doc);

	doc = load(R "CreateKeyPair.xml");
	char *fp = ec2_xml_text(xmlDocGetRootElement(doc), "keyFingerprint");
	assert_non_null(fp);
	assert_true(fp[0] != ' ' && fp[0] != '\n' && fp[strlen(fp) - 1] != '\n');
	free(fp);
	xmlFreeDoc(doc);

	doc = load(R "DescribeKeyPairs.xml");
	assert_int_equal(ec2_xml_set_values(doc, "keySet", "keyName", &ids, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ids[0], "gsg-keypair");
	ec2_strv_free(ids, n);
	xmlFreeDoc(doc);

	doc = load(R "DescribeImages.xml");
	xmlNode *img = ec2_xml_find(xmlDocGetRootElement(doc), "item");
	char *id = ec2_xml_text(img, "imageId"), *st = ec2_xml_text(img, "imageState");
	assert_string_equal(id, "ami-57ba933a");
	assert_string_equal(st, "available");
	free(id);
	free(st);
	xmlFreeDoc(doc);

	/* malformed and empty replies are refused, not crashed on */
	assert_null(ec2_xml_parse("<a><b></a>", 10));
	assert_null(ec2_xml_parse("", 0));
	struct ec2_instance *v;
	doc = ec2_xml_parse("<X/>", 4);
	assert_int_equal(ec2_xml_instances(doc, &v, &n), -1);
	xmlFreeDoc(doc);
}

static void expect_error(const char *rel, const char *code, const char *msg_start,
			 const char *reqid)
{
	char *path = xasprintf("%s/errors/%s", vec, rel);
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(strbuf_read_file(&sb, path), 0);
	struct ec2_error e = { 0 };
	assert_int_equal(ec2_xml_error(sb.buf, sb.len, &e), 0);
	assert_string_equal(e.code, code);
	assert_non_null(e.message);
	assert_memory_equal(e.message, msg_start, strlen(msg_start));
	assert_true(!strchr(" \n", e.message[strlen(e.message) - 1]));
	assert_string_equal(e.request_id, reqid);
	ec2_error_release(&e);
	strbuf_release(&sb);
	free(path);
}

static void test_errors(void **state)
{
	assert_true(have_vectors());
	expect_error("DescribeKeyPairs-Error-InvalidKeyPair.NotFound.xml", "InvalidKeyPair.NotFound",
		     "The key pair 'test-key-pair' does not exist",
		     "31b97300-eb8e-405e-9567-b0f57b791fed");
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/errors/RunInstances-Error-IdempotentParameterMismatch.xml", vec);
	assert_int_equal(strbuf_read_file(&sb, path), 0);
	struct ec2_error e = { 0 };
	assert_int_equal(ec2_xml_error(sb.buf, sb.len, &e), 0);
	assert_string_equal(e.code, "IdempotentParameterMismatch");
	assert_true(e.message[0] != ' ' && e.message[0] != '\n');
	assert_true(ec2_error_is(&e, "IdempotentParameterMismatch"));
	assert_false(ec2_error_is(&e, "InvalidAMIID."));
	ec2_error_release(&e);
	strbuf_release(&sb);
	free(path);
	path = xasprintf("%s/errors/RunInstances-Error-DryRunOperation.xml", vec);
	assert_int_equal(strbuf_read_file(&sb, path), 0);
	assert_int_equal(ec2_xml_error(sb.buf, sb.len, &e), 0);
	assert_string_equal(e.code, "DryRunOperation");
	ec2_error_release(&e);
	strbuf_release(&sb);
	free(path);
	/* a success body is not an error document */
	assert_int_equal(ec2_xml_error("<Ok/>", 5, &e), -1);
	ec2_error_release(&e);
}

/* The output protocol tests' error cases parse to their code and message. */
static void test_protocol_errors(void **state)
{
	assert_true(have_vectors());
	char *path = xasprintf("%s/protocol-tests/output-ec2.json", vec);
	json_t *suites = json_load_file(path, 0, NULL);
	assert_non_null(suites);
	size_t i, j, seen = 0;
	json_t *suite, *c;
	json_array_foreach(suites, i, suite) {
		json_array_foreach(json_object_get(suite, "cases"), j, c) {
			const char *code = json_string_value(json_object_get(c, "errorCode"));
			if (!code)
				continue;
			const char *body = json_string_value(
				json_object_get(json_object_get(c, "response"), "body"));
			struct ec2_error e = { 0 };
			assert_int_equal(ec2_xml_error(body, strlen(body), &e), 0);
			assert_string_equal(e.code, code);
			const char *msg = json_string_value(json_object_get(c, "errorMessage"));
			if (msg)
				assert_string_equal(e.message, msg);
			ec2_error_release(&e);
			seen++;
		}
	}
	assert_true(seen >= 2);
	json_decref(suites);
	free(path);
}

/* Malformed replies: every truncation of every recorded response and
 * error is refused or parsed, never crashed on (run under valgrind/ASan
 * by --enable-valgrind / --enable-asan). */
static void truncate_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(strbuf_read_file(&sb, path), 0);
	size_t step = sb.len > 400 ? sb.len / 200 : 1;
	for (size_t len = 0; len <= sb.len; len += step) {
		xmlDoc *doc = ec2_xml_parse(sb.buf, len);
		struct ec2_instance *v = NULL;
		size_t n = 0;
		char **vals = NULL;
		size_t nv = 0;
		if (doc) {
			if (ec2_xml_instances(doc, &v, &n) == 0)
				ec2_instances_free(v, n);
			ec2_xml_set_values(doc, "securityGroupInfo", "groupId", &vals, &nv);
			ec2_strv_free(vals, nv);
			xmlFreeDoc(doc);
		}
		struct ec2_error e = { 0 };
		ec2_xml_error(sb.buf, len, &e);
		ec2_error_release(&e);
	}
	strbuf_release(&sb);
}

static void truncate_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	assert_non_null(dp);
	struct dirent *de;
	while ((de = readdir(dp))) {
		if (!strstr(de->d_name, ".xml"))
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		truncate_file(path);
		free(path);
	}
	closedir(dp);
}

static void test_truncated_replies(void **state)
{
	assert_true(have_vectors());
	static const char *const dirs[] = { R, O, "errors/" };
	for (size_t i = 0; i < 3; i++) {
		char *dir = xasprintf("%s/%s", vec, dirs[i]);
		truncate_dir(dir);
		free(dir);
	}
	/* hostile shapes: entities, DTDs, deep nesting, wrong types */
	static const char *const bad[] = {
		"<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><R><instancesSet><item><instanceId>&e;</instanceId></item></instancesSet></R>",
		"<R><reservationSet><item><instancesSet><item/></instancesSet></item></reservationSet></R>",
		"<R><instancesSet><item><instanceState><code>x</code></instanceState></item></instancesSet></R>",
		"<Response><Errors><Error><Message>no code</Message></Error></Errors></Response>",
		"\xef\xbb\xbf<R/>",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		xmlDoc *doc = ec2_xml_parse(bad[i], strlen(bad[i]));
		struct ec2_instance *v = NULL;
		size_t n = 0;
		if (doc && ec2_xml_instances(doc, &v, &n) == 0) {
			for (size_t k = 0; k < n; k++)
				assert_true(!v[k].id || !strstr(v[k].id, "root:"));
			ec2_instances_free(v, n);
		}
		xmlFreeDoc(doc);
		struct ec2_error e = { 0 };
		ec2_xml_error(bad[i], strlen(bad[i]), &e);
		ec2_error_release(&e);
	}
}

static void test_retry_policy(void **state)
{
	/* botocore _retry.json: __default__ plus the ec2 entries */
	assert_true(ec2_retryable(503, "RequestLimitExceeded"));
	assert_true(ec2_retryable(503, "EC2ThrottledException"));
	assert_true(ec2_retryable(400, "Throttling"));
	assert_true(ec2_retryable(400, "RequestThrottledException"));
	assert_true(ec2_retryable(429, NULL));
	assert_true(ec2_retryable(500, NULL));
	assert_true(ec2_retryable(502, NULL));
	assert_true(ec2_retryable(503, NULL));
	assert_true(ec2_retryable(504, NULL));
	assert_true(ec2_retryable(509, NULL));
	assert_true(ec2_retryable(500, "InternalError"));
	/* final: client errors */
	assert_false(ec2_retryable(403, "UnauthorizedOperation"));
	assert_false(ec2_retryable(400, "InvalidAMIID.NotFound"));
	assert_false(ec2_retryable(400, "InvalidParameterValue"));
	assert_false(ec2_retryable(401, "AuthFailure"));
	/* backoff: rand * 2^(attempt-1), within bounds */
	struct ec2_conn c;
	struct diag d = DIAG_INIT;
	assert_int_equal(ec2_conn_init(&c, "http://127.0.0.1:9", "us-east-1", "a", "b", NULL, &d), 0);
	for (int a = 1; a <= 5; a++) {
		double b = ec2_backoff(&c, a);
		assert_true(b >= 0 && b < (double)(1 << (a - 1)) + 1e-9);
	}
	assert_string_equal(c.endpoint, "http://127.0.0.1:9/");
	ec2_conn_release(&c);
	assert_int_equal(ec2_conn_init(&c, NULL, "eu-west-1", "a", "b", NULL, &d), 0);
	assert_string_equal(c.endpoint, "https://ec2.eu-west-1.amazonaws.com/");
	ec2_conn_release(&c);
	diag_release(&d);
}

/* Query encoding: the ec2 input protocol tests that are flat key/value
 * (the serializer's job in imc is only the encoding and the order). */
static void test_query_encoding(void **state)
{
	struct ec2_query q;
	ec2_query_init(&q, "SimpleInputParams");
	free(q.kv[3]);
	q.kv[3] = xstrdup("2020-01-08");
	ec2_query_add(&q, "Foo", "val1");
	ec2_query_add(&q, "Bar", "val2");
	char *body = ec2_query_encode(&q);
	assert_string_equal(body, "Action=SimpleInputParams&Version=2020-01-08&Foo=val1&Bar=val2");
	free(body);
	ec2_query_release(&q);

	ec2_query_init(&q, "X");
	ec2_query_add(&q, "T", "2015-01-25T08:00:00Z");
	ec2_query_add(&q, "S", "a b+c/~é");
	body = ec2_query_encode(&q);
	assert_string_equal(body, "Action=X&Version=2016-11-15&T=2015-01-25T08%3A00%3A00Z&S=a%20b%2Bc%2F~%C3%A9");
	free(body);
	ec2_query_release(&q);
}

/* The ec2 protocol's input tests: a test-side flattener turns each case's
 * params into ordered key/value pairs by the case's shapes (the rules of
 * vectors/ec2/README.md §3), and imc's ec2_query_encode must then produce
 * the serialized body byte for byte (percent-encoding, order, booleans,
 * timestamps, base64). */
static void flatten(json_t *shapes, const char *shape_name, json_t *member, json_t *v,
		    const char *key, struct ec2_query *q)
{
	json_t *shape = json_object_get(shapes, shape_name);
	const char *type = json_string_value(json_object_get(shape, "type"));
	char buf[64];
	if (strcmp(type, "structure") == 0) {
		json_t *members = json_object_get(shape, "members");
		const char *name;
		json_t *pv;
		json_object_foreach(v, name, pv) {
			json_t *m = json_object_get(members, name);
			assert_non_null(m);
			const char *qn = json_string_value(json_object_get(m, "queryName"));
			const char *ln = json_string_value(json_object_get(m, "locationName"));
			char *seg = qn ? xstrdup(qn) : xstrdup(ln ? ln : name);
			/* botocore's ec2 serializer capitalises the locationName and,
			 * as Ec2QueryEndpointTraitWithHostLabel shows, the bare
			 * member name too */
			if (!qn)
				seg[0] = (char)toupper((unsigned char)seg[0]);
			char *k = *key ? xasprintf("%s.%s", key, seg) : xstrdup(seg);
			flatten(shapes, json_string_value(json_object_get(m, "shape")), m, pv, k, q);
			free(k);
			free(seg);
		}
	} else if (strcmp(type, "list") == 0) {
		const char *ms = json_string_value(json_object_get(json_object_get(shape, "member"), "shape"));
		size_t i;
		json_t *item;
		json_array_foreach(v, i, item) {
			char *k = xasprintf("%s.%zu", key, i + 1);
			flatten(shapes, ms, json_object_get(shape, "member"), item, k, q);
			free(k);
		}
	} else if (strcmp(type, "boolean") == 0) {
		ec2_query_add(q, key, json_is_true(v) ? "true" : "false");
	} else if (strcmp(type, "integer") == 0 || strcmp(type, "long") == 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		ec2_query_add(q, key, buf);
	} else if (strcmp(type, "float") == 0 || strcmp(type, "double") == 0) {
		if (json_is_string(v))
			ec2_query_add(q, key, json_string_value(v));
		else {
			snprintf(buf, sizeof(buf), "%.15g", json_number_value(v));
			ec2_query_add(q, key, buf);
		}
	} else if (strcmp(type, "timestamp") == 0) {
		const char *fmt = json_string_value(json_object_get(member, "timestampFormat"));
		if (!fmt)
			fmt = json_string_value(json_object_get(shape, "timestampFormat"));
		time_t t = (time_t)json_number_value(v);
		if (fmt && strcmp(fmt, "unixTimestamp") == 0) {
			snprintf(buf, sizeof(buf), "%lld", (long long)t);
		} else {
			struct tm tm;
			gmtime_r(&t, &tm);
			strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
		}
		ec2_query_add(q, key, buf);
	} else if (strcmp(type, "blob") == 0) {
		static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		const unsigned char *p = (const unsigned char *)json_string_value(v);
		size_t n = strlen((const char *)p);
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < n; i += 3) {
			unsigned x = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
				     (i + 2 < n ? p[i + 2] : 0);
			strbuf_addch(&sb, tbl[x >> 18 & 63]);
			strbuf_addch(&sb, tbl[x >> 12 & 63]);
			strbuf_addch(&sb, i + 1 < n ? tbl[x >> 6 & 63] : '=');
			strbuf_addch(&sb, i + 2 < n ? tbl[x & 63] : '=');
		}
		ec2_query_add(q, key, strbuf_str(&sb));
		strbuf_release(&sb);
	} else {
		ec2_query_add(q, key, json_string_value(v));
	}
}

static void test_protocol_inputs(void **state)
{
	assert_true(have_vectors());
	char *path = xasprintf("%s/protocol-tests/input-ec2.json", vec);
	json_t *suites = json_load_file(path, 0, NULL);
	assert_non_null(suites);
	size_t i, j, checked = 0, skipped = 0;
	json_t *suite, *c;
	json_array_foreach(suites, i, suite) {
		const char *version = json_string_value(
			json_object_get(json_object_get(suite, "metadata"), "apiVersion"));
		json_t *shapes = json_object_get(suite, "shapes");
		json_array_foreach(json_object_get(suite, "cases"), j, c) {
			const char *id = json_string_value(json_object_get(c, "id"));
			const char *want = json_string_value(
				json_object_get(json_object_get(c, "serialized"), "body"));
			json_t *given = json_object_get(c, "given");
			const char *in = json_string_value(
				json_object_get(json_object_get(given, "input"), "shape"));
			/* no body to compare, or a token the SDK invents (imc's are
			 * deterministic), or gzip content encoding */
			if (!want || strstr(id, "IdempotencyTokenAutoFill") ||
			    strstr(id, "ContentEncoding")) {
				skipped++;
				continue;
			}
			struct ec2_query q;
			ec2_query_init(&q, json_string_value(json_object_get(given, "name")));
			free(q.kv[3]);
			q.kv[3] = xstrdup(version);
			if (in)
				flatten(shapes, in, NULL, json_object_get(c, "params"), "", &q);
			char *body = ec2_query_encode(&q);
			if (strcmp(body, want) != 0)
				fail_msg("%s:\n  got:  %s\n  want: %s", id, body, want);
			free(body);
			ec2_query_release(&q);
			checked++;
		}
	}
	printf("# ec2 input protocol tests: %zu bodies identical, %zu without a comparable body\n",
	       checked, skipped);
	assert_true(checked >= 20);
	json_decref(suites);
	free(path);
}

static void test_outports(void **state)
{
	struct ec2_rule *r;
	size_t n;
	struct diag d = DIAG_INIT;
	assert_int_equal(ec2_outports_parse("pub", "8080/tcp,10.0.0.0/8-2222:2230/udp,0/icmp,8899/tcp-8800/tcp",
					    true, &r, &n, &d), 0);
	assert_int_equal(n, 5);
	assert_string_equal(r[0].proto, "tcp");
	assert_int_equal(r[0].from, 8080);
	assert_string_equal(r[0].cidr, "0.0.0.0/0");
	assert_string_equal(r[1].proto, "udp");
	assert_int_equal(r[1].from, 2222);
	assert_int_equal(r[1].to, 2230);
	assert_string_equal(r[1].cidr, "10.0.0.0/8");
	assert_string_equal(r[2].proto, "icmp");
	assert_int_equal(r[2].from, -1);
	assert_int_equal(r[3].from, 8899); /* remote-local: the remote port is opened */
	assert_int_equal(r[4].from, 22);   /* public: 22/tcp added */
	free(r);
	/* 22 already there: not twice; private: not added */
	assert_int_equal(ec2_outports_parse("pub", "22", true, &r, &n, &d), 0);
	assert_int_equal(n, 1);
	free(r);
	assert_int_equal(ec2_outports_parse("priv", NULL, false, &r, &n, &d), 0);
	assert_int_equal(n, 0);
	free(r);
	assert_false(diag_has_errors(&d));
	static const char *const bad[] = { "", "80,", "80/TCP", "80 ,81", "8080-80/udp", "x",
					   "70000", "90:80", "10.0.0.0-22" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag e = DIAG_INIT;
		assert_int_equal(ec2_outports_parse("net1", bad[i], false, &r, &n, &e), -1);
		assert_non_null(strstr(diag_first_message(&e), "network 'net1'"));
		diag_release(&e);
	}
	diag_release(&d);
}

static void test_types(void **state)
{
	const struct ec2_type *t = ec2_type_pick(0, 0, 0);
	assert_string_equal(t->name, "t3.nano");
	t = ec2_type_pick(2, 4000LL * 1000000, 0);
	assert_string_equal(t->name, "t3.medium");
	t = ec2_type_pick(4, 8LL << 30, 0);
	assert_string_equal(t->name, "t3.xlarge");
	t = ec2_type_pick(4, 0, 1);
	assert_string_equal(t->name, "g4dn.xlarge");
	t = ec2_type_pick(0, 0, 4);
	assert_string_equal(t->name, "g4dn.12xlarge");
	assert_null(ec2_type_pick(1000, 0, 0));
	/* IM's patterns */
	assert_string_equal(ec2_type_pick_pattern("m5.*", 0, 0, 0)->name, "m5.large");
	assert_string_equal(ec2_type_pick_pattern("c5.*", 8, 0, 0)->name, "c5.2xlarge");
	assert_string_equal(ec2_type_pick_pattern("p3.*", 0, 0, 1)->name, "p3.2xlarge");
	assert_null(ec2_type_pick_pattern("z9.*", 0, 0, 0));
	assert_non_null(ec2_type_find("m5.large"));
	/* the table is sane: every entry positive and named */
	size_t n;
	const struct ec2_type *all = ec2_types(&n);
	for (size_t i = 0; i < n; i++)
		assert_true(all[i].vcpus > 0 && all[i].memory_mib > 0 && all[i].usd_hour > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_instance_types),
		cmocka_unit_test(test_other_replies),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_protocol_errors),
		cmocka_unit_test(test_truncated_replies),
		cmocka_unit_test(test_retry_policy),
		cmocka_unit_test(test_query_encoding),
		cmocka_unit_test(test_protocol_inputs),
		cmocka_unit_test(test_outports),
		cmocka_unit_test(test_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
