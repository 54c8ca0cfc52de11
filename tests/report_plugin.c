/*
 * report_plugin.c - the library report_dl.c opens and closes: it leaks
 * blocks of 300 bytes that outlive it.
 */
#include <stdlib.h>

void *plugin_kept[8];

__attribute__((noinline)) void plugin_leak(int n)
{
	for (int i = 0; i < n; i++)
		plugin_kept[i] = malloc(300); /* SITE: plugin_leak */
}
