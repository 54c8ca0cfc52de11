#!/bin/sh
# t-report-unwind.sh - the recorder's own stack walker records the same
# stacks as libunwind's unw_backtrace, call for call: programs built
# without frame pointers, stacks that change a little between calls (the
# walker reuses the last walk's outer part), deeper than the depth and
# back, an rbp-based frame, frames keeping data in rbp, a signal
# handler's allocations (handed to libunwind) and a second thread; and
# with frame pointers.  Each program
# is recorded twice, MTRACE_UNWIND=own and MTRACE_UNWIND=libunwind, and
# every allocating call's stack compared (function, file, line, and the
# address within its page, which ASLR keeps).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/report-lib.sh"

# stacks TRACE OUT: one line per allocating call, in the order of the
# calls of each thread (threads in the order they first appear): its kind,
# size and frames.
stacks() {
	mtrace-report --export="$t_dir/x-$2" "$1" >/dev/null || fail "mtrace-report --export $1 failed"
	python3 - "$t_dir/x-$2" >"$2" <<'PY' || fail "reading the export of $1 failed"
import csv, glob, gzip, sys
d = sys.argv[1]
frames = {}
for f in sorted(glob.glob(d + "/stacks/*/*/*.gz")):
    for r in csv.DictReader(gzip.open(f, "rt")):
        a = int(r["address"])
        frames.setdefault(r["stack_id"], []).append(
            (int(r["depth"]), r["function"], r["file"], r["line"], r["module"], a & 0xfff))
calls = []
for f in glob.glob(d + "/calls/*/*/*.gz"):
    for r in csv.DictReader(gzip.open(f, "rt")):
        if r["op"] != "free":
            calls.append((int(r["seq"]), r["tid"], r["op"], r["size"], r["stack_id"]))
calls.sort()
order = {}
for seq, tid, op, size, sid in calls:
    order.setdefault(tid, len(order))
for seq, tid, op, size, sid in sorted(calls, key=lambda c: (order[c[1]], c[0])):
    print(order[tid], op, size, sorted(frames.get(sid, [])))
PY
}

# same PROGRAM NAME: PROGRAM's stacks are the same with either walker.
same() {
	MTRACE_UNWIND=own record "own-$2.mtr" "$1"
	MTRACE_UNWIND=libunwind record "lu-$2.mtr" "$1"
	stacks "own-$2.mtr" "own-$2.txt"
	stacks "lu-$2.mtr" "lu-$2.txt"
	n=$(wc -l <"own-$2.txt")
	[ "$n" -gt 0 ] || fail "$2: no allocating call recorded"
	cmp -s "own-$2.txt" "lu-$2.txt" ||
		fail "$2: stacks differ between the walkers: $(diff "own-$2.txt" "lu-$2.txt" | head -5)"
	grep -q "\[\]" "own-$2.txt" && fail "$2: a call without a stack"
	echo "$2: $n allocating calls, the same stacks"
}

build_prog "$t_dir/bin"
same "$t_dir/bin/report_prog" prog
"$CC" $RFLAGS -pthread -o "$t_dir/bin/report_unwind" "$top_srcdir/tests/report_unwind.c"
same "$t_dir/bin/report_unwind" unwind
# Deeper than the depth (64): the outermost frame recorded is still climb.
grep -q "(63, 'climb'," own-unwind.txt || fail "no stack cut at 64 frames inside climb"
grep -q "'on_signal'" own-unwind.txt || fail "no stack from the signal handler"
grep -q "'with_alloca'" own-unwind.txt || fail "no stack through with_alloca"
grep -q "'rbp_busy'" own-unwind.txt || fail "no stack through rbp_busy"
"$CC" -O1 -g -fno-omit-frame-pointer -fno-builtin -pthread -o "$t_dir/bin/report_unwind_fp" \
	"$top_srcdir/tests/report_unwind.c"
same "$t_dir/bin/report_unwind_fp" unwind-fp

# A bad value is said, and stacks are still recorded.
MTRACE_UNWIND=sideways MTRACE_STACKS=8 MTRACE_CTL_FILE=$t_dir/bad LD_PRELOAD="$MTRACECTL_LIB" \
	"$t_dir/bin/report_unwind" 2>bad.err || fail "MTRACE_UNWIND=sideways broke the program"
grep -q "MTRACE_UNWIND must be 'own' or 'libunwind', not 'sideways'" bad.err ||
	fail "no message for a bad MTRACE_UNWIND: $(cat bad.err)"
pass
