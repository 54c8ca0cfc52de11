/*
 * addrmap.c - open-addressing hash from address to block (see addrmap.h).
 *
 * Linear probing over 32-byte slots; no deletion, so no tombstones: an entry
 * only moves between live and freed, and freed ones are shed at resizes.
 */
#include "config.h"

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
}

static struct am_entry *slot_for(struct addrmap *m, uint64_t addr)
{
	size_t i = am_slot(m, addr);
	while (m->slots[i].addr && m->slots[i].addr != addr)
		i = (i + 1) & m->mask;
	return &m->slots[i];
}

/* Rebuilds at a size fit for the live entries, keeping freed ones only while
 * they are the minority: double-free reports need recent history, not all.
 * Addresses a thread waits for are kept whatever their state. */
static int resize(struct addrmap *m)
{
	struct am_entry *old = m->slots;
	size_t n = m->mask + 1, keep_freed = m->used - m->live <= m->live;
	size_t want = keep_freed ? m->used : m->live, cap = MIN_SLOTS;
	while (cap < 4 * want)
		cap *= 2;
	if (alloc_slots(m, cap) < 0)
		return -1; /* m is untouched */
	for (size_t i = 0; i < n; i++) {
		if (!old[i].addr || (old[i].state != AM_LIVE && !old[i].wanted && !keep_freed))
			continue;
		*slot_for(m, old[i].addr) = old[i];
		m->used++;
		m->live += old[i].state == AM_LIVE;
	}
	free_slots(old, n);
	return 0;
}

struct am_entry *am_get(struct addrmap *m, uint64_t addr)
{
	struct am_entry *e = am_find(m, addr);
	if (e)
		return e;
	if (2 * (m->used + 1) > m->mask + 1 && resize(m) < 0) /* load <= 1/2 */
		return NULL;
	e = slot_for(m, addr);
	*e = (struct am_entry){ .addr = addr };
	m->used++;
	return e;
}

void am_set_live(struct addrmap *m, struct am_entry *e)
{
	m->live += e->state != AM_LIVE;
	e->state = AM_LIVE;
}

void am_set_freed(struct addrmap *m, struct am_entry *e)
{
	m->live -= e->state == AM_LIVE;
	e->state = AM_FREED;
}
