/*
 * next_alloc.c - finding the allocator below us, and surviving while we look.
 *
 * dlsym(RTLD_NEXT, ...) is how we reach the next malloc, but dlsym may call
 * malloc or calloc itself, which lands back in our wrappers before we know
 * where to forward.  So the table starts out pointing at stubs: the first
 * call through any of them resolves the whole table, and calls made while
 * that is in progress (by dlsym, or by another thread) are served from a
 * static bump arena.  Arena blocks are never handed to the real allocator:
 * free ignores them and realloc copies them out.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "next_alloc.h"

enum { BOOT_HDR = 16 };
enum { UNRESOLVED, RESOLVING, RESOLVED };

unsigned char mt_boot_arena[MT_BOOT_ARENA_SIZE] __attribute__((aligned(64)));
static size_t boot_used;
static int resolve_state;

char mt_next_name[32];

/*
 * Arena blocks carry their size in the 16 bytes before them so realloc and
 * malloc_usable_size can answer.  The arena is static, hence zeroed, and
 * never reused, so calloc needs no memset.
 */
static void *boot_alloc(size_t size, size_t align)
{
	if (align < BOOT_HDR)
		align = BOOT_HDR;
	if (size > MT_BOOT_ARENA_SIZE || (align & (align - 1)))
		return NULL;
	size_t old = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), start;
	do {
		start = (old + BOOT_HDR + align - 1) & ~(align - 1);
		if (start + size > MT_BOOT_ARENA_SIZE)
			return NULL;
	} while (!__atomic_compare_exchange_n(&boot_used, &old, start + size, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	memcpy(mt_boot_arena + start - sizeof size, &size, sizeof size);
	return mt_boot_arena + start;
}

size_t mt_boot_usable(const void *p)
{
	size_t size;
	memcpy(&size, (const unsigned char *)p - sizeof size, sizeof size);
	return size;
}

void *mt_boot_realloc(void *p, size_t size)
{
	size_t old = mt_boot_usable(p);
	void *q = mt_next.malloc(size);
	if (q)
		memcpy(q, p, old < size ? old : size);
	return q;
}

/* Resolves the table unless this is a call from inside the resolution;
 * returns 0 in that case, so the caller serves it from the arena. */
static int boot_resolve(void)
{
	if (__atomic_load_n(&resolve_state, __ATOMIC_ACQUIRE) == RESOLVED)
		return 1;
	mt_next_resolve();
	return __atomic_load_n(&resolve_state, __ATOMIC_ACQUIRE) == RESOLVED;
}

static void *boot_malloc(size_t n)
{
	return boot_resolve() ? mt_next.malloc(n) : boot_alloc(n, 0);
}

static void boot_free(void *p)
{
	if (boot_resolve() && !mt_in_boot_arena(p))
		mt_next.free(p);
}

static void *boot_calloc(size_t n, size_t s)
{
	if (boot_resolve())
		return mt_next.calloc(n, s);
	return s && n > SIZE_MAX / s ? NULL : boot_alloc(n * s, 0);
}

static void *boot_realloc(void *p, size_t n)
{
	if (boot_resolve())
		return mt_next.realloc(p, n);
	void *q = boot_alloc(n, 0);
	if (q && p)
		memcpy(q, p, mt_boot_usable(p) < n ? mt_boot_usable(p) : n);
	return q;
}

static void *boot_memalign(size_t a, size_t n)
{
	return boot_resolve() ? mt_next.memalign(a, n) : boot_alloc(n, a);
}

static int boot_posix_memalign(void **out, size_t a, size_t n)
{
	if (boot_resolve())
		return mt_next.posix_memalign(out, a, n);
	void *p = boot_alloc(n, a);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *boot_aligned_alloc(size_t a, size_t n)
{
	return boot_resolve() ? mt_next.aligned_alloc(a, n) : boot_alloc(n, a);
}

static void *boot_valloc(size_t n)
{
	return boot_resolve() ? mt_next.valloc(n) : boot_alloc(n, 4096);
}

static void *boot_pvalloc(size_t n)
{
	return boot_resolve() ? mt_next.pvalloc(n) : boot_alloc((n + 4095) & ~(size_t)4095, 4096);
}

static size_t boot_usable_size(void *p)
{
	return boot_resolve() ? mt_next.usable_size(p) : 0;
}

#if HAVE_FREE_SIZED
static void boot_free_sized(void *p, size_t n)
{
	if (boot_resolve() && !mt_in_boot_arena(p))
		mt_next.free_sized(p, n);
}
#endif
#if HAVE_FREE_ALIGNED_SIZED
static void boot_free_aligned_sized(void *p, size_t a, size_t n)
{
	if (boot_resolve() && !mt_in_boot_arena(p))
		mt_next.free_aligned_sized(p, a, n);
}
#endif

/* A cache line of its own: a wrapper reads its pointer (the first four,
 * malloc to realloc, share the line) on every call. */
struct mt_next mt_next __attribute__((aligned(64))) = {
	.malloc = boot_malloc,
	.free = boot_free,
	.calloc = boot_calloc,
	.realloc = boot_realloc,
	.memalign = boot_memalign,
	.posix_memalign = boot_posix_memalign,
	.aligned_alloc = boot_aligned_alloc,
	.valloc = boot_valloc,
	.pvalloc = boot_pvalloc,
	.usable_size = boot_usable_size,
#if HAVE_FREE_SIZED
	.free_sized = boot_free_sized,
#endif
#if HAVE_FREE_ALIGNED_SIZED
	.free_aligned_sized = boot_free_aligned_sized,
#endif
};

static void die(const char *what)
{
	static const char pre[] = "mtrace: cannot find the next allocator's ";
	/* Nothing can be forwarded, so the program cannot run; say why. */
	if (write(2, pre, sizeof pre - 1) > 0 && write(2, what, strlen(what)) > 0)
		(void)!write(2, "\n", 1);
	_exit(127);
}

static void *lookup(const char *name, int required)
{
	void *fn = dlsym(RTLD_NEXT, name);
	if (!fn && required)
		die(name);
	return fn;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int from_libc(void *fn)
{
	Dl_info di;
	return !fn || (dladdr(fn, &di) && di.dli_fname &&
		       strncmp(base_name(di.dli_fname), "libc.so", 7) == 0);
}

/* Which allocator is below, from the file its malloc lives in. */
static void detect_kind(void)
{
	static const struct { const char *part; enum mt_allocator kind; } known[] = {
		{ "libc.so", MT_ALLOC_GLIBC },       { "jemalloc", MT_ALLOC_JEMALLOC },
		{ "tcmalloc", MT_ALLOC_TCMALLOC },   { "mimalloc", MT_ALLOC_MIMALLOC },
	};
	Dl_info di;
	const char *name = "unknown";
	if (dladdr((void *)mt_next.malloc, &di) && di.dli_fname)
		name = base_name(di.dli_fname);
	strncpy(mt_next_name, name, sizeof mt_next_name - 1);
	mt_next_kind = MT_ALLOC_OTHER;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strstr(name, known[i].part)) {
			mt_next_kind = known[i].kind;
			break;
		}
}

void mt_next_resolve(void)
{
	int expect = UNRESOLVED;
	if (!__atomic_compare_exchange_n(&resolve_state, &expect, RESOLVING, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return; /* done, or being done: the arena serves until then */
	struct mt_next n = {
		.malloc = lookup("malloc", 1),
		.free = lookup("free", 1),
		.calloc = lookup("calloc", 1),
		.realloc = lookup("realloc", 1),
		.posix_memalign = lookup("posix_memalign", 1),
		.memalign = lookup("memalign", 0),
		.aligned_alloc = lookup("aligned_alloc", 0),
		.valloc = lookup("valloc", 0),
		.pvalloc = lookup("pvalloc", 0),
		.usable_size = lookup("malloc_usable_size", 0),
#if HAVE_FREE_SIZED
		.free_sized = lookup("free_sized", 0),
#endif
#if HAVE_FREE_ALIGNED_SIZED
		.free_aligned_sized = lookup("free_aligned_sized", 0),
#endif
	};
	mt_next.malloc = n.malloc; /* detect_kind and the compat layer need it */
	detect_kind();
	if (mt_next_kind != MT_ALLOC_GLIBC)
		mt_compat_fill(&n, from_libc);
	mt_next = n;
	__atomic_store_n(&resolve_state, RESOLVED, __ATOMIC_RELEASE);
}
