#!/bin/sh
# t-report-diff.sh - mtrace-report --diff=BASE NEW: two recordings of one
# program where one site allocates twice as much in the second; that site
# ranks first for allocations and leaks, matched by function although the
# program was rebuilt in between (its addresses moved), and a site that did
# not change is not listed.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/report-lib.sh"

mkdir base new
"$CC" $RFLAGS -o base/grow "$top_srcdir/tests/report_grow.c"
record base.mtr "$t_dir/base/grow" 1
# Rebuilt with its functions moved: matching must not go by address.
"$CC" $RFLAGS -falign-functions=256 -o new/grow "$top_srcdir/tests/report_grow.c"
record new.mtr "$t_dir/new/grow" 2
mtrace-report --json --diff=base.mtr new.mtr >diff.json || fail "--diff failed"
python3 - diff.json <<'PY' || fail "--diff did not rank grow_site first with +4000 bytes"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
for metric in ("allocations", "leaks"):
    top = r[metric][0]
    assert top["stack"][0]["function"] == "grow_site", (metric, top)
    assert (top["bytes_base"], top["bytes_new"], top["count_base"], top["count_new"]) == (4000, 8000, 1, 2), top
    assert not any(e["stack"][0]["function"] == "same_site" for e in r[metric]), r[metric]
PY
mtrace-report --diff=base.mtr new.mtr >diff.txt || fail "--diff text failed"
grep -q "^  1\. +4000 bytes: 4000 -> 8000 bytes, 1 -> 2 calls" diff.txt || fail "text: $(cat diff.txt)"
# The base build overwritten by the new one: its symbols are not borrowed.
cp new/grow base/grow
mtrace-report --json --leaks base.mtr >stale.json || fail "a trace whose program was rebuilt failed"
python3 - stale.json <<'PY' || fail "the rebuilt program lent its symbols to the old trace"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
frames = [f for e in r["leaks"] for f in e["stack"] if f["module"] == "grow"]
assert frames and all(f["function"] is None for f in frames), frames
PY
expect_fail_with "^mtrace-report: --diff takes one NEW trace" mtrace-report --diff=base.mtr new.mtr base.mtr
expect_fail_with "^mtrace-report: nothing\.mtr: cannot open" mtrace-report --diff=nothing.mtr new.mtr
pass
