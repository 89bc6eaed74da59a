# src/cloud/dummy.c: the dummy backend (records calls, fails on request).
libimc_la_SOURCES += src/cloud/dummy.c
