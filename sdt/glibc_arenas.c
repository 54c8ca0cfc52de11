/*
 * glibc_arenas.c - glibc's arenas and heaps, followed through the blocks
 * the interposer sees: memory_arena_new, memory_arena_reuse and
 * memory_heap_new / _more / _less / _free.
 *
 * A block of a non-main arena lives in a 64 MiB-aligned heap whose first
 * bytes are glibc's heap_info (arena pointer, previous heap, size), so
 * every block returned tells which heap and arena served it, and how big
 * that heap is now.  The first sight of a heap is memory_heap_new, of an
 * arena memory_arena_new; a size change is _more or _less.  Heaps shrink
 * and vanish only inside free, and only at the arena's newest heap, which
 * can be unmapped under our feet: after a free, the arena's system_mem
 * (one load from the arena, which glibc never unmaps) says whether
 * anything shrank, and only then are heaps read, through
 * process_vm_readv, which fails cleanly on an unmapped address.
 *
 * Which arena a thread uses is the arena of the blocks it gets, except
 * blocks it freed itself from another arena: glibc's per-thread cache
 * hands those back, and they say nothing about the thread's arena.  A
 * per-thread list of such frees, as long as the cache can hold, filters
 * them out.  Nor does a block realloc returns in the old block's arena:
 * glibc's realloc grows or moves a block within its own arena.
 *
 * Tables are fixed, lock-free (compare-and-swap on the key) and never
 * allocate: this runs inside malloc.
 */
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "glibc_internal.h"
#include "glibc_layout.h"
#include "trace_format.h"

#define MAIN_TAG ((uintptr_t)1)   /* the main arena, wherever it is */
#define HEAP_SLOTS 4096           /* 256 GiB of heaps; more go untracked */
#define ARENA_SLOTS 1024
/* The cache holds up to 7 blocks in each of its 64 bins (2.26+ defaults). */
#define FOREIGN_SLOTS (64 * 7)

struct heap_slot {
	uintptr_t heap;       /* key; never reset, so a slot is never reused */
	uintptr_t size;       /* as last reported; 0 = not mapped */
	uintptr_t prev;       /* heap_info->prev when first seen */
};

struct arena_slot {
	uintptr_t arena;      /* key */
	uintptr_t top;        /* newest heap seen */
	uintptr_t system_mem; /* as last read */
};

static struct heap_slot heaps[HEAP_SLOTS];
static struct arena_slot arenas[ARENA_SLOTS];
static int arenas_off;    /* heaps not 64 MiB-aligned (hugetlb tunable) */
static int state_ok;      /* malloc_state offsets trusted for this libc */
static uintptr_t main_arena;

/*
 * Per thread: its arena, the blocks it freed into other arenas, and the
 * slots of the heap and arena it used last.  A thread keeps allocating from
 * one heap of one arena for long stretches, and slots are never reused, so
 * the cached pointers spare the hash probes on nearly every call.
 */
static __thread struct {
	uintptr_t arena;      /* MAIN_TAG, a non-main arena, or 0 = not yet known */
	unsigned next;
	/* Blocks (address / 16, truncated: 1.75 KiB of static TLS instead of
	 * 3.5) freed into other arenas, the most recent FOREIGN_SLOTS; a false
	 * match, 64 GiB away, would only hide one move. */
	uint32_t foreign[FOREIGN_SLOTS];
	struct heap_slot *heap_slot;
	struct arena_slot *arena_slot;
} self __attribute__((tls_model("initial-exec")));

void mt_glibc_arenas_init(void)
{
	unsigned long long v;
	const char *ver = gnu_get_libc_version();
	char *end;
	long major = strtol(ver, &end, 10);
	long minor = *end == '.' ? strtol(end + 1, NULL, 10) : -1;

	arenas_off = mt_glibc_tunable("hugetlb", NULL, &v) && v >= 2;
	state_ok = major == 2 && minor >= GL_LAYOUT_MIN_MINOR && minor <= GL_LAYOUT_MAX_MINOR;
}

/* Reads n bytes at addr, or fails (returns 0) if they are not mapped. */
static int safe_read(uintptr_t addr, void *buf, size_t n)
{
	struct iovec here = { buf, n }, there = { (void *)addr, n };

	return syscall(SYS_process_vm_readv, getpid(), &here, 1UL, &there, 1UL, 0UL) == (long)n;
}

/* Words of a heap's heap_info, and an arena's system_mem, read where a
 * live block pins them (volatile: glibc changes them under us). */
static uintptr_t heap_word(uintptr_t h, size_t offset)
{
	return ((const volatile uintptr_t *)h)[offset / sizeof(uintptr_t)];
}

static uintptr_t arena_system_mem(uintptr_t a)
{
	return *(const volatile uintptr_t *)(a + GL_ARENA_SYSTEM_MEM);
}

static size_t hash(uintptr_t key, size_t slots)
{
	return (size_t)((key >> 12) * 0x9e3779b97f4a7c15ull >> 40) & (slots - 1);
}

/* Finds key's slot among n slots of `stride` bytes (key first), claiming a
 * free one if `claim`; *fresh tells whether this call claimed it. */
static uintptr_t *slot_for(void *base, size_t stride, size_t n, uintptr_t key, int claim,
			   int *fresh)
{
	size_t i = hash(key, n);

	*fresh = 0;
	for (size_t probes = 0; probes < n; probes++, i = (i + 1) & (n - 1)) {
		uintptr_t *k = (uintptr_t *)((char *)base + i * stride);
		uintptr_t seen = __atomic_load_n(k, __ATOMIC_ACQUIRE);

		if (seen == key)
			return k;
		if (seen != 0)
			continue;
		if (!claim)
			return NULL;
		if (__atomic_compare_exchange_n(k, &seen, key, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			*fresh = 1;
			return k;
		}
		if (seen == key)
			return k;
	}
	return NULL;
}

static inline struct heap_slot *heap_slot(uintptr_t h, int claim)
{
	struct heap_slot *hs = self.heap_slot;
	int fresh;

	if (hs && hs->heap == h)
		return hs;
	hs = (struct heap_slot *)slot_for(heaps, sizeof heaps[0], HEAP_SLOTS, h, claim, &fresh);
	if (hs)
		self.heap_slot = hs;
	return hs;
}

/* The slot of arena a; claimed if new (then *fresh is set) when `claim`.
 * Only the blocks a thread gets say which arena it uses, so only a claim
 * (made for a block returned) moves the thread's cached slot: freeing
 * another arena's block, as a consumer thread does, leaves it alone. */
static inline struct arena_slot *arena_slot(uintptr_t a, int claim, int *fresh)
{
	struct arena_slot *as = self.arena_slot;

	*fresh = 0;
	if (as && as->arena == a)
		return as;
	as = (struct arena_slot *)slot_for(arenas, sizeof arenas[0], ARENA_SLOTS, a, claim, fresh);
	if (as && claim)
		self.arena_slot = as;
	return as;
}

/* The heap's size now: read directly while a live block pins the heap,
 * else through safe_read; 0 if it is gone or belongs to another arena. */
static uintptr_t heap_size_now(uintptr_t h, uintptr_t arena, int pinned)
{
	uintptr_t info[3];

	if (pinned)
		return heap_word(h, GL_HEAP_SIZE);
	if (!safe_read(h, info, sizeof info) || info[GL_HEAP_AR_PTR / sizeof(uintptr_t)] != arena)
		return 0;
	return info[GL_HEAP_SIZE / sizeof(uintptr_t)];
}

/*
 * Publishes heap h's size and fires the marker for the change, once even
 * if several threads look: the old value is loaded before the heap is
 * read, and a lost compare-and-swap means look again.  Returns the event
 * fired (0 for none).
 */
static unsigned heap_update(struct heap_slot *hs, uintptr_t arena, int pinned)
{
	uintptr_t old = __atomic_load_n(&hs->size, __ATOMIC_ACQUIRE), now;
	unsigned ev;

	do {
		now = heap_size_now(hs->heap, arena, pinned);
		if (now == old)
			return 0;
	} while (!__atomic_compare_exchange_n(&hs->size, &old, now, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	if (old == 0)
		ev = MT_EV_HEAP_NEW;
	else if (now == 0)
		ev = MT_EV_HEAP_FREE;
	else
		ev = now > old ? MT_EV_HEAP_MORE : MT_EV_HEAP_LESS;
	mt_glibc_emit(ev, hs->heap, ev == MT_EV_HEAP_FREE ? old : now);
	return ev;
}

/*
 * The main arena is a static in libc's data, with no symbol outside debug
 * files, so it is found by its look: in the pages around __curbrk (also
 * libc's data), the malloc_state whose top chunk lies in the sbrk heap
 * below the break (system_mem of it) and whose bins 1-127 each either link
 * to themselves (empty) or to chunks in that heap.  Random data does not
 * pass 127 such pairs.  Done once, where a derived event first needs the
 * address; it costs a few hundred system calls and loads then.
 */
#define MAIN_SCAN_PAGES 64   /* each way; libc's data is smaller */

static int looks_like_main_arena(uintptr_t a, uintptr_t brk)
{
	const uintptr_t *w = (const uintptr_t *)a;
	uintptr_t mem = w[GL_ARENA_SYSTEM_MEM / sizeof *w], lo = brk - mem;
	uintptr_t top = w[GL_ARENA_TOP / sizeof *w];
	int empty = 0;

	if (mem == 0 || mem % 4096 != 0 || mem > brk || top < lo || top >= brk)
		return 0;
	for (size_t i = 1; i <= GL_ARENA_BIN_COUNT; i++) {
		size_t at = GL_ARENA_BINS + (i - 1) * 2 * sizeof *w;
		uintptr_t fd = w[at / sizeof *w], bk = w[at / sizeof *w + 1];
		if (fd == a + at - 16 && bk == fd)
			empty++;
		else if (fd < lo || fd >= brk || bk < lo || bk >= brk)
			return 0;
	}
	return empty > 0;
}

static void locate_main_arena(void)
{
	uintptr_t page = 4096, anchor = (uintptr_t)&__curbrk & ~(page - 1);
	uintptr_t brk = mt_glibc_brk_now();
	uintptr_t lo = anchor, hi = anchor + page;
	char probe;

	if (!anchor || !brk || brk == (uintptr_t)-1)
		return;
	while (lo > anchor - MAIN_SCAN_PAGES * page && safe_read(lo - page, &probe, 1))
		lo -= page;
	while (hi < anchor + MAIN_SCAN_PAGES * page && safe_read(hi, &probe, 1))
		hi += page;
	for (uintptr_t a = lo; a + GL_ARENA_SYSTEM_MEM + sizeof a <= hi; a += sizeof a)
		if (looks_like_main_arena(a, brk)) {
			__atomic_store_n(&main_arena, a, __ATOMIC_RELEASE);
			return;
		}
}

/* A new arena's system_mem must look like one (page multiple, at least
 * its heap): otherwise this libc's malloc_state is not the one we know. */
static void check_state_layout(uintptr_t a, uintptr_t heap_size)
{
	uintptr_t mem = arena_system_mem(a);

	if (mem < heap_size || mem % 4096 != 0 || mem > GL_HEAP_MAX_SIZE * ARENA_SLOTS)
		state_ok = 0;
}

static uintptr_t arena_address(uintptr_t tag)
{
	static int searched;

	if (tag != MAIN_TAG)
		return tag;
	if (state_ok && !__atomic_load_n(&searched, __ATOMIC_ACQUIRE)) {
		locate_main_arena();   /* threads racing here find the same */
		__atomic_store_n(&searched, 1, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&main_arena, __ATOMIC_ACQUIRE);
}

static uintptr_t arena_of(const void *ptr, uintptr_t chunk)
{
	if (!(chunk & GL_NON_MAIN_ARENA))
		return MAIN_TAG;
	if (arenas_off)
		return 0;
	return heap_word((uintptr_t)ptr & ~(GL_HEAP_MAX_SIZE - 1), GL_HEAP_AR_PTR);
}

static uint32_t foreign_key(const void *ptr)
{
	return (uint32_t)((uintptr_t)ptr >> 4);
}

/* A block this thread freed that belongs to another arena may come back
 * from its tcache; remember it (the most recent FOREIGN_SLOTS of them). */
static void note_foreign_free(const void *ptr, uintptr_t chunk, uintptr_t arena)
{
	if ((chunk & ~(uintptr_t)GL_SIZE_BITS) > GL_TCACHE_MAX_CHUNK || arena == self.arena)
		return;
	self.foreign[self.next] = foreign_key(ptr);
	self.next = self.next + 1 == FOREIGN_SLOTS ? 0 : self.next + 1;
}

/* Only reached when a block's arena is not the thread's: the scan is paid
 * by blocks that may be foreign, never by the common call. */
static int took_foreign(const void *ptr)
{
	uint32_t key = foreign_key(ptr);

	for (int i = 0; i < FOREIGN_SLOTS; i++)
		if (self.foreign[i] == key) {
			self.foreign[i] = 0;
			return 1;
		}
	return 0;
}

static int is_main_thread(void)
{
	return syscall(SYS_gettid) == getpid();
}

/* The thread got a block of arena `tag`: has it moved?  Not if a realloc
 * kept the block in its arena (`kept`, else 0). */
static void thread_uses(uintptr_t tag, const void *ptr, int arena_is_new, uintptr_t kept)
{
	uintptr_t prev = self.arena;

	if (tag == prev || tag == kept || took_foreign(ptr))
		return;
	self.arena = tag;
	if (arena_is_new || (prev == 0 && tag == MAIN_TAG && is_main_thread()))
		return;   /* memory_arena_new said it; the main thread starts there */
	mt_glibc_emit(MT_EV_ARENA_REUSE, arena_address(tag), prev ? arena_address(prev) : 0);
}

/* A block of heap h in arena a that the fast test could not clear. */
static __attribute__((noinline)) void note_heap_block(const void *ptr, uintptr_t chunk,
						      uintptr_t h, uintptr_t a, uintptr_t kept)
{
	struct heap_slot *hs;
	struct arena_slot *as;
	unsigned heap_ev = 0;
	int fresh = 0;

	hs = heap_slot(h, 1);
	if (hs) {
		if (__atomic_load_n(&hs->size, __ATOMIC_ACQUIRE) == 0)
			hs->prev = heap_word(h, GL_HEAP_PREV);
		heap_ev = heap_update(hs, a, 1);
	}
	as = arena_slot(a, 1, &fresh);
	if (fresh) {
		mt_glibc_emit(MT_EV_ARENA_NEW, a, chunk & ~(uintptr_t)GL_SIZE_BITS);
		if (state_ok)
			check_state_layout(a, hs ? hs->size : 0);
	}
	if (as) {
		if (heap_ev == MT_EV_HEAP_NEW || fresh)
			__atomic_store_n(&as->top, h, __ATOMIC_RELEASE);
		/* Stored only when it moved: the slot is shared by every thread
		 * of the arena, and a store per call would bounce its line. */
		if (state_ok) {
			uintptr_t mem = arena_system_mem(a);
			if (mem != __atomic_load_n(&as->system_mem, __ATOMIC_RELAXED))
				__atomic_store_n(&as->system_mem, mem, __ATOMIC_RELEASE);
		}
	}
	thread_uses(a, ptr, fresh, kept);
}

/*
 * Every block returned passes here.  The common case - the thread's own
 * arena, the heap it used last, nothing grown or shrunk - is settled by
 * this function's loads and compares alone (about 20 instructions); any
 * difference goes to note_heap_block, which finds out what changed.
 * `kept` is the arena of the block a realloc was given, else 0.
 */
static inline void note_block(const void *ptr, uintptr_t chunk, uintptr_t kept)
{
	if (chunk & GL_IS_MMAPPED)
		return;
	if (!(chunk & GL_NON_MAIN_ARENA)) {
		if (self.arena != MAIN_TAG)
			thread_uses(MAIN_TAG, ptr, 0, kept);
		return;
	}
	if (arenas_off)
		return;
	uintptr_t h = (uintptr_t)ptr & ~(GL_HEAP_MAX_SIZE - 1);
	uintptr_t a = heap_word(h, GL_HEAP_AR_PTR);
	const struct heap_slot *hs = self.heap_slot;
	const struct arena_slot *as = self.arena_slot;
	if (hs && hs->heap == h && as && as->arena == a && a == self.arena &&
	    __atomic_load_n(&hs->size, __ATOMIC_RELAXED) == heap_word(h, GL_HEAP_SIZE) &&
	    (!state_ok || __atomic_load_n(&as->system_mem, __ATOMIC_RELAXED) == arena_system_mem(a)))
		return;
	note_heap_block(ptr, chunk, h, a, kept);
}

/*
 * After a free in arena a: if its system_mem dropped, heap_trim shrank or
 * unmapped heaps, newest first; walk back from the newest heap through the
 * vanished ones to the first that is still there.
 */
static __attribute__((noinline)) void heaps_shrank(struct arena_slot *as, uintptr_t a,
						       uintptr_t was, uintptr_t now)
{
	uintptr_t h;

	if (!__atomic_compare_exchange_n(&as->system_mem, &was, now, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	h = __atomic_load_n(&as->top, __ATOMIC_ACQUIRE);
	for (int i = 0; h && i < HEAP_SLOTS; i++) {
		struct heap_slot *hs = heap_slot(h, 0);

		if (!hs)
			break;
		heap_update(hs, a, 0);
		if (__atomic_load_n(&hs->size, __ATOMIC_ACQUIRE) != 0)
			break;   /* still mapped: the walk ends here */
		h = hs->prev;
		__atomic_store_n(&as->top, h, __ATOMIC_RELEASE);
	}
}

/* After a free in arena a, the common case: the arena's slot (the
 * thread's cached one nearly always) and one load of its system_mem;
 * heaps_shrank does the rest when it dropped. */
static inline void arena_freed(uintptr_t a)
{
	struct arena_slot *as;
	uintptr_t was, now;
	int fresh;

	if (a == MAIN_TAG || !state_ok || arenas_off)
		return;
	as = arena_slot(a, 0, &fresh);
	if (!as)
		return;
	was = __atomic_load_n(&as->system_mem, __ATOMIC_ACQUIRE);
	now = arena_system_mem(a);
	if (now < was)
		heaps_shrank(as, a, was, now);
}

uintptr_t mt_glibc_arenas_before_free(const void *ptr, uintptr_t chunk)
{
	uintptr_t a = arena_of(ptr, chunk);

	note_foreign_free(ptr, chunk, a);
	return a;
}

void mt_glibc_arenas_after(uintptr_t freed_arena, const void *result)
{
	if (freed_arena)
		arena_freed(freed_arena);
	/* A block released and a result: realloc, whose block stays in its arena. */
	if (result)
		note_block(result, (uintptr_t)mt_glibc_chunk_word(result), freed_arena);
}
