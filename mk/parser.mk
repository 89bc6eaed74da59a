# parser: the RADL language (lexer, parser, AST, semantic checks, RADL-JSON,
# RADL text output), its tests, fuzz harness and benchmark.
libimc_la_SOURCES += \
	src/parser/radl.h src/parser/radl-int.h \
	src/parser/lex.c src/parser/parse.c src/parser/ast.c src/parser/merge.c \
	src/parser/features.c src/parser/check.c src/parser/json.c \
	src/parser/print.c src/parser/load.c
