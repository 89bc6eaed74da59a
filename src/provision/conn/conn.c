/* conn.c: what every connection shares (conn.h): a command's result with
 * its output capped at CONN_OUTPUT_CAP, closing a connection through its
 * vtable, the count of commands sent (round trips), and the single-quoting every command line sent to a node is
 * built with. */
#include "config.h"

#include "provision/conn/conn.h"
#include "util/banned.h"

void conn_result_init(struct conn_result *r)
{
	r->rc = -1;
	strbuf_init(&r->out, CONN_OUTPUT_CAP);
	strbuf_init(&r->err, CONN_OUTPUT_CAP);
}

void conn_result_release(struct conn_result *r)
{
	strbuf_release(&r->out);
	strbuf_release(&r->err);
}

void conn_close(struct task_conn *c)
{
	if (c)
		conn_memo_free(c);
	if (c && c->ops->close)
		c->ops->close(c);
}

void conn_count(struct task_conn *c)
{
	__atomic_add_fetch(&c->round_trips, 1, __ATOMIC_RELAXED);
}

unsigned long conn_round_trips(struct task_conn *c)
{
	return __atomic_load_n(&c->round_trips, __ATOMIC_RELAXED);
}

