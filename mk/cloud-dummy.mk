# src/cloud/dummy*: the dummy backend; also src/cloud/auth.c (the auth file
# reader), kept in this fragment because the same engineer owns both.
libimc_la_SOURCES += src/cloud/dummy.c src/cloud/auth.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test-auth
TESTS += tests/unit/test-auth
tests_unit_test_auth_SOURCES = tests/unit/test-auth.c
tests_unit_test_auth_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_auth_LDADD = $(UNIT_LIBS)
endif
