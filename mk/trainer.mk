# src/trainer: imc-train, the bundled data-parallel trainer (issue 7: the
# single-process core; the distributed part is in mk/trainer-dist.mk, which
# appends to imc_train_SOURCES).
# The numeric kernels are built with loop vectorisation on (explicit -f
# flags survive the -O2 of the default CFLAGS) in a convenience library
# that libimc.la absorbs.
noinst_LTLIBRARIES += libimctrainer.la
libimctrainer_la_CFLAGS = $(AM_CFLAGS) $(TRAINER_VECT)
libimctrainer_la_SOURCES = \
	src/trainer/tpool.c src/trainer/tpool.h \
	src/trainer/optim.c src/trainer/optim.h \
	src/trainer/gemm.c src/trainer/gemm.h \
	src/trainer/conv-direct.c src/trainer/conv-direct.h \
	src/trainer/conv-winograd.c src/trainer/conv-winograd.h \
	src/trainer/layer.c src/trainer/layer.h \
	src/trainer/layer-conv.c src/trainer/layer-dense.c src/trainer/layer-relu.c \
	src/trainer/layer-maxpool.c src/trainer/layer-flatten.c \
	src/trainer/model.c src/trainer/model.h
libimc_la_LIBADD += libimctrainer.la
libimc_la_SOURCES += \
	src/trainer/rng.c src/trainer/rng.h \
	src/trainer/model-spec.c src/trainer/model-spec.h \
	src/trainer/data.c src/trainer/data.h \
	src/trainer/checkpoint.c src/trainer/checkpoint.h \
	src/trainer/tensorboard.c src/trainer/metrics.c src/trainer/metrics.h \
	src/trainer/summary.c src/trainer/summary.h \
	src/trainer/train-opts.c src/trainer/train-opts.h \
	src/trainer/train-local.c src/trainer/train-local.h

bin_PROGRAMS += imc-train
imc_train_SOURCES = src/trainer/main.c
imc_train_LDADD = libimc.la $(IMC_LIBS)

UNIT_TESTS += tests/unit/test-trainer-grad
UNIT_TESTS += tests/unit/test-trainer-winograd
UNIT_TESTS += tests/unit/test-trainer-data
UNIT_TESTS += tests/unit/test-trainer-io

# Shell tests and the PyTorch cross-check helper.
check_PROGRAMS += tests/trainer/torch-step
tests_trainer_torch_step_SOURCES = tests/trainer/torch-step.c
tests_trainer_torch_step_LDADD = libimc.la $(IMC_LIBS)
TESTS += tests/cli/t5001-trainer-cli.sh tests/cli/t5002-trainer-resume.sh \
	tests/cli/t5003-trainer-torch.sh
EXTRA_DIST += bench/trainer.py tests/cli/t5001-trainer-cli.sh tests/cli/t5002-trainer-resume.sh \
	tests/cli/t5003-trainer-torch.sh tests/trainer/torch_reference_dump.py
dist_man_MANS += docs/imc-train.1
