# src/cloud/docker*: the docker backend (the Engine API over a unix socket
# or TCP; docs/docker.md), and its tests against a real dockerd
# (tests/docker/lib-docker.sh starts one of the test's own).
libimc_la_SOURCES += src/cloud/docker.c src/cloud/docker.h \
	src/cloud/docker-api.c src/cloud/docker-net.c src/cloud/docker-ready.c \
	src/cloud/docker-sweep.c
EXTRA_DIST += tests/docker/lib-docker.sh tests/docker/mknode.sh tests/docker/fake-dockerd.py \
	docs/docker.md

DOCKER_CLI_TESTS = tests/cli/t3010-docker-fashion-mnist.sh tests/cli/t3011-docker-errors.sh \
	tests/cli/t3013-docker-volumes-crash.sh \
	tests/cli/t3012-plan-backends.sh
TESTS += $(DOCKER_CLI_TESTS)
EXTRA_DIST += $(DOCKER_CLI_TESTS)
