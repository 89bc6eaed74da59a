# src/server: `imc serve`, IM's REST API over libmicrohttpd on the same
# deployment engine as the commands (src/deploy). It is part of the imc
# program, not libimc.la: nothing else serves.
imc_SOURCES += src/cmd/cmd-serve.c src/cmd/cmd-deploy-worker.c \
	src/server/server.h \
	src/server/http.c \
	src/server/route.c \
	src/server/request.c \
	src/server/auth.c \
	src/server/authfile.c \
	src/server/background.c \
	src/server/reply.c \
	src/server/infra.c \
	src/server/data.c \
	src/server/clouds.c \
	src/server/vms.c \
	src/server/ops.c \
	src/server/resources.c \
	src/server/stats.c \
	src/server/owners.c

# every endpoint over loopback, with curl and with Python requests
TESTS += tests/cli/t8001-serve.sh tests/cli/t8002-serve-concurrent.sh tests/cli/t8003-serve-disconnect.sh \
	tests/cli/t8004-serve-client.sh tests/cli/t8005-serve-tls.sh tests/cli/t8006-serve-unit.sh \
	tests/cli/t8007-serve-async-destroy.sh tests/cli/t8008-serve-data.sh tests/cli/t8009-serve-stats.sh tests/cli/t8010-serve-two.sh tests/cli/t8011-serve-owners.sh
EXTRA_DIST += tests/cli/t8001-serve.sh tests/cli/t8002-serve-concurrent.sh tests/cli/t8003-serve-disconnect.sh \
	tests/cli/t8004-serve-client.sh tests/cli/t8005-serve-tls.sh tests/cli/t8006-serve-unit.sh tests/cli/t8002-serve-load.py \
	tests/cli/t8007-serve-async-destroy.sh tests/cli/t8008-serve-data.sh tests/cli/t8009-serve-stats.sh tests/cli/t8010-serve-two.sh tests/cli/t8011-serve-owners.sh \
	tests/cli/t8-serve-lib.sh contrib/imc-serve.service
