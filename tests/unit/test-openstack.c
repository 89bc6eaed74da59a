/* test-openstack.c: unit tests of the openstack backend's pieces that need
 * no network, against the recorded bodies (tests/vectors/openstack, the
 * values its README lists): servers' state and addresses (typed and
 * untyped, floating and fixed, IPv6 left out), the error bodies of Nova
 * and Keystone, and the flavor choice. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cloud/openstack.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static char vec[4096];

static json_t *load(const char *rel)
{
	const char *top = getenv("top_srcdir");
	snprintf(vec, sizeof(vec), "%s/tests/vectors/openstack/%s", top ? top : IMC_SRCDIR, rel);
	json_t *j = json_load_file(vec, 0, NULL);
	assert_non_null(j);
	return j;
}

static char *text(const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	const char *top = getenv("top_srcdir");
	snprintf(vec, sizeof(vec), "%s/tests/vectors/openstack/%s", top ? top : IMC_SRCDIR, rel);
	assert_int_equal(strbuf_read_file(&sb, vec), 0);
	return strbuf_detach(&sb);
}

static void test_servers(void **state)
{
	(void)state;
	struct os_server s;
	json_t *j = load("libcloud-fixtures/openstack_v1.1/_servers_detail.json");
	json_t *v = json_object_get(j, "servers");
	/* 12065: floating 192.168.3.3 first (a private range, but floating) */
	os_server_read(json_array_get(v, 0), &s);
	assert_string_equal(s.id, "12065");
	assert_int_equal(os_server_state(s.status), VM_PENDING);
	assert_string_equal(s.public_ip, "192.168.3.3");
	assert_string_equal(s.private_ip, "10.182.64.34");
	os_server_release(&s);
	/* 12064: no types (an old API): routable is public */
	os_server_read(json_array_get(v, 1), &s);
	assert_int_equal(os_server_state(s.status), VM_RUNNING);
	assert_string_equal(s.public_ip, "50.57.94.30");
	assert_string_equal(s.private_ip, "10.182.64.29");
	assert_int_equal(s.vm_num, -1);
	os_server_release(&s);
	json_decref(j);

	j = load("libcloud-fixtures/openstack_v1.1/_servers_detail_ERROR_STATE.json");
	os_server_read(json_array_get(json_object_get(j, "servers"), 0), &s);
	assert_int_equal(os_server_state(s.status), VM_FAILED);
	assert_null(s.public_ip);
	assert_string_equal(s.private_ip, "192.168.3.4");
	os_server_release(&s);
	json_decref(j);

	j = load("nova/servers/server-get-resp.json");
	os_server_read(json_object_get(j, "server"), &s);
	assert_string_equal(s.id, "0e44cc9c-e052-415d-afbf-469b0d384170");
	assert_string_equal(s.private_ip, "192.168.1.30");
	assert_null(s.public_ip);
	assert_null(s.fault);
	os_server_release(&s);
	json_decref(j);
	assert_int_equal(os_server_state("SHUTOFF"), VM_STOPPED);
	assert_int_equal(os_server_state("SOFT_DELETED"), VM_OFF);
	assert_int_equal(os_server_state("SOMETHING_NEW"), VM_UNKNOWN);
	assert_int_equal(os_server_state(NULL), VM_UNKNOWN);
}

static void test_errors(void **state)
{
	(void)state;
	struct os_error e;
	char *t = text("libcloud-fixtures/openstack_v1.1/_os_keypairs_not_found.json");
	memset(&e, 0, sizeof(e));
	os_error_parse(t, &e);
	assert_string_equal(e.fault, "itemNotFound");
	assert_string_equal(e.message, "The resource could not be found.");
	os_error_release(&e);
	free(t);
	t = text("libcloud-fixtures/openstack/_v3__auth_unauthorized.json");
	os_error_parse(t, &e);
	assert_string_equal(e.fault, "Unauthorized");
	assert_string_equal(e.message, "The request you have made requires authentication.");
	os_error_release(&e);
	free(t);
	os_error_parse("{\"NeutronError\": {\"type\": \"SecurityGroupInUse\", \"message\": \"in use\", \"detail\": \"\"}}", &e);
	assert_string_equal(e.fault, "SecurityGroupInUse");
	assert_string_equal(e.message, "in use");
	os_error_release(&e);
	/* not an error body: nothing read, no crash */
	os_error_parse("<html>502 Bad Gateway</html>", &e);
	os_error_parse("", &e);
	os_error_parse(NULL, &e);
	os_error_parse("{\"a\": 1, \"b\": {}}", &e);
	assert_null(e.fault);
	assert_null(e.message);
}

static void test_flavors(void **state)
{
	(void)state;
	struct os_flavor f;
	struct diag d = DIAG_INIT;
	json_t *j = load("nova/flavors/flavors-detail-resp.json");
	assert_int_equal(os_flavor_pick(j, NULL, 0, 0, 0, &f, &d), 0);
	assert_string_equal(f.name, "m1.tiny");
	os_flavor_release(&f);
	assert_int_equal(os_flavor_pick(j, NULL, 2, 4000LL * 1000 * 1000, 0, &f, &d), 0);
	assert_string_equal(f.name, "m1.medium");
	os_flavor_release(&f);
	/* 1 CPU, 1 GiB, a 10 GiB root disk: m1.small (m1.tiny has 512 MB, 1 GB) */
	assert_int_equal(os_flavor_pick(j, NULL, 1, 1LL << 30, 10LL << 30, &f, &d), 0);
	assert_string_equal(f.name, "m1.small");
	assert_string_equal(f.id, "2");
	os_flavor_release(&f);
	assert_int_equal(os_flavor_pick(j, "m1.x*", 0, 0, 0, &f, &d), 0);
	assert_string_equal(f.name, "m1.xlarge");
	os_flavor_release(&f);
	assert_int_equal(os_flavor_pick(j, "m1.large", 64, 0, 0, &f, &d), 0);
	assert_string_equal(f.name, "m1.large");
	os_flavor_release(&f);
	assert_false(diag_has_errors(&d));
	assert_int_equal(os_flavor_pick(j, NULL, 9, 0, 0, &f, &d), -1);
	assert_true(diag_has_errors(&d));
	assert_non_null(strstr(diag_first_message(&d), "no flavor has 9 CPUs"));
	diag_release(&d);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_servers),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_flavors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
