# src/cloud/ec2*: the ec2 backend (docs/ec2.md).
libimc_la_SOURCES += src/cloud/ec2.c src/cloud/ec2.h \
	src/cloud/ec2-http.c src/cloud/ec2-xml.c src/cloud/ec2-types.c \
	src/cloud/ec2-sg.c src/cloud/ec2-state.c src/cloud/ec2-sweep.c

UNIT_TESTS += tests/unit/test-ec2-sigv4

EXTRA_DIST += tests/vectors tests/ec2/ec2-endpoint.py

UNIT_TESTS += tests/unit/test-ec2

TESTS += tests/cli/t7001-ec2-lifecycle.sh tests/cli/t7002-ec2-retry.sh \
	tests/cli/t7003-ec2-errors.sh tests/cli/t7004-ec2-cli.sh \
	tests/cli/t7005-ec2-crash.sh tests/cli/t7007-ec2-sweep.sh \
	tests/cli/t7008-ec2-alter.sh
EXTRA_DIST += tests/ec2/lib-ec2.sh tests/cli/t7001-ec2-lifecycle.sh \
	tests/cli/t7002-ec2-retry.sh tests/cli/t7003-ec2-errors.sh \
	tests/cli/t7004-ec2-cli.sh tests/cli/t7005-ec2-crash.sh \
	tests/cli/t7007-ec2-sweep.sh tests/cli/t7008-ec2-alter.sh
EXTRA_DIST += docs/ec2.md

# fuzzing the reply readers
if ENABLE_FUZZING
check_PROGRAMS += tests/fuzz/fuzz-ec2-xml
tests_fuzz_fuzz_ec2_xml_SOURCES = tests/fuzz/fuzz-ec2-xml.c
tests_fuzz_fuzz_ec2_xml_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_ec2_xml_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_ec2_xml_LDADD = libimc.la $(IMC_LIBS)
endif
TESTS += tests/cli/t7006-ec2-xml-fuzz.sh
EXTRA_DIST += tests/cli/t7006-ec2-xml-fuzz.sh
