/*
 * rec_modules.h - the module map of the traced process, in the trace.
 *
 * A stack is a list of addresses; to name functions on another machine,
 * or after the program is gone, a reader needs to know which file was
 * mapped where (path, load address, build-id) when the stack was taken.
 * The map is written into the stack table before the first stack of each
 * trace file, and again whenever the set of loaded objects has changed
 * (glibc counts dlopens and dlcloses in dlpi_adds and dlpi_subs) before a
 * new stack is written, so every stack is resolved against the map that
 * held when it was first seen.
 */
#ifndef MT_REC_MODULES_H
#define MT_REC_MODULES_H

#include <link.h>
#include <stdint.h>

/*
 * Writes the module map if it changed, and returns with the table lock
 * held.  The loader's lock is taken first (this runs in a dl_iterate_phdr
 * callback), so a thread that calls malloc while it holds the loader's
 * lock, as dlopen does, can never wait for us while we wait for it.
 */
void mt_modules_check_and_lock(void);

/* [*lo, *hi): the run-time addresses a loaded object's PT_LOAD segments
 * span (*hi <= *lo when it has none). */
void mt_module_span(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi);

#endif
