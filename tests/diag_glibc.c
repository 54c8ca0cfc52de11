/*
 * diag_glibc.c - programs whose glibc malloc behaviour is known, for the
 * tests of the derived glibc events (t-diag-glibc-*.sh).  Each mode does
 * one thing to glibc's allocator and prints, as "key value" lines, what
 * glibc itself says afterwards (mallinfo2, malloc_info, chunk headers), so
 * the tests can hold the derived markers against glibc's own state.
 *
 *   arenas     8 threads allocate at the same time: 8 new arenas
 *   reuse      the same with 4 threads and M_ARENA_MAX 2: one new arena,
 *              the other threads share it or the main arena
 *   one        4 threads under M_ARENA_MAX 1, all in the main arena
 *   threshold  free of a 1 MiB mmapped block raises the mmap threshold
 *   mallopt    the same after mallopt(M_MMAP_THRESHOLD): no raise
 *   sbrk       the main arena grows by sbrk, then trims back
 *   heaps      a thread's arena outgrows its first 64 MiB heap, then frees
 *              everything: the second heap is unmapped, the first shrinks
 *   realloc    a thread with its own arena reallocs a block of the main
 *              arena (glibc keeps it there) and allocates on: it never
 *              moves
 *   handoff    a producer thread's blocks freed by a consumer thread with
 *              its own arena, which allocates between the frees: its
 *              cache hands it the producer's blocks, yet it never moves
 *
 * Threads print "arena_of TID ADDR": the arena their blocks above the
 * cache's sizes come from, read from the heap_info of such a block.
 * With exactly two arenas, "main_arena ADDR" is the main arena's address:
 * the other's malloc_state.next (glibc links arenas in a ring); where it
 * lies in libc.so.6 is the same in every process.
 */
#include <malloc.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define BLOCKS 64

static pthread_barrier_t all_have_arenas;
static uintptr_t some_arena;   /* a non-main arena a worker used */

/* glibc's chunk header word, just below the block: size and flag bits.
 * Taken as an address, so the compiler does not flag a read outside it. */
static size_t chunk_word(const void *p)
{
	return *(const size_t *)((uintptr_t)p - sizeof(size_t));
}

static size_t chunk_size(const void *p)
{
	return chunk_word(p) & ~(size_t)7;
}

static int chunk_mmapped(const void *p)
{
	return (chunk_word(p) & 2) != 0;
}

/* heap_info.ar_ptr of p's heap, or 0 in the main arena. */
static uintptr_t arena_of(const void *p)
{
	uintptr_t heap = (uintptr_t)p & ~(((uintptr_t)64 << 20) - 1);

	return chunk_word(p) & 4 ? *(const uintptr_t *)heap : 0;
}

/* Blocks above the tcache's 1032 bytes come from the thread's own arena;
 * the barrier keeps all threads alive, so none can inherit another's. */
static void *worker(void *arg)
{
	void *blocks[BLOCKS];

	for (int i = 0; i < BLOCKS; i++)
		blocks[i] = malloc(2000 + (size_t)i * 16);
	if (arena_of(blocks[0]))
		__atomic_store_n(&some_arena, arena_of(blocks[0]), __ATOMIC_RELAXED);
	pthread_barrier_wait(&all_have_arenas);
	for (int i = 0; i < BLOCKS; i++)
		free(blocks[i]);
	return arg;
}

/* The arena of a fresh block too big for the thread's cache: the first
 * word of its 64 MiB-aligned heap (glibc's heap_info.ar_ptr), or 0 for
 * the main arena (no heap_info: the NON_MAIN_ARENA bit is clear). */
static void print_own_arena(void)
{
	void *p = malloc(5000);

	printf("arena_of %ld %lu\n", (long)syscall(SYS_gettid), (unsigned long)arena_of(p));
	free(p);
}

/* glibc's arena count: one <heap nr=...> element per arena. */
static int count_arenas(void)
{
	char *xml = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&xml, &len);
	int n = 0;

	malloc_info(0, f);
	fclose(f);
	for (const char *s = xml; (s = strstr(s, "<heap nr=")); s++)
		n++;
	free(xml);
	return n;
}

/* Where libc.so.6 is mapped: the main arena is a static inside it. */
static void print_libc_span(void)
{
	char line[512];
	unsigned long lo = 0, hi = 0, a, b;
	FILE *maps = fopen("/proc/self/maps", "r");

	while (maps && fgets(line, sizeof line, maps))
		if (strstr(line, "/libc.so.6") && sscanf(line, "%lx-%lx", &a, &b) == 2) {
			lo = lo && lo < a ? lo : a;
			hi = hi > b ? hi : b;
		}
	if (maps)
		fclose(maps);
	printf("libc_span %lu %lu\n", lo, hi);
}

static int arenas(int threads, int arena_max)
{
	pthread_t t[THREADS];
	struct mallinfo2 mi;

	if (arena_max && mallopt(M_ARENA_MAX, arena_max) != 1)
		return 1;
	pthread_barrier_init(&all_have_arenas, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	mi = mallinfo2();
	printf("threads %d\n", threads);
	printf("system_total %zu\n", mi.arena);
	printf("arenas %d\n", count_arenas() - 1);
	print_libc_span();
	if (count_arenas() == 2 && some_arena)   /* malloc_state.next, glibc 2.27+ */
		printf("main_arena %lu\n", (unsigned long)*(uintptr_t *)(some_arena + 2160));
	return 0;
}

/* glibc's truth about its threshold after the free: whether a block a
 * little smaller than the freed chunk is still mmapped. */
static int threshold(int set_first)
{
	void *big, *below;

	if (set_first && mallopt(M_MMAP_THRESHOLD, 256 << 10) != 1)
		return 1;
	big = malloc(1 << 20);
	printf("chunk %zu\n", chunk_size(big));
	printf("mmapped %d\n", chunk_mmapped(big));
	free(big);
	below = malloc((1 << 20) - (64 << 10));
	printf("below_mmapped %d\n", chunk_mmapped(below));
	free(below);
	return 0;
}

/* 64 blocks of 64 KiB (under the 128 KiB mmap threshold) grow the main
 * arena by sbrk; freeing them all lets free() trim the top back. */
static int sbrk_grow(void)
{
	void *blocks[BLOCKS];

	for (int i = 0; i < BLOCKS; i++)
		blocks[i] = malloc(64 << 10);
	printf("grown %zu\n", mallinfo2().arena);
	for (int i = BLOCKS - 1; i >= 0; i--)
		free(blocks[i]);
	printf("trimmed %zu\n", mallinfo2().arena);
	return 0;
}

/* 800 blocks of 100 KiB (under the mmap threshold): 80 MiB, more than one
 * 64 MiB heap.  Freed newest first, so the arena's top swallows them and
 * free() trims: the second heap goes, the first shrinks. */
static void *heap_worker(void *arg)
{
	enum { N = 800 };
	static void *blocks[N];

	for (int i = 0; i < N; i++)
		blocks[i] = malloc(100 << 10);
	for (int i = N - 1; i >= 0; i--)
		free(blocks[i]);
	return arg;
}

/* realloc: the thread takes its own arena first; a main-arena block
 * reallocated to a bigger size stays in the main arena (glibc grows or
 * moves it within the chunk's arena), which says nothing about the
 * thread's own. */
static void *main_block;

static void *realloc_worker(void *arg)
{
	void *mine = malloc(5000);
	void *moved = realloc(main_block, 6000);

	printf("realloc_in_main %d\n", !(chunk_word(moved) & 4));
	free(malloc(5000));
	print_own_arena();
	free(moved);
	free(mine);
	return arg;
}

static int realloc_keeps(void)
{
	pthread_t t;

	main_block = malloc(5000);
	print_own_arena();
	if (pthread_create(&t, NULL, realloc_worker, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}

/* handoff: HANDOFF blocks of every cache size (24 to 1032 bytes) made by
 * the producer, bin after bin; the consumer frees them 448 at a time,
 * which fills its cache (64 bins of 7) with them, then takes them all
 * back, so each comes back up to 448 frees after it went.  The producer
 * lives until the consumer is done: an exited thread's arena would go to
 * the next thread. */
enum { HANDOFF = 2000, BINS = 64, CACHED = 7 };
static void *handed[HANDOFF];
static pthread_barrier_t produced, consumed;

static size_t bin_size(int i)
{
	return (size_t)(i % BINS) * 16 + 8;
}

static void *producer(void *arg)
{
	for (int i = 0; i < HANDOFF; i++)
		handed[i] = malloc(bin_size(i));
	print_own_arena();
	pthread_barrier_wait(&produced);
	pthread_barrier_wait(&consumed);
	return arg;
}

static void *consumer(void *arg)
{
	static void *kept[HANDOFF];

	pthread_barrier_wait(&produced);
	free(malloc(5000));   /* its own arena, before any handoff */
	for (int done = 0; done < HANDOFF; done += BINS * CACHED) {
		int n = HANDOFF - done < BINS * CACHED ? HANDOFF - done : BINS * CACHED;
		for (int i = done; i < done + n; i++)
			free(handed[i]);
		for (int i = done; i < done + n; i++)
			kept[i] = malloc(bin_size(i));
	}
	print_own_arena();
	for (int i = 0; i < HANDOFF; i++)
		free(kept[i]);
	pthread_barrier_wait(&consumed);
	return arg;
}

static int handoff(void)
{
	pthread_t p, c;

	pthread_barrier_init(&produced, NULL, 2);
	pthread_barrier_init(&consumed, NULL, 2);
	if (pthread_create(&p, NULL, producer, NULL) || pthread_create(&c, NULL, consumer, NULL))
		return 1;
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	return 0;
}

static int heaps(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, heap_worker, NULL))
		return 1;
	pthread_join(t, NULL);
	printf("system_total %zu\n", mallinfo2().arena);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc = 2;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "arenas") == 0)
		rc = arenas(THREADS, 0);
	else if (strcmp(mode, "reuse") == 0)
		rc = arenas(4, 2);
	else if (strcmp(mode, "one") == 0)
		rc = arenas(4, 1);
	else if (strcmp(mode, "threshold") == 0)
		rc = threshold(0);
	else if (strcmp(mode, "mallopt") == 0)
		rc = threshold(1);
	else if (strcmp(mode, "sbrk") == 0)
		rc = sbrk_grow();
	else if (strcmp(mode, "heaps") == 0)
		rc = heaps();
	else if (strcmp(mode, "realloc") == 0)
		rc = realloc_keeps();
	else if (strcmp(mode, "handoff") == 0)
		rc = handoff();
	else
		fprintf(stderr, "usage: diag_glibc arenas|reuse|one|threshold|mallopt|sbrk|heaps|"
				"realloc|handoff\n");
	return rc;
}
