# plan: RADL document -> VMs, names, clouds, networks, schedule, variables.
libimc_la_SOURCES += \
	src/plan/plan.h src/plan/plan.c src/plan/plan-schedule.c \
	src/plan/plan-vars.c src/plan/plan-input.c

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test-plan
TESTS += tests/unit/test-plan
tests_unit_test_plan_SOURCES = tests/unit/test-plan.c
tests_unit_test_plan_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_plan_LDADD = $(UNIT_LIBS)
endif
