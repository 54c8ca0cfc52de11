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
