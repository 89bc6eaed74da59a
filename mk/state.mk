# src/state: the SQLite state store.
libimc_la_SOURCES += \
	src/state/vmstate.c src/state/vmstate.h \
	src/state/store.c src/state/store.h

# CLI tests of the state store, the deployment worker and the lifecycle
# commands (dummy cloud).
TESTS += tests/cli/t2001-lifecycle.sh tests/cli/t2002-worker-crash.sh \
	tests/cli/t2003-concurrency.sh tests/cli/t2004-errors-secrets.sh \
	tests/cli/t2005-plan-examples.sh tests/cli/t2006-local-deploy.sh
EXTRA_DIST += tests/cli/t2001-lifecycle.sh tests/cli/t2002-worker-crash.sh \
	tests/cli/t2003-concurrency.sh tests/cli/t2004-errors-secrets.sh \
	tests/cli/t2005-plan-examples.sh tests/cli/t2006-local-deploy.sh tests/radl/conformance \
	tests/cli/data/t2-cluster.radl tests/cli/data/t2-add.radl \
	tests/cli/data/t2-local.radl tests/cli/data/t2-broken.radl

UNIT_TESTS += tests/unit/test-state
