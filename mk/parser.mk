# parser: the RADL language (lexer, parser, AST, semantic checks, RADL-JSON,
# RADL text output), its tests, fuzz harness and benchmark.
libimc_la_SOURCES += \
	src/parser/radl.h src/parser/radl-int.h \
	src/parser/lex.c src/parser/parse.c src/parser/ast.c src/parser/merge.c \
	src/parser/features.c src/parser/check.c src/parser/json.c \
	src/parser/print.c src/parser/load.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test-radl
TESTS += tests/unit/test-radl
tests_unit_test_radl_SOURCES = tests/unit/test-radl.c
tests_unit_test_radl_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_radl_LDADD = $(UNIT_LIBS)
endif
