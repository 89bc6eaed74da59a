/* fuzz-ec2-xml.c: libFuzzer harness for the ec2 backend's reply readers
 * (cloud/ec2.h, ec2-xml.c): error documents, instance lists and set values,
 * what imc reads from whatever answers at the EC2 endpoint. Any body must be
 * read or refused, never crash (an instance may lack any field: the callers
 * check). Built as a libFuzzer program with --enable-fuzzing (CC=clang), and
 * as a plain replay program (replay.c) without it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/ec2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	const char *buf = (const char *)data;
	struct ec2_error e;
	memset(&e, 0, sizeof(e));
	if (ec2_xml_error(buf, size, &e) == 0 && !e.code && !e.message)
		abort(); /* an error document says something */
	ec2_error_release(&e);

	xmlDoc *doc = ec2_xml_parse(buf, size);
	if (!doc)
		return 0;
	struct ec2_instance *v = NULL;
	size_t n = 0;
	if (ec2_xml_instances(doc, &v, &n) == 0) {
		/* read every field, so that ASan checks them */
		volatile size_t total = 0;
		for (size_t i = 0; i < n; i++) {
			const char *f[] = { v[i].id, v[i].state, v[i].private_ip, v[i].public_ip,
					    v[i].reason, v[i].client_token };
			for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
				total += f[k] ? strlen(f[k]) : 0;
		}
		if (total == SIZE_MAX)
			abort(); /* never: only makes the sum count */
		ec2_instances_free(v, n);
	}
	static const char *const sets[][2] = {
		{ "securityGroupInfo", "groupId" }, { "keySet", "keyName" },
		{ "subnetSet", "subnetId" }, { "vpcSet", "vpcId" },
	};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		char **vals = NULL;
		size_t nv = 0;
		if (ec2_xml_set_values(doc, sets[i][0], sets[i][1], &vals, &nv) == 0)
			ec2_strv_free(vals, nv);
	}
	xmlNode *root = xmlDocGetRootElement(doc);
	if (root) {
		free(ec2_xml_text(root, "requestId"));
		ec2_xml_find(root, "instanceState");
	}
	xmlFreeDoc(doc);
	return 0;
}
