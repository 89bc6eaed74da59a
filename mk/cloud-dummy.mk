# src/cloud/dummy*: the dummy backend; also src/cloud/auth.c (the auth file
# reader), kept in this fragment because the same engineer owns both.
libimc_la_SOURCES += src/cloud/dummy.c src/cloud/auth.c src/cloud/auth-lookup.c

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
