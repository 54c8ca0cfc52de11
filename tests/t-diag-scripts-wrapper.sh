#!/bin/sh
# t-diag-scripts-wrapper.sh - mtrace-bt refuses a library without what the
# script attaches to with one line naming it, before bpftrace runs (which
# on its own runs silently or fails on an argument it cannot read), and
# refuses bad arguments the same way.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/diag-bt.sh"
bt_require
wrapper="$top_builddir/stap/mtrace-bt"
[ -x "$wrapper" ] || fail "$wrapper not built"
libc=$(ldd "$top_builddir/tests/diag_calls" | awk '/libc\.so\.6/ { print $3 }')
cp "$libc" libc-copy.so.6

for s in malloc-log.bt malloc-stacks.bt malloc-leaks.bt malloc-sizes.bt malloc.bt; do
	for lib in "$libc" "$t_dir/libc-copy.so.6"; do
		expect_fail_with "^mtrace-bt: $lib has no mtrace markers" \
			"$wrapper" "$top_builddir/stap/$s" "$lib" 0
		[ ! -s out ] || fail "mtrace-bt $s $lib printed: $(head -n 2 out)"
	done
done
expect_fail_with "^mtrace-bt: $t_dir/nosuch.so: no such library" \
	"$wrapper" "$top_builddir/stap/malloc.bt" "$t_dir/nosuch.so"
expect_fail_with "^mtrace-bt: nosuch.bt: no such script" "$wrapper" nosuch.bt "$MTRACE_LIB"
expect_fail_with "^mtrace-bt: PID 'x1' is not a process id" \
	"$wrapper" "$top_builddir/stap/malloc.bt" "$MTRACE_LIB" x1
expect_fail_with "^mtrace-bt: expected SCRIPT LIB \[PID\]" "$wrapper" malloc.bt
# The uprobe script wants libc's malloc, which libmtrace.so's markers
# cannot stand in for, and which a data file lacks.
: >empty.so
expect_fail_with "^mtrace-bt: $t_dir/empty.so has no malloc function to probe" \
	"$wrapper" "$top_builddir/stap/malloc-log-uprobes.bt" "$t_dir/empty.so" 1
pass
