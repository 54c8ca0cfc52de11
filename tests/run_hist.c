/*
 * run_hist.c - trace_run's per-call statistics (trace_run/hist.c): counts,
 * totals, maxima, merging, and percentiles read from the log2 histogram.
 *
 * A percentile is the top of the bucket holding the rank, never above the
 * maximum; buckets are a quarter of a power of two wide, so a reported
 * figure is at least the true one and less than 1.25 times it.  Checked on
 * distributions whose true percentiles are known, and at the edges.
 */
#include <string.h>

#include "check.h"
#include "hist.h"

/* A thread's figures as they are read: merged into a zeroed set, which
 * also counts the calls. */
static const struct rt_callstat *merged(const struct rt_callstat *s)
{
	static struct rt_callstat m;
	memset(&m, 0, sizeof m);
	rt_callstat_merge(&m, s);
	return &m;
}

/* reported must bound truth from above, within a quarter. */
static void near(const char *what, uint64_t truth, uint64_t reported)
{
	CHECK(reported >= truth && (double)reported < 1.25 * (double)truth + 1,
	      "%s: true %llu, reported %llu", what, (unsigned long long)truth,
	      (unsigned long long)reported);
}

static void uniform(void)
{
	static struct rt_callstat s;
	memset(&s, 0, sizeof s);
	for (uint64_t v = 1; v <= 1000; v++)
		rt_callstat_add(&s, v);
	const struct rt_callstat *m = merged(&s);
	CHECK(m->count == 1000 && m->total == 500500 && m->max == 1000, "count %llu total %llu max %llu",
	      (unsigned long long)m->count, (unsigned long long)m->total, (unsigned long long)m->max);
	/* rank 500 is 500, in bucket 448..511; rank 990 is 990, in 896..1023,
	 * capped at the maximum */
	CHECK(rt_callstat_quantile(m, 0.5) == 511, "p50 %llu", (unsigned long long)rt_callstat_quantile(m, 0.5));
	CHECK(rt_callstat_quantile(m, 0.99) == 1000, "p99 %llu", (unsigned long long)rt_callstat_quantile(m, 0.99));
	CHECK(rt_callstat_quantile(m, 1.0) == 1000, "p100 %llu", (unsigned long long)rt_callstat_quantile(m, 1.0));
	near("p10", 100, rt_callstat_quantile(m, 0.1));
	near("p75", 750, rt_callstat_quantile(m, 0.75));
}

/* 99 fast calls and one slow one: p50 is fast, p99 still fast, max slow. */
static void outlier(void)
{
	static struct rt_callstat s;
	memset(&s, 0, sizeof s);
	for (int i = 0; i < 99; i++)
		rt_callstat_add(&s, 40);
	rt_callstat_add(&s, 1000000);
	const struct rt_callstat *m = merged(&s);
	near("outlier p50", 40, rt_callstat_quantile(m, 0.5));
	near("outlier p99", 40, rt_callstat_quantile(m, 0.99));
	CHECK(rt_callstat_quantile(m, 1.0) == 1000000, "outlier p100 %llu",
	      (unsigned long long)rt_callstat_quantile(m, 1.0));
	CHECK(m->max == 1000000 && m->count == 100, "outlier max %llu count %llu",
	      (unsigned long long)m->max, (unsigned long long)m->count);
}

/* Small values have exact buckets; huge ones do not overflow the table. */
static void edges(void)
{
	static struct rt_callstat s;
	for (uint64_t v = 0; v < 4; v++) {
		memset(&s, 0, sizeof s);
		rt_callstat_add(&s, v);
		CHECK(rt_callstat_quantile(merged(&s), 0.5) == v, "single %llu: p50 %llu", (unsigned long long)v,
		      (unsigned long long)rt_callstat_quantile(merged(&s), 0.5));
	}
	uint64_t big[] = { 4, 5, 7, 8, 1000, 123456789, UINT64_MAX / 3, UINT64_MAX };
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
		CHECK(rt_hist_index(big[i]) < RT_HIST_BUCKETS, "index of %llu", (unsigned long long)big[i]);
		memset(&s, 0, sizeof s);
		rt_callstat_add(&s, big[i] / 2);
		rt_callstat_add(&s, big[i]);
		near("pair p50", big[i] / 2, rt_callstat_quantile(merged(&s), 0.5));
	}
	memset(&s, 0, sizeof s);
	CHECK(rt_callstat_quantile(merged(&s), 0.5) == 0, "empty p50");
}

/* Two threads' statistics merge into what one would have seen. */
static void merge(void)
{
	static struct rt_callstat a, b, all, sum;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&all, 0, sizeof all);
	memset(&sum, 0, sizeof sum);
	for (uint64_t v = 1; v <= 300; v++) {
		rt_callstat_add(v % 3 ? &a : &b, v * 7);
		rt_callstat_add(&all, v * 7);
	}
	rt_callstat_merge(&sum, &a);
	rt_callstat_merge(&sum, &b);
	CHECK(!memcmp(&sum, merged(&all), sizeof sum), "merged statistics differ from one thread's");
	CHECK(sum.count == 300, "merged count %llu", (unsigned long long)sum.count);
}

int main(void)
{
	uniform();
	outlier();
	edges();
	merge();
	return check_result();
}
