#!/bin/sh
# t-fmt-dump.sh - mtrace-dump shows exactly the calls a known trace holds:
# every call type's line, merge order (ties by thread), filters, standard
# input, --stats totals, and JSON that parses and adds up.
. "$top_srcdir/tests/lib.sh"

synth=$top_builddir/tests/fmt_synth
"$synth" calls calls.mtr

mtrace-dump calls.mtr >dump.txt 2>err.txt
[ ! -s err.txt ] || fail "warnings on a clean trace: $(cat err.txt)"
cat >want.txt <<'EOF'
# trace calls.mtr (format 4)
# pid 4242, ppid 1, exe /usr/bin/synth
# allocator glibc, 8-byte pointers, little-endian
# timestamps monotonic at 1000000000 Hz, started 2023-11-14 22:13:20 UTC
# closed cleanly, 2 threads, 19 records, 2 windows, 0 dropped
100:0  +0.000001000  malloc(24) = 0x55d0c0a2a2a0  usable 24
200:0  +0.000002000  calloc(4, 8) = 0x55d0c0a2a2c0  usable 40
100:1  +0.000003000  realloc(0x55d0c0a2a2a0, 100) = 0x55d0c0a2a300  usable 104
200:1  +0.000004000  realloc(NULL, 10) = 0x55d0c0a2a370  usable 24
100:2  +0.000005000  reallocarray(0x55d0c0a2a300, 3, 50) = 0x7f0000001000  usable 152  [non-main arena]
200:2  +0.000006000  memalign(64, 100) = 0x55d0c0a2a400  usable 104
100:3  +0.000007000  posix_memalign(align 64, 100) = 0x55d0c0a2a480  usable 104
200:3  +0.000008000  posix_memalign(align 3, 100) = EINVAL
100:4  +0.000009000  aligned_alloc(4096, 4096) = 0x55d0c0a2b000  usable 4096
200:4  +0.000010000  valloc(100) = 0x55d0c0a2c000  usable 4096
100:5  +0.000011000  pvalloc(100) = 0x55d0c0a2d000  usable 4096
200:5  +0.000012000  malloc(18446744073709551615) = NULL
100:6  +0.000013000  malloc(1048576) = 0x7f1234567010  usable 1052656  [mmapped]
200:6  +0.000014000  free(0x7f0000001000)
100:7  +0.000015000  free(NULL)
200:7  +0.000016000  free_sized(0x55d0c0a2a400, 100)
100:8  +0.000017000  free_aligned_sized(0x55d0c0a2a480, 64, 100)
100:9  +0.000018000  free(0x7f1234567010)
200:8  +0.000018000  event memory_sbrk_more(0x55d0c0a2b000, 0x21000)
EOF
diff want.txt dump.txt >&2 || fail "dump of the known calls differs (above)"

# Filters.
expect_eq "--thread 200 lines" 9 "$(mtrace-dump --thread 200 calls.mtr | grep -c '^200:')"
expect_eq "--thread 200 others" 0 "$(mtrace-dump --thread 200 calls.mtr | grep -c '^100:' || true)"
expect_eq "--limit 3" 3 "$(mtrace-dump --limit 3 calls.mtr | grep -vc '^#')"

# Standard input reads the same records.
mtrace-dump - <calls.mtr | grep -v '^#' >stdin.txt
grep -v '^#' dump.txt | diff - stdin.txt >&2 || fail "standard input dump differs"
cat calls.mtr | mtrace-dump - | grep -v '^#' | diff - stdin.txt >&2 || fail "pipe dump differs"

# --stats: totals of the known calls.
mtrace-dump --stats calls.mtr >stats.txt
grep -Eq '^  malloc +3  \(1 failed\)$' stats.txt || fail "malloc count: $(cat stats.txt)"
grep -Eq '^  posix_memalign +2  \(1 failed\)$' stats.txt || fail "posix_memalign count"
grep -Eq '^  tid 100 +10 records, 7 allocations \(1053146 bytes requested\), 3 frees$' stats.txt ||
	fail "thread 100 line: $(grep 'tid 100' stats.txt)"
grep -q '^records 19, failed calls 2, free(NULL) 1, dropped 0, windows 2$' stats.txt ||
	fail "totals line: $(grep '^records' stats.txt)"
grep -q '^bytes requested 1053388 in 11 allocations, usable 1065496' stats.txt ||
	fail "bytes line: $(grep '^bytes' stats.txt)"

# Usage: help and version succeed, bad options exit 2 with one line.
mtrace-dump --help | grep -q '^Usage: mtrace-dump' || fail "--help"
mtrace-dump --version | grep -q "^mtrace-dump (malloc-trace-kit) " || fail "--version"
set +e
mtrace-dump --no-such-option calls.mtr 2>err.txt
rc=$?
set -e
expect_eq "bad option exit status" 2 "$rc"
expect_eq "bad option message lines" 1 "$(wc -l <err.txt)"

# JSON: parses, and its counts match the text.
if ! command -v python3 >/dev/null; then
	echo "python3 not found: JSON parse checks skipped" >&2
	pass
fi
mtrace-dump --json calls.mtr >recs.jsonl
python3 - recs.jsonl <<'EOF' || fail "JSON Lines check"
import json, sys, collections
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == 19, len(recs)
calls = collections.Counter(r["call"] for r in recs)
assert calls["malloc"] == 3 and calls["free"] == 3 and calls["event"] == 1, calls
first = recs[0]
assert first == {"call": "malloc", "tid": 100, "n": 0, "ts": 1000, "ptr_in": 0,
                 "ptr_out": 0x55d0c0a2a2a0, "size": 24, "nmemb": 0, "align": 0,
                 "usable": 24, "flags": 0, "rc": 0}, first
assert recs[7]["rc"] == 22 and recs[7]["flags"] == 0x40, recs[7]
EOF
mtrace-dump --stats --json calls.mtr >stats.json
python3 -m json.tool stats.json >/dev/null || fail "--stats --json does not parse"
python3 - stats.json <<'EOF' || fail "--stats --json counts"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["records"] == 19 and s["failed"] == 2 and s["free_null"] == 1, s
assert s["calls"]["posix_memalign"] == 2 and s["failed_calls"]["malloc"] == 1, s
assert s["bytes_requested"] == 1053388 and s["bytes_usable"] == 1065496, s
assert [t["tid"] for t in s["threads"]] == [100, 200], s["threads"]
assert sum(b["count"] for b in s["size_histogram"]) == 13, s["size_histogram"]
assert s["closed"] is True and s["pid"] == 4242 and s["exe"] == "/usr/bin/synth", s
EOF

# A bigger generated trace: JSON Lines, --stats and the text dump agree.
"$synth" bulk bulk.mtr 4 5000 4096
n_json=$(mtrace-dump --json bulk.mtr | wc -l)
n_text=$(mtrace-dump bulk.mtr | grep -vc '^#')
n_stats=$(mtrace-dump --stats --json bulk.mtr |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')
expect_eq "bulk JSON records" 20000 "$n_json"
expect_eq "bulk text records" 20000 "$n_text"
expect_eq "bulk stats records" 20000 "$n_stats"

# A trace with no window (a program that never allocates: /bin/true) reads
# as empty, in every mode; the reader once handed qsort a NULL array for it,
# which only the sanitizer builds of this test see.
: | "$top_builddir/tests/conv_mktrace" empty.mtr
expect_eq "no window: text" "# closed cleanly, 0 threads, 0 records, 0 windows, 0 dropped" \
	"$(mtrace-dump empty.mtr | tail -n 1)"
expect_eq "no window: JSON records" 0 "$(mtrace-dump --json empty.mtr | wc -l)"
expect_eq "no window: stats records" 0 "$(mtrace-dump --stats --json empty.mtr |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')"
# A version 2 trace (every record stamped: sort, recorded by the recorder
# of that version) reads as it did then: its dump was taken by the version
# 2 reader.
cp "$top_srcdir/tests/data/v2-sort.mtrace" v2-sort.mtrace
mtrace-dump v2-sort.mtrace >v2.txt 2>v2.err || fail "version 2 trace: $(cat v2.err)"
[ ! -s v2.err ] || fail "warnings on a version 2 trace: $(cat v2.err)"
diff -u "$top_srcdir/tests/data/v2-sort.dump" v2.txt >&2 || fail "version 2 trace reads differently"
# A version 3 trace (varint fields; some records carry their time, some
# stamped by a stamp record: sort under MTRACE_SPARSE_TIME=1) reads as the
# version 3 reader read it.
cp "$top_srcdir/tests/data/v3-sort.mtrace" v3-sort.mtrace
mtrace-dump v3-sort.mtrace >v3.txt 2>v3.err || fail "version 3 trace: $(cat v3.err)"
[ ! -s v3.err ] || fail "warnings on a version 3 trace: $(cat v3.err)"
diff -u "$top_srcdir/tests/data/v3-sort.dump" v3.txt >&2 || fail "version 3 trace reads differently"
pass
