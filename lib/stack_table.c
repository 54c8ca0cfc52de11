/*
 * stack_table.c - the stack table and module map of a v2 trace.
 *
 * The recorder writes each distinct stack once, and the module map at start
 * and after every dlopen/dlclose, into table windows (MT_TABLE_MAGIC) that
 * sit among the threads' windows; see trace_format.h and docs/FORMAT.md.
 * The reader collects them while it indexes the windows, so a tool has every
 * stack before it walks a single record.  Memory grows with the number of
 * distinct stacks and modules, never with the number of records.
 *
 * The table is input a user hands us: every length and count is checked
 * against the window and against the format's limits before it is used, and
 * an entry that does not decode is an error naming its file offset.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

#define BUILD_ID_MAX 64
#define MODULE_PATH_MAX 4096

struct table_reader {
	struct mt_trace *t;
	const uint8_t *p, *end;
	uint64_t entry_off; /* file offset of the entry being read */
};

static int get(struct table_reader *r, uint64_t *v)
{
	return mt_varint_get(&r->p, r->end, v);
}

/* Grows *array to hold n more elements of size each. */
static int reserve(void *array, size_t *cap, size_t used, size_t more, size_t size)
{
	if (used + more <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < used + more)
		ncap *= 2;
	void *n = realloc(*(void **)array, ncap * size);
	if (!n)
		return -1;
	*(void **)array = n;
	*cap = ncap;
	return 0;
}

static int corrupt(struct table_reader *r, const char *what, struct mt_error *e)
{
	return mt_error_set(e, r->t->path, "offset %llu: corrupt stack table entry (%s)",
			    (unsigned long long)r->entry_off, what);
}

static int oom(struct table_reader *r, struct mt_error *e)
{
	return mt_error_set(e, r->t->path, "out of memory reading the stack table");
}

static int read_stack(struct table_reader *r, struct mt_error *e)
{
	struct mt_trace *t = r->t;
	uint64_t id, n, frame, delta;
	if (get(r, &id) || get(r, &n))
		return corrupt(r, "bad number", e);
	if (!id || !n || n > MT_STACK_FRAMES_MAX)
		return corrupt(r, id ? "frame count out of range" : "stack number 0", e);
	if (!t->generation_seen)
		return corrupt(r, "stack before any module map", e);
	if (reserve(&t->frames, &t->frames_cap, t->nframes, n, sizeof *t->frames) ||
	    reserve(&t->stacks, &t->stacks_cap, t->nstacks, 1, sizeof *t->stacks))
		return oom(r, e);
	size_t first = t->nframes;
	for (uint64_t i = 0; i < n; i++) {
		if (get(r, i ? &delta : &frame))
			return corrupt(r, "bad frame", e);
		if (i)
			frame += (uint64_t)mt_unzigzag(delta);
		t->frames[t->nframes++] = frame;
	}
	/* frames points into t->frames only once the table is complete. */
	t->stacks[t->nstacks++] = (struct mt_trace_stack){
		.id = id, .frames = (const uint64_t *)(uintptr_t)first, .nframes = (size_t)n,
		.generation = t->generation,
	};
	return 0;
}

/* A length-prefixed byte string of at most max bytes, copied and NUL-ended. */
static int get_bytes(struct table_reader *r, size_t max, uint8_t **out, size_t *len)
{
	uint64_t n;
	if (get(r, &n) || n > max || n > (uint64_t)(r->end - r->p))
		return -1;
	*out = malloc(n + 1);
	if (!*out)
		return -1;
	memcpy(*out, r->p, n);
	(*out)[n] = 0;
	r->p += n;
	*len = (size_t)n;
	return 0;
}

static int read_module(struct table_reader *r, struct mt_error *e)
{
	struct mt_trace *t = r->t;
	uint64_t bias, start, size;
	uint8_t *id = NULL, *path = NULL;
	size_t idlen, pathlen;
	if (!t->generation_seen)
		return corrupt(r, "module before any module map", e);
	if (get(r, &bias) || get(r, &start) || get(r, &size) || start + size < start)
		return corrupt(r, "bad address range", e);
	if (get_bytes(r, BUILD_ID_MAX, &id, &idlen) ||
	    get_bytes(r, MODULE_PATH_MAX, &path, &pathlen)) {
		free(id);
		return corrupt(r, "bad build-id or path", e);
	}
	if (reserve(&t->modules, &t->modules_cap, t->nmodules, 1, sizeof *t->modules)) {
		free(id);
		free(path);
		return oom(r, e);
	}
	t->modules[t->nmodules++] = (struct mt_trace_module){
		.bias = bias, .start = start, .end = start + size, .path = (char *)path,
		.build_id = id, .build_id_len = idlen, .generation = t->generation,
	};
	return 0;
}

static int read_entry(struct table_reader *r, unsigned kind, struct mt_error *e)
{
	uint64_t g;
	switch (kind) {
	case MT_TE_STACK:
		return read_stack(r, e);
	case MT_TE_MODULE:
		return read_module(r, e);
	case MT_TE_MODULES:
		if (get(r, &g) || g > UINT32_MAX || (r->t->generation_seen && g <= r->t->generation))
			return corrupt(r, "module map number does not grow", e);
		r->t->generation = (uint32_t)g;
		r->t->generation_seen = 1;
		return 0;
	default:
		return corrupt(r, "unknown kind", e);
	}
}

int mt_stack_table_window(struct mt_trace *t, uint64_t off, uint64_t limit, uint64_t *size,
			  struct mt_error *e)
{
	const uint8_t *h = t->map + off;
	*size = mt_get_le32(h + MT_WH_SIZE);
	if (mt_get_le32(h + MT_WH_TID) || *size < MT_TRACE_ALIGN || *size % MT_TRACE_ALIGN ||
	    *size > (1u << 30))
		return mt_error_set(e, t->path, "offset %llu: corrupt stack table window header",
				    (unsigned long long)off);
	uint64_t wend = off + *size < limit ? off + *size : limit;
	struct table_reader r = { .t = t, .p = h + MT_WINDOW_HEADER_SIZE, .end = t->map + wend };
	while (r.p < r.end && *r.p) {
		r.entry_off = (uint64_t)(r.p - t->map);
		unsigned kind = *r.p++;
		if (read_entry(&r, kind, e)) {
			if (wend == off + *size)
				return -1;
			/* The file was cut inside this entry: what came before stands. */
			t->table_cut = 1;
			return 0;
		}
	}
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct mt_trace_stack *x = *(const struct mt_trace_stack *const *)a;
	const struct mt_trace_stack *y = *(const struct mt_trace_stack *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

int mt_stack_table_finish(struct mt_trace *t, struct mt_error *e)
{
	for (size_t i = 0; i < t->nmodules; i++)
		if (!t->modules[i].path[0]) {
			free((char *)t->modules[i].path);
			if (!(t->modules[i].path = strdup(t->info.exe)))
				return mt_error_set(e, t->path, "out of memory");
		}
	t->stacks_by_id = malloc((t->nstacks ? t->nstacks : 1) * sizeof *t->stacks_by_id);
	if (!t->stacks_by_id)
		return mt_error_set(e, t->path, "out of memory");
	for (size_t i = 0; i < t->nstacks; i++) {
		t->stacks[i].frames = t->frames + (uintptr_t)t->stacks[i].frames;
		t->stacks_by_id[i] = &t->stacks[i];
	}
	qsort(t->stacks_by_id, t->nstacks, sizeof *t->stacks_by_id, by_id);
	for (size_t i = 1; i < t->nstacks; i++)
		if (t->stacks_by_id[i]->id == t->stacks_by_id[i - 1]->id)
			return mt_error_set(e, t->path, "stack table: stack %llu is defined twice",
					    (unsigned long long)t->stacks_by_id[i]->id);
	return 0;
}

void mt_stack_table_free(struct mt_trace *t)
{
	for (size_t i = 0; i < t->nmodules; i++) {
		free((char *)t->modules[i].path);
		free((uint8_t *)t->modules[i].build_id);
	}
	free(t->modules);
	free(t->stacks);
	free(t->stacks_by_id);
	free(t->frames);
}

int mt_trace_has_stacks(const struct mt_trace *t) { return (t->info.flags & MT_FHF_STACKS) != 0; }
size_t mt_trace_stack_count(const struct mt_trace *t) { return t->nstacks; }
size_t mt_trace_module_count(const struct mt_trace *t) { return t->nmodules; }

const struct mt_trace_stack *mt_trace_stack_at(const struct mt_trace *t, size_t i)
{
	return i < t->nstacks ? &t->stacks[i] : NULL;
}

const struct mt_trace_module *mt_trace_module_at(const struct mt_trace *t, size_t i)
{
	return i < t->nmodules ? &t->modules[i] : NULL;
}

const struct mt_trace_stack *mt_trace_stack_find(const struct mt_trace *t, uint64_t id)
{
	size_t lo = 0, hi = t->nstacks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t m = t->stacks_by_id[mid]->id;
		if (m == id)
			return t->stacks_by_id[mid];
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct mt_trace_module *mt_trace_module_find(const struct mt_trace *t, uint32_t generation,
						   uint64_t addr)
{
	for (size_t i = 0; i < t->nmodules; i++) {
		const struct mt_trace_module *m = &t->modules[i];
		if (m->generation == generation && addr >= m->start && addr < m->end)
			return m;
	}
	return NULL;
}
