# src/cloud/local*: the local backend (network namespaces running OpenSSH; docs/local.md),
# the ed25519 key generation it and the deployment worker use, mkdir -p (util/mkdir.c,
# shared with tests/helper/cloud-drive), and its tests.
libimc_la_SOURCES += \
	src/cloud/local.c src/cloud/local.h \
	src/cloud/local-name.c \
	src/cloud/local-run.c \
	src/cloud/local-proc.c \
	src/cloud/local-net.c \
	src/cloud/local-vmfile.c \
	src/cloud/local-sshd.c \
	src/cloud/local-ready.c \
	src/cloud/local-cgroup.c
libimc_la_SOURCES += src/util/sshkey.c src/util/mkdir.c src/util/mkdir.h

UNIT_TESTS += tests/unit/test-sshkey
UNIT_TESTS += tests/unit/test-local

LOCAL_CLI_TESTS = tests/cli/t3001-local-cloud.sh tests/cli/t3002-local-crash.sh \
	tests/cli/t3003-local-rootless.sh tests/cli/t3004-local-imc-ssh.sh \
	tests/cli/t3005-local-lifecycle.sh
TESTS += $(LOCAL_CLI_TESTS)
EXTRA_DIST += $(LOCAL_CLI_TESTS) tests/local/lib-local.sh
# bench: top_builddir=. sh $(top_srcdir)/bench/local_up.sh [COUNT...]
EXTRA_DIST += bench/local_up.sh docs/local.md

# t3003 adds and removes a host user: useradd and userdel rename
# /etc/passwd, and Linux then detaches, in every other mount namespace, the
# /etc/passwd each running local VM has bound over the host's, so a VM's
# RADL login user vanishes under a concurrent test. t3003 runs alone,
# before every other test. NEEDSWORK: the local cloud itself should survive
# a host's /etc/passwd being replaced while VMs run.
T3003_FIRST = tests/cli/t3003-local-rootless.log
T3003_AFTER = $(if $(filter $(T3003_FIRST),$(TEST_LOGS)),$(filter-out $(T3003_FIRST) tests/cli/t9999-hygiene.log,$(TEST_LOGS)))
$(T3003_AFTER): $(if $(T3003_AFTER),$(T3003_FIRST))
