#!/bin/sh
# export.sh - how fast mtrace-report --export turns a real program's trace
# into tables, beside the two other readers of the same trace in the same
# run: mtrace-report's own analysis (--leaks: two streaming passes) and
# mtrace-dump --stats (per-thread cursors, no merge, no live set).
#
# Records /usr/bin/python3 with PYTHONMALLOC=malloc (every object through
# malloc) building and round-tripping dicts through json, then prints wall
# and user time, peak RSS and records per user second of each reader, the
# bytes written, and the export's rate against issue #16's target of 10 M
# calls per second per core.  A benchmark: nothing here fails the build.
#
# Usage: bench/export.sh [--dicts N] [--builddir DIR] [--dir DIR]
set -eu

me=export.sh
srcdir=$(cd "$(dirname "$0")/.." && pwd)
dicts=300000
builddir=
dir=${TMPDIR:-/tmp}

usage() {
	cat <<USAGE
Usage: bench/export.sh [OPTION]...
Times mtrace-report --export, mtrace-report --leaks and mtrace-dump --stats on
one recording of python3 (about 70 calls per dict) and prints seconds, peak RSS
and records/s.

  --dicts N       dicts the python program builds (default 300000: ~20 M calls)
  --builddir DIR  configured build tree (default: the source tree if it is
                  configured, else \${TMPDIR:-/tmp}/mtk-bench-build)
  --dir DIR       where the trace and tables go (default \${TMPDIR:-/tmp};
                  300000 dicts take about 110 MB of trace and 350 MB of tables)
  -h, --help      show this help
USAGE
}

# shellcheck source=common.sh
. "$srcdir/bench/common.sh"

while [ $# -gt 0 ]; do
	case $1 in
	--dicts) [ $# -ge 2 ] || die "--dicts needs a value"; number --dicts "$2"; dicts=$2; shift ;;
	--builddir) [ $# -ge 2 ] || die "--builddir needs a value"; builddir=$2; shift ;;
	--dir) [ $# -ge 2 ] || die "--dir needs a value"; dir=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

[ -x /usr/bin/python3 ] || die "/usr/bin/python3 is needed (scripts/deps.sh test)"
use_builddir
make -s -C "$B" -j2 sdt/libmtracectl.la tools/mtrace-report tools/mtrace-dump >&2 ||
	die "cannot build in $B"
work=$(mktemp -d "$dir/mtk-export-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

env PYTHONMALLOC=malloc MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE="$work/t" \
	LD_PRELOAD="$B/sdt/.libs/libmtracectl.so" /usr/bin/python3 -c "
import json
d = [{'a': i, 'b': str(i) * 3, 'c': [i, i + 1]} for i in range($dicts)]
json.loads(json.dumps(d))" >/dev/null
trace=$(ls "$work"/t.*)
recs=$("$B/tools/mtrace-dump" --stats --json "$trace" | grep -o '"records":[0-9]*' | head -n 1 | cut -d: -f2)

echo "readers of one trace of /usr/bin/python3 (PYTHONMALLOC=malloc, $dicts dicts through json)," \
	"$(du -m "$trace" | cut -f1) MB; load average at start: $(cut -d' ' -f1 /proc/loadavg)"
printf '%-16s %12s %8s %8s %10s %14s\n' reader records wall_s user_s max_rss_kb records/user_s
timed mtrace-dump "$recs" "$B/tools/mtrace-dump" --stats "$trace"
timed report-leaks "$recs" "$B/tools/mtrace-report" --leaks "$trace"
timed export "$recs" "$B/tools/mtrace-report" --export="$work/tables" "$trace"
echo "tables: $(du -sm "$work/tables" | cut -f1) MB of gzip CSV"
if [ -s "$work/last.export" ]; then
	read -r recs user <"$work/last.export"
	awk -v r="$recs" -v u="$user" 'BEGIN {
		rate = (u > 0 ? r / u : 0)
		printf "export: %.2f M calls/s per core (target 10): %s\n", rate / 1e6, rate >= 1e7 ? "PASS" : "MISS" }'
fi
