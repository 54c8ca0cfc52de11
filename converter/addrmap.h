/*
 * addrmap.h - what trace2wl knows about each address the trace handed out.
 *
 * A trace names blocks by address; a workload by object index.  This map
 * turns one into the other: for a live block its object, size and owner; for
 * a freed one who freed it, so a second free can be reported as a double
 * free; and for any address, whether a thread waits for it to be allocated.
 * Memory follows the number of live blocks, not the trace's length: freed
 * entries are dropped at a rebuild unless they fit a quarter of it.
 */
#ifndef TRACE2WL_ADDRMAP_H
#define TRACE2WL_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>

enum { AM_EMPTY = 0, AM_LIVE = 1, AM_FREED = 2 };

#define AM_MAX_THREADS (1u << 22)

/* 32 bytes, so a probe touches one cache line: the map is the converter's
 * main source of cache misses. */
struct am_entry {
	uint64_t addr;       /* 0: empty slot (NULL is never stored) */
	uint64_t obj;        /* live: object index; freed: tid that freed it */
	uint64_t size;       /* live: requested bytes; freed: record number of the free */
	uint64_t pos : 39;   /* live: owner's stream length just after its last use */
	uint64_t owner : 22; /* live: source thread that allocated or last used it */
	uint64_t state : 2;  /* AM_*; AM_EMPTY with an address: only wanted */
	uint64_t wanted : 1; /* a thread is held until this address is allocated */
};

struct addrmap {
	struct am_entry *slots;
	size_t mask;        /* slots - 1, a power of two minus one */
	size_t used, live;  /* entries in use, and of those the live ones */
	struct am_entry *scratch; /* for rebuilding in place */
	size_t scratch_cap;
};

int am_init(struct addrmap *m);
void am_free(struct addrmap *m);

static inline size_t am_slot(const struct addrmap *m, uint64_t addr)
{
	/* Fibonacci hashing of the address without its alignment bits. */
	return (size_t)(((addr >> 4) * 0x9e3779b97f4a7c15ull) >> 20) & m->mask;
}

/* Starts loading addr's first slot into the cache. */
static inline void am_prefetch(const struct addrmap *m, uint64_t addr)
{
	__builtin_prefetch(&m->slots[am_slot(m, addr)]);
}

/* The entry for addr, or NULL. */
static inline struct am_entry *am_find(const struct addrmap *m, uint64_t addr)
{
	for (size_t i = am_slot(m, addr);; i = (i + 1) & m->mask) {
		struct am_entry *e = &m->slots[i];
		if (e->addr == addr)
			return e;
		if (!e->addr)
			return NULL;
	}
}

/* am_get's insertion, out of line: addr is not in the map. */
struct am_entry *am_add(struct addrmap *m, uint64_t addr);

/* The entry for addr, added (state AM_EMPTY) if missing; NULL when out of
 * memory.  May move entries: earlier pointers are invalid afterwards.
 * Inline, as every allocation asks: most addresses are reused, so the find
 * usually answers and the call to insert is skipped. */
static inline struct am_entry *am_get(struct addrmap *m, uint64_t addr)
{
	struct am_entry *e = am_find(m, addr);
	return e ? e : am_add(m, addr);
}

/* State changes keep the live count right; inline, as every call makes one. */
static inline void am_set_live(struct addrmap *m, struct am_entry *e)
{
	m->live += e->state != AM_LIVE;
	e->state = AM_LIVE;
}

static inline void am_set_freed(struct addrmap *m, struct am_entry *e)
{
	m->live -= e->state == AM_LIVE;
	e->state = AM_FREED;
}

#endif
