# src/cloud/dummy*: the dummy backend.
libimc_la_SOURCES += src/cloud/dummy.c
