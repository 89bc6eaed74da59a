# src/provision: SSH sessions, the task executor; src/provision/modules: one
# file per module (NAME.c) and the module-*.c helpers they share (templating
# is in template.mk).
libimc_la_SOURCES += \
	src/provision/provision.h \
	src/provision/provision.c \
	src/provision/recipe-load.c \
	src/provision/play.h \
	src/provision/args.h \
	src/provision/run.h \
	src/provision/vars.h \
	src/provision/exec.h \
	src/provision/exec-tags.h \
	src/provision/output.h \
	src/provision/module.h \
	src/provision/play-yaml.c \
	src/provision/play-load.c \
	src/provision/exec-args.c \
	src/provision/exec-vars.c \
	src/provision/exec-tmpl.c \
	src/provision/run.c \
	src/provision/inventory.h \
	src/provision/inventory.c \
	src/provision/inventory-model.c \
	src/provision/inventory-file.c \
	src/provision/inventory-ini.c \
	src/provision/exec-task.c \
	src/provision/exec-play.c \
	src/provision/exec-free.c \
	src/provision/exec-tags.c \
	src/provision/exec-list.c \
	src/provision/exec-async.c \
	src/provision/exec-progress.c \
	src/provision/exec-fallback.c \
	src/provision/error-context.c \
	src/provision/conn/conn.h \
	src/provision/conn/conn.c \
	src/provision/conn/conn-memo.c \
	src/provision/conn/conn-local.c \
	src/provision/conn/conn-ssh.c \
	src/provision/conn/conn-pshell.c src/provision/conn/conn-pshell.h \
	src/provision/output.c src/provision/custom-stats.c src/provision/custom-stats.h \
	src/provision/modules/module-table.c \
	src/provision/modules/module-util.c \
	src/provision/modules/module-paths.c \
	src/provision/modules/module-lines.c \
	src/provision/modules/module-lines.h \
	src/provision/modules/module-pkg.c \
	src/provision/modules/module-shared.h
# the modules, one per file (listed in modules/module-table.c)
libimc_la_SOURCES += \
	src/provision/modules/add_host.c \
	src/provision/modules/apt.c \
	src/provision/modules/apt_key.c \
	src/provision/modules/apt_repository.c \
	src/provision/modules/assemble.c \
	src/provision/modules/assert.c \
	src/provision/modules/async_status.c \
	src/provision/modules/authorized_key.c \
	src/provision/modules/blockinfile.c \
	src/provision/modules/command.c \
	src/provision/modules/copy.c \
	src/provision/modules/cron.c \
	src/provision/modules/debug.c \
	src/provision/modules/dnf.c \
	src/provision/modules/fail.c \
	src/provision/modules/fetch.c \
	src/provision/modules/find.c \
	src/provision/modules/file.c \
	src/provision/modules/get_url.c \
	src/provision/modules/git.c \
	src/provision/modules/group.c \
	src/provision/modules/group_by.c \
	src/provision/modules/hostname.c \
	src/provision/modules/include_vars.c \
	src/provision/modules/iptables.c \
	src/provision/modules/ini_file.c \
	src/provision/modules/lineinfile.c \
	src/provision/modules/modprobe.c \
	src/provision/modules/mount.c \
	src/provision/modules/package.c \
	src/provision/modules/pause.c \
	src/provision/modules/ping.c \
	src/provision/modules/pip.c \
	src/provision/modules/raw.c \
	src/provision/modules/reboot.c \
	src/provision/modules/replace.c \
	src/provision/modules/script.c \
	src/provision/modules/service.c \
	src/provision/modules/service_facts.c \
	src/provision/modules/set_fact.c \
	src/provision/modules/set_stats.c \
	src/provision/modules/setup.c \
	src/provision/modules/shell.c \
	src/provision/modules/slurp.c \
	src/provision/modules/stat.c \
	src/provision/modules/sysctl.c \
	src/provision/modules/systemd.c \
	src/provision/modules/tempfile.c \
	src/provision/modules/template.c \
	src/provision/modules/timezone.c \
	src/provision/modules/unarchive.c \
	src/provision/modules/uri.c \
	src/provision/modules/user.c \
	src/provision/modules/wait_for.c \
	src/provision/modules/yum.c

TESTS += tests/cli/t4001-play-local.sh tests/cli/t4002-differential.sh tests/cli/t4003-play-ssh.sh \
	tests/cli/t4004-play-target.sh
EXTRA_DIST += tests/differential tests/cli/t4-lib-sshd.sh bench/provision.sh bench/playbook \
	tests/cli/t4001-play-local.sh tests/cli/t4002-differential.sh tests/cli/t4003-play-ssh.sh \
	tests/cli/t4004-play-target.sh

UNIT_TESTS += tests/unit/test-exec

TESTS += tests/cli/t4005-registered-unsafe.sh
EXTRA_DIST += tests/cli/t4005-registered-unsafe.sh
TESTS += tests/cli/t4006-differential-ssh.sh
EXTRA_DIST += tests/cli/t4006-differential-ssh.sh

# fuzzing the recipe loader
if ENABLE_FUZZING
check_PROGRAMS += tests/fuzz/fuzz-playbook
tests_fuzz_fuzz_playbook_SOURCES = tests/fuzz/fuzz-playbook.c tests/fuzz/fuzz-diag.h
tests_fuzz_fuzz_playbook_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_playbook_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_playbook_LDADD = libimc.la $(IMC_LIBS)
endif
TESTS += tests/cli/t4008-playbook-fuzz.sh
# cases from ansible-core's integration targets (scripts/ansible-targets)
TESTS += tests/cli/t4040-targets.sh tests/cli/t4041-targets-more.sh tests/cli/t4042-targets-3.sh tests/cli/t4043-tags.sh \
	tests/cli/t4044-list-options.sh tests/cli/t4045-keyword-targets.sh tests/cli/t4090-targets-mod.sh \
	tests/cli/t4100-exec-targets.sh tests/cli/t4101-unenforced-keywords.sh tests/cli/t4120-targets-mod2.sh
EXTRA_DIST += tests/cli/t4040-targets.sh tests/cli/t4041-targets-more.sh tests/cli/t4042-targets-3.sh tests/cli/t4043-tags.sh \
	tests/cli/t4044-list-options.sh tests/cli/t4045-keyword-targets.sh tests/cli/t4090-targets-mod.sh tests/cli/t4100-exec-targets.sh \
	tests/cli/t4101-unenforced-keywords.sh tests/cli/t4120-targets-mod2.sh \
	scripts/ansible-targets scripts/ansible-targets-shim \
	scripts/ansible-targets-report
EXTRA_DIST += tests/cli/t4008-playbook-fuzz.sh

# ini_file against Ansible's (live, or recorded results)
TESTS += tests/cli/t4009-ini-file.sh
EXTRA_DIST += tests/cli/t4009-ini-file.sh tests/cli/t4009-ini-file.py \
	tests/cli/t4009-ini-file.golden.json

# file-editing modules and loop/rescue keywords, asserted under both
TESTS += tests/cli/t4011-module-semantics.sh
EXTRA_DIST += tests/cli/t4011-module-semantics.sh
# the file module's states against Ansible's (live, or recorded results)
TESTS += tests/cli/t4012-file-states.sh
EXTRA_DIST += tests/cli/t4012-file-states.sh tests/cli/t4012-file-states.py \
	tests/cli/t4012-file-states.golden.json
# a parameter a native module does not implement is refused at load time
TESTS += tests/cli/t4019-module-params.sh
EXTRA_DIST += tests/cli/t4019-module-params.sh
TESTS += tests/cli/t4020-fallback-local.sh
EXTRA_DIST += tests/cli/t4020-fallback-local.sh
TESTS += tests/cli/t4021-fallback-ssh.sh
EXTRA_DIST += tests/cli/t4021-fallback-ssh.sh
TESTS += tests/cli/t4022-fallback-radl.sh
EXTRA_DIST += tests/cli/t4022-fallback-radl.sh
# the SSH connection's persistent shell: exact output, fresh state per task
TESTS += tests/cli/t4050-persistent-shell.sh
EXTRA_DIST += tests/cli/t4050-persistent-shell.sh
# the stat memo: the file module's round trips, its results unchanged
TESTS += tests/cli/t4051-stat-memo.sh
EXTRA_DIST += tests/cli/t4051-stat-memo.sh
# the persistent shell's framings (perl loop, base64): exact output, a lost shell
TESTS += tests/cli/t4052-pshell-framing.sh
EXTRA_DIST += tests/cli/t4052-pshell-framing.sh
# checks in the round trip of what they guard: the round trips per task
TESTS += tests/cli/t4053-one-round-trip.sh
EXTRA_DIST += tests/cli/t4053-one-round-trip.sh
# a change decided by a module's first stat in that stat's round trip
TESTS += tests/cli/t4054-change-in-probe.sh
EXTRA_DIST += tests/cli/t4054-change-in-probe.sh
# the node processes of a module's script; lineinfile's guessed edit
TESTS += tests/cli/t4055-node-processes.sh
EXTRA_DIST += tests/cli/t4055-node-processes.sh
TESTS += tests/cli/t4070-sysctl.sh tests/cli/t4071-modprobe.sh tests/cli/t4072-timezone.sh \
	tests/cli/t4073-apt-key.sh tests/cli/t4074-apt-repository.sh
EXTRA_DIST += tests/cli/t407-lib-recorded.sh tests/cli/t4070-sysctl.sh tests/cli/t4070-sysctl.yml tests/cli/t4070-sysctl.expect \
	tests/cli/t4071-modprobe.sh tests/cli/t4071-modprobe.yml tests/cli/t4071-modprobe.expect \
	tests/cli/t4072-timezone.sh tests/cli/t4072-timezone.yml tests/cli/t4072-timezone.expect \
	tests/cli/t4073-apt-key.sh tests/cli/t4073-apt-key.yml tests/cli/t4073-apt-key.expect \
	tests/cli/t4073-apt-key.k1.asc tests/cli/t4073-apt-key.k2.asc \
	tests/cli/t4074-apt-repository.sh tests/cli/t4074-apt-repository-1.yml \
	tests/cli/t4074-apt-repository-2.yml tests/cli/t4074-apt-repository.expect
# imc play --check/--diff, native check mode: nothing changes, Ansible's results and diffs
TESTS += tests/cli/t4060-check-mode.sh
EXTRA_DIST += tests/cli/t4060-check-mode.sh
TESTS += tests/cli/t4061-check-mode-file.sh
EXTRA_DIST += tests/cli/t4061-check-mode-file.sh
# generated cases (tests/differential/gen), a fixed-seed sample, live against ansible-playbook
TESTS += tests/cli/t4030-differential-gen.sh
EXTRA_DIST += tests/cli/t4030-differential-gen.sh

# native uri, iptables, service_facts, reboot (issue 17), against ansible-playbook's recorded results
TESTS += tests/cli/t4080-uri.sh tests/cli/t4081-service-facts.sh tests/cli/t4082-iptables.sh \
	tests/cli/t4083-reboot.sh
EXTRA_DIST += tests/cli/t4080-uri.sh tests/cli/t4080-uri-server.py tests/cli/t4081-service-facts.sh \
	tests/cli/t4082-iptables.sh tests/cli/t4083-reboot.sh

# the divergences it showed that imc fixed, against recorded Ansible results
TESTS += tests/cli/t4031-gen-fixes.sh
EXTRA_DIST += tests/cli/t4031-gen-fixes.sh tests/cli/t4031-gen-fixes.py \
	tests/cli/t4031-gen-fixes/play.yml tests/cli/t4031-gen-fixes/setup.sh \
	tests/cli/t4031-gen-fixes/golden.json tests/cli/t4031-gen-fixes/templates.yml \
	tests/cli/t4031-gen-fixes/golden-templates.json tests/cli/t4031-gen-fixes/templates/a.j2 \
	tests/cli/t4031-gen-fixes/templates/b.j2 tests/cli/t4031-gen-fixes/templates/c.j2 \
	tests/cli/t4031-gen-fixes/templates/d.j2 tests/cli/t4031-gen-fixes/templates/e.j2 \
	tests/cli/t4031-gen-fixes/templates/f.j2 tests/cli/t4031-gen-fixes/templates/g.j2 \
	tests/cli/t4031-gen-fixes/templates/h.j2 tests/cli/t4031-gen-fixes/more.yml \
	tests/cli/t4031-gen-fixes/more-setup.sh tests/cli/t4031-gen-fixes/golden-more.json \
	tests/cli/t4031-gen-fixes/asm-ini.yml tests/cli/t4031-gen-fixes/asm-ini-setup.sh \
	tests/cli/t4031-gen-fixes/golden-asm-ini.json tests/cli/t4031-gen-fixes/copy-tmpl.yml \
	tests/cli/t4031-gen-fixes/copy-tmpl-setup.sh tests/cli/t4031-gen-fixes/golden-copy-tmpl.json \
	tests/cli/t4031-gen-fixes/lineinfile-re.yml tests/cli/t4031-gen-fixes/lineinfile-re-setup.sh \
	tests/cli/t4031-gen-fixes/golden-lineinfile-re.json tests/cli/t4031-gen-fixes/diffgen5.yml \
	tests/cli/t4031-gen-fixes/diffgen5-setup.sh tests/cli/t4031-gen-fixes/golden-diffgen5.json \
	tests/cli/t4031-gen-fixes/diffgen6.yml tests/cli/t4031-gen-fixes/diffgen6-setup.sh \
	tests/cli/t4031-gen-fixes/golden-diffgen6.json tests/cli/t4031-gen-fixes/diffgen6b.yml \
	tests/cli/t4031-gen-fixes/diffgen6b-setup.sh tests/cli/t4031-gen-fixes/diffgen6b.sh \
	tests/cli/t4031-gen-fixes/golden-diffgen6b.json tests/cli/t4031-gen-fixes/diffgen7.yml \
	tests/cli/t4031-gen-fixes/diffgen7-setup.sh tests/cli/t4031-gen-fixes/golden-diffgen7.json \
	tests/cli/t4031-gen-fixes/diffgen8.yml tests/cli/t4031-gen-fixes/diffgen8-setup.sh \
	tests/cli/t4031-gen-fixes/golden-diffgen8.json tests/cli/t4031-gen-fixes/git.yml \
	tests/cli/t4031-gen-fixes/git-setup.sh tests/cli/t4031-gen-fixes/golden-git.json

# user, unarchive, get_url, git, apt and service as Ansible 2.14's, each
# checked against ansible-playbook (issue 17 item 2)
TESTS += tests/cli/t4121-user.sh tests/cli/t4122-unarchive.sh tests/cli/t4123-get-url.sh tests/cli/t4124-git-check.sh
EXTRA_DIST += tests/cli/t4121-user.sh tests/cli/t4122-unarchive.sh tests/cli/t4123-get-url.sh tests/cli/t4124-git-check.sh

# imc play -i FILE: Ansible's INI and YAML inventories, group_vars/ and
# host_vars/, hosts reached as their variables say
TESTS += tests/cli/t4130-inventory-ini.sh tests/cli/t4131-inventory-yaml-vars.sh tests/cli/t4132-inventory-ssh.sh
EXTRA_DIST += tests/cli/t4130-inventory-ini.sh tests/cli/t4131-inventory-yaml-vars.sh tests/cli/t4132-inventory-ssh.sh
TESTS += tests/cli/t4180-play-vault.sh tests/cli/t4181-play-conn-user.sh tests/cli/t4182-play-ansible-managed.sh tests/cli/t4183-lookup-config.sh tests/cli/t4184-lookup-inventory-hostnames.sh tests/cli/t4185-notify-inherited.sh tests/cli/t4186-lookup-errors-warn.sh tests/cli/t4187-setup-python-facts.sh tests/cli/t4188-set-stats-custom.sh tests/cli/t4189-failed-task.sh tests/cli/t4190-local-basedir.sh tests/cli/t4191-play-settings.sh tests/cli/t4192-vault-filters.sh tests/cli/t4193-include-role-loop.sh tests/cli/t4194-assert-shown.sh tests/cli/t4195-file-mkdir-errors.sh tests/cli/t4196-pause-prompt.sh tests/cli/t4198-when-errors.sh tests/cli/t4199-import-playbook.sh tests/cli/t4200-copy-force-link.sh tests/cli/t4201-handlers-import.sh tests/cli/t4202-file-recurse-follow.sh tests/cli/t4204-handler-notify.sh tests/cli/t4205-become-method.sh tests/cli/t4206-random-seed.sh tests/cli/t4207-pip-interpreter.sh tests/cli/t4208-inject-facts.sh tests/cli/t4197-free-strategy.sh tests/cli/t4203-gather-subset.sh tests/cli/t4209-path-expansion.sh tests/cli/t4210-run-time-errors.sh tests/cli/t4211-include-params.sh tests/cli/t4212-copy-action-args.sh
EXTRA_DIST += tests/cli/t4180-play-vault.sh tests/cli/t4181-play-conn-user.sh tests/cli/t4182-play-ansible-managed.sh tests/cli/t4183-lookup-config.sh tests/cli/t4184-lookup-inventory-hostnames.sh tests/cli/t4185-notify-inherited.sh tests/cli/t4186-lookup-errors-warn.sh tests/cli/t4187-setup-python-facts.sh tests/cli/t4188-set-stats-custom.sh tests/cli/t4189-failed-task.sh tests/cli/t4190-local-basedir.sh tests/cli/t4191-play-settings.sh tests/cli/t4192-vault-filters.sh tests/cli/t4193-include-role-loop.sh tests/cli/t4194-assert-shown.sh tests/cli/t4195-file-mkdir-errors.sh tests/cli/t4196-pause-prompt.sh tests/cli/t4198-when-errors.sh tests/cli/t4199-import-playbook.sh tests/cli/t4200-copy-force-link.sh tests/cli/t4201-handlers-import.sh tests/cli/t4202-file-recurse-follow.sh tests/cli/t4204-handler-notify.sh tests/cli/t4205-become-method.sh tests/cli/t4206-random-seed.sh tests/cli/t4207-pip-interpreter.sh tests/cli/t4208-inject-facts.sh tests/cli/t4197-free-strategy.sh tests/cli/t4197-free-strategy.expect tests/cli/t4203-gather-subset.sh tests/cli/t4209-path-expansion.sh tests/cli/t4210-run-time-errors.sh tests/cli/t4211-include-params.sh tests/cli/t4212-copy-action-args.sh
if ENABLE_FUZZING
check_PROGRAMS += tests/fuzz/fuzz-inventory
tests_fuzz_fuzz_inventory_SOURCES = tests/fuzz/fuzz-inventory.c tests/fuzz/fuzz-diag.h
tests_fuzz_fuzz_inventory_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_inventory_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_inventory_LDADD = libimc.la $(IMC_LIBS)
endif
TESTS += tests/cli/t4133-inventory-fuzz.sh
EXTRA_DIST += tests/cli/t4133-inventory-fuzz.sh

# the play keywords imc carries out, against recorded ansible-playbook logs
TESTS += tests/cli/t4102-play-keywords.sh
EXTRA_DIST += tests/cli/t4102-play-keywords.sh
TESTS += tests/cli/t4103-play-load-errors.sh
EXTRA_DIST += tests/cli/t4103-play-load-errors.sh
TESTS += tests/cli/t4104-engine-targets.sh
EXTRA_DIST += tests/cli/t4104-engine-targets.sh
