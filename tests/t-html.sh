#!/bin/sh
# t-html.sh - mtrace-report --html and trace_run --html (issue #14): a
# program with known leak and peak sites recorded with stacks, its report
# page and its workload's allocator comparison page, each checked as text
# (the sites, the charts, nothing loaded from the network) and as a
# picture: headless Chromium renders it and the PNG must show the charts.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/report-lib.sh"

build_prog "$t_dir/bin"
record prog.mtr "$t_dir/bin/report_prog"

# offline FILE: nothing in the page is fetched at view time.
offline() {
	if grep -Eio 'https?://|<link|<script[^>]*src|src=|url\(|@import' "$1" >net.txt; then
		fail "$1 loads from elsewhere: $(sort -u net.txt | tr '\n' ' ')"
	fi
}

mtrace-report --html=report.html prog.mtr >report.out 2>report.err ||
	fail "mtrace-report --html failed: $(cat report.err)"
[ ! -s report.out ] || fail "mtrace-report --html wrote to standard output"
offline report.html
for want in "Live heap" "Live blocks" "Allocation rate" "Sizes requested" "Lifetimes" \
	"Allocated bytes by call stack" "Leaked bytes by call stack" "Leaks (blocks never freed)" \
	"Peak (blocks live"; do
	grep -q "$want" report.html || fail "the report page has no '$want'"
done
# The leak site in both the flame graph (a frame's title) and the table.
grep -q '<g class="f"><title>leak_here - ' report.html || fail "no leak_here frame in a flame graph"
grep -q 'leak_here <span class="note">report_prog.c:' report.html || fail "no leak_here in a table"
grep -q 'peak_build' report.html || fail "the peak site is not on the page"
peak=$(mtrace-report --json prog.mtr | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["peak_bytes"])')
python3 - report.html "$peak" <<'PY' || fail "the peak mark does not say the peak's bytes"
import re, sys
html, peak = open(sys.argv[1]).read(), int(sys.argv[2])
marks = re.findall(r'peak ([0-9.]+) (B|KiB|MiB) at', html)
scale = {"B": 1, "KiB": 1024, "MiB": 1 << 20}
assert marks and abs(float(marks[0][0]) * scale[marks[0][1]] - peak) <= peak * 0.01, (marks, peak)
PY
# Several traces: one section each on the one page, flame graphs apart.
mtrace-report --html=two.html prog.mtr prog.mtr 2>two.err || fail "two traces: $(cat two.err)"
expect_eq "sections for two traces" 2 "$(grep -c '^<h2>pid ' two.html)"
expect_eq "distinct flame graph ids" 4 "$(grep -o 'data-info="t[0-9]*-[a-z]*-info"' two.html | sort -u | wc -l)"
expect_fail_with "^mtrace-report: --html needs a file name" mtrace-report --html= prog.mtr
expect_fail_with "^mtrace-report: cannot create /nonexistent/r.html: " \
	mtrace-report --html=/nonexistent/r.html prog.mtr

# The comparison page: the workload of the same run, two allocators if
# another is installed.
trace2wl prog.wl prog.mtr 2>/dev/null || fail "trace2wl failed"
other=$(installed_allocators 2>/dev/null | head -n 1 | cut -d' ' -f1)
list=glibc${other:+,$other}
mkdir tmp
TMPDIR=$t_dir/tmp trace_run --compare="$list" --repeat=2 --html=compare.html prog.wl >compare.out \
	2>compare.err || fail "trace_run --compare --html failed: $(cat compare.err)"
[ -z "$(ls tmp)" ] || fail "trace_run --html left its samples behind: $(ls tmp)"
offline compare.html
for want in "wall time of the replay" "Max RSS" "resident memory" "malloc: time a call took" \
	"glibc [0-9.]+" "cores; Linux"; do
	grep -Eq "$want" compare.html || fail "the comparison page has no '$want'"
done
[ -z "$other" ] || grep -q ">$other<" compare.html || fail "no $other on the comparison page"
trace_run --html=single.html prog.wl >/dev/null 2>single.err ||
	fail "trace_run --html without --compare failed: $(cat single.err)"
grep -q "wall time of the replay" single.html || fail "trace_run --html alone drew no bars"
expect_fail_with "^trace_run: --html needs a file name and goes without --timeline" \
	trace_run --html=x.html --timeline=x.csv prog.wl

# In a real browser.  Half scale keeps the PNG check quick; the charts'
# fills are flat colours, so they survive it.  The page shows first a
# synthetic trace (4 threads, records evenly spread in time, so its live
# heap fills the chart whatever the load) and then the program's, whose
# flame graphs sit at a fixed place below.
command -v chromium >/dev/null ||
	skip "no chromium (Debian package chromium; scripts/deps.sh test installs it) to render the pages"
shot() { # shot PAGE PNG HEIGHT
	chromium --headless --no-sandbox --disable-gpu --force-device-scale-factor=0.5 \
		--screenshot="$t_dir/$2" --window-size="1200,$3" "file://$t_dir/$1" >shot.log 2>&1 ||
		fail "chromium could not render $1: $(tail -n 3 shot.log)"
	[ -s "$2" ] || fail "chromium wrote no $2"
}
# get FIELD LINE: one figure of png_check.py's line.
get() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
"$top_builddir/tests/fmt_synth" bulk synth.mtr 4 20000 65536
mtrace-report --html=both.html synth.mtr prog.mtr 2>both.err || fail "two traces: $(cat both.err)"
# Both pages in one picture, one above the other (a start of Chromium
# takes seconds here): the report's 4400 CSS pixels are its top 2200 rows.
cat >pages.html <<'HTML'
<!doctype html>
<html><body style="margin:0">
<iframe src="both.html" style="border:0;display:block;width:1200px;height:4400px"></iframe>
<iframe src="compare.html" style="border:0;display:block;width:1200px;height:2000px"></iframe>
</body></html>
HTML
shot pages.html pages.png 6400

# Report: the synthetic trace's live heap and blocks (the first thread's
# colour at 75% over white) at the top, the program's allocated bytes
# flame graph's warm frames further down, and a page that is not blank.
# Comparison: each allocator's bar colour.
python3 "$top_srcdir/tests/png_check.py" pages.png 0:600:'#7a9bbd' 1450:1750 \
	2200:3200:'#4e79a7':'#f28e2b' >png.txt || fail "png_check.py could not read pages.png"
top=$(sed -n 1p png.txt) flame=$(sed -n 2p png.txt) cmp=$(sed -n 3p png.txt)
[ "$(get '#7a9bbd' "$top")" -gt 3000 ] || fail "report: no live heap area at the top ($top)"
[ "$(get distinct "$top")" -gt 500 ] || fail "report: too few colours to be charts ($top)"
[ "$(get warm "$flame")" -gt 10000 ] || fail "report: no flame graph frames ($flame)"
[ "$(get '#4e79a7' "$cmp")" -gt 1000 ] || fail "comparison: no glibc bars ($cmp)"
[ -z "$other" ] || [ "$(get '#f28e2b' "$cmp")" -gt 1000 ] || fail "comparison: no $other bars ($cmp)"
[ "$(get distinct "$cmp")" -gt 100 ] || fail "comparison: too few colours to be charts ($cmp)"
pass
