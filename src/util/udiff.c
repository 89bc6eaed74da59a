/* udiff.c: Python difflib's unified_diff in C, for the task log's
 * --diff output. Another diff algorithm (Myers) finds hunks as short but
 * not always the same ones; difflib's SequenceMatcher recursively takes
 * the longest matching run of lines (the earliest in before, then in
 * after) and, when after has 200 lines or more, ignores for anchoring the
 * lines that occur in it more than 1% + 1 times ("autojunk"). Lines are
 * interned to integers first so comparisons are integer compares. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/udiff.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct line {
	const char *p;
	size_t len;
};

struct lines {
	struct line *v;
	int *id;
	size_t n;
	char *last;  /* the last line with the "No newline" note (owned) */
};

/* The length of the line break at p (0 when none), as str.splitlines. */
static size_t line_break(const char *p, const char *end)
{
	unsigned char c = (unsigned char)*p;
	if (c == '\r')
		return p + 1 < end && p[1] == '\n' ? 2 : 1;
	if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e))
		return 1;
	if (c == 0xc2 && p + 1 < end && (unsigned char)p[1] == 0x85)
		return 2;
	if (c == 0xe2 && p + 2 < end && (unsigned char)p[1] == 0x80 &&
	    ((unsigned char)p[2] == 0xa8 || (unsigned char)p[2] == 0xa9))
		return 3;
	return 0;
}

static void split(struct lines *l, const char *s, size_t len)
{
	const char *end = s + len, *p = s;
	size_t cap = 16;
	l->v = xcalloc(cap, sizeof(*l->v));
	l->n = 0;
	l->last = NULL;
	while (p < end) {
		const char *q = p;
		size_t br = 0;
		while (q < end && !(br = line_break(q, end)))
			q++;
		if (l->n == cap) {
			cap *= 2;
			l->v = xrealloc(l->v, cap * sizeof(*l->v));
		}
		l->v[l->n].p = p;
		l->v[l->n].len = (size_t)(q - p) + br;
		l->n++;
		p = q + br;
	}
	if (l->n) {
		struct line *t = &l->v[l->n - 1];
		if (!t->len || t->p[t->len - 1] != '\n') {
			static const char note[] = "\n\\ No newline at end of file\n";
			l->last = xmalloc(t->len + sizeof(note));
			memcpy(l->last, t->p, t->len);
			memcpy(l->last + t->len, note, sizeof(note));
			t->p = l->last;
			t->len += sizeof(note) - 1;
		}
	}
	l->id = xcalloc(l->n + 1, sizeof(*l->id));
}

static uint64_t line_hash(const struct line *ln)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < ln->len; i++)
		h = (h ^ (unsigned char)ln->p[i]) * 1099511628211ULL;
	return h;
}

/* Gives equal lines of a and b the same id (0..*nids-1). */
static void intern(struct lines *a, struct lines *b, int *nids)
{
	size_t total = a->n + b->n, cap = 16;
	while (cap < 2 * total)
		cap *= 2;
	const struct line **slot = xcalloc(cap, sizeof(*slot));
	int *slot_id = xcalloc(cap, sizeof(*slot_id));
	*nids = 0;
	for (int pass = 0; pass < 2; pass++) {
		struct lines *l = pass ? b : a;
		for (size_t i = 0; i < l->n; i++) {
			size_t k = (size_t)line_hash(&l->v[i]) & (cap - 1);
			while (slot[k] && !(slot[k]->len == l->v[i].len &&
					    !memcmp(slot[k]->p, l->v[i].p, l->v[i].len)))
				k = (k + 1) & (cap - 1);
			if (!slot[k]) {
				slot[k] = &l->v[i];
				slot_id[k] = (*nids)++;
			}
			l->id[i] = slot_id[k];
		}
	}
	free(slot);
	free(slot_id);
}

struct matcher {
	const int *a, *b;
	size_t la, lb;
	/* b2j: for each id, the indexes in b where it occurs (ascending),
	 * empty for popular ids: start[id]..start[id+1] in idx */
	size_t *start, *idx;
	/* SequenceMatcher's j2len dictionaries as arrays over b with the
	 * indexes set in this row listed, so a row is cleared in its size */
	size_t *j2len, *newj2len, *set, *newset;
	size_t nset;
};

struct block {
	size_t i, j, k;
};

static void matcher_init(struct matcher *m, const int *a, size_t la, const int *b, size_t lb,
			 int nids)
{
	m->a = a;
	m->b = b;
	m->la = la;
	m->lb = lb;
	size_t *count = xcalloc((size_t)nids + 1, sizeof(*count));
	for (size_t j = 0; j < lb; j++)
		count[b[j]]++;
	/* autojunk: in a b of 200 lines or more, a line found more than
	 * len(b) / 100 + 1 times anchors nothing */
	if (lb >= 200)
		for (int id = 0; id < nids; id++)
			if (count[id] > lb / 100 + 1)
				count[id] = 0;
	m->start = xcalloc((size_t)nids + 2, sizeof(*m->start));
	for (int id = 0; id < nids; id++)
		m->start[id + 1] = m->start[id] + count[id];
	m->idx = xcalloc(lb + 1, sizeof(*m->idx));
	size_t *fill = xcalloc((size_t)nids + 1, sizeof(*fill));
	for (size_t j = 0; j < lb; j++)
		if (count[b[j]])
			m->idx[m->start[b[j]] + fill[b[j]]++] = j;
	free(fill);
	free(count);
	m->j2len = xcalloc(lb + 1, sizeof(*m->j2len));
	m->newj2len = xcalloc(lb + 1, sizeof(*m->newj2len));
	m->set = xcalloc(lb + 1, sizeof(*m->set));
	m->newset = xcalloc(lb + 1, sizeof(*m->newset));
	m->nset = 0;
}

static void matcher_release(struct matcher *m)
{
	free(m->start);
	free(m->idx);
	free(m->j2len);
	free(m->newj2len);
	free(m->set);
	free(m->newset);
}

/* find_longest_match(alo, ahi, blo, bhi) with no junk function. */
static struct block longest_match(struct matcher *m, size_t alo, size_t ahi, size_t blo,
				  size_t bhi)
{
	struct block best = { alo, blo, 0 };
	for (size_t s = 0; s < m->nset; s++)
		m->j2len[m->set[s]] = 0;
	m->nset = 0;
	for (size_t i = alo; i < ahi; i++) {
		size_t nnew = 0;
		int id = m->a[i];
		for (size_t e = m->start[id]; e < m->start[id + 1]; e++) {
			size_t j = m->idx[e];
			if (j < blo)
				continue;
			if (j >= bhi)
				break;
			size_t k = (j > 0 ? m->j2len[j - 1] : 0) + 1;
			m->newj2len[j] = k;
			m->newset[nnew++] = j;
			if (k > best.k) {
				best.i = i - k + 1;
				best.j = j - k + 1;
				best.k = k;
			}
		}
		for (size_t s = 0; s < m->nset; s++)
			m->j2len[m->set[s]] = 0;
		for (size_t s = 0; s < nnew; s++) {
			m->j2len[m->newset[s]] = m->newj2len[m->newset[s]];
			m->set[s] = m->newset[s];
		}
		m->nset = nnew;
	}
	/* popular lines anchor nothing but a match extends over them */
	while (best.i > alo && best.j > blo && m->a[best.i - 1] == m->b[best.j - 1]) {
		best.i--;
		best.j--;
		best.k++;
	}
	while (best.i + best.k < ahi && best.j + best.k < bhi &&
	       m->a[best.i + best.k] == m->b[best.j + best.k])
		best.k++;
	return best;
}

static int block_cmp(const void *x, const void *y)
{
	const struct block *p = x, *q = y;
	if (p->i != q->i)
		return p->i < q->i ? -1 : 1;
	if (p->j != q->j)
		return p->j < q->j ? -1 : 1;
	return p->k < q->k ? -1 : p->k > q->k;
}

/* get_matching_blocks: the matches, adjacent ones joined, and the
 * (la, lb, 0) sentinel; returns their number. */
static size_t matching_blocks(struct matcher *m, struct block **out)
{
	size_t cap = 16, n = 0, qn = 0, qcap = 16;
	struct block *mb = xcalloc(cap, sizeof(*mb));
	size_t (*queue)[4] = xcalloc(qcap, sizeof(*queue));
	queue[qn][0] = 0;
	queue[qn][1] = m->la;
	queue[qn][2] = 0;
	queue[qn][3] = m->lb;
	qn++;
	while (qn) {
		qn--;
		size_t alo = queue[qn][0], ahi = queue[qn][1], blo = queue[qn][2], bhi = queue[qn][3];
		struct block x = longest_match(m, alo, ahi, blo, bhi);
		if (!x.k)
			continue;
		if (n + 1 >= cap) {
			cap *= 2;
			mb = xrealloc(mb, cap * sizeof(*mb));
		}
		mb[n++] = x;
		if (qn + 2 >= qcap) {
			qcap *= 2;
			queue = xrealloc(queue, qcap * sizeof(*queue));
		}
		if (alo < x.i && blo < x.j) {
			size_t *q = queue[qn++];
			q[0] = alo, q[1] = x.i, q[2] = blo, q[3] = x.j;
		}
		if (x.i + x.k < ahi && x.j + x.k < bhi) {
			size_t *q = queue[qn++];
			q[0] = x.i + x.k, q[1] = ahi, q[2] = x.j + x.k, q[3] = bhi;
		}
	}
	free(queue);
	qsort(mb, n, sizeof(*mb), block_cmp);
	struct block *r = xcalloc(n + 2, sizeof(*r));
	size_t rn = 0;
	struct block cur = { 0, 0, 0 };
	for (size_t e = 0; e < n; e++) {
		if (cur.i + cur.k == mb[e].i && cur.j + cur.k == mb[e].j)
			cur.k += mb[e].k;
		else {
			if (cur.k)
				r[rn++] = cur;
			cur = mb[e];
		}
	}
	if (cur.k)
		r[rn++] = cur;
	r[rn].i = m->la;
	r[rn].j = m->lb;
	r[rn].k = 0;
	rn++;
	free(mb);
	*out = r;
	return rn;
}

struct opcode {
	char tag;  /* 'e'qual, 'r'eplace, 'd'elete, 'i'nsert */
	size_t i1, i2, j1, j2;
};

static size_t opcodes(const struct block *mb, size_t nmb, struct opcode **out)
{
	struct opcode *op = xcalloc(2 * nmb + 1, sizeof(*op));
	size_t n = 0, i = 0, j = 0;
	for (size_t e = 0; e < nmb; e++) {
		char tag = 0;
		if (i < mb[e].i && j < mb[e].j)
			tag = 'r';
		else if (i < mb[e].i)
			tag = 'd';
		else if (j < mb[e].j)
			tag = 'i';
		if (tag)
			op[n++] = (struct opcode){ tag, i, mb[e].i, j, mb[e].j };
		i = mb[e].i + mb[e].k;
		j = mb[e].j + mb[e].k;
		if (mb[e].k)
			op[n++] = (struct opcode){ 'e', mb[e].i, i, mb[e].j, j };
	}
	*out = op;
	return n;
}

/* _format_range_unified */
static void range(struct strbuf *out, size_t start, size_t stop)
{
	size_t beginning = start + 1, length = stop - start;
	if (length == 1) {
		strbuf_addf(out, "%zu", beginning);
		return;
	}
	if (!length)
		beginning--;
	strbuf_addf(out, "%zu,%zu", beginning, length);
}

static void hunk(struct strbuf *out, const struct lines *a, const struct lines *b,
		 const struct opcode *g, size_t ng)
{
	strbuf_addstr(out, "@@ -");
	range(out, g[0].i1, g[ng - 1].i2);
	strbuf_addstr(out, " +");
	range(out, g[0].j1, g[ng - 1].j2);
	strbuf_addstr(out, " @@\n");
	for (size_t e = 0; e < ng; e++) {
		if (g[e].tag == 'e') {
			for (size_t i = g[e].i1; i < g[e].i2; i++) {
				strbuf_addch(out, ' ');
				strbuf_add(out, a->v[i].p, a->v[i].len);
			}
			continue;
		}
		if (g[e].tag != 'i')
			for (size_t i = g[e].i1; i < g[e].i2; i++) {
				strbuf_addch(out, '-');
				strbuf_add(out, a->v[i].p, a->v[i].len);
			}
		if (g[e].tag != 'd')
			for (size_t j = g[e].j1; j < g[e].j2; j++) {
				strbuf_addch(out, '+');
				strbuf_add(out, b->v[j].p, b->v[j].len);
			}
	}
}

void udiff(struct strbuf *out, const char *before, size_t blen, const char *after, size_t alen,
	   const char *from, const char *to, int n)
{
	struct lines a, b;
	split(&a, before, blen);
	split(&b, after, alen);
	int nids;
	intern(&a, &b, &nids);
	struct matcher m;
	matcher_init(&m, a.id, a.n, b.id, b.n, nids);
	struct block *mb;
	size_t nmb = matching_blocks(&m, &mb);
	struct opcode *op;
	size_t nop = opcodes(mb, nmb, &op);
	size_t ctx = n > 0 ? (size_t)n : 0;
	/* get_grouped_opcodes(n) */
	if (!nop)
		op[nop++] = (struct opcode){ 'e', 0, 1, 0, 1 };
	if (op[0].tag == 'e') {
		op[0].i1 = op[0].i2 > op[0].i1 + ctx ? op[0].i2 - ctx : op[0].i1;
		op[0].j1 = op[0].j2 > op[0].j1 + ctx ? op[0].j2 - ctx : op[0].j1;
	}
	if (op[nop - 1].tag == 'e') {
		struct opcode *l = &op[nop - 1];
		l->i2 = l->i2 < l->i1 + ctx ? l->i2 : l->i1 + ctx;
		l->j2 = l->j2 < l->j1 + ctx ? l->j2 : l->j1 + ctx;
	}
	struct opcode *g = xcalloc(nop + 1, sizeof(*g));
	size_t ng = 0;
	bool started = false;
	for (size_t e = 0; e < nop; e++) {
		struct opcode c = op[e];
		if (c.tag == 'e' && c.i2 - c.i1 > 2 * ctx) {
			g[ng++] = (struct opcode){ 'e', c.i1, c.i2 < c.i1 + ctx ? c.i2 : c.i1 + ctx,
						   c.j1, c.j2 < c.j1 + ctx ? c.j2 : c.j1 + ctx };
			if (!started) {
				strbuf_addf(out, "--- %s\n+++ %s\n", from, to);
				started = true;
			}
			hunk(out, &a, &b, g, ng);
			ng = 0;
			c.i1 = c.i2 > c.i1 + ctx ? c.i2 - ctx : c.i1;
			c.j1 = c.j2 > c.j1 + ctx ? c.j2 - ctx : c.j1;
		}
		g[ng++] = c;
	}
	if (ng && !(ng == 1 && g[0].tag == 'e')) {
		if (!started)
			strbuf_addf(out, "--- %s\n+++ %s\n", from, to);
		hunk(out, &a, &b, g, ng);
	}
	free(g);
	free(op);
	free(mb);
	matcher_release(&m);
	free(a.v);
	free(a.id);
	free(a.last);
	free(b.v);
	free(b.id);
	free(b.last);
}
