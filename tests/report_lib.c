/*
 * report_lib.c - the shared library report_prog.c links: a leak site in
 * another module, which mtrace-report must name from that module's debug
 * information.
 */
#include <stdlib.h>

__attribute__((noinline)) void lib_leak(void **out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = malloc(1000); /* SITE: lib_leak */
}
