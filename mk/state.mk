# src/state: the SQLite state store.
libimc_la_SOURCES += \
	src/state/vmstate.c src/state/vmstate.h \
	src/state/store.c src/state/store.h
