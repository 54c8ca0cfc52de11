/*
 * rec_early - a library whose constructor allocates, preloaded after the
 * recorder so that its constructor runs before the recorder's (the dynamic
 * loader initialises the later of two unrelated libraries first), as the
 * constructors of a program's own libraries do.  The trace must hold the
 * block: recording is decided at the first call, not in our constructor.
 */
#include <stdlib.h>

#define REC_EARLY_SIZE 0xea51

void *rec_early_block;

__attribute__((constructor)) static void allocate_before_the_recorder(void)
{
	rec_early_block = malloc(REC_EARLY_SIZE);
}
