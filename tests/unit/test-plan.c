/* test-plan.c: unit tests of the plan (src/plan): deploy expansion and VM
 * numbering, names from dns_name with #N#, clouds from the image URL,
 * deploy cloud ids and --cloud, IM's contextualization schedule, the IM_*
 * variables, /etc/hosts and @input substitution. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloud/cloud.h"
#include "plan/plan.h"
#include "util/xalloc.h"

struct fixture {
	struct radl_doc *doc;
	struct plan *plan;
	struct auth_file *auth;
	struct diag d;
};

static struct plan *build(struct fixture *f, const char *radl, const char *auth, const char *cloud)
{
	memset(f, 0, sizeof(*f));
	f->doc = radl_parse("test.radl", radl, strlen(radl), &f->d);
	if (!f->doc || radl_check(f->doc, &f->d) < 0)
		fail_msg("RADL rejected: %s", diag_first_message(&f->d));
	if (auth)
		f->auth = auth_file_parse("auth.dat", auth, strlen(auth), &f->d);
	struct plan_opts o = { .auth = f->auth, .cloud_override = cloud };
	f->plan = plan_build(f->doc, &o, &f->d);
	return f->plan;
}

static void done(struct fixture *f)
{
	plan_free(f->plan);
	radl_doc_free(f->doc);
	auth_file_free(f->auth);
	diag_release(&f->d);
}

static const char cluster[] =
	"network pub (outbound = 'yes')\n"
	"network priv ()\n"
	"system front (net_interface.0.connection = 'pub' and net_interface.0.dns_name = 'master' and\n"
	"  net_interface.1.connection = 'priv' and net_interface.1.dns_name = 'fe-#N#.int.example' and\n"
	"  disk.0.image.url = 'aws://us-east-1/ami-1' and cpu.count >= 2 and memory.size >= 1g)\n"
	"system wn (net_interface.0.connection = 'priv' and net_interface.0.dns_name = 'wn-#N#.cl.example')\n"
	"system other (disk.0.image.url = 'dummy://x')\n"
	"configure front (\n@begin\n- hosts: all\n  tasks: []\n@end\n)\n"
	"configure wn (\n@begin\n- hosts: all\n  tasks: []\n@end\n)\n"
	"deploy front 1\n"
	"deploy wn 2\n"
	"deploy other 1\n";

static void test_expansion_and_names(void **state)
{
	(void)state;
	struct fixture f;
	struct plan *p = build(&f, cluster, NULL, NULL);
	assert_non_null(p);
	assert_int_equal(p->nvms, 4);
	assert_int_equal(p->vms[0].num, 0);
	assert_string_equal(p->vms[0].hostname, "master");
	assert_string_equal(p->vms[0].domain, "localdomain");
	assert_string_equal(p->vms[0].nics[1].hostname, "fe-0");
	assert_string_equal(p->vms[0].nics[1].domain, "int.example");
	assert_string_equal(p->vms[0].cloud, "ec2");
	assert_string_equal(p->vms[0].user, "cloudadm");
	assert_int_equal(p->vms[0].cpus, 2);
	assert_int_equal(p->vms[0].memory_bytes, 1000000000LL);
	assert_string_equal(p->vms[1].hostname, "wn-1");
	assert_string_equal(p->vms[1].domain, "cl.example");
	assert_string_equal(p->vms[2].hostname, "wn-2");
	assert_string_equal(p->vms[1].cloud, "local");
	assert_string_equal(p->vms[3].hostname, "vnode-3");
	assert_string_equal(p->vms[3].domain, "localdomain");
	assert_string_equal(p->vms[3].cloud, "dummy");
	/* networks per cloud: pub only on ec2, priv on ec2 and local */
	size_t priv = 0;
	for (size_t i = 0; i < p->nnets; i++)
		if (strcmp(p->nets[i].name, "priv") == 0)
			priv++;
	assert_int_equal(priv, 2);
	done(&f);

	/* the first number comes from the options (addresource) */
	memset(&f, 0, sizeof(f));
	f.doc = radl_parse("t", cluster, strlen(cluster), &f.d);
	struct plan_opts o = { .first_num = 7 };
	f.plan = plan_build(f.doc, &o, &f.d);
	assert_non_null(f.plan);
	assert_int_equal(f.plan->vms[0].num, 7);
	assert_string_equal(f.plan->vms[1].hostname, "wn-8");
	done(&f);
}

static void test_clouds(void **state)
{
	(void)state;
	assert_string_equal(plan_cloud_of_url(NULL), "local");
	assert_string_equal(plan_cloud_of_url("aws://eu-west-1/ami-x"), "ec2");
	assert_string_equal(plan_cloud_of_url("ost://host/img"), "openstack");
	assert_string_equal(plan_cloud_of_url("docker://ubuntu:22.04"), "docker");
	assert_string_equal(plan_cloud_of_url("local://debian"), "local");
	assert_string_equal(plan_cloud_of_url("dummy://"), "dummy");
	assert_null(plan_cloud_of_url("weird://x"));
	assert_string_equal(plan_cloud_of_url("debian-12"), "local"); /* no scheme */
	assert_string_equal(plan_cloud_of_url("APPDB://site/img"), "openstack");
	/* the login user a system gets when its RADL names none */
	assert_string_equal(cloud_default_user("ec2"), "cloudadm");
	assert_string_equal(cloud_default_user("openstack"), "cloudadm");
	assert_string_equal(cloud_default_user("local"), "root");
	assert_string_equal(cloud_default_user("opennebula"), "root");
	/* an auth line is needed except by the clouds that have no account */
	assert_false(cloud_needs_credentials("local"));
	assert_false(cloud_needs_credentials("Dummy"));
	assert_true(cloud_needs_credentials("ec2"));
	assert_true(cloud_needs_credentials("openstack"));

	struct fixture f;
	/* --cloud retargets every system */
	struct plan *p = build(&f, cluster, NULL, "dummy");
	assert_non_null(p);
	for (size_t i = 0; i < p->nvms; i++)
		assert_string_equal(p->vms[i].cloud, "dummy");
	done(&f);
	/* a deploy cloud id is an auth line id */
	static const char byid[] = "system s ()\ndeploy s 2 mine\n";
	p = build(&f, byid, "id = mine; type = Dummy\n", NULL);
	assert_non_null(p);
	assert_string_equal(p->vms[1].cloud, "dummy");
	assert_string_equal(p->vms[1].cloud_cred, "mine");
	done(&f);
	/* an id no auth line has is an error at the deploy */
	memset(&f, 0, sizeof(f));
	f.doc = radl_parse("t.radl", byid, strlen(byid), &f.d);
	struct plan_opts o = { 0 };
	assert_null(plan_build(f.doc, &o, &f.d));
	assert_int_equal(f.d.items[0].line, 2);
	done(&f);
	/* an image URL of a cloud imc does not know */
	static const char weird[] = "system s ( disk.0.image.url = 'weird://x' )\ndeploy s 1\n";
	memset(&f, 0, sizeof(f));
	f.doc = radl_parse("t.radl", weird, strlen(weird), &f.d);
	assert_null(plan_build(f.doc, &o, &f.d));
	assert_int_equal(f.d.items[0].line, 1);
	done(&f);
}

/* "step:conf@vm,..." of a plan's schedule */
static char *sched_str(const struct plan *p)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, p->sched.disabled ? "disabled" : "");
	for (size_t s = 0; s < p->sched.nsteps; s++)
		for (size_t i = 0; i < p->sched.steps[s].nitems; i++) {
			const struct plan_item *it = &p->sched.steps[s].items[i];
			strbuf_addf(&sb, "%s%d:%s@%d", sb.len ? "," : "", p->sched.steps[s].step, it->conf->id,
				    p->vms[it->vm].num);
		}
	return strbuf_detach(&sb);
}

static void check_sched(const char *radl, const char *want)
{
	struct fixture f;
	struct plan *p = build(&f, radl, NULL, NULL);
	assert_non_null(p);
	char *got = sched_str(p);
	if (strcmp(got, want) != 0)
		fail_msg("schedule '%s', want '%s'", got, want);
	free(got);
	done(&f);
}

static void test_schedule(void **state)
{
	(void)state;
	static const char base[] =
		"system a ()\nsystem b ()\n"
		"configure a (\n@begin\n- hosts: all\n@end\n)\n"
		"configure b (\n@begin\n- hosts: all\n@end\n)\n"
		"configure c (\n@begin\n- hosts: all\n@end\n)\n"
		"deploy a 1\ndeploy b 2\n";
	/* no contextualize: each system runs the configure of its own name at step 1 */
	check_sched(base, "1:a@0,1:b@1,1:b@2");
	/* contextualize (): nothing */
	char *t = xasprintf("%scontextualize ()\n", base);
	check_sched(t, "disabled");
	free(t);
	/* items by step, same step in parallel, the defaults not added */
	t = xasprintf("%scontextualize (\n system b configure c step 2\n system a configure c step 1\n"
		      " system b configure b step 1\n)\n", base);
	check_sched(t, "1:c@0,1:b@1,1:b@2,2:c@1,2:c@2");
	free(t);
	/* configure S (): S's VMs are not contextualized */
	static const char off[] =
		"system a ()\nsystem b ()\n"
		"configure a (\n@begin\n- hosts: all\n@end\n)\n"
		"configure b ()\n"
		"deploy a 1\ndeploy b 1\n";
	check_sched(off, "1:a@0");
	struct fixture f;
	struct plan *p = build(&f, off, NULL, NULL);
	assert_true(p->vms[0].ctxt);
	assert_false(p->vms[1].ctxt);
	done(&f);
	/* with cloud_init is not run by imc; max time is kept */
	t = xasprintf("%scontextualize 600 (\n system a configure a with cloud_init\n system b configure b step 3\n)\n", base);
	p = build(&f, t, NULL, NULL);
	char *got = sched_str(p);
	assert_string_equal(got, "3:b@1,3:b@2");
	assert_int_equal(p->sched.max_time, 600);
	assert_true(p->sched.nnotes >= 1);
	free(got);
	done(&f);
	free(t);
}

static void test_vars_and_hosts(void **state)
{
	(void)state;
	struct fixture f;
	struct plan *p = build(&f, cluster, NULL, NULL);
	json_t *vms = json_array();
	for (size_t i = 0; i < p->nvms; i++) {
		json_t *s = plan_vm_to_json(&p->vms[i]);
		char *ip = xasprintf("10.0.0.%zu", i + 1);
		json_object_set_new(s, "private_ip", json_string(ip));
		free(ip);
		json_array_append_new(vms, s);
	}
	json_object_set_new(json_array_get(vms, 0), "public_ip", json_string("192.0.2.1"));
	json_object_set_new(json_array_get(vms, 0), "nic_ips", json_pack("[s, s]", "192.0.2.1", "10.1.0.1"));
	json_t *hv = plan_host_vars(vms, 1, "inf-1");
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_HOSTNAME")), "wn-1");
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_FQDN")), "wn-1.cl.example");
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_DOMAIN")), "cl.example");
	assert_int_equal(json_integer_value(json_object_get(hv, "IM_NODE_NUM")), 1);
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_PRIVATE_IP")), "10.0.0.2");
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_PUBLIC_IP")), "");
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_NET_0_IP")), "10.0.0.2");
	/* the wn system's job: wn-1 and wn-2, ranked by VM number */
	assert_int_equal(json_integer_value(json_object_get(hv, "IMC_RANK")), 0);
	assert_int_equal(json_integer_value(json_object_get(hv, "IMC_WORLD_SIZE")), 2);
	assert_string_equal(json_string_value(json_object_get(hv, "IMC_MASTER_ADDR")), "10.0.0.2");
	assert_int_equal(json_integer_value(json_object_get(hv, "IMC_MASTER_PORT")), PLAN_MASTER_PORT);
	int cpus = p->vms[1].cpus > 0 ? p->vms[1].cpus : 1;
	char *hf = xasprintf("10.0.0.2 slots=%d\n10.0.0.3 slots=%d\n", cpus, cpus);
	assert_string_equal(json_string_value(json_object_get(hv, "IMC_MPI_HOSTFILE")), hf);
	free(hf);
	json_decref(hv);
	hv = plan_host_vars(vms, 2, "inf-1");
	json_t *env = json_object_get(hv, "IMC_TORCH_ENV");
	assert_string_equal(json_string_value(json_object_get(env, "MASTER_ADDR")), "10.0.0.2");
	assert_string_equal(json_string_value(json_object_get(env, "MASTER_PORT")), "29500");
	assert_string_equal(json_string_value(json_object_get(env, "RANK")), "1");
	assert_string_equal(json_string_value(json_object_get(env, "WORLD_SIZE")), "2");
	assert_string_equal(json_string_value(json_object_get(env, "LOCAL_RANK")), "0");
	json_decref(hv);
	hv = plan_host_vars(vms, 0, "inf-1");
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_NET_1_IP")), "10.1.0.1");
	assert_string_equal(json_string_value(json_object_get(hv, "IM_NODE_NET_1_FQDN")), "fe-0.int.example");
	/* front is a job of its own, of one, at its interface 0 */
	assert_int_equal(json_integer_value(json_object_get(hv, "IMC_WORLD_SIZE")), 1);
	assert_string_equal(json_string_value(json_object_get(hv, "IMC_MASTER_ADDR")), "192.0.2.1");
	json_decref(hv);
	size_t master = plan_master(vms);
	assert_int_equal(master, 0);
	json_t *iv = plan_infra_vars(vms, master, "inf-1", f.doc);
	assert_int_equal(json_integer_value(json_object_get(iv, "IM_WN_NUM_VMS")), 2);
	assert_int_equal(json_integer_value(json_object_get(iv, "IM_FRONT_NUM_VMS")), 1);
	assert_string_equal(json_string_value(json_object_get(iv, "IM_MASTER_HOSTNAME")), "master");
	assert_string_equal(json_string_value(json_object_get(iv, "IM_MASTER_FQDN")), "master.localdomain");
	assert_string_equal(json_string_value(json_object_get(iv, "IM_INFRASTRUCTURE_ID")), "inf-1");
	assert_true(json_is_array(json_object_get(iv, "IM_INFRASTRUCTURE_RADL")));
	json_decref(iv);
	json_t *g = plan_groups(vms);
	assert_int_equal(json_array_size(json_object_get(g, "wn")), 2);
	assert_int_equal(json_array_size(json_object_get(g, "all")), 4);
	assert_string_equal(json_string_value(json_array_get(json_object_get(g, "front"), 0)), "master.localdomain");
	json_decref(g);
	char *hosts = plan_etc_hosts(vms);
	assert_non_null(strstr(hosts, "192.0.2.1 master.localdomain master\r\n"));
	assert_non_null(strstr(hosts, "10.1.0.1 fe-0.int.example fe-0\r\n"));
	assert_non_null(strstr(hosts, "10.0.0.3 wn-2.cl.example wn-2\r\n"));
	free(hosts);
	json_decref(vms);
	done(&f);
}

static void test_inputs(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	json_t *vars = NULL;
	assert_int_equal(plan_parse_extra_var(&vars, "user=alice=x", &d), 0);
	assert_string_equal(json_string_value(json_object_get(vars, "user")), "alice=x");
	assert_int_equal(plan_parse_extra_var(&vars, "=v", &d), -1);
	assert_int_equal(d.code, IMC_EXIT_USAGE);
	diag_release(&d);
	char *t = plan_substitute_inputs("f", "a @input.user@ b @input.user@@", vars, false, &d);
	assert_string_equal(t, "a alice=x b alice=x@");
	free(t);
	t = plan_substitute_inputs("f", "x\n  @input.missing@ and @input.other@", vars, false, &d);
	assert_null(t);
	assert_int_equal(d.nerrors, 2);
	assert_int_equal(d.items[0].line, 2);
	assert_int_equal(d.items[0].col, 3);
	assert_non_null(strstr(d.items[0].msg, "-e missing=VALUE"));
	diag_release(&d);
	json_decref(vars);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expansion_and_names),
		cmocka_unit_test(test_clouds),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_vars_and_hosts),
		cmocka_unit_test(test_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
