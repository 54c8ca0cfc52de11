/*
 * tunables.c - parsing -o and handing each setting to glibc (see tunables.h).
 *
 * These are the experiments the original authors ran by hand: move the mmap
 * threshold, stop trimming, cap arenas, resize the tcache, then replay.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunables.h"

/* mallopt(3): the mmap threshold tops out at 4 MiB per byte of a long
 * (32 MiB on 64-bit); glibc 2.36 accepts more silently and ignores it. */
#define MMAP_THRESHOLD_MAX (4L * 1024 * 1024 * (long)sizeof(long))

static const struct {
	const char *name;
	int param; /* 0: GLIBC_TUNABLES glibc.malloc.<name> */
	long min, max;
} known[] = {
	{ "mmap_threshold", M_MMAP_THRESHOLD, 0, MMAP_THRESHOLD_MAX },
	{ "trim_threshold", M_TRIM_THRESHOLD, 0, INT_MAX },
	{ "top_pad", M_TOP_PAD, 0, INT_MAX },
	{ "mmap_max", M_MMAP_MAX, 0, INT_MAX },
	{ "arena_max", M_ARENA_MAX, 1, INT_MAX },
	{ "arena_test", M_ARENA_TEST, 1, INT_MAX },
	{ "perturb", M_PERTURB, 0, 255 },
	{ "tcache_count", 0, 0, 65535 },
	{ "tcache_max", 0, 0, LONG_MAX },
};

/* Decimal, with an optional k, m or g suffix (powers of 1024). */
static int parse_value(const char *s, long *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9') /* strtol would take spaces and a sign */
		return -1;
	long v = strtol(s, &end, 10);
	if (errno)
		return -1;
	int shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || (shift && (v > LONG_MAX >> shift || v < 0)))
		return -1;
	*out = v << shift;
	return 0;
}

static int add_one(struct rt_tunables *tun, char *item, char *why, size_t why_len)
{
	char *eq = strchr(item, '=');
	if (!eq) {
		snprintf(why, why_len, "-o %s: expected name=value", item);
		return -1;
	}
	*eq = 0;
	size_t k = 0, nknown = sizeof known / sizeof known[0];
	while (k < nknown && strcmp(known[k].name, item))
		k++;
	if (k == nknown) {
		snprintf(why, why_len, "-o %s=%s: unknown setting (mmap_threshold, trim_threshold, "
			 "top_pad, mmap_max, arena_max, arena_test, perturb, tcache_count, tcache_max)",
			 item, eq + 1);
		return -1;
	}
	long v;
	if (parse_value(eq + 1, &v) || v < known[k].min || v > known[k].max) {
		snprintf(why, why_len, "-o %s=%s: not a number from %ld to %ld", item, eq + 1,
			 known[k].min, known[k].max);
		return -1;
	}
	if (tun->n == RT_TUNABLES_MAX) {
		snprintf(why, why_len, "-o: more than %d settings", RT_TUNABLES_MAX);
		return -1;
	}
	tun->t[tun->n++] = (struct rt_tunable){ known[k].name, known[k].param, v };
	return 0;
}

int rt_tunables_parse(struct rt_tunables *tun, const char *text, char *why, size_t why_len)
{
	char buf[1024];
	if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf) {
		snprintf(why, why_len, "-o: setting list too long");
		return -1;
	}
	char *save, *item = strtok_r(buf, ",", &save);
	if (!item) {
		snprintf(why, why_len, "-o: empty setting list");
		return -1;
	}
	for (; item; item = strtok_r(NULL, ",", &save))
		if (add_one(tun, item, why, why_len))
			return -1;
	return 0;
}

const char *rt_tunables_env(const struct rt_tunables *tun)
{
	static char env[2048];
	const char *old = getenv("GLIBC_TUNABLES");
	size_t len = (size_t)snprintf(env, sizeof env, "%s", old ? old : "");
	int added = 0;
	for (int i = 0; i < tun->n && len < sizeof env; i++) {
		if (tun->t[i].mallopt_param)
			continue;
		len += (size_t)snprintf(env + len, sizeof env - len, "%sglibc.malloc.%s=%ld",
					len ? ":" : "", tun->t[i].name, tun->t[i].value);
		added = 1;
	}
	return added ? env : NULL;
}

int rt_tunables_apply(const struct rt_tunables *tun, char *why, size_t why_len)
{
	for (int i = 0; i < tun->n; i++) {
		const struct rt_tunable *t = &tun->t[i];
		if (t->mallopt_param && mallopt(t->mallopt_param, (int)t->value) != 1) {
			snprintf(why, why_len, "-o %s=%ld: glibc's mallopt refused this value", t->name,
				 t->value);
			return -1;
		}
	}
	return 0;
}
