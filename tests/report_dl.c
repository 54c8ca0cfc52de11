/*
 * report_dl.c - a program that dlopens a library that allocates, closes
 * it, and allocates on: the stacks taken while the library was loaded
 * must still name its function after the dlclose, and the module map the
 * trace holds must change with it.  Argument: the library's path.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *after[2];

__attribute__((noinline)) void after_close(void)
{
	for (int i = 0; i < 2; i++)
		after[i] = malloc(77); /* SITE: after_close */
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	void (*plugin_leak)(int) = (void (*)(int))dlsym(h, "plugin_leak");
	if (!plugin_leak)
		return 1;
	plugin_leak(2);
	dlclose(h);
	after_close();
	return 0;
}
