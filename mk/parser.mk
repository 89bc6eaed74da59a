# parser: the RADL language (lexer, parser, AST, semantic checks, RADL-JSON,
# RADL text output), its tests, fuzz harness and benchmark.
libimc_la_SOURCES += \
	src/parser/radl.h src/parser/radl-int.h \
	src/parser/lex.c src/parser/parse.c src/parser/ast.c src/parser/merge.c \
	src/parser/features.c src/parser/units.c src/parser/check.c src/parser/json.c \
	src/parser/print.c src/parser/load.c

UNIT_TESTS += tests/unit/test-radl

# imc's own RADL cases (tests/radl), commands, conformance corpus, fuzzing
TESTS += tests/cli/t1001-radl-conformance.sh tests/cli/t1002-radl-commands.sh \
	tests/cli/t1003-radl-cases.sh tests/cli/t1004-radl-fuzz.sh
EXTRA_DIST += tests/cli/t1001-radl-conformance.sh tests/cli/t1002-radl-commands.sh \
	tests/cli/t1003-radl-cases.sh tests/cli/t1004-radl-fuzz.sh \
	$(RADL_CASES) tests/fuzz/fuzz-radl.c scripts/radl-differential
RADL_CASES = \
	tests/radl/ansible_no_password.err tests/radl/ansible_no_password.radl \
	tests/radl/check_many.err tests/radl/check_many.radl \
	tests/radl/deep_nesting.err tests/radl/deep_nesting.radl \
	tests/radl/description_twice.err tests/radl/description_twice.radl \
	tests/radl/extra_close_paren.err tests/radl/extra_close_paren.radl \
	tests/radl/fuzz_nul_in_recipe.err tests/radl/fuzz_nul_in_recipe.radl \
	tests/radl/fuzz_utf8_in_recipe.err tests/radl/fuzz_utf8_in_recipe.radl \
	tests/radl/json_input_normalised.json tests/radl/json_input_normalised.radl \
	tests/radl/lone_cr_outports.json tests/radl/lone_cr_outports.radl \
	tests/radl/multi_errors.err tests/radl/multi_errors.radl \
	tests/radl/recipe_unclosed.err tests/radl/recipe_unclosed.radl \
	tests/radl/several_errors.err tests/radl/several_errors.radl \
	tests/radl/units_nested.json tests/radl/units_nested.radl \
	tests/radl/unterminated_string.err tests/radl/unterminated_string.radl \
	tests/radl/yaml_error.err tests/radl/yaml_error.radl \
	tests/radl/soft_in_contains_conflict.err tests/radl/soft_in_contains_conflict.radl \
	tests/radl/closed_block_then_syntax_error.err tests/radl/closed_block_then_syntax_error.radl \
	tests/radl/contains_block_conflict_in_group.err tests/radl/contains_block_conflict_in_group.radl \
	tests/radl/nested_block_closed_before_syntax_error.err \
	tests/radl/nested_block_closed_before_syntax_error.radl \
	tests/radl/json_configure_no_recipes.err tests/radl/json_configure_no_recipes.radl \
	tests/radl/json_reference_not_bool.err tests/radl/json_reference_not_bool.radl \
	tests/radl/json_softs_not_list.err tests/radl/json_softs_not_list.radl

if ENABLE_FUZZING
check_PROGRAMS += tests/fuzz/fuzz-radl
tests_fuzz_fuzz_radl_SOURCES = tests/fuzz/fuzz-radl.c tests/fuzz/fuzz-diag.h
tests_fuzz_fuzz_radl_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_radl_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_radl_LDADD = libimc.la $(IMC_LIBS)
endif

# bench: bench/radl_parse [SYSTEMS [ROUNDS]] prints parse+check throughput
noinst_PROGRAMS += bench/radl_parse
bench_radl_parse_SOURCES = bench/radl_parse.c
bench_radl_parse_LDADD = libimc.la $(IMC_LIBS)

dist_man_MANS += docs/radl.5
