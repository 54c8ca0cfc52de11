/*
 * report.h - printing a replay's figures, as text or JSON.
 *
 * The text starts line for line as the original trace_run printed it, since
 * scripts parse it; what this version adds (percentiles, outcomes, the
 * replayer's memory, the timer) follows.  The JSON holds the same figures
 * under stable names; --compare reads it back from its children.
 */
#ifndef RT_REPORT_H
#define RT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "replay.h"

void rt_report_text(FILE *out, const struct rt_result *res);
void rt_report_json(FILE *out, const struct rt_result *res);

/* v with thousands separators ("62,033"); eight calls' results stay valid. */
const char *rt_comma(uint64_t v);

/* Whether the replay's ideal peak is more than twice, or less than half,
 * what trace2wl computed in the recorded order (when the header says). */
int rt_ideal_differs(const struct rt_result *res, double *ratio);

/* Sum of the average-able call time over every call type. */
uint64_t rt_total_call_time(const struct rt_result *res);

#endif
