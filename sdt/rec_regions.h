/*
 * rec_regions.h - which thread has had each 4 MiB region of the address
 * space to itself, for the stamp rule of a process where more than one
 * thread records (recorder.h, mt_record_stamped).
 *
 * One 16-bit entry a region: 0 while no recorded call of any thread has
 * passed in or returned a block there; a thread's region token
 * (mt_tls.region_token) once that thread's had; MT_REGION_SHARED, for
 * good, once a second thread's has.  A thread that finds its own token
 * knows that every recorded call on the region's blocks so far was its
 * own: its call depends on no other thread's record through the block.
 * An entry only ever goes 0 -> token -> SHARED (a claim that loses shows
 * its thread's token for a moment before it stores SHARED: only that
 * thread could mistake it, and it reads nothing in between), never back
 * to 0, and a thread writes it only when it changes, so the lines of the
 * table stay shared in every core's cache: a load a call, in the common
 * case.
 *
 * Why regions and not blocks: glibc gives each thread a heap of its own
 * (an arena: 64 MiB aligned heaps), so in a program whose threads keep
 * their blocks to themselves the regions do too, and a block table would
 * need an entry written at every call.
 *
 * The table covers the 47-bit user address space (2^25 entries, 64 MiB
 * reserved with MAP_NORESERVE: only the pages of regions in use are ever
 * touched, a page per 8 GiB of address space).  A region's number is
 * masked to the table's size, not checked: regions that share an entry
 * are one region to the rule, which can only make more of it shared.
 * Until the table is reserved, or where it cannot be, the mask is 0 and
 * the table one entry, shared: no thread is ever alone.
 */
#ifndef MT_REC_REGIONS_H
#define MT_REC_REGIONS_H

#include <stdint.h>

#include "visibility.h"

#define MT_REGION_SHIFT 22
#define MT_REGION_ENTRIES (UINT64_C(1) << (47 - MT_REGION_SHIFT))
#define MT_REGION_SHARED 0xffffu
/* The region token of a thread past the 65,533 that get one: never stored,
 * so such a thread is never alone in a region. */
#define MT_REGION_NOBODY 0xfffeu

/* The table and the mask of a region's number (hot words, rec_hot.c). */
MT_HIDDEN extern uint16_t *mt_region_owner;
MT_HIDDEN extern uint64_t mt_region_mask;
/* The one entry of the table before it is reserved. */
MT_HIDDEN extern uint16_t mt_region_none;

/* Reserves the table, once; called from the library's set-up. */
void mt_regions_reserve(void);

/* A region token for the thread given `token` (mt_tls.token, from 1). */
static inline uint16_t mt_region_token_of(uint32_t token)
{
	return token < MT_REGION_NOBODY ? (uint16_t)token : MT_REGION_NOBODY;
}

/*
 * The region of `block` was used by a recorded (or dropped) call of the
 * thread whose region token is `tok` (never 0 or MT_REGION_SHARED): 1 if
 * the thread had it to itself already, else 0 after marking it the
 * thread's (it was no one's) or shared.
 *
 * Cost: a shift, a mask, the entry's load and a compare (the table's
 * address and mask are on the hot words' line); an exchange the first
 * time a region is used, a store when it becomes shared.
 */
static inline __attribute__((always_inline)) int mt_region_alone(uint64_t block, unsigned tok)
{
	/* The mask first: it is stored after the address (rec_regions.c). */
	uint64_t mask = __atomic_load_n(&mt_region_mask, __ATOMIC_ACQUIRE);
	uint16_t *e = __atomic_load_n(&mt_region_owner, __ATOMIC_RELAXED) +
		      ((block >> MT_REGION_SHIFT) & mask);
	unsigned v = __atomic_load_n(e, __ATOMIC_RELAXED);
	if (__builtin_expect(v == tok, 1))
		return 1;
	if (v == MT_REGION_SHARED)
		return 0;
	/* A claim that finds the entry no longer 0 (another thread's claim,
	 * or shared), or an entry already another's, makes the region
	 * shared.  Between the exchange and that store the entry holds this
	 * thread's token: no other thread finds its own there. */
	if (v != 0 || tok == MT_REGION_NOBODY ||
	    __atomic_exchange_n(e, (uint16_t)tok, __ATOMIC_RELAXED) != 0)
		__atomic_store_n(e, (uint16_t)MT_REGION_SHARED, __ATOMIC_RELAXED);
	return 0;
}

#endif
