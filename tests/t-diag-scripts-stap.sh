#!/bin/sh
# t-diag-scripts-stap.sh - every stap script of this part passes stap's
# translator (-p3: parse, resolve the probe names and argument numbers
# against the built libmtrace.so's markers, translate to C), and a library
# without markers selects the fallback that says so.
#
# stap needs a kernel build tree even to translate: tests/diag-stap.sh
# makes a stand-in.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-stap.sh"
[ -n "${STAP:-}" ] || skip "stap not found by configure"
[ -f "$MTRACE_LIB" ] || fail "$MTRACE_LIB is not built"
stap_tree

prog="$top_builddir/tests/diag_calls"
for s in malloc-log malloc-stacks malloc-leaks malloc-sizes; do
	"$STAP" -p3 -r "$stap_tree" -d "$prog" --ldd "$top_builddir/stap/$s.stp" "$MTRACE_LIB" \
		>"$s.c" 2>"$s.err" || fail "stap -p3 $s.stp: $(grep -v 'symbol table missing' "$s.err" | head -n 3)"
	grep -q 'mark(\\"malloc_[a-z]*\\")' "$s.c" || fail "$s.stp: no marker probe in the translation"
done

# malloc-log.stp prints the lines malloc-log.bt prints (the checked-in
# sample is the bpftrace one): the same "mlog1 ..." formats, call by call,
# once stap's %d/%u/%x and bpftrace's %lu/%lx are taken alike.
mlog_formats() { # SCRIPT
	sed -n 's/.*printf("\(mlog1 [^"]*\)".*/\1/p' "$1" | sed 's/%l*[du]/%d/g; s/%lx/%x/g' | sort -u
}
mlog_formats "$top_builddir/stap/malloc-log.stp" >stp.formats
mlog_formats "$top_srcdir/stap/malloc-log.bt.in" >bt.formats   # every call, built or not
[ "$(wc -l <bt.formats)" -ge 10 ] || fail "malloc-log.bt: only $(wc -l <bt.formats) mlog1 formats found"
diff -u bt.formats stp.formats >&2 || fail "malloc-log.stp and malloc-log.bt print different lines (diff above)"

# libc has no mtrace markers: the scripts fall back to a begin probe whose
# error() names the library.
libc=$(ldd "$prog" | awk '/libc\.so\.6/ { print $3 }')
"$STAP" -p2 -r "$stap_tree" "$top_builddir/stap/malloc-log.stp" "$libc" >fallback 2>&1 ||
	fail "stap -p2 malloc-log.stp with libc: $(head -n 3 fallback)"
grep -q "^begin /\* <- process(\"$libc\").mark(\"malloc_return\")!,begin" fallback ||
	fail "malloc-log.stp with libc did not fall back to its 'no markers' probe"
pass
