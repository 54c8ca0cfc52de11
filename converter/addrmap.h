/*
 * addrmap.h - what trace2wl knows about each address the trace handed out.
 *
 * A trace names blocks by address; a workload by object index.  This map
 * turns one into the other: for a live block its object, size and owner,
 * and for any address whether a thread waits for it to be allocated.  A
 * freed block's entry stays, dead, until the table next fills up, when
 * the dead are swept out (or, too few to stop a growth, moved along with
 * the live ones: addrmap.c): allocators hand a freed address
 * out again soon, and its next allocation then finds the entry where its
 * free left it.  The table is sized by the live set alone: at most 8 MiB
 * + 40 bytes per block live at the trace's peak (16-byte entries, 24
 * with their am_user for a trace of more than one thread, grown in place,
 * each time to what that allows).
 * A dead entry keeps who freed its block, so that a second free of the
 * address, while the entry is there, is reported as a double free with
 * both record numbers.
 */
#ifndef TRACE2WL_ADDRMAP_H
#define TRACE2WL_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>

#define AM_MAX_THREADS (1u << 22)
#define AM_MAX_OBJECTS ((1ull << 39) - 1)
#define AM_SIZE_BIG ((1u << 22) - 1) /* size field: the size is in the big list */

/* 16 bytes: a one-thread trace's table holds four to a cache line, none
 * across two, so a probe mostly touches one line, the one prefetched.  The
 * map is the converter's main source of cache misses and its memory. */
struct am_entry {
	uint64_t addr;       /* 0: empty slot (NULL is never stored) */
	uint64_t obj : 39;   /* live: object index; freed: the record that freed it */
	uint64_t size : 22;  /* live: requested bytes, or AM_SIZE_BIG; dead: 1 where
				a free left it (freed), else 0 */
	uint64_t live : 1;   /* neither live nor wanted: dead, swept out when full */
	uint64_t wanted : 1; /* a thread is held until this address is allocated */
	uint64_t moved : 1;  /* only while growing: already at its new place */
};

/* Who used an entry's block last: in the slot, just after the entry, for
 * traces of more than one thread only (in a table of its own, slot for
 * slot, it cost a second random line an op).  With one thread, the owner
 * is always thread 0 and no handoff is ever asked for, and a slot of 16
 * bytes instead of 24 never straddles two cache lines. */
struct am_user {
	uint64_t owner : 22; /* live: source thread that allocated or last used it;
				freed: the one that freed it */
	uint64_t pos : 39;   /* live: owner's stream length just after its last use */
};

/* The two slot strides.  The converter's loop is made once for each, the
 * stride a constant there (the _as functions below take it; the others
 * read the map's): a stride read from the map and the tests of it cost
 * perl's three-thread trace about 20 instructions a record. */
#define AM_STRIDE_ONE sizeof(struct am_entry)
#define AM_STRIDE_USERS (sizeof(struct am_entry) + sizeof(struct am_user))

/* A live block of AM_SIZE_BIG bytes or more (rare: a handful at a time). */
struct am_big {
	uint64_t addr, size;
};

struct addrmap {
	struct am_entry *slots; /* n slots of `stride` bytes: am_at */
	size_t stride;      /* an am_entry, and an am_user for more threads */
	size_t n;           /* slots: any number, grown by a quarter at a time */
	size_t limit;       /* entries that make the table grow (see addrmap.c) */
	size_t used, live;  /* entries in use (dead ones too), and the live ones */
	size_t peak_live;   /* the most live at once */
	struct am_big *big;
	size_t nbig, big_cap;
};

/* threads: the trace's; one needs no am_user. */
int am_init(struct addrmap *m, size_t threads);
void am_free(struct addrmap *m);

/* Fibonacci hashing of the address without its alignment bits, scaled to
 * the table's size by a multiply (no power of two needed, so the table can
 * grow by a quarter). */
static inline size_t am_slot(const struct addrmap *m, uint64_t addr)
{
	uint64_t h = (addr >> 4) * 0x9e3779b97f4a7c15ull;
	return (size_t)(((unsigned __int128)h * m->n) >> 64);
}

/* Whether slots of `stride` bytes hold an am_user after their entry. */
static inline int am_users(size_t stride)
{
	return stride > AM_STRIDE_ONE;
}

static inline int am_has_users(const struct addrmap *m)
{
	return am_users(m->stride);
}

/* Slot i's entry; stride is m's. */
static inline struct am_entry *am_at_as(const struct addrmap *m, size_t i, size_t stride)
{
	return (struct am_entry *)((char *)m->slots + i * stride);
}

static inline struct am_entry *am_at(const struct addrmap *m, size_t i)
{
	return am_at_as(m, i, m->stride);
}

/* A cache line's bytes, on every x86-64 and most other cores. */
#define AM_LINE 64

/* Starts loading the two lines a probe for addr mostly touches: its home
 * slot's line and the next, which holds the rest of a 24-byte slot that
 * straddles and the slots a longer probe passes on to (on the corpus's
 * interpreters a probe past the home line is common, past the next one
 * rare: docs/BENCHMARKS.md, ninth round).  The empty asm uses the slot:
 * without it gcc 12 -O2 dropped both prefetches as dead code (objdump:
 * none left in the loop). */
static inline void am_prefetch_as(const struct addrmap *m, uint64_t addr, size_t stride)
{
	const char *p = (const char *)am_at_as(m, am_slot(m, addr), stride);
	__builtin_prefetch(p);
	__builtin_prefetch(p + AM_LINE);
	__asm__("" : : "r"(p));
}

/* The source thread that used e's block last (live) or freed it (dead). */
static inline uint32_t am_owner_as(const struct am_entry *e, size_t stride)
{
	return am_users(stride) ? (uint32_t)((const struct am_user *)(e + 1))->owner : 0;
}

static inline uint32_t am_owner(const struct addrmap *m, const struct am_entry *e)
{
	return am_owner_as(e, m->stride);
}

/* The owner's stream length just after its last use of e's live block. */
static inline uint64_t am_pos(const struct addrmap *m, const struct am_entry *e)
{
	return am_has_users(m) ? ((const struct am_user *)(e + 1))->pos : 0;
}

/* e's block was used last by thread owner, whose stream then had pos ops. */
static inline void am_use_as(struct am_entry *e, uint32_t owner, uint64_t pos, size_t stride)
{
	if (am_users(stride))
		*(struct am_user *)(e + 1) = (struct am_user){ .owner = owner, .pos = pos };
}

/* The entry for addr, or NULL. */
static inline struct am_entry *am_find_as(const struct addrmap *m, uint64_t addr, size_t stride)
{
	for (size_t i = am_slot(m, addr);;) {
		struct am_entry *e = am_at_as(m, i, stride);
		if (e->addr == addr)
			return e;
		if (!e->addr)
			return NULL;
		if (++i == m->n)
			i = 0;
	}
}

static inline struct am_entry *am_find(const struct addrmap *m, uint64_t addr)
{
	return am_find_as(m, addr, m->stride);
}

/* am_get's insertion when the table is full: the dead entries are swept
 * out, and the table grows if the rest still fill it; out of line. */
struct am_entry *am_add(struct addrmap *m, uint64_t addr);

/* Whether e is dead: a freed block's, no thread waiting for its address. */
static inline int am_dead(const struct am_entry *e)
{
	return !e->live && !e->wanted;
}

/* The entry for addr, added (neither live nor wanted) if missing; NULL when
 * out of memory.  May move entries: earlier pointers are invalid afterwards.
 * One probe either way: a dead entry of addr is taken as it is, and a miss
 * takes the first dead entry it passed (what the sweeps cost then falls
 * with what is left to sweep), else the empty slot it ended on. */
static inline struct am_entry *am_get_as(struct addrmap *m, uint64_t addr, size_t stride)
{
	struct am_entry *e, *dead = NULL;
	for (size_t i = am_slot(m, addr);;) {
		e = am_at_as(m, i, stride);
		if (e->addr == addr)
			return e;
		if (!e->addr)
			break;
		if (!dead && am_dead(e))
			dead = e;
		if (++i == m->n)
			i = 0;
	}
	if (dead) {
		*dead = (struct am_entry){ .addr = addr };
		return dead;
	}
	if (m->used >= m->limit)
		return am_add(m, addr);
	e->addr = addr;
	m->used++;
	return e;
}

static inline struct am_entry *am_get(struct addrmap *m, uint64_t addr)
{
	return am_get_as(m, addr, m->stride);
}

/* e's block is now live: it holds size bytes, is object obj, and was
 * allocated by thread owner, whose stream then had pos ops.  No thread
 * waits for it any more.  -1 when out of memory.  The entry is written
 * whole, as two words: setting its bit-fields one by one stored bytes
 * that the next field's wider load then waited for (store forwarding
 * fails on a partial overlap): 17% of the loop's perf samples on CPython,
 * with the am_user fields then in the entry. */
int am_add_big(struct addrmap *m, uint64_t addr, uint64_t size);
static inline int am_set_live_as(struct addrmap *m, struct am_entry *e, uint64_t size,
				 uint64_t obj, uint32_t owner, uint64_t pos, size_t stride)
{
	if (size >= AM_SIZE_BIG && am_add_big(m, e->addr, size) < 0)
		return -1;
	*e = (struct am_entry){
		.addr = e->addr,
		.obj = obj,
		.size = size < AM_SIZE_BIG ? size : AM_SIZE_BIG,
		.live = 1,
	};
	am_use_as(e, owner, pos, stride);
	if (++m->live > m->peak_live)
		m->peak_live = m->live;
	return 0;
}

/* The requested size of e's live block. */
uint64_t am_big_size(const struct addrmap *m, uint64_t addr);
static inline uint64_t am_size(const struct addrmap *m, const struct am_entry *e)
{
	return e->size == AM_SIZE_BIG ? am_big_size(m, e->addr) : e->size;
}

/* e's block stops being live; its entry stays, dead (or wanted). */
void am_unset_big(struct addrmap *m, uint64_t addr);
static inline void am_unset_live(struct addrmap *m, struct am_entry *e)
{
	if (e->size == AM_SIZE_BIG)
		am_unset_big(m, e->addr);
	e->live = 0;
	m->live--;
}

/* e's live block is freed by source thread `by` at its record recno: the
 * entry stays, dead, and says so (a record number past AM_MAX_OBJECTS is
 * not kept: a second free is then reported as of an unknown block).
 * Returns the block's requested size.  The entry is written whole, as
 * am_set_live's is. */
static inline uint64_t am_release_as(struct addrmap *m, struct am_entry *e, uint32_t by,
				     uint64_t recno, size_t stride)
{
	uint64_t size = am_size(m, e);
	if (e->size == AM_SIZE_BIG)
		am_unset_big(m, e->addr);
	*e = (struct am_entry){
		.addr = e->addr,
		.obj = recno,
		.size = recno <= AM_MAX_OBJECTS,
	};
	am_use_as(e, by, 0, stride);
	m->live--;
	return size;
}

/* Whether e is dead where a free left it (am_release). */
static inline int am_freed_here(const struct am_entry *e)
{
	return am_dead(e) && e->size;
}

#endif
