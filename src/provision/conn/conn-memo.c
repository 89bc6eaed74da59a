/* conn-memo.c: the last contents a connection saw of a few of its node's
 * files (read whole, or written whole, by a module), so that a module
 * that edits a file (lineinfile) can compute its edit from them and send
 * the write in one round trip instead of reading first. A remembered
 * content is only a guess: anything may have changed the file since, so
 * the write that relies on it runs only when the node finds the file's
 * checksum equal to the guess's (module-util.c's guarded write), and the
 * module reads the file as before otherwise. Small files only (64 KiB),
 * four paths per node, the least recently used given up first: at most
 * 256 KiB a host, 16 MiB for 64; shared by the threads of the tasks
 * delegated to a host, so one lock guards every connection's memo. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "provision/conn/conn.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MEMO_SLOTS 4
#define MEMO_MAX_BYTES ((size_t)64 << 10)

struct memo_slot {
	char *path;   /* NULL: free */
	char *data;
	size_t len;
	char sum[41]; /* the data's SHA-1, hex */
	unsigned long used; /* when last kept or recalled, for eviction */
};

struct conn_memo {
	struct memo_slot slot[MEMO_SLOTS];
	unsigned long clock;
};

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static void slot_clear(struct memo_slot *s)
{
	free(s->path);
	free(s->data);
	memset(s, 0, sizeof(*s));
}

static struct memo_slot *find(struct conn_memo *m, const char *path)
{
	for (int i = 0; m && i < MEMO_SLOTS; i++)
		if (m->slot[i].path && !strcmp(m->slot[i].path, path))
			return &m->slot[i];
	return NULL;
}

void conn_memo_keep(struct task_conn *c, const char *path, const void *data, size_t len)
{
	pthread_mutex_lock(&memo_lock);
	if (!c->memo)
		c->memo = xcalloc(1, sizeof(*c->memo));
	struct conn_memo *m = c->memo;
	struct memo_slot *s = find(m, path);
	if (!s) {
		/* the free slot, or the one least recently used */
		s = &m->slot[0];
		for (int i = 0; i < MEMO_SLOTS && s->path; i++)
			if (!m->slot[i].path || m->slot[i].used < s->used)
				s = &m->slot[i];
	}
	slot_clear(s);
	if (len <= MEMO_MAX_BYTES) {
		s->path = xstrdup(path);
		s->data = xmalloc(len + 1);
		/* an empty file's contents may come as NULL */
		if (len)
			memcpy(s->data, data, len);
		s->data[len] = 0;
		s->len = len;
		hash_sha1_hex(s->data, len, s->sum);
		s->used = ++m->clock;
	}
	pthread_mutex_unlock(&memo_lock);
}

void conn_memo_forget(struct task_conn *c, const char *path)
{
	pthread_mutex_lock(&memo_lock);
	struct memo_slot *s = find(c->memo, path);
	if (s)
		slot_clear(s);
	pthread_mutex_unlock(&memo_lock);
}

bool conn_memo_recall(struct task_conn *c, const char *path, struct strbuf *data, char sum[41])
{
	pthread_mutex_lock(&memo_lock);
	struct memo_slot *s = find(c->memo, path);
	if (s) {
		strbuf_reset(data);
		strbuf_add(data, s->data, s->len);
		memcpy(sum, s->sum, 41);
		s->used = ++c->memo->clock;
	}
	pthread_mutex_unlock(&memo_lock);
	return s != NULL;
}

void conn_memo_free(struct task_conn *c)
{
	if (!c->memo)
		return;
	for (int i = 0; i < MEMO_SLOTS; i++)
		slot_clear(&c->memo->slot[i]);
	free(c->memo);
	c->memo = NULL;
}
