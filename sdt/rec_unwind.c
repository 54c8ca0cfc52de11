/*
 * rec_unwind.c - see rec_unwind.h.
 *
 * Allocation: unw_backtrace keeps its per-thread cache in memory it maps
 * itself, and finds unwind tables with dl_iterate_phdr; should anything in
 * it call malloc, the recorder's busy flag turns that call away (counted as
 * dropped), so it cannot recurse.
 */
#include "config.h"

#include <assert.h>
#include <dlfcn.h>
#include <link.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "rec_modules.h"
#include "rec_text.h"
#include "trace_format.h"
#include "rec_unwind.h"

#define NAME(sym) NAME_(sym)
#define NAME_(sym) #sym

/* Frames of the recorder at the top of every walk, at most: mt_unwind,
 * the stack capture, the record maker, the wrapper. */
#define OWN_FRAMES_MAX 8

static int (*backtrace_fn)(void **, int);
static uintptr_t own_start, own_end;

static int find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t here = (uintptr_t)arg, lo, hi;
	mt_module_span(info, &lo, &hi);
	if (here < lo || here >= hi)
		return 0;
	own_start = lo;
	own_end = hi;
	return 1;
}

int mt_unwind_load(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	int (*set_caching)(unw_addr_space_t, unw_caching_policy_t) =
		h ? dlsym(h, NAME(unw_set_caching_policy)) : NULL;
	unw_addr_space_t *local = h ? dlsym(h, NAME(unw_local_addr_space)) : NULL;
	backtrace_fn = h ? dlsym(h, "unw_backtrace") : NULL;
	if (!set_caching || !local || !backtrace_fn) {
		mt_say(MT_SAY_ERROR, "MTRACE_STACKS needs libunwind.so.8 (Debian: libunwind8): ",
		       h ? "it lacks unw_backtrace" : "cannot load it", "; recording without stacks",
		       NULL);
		backtrace_fn = NULL;
		return -1;
	}
	set_caching(*local, UNW_CACHE_PER_THREAD);
	dl_iterate_phdr(find_own, (void *)(uintptr_t)mt_unwind);
	return 0;
}

static inline int own(const void *ip)
{
	return (uintptr_t)ip >= own_start && (uintptr_t)ip < own_end;
}

size_t mt_unwind(uint64_t *frames, size_t max)
{
	assert(max <= MT_STACK_FRAMES_MAX);
	size_t want = max + OWN_FRAMES_MAX;
	void *raw[want];
	int n = backtrace_fn(raw, (int)want);
	size_t i = 0, out = 0;
	/* unw_backtrace's own frame first, then ours, then the program's. */
	while (i < (size_t)n && !own(raw[i]))
		i++;
	while (i < (size_t)n && own(raw[i]))
		i++;
	for (; i < (size_t)n && out < max; i++)
		frames[out++] = (uintptr_t)raw[i];
	return out;
}
