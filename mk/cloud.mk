# src/cloud: backend registry, auth file, and one file per backend.
libimc_la_SOURCES += \
	src/cloud/cloud.c src/cloud/cloud.h \
	src/cloud/auth.c src/cloud/auth-lookup.c src/cloud/auth.h \
	src/cloud/cloudinit.c src/cloud/cloudinit.h \
	src/cloud/cloud-http.c src/cloud/cloud-http.h \
	src/cloud/names.c src/cloud/names.h
# tests/helper/cloud-drive: any registered backend through its table (the
# t3* and t7* tests, bench/local_up, and t3006, which runs every backend)
check_PROGRAMS += tests/helper/cloud-drive
tests_helper_cloud_drive_SOURCES = tests/helper/cloud-drive.c
tests_helper_cloud_drive_LDADD = libimc.la $(IMC_LIBS)
TESTS += tests/cli/t3006-cloud-conformance.sh
EXTRA_DIST += tests/cli/t3006-cloud-conformance.sh
# the auth file reader: unit test and fuzzing
UNIT_TESTS += tests/unit/test-auth

# fuzzing the auth file reader
if ENABLE_FUZZING
check_PROGRAMS += tests/fuzz/fuzz-auth
tests_fuzz_fuzz_auth_SOURCES = tests/fuzz/fuzz-auth.c
tests_fuzz_fuzz_auth_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_auth_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_auth_LDADD = libimc.la $(IMC_LIBS)
endif
TESTS += tests/cli/t2007-auth-fuzz.sh
EXTRA_DIST += tests/cli/t2007-auth-fuzz.sh

# each backend has its own fragment
include mk/cloud-dummy.mk
include mk/cloud-local.mk
include mk/cloud-ec2.mk
include mk/cloud-openstack.mk
include mk/cloud-docker.mk
