# plan: RADL document -> VMs, names, clouds, networks, schedule, variables.
libimc_la_SOURCES += \
	src/plan/plan.h src/plan/plan.c src/plan/plan-schedule.c \
	src/plan/plan-vars.c src/plan/plan-input.c

UNIT_TESTS += tests/unit/test-plan
