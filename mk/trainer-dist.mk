# src/trainer dist part: parameter server, workers, wire protocol (issue 8).
# The protocol, cluster, PS and PS-client code do not depend on the model
# code, so they live in libimc.la (the unit tests and bench/ps_exchange link
# them); the training loop of the roles is part of imc-train.
libimc_la_SOURCES += \
	src/trainer/wire.c src/trainer/wire.h \
	src/trainer/cluster.c src/trainer/cluster.h \
	src/trainer/ps-server.c src/trainer/ps-server.h \
	src/trainer/ps-client.c src/trainer/ps-client.h \
	src/trainer/ring.c src/trainer/ring.h src/trainer/vecf.h \
	src/trainer/wire-auth.c src/trainer/wire-auth.h
imc_train_SOURCES += src/trainer/dist.h src/trainer/dist-internal.h \
	src/trainer/dist-main.c src/trainer/dist-ps.c src/trainer/dist-train.c \
	src/trainer/dist-allreduce.c
EXTRA_DIST += docs/imc-train-protocol.md

DIST_CLI_TESTS = tests/cli/t6001-dist-sync.sh tests/cli/t6002-dist-async.sh \
	tests/cli/t6003-dist-hostile.sh tests/cli/t6004-dist-worker-loss.sh \
	tests/cli/t6005-dist-resume.sh tests/cli/t6006-dist-2ps.sh \
	tests/cli/t6010-allreduce-equiv.sh tests/cli/t6011-allreduce-loss.sh \
	tests/cli/t6012-wire-auth.sh tests/cli/t6013-job-secret.sh tests/cli/t6014-allreduce-e2e.sh
TESTS += $(DIST_CLI_TESTS)
EXTRA_DIST += $(DIST_CLI_TESTS) tests/cli/t6-dist-lib.sh tests/cli/t6-attack.py \
	tests/cli/t6-ckpt-diff.py \
	bench/ps_exchange-equivalence.sh bench/allreduce-vs-ps.sh

UNIT_TESTS += tests/unit/test-wire
UNIT_TESTS += tests/unit/test-cluster
UNIT_TESTS += tests/unit/test-wire-ps
UNIT_TESTS += tests/unit/test-wire-auth
UNIT_TESTS += tests/unit/test-ring

if ENABLE_FUZZING
check_PROGRAMS += tests/fuzz/fuzz-wire tests/fuzz/fuzz-trainer-config
tests_fuzz_fuzz_wire_SOURCES = tests/fuzz/fuzz-wire.c tests/fuzz/fuzz-diag.h
tests_fuzz_fuzz_wire_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_wire_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_wire_LDADD = libimc.la $(IMC_LIBS)
tests_fuzz_fuzz_trainer_config_SOURCES = tests/fuzz/fuzz-trainer-config.c tests/fuzz/fuzz-diag.h
tests_fuzz_fuzz_trainer_config_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_trainer_config_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
tests_fuzz_fuzz_trainer_config_LDADD = libimc.la $(IMC_LIBS)
endif
TESTS += tests/cli/t6007-trainer-fuzz.sh
EXTRA_DIST += tests/cli/t6007-trainer-fuzz.sh

# bench/ps_exchange: PS push+pull throughput vs raw loopback TCP (reports only).
noinst_PROGRAMS += bench/ps_exchange
bench_ps_exchange_SOURCES = bench/ps_exchange.c
bench_ps_exchange_LDADD = libimc.la $(IMC_LIBS)

# bench/ring_allreduce: ring all-reduce bus bandwidth vs a raw TCP ring (reports only).
noinst_PROGRAMS += bench/ring_allreduce
bench_ring_allreduce_SOURCES = bench/ring_allreduce.c
bench_ring_allreduce_LDADD = libimc.la $(IMC_LIBS)

# bench/wire_mac: CPU per MiB of the frame-tag candidates (reports only).
noinst_PROGRAMS += bench/wire_mac
bench_wire_mac_SOURCES = bench/wire_mac.c
bench_wire_mac_LDADD = libimc.la $(IMC_LIBS)
