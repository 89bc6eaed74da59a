# src/cloud/openstack*: the openstack backend (docs/openstack.md).
libimc_la_SOURCES += src/cloud/openstack.c src/cloud/openstack.h \
	src/cloud/openstack-http.c src/cloud/openstack-auth.c \
	src/cloud/openstack-flavor.c src/cloud/openstack-sg.c \
	src/cloud/openstack-server.c src/cloud/openstack-sweep.c
