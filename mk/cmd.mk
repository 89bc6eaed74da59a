# src/imc.c and src/cmd: the imc program and its subcommands (one file each).
bin_PROGRAMS += imc
imc_SOURCES = src/imc.c src/cmd/cmd.h src/cmd/cmd-list.h src/cmd/cli.c src/cmd/cli.h
imc_SOURCES += src/cmd/vmops.c src/cmd/vmops.h
imc_LDADD = libimc.la $(IMC_LIBS)
# every command file is listed here (they are already all present)
imc_SOURCES += \
	src/cmd/cmd-addresource.c \
	src/cmd/cmd-alter.c \
	src/cmd/cmd-create.c \
	src/cmd/cmd-destroy.c \
	src/cmd/cmd-export.c \
	src/cmd/cmd-getcontmsg.c \
	src/cmd/cmd-getinfo.c \
	src/cmd/cmd-getoutputs.c \
	src/cmd/cmd-getradl.c \
	src/cmd/cmd-getstate.c \
	src/cmd/cmd-getvmcontmsg.c \
	src/cmd/cmd-logs.c \
	src/cmd/cmd-getvminfo.c \
	src/cmd/cmd-help.c \
	src/cmd/cmd-import.c \
	src/cmd/cmd-list.c \
	src/cmd/cmd-plan.c \
	src/cmd/cmd-play.c src/cmd/play-settings.c src/cmd/play-settings.h \
	src/cmd/cmd-radl.c \
	src/cmd/cmd-rebootvm.c \
	src/cmd/cmd-reconfigure.c \
	src/cmd/cmd-removeresource.c \
	src/cmd/cmd-ssh.c \
	src/cmd/cmd-start.c \
	src/cmd/cmd-startvm.c \
	src/cmd/cmd-stop.c \
	src/cmd/cmd-stopvm.c \
	src/cmd/cmd-validate.c \
	src/cmd/cmd-wait.c

# the manual page of imc (commands, options, files, exit codes)
dist_man_MANS += docs/imc.1

TESTS += tests/cli/t0001-basic.sh
# the command table against imc help, imc.1 and the bash completion
TESTS += tests/cli/t0002-help.sh
EXTRA_DIST += tests/cli/t0002-help.sh
# the bash completion, 'imc help --completion' (bash-completion loads NAME.bash)
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = docs/imc.bash
EXTRA_DIST += tests/cli/t0001-basic.sh tests/cli/lib.sh tests/cli/fuzz-lib.sh tests/cli/run-test.sh

# the recipes checked before any cloud call (src/deploy/recipes.c)
TESTS += tests/cli/t2008-recipe-precheck.sh
EXTRA_DIST += tests/cli/t2008-recipe-precheck.sh
TESTS += tests/cli/t2010-logs.sh tests/cli/t2012-progress.sh
EXTRA_DIST += tests/cli/t2010-logs.sh tests/cli/t2012-progress.sh tests/cli/data/t2012-progress.radl
