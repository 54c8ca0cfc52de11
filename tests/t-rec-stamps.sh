#!/bin/sh
# t-rec-stamps: by default every record carries its own time; with
# MTRACE_SPARSE_TIME=1 (experimental) an allocation of the block its
# thread's previous call freed carries a stamp's time instead (unless it is
# the 32nd since one), and this trace, whose threads never trade blocks,
# converts with nothing dropped; a bad value is one line and the default
# (format version 3, docs/FORMAT.md).
. "$top_srcdir/tests/lib.sh"

storm=$top_builddir/tests/rec_storm
stamps=$top_builddir/tests/rec_stamps

MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/precise LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/log" 2 20000 0 >/dev/null 2>err || fail "rec_storm failed: $(cat err)"
[ ! -s err ] || fail "unexpected messages: $(cat err)"
"$stamps" "$(ls precise.*)" >precise.count || fail "rec_stamps: $(cat precise.count)"
set -- $(cat precise.count)
[ "$2" -gt 40000 ] || fail "too few records to tell: $2"
expect_eq "stamped records by default" "$2" "$1"

MTRACE_SPARSE_TIME=1 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/sparse LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/log" 2 20000 0 >/dev/null 2>err || fail "rec_storm failed: $(cat err)"
sparse=$(ls sparse.*)
"$stamps" "$sparse" >sparse.count || fail "rec_stamps: $(cat sparse.count)"
set -- $(cat sparse.count)
[ "$1" -gt 0 ] && [ "$1" -lt "$2" ] || fail "sparse: $1 of $2 records stamped, expected some"
# Every 32nd record at least.
[ $(($1 * 32)) -ge "$2" ] || fail "sparse: $1 of $2 records stamped, fewer than one in 32"
trace2wl sparse.wl "$sparse" >sum 2>err || fail "trace2wl: $(cat err)"
grep -q ' 0 unknown frees -> ' sum || fail "frees dropped: $(cat sum)"

MTRACE_SPARSE_TIME=yes MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/bad LD_PRELOAD=$MTRACECTL_LIB \
	"$storm" "$t_dir/log" 2 20000 0 >/dev/null 2>err || fail "rec_storm failed: $(cat err)"
expect_eq "message of a bad MTRACE_SPARSE_TIME" \
	"mtrace: MTRACE_SPARSE_TIME must be 0 or 1, not 'yes'; every record is stamped" \
	"$(cat err)"
"$stamps" "$(ls bad.*)" >bad.count || fail "rec_stamps: $(cat bad.count)"
set -- $(cat bad.count)
expect_eq "a bad value: stamped records" "$2" "$1"
pass
