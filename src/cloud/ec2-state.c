/* ec2-state.c: what the ec2 backend must remember about an infrastructure
 * across processes, in $IMC_HOME/ec2/INFRA.json (0600):
 *   - the regions where it may have created something, each written before
 *     the first request that creates anything there, so that destroy and
 *     cleanup_infra (which the cloud contract gives no VM list) know where
 *     to look for tagged leftovers even after a crash;
 *   - the RADL network definitions given to net_create, because EC2
 *     security groups are regional and are made lazily by vm_create in the
 *     region of each VM's image (net_create does not know the region).
 * The file is written atomically (temporary file + rename). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cloud/ec2.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

int ec2_state_load(struct ec2_state *st, const char *home, const char *infra, struct diag *d)
{
	memset(st, 0, sizeof(*st));
	if (!home || !infra)
		return 0;
	char *dir = xasprintf("%s/ec2", home);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "ec2: cannot create '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	st->path = xasprintf("%s/%s.json", dir, infra);
	free(dir);
	json_error_t jerr;
	json_t *root = json_load_file(st->path, 0, &jerr);
	if (!root) {
		/* A damaged file must not block destroy: the tags still find
		 * everything in the regions the VMs name. */
		if (access(st->path, F_OK) == 0)
			log_warn("ec2", "%s: ignoring malformed ec2 state (%s)", st->path, jerr.text);
		return 0;
	}
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(root, "regions"), i, v) {
		if (!json_is_string(v))
			continue;
		st->regions = xreallocarray(st->regions, st->nregions + 1, sizeof(char *));
		st->regions[st->nregions++] = xstrdup(json_string_value(v));
	}
	json_array_foreach(json_object_get(root, "nets"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		if (!name)
			continue;
		st->nets = xreallocarray(st->nets, st->nnets + 1, sizeof(*st->nets));
		struct ec2_netdef *nd = &st->nets[st->nnets++];
		nd->name = xstrdup(name);
		nd->public = json_is_true(json_object_get(v, "public"));
		const char *op = json_string_value(json_object_get(v, "outports"));
		nd->outports = op ? xstrdup(op) : NULL;
	}
	json_decref(root);
	return 0;
}

int ec2_state_save(const struct ec2_state *st, struct diag *d)
{
	if (!st->path)
		return 0;
	json_t *root = json_object(), *regions = json_array(), *nets = json_array();
	for (size_t i = 0; i < st->nregions; i++)
		json_array_append_new(regions, json_string(st->regions[i]));
	for (size_t i = 0; i < st->nnets; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(st->nets[i].name));
		json_object_set_new(o, "public", json_boolean(st->nets[i].public));
		if (st->nets[i].outports)
			json_object_set_new(o, "outports", json_string(st->nets[i].outports));
		json_array_append_new(nets, o);
	}
	json_object_set_new(root, "format", json_integer(1));
	json_object_set_new(root, "regions", regions);
	json_object_set_new(root, "nets", nets);
	char *text = json_dumps(root, JSON_INDENT(1));
	json_decref(root);
	char *tmp = xasprintf("%s.tmp", st->path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc = -1;
	if (fd >= 0) {
		size_t len = strlen(text), off = 0;
		while (off < len) {
			ssize_t w = write(fd, text + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		if (off == len && fsync(fd) == 0 && close(fd) == 0) {
			fd = -1;
			rc = rename(tmp, st->path);
		}
		if (fd >= 0)
			close(fd);
	}
	if (rc < 0) {
		diag_error(d, IMC_EXIT_IOERR, NULL, "ec2: cannot write '%s': %s", st->path,
			   strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	free(text);
	return rc;
}

int ec2_state_add_region(struct ec2_state *st, const char *region, struct diag *d)
{
	for (size_t i = 0; i < st->nregions; i++)
		if (strcmp(st->regions[i], region) == 0)
			return 0;
	st->regions = xreallocarray(st->regions, st->nregions + 1, sizeof(char *));
	st->regions[st->nregions++] = xstrdup(region);
	return ec2_state_save(st, d);
}

const struct ec2_netdef *ec2_state_net(const struct ec2_state *st, const char *name)
{
	for (size_t i = 0; name && i < st->nnets; i++)
		if (strcmp(st->nets[i].name, name) == 0)
			return &st->nets[i];
	return NULL;
}

int ec2_state_add_net(struct ec2_state *st, const char *name, bool public,
		      const char *outports, struct diag *d)
{
	struct ec2_netdef *nd = NULL;
	for (size_t i = 0; i < st->nnets; i++)
		if (strcmp(st->nets[i].name, name) == 0)
			nd = &st->nets[i];
	if (!nd) {
		st->nets = xreallocarray(st->nets, st->nnets + 1, sizeof(*st->nets));
		nd = &st->nets[st->nnets++];
		memset(nd, 0, sizeof(*nd));
		nd->name = xstrdup(name);
	}
	nd->public = public;
	free(nd->outports);
	nd->outports = outports ? xstrdup(outports) : NULL;
	return ec2_state_save(st, d);
}

void ec2_state_remove(struct ec2_state *st)
{
	if (st->path)
		unlink(st->path);
}

void ec2_state_release(struct ec2_state *st)
{
	free(st->path);
	for (size_t i = 0; i < st->nregions; i++)
		free(st->regions[i]);
	free(st->regions);
	for (size_t i = 0; i < st->nnets; i++) {
		free(st->nets[i].name);
		free(st->nets[i].outports);
	}
	free(st->nets);
	memset(st, 0, sizeof(*st));
}
