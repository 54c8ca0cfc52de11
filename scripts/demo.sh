#!/bin/sh
# demo.sh - the kit's main job, end to end, on a real program:
#   record every malloc-family call of PROGRAM (default: ls -l /usr/bin),
#   summarise the trace, convert it to a workload, and replay that workload
#   on glibc and on every other allocator installed, side by side; then
#   export the trace as tables and, when DuckDB is at hand (the duckdb
#   command, or the npm package t-report-export.sh installs into
#   tests/duckdb), ask them in SQL which functions allocate most.
# From a clean checkout it installs what is missing and builds first.
#
# Usage: scripts/demo.sh [-- PROGRAM [ARGS...]]
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || set -- ls -l /usr/bin

scripts/deps.sh test
[ -x configure ] || autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
[ -f Makefile ] || ./configure --quiet
make -j"$jobs" >/dev/null

out=$top/demo-out
mkdir -p "$out"
trace=$out/program.mtr
wl=$out/program.wl
export MTRACE_LIBDIR="$top/sdt/.libs"

step() { printf '\n$ %s\n' "$*"; "$@"; }

echo "== 1. record: $*"
step tools/mtrace-record --stacks -o "$trace" -- "$@" >"$out/program.stdout"
echo "(the program's own output is in $out/program.stdout)"

echo
echo "== 2. what the program asked of malloc"
step tools/mtrace-dump --limit 8 "$trace"
step tools/mtrace-dump --stats "$trace"

echo
echo "== 3. convert to a replayable workload"
step converter/trace2wl -f "$wl" "$trace"

echo
echo "== 4. replay it on glibc"
step trace_run/trace_run "$wl"

others=glibc
for a in jemalloc tcmalloc mimalloc; do
	trace_run/trace_run --allocator="$a" --json "$wl" >/dev/null 2>&1 && others="$others,$a"
done
echo
echo "== 5. the same workload on every allocator installed"
step trace_run/trace_run --compare="$others" "$wl"

echo
echo "== 6. export the trace as tables for SQL engines"
rm -rf "$out/tables"
step tools/mtrace-report --export="$out/tables" --host=demo "$trace"

sql="SELECT coalesce(s.function, s.module, '?') AS function, count(*) AS blocks, sum(b.size) AS bytes
FROM read_csv('$out/tables/blocks/*/*/*.csv.gz', hive_partitioning = true) b
JOIN read_csv('$out/tables/stacks/*/*/*.csv.gz', hive_partitioning = true) s USING (host, pid, stack_id)
WHERE s.depth = 0 GROUP BY ALL ORDER BY bytes DESC LIMIT 8"
duck_node=$top/tests/duckdb/node_modules/@duckdb/node-api
echo
echo "== 7. the functions that allocate most, in SQL"
if command -v duckdb >/dev/null; then
	printf '\n$ duckdb -c "%s"\n' "$sql"
	duckdb -c "$sql"
elif command -v node >/dev/null && [ -d "$duck_node" ]; then
	printf '\n$ DuckDB (npm @duckdb/node-api): %s\n' "$sql"
	node -e '
const { DuckDBInstance } = require(process.argv[1]);
(async () => {
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  const rows = (await conn.runAndReadAll(process.argv[2])).getRowObjectsJson();
  for (const r of rows) console.log(`${r.bytes.padStart(12)} bytes ${r.blocks.padStart(8)} blocks  ${r.function}`);
})();' "$duck_node" "$sql"
else
	echo "(DuckDB is not installed: no duckdb command, and no npm package in tests/duckdb;"
	echo " 'make check TESTS=tests/t-report-export.sh' installs the latter)"
fi
