/*
 * check.h - assertions for the C test programs: a failed CHECK says where
 * and what, and the program goes on (up to 20 failures) so one run shows
 * every broken case; check_result() is the exit status.
 */
#ifndef MT_TEST_CHECK_H
#define MT_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			if (++check_failures > 20)                             \
				exit(1);                                       \
		}                                                              \
	} while (0)

static inline int check_result(void)
{
	if (check_failures)
		fprintf(stderr, "%d failures\n", check_failures);
	return check_failures ? 1 : 0;
}

#endif
