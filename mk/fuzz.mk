# mk/fuzz.mk: the test suite's own checks: what every build needs of the
# fuzz harnesses (their libFuzzer programs are in each subsystem's
# fragment) and the valgrind wrapper's files (Makefile.am's LOG_COMPILER).
#
# Without --enable-fuzzing, each harness is linked with the plain replay
# driver tests/fuzz/replay.c as tests/fuzz/replay-NAME, which the
# t*-fuzz.sh tests run on the committed seeds and regression inputs;
# scripts/fuzz makes the long runs.
if !ENABLE_FUZZING
FUZZ_REPLAYS = tests/fuzz/replay-radl tests/fuzz/replay-auth tests/fuzz/replay-playbook \
	tests/fuzz/replay-template tests/fuzz/replay-expr tests/fuzz/replay-wire \
	tests/fuzz/replay-trainer-config tests/fuzz/replay-ec2-xml
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
endif
EXTRA_DIST += scripts/fuzz tests/fuzz/harnesses.sh tests/fuzz/replay.c \
	tests/unit/valgrind.sh tests/unit/valgrind.supp \
	tests/fuzz/corpus tests/fuzz/regress

