# src/trainer dist part: parameter server, workers, wire protocol (issue 8).
imc_train_SOURCES += src/trainer/dist.h src/trainer/dist-main.c
