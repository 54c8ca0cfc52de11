/*
 * report_grow.c - a program for mtrace-report --diff: run with N, grow_site
 * leaks N blocks of 4000 bytes while same_site allocates the same 100000
 * bytes whatever N is, so between a run with 1 and one with 2 only
 * grow_site changed (+4000 bytes, one more block).
 */
#include <stdlib.h>

void *kept[64];

__attribute__((noinline)) void grow_site(int n)
{
	for (int i = 0; i < n; i++)
		kept[i] = malloc(4000);
}

__attribute__((noinline)) void same_site(void)
{
	for (int i = 0; i < 10; i++)
		kept[32 + i] = malloc(10000);
	for (int i = 0; i < 10; i++)
		free(kept[32 + i]);
}

int main(int argc, char **argv)
{
	same_site();
	grow_site(argc > 1 ? atoi(argv[1]) : 1);
	return 0;
}
