# src/server: `imc serve`, IM's REST API over libmicrohttpd on the same
# deployment engine as the commands (src/deploy); in the imc program, the
# only one that serves.
#imc_SOURCES += src/cmd/cmd-serve.c
