# tests/run_lib.sh - helpers for the trace_run tests; source after lib.sh.
#
# synth SCENARIO FILE [N]: writes a workload with tests/run_synth and keeps
# its expected figures in FILE.expect ("name value" lines).
synth() {
	"$top_builddir/tests/run_synth" "$@" >"$2.expect" || fail "run_synth $1 failed"
}

# expected FILE NAME: a figure run_synth promised for FILE.
expected() {
	awk -v k="$2" '$1 == k { print $2 }' "$1.expect"
}

# jgets JSON-FILE PATH...: values from trace_run --json output, one a line,
# by Python paths such as "['calls']['malloc']['count']"; fails unless they
# parse.  One python3 start for all (each costs 30-90 ms here).
jgets() {
	json_file=$1
	shift
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for p in sys.argv[2:]: print(eval('d' + p))" "$json_file" "$@" || fail "$json_file: not JSON with $*"
}

# jget JSON-FILE PATH: one such value.
jget() { jgets "$1" "$2"; }

# expect_calls WHAT STATS RUN: the replay (trace_run --json, in RUN) made
# each call type as often as the workload holds (trace2wl --stats --json).
expect_calls() {
	for c in $(python3 -c "import json, sys; print(' '.join(json.load(open(sys.argv[1]))['by_call']))" "$2"); do
		expect_eq "$1: $c count" "$(jget "$2" "['by_call']['$c']")" \
			"$(jget "$3" "['calls']['$c']['count']")"
	done
}

# find_allocators: sets $allocators to glibc and each Debian allocator that
# trace_run can load here; names the missing ones on stderr.
find_allocators() {
	synth basic "$t_dir/.probe.wl"
	allocators=glibc
	for a in jemalloc tcmalloc mimalloc; do
		if trace_run --allocator=$a "$t_dir/.probe.wl" >/dev/null 2>"$t_dir/.probe.err"; then
			allocators="$allocators $a"
		elif grep -q "not found (install the" "$t_dir/.probe.err"; then
			echo "$a is not installed: $(cat "$t_dir/.probe.err")" >&2
		else
			fail "--allocator=$a: $(cat "$t_dir/.probe.err")"
		fi
	done
}

# timer_unit SOURCE: the unit trace_run reports figures in with that timer.
timer_unit() {
	case $1 in
	rdtscp | rdtsc) echo cycles ;;
	cntvct) echo ticks ;;
	clock) echo ns ;;
	*) fail "unknown timer source '$1'" ;;
	esac
}

# timers_here: sets $timers to the --timer sources trace_run accepts here.
# One it refuses must be refused as the processor lacking it, in one line;
# which ones that are is this processor's business, never the test's.
timers_here() {
	synth basic "$t_dir/.timers.wl"
	timers=
	for s in rdtscp rdtsc cntvct clock; do
		if trace_run --timer=$s "$t_dir/.timers.wl" >/dev/null 2>"$t_dir/.timers.err"; then
			timers="$timers $s"
		else
			grep -Eqx "trace_run: --timer=$s: this processor has no .*" "$t_dir/.timers.err" ||
				fail "--timer=$s: $(cat "$t_dir/.timers.err")"
			[ "$(wc -l <"$t_dir/.timers.err")" -eq 1 ] || fail "--timer=$s: more than one line"
			echo "--timer=$s is not available here: $(cat "$t_dir/.timers.err")" >&2
		fi
	done
	case $timers in *clock*) ;; *) fail "--timer=clock was refused" ;; esac
}

# cold_log N FILE: an mtrace log of N blocks made, then freed in a
# scrambled order (i * 7919 mod N): with N in the tens of thousands almost
# every free finds its slot untouched for 16,384 ops or more.
cold_log() {
	awk -v n="$1" 'BEGIN {
		print "= Start"
		for (i = 0; i < n; i++) printf "@ ./p:[0x1] + 0x%x 0x%x\n", 4096 + 64 * i, 16 + i % 48
		for (i = 0; i < n; i++) printf "@ ./p:[0x1] - 0x%x\n", 4096 + 64 * ((i * 7919) % n)
		print "= End"
	}' >"$2"
}
