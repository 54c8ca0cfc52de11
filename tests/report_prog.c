/*
 * report_prog.c - a program with allocation sites whose bytes and counts
 * are known exactly, for t-report-*.sh: the tests build it themselves at
 * -O1 -g without frame pointers (as distributions build), record it with
 * stacks and hold mtrace-report's answer to the lines marked SITE below.
 *
 *   leak_here      leaks 7 blocks of 100 bytes
 *   lib_leak       (report_lib.c, a shared library) leaks 3 of 1000
 *   via_inline     leaks 5 of 40 through an always-inline helper
 *   peak_build     20 blocks of 5000 bytes live at once, then freed: the peak
 *   temp_site      50 blocks of 64 bytes, each freed before the next
 *                  allocation of the thread: temporaries
 *
 * The sites store what they get in `kept` after the call, so no call to
 * malloc is a tail call (which would take the site's frame off the stack).
 */
#include <stdio.h>
#include <stdlib.h>

void lib_leak(void **out, int n);

void *kept[64];
int nkept;

__attribute__((noinline)) void leak_here(void)
{
	kept[nkept++] = malloc(100); /* SITE: leak_here */
}

static inline __attribute__((always_inline)) void *inl_alloc(size_t n)
{
	void *p = malloc(n); /* SITE: inl_alloc */
	kept[nkept] = p;
	return p;
}

__attribute__((noinline)) void via_inline(void)
{
	kept[nkept++] = inl_alloc(40); /* SITE: via_inline */
}

__attribute__((noinline)) void peak_build(void **blocks)
{
	for (int i = 0; i < 20; i++)
		blocks[i] = malloc(5000); /* SITE: peak_build */
}

__attribute__((noinline)) void temp_site(void)
{
	for (int i = 0; i < 50; i++) {
		volatile char *p = malloc(64); /* SITE: temp_site */
		p[0] = 1;
		free((void *)p);
	}
}

int main(void)
{
	void *blocks[20];
	setvbuf(stdout, NULL, _IONBF, 0);
	peak_build(blocks);
	for (int i = 0; i < 20; i++)
		free(blocks[i]);
	temp_site();
	for (int i = 0; i < 7; i++)
		leak_here();
	for (int i = 0; i < 5; i++)
		via_inline();
	lib_leak(kept + nkept, 3);
	nkept += 3;
	printf("%d blocks kept\n", nkept);
	return 0;
}
