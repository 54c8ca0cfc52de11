#!/bin/sh
# t-run-bad: every kind of bad input gets one line naming the file and a
# non-zero exit, never a crash or a hang; bad options get one line and exit 2.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth basic good.wl
echo "not a workload at all, just some text that is long enough to be one" >text.wl
i=0
while [ $i -lt 8 ]; do cat text.wl; i=$((i + 1)); done >long.wl
head -c 300 good.wl >short.wl

expect_fail_with '^trace_run: missing.wl: cannot open' trace_run missing.wl
expect_fail_with '^trace_run: long.wl: not a workload' trace_run long.wl
expect_fail_with '^trace_run: short.wl: .*truncated|^trace_run: short.wl: .*ends' trace_run short.wl
synth badcount count.wl
expect_fail_with '^trace_run: count.wl: header says' trace_run count.wl
synth extrasync xs.wl
expect_fail_with '^trace_run: xs.wl: header says 5 sync points, the streams signal 4$' trace_run xs.wl
# The thread table's flags are reserved, 0 (docs/FORMAT.md): byte 4 of
# thread 0's entry, which starts after the 256-byte header.
cp good.wl flags.wl
printf '\001' | dd of=flags.wl bs=1 seek=260 conv=notrunc 2>/dev/null
expect_fail_with '^trace_run: flags.wl: thread 0 \(tid 100\): flags 0x1, none is defined$' trace_run flags.wl
synth early early.wl
expect_fail_with '^trace_run: early.wl: .*before it is allocated' trace_run early.wl
synth nosignal nosig.wl
expect_fail_with '^trace_run: nosig.wl: .*waits forever' trace_run --watchdog=2 nosig.wl
synth cycle cycle.wl
expect_fail_with '^trace_run: cycle.wl: .*waits forever' trace_run cycle.wl
expect_fail_with '^trace_run: good.wl: --pace needs recorded timing' trace_run --pace good.wl

# Usage errors: one line, status 2.
usage() {
	expect_fail_with "$@"
	expect_eq "exit status of '$*'" 2 "$rc"
}
usage "^trace_run: no workload given" trace_run
usage "^trace_run: one workload at a time" trace_run good.wl good.wl
usage "^trace_run: unknown option '--frobnicate'" trace_run --frobnicate good.wl
usage "^trace_run: --touch: 'most' is not none, page or all" trace_run --touch=most good.wl
usage "^trace_run: --sample-ms: '0' is not" trace_run --sample-ms=0 good.wl
usage "^trace_run: --sample-ms: ' 5' is not" trace_run --sample-ms=" 5" good.wl
usage "^trace_run: --sample-ms: '\+5' is not" trace_run --sample-ms=+5 good.wl
usage "^trace_run: --watchdog: ' 1' is not" trace_run --watchdog=" 1" good.wl
usage "^trace_run: --window: '-1' is not" trace_run --window=-1 good.wl
usage "^trace_run: -o top_pad= 5: not a number" trace_run -o "top_pad= 5" good.wl
usage "^trace_run: -o top_pad=\+5: not a number" trace_run -o top_pad=+5 good.wl
usage "^trace_run: --timeline: no file name given" trace_run --timeline= good.wl
usage "^trace_run: hoard: unknown allocator" trace_run --allocator=hoard good.wl
usage "^trace_run: hoard: unknown allocator" trace_run --compare=glibc,hoard good.wl
usage "^trace_run: --watchdog: 'soon' is not" trace_run --watchdog=soon good.wl
usage "^trace_run: --trim-every: '-1' is not" trace_run --trim-every=-1 good.wl
usage "^trace_run: --timer: 'sundial' is not" trace_run --timer=sundial good.wl
usage "^trace_run: --compare and --allocator cannot go together" \
	trace_run --compare=glibc --allocator=glibc good.wl

# -o tunes glibc's malloc: with another allocator it is refused before
# anything runs (here the other allocator is tests/run_stall.so).
stall="$top_builddir/tests/.libs/run_stall.so"
usage "^trace_run: -o sets glibc's malloc, which --allocator=$stall replaces" \
	trace_run --allocator="$stall" -o top_pad=0 good.wl
usage "^trace_run: -o sets glibc's malloc, which $stall in --compare replaces" \
	trace_run --compare=glibc,"$stall" -o top_pad=0 good.wl
expect_eq "--compare -o: nothing printed" "" "$(cat "$t_dir/out")"
# -o with a library the loader cannot preload: the usage error is told,
# for --allocator and --compare alike.
usage "^trace_run: -o sets glibc's malloc, which --allocator=/etc/passwd replaces" \
	trace_run --allocator=/etc/passwd -o top_pad=0 good.wl
usage "^trace_run: -o sets glibc's malloc, which /etc/passwd in --compare replaces" \
	trace_run --compare=glibc,/etc/passwd -o top_pad=0 good.wl

# A file that is no library: one line (the loader's own complaint is
# caught), status 1, for --allocator and --compare alike.
expect_fail_with "^trace_run: /etc/passwd: not a library the loader can preload \(invalid ELF header\)$" \
	trace_run --allocator=/etc/passwd good.wl
expect_eq "exit status of --allocator=/etc/passwd" 1 "$rc"
expect_fail_with "^trace_run: /etc/passwd: not a library the loader can preload" \
	trace_run --compare=glibc,/etc/passwd good.wl
pass
