# src/template: the Jinja2-style engine of the built-in Ansible executor
# (template.h is its contract with the executor; engine.h, functions.h and
# datetime.h are internal). Lexer template-lex.c, parser expr-parse.c,
# evaluator expr-eval.c and template.c (statements, public entry), values
# expr-value.c value-*.c, runtime.c, registry.c, and the functions it
# lists: filters-*.c, tests.c, lookup.c, globals.c.
libimc_la_SOURCES += src/template/template.h src/template/engine.h src/template/functions.h \
	src/template/runtime.c src/template/registry.c src/template/globals.c \
	src/template/template-lex.c src/template/template-header.c src/template/expr-parse.c src/template/template-parse.c \
	src/template/parse.h \
	src/template/expr-value.c src/template/expr-eval.c src/template/methods.c \
	src/template/template.c src/template/render.c src/template/value-format.c \
	src/template/filters-logic.c src/template/filters-string.c src/template/filters-math.c \
	src/template/filters-list.c src/template/filters-sort.c src/template/filters-select.c \
	src/template/filters-dict.c \
	src/template/filters-data.c src/template/filters-regex.c \
	src/template/filters-jmespath.c src/template/filters-format.c \
	src/template/filters-path.c src/template/filters-datetime.c src/template/value-datetime.c \
	src/template/value-float.c \
	src/template/datetime.h src/template/regex.c \
	src/template/filters-seq.c src/template/filters-markup.c \
	src/template/filters-wrap.c src/template/filters-pprint.c \
	src/template/tests.c src/template/lookup.c src/template/lookup-csvfile.c \
	src/template/lookup-ini.c src/template/lookup-unvault.c src/template/lookup-inventory.c \
	src/template/lookup-config.c

EXTRA_DIST += tests/unit/test-template-cases.json tests/unit/test-template-cases.py \
	tests/unit/test-template-oracle.py

UNIT_TESTS += tests/unit/test-template tests/unit/test-template-syntax

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
# what the templating targets of ansible-core ask (template encodings,
# lookups, lazy templating of task arguments)
TESTS += tests/cli/t4140-filters-targets.sh
EXTRA_DIST += tests/cli/t4140-filters-targets.sh
# hostvars, the controller's Python, unique (more of those targets)
TESTS += tests/cli/t4170-targets-vars.sh
EXTRA_DIST += tests/cli/t4170-targets-vars.sh
TESTS += tests/cli/t4171-targets-lookups.sh
EXTRA_DIST += tests/cli/t4171-targets-lookups.sh
