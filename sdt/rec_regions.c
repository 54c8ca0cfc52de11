/*
 * rec_regions.c - the region table's memory (rec_regions.h): reserved
 * once a process, never freed (a forked child keeps its copy: its one
 * thread's regions are still its own, the others' are marked as theirs
 * or shared, which only ever costs a stamp).
 */
#include "config.h"

#include <stddef.h>
#include <sys/mman.h>

#include "rec_regions.h"

/* mt_region_owner and mt_region_mask are hot words (rec_hot.c). */
uint16_t mt_region_none = MT_REGION_SHARED;

/* The address first, then the mask: a thread that reads the new mask
 * reads the new address (rec_regions.h); one that reads the old mask, 0,
 * reads either table's first entry. */
void mt_regions_reserve(void)
{
	if (mt_region_owner != &mt_region_none)
		return;
	void *m = mmap(NULL, MT_REGION_ENTRIES * sizeof *mt_region_owner, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return;
	__atomic_store_n(&mt_region_owner, (uint16_t *)m, __ATOMIC_RELEASE);
	__atomic_store_n(&mt_region_mask, MT_REGION_ENTRIES - 1, __ATOMIC_RELEASE);
}
