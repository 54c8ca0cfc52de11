#!/bin/sh
# t-rec-known: a known sequence of calls on 4 threads (every call type,
# cross-thread frees, failures) is in the trace exactly, argument for
# argument, with the usable sizes and chunk flags the program saw.
. "$top_srcdir/tests/lib.sh"

MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/tr LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_known" known.log || fail "rec_known failed"
set -- tr.*
[ $# -eq 1 ] || fail "expected one trace, got: $*"
"$top_builddir/tests/rec_expect" --skip-before --exit-frees "$1" known.log >out 2>&1 || fail "$(cat out)"
expect_eq "threads matched from their first record" 4 "$(grep -c "calls match (0 earlier" out)"
# The flags were put to the test: the log has mmapped and non-main blocks.
grep -q ' 0x1[0-9a-f]*$' known.log || fail "no mmapped block in the log"
grep -q ' 0x2[0-9a-f]*$' known.log || fail "no block of a non-main arena in the log"
pass
