#!/bin/sh
# t-diag-glibc-events.sh - the glibc events libmtrace.so derives agree with
# glibc's own state.  diag_glibc runs under the recorder asked for glibc
# events (MTRACE_GLIBC_EVENTS=1 switches the derivations on and records
# them as events; without it the trace has none); what it prints is what
# glibc says (mallinfo2, malloc_info, chunk headers), and the trace's
# events must add up to it.  Also: an explicit threshold (mallopt or
# tunable) stops the dynamic raise.  (Other allocators: t-diag-glibc-others.)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-record.sh"

# 8 threads at once: 8 new arenas, each first seen with its first heap, by
# 8 different threads; heaps plus sbrk are everything glibc got from the
# system (mallinfo2.arena sums system_mem over all arenas).
record arenas arenas
expect_eq "arenas glibc reports" 8 "$(said arenas arenas)"
expect_eq "memory_arena_new events" 8 "$(count arenas memory_arena_new)"
expect_eq "threads that created an arena" 8 \
	"$(awk '$2 == "memory_arena_new" { print $1 }' arenas.ev | sort -u | wc -l)"
expect_eq "memory_heap_new events" 8 "$(count arenas memory_heap_new)"
# system NAME: what the events say glibc got from the system and kept.
system() {
	awk '
	$2 == "memory_sbrk_more" { sbrk += $4 }
	$2 == "memory_sbrk_less" { sbrk -= $4 }
	$2 ~ /^memory_heap_(new|more|less)$/ { heap[$3] = $4 }
	$2 == "memory_heap_free" { delete heap[$3] }
	END { for (h in heap) sbrk += heap[h]; printf "%d\n", sbrk }' "$1.ev"
}
expect_eq "sbrk plus heap sizes vs mallinfo2.arena" "$(said arenas system_total)" "$(system arenas)"

# M_ARENA_MAX 2 and 4 threads: one new arena; the other three threads are
# moved to it or to the main arena, which glibc's ring of arenas names.
record reuse reuse
expect_eq "arenas glibc reports under M_ARENA_MAX 2" 1 "$(said reuse arenas)"
expect_eq "memory_arena_new events" 1 "$(count reuse memory_arena_new)"
expect_eq "memory_arena_reuse events" 3 "$(count reuse memory_arena_reuse)"
main=$(said reuse main_arena)
[ -n "$main" ] || fail "diag_glibc reuse did not find the main arena"
# The new arena is looked up in a first pass: derived events fire after
# the call in the thread that made it, so a thread that glibc hands the
# brand-new arena can report its move before the creator reports the arena.
expect_eq "arenas the threads moved to" "main or new main or new main or new" "$(awk -v main="$main" '
	NR == FNR { if ($2 == "memory_arena_new") new = $3; next }
	$2 == "memory_arena_reuse" && $4 == 0 {
		printf "%s%s", sep, $3 == new || $3 == main ? "main or new" : $3
		sep = " "
	}' reuse.ev reuse.ev)"

# M_ARENA_MAX 1: every thread but the main one is moved to the main arena,
# found where the ring put it in libc.so.6 (ASLR moves libc, not that).
record one one
offset=$(($main - $(said reuse libc_span | cut -d' ' -f1)))
expect_eq "memory_arena_reuse events under M_ARENA_MAX 1" \
	"$(($(said one libc_span | cut -d' ' -f1) + offset)) 0 x4" \
	"$(awk '$2 == "memory_arena_reuse" { print $3, $4 }' one.ev | uniq -c | awk '{ print $2, $3, "x" $1 }')"

# arena_check NAME: each thread's arena as the events say (its last
# memory_arena_new or _reuse) is the one glibc put its blocks in, read from
# their heap_info ("arena_of TID ADDR"; 0 for the main arena).
arena_check() {
	said "$1" arena_of | sort >"$1.truth"
	awk '$2 == "memory_arena_new" || $2 == "memory_arena_reuse" { a[$1] = $3 }
	     END { for (t in a) print t, a[t] }' "$1.ev" | sort >"$1.derived"
	join -a 1 "$1.truth" "$1.derived" | awk '$2 != 0 && $2 != $3 { print "thread " $1 ": glibc " $2 ", events " $3 }' \
		>"$1.wrong"
	[ ! -s "$1.wrong" ] || fail "$1: $(head -n 1 "$1.wrong")"
}

# A thread with its own arena reallocs a main-arena block, which glibc
# keeps in the main arena: the thread has not moved there.
record realloc realloc
expect_eq "realloc result in the main arena" 1 "$(said realloc realloc_in_main)"
expect_eq "memory_arena_reuse events around a realloc" 0 "$(count realloc memory_arena_reuse)"
arena_check realloc

# 2000 blocks of a producer's arena freed by a consumer, which gets them
# back from its cache up to 448 frees later: the consumer never moves.
record handoff handoff
expect_eq "arenas of producer and consumer" 2 "$(count handoff memory_arena_new)"
expect_eq "memory_arena_reuse events in a handoff" 0 "$(count handoff memory_arena_reuse)"
arena_check handoff

# One thread outgrows a 64 MiB heap and frees everything: a second heap
# appears, is unmapped again, and the first shrinks back.
record heaps heaps
expect_eq "heaps of the thread's arena" 2 "$(count heaps memory_heap_new)"
expect_eq "heaps unmapped" 1 "$(count heaps memory_heap_free)"
expect_eq "the unmapped heap is the second" \
	"$(awk '$2 == "memory_heap_new" { h = $3 } END { print h }' heaps.ev)" \
	"$(awk '$2 == "memory_heap_free" { print $3 }' heaps.ev)"
[ "$(count heaps memory_heap_less)" -gt 0 ] || fail "no memory_heap_less while the arena trimmed"
expect_eq "after the trim, vs mallinfo2.arena" "$(said heaps system_total)" "$(system heaps)"

# Free of a 1 MiB mmapped block: the threshold becomes its chunk size,
# trim twice that; glibc agrees (a block just below it is not mmapped).
record threshold threshold
chunk=$(said threshold chunk)
expect_eq "the 1 MiB block is mmapped" 1 "$(said threshold mmapped)"
expect_eq "thresholds raised" "memory_mallopt_free_dyn_thresholds $chunk $((2 * chunk))" \
	"$(awk '$2 == "memory_mallopt_free_dyn_thresholds" { print $2, $3, $4 }' threshold.ev)"
expect_eq "glibc's threshold covers a smaller block" 0 "$(said threshold below_mmapped)"

# mallopt(M_MMAP_THRESHOLD, 256 KiB) first: the marker with mallopt's
# arguments, then no raise, and glibc agrees.
record mallopt mallopt
# M_MMAP_THRESHOLD is -3, recorded as a 64-bit two's complement.
expect_eq "memory_mallopt" "memory_mallopt 18446744073709551613 262144" \
	"$(awk '$2 == "memory_mallopt" { print $2, $3, $4 }' mallopt.ev)"
expect_eq "raises after mallopt" 0 "$(count mallopt memory_mallopt_free_dyn_thresholds)"
expect_eq "glibc's threshold after mallopt" 1 "$(said mallopt below_mmapped)"

# The same explicit threshold from a tunable.
record tunable threshold GLIBC_TUNABLES=glibc.malloc.mmap_threshold=262144
expect_eq "raises with the tunable set" 0 "$(count tunable memory_mallopt_free_dyn_thresholds)"
expect_eq "glibc's threshold with the tunable" 1 "$(said tunable below_mmapped)"

# The main arena grows by sbrk and trims back: the running total peaks at
# what mallinfo2 said at the peak and ends at what it says at the end.
record sbrk sbrk
[ "$(count sbrk memory_sbrk_more)" -gt 1 ] || fail "no memory_sbrk_more while the heap grew"
[ "$(count sbrk memory_sbrk_less)" -gt 0 ] || fail "no memory_sbrk_less after the frees"
expect_eq "sbrk peak vs mallinfo2.arena" "$(said sbrk grown)" "$(awk '
	$2 == "memory_sbrk_more" { t += $4; if (t > max) max = t }
	$2 == "memory_sbrk_less" { t -= $4 }
	END { printf "%d\n", max }' sbrk.ev)"
expect_eq "sbrk total vs mallinfo2.arena" "$(said sbrk trimmed)" "$(awk '
	$2 == "memory_sbrk_more" { t += $4 }
	$2 == "memory_sbrk_less" { t -= $4 }
	END { printf "%d\n", t }' sbrk.ev)"

# Not asked for: the deriver stays off the recording path and the trace
# holds the calls but no event; a bad value is said and counts as 0.
record plain sbrk MTRACE_GLIBC_EVENTS=0
[ "$(grep -c '"call":"malloc"' plain.json)" -gt 0 ] || fail "no malloc recorded without glibc events"
expect_eq "events without MTRACE_GLIBC_EVENTS" 0 "$(wc -l <plain.ev)"
env MTRACE_GLIBC_EVENTS=yes LD_PRELOAD="$MTRACE_LIB" MTRACE_CTL_FILE="$t_dir/bad.trace" \
	"$prog" sbrk >/dev/null 2>bad.err || fail "diag_glibc sbrk failed with a bad MTRACE_GLIBC_EVENTS"
grep -q "MTRACE_GLIBC_EVENTS must be 0 or 1, not 'yes'" bad.err || fail "bad MTRACE_GLIBC_EVENTS not reported: $(cat bad.err)"

pass
