# src/cloud/local*: the local backend.
libimc_la_SOURCES += src/cloud/local.c
