/*
 * rec_hot.c - the words every wrapper reads on every call, in one cache
 * line.
 *
 * The gate of every wrapper reads the derived markers' semaphore, the
 * recorder's epoch and its glibc-events mask; the record makers read the
 * next allocator's kind, the stamp rule's word and the region table's
 * address (recorder.h, rec_regions.h).  Defined
 * each in its own file they sat in four lines of .data, .probes and .bss,
 * and in a program whose own data pushes ours out of the cache between
 * two calls (cc1plus) each was a line to fetch again.  Here they are one
 * line, in .probes: the semaphore must stay in that section (tracers look
 * for semaphores there), so the others join it.
 *
 * The names the rest of the code uses (mt_glibc_sem, mt_rec_epoch, ...)
 * are assembler aliases of their words, as the markers' semaphores are of
 * mt_glibc_sem: each is declared with its own type where it is used, and
 * no code reads the struct itself, so the compiler sees no two names for
 * one object.
 */
#include "config.h"

#include <stddef.h>

#include "glibc_events.h"
#include "next_alloc.h"
#include "rec_regions.h"
#include "recorder.h"

struct mt_hot_words {
	volatile unsigned short glibc_sem; /* mt_glibc_sem */
	unsigned rec_epoch;                /* mt_rec_epoch */
	unsigned rec_glibc_mask;           /* mt_rec_glibc_mask */
	unsigned stamp_dense;              /* mt_stamp_dense */
	enum mt_allocator next_kind;       /* mt_next_kind */
	uint16_t *region_owner;            /* mt_region_owner */
	uint64_t region_mask;              /* mt_region_mask */
};

__attribute__((section(".probes"), aligned(64), used, visibility("hidden")))
struct mt_hot_words mt_hot_words = {
	.rec_epoch = MT_EPOCH_UNDECIDED,
	.next_kind = MT_ALLOC_UNKNOWN,
	.region_owner = &mt_region_none,
};

/* The aliases' offsets, written out below. */
_Static_assert(offsetof(struct mt_hot_words, glibc_sem) == 0, "mt_glibc_sem's offset");
_Static_assert(offsetof(struct mt_hot_words, rec_epoch) == 4, "mt_rec_epoch's offset");
_Static_assert(offsetof(struct mt_hot_words, rec_glibc_mask) == 8, "mt_rec_glibc_mask's offset");
_Static_assert(offsetof(struct mt_hot_words, stamp_dense) == 12, "mt_stamp_dense's offset");
_Static_assert(offsetof(struct mt_hot_words, next_kind) == 16, "mt_next_kind's offset");
_Static_assert(offsetof(struct mt_hot_words, region_owner) == 24, "mt_region_owner's offset");
_Static_assert(offsetof(struct mt_hot_words, region_mask) == 32, "mt_region_mask's offset");
_Static_assert(sizeof(struct mt_hot_words) <= 64, "the hot words fit one cache line");

#define HOT_ALIAS(name, offset)                \
	__asm__(".globl " #name "\n"           \
		".hidden " #name "\n"          \
		".set " #name ", mt_hot_words + " #offset "\n")

HOT_ALIAS(mt_glibc_sem, 0);
HOT_ALIAS(mt_rec_epoch, 4);
HOT_ALIAS(mt_rec_glibc_mask, 8);
HOT_ALIAS(mt_stamp_dense, 12);
HOT_ALIAS(mt_next_kind, 16);
HOT_ALIAS(mt_region_owner, 24);
HOT_ALIAS(mt_region_mask, 32);

/* The derived markers' semaphores (glibc_events.h): here, where the word
 * they alias is defined, as an assembler alias cannot name a symbol of
 * another file. */
#define SEMAPHORE_ALIAS(name) HOT_ALIAS(mtrace_##name##_semaphore, 0);
MT_GLIBC_SEMAPHORES(SEMAPHORE_ALIAS)
