# src/client: `imc --server URL`, the commands run against a remote imc
# serve or IM server over IM's REST API (libcurl). Part of the imc program.
imc_SOURCES += \
	src/client/client.h \
	src/client/http.c \
	src/client/commands.c
