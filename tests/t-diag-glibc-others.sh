#!/bin/sh
# t-diag-glibc-others.sh - over jemalloc, tcmalloc or mimalloc there is no
# glibc arena, heap or threshold to derive, so no derived event fires: not
# into the trace when the recorder is on, and not at the markers when a
# tracer raises their semaphores (malloc.bt).  Each run is held against
# the same program over glibc, where the events do come.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-record.sh"
. "$top_srcdir/tests/diag-bt.sh"

# sbrk mode: 64 blocks of 64 KiB, all freed; over glibc the break moves.
record glibc sbrk
[ "$(count glibc memory_sbrk_more)" -gt 0 ] || fail "no sbrk events over glibc: the control failed"
installed_allocators >others
[ -s others ] || skip "none of jemalloc, tcmalloc, mimalloc is installed (the glibc control passed)"
# The list is read on fd 3, so no program the loops run can eat it.
while read -r name lib <&3; do
	PRELOAD="$MTRACE_LIB $lib" record "$name" sbrk
	grep -q '"call":"free"' "$name.json" || fail "the run over $name recorded no calls"
	expect_eq "events recorded over $name" 0 "$(wc -l <"$name.ev")"
done 3<others

# The tracer's way: malloc.bt raises every derived marker's semaphore.
bt_require
watched() { # NAME PRELOAD
	gated env LD_PRELOAD="$2" "$prog" sbrk >"$1.out"
	bt_watch "$1.bt" "diag_glibc sbrk over $1" "$top_builddir/stap/malloc.bt" "$MTRACE_LIB"
	bt_stop
	grep -q '^@sbrk_total: ' "$1.bt" || fail "malloc.bt printed no summary over $1: $(cat bt.stderr)"
}
watched glibc "$MTRACE_LIB"
[ "$(sed -n 's/^@sbrk_total: //p' glibc.bt)" -gt 0 ] || fail "malloc.bt saw no sbrk over glibc: the control failed"
while read -r name lib <&3; do
	watched "$name" "$MTRACE_LIB $lib"
	expect_eq "malloc.bt's sbrk total over $name" 0 "$(sed -n 's/^@sbrk_total: //p' "$name.bt")"
	expect_eq "malloc.bt's event lines over $name" 0 "$(grep -c '^[0-9]*: ' "$name.bt" || true)"
done 3<others
pass
