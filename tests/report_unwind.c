/*
 * report_unwind.c - stacks that test the recorder's own walker against
 * libunwind's (t-report-unwind.sh): stacks that grow and shrink between
 * consecutive calls (the walker reuses the outer part of the last one),
 * deeper than the recorded depth (64) and then shallower again, a frame
 * whose CFA is rbp-based (alloca), frames that keep data in rbp (the
 * walker does not compare what no CFA depends on) around and inside
 * rbp-based ones, a signal handler that allocates (a
 * signal frame: the walker hands that stack to libunwind), and a second
 * thread doing the same.  Deterministic: the same calls in every run.
 */
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

static __attribute__((noinline)) void leaf(size_t n)
{
	sink = malloc(n);
	free(sink);
}

/* depth frames of recursion, a block at every level on the way back. */
static __attribute__((noinline)) void climb(int depth, size_t n)
{
	if (depth > 0)
		climb(depth - 1, n + 1);
	leaf(n);
	sink = malloc(n + 8);
	free(sink);
}

/* A frame that addresses its locals through rbp: its CFA is rbp-based. */
static __attribute__((noinline)) void with_alloca(size_t n)
{
	char *buf = alloca(n + 16);
	memset(buf, 1, n + 16);
	sink = buf;
	climb(3, n);
}

/* An rbp-based frame calling the allocation directly. */
static __attribute__((noinline)) void alloca_leaf(size_t n)
{
	char *buf = alloca(n + 16);
	buf[0] = 1;
	sink = buf;
	leaf(n);
}

/* Two callers of alloca_leaf whose frames differ in size, called from one
 * call site (call_vias'): given sizes of alloca that differ by as much,
 * alloca_leaf's call of leaf is made at the same rsp from either, with the
 * same return addresses where the one walked before read them (the bigger
 * frame's pad keeps the smaller one's), and only rbp tells the two stacks
 * apart. */
static __attribute__((noinline)) void via_small(size_t n)
{
	char pad[16];
	pad[0] = (char)n;
	sink = pad;
	alloca_leaf(n);
	sink = NULL;
}

static __attribute__((noinline)) void via_big(size_t n)
{
	char pad[16 + 64];
	pad[0] = (char)n;
	sink = pad;
	alloca_leaf(n);
	sink = NULL;
}

static void (*const vias[2])(size_t) = { via_small, via_big };

static __attribute__((noinline)) void call_vias(size_t small_n)
{
	for (volatile int v = 0; v < 2; v++)
		vias[v](v ? 64 : small_n);
}

/* Six values live across calls: without frame pointers, one of them is
 * in rbp, different at every call, between the allocations below and the
 * frames further out; the fast and alloca frames inside read their own. */
static __attribute__((noinline)) long rbp_busy(long x)
{
	long a = x * 3, b = x ^ 5, c = x + 7, d = x * x, e = x - 11, g = x << 2;
	leaf((size_t)(x & 63) + 1);
	with_alloca((size_t)x % 50);
	a += b * c;
	leaf((size_t)(a & 31) + 2);
	b += d - e;
	with_alloca((size_t)(b & 15));
	return a + b + c + d + e + g;
}

static void on_signal(int sig)
{
	(void)sig;
	leaf(77);
}

static void *work(void *arg)
{
	int rounds = *(int *)arg;
	for (int r = 0; r < rounds; r++) {
		climb(r % 90, 16);   /* 0..89 levels: past 64 and back */
		with_alloca((size_t)r % 200);
		sink = (void *)rbp_busy(r * 7919L);
		call_vias(64 + (size_t)(r % 9) * 16);
		if (r % 25 == 0)
			raise(SIGUSR1);
	}
	return NULL;
}

int main(void)
{
	int rounds = 200;
	signal(SIGUSR1, on_signal);
	work(&rounds);
	pthread_t t;
	if (pthread_create(&t, NULL, work, &rounds) != 0)
		return 1;
	pthread_join(t, NULL);
	return 0;
}
