/*
 * rec_consistent - is a trace of a program nobody here wrote self-consistent?
 *
 * Usage: rec_consistent [--allow-warnings] [--count-between S1 S2] TRACE
 *
 * For real programs there is no log to compare with, but a complete trace
 * still has to add up: it reads without warnings, the header's record count
 * equals the records read, and walking the records in time order no block
 * is handed out while the same address is still live (which would mean a
 * lost free).  Frees of blocks allocated before recording began are
 * allowed and counted.  --count-between prints how many records lie from
 * the first malloc(S1) up to (not including) the first malloc(S2), for
 * comparing with a tracer's count of marker hits over the same span.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Open-addressing set of live block addresses (0 marks a free slot). */
static uint64_t *set;
static size_t set_cap, set_len;

static size_t slot_of(uint64_t p)
{
	size_t i = (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull) & (set_cap - 1);
	while (set[i] && set[i] != p)
		i = (i + 1) & (set_cap - 1);
	return i;
}

static void set_grow(void)
{
	uint64_t *old = set;
	size_t old_cap = set_cap;
	set_cap = set_cap ? set_cap * 2 : 1024;
	set = calloc(set_cap, sizeof *set);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			set[slot_of(old[i])] = old[i];
	free(old);
}

/* Returns 0 if p was already there. */
static int set_add(uint64_t p)
{
	if (2 * (set_len + 1) > set_cap)
		set_grow();
	size_t i = slot_of(p);
	if (set[i])
		return 0;
	set[i] = p;
	set_len++;
	return 1;
}

/* Returns 0 if p was not there. */
static int set_del(uint64_t p)
{
	if (!set_cap)
		return 0;
	size_t i = slot_of(p);
	if (!set[i])
		return 0;
	set[i] = 0;
	set_len--;
	/* Re-place the rest of the cluster so lookups still find them. */
	for (size_t j = (i + 1) & (set_cap - 1); set[j]; j = (j + 1) & (set_cap - 1)) {
		uint64_t q = set[j];
		set[j] = 0;
		set[slot_of(q)] = q;
	}
	return 1;
}

int main(int argc, char **argv)
{
	int allow_warnings = 0, i = 1;
	unsigned long long s1 = 0, s2 = 0;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--allow-warnings") == 0) {
			allow_warnings = 1;
		} else if (strcmp(argv[i], "--count-between") == 0 && i + 2 < argc) {
			s1 = strtoull(argv[i + 1], NULL, 0);
			s2 = strtoull(argv[i + 2], NULL, 0);
			i += 2;
		} else {
			break;
		}
	}
	if (argc - i != 1) {
		fprintf(stderr, "usage: rec_consistent [--allow-warnings] [--count-between S1 S2] TRACE\n");
		return 2;
	}
	const char *path = argv[i];
	struct mt_error e;
	struct mt_trace *t = mt_trace_open(path, &e);
	if (!t) {
		mt_error_print("rec_consistent", &e);
		return 1;
	}
	const char *const *w = mt_trace_warnings(t);
	if (*w && !allow_warnings) {
		fprintf(stderr, "rec_consistent: unexpected warning: %s\n", *w);
		return 1;
	}

	struct mt_trace_merge *m = mt_trace_merge_open(t);
	struct mt_rec r;
	size_t thread;
	uint64_t recno, records = 0, older = 0, between = 0;
	int rc, in_span = 0, span_done = 0;
	while ((rc = mt_trace_merge_next(m, &r, &thread, &recno, &e)) > 0) {
		records++;
		if (s1 && r.call == MT_CALL_MALLOC && !span_done) {
			if (r.size == s1)
				in_span = 1;
			else if (r.size == s2 && in_span)
				in_span = 0, span_done = 1;
		}
		if (r.call == MT_CALL_EVENT)
			continue; /* not a call: no marker of ours fires for it */
		between += in_span;
		int freed = mt_call_has_in(r.call) && !(r.flags & MT_RF_NULL_IN) &&
			    (!(r.flags & MT_RF_NULL_OUT) || r.size == 0);
		if (freed && !set_del(r.ptr_in))
			older++;
		if (mt_call_allocates(r.call) && !(r.flags & MT_RF_NULL_OUT) && !set_add(r.ptr_out)) {
			fprintf(stderr,
				"rec_consistent: %s: record %" PRIu64 " of thread %u: %s returned 0x%" PRIx64
				", which is still live (a free went missing)\n",
				path, recno, mt_trace_thread_tid(t, thread), mt_call_name(r.call), r.ptr_out);
			return 1;
		}
	}
	if (rc < 0) {
		mt_error_print("rec_consistent", &e);
		return 1;
	}
	mt_trace_merge_close(m);

	const struct mt_trace_info *in = mt_trace_get_info(t);
	if (!(in->flags & MT_FHF_CLOSED) && !allow_warnings) {
		fprintf(stderr, "rec_consistent: %s: the trace was not closed\n", path);
		return 1;
	}
	if (in->flags & MT_FHF_CLOSED && in->records != records) {
		fprintf(stderr, "rec_consistent: %s: header counts %" PRIu64 " records, read %" PRIu64 "\n",
			path, in->records, records);
		return 1;
	}
	printf("records %" PRIu64 " threads %zu live %zu older-frees %" PRIu64 " dropped %" PRIu64 "\n",
	       records, mt_trace_threads(t), set_len, older, in->dropped);
	if (s1)
		printf("between %" PRIu64 "\n", between);
	mt_trace_close(t);
	return 0;
}
