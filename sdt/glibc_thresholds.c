/*
 * glibc_thresholds.c - glibc's dynamic mmap and trim thresholds, followed
 * from outside, and the mallopt interposer that can switch them off.
 *
 * glibc starts with mmap_threshold = trim_threshold = 128 KiB.  When free()
 * releases an mmapped chunk larger than mmap_threshold and at most
 * DEFAULT_MMAP_THRESHOLD_MAX (32 MiB), it sets mmap_threshold to that
 * chunk's size and trim_threshold to twice that (memory_mallopt_free_dyn_
 * thresholds).  Setting any of mmap_threshold, trim_threshold, top_pad or
 * mmap_max, by mallopt or by tunable, stops this for good.  The tracker
 * applies the same rule to the frees it sees, so its values are glibc's as
 * long as it has seen every free since the program started.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "glibc_internal.h"
#include "glibc_layout.h"
#include "next_alloc.h"

static size_t mmap_threshold = GL_DEFAULT_MMAP_THRESHOLD;
static size_t trim_threshold = GL_DEFAULT_TRIM_THRESHOLD;
static int no_dyn_threshold;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* glibc's do_set_mmap_threshold refuses values above half a heap. */
static int set_mmap_threshold(unsigned long long v)
{
	if (v > GL_HEAP_MAX_SIZE / 2)
		return 0;
	__atomic_store_n(&mmap_threshold, (size_t)v, __ATOMIC_RELAXED);
	__atomic_store_n(&no_dyn_threshold, 1, __ATOMIC_RELAXED);
	return 1;
}

static void set_trim_threshold(unsigned long long v)
{
	__atomic_store_n(&trim_threshold, (size_t)v, __ATOMIC_RELAXED);
	__atomic_store_n(&no_dyn_threshold, 1, __ATOMIC_RELAXED);
}

static void read_environment(void)
{
	unsigned long long v;

	if (mt_glibc_tunable("mmap_threshold", "MALLOC_MMAP_THRESHOLD_", &v))
		set_mmap_threshold(v);
	if (mt_glibc_tunable("trim_threshold", "MALLOC_TRIM_THRESHOLD_", &v))
		set_trim_threshold(v);
	if (mt_glibc_tunable("top_pad", "MALLOC_TOP_PAD_", &v) ||
	    mt_glibc_tunable("mmap_max", "MALLOC_MMAP_MAX_", &v))
		__atomic_store_n(&no_dyn_threshold, 1, __ATOMIC_RELAXED);
	mt_glibc_arenas_init();
	mt_glibc_brk_baseline();
}

int mt_glibc_ready;

void mt_glibc_init_once(void)
{
	pthread_once(&init_once, read_environment);
	__atomic_store_n(&mt_glibc_ready, 1, __ATOMIC_RELEASE);
}

/* chunksize_nomask in glibc's test keeps the flag bits; so do we. */
int mt_glibc_free_raises_threshold(uintptr_t chunk)
{
	return !__atomic_load_n(&no_dyn_threshold, __ATOMIC_RELAXED) &&
	       chunk > __atomic_load_n(&mmap_threshold, __ATOMIC_RELAXED) &&
	       chunk <= GL_DEFAULT_MMAP_THRESHOLD_MAX;
}

void mt_glibc_raise_threshold(uintptr_t chunk)
{
	size_t size = chunk & ~(uintptr_t)GL_SIZE_BITS;

	if (!mt_glibc_free_raises_threshold(chunk))
		return;   /* another thread's free got there first */
	__atomic_store_n(&mmap_threshold, size, __ATOMIC_RELAXED);
	__atomic_store_n(&trim_threshold, 2 * size, __ATOMIC_RELAXED);
	mt_glibc_emit(MT_EV_DYN_THRESHOLDS, size, 2 * size);
}

/*
 * mallopt: fire memory_mallopt before the change, as glibc does, forward
 * it, and follow what it did to the thresholds.  Resolved on first use:
 * no allocator in the kit's list defines mallopt, so this finds glibc's.
 */
typedef int (*mallopt_fn)(int, int);
static mallopt_fn next_mallopt;

MT_EXPORT int mallopt(int param, int value)
{
	mallopt_fn fn = __atomic_load_n(&next_mallopt, __ATOMIC_ACQUIRE);
	int glibc, rc;

	if (!fn) {
		mt_next_resolve();
		fn = (mallopt_fn)dlsym(RTLD_NEXT, "mallopt");
		if (!fn)
			return 0;   /* mallopt's own way of saying "not done" */
		__atomic_store_n(&next_mallopt, fn, __ATOMIC_RELEASE);
	}
	glibc = mt_next_kind == MT_ALLOC_GLIBC;
	if (glibc) {
		mt_glibc_init();
		mt_glibc_emit(MT_EV_MALLOPT, (uint64_t)(int64_t)param, (uint64_t)(int64_t)value);
	}
	rc = fn(param, value);
	if (!glibc || rc != 1)
		return rc;
	switch (param) {
	case GL_M_MMAP_THRESHOLD: set_mmap_threshold((size_t)(long)value); break;
	case GL_M_TRIM_THRESHOLD: set_trim_threshold((size_t)(long)value); break;
	case GL_M_TOP_PAD:
	case GL_M_MMAP_MAX: __atomic_store_n(&no_dyn_threshold, 1, __ATOMIC_RELAXED); break;
	}
	return rc;
}
