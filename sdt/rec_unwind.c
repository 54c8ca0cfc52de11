/*
 * rec_unwind.c - see rec_unwind.h.
 *
 * Our own walker (rec_stack_walk.c) takes every stack whose frames are all
 * of the standard form; libunwind's unw_backtrace takes the others, whole.
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
#include <stdlib.h>
#include <string.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "rec_modules.h"
#include "rec_stack_memo.h"
#include "rec_stack_walk.h"
#include "rec_text.h"
#include "trace_format.h"
#include "rec_unwind.h"

#define NAME(sym) NAME_(sym)
#define NAME_(sym) #sym

/* Frames of the recorder at the top of every walk, at most: mt_unwind_whole,
 * the stack capture, the record maker, the wrapper. */
#define OWN_FRAMES_MAX 8

static int (*backtrace_fn)(void **, int);
struct mt_unwind_setup mt_unwind_setup;

static int find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t here = (uintptr_t)arg, lo, hi;
	mt_module_span(info, &lo, &hi);
	if (here < lo || here >= hi)
		return 0;
	mt_unwind_setup.own_start = lo;
	mt_unwind_setup.own_end = hi;
	return 1;
}

/* MTRACE_UNWIND=libunwind: every stack from libunwind, none from our
 * walker (to compare the two, and to test libunwind's path). */
static int libunwind_only(void)
{
	const char *v = getenv("MTRACE_UNWIND");
	if (!v || !*v || strcmp(v, "own") == 0)
		return 0;
	if (strcmp(v, "libunwind") == 0)
		return 1;
	mt_say(MT_SAY_ERROR, "MTRACE_UNWIND must be 'own' or 'libunwind', not '", v,
	       "'; walking stacks with our own walker", NULL);
	return 0;
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
	dl_iterate_phdr(find_own, (void *)(uintptr_t)mt_unwind_load);
	mt_unwind_setup.walker = !libunwind_only() && mt_walk_init() == 0;
	return 0;
}

static inline int own(const void *ip)
{
	return (uintptr_t)ip >= mt_unwind_setup.own_start && (uintptr_t)ip < mt_unwind_setup.own_end;
}

size_t mt_unwind_whole(const uint64_t **frames, size_t max, uint64_t *hash)
{
	assert(max <= MT_STACK_FRAMES_MAX);
	struct mt_stack_memo *m = mt_stack_memo();
	if (!m)
		return 0;
	m->count = 0; /* no walk of ours to reuse: its frames are overwritten */
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
		m->rip[out++] = (uintptr_t)raw[i];
	*frames = m->rip;
	*hash = mt_stack_hash(m->rip, out);
	return out;
}
