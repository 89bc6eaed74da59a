/* cloudinit.h: the cloud-init user data that creates a VM's login user,
 * shared by the backends whose clouds run cloud-init (ec2, openstack). */
#ifndef IMC_CLOUD_CLOUDINIT_H
#define IMC_CLOUD_CLOUDINIT_H

/* The key pair reaches the image's default user. When the RADL asks for
 * another login user, this user data creates it with the infrastructure's
 * public key and passwordless sudo, as IM does for every user. Returns
 * base64 text (what EC2's UserData and Nova's user_data want), or NULL when
 * none is needed or the user cannot be created safely (logged under
 * module). */
char *cloudinit_user_data(const char *module, int vm_num, const char *user, const char *pubkey);

#endif
