#!/bin/sh
# t-run-options: glibc tunables through -o (mallopt and GLIBC_TUNABLES),
# --trim-every, --timeline, --pace and --json do what they say, and bad
# values get one line.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth every e.wl
malloc_count() { jget "$1" "['calls']['malloc']['count']"; }

trace_run --json -o mmap_threshold=65536,trim_threshold=128k,top_pad=0,mmap_max=100,arena_max=2,arena_test=1,perturb=165 \
	--trim-every=2 e.wl >o.json || fail "mallopt settings failed"
expect_eq "-o: malloc count" "$(expected e.wl malloc)" "$(malloc_count o.json)"
# tcache settings exist only as GLIBC_TUNABLES: trace_run re-executes itself.
trace_run --json -o tcache_count=0,tcache_max=64 e.wl >t.json || fail "tcache settings failed"
expect_eq "tcache: malloc count" "$(expected e.wl malloc)" "$(malloc_count t.json)"

expect_fail_with "^trace_run: -o colour=blue: unknown setting" trace_run -o colour=blue e.wl
expect_fail_with "^trace_run: -o mmap_threshold=lots: not a number" trace_run -o mmap_threshold=lots e.wl
expect_fail_with "^trace_run: -o arena_max=0: not a number from 1" trace_run -o arena_max=0 e.wl
expect_fail_with "^trace_run: -o perturb: expected name=value" trace_run -o perturb e.wl
# mallopt(3) caps the mmap threshold at 32 MiB on 64-bit (glibc would
# silently ignore more).
expect_fail_with "^trace_run: -o mmap_threshold=1g: not a number from 0 to 33554432" \
	trace_run -o mmap_threshold=1g e.wl

# --timeline: the header, one row per sample (at least the first and the
# last), numeric fields, and the last row has every call done.
trace_run --json --sample-ms=1 --timeline=rss.csv e.wl >tl.json || fail "--timeline failed"
expect_eq "timeline header" "time_ms,vmrss_kb,vmsize_kb,ideal_kb,calls" "$(head -1 rss.csv)"
rows=$(($(wc -l <rss.csv) - 1))
[ "$rows" -ge 2 ] || fail "timeline has $rows rows"
expect_eq "rows vs samples" "$(jget tl.json "['samples']")" "$rows"
tail -n +2 rss.csv | grep -Evq '^[0-9]+,[0-9]+,[0-9]+,-?[0-9]+,[0-9]+$' &&
	fail "bad timeline row: $(tail -n +2 rss.csv | grep -Ev '^[0-9]+,[0-9]+,[0-9]+,-?[0-9]+,[0-9]+$' | head -1)"
total=0
for c in $(python3 -c "import json; print(' '.join(str(v['count']) for v in json.load(open('tl.json'))['calls'].values()))"); do
	total=$((total + c))
done
expect_eq "calls in the last row" "$total" "$(tail -1 rss.csv | cut -d, -f5)"
# The end of the replay wakes the sampler for one last row, not two.
[ "$(tail -1 rss.csv)" != "$(tail -2 rss.csv | head -1)" ] || fail "last timeline row written twice"
# A timeline or a report that cannot be written: one line, status 1.
expect_fail_with "^trace_run: --timeline: writing /dev/full: No space left" \
	trace_run --timeline=/dev/full e.wl
set +e
trace_run --compare=glibc e.wl >/dev/full 2>err
rc=$?
set -e
expect_eq "--compare >/dev/full: status" 1 "$rc"
expect_eq "--compare >/dev/full: says" "trace_run: writing standard output: No space left on device" "$(cat err)"
expect_fail_with "^trace_run: --timeline: cannot create /nonexistent/rss.csv: No such file" \
	trace_run --timeline=/nonexistent/rss.csv e.wl

# --pace: five mallocs recorded 20 ms apart cannot be replayed in less than
# 100 ms (a lower bound the pacing guarantees, not a speed measurement).
synth timed p.wl
trace_run --json --pace p.wl >p.json || fail "--pace failed"
wall=$(jget p.json "['wall_usec']")
[ "$wall" -ge 100000 ] || fail "--pace: replay took $wall usec, recorded 100000"
expect_eq "--pace: mallocs" 5 "$(malloc_count p.json)"
expect_eq "--pace: nothing shortened" 0 "$(jget p.json "['idle_stretches']")"

# --pace sits through no idle stretch longer than the watchdog: a recorded
# pause of 2^50 ns (13 days) takes 1 s with --watchdog=1, and is reported.
synth idle i.wl
timeout 60 trace_run --json --pace --watchdog=1 i.wl >i.json 2>err || fail "--pace idle: $(cat err)"
wall=$(jget i.json "['wall_usec']")
[ "$wall" -ge 1000000 ] && [ "$wall" -lt 20000000 ] || fail "--pace idle: $wall usec"
expect_eq "--pace idle: stretches" 1 "$(jget i.json "['idle_stretches']")"
expect_eq "--pace idle: cut" $(((1 << 50) - 1000000000)) "$(jget i.json "['idle_cut_ns']")"
timeout 60 trace_run --pace --watchdog=1 i.wl >i.txt || fail "--pace idle text failed"
grep -q '^Pacing: 1 idle stretch longer than 1 s shortened to it, 1,125,898 s of recorded time left out$' i.txt ||
	fail "no pacing line: $(grep Pacing i.txt)"
pass
