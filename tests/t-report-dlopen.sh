#!/bin/sh
# t-report-dlopen.sh - a library that allocated and was then dlclose'd is
# still named in the report (its stacks were resolved against the module
# map of their time), and the trace's module map changes with the dlclose.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/report-lib.sh"

"$CC" $RFLAGS -fPIC -shared -o libreport_plugin.so "$top_srcdir/tests/report_plugin.c"
"$CC" $RFLAGS -o report_dl "$top_srcdir/tests/report_dl.c" -ldl
record dl.mtr "$t_dir/report_dl" "$t_dir/libreport_plugin.so"
mtrace-report --json --top=0 dl.mtr >dl.json || fail "mtrace-report failed"
expect_eq "the closed library's leak" \
	"600 2 report_plugin.c:$(line_of "$top_srcdir/tests/report_plugin.c" plugin_leak)" \
	"$(site dl.json leaks plugin_leak)"
expect_eq "the program's leak after the dlclose" \
	"154 2 report_dl.c:$(line_of "$top_srcdir/tests/report_dl.c" after_close)" \
	"$(site dl.json leaks after_close)"

# The module map: the plugin in one map, gone from a later one.
mtrace-dump dl.mtr | grep '^# module ' >modules.txt || fail "mtrace-dump shows no module map"
with=$(awk '/libreport_plugin\.so/ { print $3 }' modules.txt | sort -u)
[ -n "$with" ] || fail "the plugin is in no module map: $(cat modules.txt)"
last=$(awk '{ print $3 }' modules.txt | sort -n | tail -n 1)
[ "$last" -gt "$with" ] || fail "no module map after the dlclose (plugin in map $with, last $last)"
if awk -v g="$last" '$3 == g' modules.txt | grep -q libreport_plugin; then
	fail "the plugin is still in the last module map"
fi
pass
