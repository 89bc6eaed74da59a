# mk/fuzz.mk: the test suite's own checks: what every build needs of the
# fuzz harnesses (their libFuzzer programs are in each subsystem's
# fragment), the valgrind wrapper's files (Makefile.am's LOG_COMPILER) and
# the last test, t9999-hygiene.
#
# Without --enable-fuzzing, each harness is linked with the plain replay
# driver tests/fuzz/replay.c as tests/fuzz/replay-NAME, which the
# t*-fuzz.sh tests run on the committed seeds and regression inputs;
# scripts/fuzz makes the long runs.
if !ENABLE_FUZZING
FUZZ_REPLAYS = tests/fuzz/replay-radl tests/fuzz/replay-auth tests/fuzz/replay-playbook \
	tests/fuzz/replay-template tests/fuzz/replay-expr tests/fuzz/replay-wire \
	tests/fuzz/replay-trainer-config tests/fuzz/replay-ec2-xml tests/fuzz/replay-inventory
check_PROGRAMS += $(FUZZ_REPLAYS)
tests_fuzz_replay_radl_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-radl.c tests/fuzz/fuzz-diag.h
tests_fuzz_replay_radl_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_auth_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-auth.c
tests_fuzz_replay_auth_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_playbook_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-playbook.c tests/fuzz/fuzz-diag.h
tests_fuzz_replay_playbook_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_template_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-template.c tests/fuzz/fuzz-lookups.h
tests_fuzz_replay_template_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_expr_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-expr.c tests/fuzz/fuzz-lookups.h
tests_fuzz_replay_expr_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_wire_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-wire.c tests/fuzz/fuzz-diag.h
tests_fuzz_replay_wire_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_trainer_config_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-trainer-config.c tests/fuzz/fuzz-diag.h
tests_fuzz_replay_trainer_config_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_ec2_xml_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-ec2-xml.c
tests_fuzz_replay_ec2_xml_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_replay_inventory_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz-inventory.c tests/fuzz/fuzz-diag.h
tests_fuzz_replay_inventory_LDADD = libimc.la $(IMC_LIBS)
endif
EXTRA_DIST += scripts/fuzz tests/fuzz/harnesses.sh tests/fuzz/replay.c \
	tests/unit/valgrind.sh tests/unit/valgrind.supp \
	tests/fuzz/corpus tests/fuzz/regress

# t9999-hygiene runs after every other test (its log depends on theirs)
# and compares what imc-named things exist then with what existed before
# the first test: tests/cli/hygiene-before.txt, remade by every make check
# (check_DATA is made before the tests run).
TESTS += tests/cli/t9999-hygiene.sh
EXTRA_DIST += tests/cli/t9999-hygiene.sh tests/cli/hygiene-list.sh
check_DATA = tests/cli/hygiene-before.txt
CLEANFILES += tests/cli/hygiene-before.txt
.PHONY: tests/cli/hygiene-before.txt
tests/cli/hygiene-before.txt:
	$(AM_V_GEN)$(MKDIR_P) tests/cli && $(SHELL) $(top_srcdir)/tests/cli/hygiene-list.sh >$@
tests/cli/t9999-hygiene.log: $(filter-out tests/cli/t9999-hygiene.log,$(TEST_LOGS))
