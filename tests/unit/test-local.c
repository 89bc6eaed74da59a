/* test-local.c: unit tests of the local backend's pure parts: the naming
 * scheme (every interface name fits IFNAMSIZ and carries "imc" and the
 * infrastructure tag, veths and bridges never collide), CIDR parsing, the
 * word check that keeps RADL values out of files and command lines, the
 * vm/NUM/info round trip, and the /etc/hosts each VM gets (names resolve
 * to addresses on shared networks only). No root needed. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloud/local.h"
#include "util/mkdir.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void test_tag(void **state)
{
	(void)state;
	char tag[LOCAL_TAG_LEN + 1];
	struct diag d = DIAG_INIT;
	assert_int_equal(local_tag("A1B2C3D4-e5f6-4789-8abc-def012345678", tag, &d), 0);
	assert_string_equal(tag, "a1b2c3d4");
	assert_int_equal(local_tag("a1-b2-c3-d4-e5", tag, &d), 0);
	assert_string_equal(tag, "a1b2c3d4");
	assert_int_equal(local_tag("xyz", tag, &d), -1);
	assert_int_equal(local_tag("a1b2", tag, &d), -1);
	assert_int_equal(local_tag(NULL, tag, &d), -1);
	diag_release(&d);
}

static void test_names_fit_and_differ(void **state)
{
	(void)state;
	const char *tag = "a1b2c3d4";
	char br[LOCAL_IFNAMSIZ], ve[LOCAL_IFNAMSIZ], pf[LOCAL_IFNAMSIZ];
	local_bridge_name(tag, 0xffffffffu, br);
	assert_int_equal(strlen(br), 15);
	assert_non_null(strstr(br, "imca1b2c3d4"));
	int nums[] = { 0, 1, 35, 36, 1295, 1296, LOCAL_MAX_VMNUM };
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		for (int nic = 0; nic < LOCAL_MAX_NICS; nic += 7) {
			local_veth_name(tag, nums[i], nic, ve);
			local_veth_prefix(tag, nums[i], pf);
			assert_int_equal(strlen(ve), 15);
			assert_int_equal(strncmp(ve, pf, strlen(pf)), 0);
			assert_int_equal(strncmp(ve, "imca1b2c3d4", 11), 0);
			/* bridges have a '-' after the tag, veths never */
			assert_null(strchr(ve, '-'));
			assert_string_not_equal(ve, br);
		}
	}
	/* distinct VM numbers give distinct veth prefixes */
	char a[LOCAL_IFNAMSIZ], b[LOCAL_IFNAMSIZ];
	local_veth_prefix(tag, 36, a);
	local_veth_prefix(tag, 1, b);
	assert_string_not_equal(a, b);
	char *ns = local_netns_name(tag, 12);
	assert_string_equal(ns, "imc-a1b2c3d4-12");
	free(ns);
}

static void test_parse_cidr(void **state)
{
	(void)state;
	uint32_t b;
	int p;
	assert_int_equal(local_parse_cidr("10.213.5.77/24", &b, &p), 0);
	assert_int_equal(b, 0x0ad50500u);
	assert_int_equal(p, 24);
	assert_int_equal(local_parse_cidr("192.168.1.1", &b, &p), 0);
	assert_int_equal(p, 32);
	assert_int_equal(local_parse_cidr("0.0.0.0/0", &b, &p), 0);
	assert_int_equal(b, 0);
	assert_int_equal(local_parse_cidr("10.0.0.0/33", &b, &p), -1);
	assert_int_equal(local_parse_cidr("10.0.0/8", &b, &p), -1);
	assert_int_equal(local_parse_cidr("default", &b, &p), -1);
	assert_int_equal(local_parse_cidr("10.0.0.0/x", &b, &p), -1);
	assert_int_equal(local_parse_cidr("", &b, &p), -1);
	char *s = local_ip_str(0x0ad50503u);
	assert_string_equal(s, "10.213.5.3");
	free(s);
}

static void test_valid_word(void **state)
{
	(void)state;
	assert_true(local_valid_word("front-1.example_net", 64));
	assert_false(local_valid_word("a b", 64));
	assert_false(local_valid_word("a;rm -rf /", 64));
	assert_false(local_valid_word("$(id)", 64));
	assert_false(local_valid_word("-n", 64));
	assert_false(local_valid_word(".hidden", 64));
	assert_false(local_valid_word("x\ny", 64));
	assert_false(local_valid_word("a/b", 64));
	assert_false(local_valid_word("", 64));
	assert_false(local_valid_word(NULL, 64));
	assert_false(local_valid_word("abcdef", 5));
}

static char tmpdir[] = "/tmp/imc-test-local.XXXXXX";

static struct local_vm make_vm(struct local_ctx *c, int num, const char *host,
			       const char *nets[], const char *ips[], size_t n)
{
	struct local_vm vm = { 0 };
	vm.num = num;
	vm.mode = LOCAL_ROOTLESS;
	vm.netns = local_netns_name(c->tag, num);
	vm.dir = local_vm_dir(c, num);
	vm.hostname = xstrdup(host);
	vm.domain = xstrdup("example.org");
	vm.user = xstrdup("root");
	vm.port = 2222;
	vm.nics = xcalloc(n, sizeof(*vm.nics));
	for (size_t k = 0; k < n; k++) {
		vm.nics[k].index = (int)k;
		vm.nics[k].net = xstrdup(nets[k]);
		vm.nics[k].ip = xstrdup(ips[k]);
		vm.nics[k].prefix = 24;
		vm.nics[k].host = k ? xasprintf("%s-%s", host, nets[k]) : xstrdup(host);
		vm.nics[k].domain = xstrdup("example.org");
		vm.nics[k].public = k == 0;
	}
	vm.nnics = n;
	return vm;
}

static void test_info_and_hosts(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	struct cloud_session s = { 0 };
	s.infra_id = "a1b2c3d4-0000-4000-8000-000000000000";
	s.home = tmpdir;
	struct local_ctx c = { 0 };
	c.s = &s;
	c.mode = LOCAL_ROOTLESS;
	snprintf(c.tag, sizeof(c.tag), "a1b2c3d4");
	c.infra_dir = xasprintf("%s/infra/%s", tmpdir, s.infra_id);
	struct diag d = DIAG_INIT;

	const char *n1[] = { "pub", "priv" }, *i1[] = { "10.0.0.3", "10.0.1.3" };
	const char *n2[] = { "priv" }, *i2[] = { "10.0.1.4" };
	const char *n3[] = { "pub" }, *i3[] = { "10.0.0.5" };
	struct local_vm v[3] = { make_vm(&c, 1, "front", n1, i1, 2), make_vm(&c, 2, "back", n2, i2, 1),
				 make_vm(&c, 3, "web", n3, i3, 1) };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(mkdir_p(v[i].dir, 0700, &d), 0);
		assert_int_equal(local_vm_save(&v[i], &d), 0);
	}
	struct local_vm back;
	assert_int_equal(local_vm_load(v[0].dir, &back), 0);
	assert_int_equal(back.num, 1);
	assert_string_equal(back.hostname, "front");
	assert_string_equal(back.user, "root");
	assert_int_equal(back.port, 2222);
	assert_int_equal(back.nnics, 2);
	assert_string_equal(back.nics[1].net, "priv");
	assert_string_equal(back.nics[1].ip, "10.0.1.3");
	assert_true(back.nics[0].public);
	local_vm_release(&back);

	struct local_vm *all;
	size_t n = local_vm_load_all(&c, &all);
	assert_int_equal(n, 3);
	assert_int_equal(all[0].num, 1);
	assert_int_equal(all[2].num, 3);
	for (size_t i = 0; i < n; i++)
		local_vm_release(&all[i]);
	free(all);

	assert_int_equal(local_hosts_update(&c, &d), 0);
	struct strbuf h = STRBUF_INIT;
	char *p = local_hosts_path(&v[1]); /* back: on priv only */
	assert_int_equal(strbuf_read_file(&h, p), 0);
	assert_non_null(strstr(h.buf, "10.0.1.3\tfront.example.org front\n"));
	assert_non_null(strstr(h.buf, "10.0.1.4\tback.example.org back\n"));
	assert_null(strstr(h.buf, "web"));
	assert_null(strstr(h.buf, "10.0.0."));
	strbuf_release(&h);
	free(p);
	p = local_hosts_path(&v[0]); /* front: on both */
	assert_int_equal(strbuf_read_file(&h, p), 0);
	assert_non_null(strstr(h.buf, "10.0.0.3\tfront.example.org front\n"));
	assert_non_null(strstr(h.buf, "10.0.1.3\tfront-priv.example.org front-priv\n"));
	assert_non_null(strstr(h.buf, "10.0.1.4\tback.example.org back\n"));
	assert_non_null(strstr(h.buf, "10.0.0.5\tweb.example.org web\n"));
	strbuf_release(&h);
	free(p);

	for (int i = 0; i < 3; i++)
		local_vm_release(&v[i]);
	assert_int_equal(local_rmtree(tmpdir), 0);
	assert_int_not_equal(access(tmpdir, F_OK), 0);
	free(c.infra_dir);
	diag_release(&d);
}

static char *read_text(const char *dir, const char *file)
{
	char *p = xasprintf("%s/%s", dir, file);
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 4096);
	char *r = strbuf_read_file(&sb, p) == 0 && sb.buf ? strbuf_detach(&sb) : xstrdup("");
	strbuf_release(&sb);
	free(p);
	return r;
}

/* cgroup v2, with IMC_LOCAL_CGROUP_ROOT pointing at a tree that offers
 * the cpu and memory controllers: the VM's cgroup gets cpu.max and
 * memory.max, a new size
 * (alter) rewrites them, and a missing controller leaves a note while the
 * other limit is still applied. (The v1 files are checked on the real
 * hierarchies by tests/cli/t3001 and t3005.) */
static void test_cgroup_v2_files(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip(); /* limits are for netns mode, as root */
	char root[] = "/tmp/imc-test-cgroup.XXXXXX";
	assert_non_null(mkdtemp(root));
	struct diag d = DIAG_INIT;
	char *ctl = xasprintf("%s/cgroup.controllers", root);
	assert_int_equal(local_write_file(ctl, "cpu memory\n", 11, 0644, &d), 0);
	setenv("IMC_LOCAL_CGROUP_ROOT", root, 1);
	struct local_ctx c = { 0 };
	snprintf(c.tag, sizeof(c.tag), "a1b2c3d4");
	struct local_vm vm = { 0 };
	vm.num = 3;
	vm.mode = LOCAL_NETNS;
	vm.cpus = 2;
	vm.memory = 268435456;
	struct local_cgroups cgs = { 0 };
	char *note = NULL;
	assert_int_equal(local_cgroup_setup(&c, &vm, &cgs, &note), 0);
	assert_null(note);
	char *cg = xasprintf("%s/imc-local/imc-a1b2c3d4-3", root);
	assert_int_equal(cgs.n, 1);
	assert_string_equal(cgs.dir[0], cg);
	char *t = read_text(cg, "cpu.max");
	assert_string_equal(t, "200000 100000\n");
	free(t);
	t = read_text(cg, "memory.max");
	assert_string_equal(t, "268435456\n");
	free(t);
	local_cgroups_release(&cgs);

	/* alter: a new size rewrites both; cpu 0 means unlimited */
	vm.cpus = 0;
	vm.memory = 536870912;
	assert_int_equal(local_cgroup_setup(&c, &vm, &cgs, &note), 0);
	t = read_text(cg, "cpu.max");
	assert_string_equal(t, "max 100000\n");
	free(t);
	t = read_text(cg, "memory.max");
	assert_string_equal(t, "536870912\n");
	free(t);
	local_cgroups_release(&cgs);

	/* no cpu controller: memory still limited, the note says why not cpu */
	assert_int_equal(local_write_file(ctl, "memory\n", 7, 0644, &d), 0);
	vm.cpus = 1;
	assert_int_equal(local_cgroup_setup(&c, &vm, &cgs, &note), 1);
	assert_non_null(note);
	assert_non_null(strstr(note, "no usable cgroup cpu controller"));
	assert_int_equal(cgs.n, 1);
	free(note);
	local_cgroups_release(&cgs);

	unsetenv("IMC_LOCAL_CGROUP_ROOT");
	free(cg);
	free(ctl);
	assert_int_equal(local_rmtree(root), 0);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tag),
		cmocka_unit_test(test_names_fit_and_differ),
		cmocka_unit_test(test_parse_cidr),
		cmocka_unit_test(test_valid_word),
		cmocka_unit_test(test_info_and_hosts),
		cmocka_unit_test(test_cgroup_v2_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
