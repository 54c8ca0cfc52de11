#!/bin/sh
# t-diag-glibc-stp.sh - stap/malloc.stp resolves against the built
# libmtrace.so: stap -p3 parses it, finds every derived marker with the
# arguments the script reads ($arg1, $arg2) and translates it to C.  stap
# cannot load modules here, so a stand-in kernel build tree (config,
# release, empty Module.symvers) is all it gets; -p3 needs no more.
. "$top_srcdir/tests/lib.sh"

[ -n "${STAP:-}" ] || skip "stap not found by configure"
[ -r /proc/config.gz ] || skip "no /proc/config.gz to build a stand-in kernel tree from"
script="$top_builddir/stap/malloc.stp"
[ -f "$script" ] || fail "$script not built"

mkdir -p kernel/include/config
zcat /proc/config.gz >kernel/.config
: >kernel/Module.symvers
echo 'all:' >kernel/Makefile
uname -r >kernel/include/config/kernel.release

"$STAP" -p3 -r "$t_dir/kernel" "$script" "$MTRACE_LIB" >malloc.c 2>stap.err ||
	fail "stap -p3 failed: $(grep -v 'symbol table missing' stap.err | head -n 5)"

# Every marker the script reads comes from our library (Debian's libc has
# none), once each.
"$STAP" -p2 -r "$t_dir/kernel" "$script" "$MTRACE_LIB" >probes.txt 2>/dev/null ||
	fail "stap -p2 failed"
expect_eq "probes on libmtrace.so" 10 "$(grep -c '^process(".*libmtrace[^"]*")\.statement' probes.txt)"
expect_eq "sentinel probe when the markers exist" 0 "$(grep -c '^begin.*mark("memory_sbrk_more")' probes.txt)"

# Neither library has the markers: the script stops with its own message.
"$STAP" -p2 -r "$t_dir/kernel" "$script" /nonexistent/libmtrace.so >none.txt 2>/dev/null ||
	fail "stap -p2 with a missing library failed instead of reaching the script's message"
grep -q '^begin.*mark("memory_sbrk_more")' none.txt || fail "no fallback probe for missing markers"
grep -q 'glibc.s memory_\* markers' "$script" || fail "the script lost its message for missing markers"
pass
