#!/bin/sh
# t-diag-glibc-stp.sh - stap/malloc.stp resolves against the built
# libmtrace.so: stap -p3 parses it, finds every derived marker with the
# arguments the script reads ($arg1, $arg2) and translates it to C, against
# the stand-in kernel build tree of tests/diag-stap.sh.  Its event lines
# are those of malloc.bt, format for format.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-stap.sh"

[ -n "${STAP:-}" ] || skip "stap not found by configure"
script="$top_builddir/stap/malloc.stp"
[ -f "$script" ] || fail "$script not built"

stap_tree

"$STAP" -p3 -r "$stap_tree" "$script" "$MTRACE_LIB" >malloc.c 2>stap.err ||
	fail "stap -p3 failed: $(grep -v 'symbol table missing' stap.err | head -n 5)"

# Every marker the script reads comes from our library (Debian's libc has
# none), once each.
"$STAP" -p2 -r "$stap_tree" "$script" "$MTRACE_LIB" >probes.txt 2>/dev/null ||
	fail "stap -p2 failed"
expect_eq "probes on libmtrace.so" 10 "$(grep -c '^process(".*libmtrace[^"]*")\.statement' probes.txt)"
expect_eq "sentinel probe when the markers exist" 0 "$(grep -c '^begin.*mark("memory_sbrk_more")' probes.txt)"

# Neither library has the markers: the script stops with its own message.
"$STAP" -p2 -r "$stap_tree" "$script" /nonexistent/libmtrace.so >none.txt 2>/dev/null ||
	fail "stap -p2 with a missing library failed instead of reaching the script's message"
grep -q '^begin.*mark("memory_sbrk_more")' none.txt || fail "no fallback probe for missing markers"
grep -q 'glibc.s memory_\* markers' "$script" || fail "the script lost its message for missing markers"

# The same event lines ("TID: ...") as malloc.bt: the printf formats of
# both alike, once bpftrace's %lx is stap's %x (both print 64 bits).
formats() { # SCRIPT
	sed -n 's/.*printf("\(%d: [^"]*\)".*/\1/p' "$1" | sed 's/%l\([dux]\)/%\1/g' | sort -u
}
formats "$script" >stp.formats
formats "$top_builddir/stap/malloc.bt" >bt.formats
[ -s bt.formats ] || fail "no printf formats found in malloc.bt"
diff -u bt.formats stp.formats >&2 || fail "malloc.stp and malloc.bt print different event lines (diff above)"
# %p is no pointer format for either: bpftrace prints NULL as (nil).
! grep -n '%p' "$script" "$top_builddir/stap/malloc.bt" >&2 || fail "%p in the scripts (lines above)"
pass
