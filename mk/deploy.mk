# src/deploy: the deployment engine (networks and VMs through the clouds,
# the detached worker that contextualizes them, recovery, teardown, cloud
# sessions, reports), in libimc.la so unit tests reach it without the CLI.
libimc_la_SOURCES += \
	src/deploy/deploy.h \
	src/deploy/auth.c \
	src/deploy/ids.c \
	src/deploy/radl.c \
	src/deploy/sessions.c \
	src/deploy/vms.c \
	src/deploy/recover.c \
	src/deploy/refresh.c \
	src/deploy/progress.c \
	src/deploy/report.c \
	src/deploy/teardown.c \
	src/deploy/vmops.c \
	src/deploy/recipes.c src/deploy/recipes.h \
	src/deploy/roles.c \
	src/deploy/spawn.c src/deploy/spawn.h \
	src/deploy/worker.c src/deploy/worker.h \
	src/deploy/pause.c \
	src/deploy/create.c \
	src/deploy/lock.c \
	src/deploy/submit.c \
	src/deploy/destroy.c \
	src/deploy/stats.c \
	src/deploy/add.c \
	src/deploy/remove.c \
	src/deploy/alter.c \
	src/deploy/reconfigure.c \
	src/deploy/contextualize.c \
	src/deploy/export.c \
	src/deploy/import.c

# the engine without the command line: recovery, sessions, teardown, VM
# operations on the dummy cloud in a temporary IMC_HOME
UNIT_TESTS += tests/unit/test-deploy
