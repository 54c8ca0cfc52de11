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

# jget JSON-FILE PATH: one value from trace_run --json output, by a Python
# path such as "['calls']['malloc']['count']"; fails unless it parses.
jget() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d$2)" "$1" ||
		fail "$1: not JSON with $2"
}

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
