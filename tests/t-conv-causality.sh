#!/bin/sh
# t-conv-causality.sh - trace2wl orders calls by causality where timestamps
# disagree, and adds exactly the sync points a replay needs: handoffs
# between four threads, thread starts, realloc moves across threads, a
# failed realloc in one thread before the free in another, and
# allocations that return an address before its free in another thread
# (inversions of depth 1, 2 and 3).  Every expected dump below was derived by
# hand from the script above it; --dump also runs the reader's full check.
. "$top_srcdir/tests/lib.sh"

# conv NAME < SCRIPT: trace from the script, workload, and its dump.
conv() {
	"$top_builddir/tests/conv_mktrace" "$1.mtrace" || fail "$1: conv_mktrace"
	trace2wl --no-timing "$1.wl" "$1.mtrace" >"$1.sum" 2>"$1.err" || fail "$1: trace2wl: $(cat "$1.err")"
	trace2wl --dump "$1.wl" >"$1.dump" || fail "$1: --dump failed"
}

# expect_dump NAME < EXPECTED
expect_dump() {
	cat >"$1.want"
	diff -u "$1.want" "$1.dump" >&2 || fail "$1: workload differs from the expected one"
}

# Three threads take blocks that one thread allocated and hand them around.
# Thread starts wait for the call before them; a free of another thread's
# block waits only when no earlier wait already covers the allocation.
conv ring <<'S'
1 100 malloc 8 = 0x100
1 101 malloc 8 = 0x200
1 102 malloc 8 = 0x300
2 110 malloc 1 = 0x900
3 120 malloc 1 = 0x910
4 130 malloc 1 = 0x920
2 140 free 0x100
3 150 free 0x200
4 160 free 0x300
1 170 malloc 8 = 0x400
4 180 free 0x400
2 190 free 0x920
3 200 free 0x900
S
expect_dump ring <<'D'
# thread 0 tid 1, 6 ops
1  malloc(8) = #1
1  malloc(8) = #2
1  malloc(8) = #3
1  signal 0
1  malloc(8) = #7
1  signal 3
# thread 1 tid 2, 6 ops
2  wait 0
2  malloc(1) = #4
2  signal 1
2  free(#1)
2  wait 4
2  free(#6)
# thread 2 tid 3, 5 ops
3  wait 1
3  malloc(1) = #5
3  signal 2
3  free(#2)
3  free(#4)
# thread 3 tid 4, 6 ops
4  wait 2
4  malloc(1) = #6
4  free(#3)
4  wait 3
4  free(#7)
4  signal 4
D
expect_eq "ring summary" "trace2wl: 4 threads, 13 calls, 1 block never freed, 0 unknown frees -> ring.wl (437 bytes, 33.6 B/call)" "$(cat ring.sum)"

# A block moves by realloc to another thread and back.
conv move <<'S'
1 100 malloc 10 = 0xa000
2 200 realloc 0xa000 20 = 0xb000
1 300 realloc 0xb000 30 = 0xa000
2 400 free 0xa000
S
expect_dump move <<'D'
# thread 0 tid 1, 5 ops
1  malloc(10) = #1
1  signal 0
1  wait 1
1  realloc(#2, 30) = #3
1  signal 2
# thread 1 tid 2, 5 ops
2  wait 0
2  realloc(#1, 20) = #2
2  signal 1
2  wait 2
2  free(#3)
D

# A realloc that fails leaves the block live, but it used the block: the
# later free in a third thread waits for the failed realloc, not only for
# the allocation.
conv failedmove <<'S'
3 50 malloc 8 = 0x9000
1 100 malloc 16 = 0x1000
2 200 realloc 0x1000 99999999999 = NULL
3 300 free 0x1000
S
expect_dump failedmove <<'D'
# thread 0 tid 3, 4 ops
3  malloc(8) = #1
3  signal 0
3  wait 2
3  free(#2)
# thread 1 tid 1, 3 ops
1  wait 0
1  malloc(16) = #2
1  signal 1
# thread 2 tid 2, 3 ops
2  wait 1
2  realloc(#2, 99999999999) = NULL
2  signal 2
D

# Depth 1: thread 2 gets 0xa000 (ts 200) before thread 1 frees it (ts 210).
conv depth1 <<'S'
1 100 malloc 10 = 0xa000
2 200 malloc 20 = 0xa000
1 210 free 0xa000
S
expect_dump depth1 <<'D'
# thread 0 tid 1, 3 ops
1  malloc(10) = #1
1  free(#1)
1  signal 0
# thread 1 tid 2, 2 ops
2  wait 0
2  malloc(20) = #2
D

# Depth 2: thread 3 waits for thread 1's free, which waits (thread 1 is
# itself held on 0xb000) for thread 2's free.
conv depth2 <<'S'
1 100 malloc 10 = 0xa000
2 105 malloc 30 = 0xb000
3 200 malloc 20 = 0xa000
1 210 malloc 40 = 0xb000
1 230 free 0xa000
2 240 free 0xb000
S
expect_dump depth2 <<'D'
# thread 0 tid 1, 5 ops
1  malloc(10) = #1
1  signal 0
1  malloc(40) = #3
1  free(#1)
1  signal 1
# thread 1 tid 2, 3 ops
2  wait 0
2  malloc(30) = #2
2  free(#2)
# thread 2 tid 3, 2 ops
3  wait 1
3  malloc(20) = #4
D

# Depth 3: 4 waits for 1, 1 for 2, 2 for 3.
conv depth3 <<'S'
1 100 malloc 1 = 0xa000
2 101 malloc 2 = 0xb000
3 102 malloc 3 = 0xc000
4 200 malloc 4 = 0xa000
1 210 malloc 5 = 0xb000
2 220 malloc 6 = 0xc000
1 230 free 0xa000
2 240 free 0xb000
3 250 free 0xc000
S
expect_dump depth3 <<'D'
# thread 0 tid 1, 5 ops
1  malloc(1) = #1
1  signal 0
1  malloc(5) = #5
1  free(#1)
1  signal 2
# thread 1 tid 2, 5 ops
2  wait 0
2  malloc(2) = #2
2  signal 1
2  malloc(6) = #4
2  free(#2)
# thread 2 tid 3, 3 ops
3  wait 1
3  malloc(3) = #3
3  free(#3)
# thread 3 tid 4, 2 ops
4  wait 2
4  malloc(4) = #6
D
for n in depth1 depth2 depth3; do
	[ ! -s $n.err ] || fail "$n: unexpected diagnostics: $(cat $n.err)"
done

# A free stamped before its allocation in another thread (clock skew) is
# held back, not dropped as unknown.
conv skewfree <<'S'
2 100 free 0xd000
1 101 malloc 10 = 0xd000
2 300 malloc 1 = 0xe000
S
expect_dump skewfree <<'D'
# thread 0 tid 1, 2 ops
1  malloc(10) = #1
1  signal 0
# thread 1 tid 2, 3 ops
2  wait 0
2  free(#1)
2  malloc(1) = #1
D

# A free stamped 1 ns before the allocation it frees (two cores' clocks) is
# held until that allocation, and no longer: thread 2 must not run ahead
# and free thread 1's first 0x1000 while thread 1 waits, or thread 1's own
# free of it would look like a double free.
conv overtake <<'S'
1 50 malloc 32 = 0x1000
2 100 malloc 16 = 0x5000
1 99 free 0x5000
1 300 free 0x1000
1 400 malloc 48 = 0x1000
2 500 free 0x1000
S
expect_dump overtake <<'D'
# thread 0 tid 1, 7 ops
1  malloc(32) = #1
1  signal 0
1  wait 1
1  free(#2)
1  free(#1)
1  malloc(48) = #1
1  signal 2
# thread 1 tid 2, 5 ops
2  wait 0
2  malloc(16) = #2
2  signal 1
2  wait 2
2  free(#1)
D
expect_eq "overtake summary" "trace2wl: 2 threads, 6 calls, 0 blocks never freed, 0 unknown frees" \
	"$(sed 's/ -> .*//' overtake.sum)"

# A realloc is stamped when it returns: thread 3 was preempted inside one
# after it freed 0x1000, and thread 2 reused the address meanwhile.  The
# realloc goes before thread 2's malloc, so thread 1's free is of thread 2's
# last block, not of the one the realloc moved: a free is stamped when it
# starts, and this one starts 3 us after thread 2 had the address again.
conv preempted <<'S'
1 100 malloc 16 = 0x1000
2 110 malloc 8 = 0x5000
3 120 malloc 8 = 0x6000
2 2200 malloc 32 = 0x1000
2 2300 free 0x1000
2 2400 malloc 48 = 0x1000
1 5200 free 0x1000
3 9000 realloc 0x1000 64 = 0x2000
S
expect_dump preempted <<'D'
# thread 0 tid 1, 4 ops
1  malloc(16) = #1
1  signal 0
1  wait 2
1  free(#5)
# thread 1 tid 2, 7 ops
2  wait 0
2  malloc(8) = #2
2  signal 1
2  malloc(32) = #5
2  free(#5)
2  malloc(48) = #5
2  signal 2
# thread 2 tid 3, 3 ops
3  wait 1
3  malloc(8) = #3
3  realloc(#1, 64) = #4
D
# Two reallocs of 0x1000 could be the release thread 1's second malloc of
# it waits for; the one stamped first is (thread 3's, 88 us later, came
# after it waited its turn), even though thread 3 is merged first on ties.
conv tworeleases <<'S'
1 100 malloc 8 = 0x9000
3 110 malloc 8 = 0x9200
2 120 malloc 8 = 0x9100
1 1000 malloc 16 = 0x1000
1 1500 malloc 16 = 0x1000
2 1600 realloc 0x1000 200 = 0x2000
3 90000 realloc 0x1000 300 = 0x4000
S
expect_dump tworeleases <<'D'
# thread 0 tid 1, 6 ops
1  malloc(8) = #1
1  signal 0
1  malloc(16) = #4
1  signal 2
1  malloc(16) = #6
1  signal 3
# thread 1 tid 3, 5 ops
3  wait 0
3  malloc(8) = #2
3  signal 1
3  wait 3
3  realloc(#6, 300) = #7
# thread 2 tid 2, 4 ops
2  wait 1
2  malloc(8) = #3
2  wait 2
2  realloc(#4, 200) = #5
D
for n in overtake preempted tworeleases; do
	[ ! -s $n.err ] || fail "$n: unexpected diagnostics: $(cat $n.err)"
done

# A contradiction no order resolves (an address returned twice, never freed
# in between): reported once, conversion still finishes.
conv cycle <<'S'
1 100 malloc 10 = 0xa000
1 110 malloc 20 = 0xa000
1 120 free 0xa000
S
grep -q "0xa000 returned at record 1:1 while still allocated" cycle.err ||
	fail "cycle: no report of the contradiction: $(cat cycle.err)"
expect_eq "cycle summary" "trace2wl: 1 thread, 3 calls, 0 blocks never freed, 0 unknown frees, 1 contradiction" \
	"$(sed 's/ -> .*//' cycle.sum)"
trace2wl --stats cycle.wl | grep -q ', 1 contradictions resolved$' ||
	fail "cycle: --stats does not count the contradiction: $(trace2wl --stats cycle.wl)"
expect_dump cycle <<'D'
# thread 0 tid 1, 3 ops
1  malloc(10) = #1
1  malloc(20) = #2
1  free(#2)
D
pass
