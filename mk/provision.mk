# src/provision: SSH sessions, the task executor, templating, modules.
libimc_la_SOURCES += src/provision/provision.h src/provision/provision.c
