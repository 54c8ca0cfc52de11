/*
 * report_map.h - mtrace-report's one hash table: fixed-size entries found
 * by a 64-bit key, for the live set (by address), the sites (by stack), and
 * the symboliser's caches (by address, by stack).  Open addressing with
 * linear probing, grown at half full, and backward-shift deletion, so the
 * live set stays as small as the blocks live.
 */
#ifndef MT_REPORT_MAP_H
#define MT_REPORT_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Every entry starts with its key; key 0 marks a free slot and is never
 * stored. */
struct u64map {
	uint8_t *slots;
	size_t cap, n;   /* cap a power of two, or 0 */
	size_t size;     /* bytes per entry */
};

void u64map_init(struct u64map *m, size_t entry_size);
void u64map_free(struct u64map *m);
/* The entry with this key, or NULL. */
void *u64map_find(const struct u64map *m, uint64_t key);
/* The entry with this key, added (zeroed but for the key) if absent, with
 * *added set; NULL when out of memory.  Pointers into the map are valid
 * only until the next add. */
void *u64map_add(struct u64map *m, uint64_t key, int *added);
void u64map_remove(struct u64map *m, void *entry);
/* Starts loading the slot where key's search begins into the cache, for a
 * caller that knows its next keys: a find in a table larger than the
 * caches is otherwise a wait on memory. */
void u64map_prefetch(const struct u64map *m, uint64_t key);
/* The i-th slot's entry, NULL when free: for walking every entry. */
void *u64map_slot(const struct u64map *m, size_t i);

#endif
