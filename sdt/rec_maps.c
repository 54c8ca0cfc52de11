/*
 * rec_maps.c - see rec_maps.h.
 *
 * The reservation is PROT_NONE, anonymous and MAP_NORESERVE: address space
 * only, no memory.  A window is mapped over its part with MAP_FIXED, which
 * is safe there because nothing but this file maps into the reservation,
 * and no part holds two windows at once: within a file every offset is
 * claimed once, and each file's windows go past the highest place any
 * earlier file's used (base_of), so a window still mapped from the last
 * file is never mapped over.  Given up, a window's part becomes
 * PROT_NONE again, by an mmap over it, which like munmap flushes the TLB
 * once for the whole range it covers.  Where a fixed mapping fails, the
 * part may be left a hole that someone else's mmap could take, so the
 * reservation is given up for good then: nothing is mapped with MAP_FIXED
 * into it again.
 *
 * Cost: per window mapped, one mmap; per MT_MAPS_BATCH given up, a sort
 * of 16 and one mmap for each run of windows that touch.
 */
#include "config.h"

#include <sys/mman.h>

#include "rec_maps.h"

enum { RESERVE_FLAGS = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE };
#define RESERVATION (64ull << 30) /* 64 GiB of trace; past it, as before */

static uint8_t *area;           /* the reservation, NULL before the first window */
static int area_failed;         /* none could be made, or a fixed mapping failed */
static uint64_t used_to;        /* the highest end of a window mapped into it */
static unsigned file_serial;    /* the file whose windows map at file_base + off */
static uint64_t file_base;

struct given_up {
	uint8_t *base;
	uint32_t size;
};

static struct given_up pending[MT_MAPS_BATCH];
static unsigned npending;

static int in_area(const uint8_t *p)
{
	return area && p >= area && p < area + RESERVATION;
}

/* Where f's offset 0 lies in the reservation: past every earlier file's
 * windows, on a fresh 2 MiB boundary. */
static uint64_t base_of(const struct mt_file *f)
{
	if (f->serial != file_serial) {
		file_serial = f->serial;
		file_base = (used_to + (2u << 20) - 1) & ~(uint64_t)((2u << 20) - 1);
	}
	return file_base;
}

uint8_t *mt_maps_window(const struct mt_file *f, uint64_t off, uint32_t size)
{
	if (!area && !area_failed) {
		void *a = mmap(NULL, RESERVATION, PROT_NONE, RESERVE_FLAGS, -1, 0);
		area = a == MAP_FAILED ? NULL : a;
		area_failed = !area;
	}
	if (area && !area_failed) {
		uint64_t at = base_of(f) + off;
		if (at + size <= RESERVATION) {
			void *m = mmap(area + at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
				       f->fd.fd, (off_t)off);
			if (m != MAP_FAILED) {
				used_to = at + size > used_to ? at + size : used_to;
				return m;
			}
			area_failed = 1; /* the part may be a hole now */
		}
	}
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd.fd, (off_t)off);
}

/* By address; an insertion sort of at most MT_MAPS_BATCH (qsort may call
 * malloc, which here is ourselves, under the recorder lock). */
static void sort_pending(void)
{
	for (unsigned i = 1; i < npending; i++) {
		struct given_up g = pending[i];
		unsigned j = i;
		for (; j && pending[j - 1].base > g.base; j--)
			pending[j] = pending[j - 1];
		pending[j] = g;
	}
}

/* Puts [base, base+len) of the reservation back; unmaps it where it cannot. */
static void put_back(uint8_t *base, size_t len)
{
	if (area_failed || mmap(base, len, PROT_NONE, RESERVE_FLAGS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		area_failed = 1;
		munmap(base, len);
	}
}

void mt_maps_flush(void)
{
	sort_pending();
	for (unsigned i = 0; i < npending;) {
		uint8_t *from = pending[i].base, *to = from + pending[i].size;
		for (i++; i < npending && pending[i].base == to; i++)
			to += pending[i].size;
		put_back(from, (size_t)(to - from));
	}
	npending = 0;
}

void mt_maps_unmap(uint8_t *base, uint32_t size)
{
	if (!in_area(base)) {
		munmap(base, size);
		return;
	}
	pending[npending++] = (struct given_up){ base, size };
	if (npending == MT_MAPS_BATCH)
		mt_maps_flush();
}
