#!/bin/sh
# t-report-export.sh - mtrace-report --export writes tables a real SQL
# engine reads: DuckDB (npm package @duckdb/node-api, installed into the
# build tree) reproduces mtrace-report --json's leak and peak sites
# (function, bytes, count) and mtrace-dump --stats's per-thread record counts from the gzip
# CSV of the leak program and of a run of three processes exported as two
# hosts, and again after converting every table to Parquet.  Also: parts
# roll at --part-rows, a re-export replaces a partition, and the errors.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/report-lib.sh"

build_prog "$t_dir/bin"
record prog.mtr "$t_dir/bin/report_prog"
mkdir run
record run/run.mtr sh -c "'$t_dir/bin/report_prog'; '$t_dir/bin/report_prog'"
ntraces=$(ls run | wc -l)
[ "$ntraces" -ge 3 ] || fail "the shell and its two children should give 3 traces, got $ntraces"

# Export: the single program as host-a, the run as host-b, small parts.
mtrace-report --export=tables --host=host-a --part-rows=50 prog.mtr >export.txt ||
	fail "--export of prog.mtr failed"
mtrace-report --export=tables --host=host-b --part-rows=50 --jobs=2 run/* >>export.txt ||
	fail "--export --jobs=2 of the run failed"
expect_eq "one summary line per trace" "$((ntraces + 1))" "$(wc -l <export.txt)"
expect_eq "schema file" "malloc-trace-kit table export, version 1" "$(cat tables/_schema)"

pid=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' <<EOF
$(mtrace-dump --stats --json prog.mtr)
EOF
)
part=tables/calls/host=host-a/pid=$pid
calls=$(mtrace-dump --stats --json prog.mtr | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')
nparts=$(ls "$part" | wc -l)
expect_eq "calls parts of 50 rows" "$(((calls + 49) / 50))" "$nparts"
for f in "$part"/part-*.csv.gz; do
	rows=$(($(gzip -dc "$f" | wc -l) - 1))
	[ "$rows" -le 50 ] && [ "$rows" -gt 0 ] || fail "$f holds $rows rows, not 1 to 50"
	expect_eq "$f header" "tid,seq,ts_ns,op,size,alignment,ptr,result,usable,stack_id" \
		"$(gzip -dc "$f" | head -1)"
done
# A re-export replaces the partition: no part of the old one stays.
mtrace-report --export=tables --host=host-a prog.mtr >/dev/null || fail "re-export failed"
expect_eq "re-export: one part" "part-0000.csv.gz" "$(ls "$part")"
expect_eq "re-export: rows" "$calls" "$(($(gzip -dc "$part/part-0000.csv.gz" | wc -l) - 1))"

# What the tools say, as "host pid function bytes count" and "host pid tid records".
expected() { # HOST TRACE...
	host=$1
	shift
	for tr in "$@"; do
		mtrace-report --json --leaks --peak --top=0 "$tr" >r.json || fail "mtrace-report --json $tr failed"
		mtrace-dump --stats --json "$tr" >d.json || fail "mtrace-dump --stats --json $tr failed"
		python3 - "$host" r.json d.json <<'PY'
import json, sys
host, rpath, dpath = sys.argv[1:]
report = json.load(open(rpath))
for section, word in (("leaks", "leak"), ("peak", "peak")):
    sites = {}
    for e in report[section]:
        for fn in {fr["function"] for fr in e["stack"] if fr["function"]}:
            b, c = sites.get(fn, (0, 0))
            sites[fn] = (b + e["bytes"], c + e["count"])
    for fn, (b, c) in sites.items():
        print(word, host, report["pid"], fn, b, c)
stats = json.load(open(dpath))
for t in stats["threads"]:
    print("thread", host, stats["pid"], t["tid"], t["records"])
PY
	done
}
{ expected host-a prog.mtr; expected host-b run/*; } | LC_ALL=C sort >expected.txt
grep -q "^leak host-a $pid leak_here 700 7$" expected.txt || fail "the report lost leak_here: $(cat expected.txt)"
grep -q "^peak host-a $pid peak_build 100000 20$" expected.txt || fail "the report lost peak_build: $(cat expected.txt)"

# DuckDB, from npm into the build tree (once for all runs).
command -v node >/dev/null || skip "node (Debian package nodejs) is needed to run DuckDB"
duck=$top_builddir/tests/duckdb
if [ ! -d "$duck/node_modules/@duckdb/node-api" ]; then
	command -v npm >/dev/null || skip "npm (Debian package npm) is needed to install DuckDB"
	npm install --prefix "$duck" --no-audit --no-fund --silent @duckdb/node-api >npm.log 2>&1 ||
		skip "npm cannot install @duckdb/node-api here: $(tail -1 npm.log)"
fi
node "$top_srcdir/tests/export-query.js" "$duck" "$t_dir/tables" "$t_dir/parquet" >sql.json ||
	fail "the DuckDB queries failed"
python3 - sql.json csv >got-csv.txt <<'PY'
import json, sys
ans = json.load(open(sys.argv[1]))[sys.argv[2]]
for r in ans["leaks"]:
    print("leak", r["host"], r["pid"], r["function"], r["bytes"], r["blocks"])
for r in ans["peak"]:
    print("peak", r["host"], r["pid"], r["function"], r["bytes"], r["blocks"])
for r in ans["threads"]:
    print("thread", r["host"], r["pid"], r["tid"], r["records"])
PY
LC_ALL=C sort got-csv.txt >got.txt
diff expected.txt got.txt >diff.txt || fail "SQL over the CSV differs from the tools: $(cat diff.txt)"
python3 - sql.json "$((ntraces + 1))" <<'PY' || fail "the Parquet copy differs from the CSV"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["csv"] == r["parquet"], (r["csv"], r["parquet"])
assert int(r["rows"]["processes"]) == int(sys.argv[2]), r["rows"]
assert all(p["complete"] == True for p in r["csv"]["processes"]), r["csv"]["processes"]
PY
ls parquet/blocks/host=host-b/pid=*/*.parquet >/dev/null || fail "no Parquet partitions written"

# Errors: one line naming what is wrong.
expect_fail_with "cannot be a directory name" mtrace-report --export=tables --host=a/b prog.mtr
expect_fail_with "not a count" mtrace-report --export=tables --part-rows=0 prog.mtr
expect_fail_with "no other output option" mtrace-report --export=tables --json prog.mtr
echo "another version" >bad-schema
mkdir other && cp bad-schema other/_schema
expect_fail_with "other/_schema: holds another table schema" mtrace-report --export=other prog.mtr
: >empty.mtr
expect_fail_with "empty.mtr" mtrace-report --export=tables empty.mtr
touch ro && expect_fail_with "ro/x: cannot create" mtrace-report --export=ro/x prog.mtr
pass
