# src/cloud/ec2*: the ec2 backend.
libimc_la_SOURCES += src/cloud/ec2.c
