/*
 * rec_handback - the interleaving that made version 3's sparse stamps
 * (MTRACE_SPARSE_TIME=1) pair frees wrongly, made to happen every time:
 * thread A frees a block, thread B allocates that very block and frees it,
 * then A allocates it again with no call in between.  A's second
 * allocation returns the block its previous record freed, so a rule that
 * looked only at that would leave it unstamped and carrying the time of
 * A's free, before B's calls: trace2wl would then pair B's free with A's
 * allocation.  The recorder's owner table must see B's allocation and
 * stamp A's.  Then A frees the block and takes it back alone, which may
 * go unstamped.
 *
 * Run it with MALLOC_ARENA_MAX=1 and glibc's tcache off
 * (GLIBC_TUNABLES=glibc.malloc.tcache_count=0): the block then goes back
 * to the one arena at each free, and the next allocation of its size gets
 * it back whichever thread asks.  The threads hand over through an atomic
 * flag, which allocates nothing.
 *
 * Usage: rec_handback   prints "handed back ADDRESS" when B and A's second
 * allocation got A's first block, "not handed back" otherwise.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 2000 /* above the tcache's and fastbins' sizes */

static atomic_int turn;
static void *b_got;

static void wait_turn(int want)
{
	while (atomic_load(&turn) != want)
		;
}

static void *thread_b(void *arg)
{
	(void)arg;
	/* glibc takes a thread's cache (unrecorded) at its first call: not
	 * from A's block, then. */
	free(malloc(16));
	atomic_store(&turn, 1);
	wait_turn(2);
	b_got = malloc(SIZE);
	free(b_got);
	atomic_store(&turn, 3);
	wait_turn(4); /* its exit frees its cache, which may merge with the block */
	return NULL;
}

int main(void)
{
	pthread_t b;
	if (pthread_create(&b, NULL, thread_b, NULL) != 0) {
		fprintf(stderr, "rec_handback: cannot start a thread\n");
		return 1;
	}
	wait_turn(1);
	void *first = malloc(SIZE);
	free(first);
	atomic_store(&turn, 2);
	wait_turn(3);
	void *again = malloc(SIZE); /* its previous record freed this block */
	free(again);
	void *alone = malloc(SIZE); /* and again, no other thread between */
	free(alone);
	atomic_store(&turn, 4);
	pthread_join(b, NULL);
	if (first == b_got && again == first && alone == first)
		printf("handed back %p\n", first);
	else
		printf("not handed back\n");
	return 0;
}
