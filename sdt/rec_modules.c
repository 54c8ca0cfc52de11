/*
 * rec_modules.c - see rec_modules.h.
 *
 * Cost: one dl_iterate_phdr call that stops at the first object when
 * nothing changed, and only when a stack not yet in the table is written.
 */
#include "config.h"

#include <elf.h>
#include <link.h>
#include <string.h>

#include "rec_modules.h"
#include "rec_table.h"
#include "trace.h"

#define BUILD_ID_MAX 64
#define PATH_MAX_BYTES 4096

struct scan {
	int locked;          /* the table lock is held (taken at the first object) */
	int failed;          /* an entry could not be written */
	unsigned serial;     /* file the map went to */
};

static unsigned long long known_adds, known_subs;
static uint32_t generation;
/* One entry at a time, under the table lock. */
static uint8_t entry[1 + 5 * MT_VARINT_MAX + BUILD_ID_MAX + PATH_MAX_BYTES];

/* The GNU build-id note of a loaded object, from its mapped PT_NOTEs. */
static size_t build_id(const struct dl_phdr_info *info, const uint8_t **id)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const uint8_t *name = p + sizeof *n;
			const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && n->n_descsz <= BUILD_ID_MAX &&
			    desc + n->n_descsz <= end) {
				*id = desc;
				return n->n_descsz;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static void put(struct scan *s, size_t len)
{
	unsigned serial = mt_table_put(entry, len);
	if (!serial || (s->serial && serial != s->serial))
		s->failed = 1;
	s->serial = serial;
}

void mt_module_span(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
	*lo = UINTPTR_MAX;
	*hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < *lo)
			*lo = a;
		if (a + ph->p_memsz > *hi)
			*hi = a + ph->p_memsz;
	}
}

static void put_module(struct scan *s, const struct dl_phdr_info *info)
{
	uintptr_t lo, hi;
	mt_module_span(info, &lo, &hi);
	if (hi <= lo)
		return;
	const uint8_t *id = NULL;
	size_t idlen = build_id(info, &id);
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	size_t pathlen = strnlen(path, PATH_MAX_BYTES);
	uint8_t *p = entry;
	*p++ = MT_TE_MODULE;
	p += mt_varint_put(p, info->dlpi_addr);
	p += mt_varint_put(p, lo);
	p += mt_varint_put(p, hi - lo);
	p += mt_varint_put(p, idlen);
	memcpy(p, id, idlen);
	p += idlen;
	p += mt_varint_put(p, pathlen);
	memcpy(p, path, pathlen);
	p += pathlen;
	put(s, (size_t)(p - entry));
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct scan *s = arg;
	if (!s->locked) {
		mt_table_lock();
		s->locked = 1;
		if (mt_table_has_modules() && info->dlpi_adds == known_adds &&
		    info->dlpi_subs == known_subs)
			return 1;
		known_adds = info->dlpi_adds;
		known_subs = info->dlpi_subs;
		entry[0] = MT_TE_MODULES;
		put(s, 1 + mt_varint_put(entry + 1, ++generation));
	}
	if (!s->failed)
		put_module(s, info);
	return s->failed;
}

void mt_modules_check_and_lock(void)
{
	struct scan s = { 0 };
	dl_iterate_phdr(scan_object, &s);
	if (!s.locked)
		mt_table_lock();
	else if (s.serial && !s.failed)
		mt_table_set_modules();
	else if (s.failed)
		known_adds = known_subs = 0; /* try again with the next new stack */
}
