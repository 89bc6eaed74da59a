/* docker-sweep.c: finds an infrastructure's Docker objects by label (every
 * container, volume and network the backend makes carries
 * DOCKER_LABEL_INFRA, and containers and volumes DOCKER_LABEL_VM), as
 * ec2-sweep.c finds EC2's by tag, and removes them: containers first (a
 * volume or network in use cannot go), then volumes, then networks. It
 * returns success only when a fresh listing shows none left, so a crash
 * between a create and the store's write leaves nothing once destroy or
 * cleanup_infra ran. Removing what is gone already is success. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cloud/docker.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum kind { CONTAINERS, VOLUMES, NETWORKS };

static const char *const list_path[] = { "/containers/json?all=1&filters=", "/volumes?filters=",
					 "/networks?filters=" };
static const char *const remove_dir[] = { "/containers/", "/volumes/", "/networks/" };
static const char *const remove_query[] = { "?force=1&v=1", "?force=1", "" };
static const char *const what[] = { "container", "volume", "network" };

/* The ids (names for volumes) of the objects of kind with the labels. */
static int list(struct docker_conn *c, enum kind k, const char *infra_id, int vm, char ***ids,
		size_t *n, struct diag *d)
{
	char *infra = xasprintf(DOCKER_LABEL_INFRA "=%s", infra_id);
	char *vml = xasprintf(DOCKER_LABEL_VM "=%d", vm);
	json_t *f = vm >= 0 ? json_pack("{s:[s,s]}", "label", infra, vml) : json_pack("{s:[s]}", "label", infra);
	char *ftxt = json_dumps(f, JSON_COMPACT);
	struct strbuf path = STRBUF_INIT;
	struct docker_reply r;
	int ret = -1;
	*ids = NULL;
	*n = 0;
	strbuf_addstr(&path, list_path[k]);
	docker_escape(&path, ftxt);
	if (docker_call(c, "GET", strbuf_str(&path), NULL, &r, d) < 0)
		goto out;
	if (r.status != 200) {
		docker_reply_diag(c, &r, k == CONTAINERS ? "list containers" : k == VOLUMES ? "list volumes" : "list networks", d);
		docker_reply_release(&r);
		goto out;
	}
	json_t *arr = k == VOLUMES ? json_object_get(r.json, "Volumes") : r.json;
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o) {
		const char *id = json_string_value(json_object_get(o, k == VOLUMES ? "Name" : "Id"));
		if (!id)
			continue;
		*ids = xreallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = xstrdup(id);
	}
	docker_reply_release(&r);
	ret = 0;
out:
	strbuf_release(&path);
	free(ftxt);
	json_decref(f);
	free(infra);
	free(vml);
	return ret;
}

static void free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

static int remove_one(struct docker_conn *c, enum kind k, const char *id, struct diag *d)
{
	struct strbuf esc = STRBUF_INIT;
	docker_escape(&esc, id);
	char *path = xasprintf("%s%s%s", remove_dir[k], strbuf_str(&esc), remove_query[k]);
	struct docker_reply r;
	int ret = -1;
	if (docker_call(c, "DELETE", path, NULL, &r, d) == 0) {
		/* 409 "removal already in progress": the next listing tells */
		if (r.status == 204 || r.status == 200 || r.status == 404 || r.status == 409) {
			log_debug(DOCKER_LOG, "removed %s %.12s (%ld)", what[k], id, r.status);
			ret = 0;
		} else {
			char *w = xasprintf("remove %s %.12s", what[k], id);
			docker_reply_diag(c, &r, w, d);
			free(w);
		}
		docker_reply_release(&r);
	}
	free(path);
	strbuf_release(&esc);
	return ret;
}

int docker_sweep(struct docker_conn *c, const char *infra_id, int vm, struct diag *d)
{
	int ret = 0;
	for (enum kind k = CONTAINERS; k <= NETWORKS && ret == 0; k++) {
		if (vm >= 0 && k == NETWORKS)
			break;
		char **ids;
		size_t n;
		/* twice at most: a removal the daemon finished late shows in the
		 * second listing, one still there after it is an error */
		for (int pass = 0; pass < 2; pass++) {
			if (list(c, k, infra_id, vm, &ids, &n, d) < 0) {
				ret = -1;
				break;
			}
			if (n == 0) {
				free_ids(ids, n);
				break;
			}
			if (pass == 1) {
				diag_error(d, IMC_EXIT_FAILED, NULL,
					   "docker (%s): %zu %s%s of infrastructure %s still there after removal",
					   c->where, n, what[k], n == 1 ? "" : "s", infra_id);
				ret = -1;
			}
			for (size_t i = 0; i < n && pass == 0; i++)
				if (remove_one(c, k, ids[i], d) < 0)
					ret = -1;
			free_ids(ids, n);
			if (ret < 0)
				break;
		}
	}
	return ret;
}
