# src/cloud/ec2*: the ec2 backend (docs/ec2.md).
libimc_la_SOURCES += src/cloud/ec2.c src/cloud/ec2.h \
	src/cloud/ec2-http.c src/cloud/ec2-xml.c src/cloud/ec2-types.c \
	src/cloud/ec2-sg.c src/cloud/ec2-state.c
