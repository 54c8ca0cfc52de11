/*
 * rec_table.c - see rec_table.h.
 *
 * Entries are rare (one per distinct stack, and the module map after a
 * dlopen or dlclose), so one lock serialises them; the per-call path never
 * comes here once its stack is known.  Windows are never closed: a reader
 * takes a table window's entries up to the first zero head byte, and the
 * head byte is stored last, so an entry is whole or invisible even if the
 * process is killed while writing it.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "rec_table.h"
#include "recorder.h"
#include "trace.h"

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *window;         /* mapped table window, NULL when none */
static uint32_t window_size;    /* its size: less than MT_TABLE_WINDOW_SIZE near a file-size limit */
static size_t used;             /* bytes of it taken, header included */
static unsigned window_serial;  /* file the window belongs to */
static uint32_t window_seq;
static int has_modules;         /* the window's file has a module map */

void mt_table_lock(void) { pthread_mutex_lock(&table_lock); }
void mt_table_unlock(void) { pthread_mutex_unlock(&table_lock); }
int mt_table_has_modules(void) { return has_modules && window_serial == mt_table_current_serial(); }
void mt_table_set_modules(void) { has_modules = 1; }

void mt_table_after_fork(void)
{
	pthread_mutex_init(&table_lock, NULL);
}

int mt_table_window_holding(const void *addr, uint8_t **base, uint32_t *size)
{
	uint8_t *b = window;
	uint32_t n = window_size;
	if (!b || (const uint8_t *)addr < b || (const uint8_t *)addr >= b + n)
		return 0;
	*base = b;
	*size = n;
	return 1;
}

/* A fresh window in the current file; 0 or -1. */
static int claim(void)
{
	unsigned serial = mt_table_current_serial();
	if (window)
		munmap(window, window_size);
	if (serial != window_serial) {
		window_seq = 0;
		has_modules = 0;
	}
	window_size = MT_TABLE_WINDOW_SIZE;
	window = mt_record_table_window(serial, &window_size);
	if (!window)
		return -1;
	struct mt_window_info w = { .seq = window_seq++, .size = window_size };
	mt_window_header_encode(window, &w);
	memcpy(window + MT_WH_MAGIC, MT_TABLE_MAGIC, 4);
	used = MT_WINDOW_HEADER_SIZE;
	window_serial = serial;
	return 0;
}

unsigned mt_table_put(uint8_t *entry, size_t len)
{
	if (len > MT_TABLE_WINDOW_SIZE - MT_WINDOW_HEADER_SIZE)
		return 0;
	if ((!window || window_serial != mt_table_current_serial() ||
	     used + len > window_size) && claim())
		return 0;
	if (entry[0] == MT_TE_STACK && !has_modules)
		return 0;
	memcpy(window + used + 1, entry + 1, len - 1);
	__atomic_store_n(window + used, entry[0], __ATOMIC_RELEASE);
	used += len;
	return window_serial;
}
