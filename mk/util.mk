# src/util: small shared helpers (allocation, strings, logging, diagnostics).
libimc_la_SOURCES += \
	src/util/banned.h \
	src/util/xalloc.c src/util/xalloc.h \
	src/util/strbuf.c src/util/strbuf.h \
	src/util/diag.c src/util/diag.h \
	src/util/log.c src/util/log.h \
	src/util/base64.c src/util/base64.h \
	src/util/hash.c src/util/hash.h \
	src/util/which.c src/util/which.h \
	src/util/capture.c src/util/capture.h \
	src/util/path.c src/util/path.h \
	src/util/udiff.c src/util/udiff.h \
	src/util/pyfloat.c src/util/pyfloat.h src/util/textenc.c src/util/textenc.h \
	src/util/url.c src/util/url.h \
	src/util/vault.c src/util/vault.h \
	src/util/pyrandom.c src/util/pyrandom.h \
	src/util/pypath.c src/util/pypath.h \
	src/util/exitcode.h src/util/sshkey.h

UNIT_TESTS += tests/unit/test-util
