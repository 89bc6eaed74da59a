# src/cloud: backend registry, auth file, and one file per backend.
libimc_la_SOURCES += \
	src/cloud/cloud.c src/cloud/cloud.h src/cloud/auth.h
# each backend has its own fragment
include mk/cloud-dummy.mk
include mk/cloud-local.mk
include mk/cloud-ec2.mk
