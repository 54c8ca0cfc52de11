/*
 * addrmap.c - open-addressing hash from address to block (see addrmap.h).
 *
 * Linear probing over 32-byte slots; no deletion, so no tombstones: an entry
 * only moves between live and freed, and freed ones are shed at resizes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "addrmap.h"

#define MIN_SLOTS 4096

/* Tables come straight from mmap: they are large and resized now and then,
 * and malloc would keep the freed ones in its heap, so the converter's RSS
 * would creep with the trace's length instead of following the live set.
 * Fresh anonymous pages are also already zero. */
static int alloc_slots(struct addrmap *m, size_t n)
{
	void *p = mmap(NULL, n * sizeof *m->slots, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	m->slots = p;
	m->mask = n - 1;
	m->used = m->live = 0;
	return 0;
}

static void free_slots(struct am_entry *slots, size_t n)
{
	munmap(slots, n * sizeof *slots);
}

int am_init(struct addrmap *m)
{
	return alloc_slots(m, MIN_SLOTS);
}

void am_free(struct addrmap *m)
{
	if (m->slots)
		free_slots(m->slots, m->mask + 1);
	m->slots = NULL;
	free(m->scratch);
	m->scratch = NULL;
}

static struct am_entry *slot_for(struct addrmap *m, uint64_t addr)
{
	size_t i = am_slot(m, addr);
	while (m->slots[i].addr && m->slots[i].addr != addr)
		i = (i + 1) & m->mask;
	return &m->slots[i];
}

static void put_back(struct addrmap *m, const struct am_entry *e)
{
	*slot_for(m, e->addr) = *e;
	m->used++;
	m->live += e->state == AM_LIVE;
}

/*
 * Called when half the slots are used: rebuilds at four slots per live entry
 * (or more, for the addresses threads wait for).  Freed entries stay while
 * they fit in a quarter of it - double-free reports need recent history, not
 * all - else only live and wanted ones do.  A table of the same size is
 * rebuilt where it is, through scratch space: a program with a steady live
 * set that keeps using new addresses comes here often, and a fresh mapping
 * each time cost a page fault per 4 KiB.
 */
static int resize(struct addrmap *m)
{
	size_t n = m->mask + 1, keep = 0, cap = MIN_SLOTS;
	for (size_t i = 0; i < n; i++)
		keep += m->slots[i].state == AM_LIVE || m->slots[i].wanted;
	while (cap < 4 * keep)
		cap *= 2;
	/* Only where cap > n (half of n are used), so the rebuild in place keeps
	 * live and wanted entries alone. */
	int keep_freed = 4 * m->used <= cap;
	if (cap != n) {
		struct am_entry *old = m->slots;
		if (alloc_slots(m, cap) < 0)
			return -1; /* m is untouched */
		for (size_t i = 0; i < n; i++)
			if (old[i].addr && (keep_freed || old[i].state == AM_LIVE || old[i].wanted))
				put_back(m, &old[i]);
		free_slots(old, n);
		return 0;
	}
	if (keep > m->scratch_cap) {
		struct am_entry *s = realloc(m->scratch, keep * sizeof *s);
		if (!s)
			return -1;
		m->scratch = s;
		m->scratch_cap = keep;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (m->slots[i].state == AM_LIVE || m->slots[i].wanted)
			m->scratch[k++] = m->slots[i];
	memset(m->slots, 0, n * sizeof *m->slots);
	m->used = m->live = 0;
	for (size_t i = 0; i < k; i++)
		put_back(m, &m->scratch[i]);
	return 0;
}

struct am_entry *am_add(struct addrmap *m, uint64_t addr)
{
	if (2 * (m->used + 1) > m->mask + 1 && resize(m) < 0) /* load <= 1/2 */
		return NULL;
	struct am_entry *e = slot_for(m, addr);
	*e = (struct am_entry){ .addr = addr };
	m->used++;
	return e;
}

