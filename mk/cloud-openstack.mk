# src/cloud/openstack*: the openstack backend (docs/openstack.md).
libimc_la_SOURCES += src/cloud/openstack.c src/cloud/openstack.h \
	src/cloud/openstack-http.c src/cloud/openstack-auth.c src/cloud/openstack-call.c \
	src/cloud/openstack-flavor.c src/cloud/openstack-sg.c \
	src/cloud/openstack-server.c src/cloud/openstack-sweep.c

UNIT_TESTS += tests/unit/test-openstack

OPENSTACK_CLI_TESTS = tests/cli/t7101-openstack-lifecycle.sh tests/cli/t7102-openstack-retry.sh \
	tests/cli/t7103-openstack-no-duplicate.sh tests/cli/t7104-openstack-error-server.sh \
	tests/cli/t7105-openstack-lost.sh
TESTS += $(OPENSTACK_CLI_TESTS)
EXTRA_DIST += $(OPENSTACK_CLI_TESTS) tests/openstack/lib-openstack.sh \
	tests/openstack/openstack-fake.py docs/openstack.md
