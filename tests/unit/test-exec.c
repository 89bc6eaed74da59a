/* test-exec.c: unit tests of the task executor's pieces (k=v parsing,
 * shlex, modes, YAML 1.1 typing, digests, the module table, the static
 * check) and of provision_run() against an sshd on loopback: steps in
 * order, a failed host skipping its later steps, host key pinning, a
 * changed key refused, an unsupported construct refused before any VM is
 * touched. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "provision/provision.h"
#include "provision/args.h"
#include "provision/exec.h"
#include "provision/module.h"
#include "provision/play.h"
#include "util/vault.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void test_kv(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	json_t *a = args_parse_kv("dest={{ x }}/a line=\"a b\" content='x\\ny' mode=0755", false, &d);
	assert_string_equal(json_string_value(json_object_get(a, "dest")), "{{ x }}/a");
	assert_string_equal(json_string_value(json_object_get(a, "line")), "a b");
	assert_string_equal(json_string_value(json_object_get(a, "content")), "x\ny");
	assert_string_equal(json_string_value(json_object_get(a, "mode")), "0755");
	json_decref(a);
	a = args_parse_kv("cp a b creates=/x chdir=/tmp", true, &d);
	assert_string_equal(json_string_value(json_object_get(a, "_raw_params")), "cp a b");
	assert_string_equal(json_string_value(json_object_get(a, "creates")), "/x");
	json_decref(a);
	/* backrefs stay literal: no octal escapes */
	a = args_parse_kv("line='UsePAM no (was \\1)'", false, &d);
	assert_string_equal(json_string_value(json_object_get(a, "line")), "UsePAM no (was \\1)");
	json_decref(a);
	diag_release(&d);
}

static void test_shlex(void **state)
{
	(void)state;
	json_t *a = args_shlex("printf '%s|' \"a b\" c\\ d | wc");
	assert_int_equal(json_array_size(a), 6);
	assert_string_equal(json_string_value(json_array_get(a, 2)), "a b");
	assert_string_equal(json_string_value(json_array_get(a, 3)), "c d");
	assert_string_equal(json_string_value(json_array_get(a, 4)), "|");
	json_decref(a);
	assert_null(args_shlex("echo 'unterminated"));
}

static void test_modes(void **state)
{
	(void)state;
	json_t *v = json_string("0644");
	assert_int_equal(args_mode(v, -1), 0644);
	json_decref(v);
	v = json_string("755");
	assert_int_equal(args_mode(v, -1), 0755);
	json_decref(v);
	v = json_integer(644); /* YAML decimal: Ansible uses the number */
	assert_int_equal(args_mode(v, -1), 644);
	json_decref(v);
	v = json_string("u=rw,g=r,o=");
	assert_int_equal(args_mode(v, 0777), 0640);
	json_decref(v);
	v = json_string("a+x");
	assert_int_equal(args_mode(v, 0644), 0755);
	json_decref(v);
	v = json_string("q=x");
	assert_int_equal(args_mode(v, 0644), -2);
	json_decref(v);
	v = json_string("Yes");
	assert_true(args_bool(v, false));
	json_decref(v);
	v = json_string("off");
	assert_false(args_bool(v, true));
	json_decref(v);
}

static void test_yaml(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	const char *y = "a: yes\nb: 0644\nc: '0644'\nd: 1.5\ne: ~\nf: 1e3\ng: 0x1f\nh: on\ni: [1, two]\n";
	struct yaml_doc *doc = NULL;
	json_t *v = yaml_load(y, strlen(y), "t.yml", 10, &doc, &d);
	assert_non_null(v);
	assert_true(json_is_true(json_object_get(v, "a")));
	assert_int_equal(json_integer_value(json_object_get(v, "b")), 0644);
	assert_string_equal(json_string_value(json_object_get(v, "c")), "0644");
	assert_true(json_is_real(json_object_get(v, "d")));
	assert_true(json_is_null(json_object_get(v, "e")));
	assert_string_equal(json_string_value(json_object_get(v, "f")), "1e3");
	assert_int_equal(json_integer_value(json_object_get(v, "g")), 31);
	assert_true(json_is_true(json_object_get(v, "h")));
	assert_int_equal(yaml_line_of(doc, json_object_get(v, "i")), 19);
	yaml_doc_free(doc);
	json_decref(v);
	v = yaml_load("a: [1, 2\n", 9, "bad.yml", 0, NULL, &d);
	assert_null(v);
	assert_true(diag_has_errors(&d));
	assert_string_equal(d.items[0].file, "bad.yml");
	diag_release(&d);
	/* a !vault value (written by ansible-vault encrypt_string with the
	 * password hunter2) is its plain text with the right secret; without
	 * one, or with the wrong one, never its ciphertext: a template that
	 * fails with Ansible's message where it is used */
	const char *vy = "a: 1\npw: !vault |\n"
			 "  $ANSIBLE_VAULT;1.1;AES256\n"
			 "  63356430653230326535623332646637323030613637663364616631323761656664313033353936\n"
			 "  3735633632373735366339653237386639383934396365660a373237613165626237393638396461\n"
			 "  61626161663461336235313463626639316531646632373532343038616236663365663736643935\n"
			 "  6263376135363437340a653935666631373464343166386461343833383434326362656239353962\n"
			 "  3261\n";
	v = yaml_load(vy, strlen(vy), "v.yml", 0, NULL, &d);
	assert_non_null(v);
	assert_non_null(strstr(json_string_value(json_object_get(v, "pw")),
			       "mandatory('Attempting to decrypt but no vault secrets found')"));
	json_decref(v);
	struct vault_keyring ring = { 0 };
	vault_keyring_add(&ring, "default", "wrong", 5);
	vault_keyring_use(&ring);
	v = yaml_load(vy, strlen(vy), "v.yml", 0, NULL, &d);
	assert_non_null(strstr(json_string_value(json_object_get(v, "pw")),
			       "mandatory('Decryption failed (no vault secrets were found that could decrypt)')"));
	json_decref(v);
	vault_keyring_add(&ring, "other", "hunter2", 7);
	v = yaml_load(vy, strlen(vy), "v.yml", 0, NULL, &d);
	assert_string_equal(json_string_value(json_object_get(v, "pw")), "inline-secret");
	assert_true(vault_text_marked("inline-secret", 13));
	assert_false(vault_text_marked("inline-secreT", 13));
	json_decref(v);
	/* a whole encrypted text: a format error in Ansible's words */
	const char *bad = "$ANSIBLE_VAULT;1.1;AES256\n3132\n";
	v = yaml_load(bad, strlen(bad), "f.yml", 0, NULL, &d);
	assert_null(v);
	assert_string_equal(diag_first_message(&d),
			    "Vault vaulttext format error: not enough values to unpack (expected 3, got 1)");
	vault_keyring_use(NULL);
	vault_keyring_release(&ring);
	diag_release(&d);
}

/* The module table: every module is found under its own name (no two
 * share one), and the modules that are one module under two names share
 * their code (systemd runs service's, shell checks as command does). */
static void test_registry(void **state)
{
	(void)state;
	for (const struct task_module *const *m = task_modules; *m; m++) {
		assert_ptr_equal(task_module_find((*m)->name), *m);
		assert_non_null((*m)->run);
	}
	assert_ptr_equal(task_module_find("systemd")->run, task_module_find("service")->run);
	assert_ptr_equal(task_module_find("shell")->check, task_module_find("command")->check);
	assert_null(task_module_find("no_such_module"));
}

/* The names Ansible (installed by scripts/install-deps) resolves, as its
 * plugin loader does: builtin modules and action plugins, the builtin
 * routing (sysctl went to ansible.posix), collections and their routing
 * (a tombstone is a removed module), and nothing else. */
static void test_fallback_resolve(void **state)
{
	(void)state;
	assert_true(fallback_resolve("ansible.builtin.getent", NULL));
	assert_true(fallback_resolve("getent", NULL));
	assert_true(fallback_resolve("ansible.legacy.getent", NULL));
	assert_true(fallback_resolve("fail", NULL));            /* an action */
	assert_true(fallback_resolve("sysctl", NULL));          /* routed to ansible.posix */
	assert_true(fallback_resolve("ansible.builtin.sysctl", NULL));
	assert_true(fallback_resolve("community.general.pam_limits", NULL));
	assert_true(fallback_resolve("pam_limits", NULL));      /* routed to community.general */
	assert_false(fallback_resolve("community.general.docker_service", NULL)); /* tombstone */
	assert_false(fallback_resolve("frobnicate", NULL));
	assert_false(fallback_resolve("ansible.builtin.frobnicate", NULL));
	assert_false(fallback_resolve("no.such.module", NULL));
	assert_false(fallback_resolve("community.general", NULL));
	/* again, from the cache */
	assert_true(fallback_resolve("pam_limits", NULL));
	assert_false(fallback_resolve("frobnicate", NULL));
}

static void test_static_check(void **state)
{
	(void)state;
	struct diag d = DIAG_INIT;
	const char *recipe = "---\n- tasks:\n  - name: ok\n    command: /bin/true\n  - name: bad\n    frob: x=1\n";
	/* without the fallback to Ansible, a module imc lacks is an
	 * unsupported construct (with it, Ansible resolves the name: t4020) */
	const char *was = getenv("IMC_NO_FALLBACK");
	char *saved = was ? strdup(was) : NULL;
	setenv("IMC_NO_FALLBACK", "1", 1);
	struct task_playbook *pb = play_load_text(recipe, "infra.radl", 40, NULL, NULL, true, &d);
	if (saved)
		setenv("IMC_NO_FALLBACK", saved, 1);
	else
		unsetenv("IMC_NO_FALLBACK");
	free(saved);
	assert_null(pb);
	assert_true(play_error_unsupported(&d));
	assert_int_equal(d.items[0].line, 45);
	assert_string_equal(d.items[0].file, "infra.radl");
	diag_release(&d);
	diag_init(&d);
	/* a condition that does not compile is the task's error when it runs
	 * (Ansible templates it then), not the load's */
	pb = play_load_text("- tasks: [ {command: /bin/true, when: 'a ==' } ]\n", "x.radl", 0, NULL,
			    NULL, true, &d);
	assert_non_null(pb);
	assert_false(diag_has_errors(&d));
	play_free(pb);
	diag_release(&d);
}

/* ---- provision_run against a loopback sshd ---------------------------------- */

struct rec {
	char keys[2][512];
	int nkeys;
	struct { int host, step; bool ok; char err[512]; } done[16];
	int ndone;
	int logs[3];
	pthread_mutex_t lock;
};

static void rec_log(void *o, int host, const char *text)
{
	struct rec *r = o;
	pthread_mutex_lock(&r->lock);
	if (strstr(text, "TASK [") || strstr(text, "ok: [") || strstr(text, "changed: ["))
		r->logs[host + 1]++;
	pthread_mutex_unlock(&r->lock);
}

static void rec_key(void *o, int host, const char *key)
{
	struct rec *r = o;
	pthread_mutex_lock(&r->lock);
	if (host >= 0 && host < 2)
		snprintf(r->keys[host], sizeof(r->keys[host]), "%s", key);
	r->nkeys++;
	pthread_mutex_unlock(&r->lock);
}

static void rec_done(void *o, int host, int step, bool ok, const char *error)
{
	struct rec *r = o;
	pthread_mutex_lock(&r->lock);
	if (r->ndone < 16) {
		r->done[r->ndone].host = host;
		r->done[r->ndone].step = step;
		r->done[r->ndone].ok = ok;
		snprintf(r->done[r->ndone].err, sizeof(r->done[0].err), "%s", error ? error : "");
		r->ndone++;
	}
	pthread_mutex_unlock(&r->lock);
}

static char tmpdir[64];
static int port;

static int sshd_setup(void **state)
{
	(void)state;
	const char *top = getenv("top_srcdir");
	/* root, OpenSSH's sshd and make check's top_srcdir are there on every
	 * supported machine (scripts/install-deps): their absence fails */
	if (getuid() != 0 || access("/usr/sbin/sshd", X_OK) != 0 || !top) {
		fprintf(stderr, "test-exec: needs root, /usr/sbin/sshd and top_srcdir\n");
		return -1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/imc-test-exec.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	port = 30000 + getpid() % 20000;
	char *cmd = xasprintf("sh -c '. \"%s/tests/cli/t4-lib-sshd.sh\" && sshd_keys %s && "
			      "sshd_start %s 127.0.0.1 %d %s/hk1' >/dev/null 2>&1",
			      top, tmpdir, tmpdir, port, tmpdir);
	int rc = system(cmd);
	free(cmd);
	if (rc != 0) {
		fprintf(stderr, "test-exec: the test sshd did not start\n");
		return -1;
	}
	return 0;
}

static int sshd_teardown(void **state)
{
	(void)state;
	if (!tmpdir[0])
		return 0;
	char *cmd = xasprintf("sh -c '. \"%s/tests/cli/t4-lib-sshd.sh\" && sshd_stop_all %s; rm -rf %s'",
			      getenv("top_srcdir"), tmpdir, tmpdir);
	int rc = system(cmd);
	(void)rc;
	free(cmd);
	return 0;
}

static void fill_job(struct prov_job *job, struct prov_host *hosts, const char *key,
		     struct prov_configure *confs, struct prov_item *items, struct prov_step *steps,
		     struct rec *r)
{
	memset(job, 0, sizeof(*job));
	for (int i = 0; i < 2; i++) {
		memset(&hosts[i], 0, sizeof(hosts[i]));
		hosts[i].name = i ? "vm1" : "vm0";
		hosts[i].vm_num = i;
		hosts[i].system = "node";
		hosts[i].address = "127.0.0.1";
		hosts[i].port = port;
		hosts[i].user = "root";
		hosts[i].key_path = key;
		hosts[i].vars = json_pack("{s:i}", "IM_NODE_NUM", i);
	}
	job->infra_id = "test";
	job->hosts = hosts;
	job->nhosts = 2;
	job->groups = json_pack("{s:[s,s], s:[s,s]}", "all", "vm0", "vm1", "node", "vm0", "vm1");
	job->vars = json_pack("{s:s, s:s}", "IM_INFRASTRUCTURE_ID", "test", "dir", tmpdir);
	job->steps = steps;
	job->on_log = rec_log;
	job->on_hostkey = rec_key;
	job->on_step_done = rec_done;
	job->opaque = r;
	/* step 1: both touch a file; step 2: vm0 fails, vm1 ok; step 3: only vm1 goes on */
	confs[0] = (struct prov_configure){ "touch",
		"- tasks:\n  - name: mark\n    shell: echo step1 >> {{ dir }}/{{ IM_HOST }}\n", "t.radl", 10 };
	confs[1] = (struct prov_configure){ "maybe_fail",
		"- tasks:\n  - fail: msg=boom\n    when: IM_NODE_NUM == 0\n  - shell: echo step2 >> {{ dir }}/{{ IM_HOST }}\n",
		"t.radl", 20 };
	confs[2] = (struct prov_configure){ "last",
		"- tasks:\n  - shell: echo step3 >> {{ dir }}/{{ IM_HOST }}\n", "t.radl", 30 };
	items[0] = (struct prov_item){ 0, &confs[0], NULL };
	items[1] = (struct prov_item){ 1, &confs[0], NULL };
	items[2] = (struct prov_item){ 0, &confs[1], NULL };
	items[3] = (struct prov_item){ 1, &confs[1], NULL };
	items[4] = (struct prov_item){ 0, &confs[2], NULL };
	items[5] = (struct prov_item){ 1, &confs[2], NULL };
	steps[0] = (struct prov_step){ 1, &items[0], 2 };
	steps[1] = (struct prov_step){ 2, &items[2], 2 };
	steps[2] = (struct prov_step){ 3, &items[4], 2 };
	job->nsteps = 3;
	job->max_time = 120; /* bounds the wait for sshd */
}

static void release_job(struct prov_job *job)
{
	json_decref(job->groups);
	json_decref(job->vars);
	for (size_t i = 0; i < job->nhosts; i++)
		json_decref(job->hosts[i].vars);
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return xstrdup("");
	}
	return strbuf_detach(&sb);
}

static void test_provision(void **state)
{
	(void)state;
	assert_int_not_equal(port, 0);
	struct prov_job job;
	struct prov_host hosts[2];
	struct prov_configure confs[3];
	struct prov_item items[6];
	struct prov_step steps[3];
	struct rec r;
	memset(&r, 0, sizeof(r));
	pthread_mutex_init(&r.lock, NULL);
	char *key = xasprintf("%s/userkey", tmpdir);
	fill_job(&job, hosts, key, confs, items, steps, &r);
	struct diag d = DIAG_INIT;
	int rc = provision_run(&job, &d);
	assert_int_equal(rc, 1);
	assert_int_equal(r.nkeys, 2);
	assert_string_not_equal(r.keys[0], "");
	assert_int_equal(strncmp(r.keys[0], "ssh-ed25519 ", 12), 0);
	char *p0 = xasprintf("%s/vm0", tmpdir), *p1 = xasprintf("%s/vm1", tmpdir);
	char *c0 = slurp(p0), *c1 = slurp(p1);
	assert_string_equal(c0, "step1\n");
	assert_string_equal(c1, "step1\nstep2\nstep3\n");
	/* vm0: ok at 1, failed at 2, nothing at 3; vm1 ok at 1, 2, 3 */
	int v0 = 0, v1 = 0;
	for (int i = 0; i < r.ndone; i++) {
		if (r.done[i].host == 0) {
			v0++;
			if (r.done[i].step == 2) {
				assert_false(r.done[i].ok);
				assert_non_null(strstr(r.done[i].err, "boom"));
			} else
				assert_int_equal(r.done[i].step, 1);
		} else {
			v1++;
			assert_true(r.done[i].ok);
		}
	}
	assert_int_equal(v0, 2);
	assert_int_equal(v1, 3);
	assert_true(r.logs[1] > 0 && r.logs[2] > 0);
	free(c0);
	free(c1);

	/* a pinned key that does not match is refused */
	char pinned[600];
	snprintf(pinned, sizeof(pinned), "%s", r.keys[0]);
	pinned[strlen(pinned) - 3] = pinned[strlen(pinned) - 3] == 'A' ? 'B' : 'A';
	hosts[0].hostkey = pinned;
	hosts[1].hostkey = r.keys[1];
	r.ndone = 0;
	r.nkeys = 0;
	unlink(p0);
	unlink(p1);
	rc = provision_run(&job, &d);
	assert_int_equal(rc, 1);
	assert_int_equal(r.nkeys, 0);
	bool refused = false;
	for (int i = 0; i < r.ndone; i++)
		if (r.done[i].host == 0) {
			assert_false(r.done[i].ok);
			refused = strstr(r.done[i].err, "host key verification failed") != NULL;
		}
	assert_true(refused);
	assert_int_equal(access(p0, F_OK), -1);
	free(p0);
	free(p1);
	release_job(&job);
	diag_release(&d);
	free(key);
}

static void test_provision_unsupported(void **state)
{
	(void)state;
	struct prov_job job;
	struct prov_host hosts[2];
	struct prov_configure confs[3];
	struct prov_item items[6];
	struct prov_step steps[3];
	struct rec r;
	memset(&r, 0, sizeof(r));
	pthread_mutex_init(&r.lock, NULL);
	int saved_port = port;
	port = 1; /* nothing listens: the check must fail before connecting */
	fill_job(&job, hosts, "/nonexistent", confs, items, steps, &r);
	confs[2].recipe = "- tasks:\n  - name: x\n    debconf: name=tzdata\n";
	char *path = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", "/nonexistent", 1); /* no ansible-playbook to fall back to */
	struct diag d = DIAG_INIT;
	int rc = provision_run(&job, &d);
	setenv("PATH", path, 1);
	free(path);
	assert_int_equal(rc, -1);
	assert_int_equal(r.ndone, 0);
	assert_int_equal(r.nkeys, 0);
	assert_non_null(strstr(diag_first_message(&d), "unsupported module 'debconf'"));
	assert_int_equal(d.items[0].line, 31);
	diag_release(&d);
	release_job(&job);
	port = saved_port;
}

static void test_provision_fallback(void **state)
{
	(void)state;
	assert_int_not_equal(port, 0);
	assert_int_equal(system("command -v ansible-playbook >/dev/null 2>&1"), 0);
	struct prov_job job;
	struct prov_host hosts[2];
	struct prov_configure confs[3];
	struct prov_item items[6];
	struct prov_step steps[3];
	struct rec r;
	memset(&r, 0, sizeof(r));
	pthread_mutex_init(&r.lock, NULL);
	char *key = xasprintf("%s/userkey", tmpdir);
	fill_job(&job, hosts, key, confs, items, steps, &r);
	/* 'ping' is not in imc's subset: the configure runs under ansible-playbook */
	confs[0].recipe = "- tasks:\n  - name: pong\n    ping:\n";
	job.nsteps = 1;
	struct diag d = DIAG_INIT;
	int rc = provision_run(&job, &d);
	assert_int_equal(rc, 0);
	assert_int_equal(r.ndone, 2);
	assert_true(r.done[0].ok && r.done[1].ok);
	assert_true(r.logs[1] > 0);
	release_job(&job);
	diag_release(&d);
	free(key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_shlex),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_yaml),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_fallback_resolve),
		cmocka_unit_test(test_static_check),
		cmocka_unit_test(test_provision_unsupported),
		cmocka_unit_test(test_provision),
		cmocka_unit_test(test_provision_fallback),
	};
	return cmocka_run_group_tests(tests, sshd_setup, sshd_teardown);
}
