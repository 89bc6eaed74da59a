# src/provision templating: template*, expr*, filters*, lookup* (Jinja2 subset).
# The Jinja2-style engine of the built-in Ansible executor (template.h is
# its contract with the executor; expr.h is internal).
libimc_la_SOURCES += src/provision/template.h src/provision/expr.h \
	src/provision/template-lex.c src/provision/expr-parse.c \
	src/provision/expr-value.c src/provision/expr-eval.c \
	src/provision/template.c src/provision/filters.c \
	src/provision/filters-data.c src/provision/filters-regex.c \
	src/provision/filters-jmespath.c src/provision/filters-format.c \
	src/provision/filters-path.c src/provision/filters-datetime.c \
	src/provision/filters-seq.c src/provision/filters-markup.c \
	src/provision/filters-wrap.c src/provision/filters-pprint.c \
	src/provision/expr-tests.c src/provision/lookup.c

EXTRA_DIST += tests/unit/test-template-cases.json tests/unit/test-template-cases.py \
	tests/unit/test-template-oracle.py

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test-template
TESTS += tests/unit/test-template
tests_unit_test_template_SOURCES = tests/unit/test-template.c
tests_unit_test_template_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_template_LDADD = $(UNIT_LIBS)
endif

if ENABLE_FUZZING
check_PROGRAMS += tests/fuzz/fuzz-template tests/fuzz/fuzz-expr
tests_fuzz_fuzz_template_SOURCES = tests/fuzz/fuzz-template.c tests/fuzz/fuzz-lookups.h
tests_fuzz_fuzz_template_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_template_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_template_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_fuzz_expr_SOURCES = tests/fuzz/fuzz-expr.c tests/fuzz/fuzz-lookups.h
tests_fuzz_fuzz_expr_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_expr_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_expr_LDADD = libimc.la $(IMC_LIBS)
endif
TESTS += tests/cli/t4007-template-fuzz.sh
EXTRA_DIST += tests/cli/t4007-template-fuzz.sh
