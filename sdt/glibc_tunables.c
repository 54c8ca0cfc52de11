/*
 * glibc_tunables.c - the malloc settings a program was started with, read
 * from the environment the way glibc's ptmalloc_init reads them.
 *
 * The deriver cannot ask glibc for its thresholds, so it starts from what
 * glibc started from: GLIBC_TUNABLES ("glibc.malloc.NAME=VALUE:...") and
 * the older MALLOC_NAME_ variables glibc still accepts as aliases.  getenv
 * and strtoull do not allocate, so this is safe inside malloc.
 */
#include <stdlib.h>
#include <string.h>

#include "glibc_internal.h"

/* Finds "glibc.malloc.NAME=VALUE" in GLIBC_TUNABLES. */
static int from_tunables(const char *name, unsigned long long *value)
{
	static const char prefix[] = "glibc.malloc.";
	const char *t = getenv("GLIBC_TUNABLES");
	size_t n = strlen(name);
	int found = 0;

	while (t && *t) {
		const char *end = strchr(t, ':');
		size_t len = end ? (size_t)(end - t) : strlen(t);

		if (len > sizeof prefix - 1 + n && memcmp(t, prefix, sizeof prefix - 1) == 0 &&
		    memcmp(t + sizeof prefix - 1, name, n) == 0 && t[sizeof prefix - 1 + n] == '=') {
			*value = strtoull(t + sizeof prefix + n, NULL, 0);
			found = 1;   /* the last setting wins, as in glibc */
		}
		t = end ? end + 1 : NULL;
	}
	return found;
}

int mt_glibc_tunable(const char *name, const char *alias, unsigned long long *value)
{
	const char *v = alias ? getenv(alias) : NULL;

	if (from_tunables(name, value))
		return 1;
	if (v && *v) {
		*value = strtoull(v, NULL, 0);
		return 1;
	}
	return 0;
}
