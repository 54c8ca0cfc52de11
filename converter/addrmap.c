/*
 * addrmap.c - open-addressing hash from address to block (see addrmap.h).
 *
 * Linear probing over slots of 16 bytes (an entry), or of 24 (an entry
 * and its am_user) when the trace has more than one thread: the bound's
 * 40 bytes a live block then buy 2.5 or 1.7 slots.  A free leaves its
 * entry in place, dead: shifting the entries behind it back at each free cost perl's
 * corpus trace 14% of trace2wl's time, and the address's next allocation,
 * often soon, finds the entry ready.  When the entries in use reach the
 * table's limit, one sweep takes the dead ones out (sweep below), and the
 * table grows if those left fill it past 7/8 of the limit (with too few
 * dead to stop that, it grows unswept: am_add).
 * Up to 16 MiB the limit is half the table: the fixed part of the
 * converter's memory bound covers that, and shorter clusters make probes
 * cheaper.  Past that it is 3/4.  Each growth
 * makes the table as large as 8 MiB + 40 bytes per entry left (at most
 * four times larger): those are live blocks (or the few addresses threads
 * wait for), so the table stays within 8 MiB + 40 B per
 * block live at the peak, and the other half of the bound's fixed 32 MiB
 * is left to the rest (perl's trace: 16-18 MiB of trace windows, stream
 * buffers and freed object numbers).  Large tables are then rehashed a
 * few times instead of at every quarter, and are less full (CPython's
 * 1.46 M live blocks, in 24-byte slots: 7 growths to 56 MiB instead of
 * 13 to 46 MiB; in 16-byte ones the table ends at 32 MiB).  It
 * grows in place: mremap extends the mapping without copying, and the
 * entries are rehashed where they are, so at no moment are two tables
 * resident.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "addrmap.h"

#define MIN_SLOTS 4096
#define DOUBLING_BYTES (16u << 20)
#define BYTES_PER_LIVE 40
#define GROWTH_SLACK (8u << 20)
#define MAX_GROWTH 4
#define HUGE_PAGE (2u << 20)
#define SWEEP_WORTH 64

/* Large tables are asked for in huge pages where the kernel offers them on
 * request: a probe is a random access, and a TLB miss on top of each cache
 * miss showed in the converter's time. */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

/* How full the table of n slots may get: half while it could still
 * double within DOUBLING_BYTES, then 3/4. */
static void set_limit(struct addrmap *m)
{
	m->limit = 2 * m->n * m->stride <= DOUBLING_BYTES ? m->n / 2 : m->n / 4 * 3;
}

/* The table comes straight from mmap, so that it can grow in place with
 * mremap; fresh anonymous pages are already zero (empty slots). */
int am_init(struct addrmap *m, size_t threads)
{
	*m = (struct addrmap){
		.n = MIN_SLOTS,
		.stride = threads > 1 ? AM_STRIDE_USERS : AM_STRIDE_ONE,
	};
	void *p = mmap(NULL, m->n * m->stride, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	m->slots = p;
	set_limit(m);
	return 0;
}

void am_free(struct addrmap *m)
{
	if (m->slots)
		munmap(m->slots, m->n * m->stride);
	m->slots = NULL;
	free(m->big);
	m->big = NULL;
}

static inline size_t next_slot(const struct addrmap *m, size_t i)
{
	return i + 1 == m->n ? 0 : i + 1;
}

/* A slot's bytes, held while it moves. */
struct slot_copy {
	struct am_entry e;
	struct am_user u;
};

/* Field by field: a memcpy of the stride was a call into libc a slot. */
static void copy_out(const struct addrmap *m, struct slot_copy *s, size_t i)
{
	const struct am_entry *e = am_at(m, i);
	s->e = *e;
	if (am_has_users(m))
		s->u = *(const struct am_user *)(e + 1);
}

static void copy_in(struct addrmap *m, size_t i, const struct slot_copy *s)
{
	struct am_entry *e = am_at(m, i);
	*e = s->e;
	if (am_has_users(m))
		*(struct am_user *)(e + 1) = s->u;
}

/* Puts s, not yet at its place after a growth, where it belongs: slots
 * already placed are passed over, one not yet placed is taken over and its
 * entry placed in turn.  A placed entry only ever passed over placed
 * (occupied, never emptied) slots, so every probe still finds it. */
static void place(struct addrmap *m, struct slot_copy s)
{
	for (;;) {
		size_t i = am_slot(m, s.e.addr);
		while (am_at(m, i)->addr && am_at(m, i)->moved)
			i = next_slot(m, i);
		struct slot_copy displaced;
		copy_out(m, &displaced, i);
		s.e.moved = 1;
		copy_in(m, i, &s);
		if (!displaced.e.addr)
			return;
		s = displaced;
	}
}

/* The slots of the next table: GROWTH_SLACK + BYTES_PER_LIVE bytes per
 * entry (live ones, or all in use after a sweep), at most MAX_GROWTH times as
 * many; m->n where that is no more. */
static size_t next_size(const struct addrmap *m, size_t entries)
{
	size_t n = m->n, allowed = (GROWTH_SLACK + BYTES_PER_LIVE * entries) / m->stride;
	if (allowed > MAX_GROWTH * n)
		allowed = MAX_GROWTH * n;
	return allowed > n ? allowed : n;
}

/*
 * The table's mapping, grown from n to bigger slots without copying: in
 * place where the addresses after it are free, else moved (mremap moves
 * the page tables, not the bytes) to a start on a huge page's boundary,
 * reserved first.  Huge pages need that alignment, and mremap's own
 * choice of address had none: on CPython's trace 16 of 46 MiB were huge
 * pages, the rest paid a TLB miss on top of each probe's cache miss.
 */
static void *remap_aligned(void *old, size_t bytes, size_t more)
{
	void *p = mremap(old, bytes, more, 0);
	if (p != MAP_FAILED)
		return p;
	size_t len = more + HUGE_PAGE;
	uint8_t *area = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		return mremap(old, bytes, more, MREMAP_MAYMOVE);
	uint8_t *start = (uint8_t *)(((uintptr_t)area + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	p = mremap(old, bytes, more, MREMAP_MAYMOVE | MREMAP_FIXED, start);
	if (p == MAP_FAILED) {
		munmap(area, len);
		return mremap(old, bytes, more, MREMAP_MAYMOVE);
	}
	/* The reservation's ends that the table does not cover go back. */
	if (start > area)
		munmap(area, (size_t)(start - area));
	uint8_t *end = start + more, *area_end = area + len;
	if (area_end > end)
		munmap(end, (size_t)(area_end - end));
	return p;
}



/* The old slots keep their entries and the new ones are zero, then each
 * entry is moved to its place for the new size, the last slot's first.
 * am_slot grows with the hash, so an entry's new place lies about
 * bigger/n times further along than its old one: taken from the end
 * down, the entries land in slots past every entry not yet moved (empty
 * ones: no entry to take over), and the reads and the writes are two
 * sweeps down the table.  From the start up, most places held an entry
 * not yet moved, which place() then carried further along, a cache miss
 * at each step. */
static int grow(struct addrmap *m, size_t bigger)
{
	size_t n = m->n;
	void *p = remap_aligned(m->slots, n * m->stride, bigger * m->stride);
	if (p == MAP_FAILED)
		return -1;
	m->slots = p;
	m->n = bigger;
	set_limit(m);
	advise_huge(p, bigger * m->stride);
	for (size_t i = n; i-- > 0;) {
		struct am_entry *e = am_at(m, i);
		if (e->addr && !e->moved) {
			struct slot_copy s;
			copy_out(m, &s, i);
			*e = (struct am_entry){ 0 };
			place(m, s);
		}
	}
	for (size_t i = 0; i < bigger; i++)
		am_at(m, i)->moved = 0;
	return 0;
}

/* Takes the dead entries out, and moves each entry left back to the
 * first slot from its home that is empty (or its own): one pass from an
 * empty slot (so that no cluster wraps around the pass's start) round the
 * table.  Each entry then stays or moves back, and every slot between
 * its home and it stays occupied: every probe still finds it. */
static void sweep(struct addrmap *m)
{
	size_t start = 0;
	while (am_at(m, start)->addr)
		start++;
	for (size_t i = next_slot(m, start); i != start; i = next_slot(m, i)) {
		struct am_entry *e = am_at(m, i);
		if (!e->addr)
			continue;
		if (am_dead(e)) {
			*e = (struct am_entry){ 0 };
			m->used--;
			continue;
		}
		size_t j = am_slot(m, e->addr);
		while (j != i && am_at(m, j)->addr)
			j = next_slot(m, j);
		if (j != i) {
			struct slot_copy s;
			copy_out(m, &s, i);
			copy_in(m, j, &s);
			*e = (struct am_entry){ 0 };
		}
	}
}

/* Sweeps first only where more than a SWEEP_WORTH-th of the limit is not
 * live (dead, or wanted), or where the table may not grow: else the
 * sweep could not stop the growth, and the few dead entries ride along
 * to the next sweep (perl's trace: 7 sweeps, 7 growths, one entry not
 * live at each).
 * Grows only where the entries left fill the table past 7/8 of its limit
 * (else the next sweep comes after an eighth of the limit's insertions
 * or more) and the bound allows more slots: where it does not, the sweep
 * left at least a fifth of the limit, as the bound allows 5/3 slots an
 * entry.  Growing sooner, at 3/4, made the table of t-conv-memory's 1 M
 * live blocks 2.0 M slots instead of 1.7 M, 8 MiB more. */
struct am_entry *am_add(struct addrmap *m, uint64_t addr)
{
	size_t bigger = next_size(m, m->live);
	if (m->used - m->live > m->limit / SWEEP_WORTH || bigger == m->n) {
		sweep(m);
		bigger = next_size(m, m->used);
	}
	if (m->used >= m->limit / 8 * 7 && bigger > m->n && grow(m, bigger) < 0)
		return NULL;
	return am_get(m, addr);
}

/* ---- sizes of 4 MiB and more ----
 * Few such blocks are live at once (each is 4 MiB of the program's
 * memory, a thousand of them 4 GiB), so a list searched from its end is
 * enough. */

static struct am_big *find_big(const struct addrmap *m, uint64_t addr)
{
	for (size_t i = m->nbig; i-- > 0;)
		if (m->big[i].addr == addr)
			return &m->big[i];
	return NULL;
}

uint64_t am_big_size(const struct addrmap *m, uint64_t addr)
{
	return find_big(m, addr)->size;
}

void am_unset_big(struct addrmap *m, uint64_t addr)
{
	struct am_big *b = find_big(m, addr);
	*b = m->big[--m->nbig];
}

int am_add_big(struct addrmap *m, uint64_t addr, uint64_t size)
{
	if (m->nbig == m->big_cap) {
		size_t cap = m->big_cap ? 2 * m->big_cap : 16;
		struct am_big *b = realloc(m->big, cap * sizeof *b);
		if (!b)
			return -1;
		m->big = b;
		m->big_cap = cap;
	}
	m->big[m->nbig++] = (struct am_big){ addr, size };
	return 0;
}
