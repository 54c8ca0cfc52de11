#!/bin/sh
# t-bench-probe.sh - bench/machine_probe, the machine line of every bench
# report, says true things: the processor's RDTSCP as the kernel reports
# it, a TSC rate and a core clock in a plausible range, a chase of a 64
# MiB table slower than one of 256 KiB (it really misses the caches), a
# page fee that took time and under a tenth of a second a page, and one
# line and status 2 for an argument it does not know.
. "$top_srcdir/tests/lib.sh"

probe=$top_builddir/bench/machine_probe
"$probe" --json >probe.json 2>err || fail "machine_probe --json: $(cat err)"
python3 - probe.json "$(grep -c -w rdtscp /proc/cpuinfo)" <<'PY' || fail "machine_probe --json: $(cat probe.json)"
import json, sys
p = json.load(open(sys.argv[1]))
kernel_rdtscp = int(sys.argv[2]) > 0
def check(what, ok):
    if not ok:
        sys.exit("%s: %s" % (what, json.dumps(p)))
check("cpus", p["cpus"] >= 1)
check("rdtscp as /proc/cpuinfo says", p["rdtscp"] == kernel_rdtscp)
check("TSC rate", 100 <= p["tsc_mhz"] <= 10000)
check("core clock", 0.3 <= p["core_ghz"] <= 10)
check("instructions a cycle", 0.1 <= p["ipc_independent_adds"] <= 12)
check("rdtsc", 0 < p["rdtsc_ns"] < 1000)
check("a 64 MiB chase slower than a 256 KiB one",
      p["random_read_64mib_ns"] > p["random_read_256kib_ns"] > 0)
check("a prefetched line", p["prefetched_line_64mib_ns"] > 0)
check("a fresh page's first store", 0 < p["fresh_page_us"] < 100000)
check("a populated page's first load",
      p["populated_page_us"] == -1 or 0 <= p["populated_page_us"] < 100000)
PY
"$probe" >line 2>err || fail "machine_probe: $(cat err)"
grep -q '^machine: [0-9]* cpus, .* family [0-9]* model [0-9]*, .*TSC [0-9]* MHz; core .*; fresh page [0-9.]* us, [-0-9.]* after populate$' line ||
	fail "machine_probe's line: $(cat line)"
rc=0
"$probe" --bogus >out 2>err || rc=$?
expect_eq "status for an unknown argument" 2 "$rc"
expect_eq "lines on stderr" 1 "$(wc -l <err)"
grep -q "machine_probe: unknown argument '--bogus'" err || fail "message: $(cat err)"
pass
