#!/bin/sh
# t-rec-bpftrace: every recorded call fires its marker once, and every
# marker hit is recorded.  bpftrace, attached to libmtracectl.so by path
# before the program starts, counts the return and free markers of one
# process between the two sentinel mallocs of rec_cxx (4 threads, new and
# delete through libstdc++); the trace must hold exactly as many calls over
# the same span.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
lib=$MTRACECTL_LIB

# The sentinels (rec_cxx.cc): counting starts after malloc(BEGIN) returns
# and stops when malloc(END) is entered, so neither is counted.
begin=386529 # 0x5e5e1
end=386530   # 0x5e5e2
cat >count.bt <<EOT
BEGIN { printf("# counting markers of pid %d\n", \$1); }
usdt:$lib:mtrace:malloc_return /pid == \$1/ {
	if (arg1 == $begin) { @on = 1; } else if (@on) { @hits = count(); }
}
usdt:$lib:mtrace:malloc_entry /pid == \$1 && arg0 == $end/ { @on = 0; }
usdt:$lib:mtrace:calloc_return, usdt:$lib:mtrace:realloc_return,
usdt:$lib:mtrace:reallocarray_return, usdt:$lib:mtrace:memalign_return,
usdt:$lib:mtrace:posix_memalign_return, usdt:$lib:mtrace:aligned_alloc_return,
usdt:$lib:mtrace:valloc_return, usdt:$lib:mtrace:pvalloc_return,
usdt:$lib:mtrace:free /pid == \$1 && @on/ { @hits = count(); }
END { clear(@on); }
EOT

gated env MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$t_dir/tr" LD_PRELOAD="$lib" \
	"$top_builddir/tests/rec_cxx"
bt_watch bt.out "rec_cxx under the recorder" count.bt
bt_stop
hits=$(sed -n 's/^@hits: //p' bt.out)
[ -n "$hits" ] || fail "bpftrace counted nothing: $(cat bt.out bt.stderr | grep -v RLIMIT | head -n 5)"

# The same span in the trace: the main thread's calls between the two
# sentinels, and every call of the worker threads (they live inside it).
mtrace-dump tr.* >dump.txt || fail "mtrace-dump: $(cat dump.txt)"
recs=$(awk -v main="$gated_pid" -v b="$begin" -v e="$end" '
	/^#/ || / event / { next }
	{ split($1, id, ":") }
	id[1] == main && $3 == "malloc(" b ")" { on = 1; next }
	id[1] == main && $3 == "malloc(" e ")" { on = 0 }
	id[1] != main || on { n++ }
	END { print n + 0 }' dump.txt)
[ "$recs" -gt 4000 ] || fail "only $recs calls between the sentinels; did the sentinels reach the library?"
expect_eq "marker hits (bpftrace) vs calls in the trace" "$hits" "$recs"
pass
