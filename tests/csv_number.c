/*
 * csv_number.c - mtrace-report --export's number cells (tools/csv_gz.h)
 * against printf, at every digit count and its edges: the exporter writes
 * hundreds of millions of them by hand, in blocks of 8 digits, and a wrong
 * digit would be a wrong pointer or time in every engine's answer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../tools/csv_gz.h"

static void check_number(uint64_t v)
{
	char want[32], got[CSV_GZ_CELL_MAX + 1];
	snprintf(want, sizeof want, "%" PRIu64 ",", v);
	char *end = csv_u64(got, v, ',');
	*end = 0;
	CHECK(strcmp(got, want) == 0, "%" PRIu64 ": '%s', not '%s'", v, got, want);
	CHECK((size_t)(end - got) <= CSV_GZ_CELL_MAX, "%" PRIu64 ": %td bytes", v, end - got);
}

int main(void)
{
	/* around every power of ten, and every 8-digit block boundary */
	for (uint64_t p = 1;; p *= 10) {
		for (uint64_t d = 0; d < 3; d++) {
			check_number(p + d);
			check_number(p - d);
			check_number(2 * p - 1);
			check_number(9 * p + d);
		}
		if (p > UINT64_MAX / 10)
			break;
	}
	check_number(UINT64_MAX);
	check_number(UINT64_MAX - 1);
	check_number(0x7ffc12345678ull);  /* a stack or mmap address */
	/* a spread of values of every length: an LCG, steps of varied size */
	uint64_t x = 1;
	for (int i = 0; i < 1000000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		check_number(x >> (i % 64));
	}
	return check_result();
}
