/*
 * tunables.h - glibc malloc tunables given with -o name=value,...
 *
 * Most are mallopt parameters and are set in this process just before the
 * replay; tcache_count and tcache_max exist only as GLIBC_TUNABLES, which
 * glibc reads at start-up, so they go into the environment of a re-executed
 * trace_run (see main.c).
 */
#ifndef RT_TUNABLES_H
#define RT_TUNABLES_H

#define RT_TUNABLES_MAX 16

struct rt_tunables {
	int n;
	struct rt_tunable {
		const char *name;
		int mallopt_param; /* M_*, or 0 for a GLIBC_TUNABLES entry */
		long value;
	} t[RT_TUNABLES_MAX];
};

/* Adds the settings in text ("a=1,b=2") to tun.  Returns 0, or -1 with a
 * one-line reason in why (naming the setting). */
int rt_tunables_parse(struct rt_tunables *tun, const char *text, char *why, size_t why_len);

/* The GLIBC_TUNABLES value the process needs: the current one with ours
 * appended; NULL when there is nothing to add.  Static storage. */
const char *rt_tunables_env(const struct rt_tunables *tun);

/* Calls mallopt for each setting; -1 with why set if glibc refuses one. */
int rt_tunables_apply(const struct rt_tunables *tun, char *why, size_t why_len);

#endif
