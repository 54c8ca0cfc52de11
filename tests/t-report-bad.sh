#!/bin/sh
# t-report-bad.sh - what mtrace-report and the reader do with traces that
# are not what they should be: modules gone since the recording (addresses
# and module names, no error), a damaged stack table (one line naming the
# file and offset), a trace without stacks (every section, at one unknown
# site, and it says so), an old version 1 trace, and usage errors.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/report-lib.sh"

build_prog "$t_dir/bin"
record prog.mtr "$t_dir/bin/report_prog"

# Modules missing: the program and its library are gone.
mv bin gone
mtrace-report --json --top=0 prog.mtr >missing.json 2>missing.err ||
	fail "modules missing: mtrace-report failed: $(cat missing.err)"
python3 - missing.json <<'PY' || fail "modules missing: frames not left as addresses and module names"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
ours = [fr for e in r["leaks"] for fr in e["stack"] if fr["module"] in ("report_prog", "libreport_lib.so")]
assert ours, "no frame names the missing modules"
assert all(fr["function"] is None and fr["address"].startswith("0x") for fr in ours), ours
assert sum(e["bytes"] for e in r["leaks"]) == r["summary"]["leaked_bytes"]
PY
mv gone bin

# A damaged stack table: the first entry's kind byte.
table=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().index(b"MTTB"))' prog.mtr)
cp prog.mtr bad.mtr
printf '\177' | dd of=bad.mtr bs=1 seek=$((table + 64)) conv=notrunc 2>/dev/null
expect_fail_with "^mtrace-report: bad\.mtr: offset $((table + 64)): corrupt stack table entry" \
	mtrace-report bad.mtr
expect_fail_with "^mtrace-dump: bad\.mtr: offset $((table + 64)): corrupt stack table entry" \
	mtrace-dump --stats bad.mtr
# A trace cut inside its table keeps the entries before the cut.
head -c $((table + 100)) prog.mtr >cut.mtr
mtrace-report --leaks cut.mtr >cut.out 2>cut.err || fail "a trace cut inside its table failed: $(cat cut.err)"
grep -q "truncated" cut.err || fail "a trace cut inside its table: no warning"

# No stacks: every section, one unknown site, and a word about it.
MTRACE_LIBDIR=$(dirname "$MTRACECTL_LIB") mtrace-record -q -o plain.mtr "$t_dir/bin/report_prog" >/dev/null
mtrace-report plain.mtr >plain.txt || fail "a trace without stacks failed"
grep -q "no call stacks in this trace" plain.txt || fail "no word about the missing stacks"
for s in "allocations by calls" "leaks" "peak" "temporary" "summary"; do
	grep -q "^$s" plain.txt || fail "no '$s' section without stacks"
done
mtrace-report --json plain.mtr >plain.json
python3 - plain.json <<'PY' || fail "without stacks: not one unknown leak site with every leaked byte"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["stacks"] is False
assert len(r["leaks"]) == 1 and r["leaks"][0]["stack"] == []
assert r["leaks"][0]["bytes"] == r["summary"]["leaked_bytes"] >= 3900
PY

# A version 1 trace (the same bytes as a version 2 trace without stacks:
# sort, recorded by the version 2 recorder) reports as the version 2 one.
cp "$top_srcdir/tests/data/v2-sort.mtrace" v2.mtr
cp v2.mtr v1.mtr
printf '\001\000' | dd of=v1.mtr bs=1 seek=8 conv=notrunc 2>/dev/null
mtrace-dump v1.mtr | grep -q "(format 1)" || fail "a version 1 trace does not read"
mtrace-report --json v2.mtr >v2.json || fail "a version 2 trace does not report"
mtrace-report --json v1.mtr | sed 's/"file":"v1.mtr"/"file":"v2.mtr"/' | cmp -s - v2.json ||
	fail "version 1 and 2 reports differ"

# Usage.
expect_fail_with "^mtrace-report: --top: 'x' is not a count" mtrace-report --top=x prog.mtr
expect_fail_with "^mtrace-report: --weight: 'kg' is neither bytes nor count" mtrace-report --weight=kg prog.mtr
expect_fail_with "^mtrace-report: no trace given" mtrace-report
expect_fail_with "^mtrace-report: nothing\.mtr: cannot open" mtrace-report nothing.mtr
mtrace-report --version | grep -q "^mtrace-report (malloc-trace-kit) " || fail "--version"
mtrace-report --help | grep -q -- "--folded" || fail "--help"
pass
