#!/bin/sh
# t-conv-workload.sh - workloads survive the writer and reader unchanged,
# and the reader's full check refuses each damaged variant with its reason.
. "$top_srcdir/tests/lib.sh"
"$top_builddir/tests/conv_wlrt" "$t_dir" || fail "conv_wlrt found a mismatch (above)"
pass
