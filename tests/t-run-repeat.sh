#!/bin/sh
# t-run-repeat: --repeat=N replays each allocator N times, the allocators in
# turn, prints each figure's median with its min-max spread and marks a
# ratio whose spreads overlap; --json carries every run; a plain run and
# --repeat=1 keep their single-run formats.  Structure only: no timing is
# judged, only that each median lies within its spread and each mark
# follows from the spreads printed.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth basic b.wl

# --json: every run, numbered, each a whole replay with exact counts.
trace_run --repeat=3 --json b.wl >r.json || fail "--repeat=3 --json failed"
python3 - r.json "$(expected b.wl ideal_peak)" <<'EOF' || fail "--repeat=3 --json: $(cat r.json)"
import json, sys
runs = json.load(open(sys.argv[1]))
assert [r["run"] for r in runs] == [1, 2, 3], [r.get("run") for r in runs]
for r in runs:
    assert r["allocator"] == "default", r["allocator"]
    assert r["calls"]["malloc"]["count"] == 2 and r["calls"]["free"]["count"] == 4
    assert r["ideal_peak_bytes"] == int(sys.argv[2])
EOF

# The allocators in turn: glibc, X, glibc, X, ... (with glibc twice where
# no other allocator is installed).
find_allocators
second=$(echo $allocators | awk '{ print ($2 == "" ? "glibc" : $2) }')
trace_run --compare=glibc,$second --json b.wl >c.json || fail "--compare --json failed"
python3 - c.json "$second" <<'EOF' || fail "--compare --json (default --repeat): $(cat c.json)"
import json, sys
runs = json.load(open(sys.argv[1]))
got = [(r["run"], r["allocator"]) for r in runs]
want = [(k, a) for k in (1, 2, 3) for a in ("glibc", sys.argv[2])]
assert got == want, got
EOF

# The table: how to read it, one column per allocator, and every row's
# cells as "median" or "median [min-max]" with min <= median <= max; a
# ratio is the ratio of medians, in parentheses exactly when the spreads
# overlap.  The ideal RSS is the program's: one value, ratio (1.00x).
check_table() { # check_table FILE RUNS COLUMNS...
	python3 - "$@" <<'EOF'
import re, sys
path, runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
lines = open(path).read().splitlines()
assert lines[0] == "Median of %d runs of each allocator, run in turn; [min-max] over the runs;" % runs, lines[0]
assert lines[1] == "a ratio in parentheses is not a difference: the two min-max spreads overlap.", lines[1]
assert lines[2].split() == [w for i, n in enumerate(names) for w in ([n] if i == 0 else [n, "ratio"])], lines[2]
num = lambda s: int(s.replace(",", ""))
cell = r"([0-9,]+)(?: \[([0-9,]+)-([0-9,]+)\])?"
ratio = r"(-|\(?[0-9]+\.[0-9]{2}x\)?)"
pat = re.compile(r"^(.{22}) +" + cell + "".join(r" +" + cell + r" +" + ratio for _ in names[1:]) + "$")
rows = {}
for line in lines[3:]:
    m = pat.match(line)
    assert m, "row does not parse: " + line
    g = m.groups()
    label, cells, ratios = g[0].strip(), [], []
    for i in range(len(names)):
        base = 4 * i if i else 1
        med, lo, hi = g[base], g[base + 1], g[base + 2]
        med = num(med)
        lo, hi = (num(lo), num(hi)) if lo else (med, med)
        assert lo <= med <= hi and lo < hi or lo == med == hi, line
        cells.append((med, lo, hi))
        if i:
            ratios.append(g[base + 3])
    for (med, lo, hi), r in zip(cells[1:], ratios):
        m0, lo0, hi0 = cells[0]
        if m0 == 0:
            assert r == "-", line
            continue
        assert abs(float(r.strip("()x")) - med / m0) < 0.006, line
        overlap = lo <= hi0 and lo0 <= hi
        assert r.startswith("(") == overlap, "mark against spreads: " + line
    rows[label] = (cells, ratios)
for want in ("usec wall time", "Kb Max RSS", "Kb Max Ideal RSS", "total call time", "avg malloc", "p99 free", "calls failed now"):
    assert want in rows, "no row " + want
cells, ratios = rows["Kb Max Ideal RSS"]
assert all(c[1] == c[2] == cells[0][0] for c in cells), cells
assert all(r == "(1.00x)" for r in ratios), ratios
EOF
}
trace_run --compare=glibc,$second b.wl >c.txt || fail "--compare (default --repeat) failed"
check_table c.txt 3 glibc $second || fail "--compare table: $(cat c.txt)"
trace_run --repeat=4 --allocator=glibc b.wl >g.txt || fail "--repeat=4 --allocator=glibc failed"
check_table g.txt 4 glibc || fail "--repeat=4 table: $(cat g.txt)"
trace_run --repeat=2 b.wl >d.txt || fail "--repeat=2 failed"
check_table d.txt 2 default || fail "--repeat=2 table: $(cat d.txt)"

# One run: the single-run formats, unchanged.
trace_run --compare=glibc,$second --repeat=1 b.wl >one.txt || fail "--repeat=1 --compare failed"
head -1 one.txt | grep -Eq "^ +glibc +$second +ratio\$" || fail "--repeat=1 --compare header: $(head -1 one.txt)"
grep -Eq '^Kb Max Ideal RSS +2 +2 +1\.00x$' one.txt || fail "--repeat=1 --compare ideal row"
trace_run --compare=glibc --repeat=1 --json b.wl >one.json || fail "--repeat=1 --json failed"
expect_eq "--repeat=1 --json: no run numbers" False \
	"$(python3 -c "import json; print(any('run' in r for r in json.load(open('one.json'))))")"
trace_run --repeat=1 b.wl >plain1.txt || fail "--repeat=1 failed"
trace_run b.wl >plain.txt || fail "plain run failed"
shape() { sed 's/[0-9,.]//g; s/  */ /g' "$1"; }
expect_eq "--repeat=1 is the plain report" "$(shape plain.txt)" "$(shape plain1.txt)"

usage() { expect_fail_with "$@"; expect_eq "status of '$*'" 2 "$rc"; }
usage "^trace_run: --repeat: '0' is not a number of runs from 1 to 100" trace_run --repeat=0 b.wl
usage "^trace_run: --repeat: '101' is not" trace_run --repeat=101 b.wl
usage "^trace_run: --repeat: 'x' is not" trace_run -r x b.wl
usage "^trace_run: --repeat and --timeline cannot go together" trace_run --repeat=2 --timeline=t.csv b.wl
pass
