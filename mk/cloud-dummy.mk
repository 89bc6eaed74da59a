# src/cloud/dummy*: the dummy backend; also src/cloud/auth.c (the auth file
# reader), kept in this fragment because the same engineer owns both.
libimc_la_SOURCES += src/cloud/dummy.c src/cloud/auth.c
