/*
 * trace_header.c - the trace file header and window headers, to and from bytes.
 *
 * The recorder writes these headers from inside the traced program, possibly
 * while malloc itself is being interposed, so this file must never allocate
 * or call anything that might: only fixed-width stores into caller memory.
 * The reader uses the same code in reverse, so the two can never disagree
 * about where a field lives.
 */
#include <string.h>

#include "trace.h"

void mt_trace_header_encode(uint8_t page[MT_TRACE_HEADER_SIZE], const struct mt_trace_info *info)
{
	memset(page, 0, MT_TRACE_HEADER_SIZE);
	memcpy(page + MT_FH_MAGIC, MT_TRACE_MAGIC, 8);
	mt_put_le16(page + MT_FH_VERSION, MT_TRACE_VERSION);
	page[MT_FH_ENDIAN] = info->endian;
	page[MT_FH_PTR_SIZE] = info->ptr_size;
	page[MT_FH_TS_SOURCE] = info->ts_source;
	page[MT_FH_ALLOCATOR] = info->allocator;
	mt_put_le16(page + MT_FH_HEADER_SIZE, MT_TRACE_HEADER_SIZE);
	mt_put_le32(page + MT_FH_ALIGN, MT_TRACE_ALIGN);
	mt_put_le32(page + MT_FH_PID, info->pid);
	mt_put_le32(page + MT_FH_PPID, info->ppid);
	mt_put_le32(page + MT_FH_FLAGS, info->flags);
	mt_put_le64(page + MT_FH_START_REALTIME, info->start_realtime_ns);
	mt_put_le64(page + MT_FH_START_MONO, info->start_mono_ns);
	mt_put_le64(page + MT_FH_START_TS, info->start_ts);
	mt_put_le64(page + MT_FH_TS_FREQ, info->ts_freq);
	mt_put_le64(page + MT_FH_END_MONO, info->end_mono_ns);
	mt_put_le64(page + MT_FH_END_TS, info->end_ts);
	mt_put_le64(page + MT_FH_RECORDS, info->records);
	mt_put_le64(page + MT_FH_DROPPED, info->dropped);
	mt_put_le64(page + MT_FH_WINDOWS, info->windows);
	mt_put_le64(page + MT_FH_END_OFFSET, info->end_offset);
	mt_put_le32(page + MT_FH_STOP_REASON, info->stop_reason);
	mt_put_le64(page + MT_FH_STOP_RECORDS, info->stop_records);
	mt_put_le32(page + MT_FH_STACK_DEPTH, info->stack_depth);
	mt_put_le32(page + MT_FH_STAMP_EVERY, info->stamp_every);
	mt_put_le32(page + MT_FH_STAMP_TICK, info->stamp_tick_ns);
	mt_put_le64(page + MT_FH_HELPER_CPU, info->helper_cpu_ns);
	/* strnlen, not strlen: the name fields may be filled to the brim. */
	memcpy(page + MT_FH_ALLOCATOR_NAME, info->allocator_name,
	       strnlen(info->allocator_name, 32));
	memcpy(page + MT_FH_EXE, info->exe, strnlen(info->exe, MT_FH_EXE_MAX - 1));
}

/* Copies a NUL-padded field into a C string that is always terminated. */
static void get_name(char *dst, const uint8_t *src, size_t field)
{
	size_t n = strnlen((const char *)src, field);
	if (n == field)
		n = field - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

int mt_trace_header_decode(const uint8_t *p, size_t len, struct mt_trace_info *info,
			   const char *file, struct mt_error *e)
{
	if (len == 0)
		return mt_error_set(e, file, "empty file, not an mtrace trace");
	if (len < 8 || memcmp(p + MT_FH_MAGIC, MT_TRACE_MAGIC, 8) != 0)
		return mt_error_set(e, file, "not an mtrace trace (bad magic)");
	/* The version comes before the length check: a newer file may well
	 * have a different header size, and "too new" is the useful answer. */
	memset(info, 0, sizeof *info);
	info->version = len < MT_FH_VERSION + 2 ? 0 : mt_get_le16(p + MT_FH_VERSION);
	if (info->version > MT_TRACE_VERSION)
		return mt_error_set(e, file, "format version %u is newer than this reader (%d)",
				    info->version, MT_TRACE_VERSION);
	if (len < MT_TRACE_HEADER_SIZE)
		return mt_error_set(e, file, "truncated in the file header (%zu of %d bytes)", len,
				    MT_TRACE_HEADER_SIZE);
	if (info->version == 0)
		return mt_error_set(e, file, "corrupt file header (format version 0)");
	if (mt_get_le16(p + MT_FH_HEADER_SIZE) != MT_TRACE_HEADER_SIZE ||
	    mt_get_le32(p + MT_FH_ALIGN) != MT_TRACE_ALIGN)
		return mt_error_set(e, file, "corrupt file header (header size %u, alignment %u)",
				    mt_get_le16(p + MT_FH_HEADER_SIZE), mt_get_le32(p + MT_FH_ALIGN));

	info->endian = p[MT_FH_ENDIAN];
	info->ptr_size = p[MT_FH_PTR_SIZE];
	info->ts_source = p[MT_FH_TS_SOURCE];
	info->allocator = p[MT_FH_ALLOCATOR];
	if ((info->endian != 1 && info->endian != 2) ||
	    (info->ptr_size != 4 && info->ptr_size != 8))
		return mt_error_set(e, file, "corrupt file header (endian %u, pointer size %u)",
				    info->endian, info->ptr_size);
	if (info->ts_source != MT_TS_TSC && info->ts_source != MT_TS_MONOTONIC_NS)
		return mt_error_set(e, file, "corrupt file header (timestamp source %u)",
				    info->ts_source);

	info->pid = mt_get_le32(p + MT_FH_PID);
	info->ppid = mt_get_le32(p + MT_FH_PPID);
	info->flags = mt_get_le32(p + MT_FH_FLAGS);
	info->start_realtime_ns = mt_get_le64(p + MT_FH_START_REALTIME);
	info->start_mono_ns = mt_get_le64(p + MT_FH_START_MONO);
	info->start_ts = mt_get_le64(p + MT_FH_START_TS);
	info->ts_freq = mt_get_le64(p + MT_FH_TS_FREQ);
	info->end_mono_ns = mt_get_le64(p + MT_FH_END_MONO);
	info->end_ts = mt_get_le64(p + MT_FH_END_TS);
	info->records = mt_get_le64(p + MT_FH_RECORDS);
	info->dropped = mt_get_le64(p + MT_FH_DROPPED);
	info->windows = mt_get_le64(p + MT_FH_WINDOWS);
	info->end_offset = mt_get_le64(p + MT_FH_END_OFFSET);
	info->stop_reason = mt_get_le32(p + MT_FH_STOP_REASON);
	info->stop_records = mt_get_le64(p + MT_FH_STOP_RECORDS);
	info->helper_cpu_ns = mt_get_le64(p + MT_FH_HELPER_CPU);
	if (info->version >= 2)
		info->stack_depth = mt_get_le32(p + MT_FH_STACK_DEPTH);
	info->stamp_every = 1; /* version 2: every record has its time */
	if (info->version >= 3) {
		info->stamp_every = mt_get_le32(p + MT_FH_STAMP_EVERY);
		info->stamp_tick_ns = mt_get_le32(p + MT_FH_STAMP_TICK);
	}
	if (info->version < 2 && info->flags & MT_FHF_STACKS)
		return mt_error_set(e, file, "corrupt file header (stacks flag in a version 1 trace)");
	if (info->flags & MT_FHF_STACKS &&
	    (!info->stack_depth || info->stack_depth > MT_STACK_FRAMES_MAX))
		return mt_error_set(e, file, "corrupt file header (stack depth %u)", info->stack_depth);
	get_name(info->allocator_name, p + MT_FH_ALLOCATOR_NAME, 32);
	get_name(info->exe, p + MT_FH_EXE, MT_FH_EXE_MAX);
	return 0;
}

void mt_window_header_encode(uint8_t hdr[MT_WINDOW_HEADER_SIZE], const struct mt_window_info *w)
{
	memset(hdr, 0, MT_WINDOW_HEADER_SIZE);
	memcpy(hdr + MT_WH_MAGIC, MT_WINDOW_MAGIC, 4);
	mt_put_le32(hdr + MT_WH_TID, w->tid);
	mt_put_le32(hdr + MT_WH_SEQ, w->seq);
	mt_put_le32(hdr + MT_WH_SIZE, w->size);
	mt_put_le64(hdr + MT_WH_BASE_TS, w->base_ts);
	mt_put_le64(hdr + MT_WH_BASE_MONO, w->base_mono);
	mt_put_le64(hdr + MT_WH_FIRST_REC, w->first_rec);
	mt_put_le32(hdr + MT_WH_USED, w->used);
	mt_put_le32(hdr + MT_WH_COUNT, w->count);
	mt_put_le32(hdr + MT_WH_FLAGS, w->flags);
}
