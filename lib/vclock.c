/*
 * vclock.c - persistent vector clocks (see vclock.h).
 *
 * A clock is a tree of `levels` levels of 16-way nodes: inner nodes hold
 * children, leaves hold 16 positions, and thread t's entry is found by its
 * number's 4-bit digits, most significant first.  A missing child stands for
 * all zeros.  A node with more than one reference is never changed: a
 * writer copies it first, so every clock sees only its own history.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "vclock.h"

#define FAN 16
#define SLAB_NODES 512

struct mt_vc_node {
	uint32_t refs;
	union {
		struct mt_vc_node *kid[FAN]; /* inner levels */
		uint64_t pos[FAN];           /* leaves */
		struct mt_vc_node *next;     /* on the free list */
	} u;
};

void mt_vc_pool_init(struct mt_vc_pool *p, uint64_t threads)
{
	*p = (struct mt_vc_pool){ .levels = 1 };
	for (uint64_t span = FAN; span < threads; span *= FAN)
		p->levels++;
}

void mt_vc_pool_free(struct mt_vc_pool *p)
{
	for (size_t i = 0; i < p->nslabs; i++)
		free(p->slabs[i]);
	free(p->slabs);
	p->slabs = NULL;
	p->nslabs = 0;
	p->free = NULL;
}

static int add_slab(struct mt_vc_pool *p)
{
	void **slabs = realloc(p->slabs, (p->nslabs + 1) * sizeof *slabs);
	if (!slabs)
		return -1;
	p->slabs = slabs;
	struct mt_vc_node *n = malloc(SLAB_NODES * sizeof *n);
	if (!n)
		return -1;
	p->slabs[p->nslabs++] = n;
	for (size_t i = 0; i < SLAB_NODES; i++) {
		n[i].u.next = p->free;
		p->free = &n[i];
	}
	return 0;
}

/* A node with one reference, contents to be filled by the caller. */
static struct mt_vc_node *node_new(struct mt_vc_pool *p)
{
	if (!p->free && add_slab(p) < 0)
		return NULL;
	struct mt_vc_node *n = p->free;
	p->free = n->u.next;
	n->refs = 1;
	return n;
}

static struct mt_vc_node *ref(struct mt_vc_node *n)
{
	if (n)
		n->refs++;
	return n;
}

static void unref(struct mt_vc_pool *p, struct mt_vc_node *n, unsigned level)
{
	if (!n || --n->refs)
		return;
	if (level)
		for (int i = 0; i < FAN; i++)
			unref(p, n->u.kid[i], level - 1);
	n->u.next = p->free;
	p->free = n;
}

static unsigned digit(uint32_t t, unsigned level)
{
	return (t >> (4 * level)) & (FAN - 1);
}

uint64_t mt_vc_get(const struct mt_vc_pool *p, const struct mt_vclock *c, uint32_t t)
{
	const struct mt_vc_node *n = c->root;
	for (unsigned l = p->levels - 1; n && l; l--)
		n = n->u.kid[digit(t, l)];
	return n ? n->u.pos[digit(t, 0)] : 0;
}

/* Makes *slot a node this clock alone holds: new if missing, else a copy if
 * shared.  NULL when out of memory. */
static struct mt_vc_node *own(struct mt_vc_pool *p, struct mt_vc_node **slot, unsigned level)
{
	struct mt_vc_node *n = *slot;
	if (n && n->refs == 1)
		return n;
	struct mt_vc_node *m = node_new(p);
	if (!m)
		return NULL;
	if (!n) {
		memset(&m->u, 0, sizeof m->u);
	} else {
		m->u = n->u;
		if (level)
			for (int i = 0; i < FAN; i++)
				ref(m->u.kid[i]);
		n->refs--; /* it was shared, so someone still holds it */
	}
	*slot = m;
	return m;
}

int mt_vc_raise(struct mt_vc_pool *p, struct mt_vclock *c, uint32_t t, uint64_t pos)
{
	if (mt_vc_get(p, c, t) >= pos)
		return 0;
	struct mt_vc_node **slot = &c->root;
	for (unsigned l = p->levels - 1;; l--) {
		struct mt_vc_node *n = own(p, slot, l);
		if (!n)
			return -1;
		if (!l) {
			n->u.pos[digit(t, 0)] = pos;
			return 0;
		}
		slot = &n->u.kid[digit(t, l)];
	}
}

/*
 * The join of d and s as a new reference: one of the two itself wherever it
 * already covers the other, so only nodes where both know something the
 * other does not are new.  NULL with *err set when out of memory.
 */
static struct mt_vc_node *join(struct mt_vc_pool *p, struct mt_vc_node *d, struct mt_vc_node *s,
			       unsigned level, int *err)
{
	if (!s || d == s)
		return ref(d);
	if (!d)
		return ref(s);
	struct mt_vc_node *m;
	if (!level) {
		int d_covers = 1, s_covers = 1;
		for (int i = 0; i < FAN; i++) {
			d_covers &= d->u.pos[i] >= s->u.pos[i];
			s_covers &= s->u.pos[i] >= d->u.pos[i];
		}
		if (d_covers || s_covers)
			return ref(d_covers ? d : s);
		if (!(m = node_new(p))) {
			*err = 1;
			return NULL;
		}
		for (int i = 0; i < FAN; i++)
			m->u.pos[i] = d->u.pos[i] > s->u.pos[i] ? d->u.pos[i] : s->u.pos[i];
		return m;
	}
	struct mt_vc_node *k[FAN];
	int same_d = 1, same_s = 1, i;
	for (i = 0; i < FAN && !*err; i++) {
		k[i] = join(p, d->u.kid[i], s->u.kid[i], level - 1, err);
		same_d &= k[i] == d->u.kid[i];
		same_s &= k[i] == s->u.kid[i];
	}
	if (!*err && !same_d && !same_s && (m = node_new(p))) {
		memcpy(m->u.kid, k, sizeof k);
		return m;
	}
	while (i--)
		unref(p, k[i], level - 1);
	if (!*err && (same_d || same_s))
		return ref(same_d ? d : s);
	*err = 1;
	return NULL;
}

int mt_vc_join(struct mt_vc_pool *p, struct mt_vclock *dst, const struct mt_vclock *src)
{
	int err = 0;
	struct mt_vc_node *n = join(p, dst->root, src->root, p->levels - 1, &err);
	if (err)
		return -1;
	unref(p, dst->root, p->levels - 1);
	dst->root = n;
	return 0;
}

void mt_vc_copy(struct mt_vc_pool *p, struct mt_vclock *dst, const struct mt_vclock *src)
{
	struct mt_vc_node *n = ref(src->root);
	unref(p, dst->root, p->levels - 1);
	dst->root = n;
}

void mt_vc_clear(struct mt_vc_pool *p, struct mt_vclock *c)
{
	unref(p, c->root, p->levels - 1);
	c->root = NULL;
}
