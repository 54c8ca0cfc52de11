#!/bin/sh
# t-diag-glibc-bt.sh - stap/malloc.bt really runs: bpftrace attaches to the
# built libmtrace.so's derived markers, diag_glibc (started after the
# attach, filtered by its pid) does known things to glibc's allocator,
# and the report must show them: 8 new arenas for 8 threads, the
# threshold at the freed block's chunk size, a heap unmapped after a trim,
# the sbrk total glibc has.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-record.sh"
. "$top_srcdir/tests/diag-bt.sh"

bt_require
script="$top_builddir/stap/malloc.bt"
[ -f "$script" ] || fail "$script not built"

# report MODE [PATTERN N]: diag_glibc MODE watched by malloc.bt; MODE.out
# is what the program printed, MODE.bt what the script printed.  Event
# lines travel apart from the summary and can arrive after the program
# ends, so the script is stopped only once N lines match PATTERN.
report() {
	gated env LD_PRELOAD="$MTRACE_LIB" "$prog" "$1" >"$1.out"
	bt_watch "$1.bt" "diag_glibc $1" "$script" "$MTRACE_LIB"
	[ $# -lt 3 ] || bt_wait_lines "$1.bt" "$2" "$3"
	bt_stop
	grep -q '^@mmap_threshold: ' "$1.bt" || fail "malloc.bt printed no summary: $(cat bt.stderr)"
}

summary() { sed -n "s/^@$2: //p" "$1.bt"; }

report arenas ': arena 0x[0-9a-f]* created$' 8
expect_eq "arenas created" 8 "$(grep -c '^[0-9]*: arena 0x[0-9a-f]* created$' arenas.bt)"
expect_eq "threads with an arena" 8 \
	"$(sed -n 's/^@arena_thread\[0x[0-9a-f]*, \([0-9]*\)\]: 1$/\1/p' arenas.bt | sort -u | wc -l)"
expect_eq "distinct arenas of those threads" 8 \
	"$(sed -n 's/^@arena_thread\[\(0x[0-9a-f]*\), [0-9]*\]: 1$/\1/p' arenas.bt | sort -u | wc -l)"
expect_eq "heaps plus sbrk vs mallinfo2.arena" "$(said arenas system_total)" \
	"$(sed -n 's/^@heap_bytes\[0x[0-9a-f]*\]: //p; s/^@sbrk_total: //p' arenas.bt |
		awk '{ t += $1 } END { printf "%d\n", t }')"

report threshold ': thresholds raised: ' 1
# glibc's mmapped chunk for malloc(1 MiB): request + 8-byte header + 16
# alignment slack, rounded up to pages; 1052672 with 4 KiB pages.
page=$(getconf PAGESIZE)
chunk=$(((1048576 + 24 + page - 1) / page * page))
expect_eq "1 MiB block's chunk size" "$chunk" "$(said threshold chunk)"
grep -q ": thresholds raised: mmap $chunk bytes, trim $((2 * chunk)) bytes\$" threshold.bt ||
	fail "no 'thresholds raised' line for $chunk in: $(cat threshold.bt)"
expect_eq "mmap threshold at the end" "$chunk" "$(summary threshold mmap_threshold)"

report heaps ': heap 0x[0-9a-f]* unmapped$' 1
expect_eq "heaps created" 2 "$(grep -c ': heap 0x[0-9a-f]* created, ' heaps.bt)"
expect_eq "heaps left plus sbrk vs mallinfo2.arena" "$(said heaps system_total)" \
	"$(sed -n 's/^@heap_bytes\[0x[0-9a-f]*\]: //p; s/^@sbrk_total: //p' heaps.bt |
		awk '{ t += $1 } END { printf "%d\n", t }')"

report sbrk
total=$(summary sbrk sbrk_total)
[ "$total" -gt 0 ] || fail "sbrk total $total, expected the heap glibc kept"
expect_eq "sbrk total vs mallinfo2.arena" "$(said sbrk trimmed)" "$total"
pass
