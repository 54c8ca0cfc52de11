#!/bin/sh
# t-run-effects: the options that change what the allocator sees really do
# so, as the allocator sees it: --touch writes the block (resident memory),
# --trim-every calls malloc_trim as often as it says, -o reaches mallopt
# and GLIBC_TUNABLES with the values given and has their effect (one arena
# with arena_max=1), and the timer's calibration subtracts a cost that is
# there.  tests/run_probe.so, preloaded, reports what glibc was asked.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

probe="$top_builddir/tests/.libs/run_probe.so"
[ -f "$probe" ] || fail "$probe not built"

# --touch: a 64 MiB block is resident only when written.
synth block b.wl 67108864
for touch in all page none; do
	trace_run --json --touch=$touch b.wl >b-$touch.json || fail "--touch=$touch failed"
done
for touch in all page; do
	kb=$(jget b-$touch.json "['max_rss_kb']")
	[ "$kb" -ge 60000 ] || fail "--touch=$touch: a 64 MiB block grew RSS by $kb Kb"
done
kb=$(jget b-none.json "['max_rss_kb']")
[ "$kb" -lt 16384 ] || fail "--touch=none: a 64 MiB block grew RSS by $kb Kb"
# held_kb: a written block still live at the end is resident then; the
# replayer's own memory is not counted in it.
synth keep k.wl 67108864
trace_run --json k.wl >k.json || fail "keep: replay failed"
kb=$(jget k.json "['held_kb']")
[ "$kb" -ge 65536 ] && [ "$kb" -lt 73728 ] || fail "a live 64 MiB block: held $kb Kb"
kb=$(jget b-all.json "['held_kb']")
[ "$kb" -lt 8192 ] || fail "a freed 64 MiB block: held $kb Kb"

# probed LOG CMD...: runs CMD with the probe preloaded, its report in LOG.
probed() {
	log=$1
	shift
	RUN_PROBE_LOG="$t_dir/$log" LD_PRELOAD="$probe" "$@" || fail "$*: status $?"
	[ -f "$log" ] || fail "$*: the probe wrote no report"
}
field() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# --trim-every=N: one malloc_trim(0) per N calls of each thread.
synth every e.wl
probed trim.log trace_run --json --trim-every=3 e.wl >trim.json
calls=$(python3 -c "import json; print(sum(v['count'] for v in json.load(open('trim.json'))['calls'].values()))")
expect_eq "--trim-every=3: trims" $((calls / 3)) "$(field trim.log trims)"
probed notrim.log trace_run e.wl >/dev/null
expect_eq "no --trim-every: trims" 0 "$(field notrim.log trims)"

# -o: each mallopt setting, in order, with its value (M_* from malloc.h).
probed opt.log trace_run -o mmap_threshold=64k,trim_threshold=128k,top_pad=0,mmap_max=100,arena_test=1,perturb=165,arena_max=1 e.wl >/dev/null
expect_eq "mallopt calls" "-3 65536,-1 131072,-2 0,-4 100,-7 1,-6 165,-8 1," \
	"$(awk '$1 == "mallopt" { printf "%s %s,", $2, $3 }' opt.log)"
expect_eq "no tunables asked" "-" "$(field opt.log tunables)"
# ... and its effect: four threads share glibc's one arena under arena_max=1.
synth handoff h.wl 20
probed one.log trace_run -o arena_max=1 h.wl >/dev/null
expect_eq "arenas with arena_max=1" 1 "$(grep -c '<heap nr=' one.log)"
probed many.log trace_run h.wl >/dev/null
[ "$(grep -c '<heap nr=' many.log)" -gt 1 ] || fail "4 threads without arena_max used one arena"

# tcache settings exist only as GLIBC_TUNABLES: the replaying process starts with them.
GLIBC_TUNABLES=glibc.malloc.check=0 probed tc.log trace_run -o tcache_count=0,tcache_max=64 e.wl >/dev/null
expect_eq "GLIBC_TUNABLES" "glibc.malloc.check=0:glibc.malloc.tcache_count=0:glibc.malloc.tcache_max=64" \
	"$(field tc.log tunables)"

# Calibration: the timer costs something, and that cost is taken off each
# call: free(NULL) is cheaper than an empty timed region, so its median
# after subtraction is below the timer's cost (and above it without).
# The counter's step is found (1 on most machines, more on a VM whose TSC
# moves in steps), and the Timer line names it exactly when it is over 1.
synth freenull n.wl 20000
timers_here
for timer in auto $timers; do
	trace_run --json --timer=$timer --touch=none n.wl >n.json || fail "--timer=$timer failed"
	jgets n.json "['timer']['overhead']" "['calls']['free']['p50']" "['timer']['step']" >n.vals
	{ read -r cost; read -r p50; read -r step; } <n.vals
	[ "$cost" -gt 0 ] && [ "$cost" -lt 5000 ] || fail "--timer=$timer: timer cost $cost"
	[ "$p50" -lt "$cost" ] || fail "--timer=$timer: free(NULL) p50 $p50, timer cost $cost not taken off"
	[ "$step" -ge 1 ] || fail "--timer=$timer: counter step $step"
	trace_run --timer=$timer --touch=none n.wl >n.out || fail "--timer=$timer failed"
	named=$(grep -c "^Timer: .*; the counter moves [0-9,]* [a-z]* at a time\$" n.out) || true
	[ "$named" = "$([ "$step" -gt 1 ] && echo 1 || echo 0)" ] ||
		fail "--timer=$timer: step $step, Timer line: $(grep '^Timer:' n.out)"
done
pass
