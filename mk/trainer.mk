# src/trainer: imc-train, the bundled data-parallel trainer.
bin_PROGRAMS += imc-train
imc_train_SOURCES = src/trainer/main.c
imc_train_LDADD = libimc.la $(IMC_LIBS)
