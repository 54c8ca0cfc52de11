/*
 * rec_stack.c - see rec_stack.h: the stack of every allocating call, and
 * the in-process table that gives each distinct stack one number.
 *
 * Per call, with the stack known: the walk and the hash of its frames
 * (rec_unwind.c, most of both reused from the thread's last walk), and a
 * lock-free probe of an open-addressing table: slots are published with a
 * release store of their number and only ever added, so readers need no
 * lock.  A stack not yet in the table, or not yet written into the current
 * trace file, takes the slow path: the module map check, the table lock,
 * the insert and the STACK entry.
 *
 * Memory: the slots and the frames are two regions reserved with mmap
 * (MAP_NORESERVE, pages touched as they fill), never malloc: this runs
 * inside malloc.  When either is full, new stacks are recorded as 0
 * (unknown) and the trace still reads.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rec_modules.h"
#include "rec_stack.h"
#include "rec_stack_memo.h"
#include "rec_table.h"
#include "rec_text.h"
#include "rec_unwind.h"
#include "trace.h"

#define DEFAULT_DEPTH 64
#define SLOTS (1u << 20)              /* distinct stacks, at most 3/4 of it */
#define FRAME_SPACE (1u << 24)        /* frames of all stacks, 128 MiB */

struct slot {
	uint64_t id;          /* 0: free; stored last (release) */
	uint64_t hash;
	uint32_t nframes;
	unsigned serial;      /* trace file the stack was last written to */
	uint64_t first;       /* index of its first frame in `frames` */
};

unsigned mt_stack_depth;
static struct slot *slots;
static uint64_t *frames;
static uint64_t frames_used, next_id, stacks_used;
static unsigned current_serial;

unsigned mt_table_current_serial(void)
{
	return __atomic_load_n(&current_serial, __ATOMIC_ACQUIRE);
}

/* MTRACE_STACKS: 0 (off), or frames per stack 1..MT_STACK_FRAMES_MAX. */
static unsigned wanted_depth(void)
{
	const char *v = getenv("MTRACE_STACKS");
	unsigned long n = 0;
	if (!v || !*v)
		return 0;
	for (const char *c = v; *c; c++) {
		if (*c < '0' || *c > '9' || n > MT_STACK_FRAMES_MAX) {
			n = MT_STACK_FRAMES_MAX + 1;
			break;
		}
		n = n * 10 + (unsigned long)(*c - '0');
	}
	if (n > MT_STACK_FRAMES_MAX) {
		mt_say(MT_SAY_ERROR, "MTRACE_STACKS must be a number of frames from 0 to 256, not '",
		       v, "'; recording without stacks", NULL);
		return 0;
	}
	return (unsigned)n;
}

static void *reserve(size_t bytes)
{
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

void mt_stacks_configure(void)
{
	unsigned depth = wanted_depth();
	if (!depth || mt_unwind_load())
		return;
	slots = reserve(SLOTS * sizeof *slots);
	frames = reserve(FRAME_SPACE * sizeof *frames);
	if (!slots || !frames) {
		mt_say(MT_SAY_ERROR, "cannot map the stack table; recording without stacks", NULL);
		return;
	}
	mt_stack_depth = depth;
}

void mt_stacks_file_opened(struct mt_file *f)
{
	if (!mt_stack_depth)
		return;
	f->info.flags |= MT_FHF_STACKS;
	f->info.stack_depth = mt_stack_depth;
	__atomic_store_n(&current_serial, f->serial, __ATOMIC_RELEASE);
}

void mt_stacks_after_fork(void)
{
	mt_table_after_fork();
	mt_stack_memo_after_fork();
}

/* The slot holding this stack, or the free slot where it would go; NULL
 * when the probe runs into a full table. */
static struct slot *probe(const uint64_t *f, size_t n, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & (SLOTS - 1), tries = 0; tries < SLOTS;
	     i = (i + 1) & (SLOTS - 1), tries++) {
		struct slot *s = &slots[i];
		if (!__atomic_load_n(&s->id, __ATOMIC_ACQUIRE))
			return s;
		if (s->hash == h && s->nframes == n &&
		    memcmp(&frames[s->first], f, n * sizeof *f) == 0)
			return s;
	}
	return NULL;
}

static void write_stack(struct slot *s)
{
	static uint8_t entry[1 + 2 * MT_VARINT_MAX + MT_STACK_FRAMES_MAX * MT_VARINT_MAX];
	const uint64_t *f = &frames[s->first];
	uint8_t *p = entry;
	*p++ = MT_TE_STACK;
	p += mt_varint_put(p, s->id);
	p += mt_varint_put(p, s->nframes);
	p += mt_varint_put(p, f[0]);
	for (uint32_t i = 1; i < s->nframes; i++)
		p += mt_varint_put(p, mt_zigzag((int64_t)(f[i] - f[i - 1])));
	unsigned serial = mt_table_put(entry, (size_t)(p - entry));
	if (serial)
		__atomic_store_n(&s->serial, serial, __ATOMIC_RELEASE);
}

/* With the table lock: the stack's slot, added if new; NULL when full. */
static struct slot *insert(const uint64_t *f, size_t n, uint64_t h)
{
	struct slot *s = probe(f, n, h);
	if (!s || s->id)
		return s;
	if (stacks_used >= SLOTS / 4 * 3 || frames_used + n > FRAME_SPACE)
		return NULL;
	memcpy(&frames[frames_used], f, n * sizeof *f);
	s->first = frames_used;
	s->nframes = (uint32_t)n;
	s->hash = h;
	s->serial = 0;
	frames_used += n;
	stacks_used++;
	__atomic_store_n(&s->id, ++next_id, __ATOMIC_RELEASE);
	return s;
}

/* A stack not yet in this trace file: add it, and write the module map
 * and the stack. */
static __attribute__((noinline)) uint64_t slow_path(const uint64_t *f, size_t n, uint64_t h)
{
	mt_modules_check_and_lock();
	struct slot *s = insert(f, n, h);
	uint64_t id = s ? s->id : 0;
	if (s && s->serial != mt_table_current_serial())
		write_stack(s);
	mt_table_unlock();
	return id;
}

uint64_t mt_stack_capture(void)
{
	const uint64_t *f;
	uint64_t h;
	size_t n = mt_unwind(&f, mt_stack_depth, &h);
	if (!n)
		return 0;
	struct slot *s = probe(f, n, h);
	if (s && s->id && __atomic_load_n(&s->serial, __ATOMIC_ACQUIRE) == mt_table_current_serial())
		return s->id;
	return slow_path(f, n, h);
}
