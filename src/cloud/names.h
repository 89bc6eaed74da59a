/* names.h: the names imc gives what it creates on a remote cloud (ec2,
 * openstack, docker). One scheme for every backend, in one place, because
 * a backend's sweep finds by name what its create made when the store's
 * record of it is gone (a crash between the cloud's reply and the store's
 * write): what create names and what the sweep matches must not drift.
 * The local backend has its own shorter scheme (local.h): interface names
 * have 15 bytes. */
#ifndef IMC_CLOUD_NAMES_H
#define IMC_CLOUD_NAMES_H

/* "imc-INFRA": the infrastructure's key pair. */
char *cloud_name_key(const char *infra_id);
/* "imc-INFRA-NET": the security group or network of RADL network NET. */
char *cloud_name_net(const char *infra_id, const char *net);
/* "imc-INFRA-NUM": VM NUM's container name, or its idempotency token. */
char *cloud_name_vm(const char *infra_id, int num);
/* "imc-INFRA-": the prefix of every per-network and per-VM name above,
 * which the sweeps match. */
char *cloud_name_prefix(const char *infra_id);

#endif
