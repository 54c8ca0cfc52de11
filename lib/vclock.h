/*
 * vclock.h - vector clocks that share what they have in common.
 *
 * Happens-before between the threads of a workload: a clock says, for each
 * thread, how far into that thread's stream its owner is known to be past.
 * trace2wl keeps one per thread to place only the waits a replay needs, and
 * the workload check keeps one per thread to prove the waits it reads
 * sufficient, so both use this one implementation.
 *
 * Flat clocks cost a word per thread each: a program that starts threads one
 * after another gives thread k a clock of k entries (it waited on its
 * creator, who knew all before it), quadratic in memory and time.  These are
 * persistent 16-way radix trees with reference counts instead: copying a
 * clock takes a reference, a change copies only the path to the entry, and
 * a join keeps whole subtrees that one side already covers.  Clocks learnt
 * from one another then share nearly all their nodes.
 */
#ifndef MT_VCLOCK_H
#define MT_VCLOCK_H

#include <stddef.h>
#include <stdint.h>

struct mt_vc_node;

/* Where nodes come from: slabs with a free list, all released at once. */
struct mt_vc_pool {
	struct mt_vc_node *free;
	void **slabs;
	size_t nslabs;
	unsigned levels; /* tree depth for the thread count given at init */
};

/* A clock; all zero is the empty clock (knows of nothing). */
struct mt_vclock {
	struct mt_vc_node *root;
};

/* For thread numbers 0 .. threads-1; takes no memory until a clock does. */
void mt_vc_pool_init(struct mt_vc_pool *p, uint64_t threads);
/* Frees every node; clocks of the pool are invalid afterwards. */
void mt_vc_pool_free(struct mt_vc_pool *p);

/* Entry t of c: 0 if c knows nothing of thread t. */
uint64_t mt_vc_get(const struct mt_vc_pool *p, const struct mt_vclock *c, uint32_t t);
/* Entry t of c becomes at least pos.  0, or -1 when out of memory (c is
 * unchanged in meaning). */
int mt_vc_raise(struct mt_vc_pool *p, struct mt_vclock *c, uint32_t t, uint64_t pos);
/* dst becomes the entrywise maximum of dst and src.  0 or -1 as above. */
int mt_vc_join(struct mt_vc_pool *p, struct mt_vclock *dst, const struct mt_vclock *src);
/* dst becomes a copy of src (shared: no memory is taken). */
void mt_vc_copy(struct mt_vc_pool *p, struct mt_vclock *dst, const struct mt_vclock *src);
/* c becomes empty, its nodes returned to the pool as far as unshared. */
void mt_vc_clear(struct mt_vc_pool *p, struct mt_vclock *c);

#endif
