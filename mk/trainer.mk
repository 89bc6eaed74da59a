# src/trainer: imc-train, the bundled data-parallel trainer (issue 7: the
# single-process core; the distributed part is in mk/trainer-dist.mk, which
# appends to imc_train_SOURCES).
libimc_la_SOURCES += \
	src/trainer/rng.c src/trainer/rng.h \
	src/trainer/tpool.c src/trainer/tpool.h \
	src/trainer/optim.c src/trainer/optim.h \
	src/trainer/layer.h \
	src/trainer/layer-conv.c src/trainer/layer-dense.c src/trainer/layer-relu.c \
	src/trainer/layer-maxpool.c src/trainer/layer-flatten.c \
	src/trainer/model-spec.c src/trainer/model-spec.h \
	src/trainer/model.c src/trainer/model.h \
	src/trainer/data.c src/trainer/data.h \
	src/trainer/checkpoint.c src/trainer/checkpoint.h \
	src/trainer/tbevent.c src/trainer/metrics.c src/trainer/metrics.h \
	src/trainer/local.c src/trainer/local.h

bin_PROGRAMS += imc-train
imc_train_SOURCES = src/trainer/main.c
imc_train_LDADD = libimc.la $(IMC_LIBS)
