# src/cloud/local*: the local backend (network namespaces running OpenSSH),
# the ed25519 key generation it and the deployment worker use, and its tests.
libimc_la_SOURCES += src/cloud/local.c
libimc_la_SOURCES += src/util/sshkey.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test-sshkey
TESTS += tests/unit/test-sshkey
tests_unit_test_sshkey_SOURCES = tests/unit/test-sshkey.c
tests_unit_test_sshkey_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_sshkey_LDADD = $(UNIT_LIBS)
endif
