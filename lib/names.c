/*
 * names.c - the names the tools print for calls, allocator events and the
 * reasons a recording stopped early, and the one JSON string writer their
 * --json output shares.
 *
 * Kept in one table so that mtrace-dump, trace2wl and the diagnostics all
 * spell a call the same way, and the way a C programmer would type it.
 */
#include <inttypes.h>

#include "trace.h"

static const char *const call_names[MT_CALL_COUNT] = {
	[MT_CALL_NONE] = "none",
	[MT_CALL_MALLOC] = "malloc",
	[MT_CALL_FREE] = "free",
	[MT_CALL_CALLOC] = "calloc",
	[MT_CALL_REALLOC] = "realloc",
	[MT_CALL_REALLOCARRAY] = "reallocarray",
	[MT_CALL_MEMALIGN] = "memalign",
	[MT_CALL_POSIX_MEMALIGN] = "posix_memalign",
	[MT_CALL_ALIGNED_ALLOC] = "aligned_alloc",
	[MT_CALL_VALLOC] = "valloc",
	[MT_CALL_PVALLOC] = "pvalloc",
	[MT_CALL_FREE_SIZED] = "free_sized",
	[MT_CALL_FREE_ALIGNED_SIZED] = "free_aligned_sized",
	[MT_CALL_EVENT] = "event",
};

/* glibc's own probe names, so a user can look them up in its manual. */
static const char *const event_names[] = {
	[MT_EV_SBRK_MORE] = "memory_sbrk_more",
	[MT_EV_SBRK_LESS] = "memory_sbrk_less",
	[MT_EV_ARENA_NEW] = "memory_arena_new",
	[MT_EV_ARENA_REUSE] = "memory_arena_reuse",
	[MT_EV_HEAP_NEW] = "memory_heap_new",
	[MT_EV_HEAP_MORE] = "memory_heap_more",
	[MT_EV_HEAP_LESS] = "memory_heap_less",
	[MT_EV_HEAP_FREE] = "memory_heap_free",
	[MT_EV_MALLOPT] = "memory_mallopt",
	[MT_EV_DYN_THRESHOLDS] = "memory_mallopt_free_dyn_thresholds",
};

static const char *const stop_reason_names[MT_STOP_REASONS] = {
	[MT_STOP_NONE] = "not stopped",
	[MT_STOP_FSIZE] = "file size limit",
	[MT_STOP_DISK_FULL] = "disk full",
	[MT_STOP_QUOTA] = "disk quota exceeded",
	[MT_STOP_IO] = "the file could not grow",
	[MT_STOP_MAP] = "a window could not be mapped",
	[MT_STOP_CUT] = "the file was cut short by another process",
};

const char *mt_call_name(unsigned call)
{
	return call < MT_CALL_COUNT ? call_names[call] : "unknown";
}

const char *mt_event_name(unsigned event)
{
	size_t n = sizeof event_names / sizeof event_names[0];
	return event < n && event_names[event] ? event_names[event] : "unknown_event";
}

const char *mt_stop_reason_name(uint32_t reason)
{
	return reason < MT_STOP_REASONS ? stop_reason_names[reason] : "unknown reason";
}

void mt_json_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}

void mt_json_stop(FILE *out, uint32_t reason, uint64_t records)
{
	if (!reason) {
		fputs(",\"stopped_early\":null", out);
		return;
	}
	fputs(",\"stopped_early\":{\"reason\":", out);
	mt_json_string(out, mt_stop_reason_name(reason));
	fprintf(out, ",\"code\":%" PRIu32 ",\"calls\":%" PRIu64 "}", reason, records);
}

const char *mt_allocator_name(const struct mt_trace_info *in)
{
	static const char *const names[] = {
		[MT_ALLOC_UNKNOWN] = "unknown", [MT_ALLOC_GLIBC] = "glibc",
		[MT_ALLOC_JEMALLOC] = "jemalloc", [MT_ALLOC_TCMALLOC] = "tcmalloc",
		[MT_ALLOC_MIMALLOC] = "mimalloc", [MT_ALLOC_OTHER] = "other",
	};
	if (in->allocator_name[0])
		return in->allocator_name;
	return in->allocator <= MT_ALLOC_OTHER ? names[in->allocator] : "unknown";
}
