/*
 * next_compat.c - malloc-family functions the next allocator does not have.
 *
 * When jemalloc (say) is preloaded after us but lacks pvalloc, dlsym finds
 * glibc's pvalloc instead, and the block it returns would later be freed
 * into jemalloc.  Every such function is rebuilt here from the next
 * allocator's own posix_memalign, with glibc's semantics.
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "next_alloc.h"

static void *compat_memalign(size_t align, size_t size)
{
	/* glibc rounds a bad alignment up to a power of two instead of failing */
	size_t a = sizeof(void *);
	while (a < align && a)
		a <<= 1;
	if (!a) {
		errno = EINVAL;
		return NULL;
	}
	void *p;
	int rc = mt_next.posix_memalign(&p, a, size);
	if (rc) {
		errno = rc;
		return NULL;
	}
	return p;
}

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static void *compat_valloc(size_t size)
{
	return compat_memalign(page_size(), size);
}

static void *compat_pvalloc(size_t size)
{
	size_t ps = page_size();
	if (size > SIZE_MAX - ps) {
		errno = ENOMEM;
		return NULL;
	}
	return compat_memalign(ps, size ? (size + ps - 1) & ~(ps - 1) : ps);
}

/* An allocator that cannot tell: usable size is reported as 0. */
static size_t compat_usable_size(void *p)
{
	(void)p;
	return 0;
}

#if HAVE_FREE_SIZED
static void compat_free_sized(void *p, size_t size)
{
	(void)size;
	mt_next.free(p);
}
#endif
#if HAVE_FREE_ALIGNED_SIZED
static void compat_free_aligned_sized(void *p, size_t align, size_t size)
{
	(void)align;
	(void)size;
	mt_next.free(p);
}
#endif

void mt_compat_fill(struct mt_next *n, int (*from_libc)(void *fn))
{
	if (from_libc((void *)n->memalign))
		n->memalign = compat_memalign;
	if (from_libc((void *)n->aligned_alloc))
		n->aligned_alloc = compat_memalign;
	if (from_libc((void *)n->valloc))
		n->valloc = compat_valloc;
	if (from_libc((void *)n->pvalloc))
		n->pvalloc = compat_pvalloc;
	if (from_libc((void *)n->usable_size))
		n->usable_size = compat_usable_size;
#if HAVE_FREE_SIZED
	if (from_libc((void *)n->free_sized))
		n->free_sized = compat_free_sized;
#endif
#if HAVE_FREE_ALIGNED_SIZED
	if (from_libc((void *)n->free_aligned_sized))
		n->free_aligned_sized = compat_free_aligned_sized;
#endif
}
