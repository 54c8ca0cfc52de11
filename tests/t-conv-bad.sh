#!/bin/sh
# t-conv-bad.sh - trace2wl on input and output it cannot use: each is one
# line naming the file and the fault, a non-zero exit, no crash, and no
# workload (nor temporary file) left behind, even when a signal ends it.  A truncated trace is the
# exception: its complete part is converted, with a warning giving the
# offset.  Also: standard input, pipes, and text logs as input.
. "$top_srcdir/tests/lib.sh"

# 3000 malloc/free pairs: more than one window, so a cut falls inside one.
i=0
while [ $i -lt 3000 ]; do
	echo "1 $((100 + 2 * i)) malloc 100 = $((4096 + 16 * i))"
	echo "1 $((101 + 2 * i)) free $((4096 + 16 * i))"
	i=$((i + 1))
done | "$top_builddir/tests/conv_mktrace" good.mtrace || fail "conv_mktrace"

# no_output NAME: neither NAME nor a temporary file of it exists.
no_output() {
	for f in "$1" "$1".*; do
		[ ! -e "$f" ] || fail "$f left behind after a failed conversion"
	done
}

# poke FILE OFFSET OCTAL-BYTES: overwrite bytes in place.
poke() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

echo "hello, world" >text.txt
expect_fail_with '^trace2wl: text\.txt:1: neither a malloc-log' trace2wl out.wl text.txt
no_output out.wl
# Blanks filling the 4096 bytes sniffed, with no line end: the sniffer
# stays inside them, and the importer finds no calls.
head -c 4096 /dev/zero | tr '\0' ' ' >blanks.txt
expect_fail_with '^trace2wl: blanks\.txt: no calls' trace2wl out.wl blanks.txt
no_output out.wl
: >empty
expect_fail_with '^trace2wl: empty: empty file' trace2wl out.wl empty
expect_fail_with '^trace2wl: missing: cannot open' trace2wl out.wl missing
no_output out.wl

cp good.mtrace newer.mtrace
poke newer.mtrace 8 '\005'
expect_fail_with '^trace2wl: newer\.mtrace: .*version 5 is newer' trace2wl out.wl newer.mtrace
no_output out.wl

cp good.mtrace window.mtrace
poke window.mtrace $((4096 + 12)) '\105\043\001\000' # window size not a multiple of 4096
expect_fail_with '^trace2wl: window\.mtrace: offset 4096: corrupt window header' \
	trace2wl out.wl window.mtrace
no_output out.wl

cp good.mtrace wflags.mtrace
poke wflags.mtrace $((4096 + 48)) '\005' # flags CLOSED and a bit no version defines
expect_fail_with '^trace2wl: wflags\.mtrace: offset 4096: corrupt window header' \
	trace2wl out.wl wflags.mtrace
no_output out.wl

cp good.mtrace record.mtrace
poke record.mtrace 4400 '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377'
expect_fail_with '^trace2wl: record\.mtrace: offset [0-9]+: record 1:[0-9]+ does not decode' \
	trace2wl out.wl record.mtrace
no_output out.wl

# A head byte of flags alone (call 0) is not a record, nor is a pointer of 0
# without its NULL flag: both would reach the workload as calls that are not.
cp good.mtrace call0.mtrace
poke call0.mtrace 4160 '\020' # malloc's head 0x01 -> MMAPPED flag, call 0
expect_fail_with '^trace2wl: call0\.mtrace: offset 4160: record 1:0 does not decode' \
	trace2wl out.wl call0.mtrace
no_output out.wl
cp good.mtrace out0.mtrace
poke out0.mtrace 4164 '\000\000' # malloc's result 0x1000 (2 bytes after head, tag, size) -> 0, no NULL_OUT
expect_fail_with '^trace2wl: out0\.mtrace: offset 4160: record 1:0 does not decode' \
	trace2wl out.wl out0.mtrace
printf '1 100 free 0x40\n1 110 malloc 8 = 0x40\n' | "$top_builddir/tests/conv_mktrace" in0.mtrace
poke in0.mtrace 4162 '\000' # free's pointer 0x40 (after head and tag) -> 0, no NULL_IN
expect_fail_with '^trace2wl: in0\.mtrace: offset 4160: record 1:0 does not decode' \
	trace2wl out.wl in0.mtrace
no_output out.wl

expect_fail_with '^trace2wl: nodir/out\.wl: cannot create' trace2wl nodir/out.wl good.mtrace
mkdir adir
expect_fail_with '^trace2wl: adir: is a directory, not a workload file name' trace2wl adir good.mtrace
expect_fail_with '^trace2wl: adir: is a directory, not a workload file name' trace2wl -f adir good.mtrace
expect_fail_with '^trace2wl: adir: not a regular file, so not a workload' trace2wl --stats adir

# A file size limit (ulimit -f) is an error like any other, not SIGXFSZ:
# one line naming the file, and no output.  A conversion cut short by a
# signal leaves nothing either: the output has no name until it is
# complete.  SIGINT and SIGPIPE come once its output is open.
expect_fail_with '^trace2wl: xfsz\.wl: .*File too large$' sh -c 'ulimit -f 8 && exec trace2wl xfsz.wl good.mtrace'
no_output xfsz.wl
"$top_builddir/bench/gen_trace" big.mtrace 4000000 >/dev/null || fail "gen_trace"
for sig in INT PIPE; do
	# A background job starts with SIGINT ignored: give it back its default.
	env --default-signal=$sig trace2wl sig.wl big.mtrace >/dev/null 2>&1 &
	pid=$!
	t_reap $pid
	# Its output is open once a file without a name (or a temporary one)
	# shows among its descriptors.
	while ! ls -l /proc/$pid/fd 2>/dev/null | grep -q '(deleted)' && ! ls sig.wl.* >/dev/null 2>&1; do
		kill -0 $pid 2>/dev/null || fail "SIG$sig: trace2wl ended before its output was open"
		sleep 0.01
	done
	kill -$sig $pid
	set +e
	wait $pid
	rc=$?
	set -e
	[ "$rc" -gt 128 ] || fail "SIG$sig: trace2wl finished (exit $rc) before the signal came"
	no_output sig.wl
done

# An existing workload is kept unless -f.
echo precious >exists.wl
expect_fail_with '^trace2wl: exists\.wl: already exists' trace2wl exists.wl good.mtrace
expect_eq "refused output untouched" precious "$(cat exists.wl)"
no_output exists.wl.tmp
trace2wl -f exists.wl good.mtrace >/dev/null || fail "-f did not overwrite"
trace2wl --stats exists.wl >/dev/null || fail "-f output is not a workload"

# A cut trace: the complete part converts, and the warning gives the offset.
head -c 20000 good.mtrace >cut.mtrace
trace2wl cut.wl cut.mtrace >sum 2>err || fail "cut trace not converted: $(cat err)"
expect_eq "warning lines" 1 "$(wc -l <err)"
grep -q '^trace2wl: warning: cut\.mtrace: truncated at offset 20000' err ||
	fail "no truncation warning with the offset: $(cat err)"
calls=$(sed -n 's/.* thread, \([0-9]*\) calls,.*/\1/p' sum)
[ "$calls" -gt 1000 ] && [ "$calls" -lt 6000 ] || fail "cut trace gave $calls calls: $(cat sum)"

# Damage is told once.  A cut inside a window header is one truncation, not
# two.  A conversion that fails prints its error alone: the warnings and
# problems met before it (a truncation, a double free) are not printed.
head -c 8212 good.mtrace >cuthead.mtrace # 20 bytes into the second window's header
trace2wl cuthead.wl cuthead.mtrace >sum 2>err || fail "trace cut in a header not converted: $(cat err)"
expect_eq "warning lines for a cut window header" 1 "$(wc -l <err)"
grep -q '^trace2wl: warning: cuthead\.mtrace: truncated at offset 8212' err ||
	fail "no truncation warning with the offset: $(cat err)"
cp cut.mtrace cutbad.mtrace
poke cutbad.mtrace 4400 '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377'
expect_fail_with '^trace2wl: cutbad\.mtrace: offset [0-9]+: record 1:[0-9]+ does not decode' \
	trace2wl out.wl cutbad.mtrace
no_output out.wl
{
	printf '1 50 malloc 8 = 0x10\n1 51 free 0x10\n1 52 free 0x10\n'
	i=0
	while [ $i -lt 3000 ]; do
		echo "1 $((100 + 2 * i)) malloc 100 = $((4096 + 16 * i))"
		echo "1 $((101 + 2 * i)) free $((4096 + 16 * i))"
		i=$((i + 1))
	done
} | "$top_builddir/tests/conv_mktrace" dfbad.mtrace || fail "conv_mktrace"
poke dfbad.mtrace 9000 '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377'
expect_fail_with '^trace2wl: dfbad\.mtrace: offset [0-9]+: record 1:[0-9]+ does not decode' \
	trace2wl out.wl dfbad.mtrace
no_output out.wl

# Standard input, as a file and as a pipe, converts like the file itself.
trace2wl whole.wl good.mtrace | sed 's/ -> .*//' >want
trace2wl redirected.wl - <good.mtrace | sed 's/ -> .*//' >got || fail "stdin from a file"
diff want got >&2 || fail "stdin (file) converts differently"
cat good.mtrace | trace2wl piped.wl - | sed 's/ -> .*//' >got || fail "stdin from a pipe"
diff want got >&2 || fail "stdin (pipe) converts differently"
cmp -s whole.wl piped.wl || fail "piped input gave a different workload"

# A glibc MALLOC_TRACE log converts through lib/'s log import.
printf '= Start\n@ ./prog:[0x4005d6] + 0x602010 0x10\n@ ./prog:[0x4005e4] + 0x602030 0x20\n@ ./prog:[0x4005e4] - 0x602010\n= End\n' >glibc.log
trace2wl glibc.wl glibc.log >sum || fail "MALLOC_TRACE log not converted"
trace2wl --dump glibc.wl | grep -v '^#' >dump
printf '1  malloc(16) = #1\n1  malloc(32) = #2\n1  free(#1)\n' >want
diff -u want dump >&2 || fail "MALLOC_TRACE log converted wrongly"
# So does a malloc-log from the stap and bpftrace scripts, from a pipe too.
printf '# mlog1 malloc-log\nmlog1 7 1000 malloc 24 = 0x1000\nmlog1 8 1100 free 0x1000\n' >calls.mlog
cat calls.mlog | trace2wl --no-timing mlog.wl - >sum || fail "malloc-log not converted"
trace2wl --dump mlog.wl | grep -v '^#' >dump
printf '7  malloc(24) = #1\n7  signal 0\n8  wait 0\n8  free(#1)\n' >want
diff -u want dump >&2 || fail "malloc-log converted wrongly"

# Usage errors exit 2; a workload given to --stats must be one.
set +e
trace2wl only-one-arg >/dev/null 2>&1
expect_eq "usage exit" 2 $?
set -e
expect_fail_with '^trace2wl: good\.mtrace: not a workload' trace2wl --stats good.mtrace
pass
