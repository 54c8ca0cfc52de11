#!/bin/sh
# t-fmt-damage.sh - every kind of damaged trace gets the answer the format
# promises: a one-line error and exit 1 for what cannot be read (not a
# trace, too new, corrupt headers or records), the readable part plus a
# warning for what a killed recorder or a cut copy leaves (zeroed windows,
# truncation, torn records), and never a crash.
#
# The traces come from fmt_synth (2 threads, fixed 4096-byte windows, so
# window k starts at 4096 * (k + 1) and windows alternate between threads
# 1000 and 1001); only the damage is written by hand, with dd at an offset.
. "$top_srcdir/tests/lib.sh"

synth=$top_builddir/tests/fmt_synth
"$synth" bulk closed.mtr 2 3000 4096
"$synth" bulk open.mtr 2 3000 4096 open
# records FILE: record lines of a dump that may warn, warnings to warn.txt;
# without the time column, which in a trace left open depends on the
# frequency derived from whatever windows survived.
records() {
	mtrace-dump "$1" 2>warn.txt | grep -v '^#' | sed 's/  [-+][0-9.]*  /  /' || true
}

records closed.mtr >closed.txt
records open.mtr >open.txt
expect_eq "records in the undamaged trace" 6000 "$(wc -l <closed.txt)"
diff closed.txt open.txt >/dev/null || fail "an open trace reads differently from a closed one"

# poke FILE OFFSET BYTES...: overwrite bytes (octal escapes) at OFFSET.
poke() {
	f=$1 off=$2
	shift 2
	printf "$@" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# expect_subset NAME FILE: every record line of FILE is in the undamaged dump.
expect_subset() {
	sort "$2" >a.sorted
	sort closed.txt >b.sorted
	[ -z "$(comm -23 a.sorted b.sorted)" ] || fail "$1: records not in the original: $(comm -23 a.sorted b.sorted | head -3)"
}

# --- refused: one line, exit 1 ---
printf 'hello, world\n' >notrace
expect_fail_with '^mtrace-dump: notrace: not an mtrace trace \(bad magic\)$' mtrace-dump notrace
: >empty
expect_fail_with '^mtrace-dump: empty: empty file' mtrace-dump empty
head -c 100 closed.mtr >short.mtr
expect_fail_with '^mtrace-dump: short.mtr: truncated in the file header \(100 of 4096 bytes\)$' \
	mtrace-dump short.mtr
expect_fail_with '^mtrace-dump: missing.mtr: cannot open: No such file' mtrace-dump missing.mtr

cp closed.mtr newer.mtr
poke newer.mtr 8 '\005\000'
expect_fail_with '^mtrace-dump: newer.mtr: format version 5 is newer than this reader \(4\)$' \
	mtrace-dump newer.mtr

cp closed.mtr badwin.mtr
poke badwin.mtr 8192 'XXXX'
expect_fail_with '^mtrace-dump: badwin.mtr: offset 8192: corrupt window header$' \
	mtrace-dump badwin.mtr

# Garbage where a record's head byte should be (call type 15 does not exist):
# the records before it are printed, then the error names the record.  The
# open trace also warns that it was left open; that line is set aside.
for kind in closed open; do
	cp $kind.mtr garbage.mtr
	poke garbage.mtr 8256 '\017'
	expect_fail_with '^mtrace-dump: garbage.mtr: offset 8256: record 1001:0 does not decode$' \
		sh -c 'mtrace-dump garbage.mtr 2>err0 >out.txt; rc=$?; grep -v "left open" err0 >&2; exit $rc'
done

# A closed window whose records end before its header says they do.
cp closed.mtr short-window.mtr
poke short-window.mtr 8256 '\000'
expect_fail_with '^mtrace-dump: short-window.mtr: offset 8192: window of thread 1001 ends after 0 records in 0 bytes, its header says [0-9]+ in [0-9]+$' \
	mtrace-dump short-window.mtr

# --- tolerated: the readable part, a warning, exit 0 ---

# A window claimed but never written (all zero): skipped, its records lost.
cp closed.mtr zeroed.mtr
dd if=/dev/zero of=zeroed.mtr bs=4096 seek=2 count=1 conv=notrunc status=none
records zeroed.mtr >zeroed.txt
grep -q '^mtrace-dump: zeroed.mtr: offset 8192: 4096 bytes of windows claimed but never written (skipped)$' warn.txt ||
	fail "zeroed window warning: $(cat warn.txt)"
lost=$(sed -n 's/.*thread 1001: window 0 missing (records 1001:0\.\.1001:\([0-9]*\) lost)$/\1/p' warn.txt)
[ -n "$lost" ] || fail "missing-window warning: $(cat warn.txt)"
awk -v last="$lost" '{ split($1, a, ":"); if (!(a[1] == 1001 && a[2] <= last)) print }' closed.txt >want.txt
diff want.txt zeroed.txt >/dev/null || fail "zeroed window: records other than 1001:0..$lost changed"

# Cut in the middle of a window, closed and open: the prefix, one warning.
for kind in closed open; do
	cp $kind.mtr cut.mtr
	truncate -s $((4096 * 5 + 1000)) cut.mtr
	records cut.mtr >cut.txt
	grep -v 'left open' warn.txt >warn2.txt || true
	grep -q '^mtrace-dump: cut.mtr: truncated at offset 21480' warn2.txt ||
		fail "$kind cut: warning: $(cat warn.txt)"
	expect_eq "$kind cut: warnings" 1 "$(wc -l <warn2.txt)"
	expect_subset "$kind cut" cut.txt
	n=$(wc -l <cut.txt)
	[ "$n" -gt 0 ] && [ "$n" -lt 6000 ] || fail "$kind cut: $n records"
done

# Cuts at every byte of an open window's first records: each reads the
# complete records before the cut, never fewer than a shorter cut did.
# One awk a cut does what records and expect_subset do (156 cuts, each
# process start counts): it prints the count, or a record not in closed.txt.
prev=0
for cut in $(seq 20545 20700); do
	head -c $cut open.mtr >cutrec.mtr
	mtrace-dump cutrec.mtr 2>warn.txt >cutrec.txt || true
	grep -q "truncated at offset $cut" warn.txt || fail "cut at $cut: $(cat warn.txt)"
	n=$(awk 'NR == FNR { want[$0]; next }
		/^#/ { next }
		{ sub(/  [-+][0-9.]*  /, "  "); if (!($0 in want)) { print "not in the original: " $0; exit } n++ }
		END { print n + 0 }' closed.txt cutrec.txt)
	case $n in *[!0-9]*) fail "cut at $cut: $n" ;; esac
	[ "$n" -ge "$prev" ] || fail "cut at $cut: $n records, $prev at the byte before"
	prev=$n
done

# A torn record at the end of an open window (body written, head byte not):
# nothing lost, nothing invented.  Find where the last window's records end.
cp open.mtr torn.mtr
size=$(wc -c <torn.mtr)
last=$((size - 4096))
end=$(od -An -v -tu1 -w1 -j $((last + 64)) -N 4032 torn.mtr | awk '$1 != 0 { n = NR } END { print n }')
poke torn.mtr $((last + 64 + end + 1)) '\000\005\001\030'
records torn.mtr >torn.txt
diff open.txt torn.txt >/dev/null || fail "torn record changed the records read"
grep -q 'left open' warn.txt || fail "torn: no open-window warning"
# Not damage, but as easy to misread: the kernel reuses a thread id once
# its thread has ended.  Thread 1001 ran after thread 1000 ended; renaming
# it 1000 in its window headers must still give two threads, each whole.
"$synth" bulk serial.mtr 2 2000 4096 serial
size=$(wc -c <serial.mtr)
for off in $(seq 4096 4096 $((size - 1))); do
	[ "$(od -An -tu4 -j $((off + 4)) -N 4 serial.mtr | tr -d ' ')" = 1001 ] &&
		poke serial.mtr $((off + 4)) '\350\003'
done
records serial.mtr >reused.txt
[ ! -s warn.txt ] || fail "tid reuse: warnings: $(cat warn.txt)"
expect_eq "tid reuse: threads" "2" "$(mtrace-dump --stats serial.mtr | grep -c '^  tid 1000 ')"
expect_eq "tid reuse: records" 4000 "$(wc -l <reused.txt)"
expect_eq "tid reuse: last record of each" 2 "$(grep -c '^1000:1999 ' reused.txt)"
pass
