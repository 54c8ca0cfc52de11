# tests/report-lib.sh - what the t-report-*.sh tests share: building the
# programs of tests/report_*.c the way distributions build (-O1 -g, no frame
# pointers), recording them with stacks, and reading mtrace-report's JSON.
# Source after lib.sh.
# shellcheck shell=sh

CC=${CC:-cc}
CXX=${CXX:-c++}
# -fno-builtin: gcc would drop a malloc whose block is freed unread.
RFLAGS="-O1 -g -fomit-frame-pointer -fno-builtin"
command -v "$CC" >/dev/null || skip "no C compiler ($CC) to build the test programs"
command -v python3 >/dev/null || skip "python3 (Debian package python3) is needed to read --json"
unset DEBUGINFOD_URLS # symbols come from the files here, never the network

# build_prog DIR: report_prog and libreport_lib.so in DIR.
build_prog() {
	mkdir -p "$1"
	"$CC" $RFLAGS -fPIC -shared -o "$1/libreport_lib.so" "$top_srcdir/tests/report_lib.c"
	"$CC" $RFLAGS -o "$1/report_prog" "$top_srcdir/tests/report_prog.c" \
		-L"$1" -lreport_lib -Wl,-rpath,"$1"
}

# record TRACE PROGRAM [ARG]...: records with stacks into exactly TRACE.
record() {
	out=$1
	shift
	MTRACE_LIBDIR=$(dirname "$MTRACECTL_LIB") mtrace-record -q --stacks -o "$out" "$@" >/dev/null ||
		fail "recording '$*' failed"
	[ -s "$out" ] || fail "no trace from '$*'"
}

# line_of FILE SITE: the line of FILE marked "SITE: name".
line_of() {
	grep -n "SITE: $2 \*/" "$1" | cut -d: -f1
}

# site JSON SECTION FUNCTION: "BYTES COUNT FILE:LINE" summed over the
# entries of SECTION (allocations, leaks, peak, temporary) whose stack has a
# frame of FUNCTION, FILE:LINE being that frame's ("mixed" if the entries
# disagree); "none" when no entry has it.  A sum, as the compiler may call
# one site from several places (an unrolled loop): each is a stack of its own.
site() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
path, section, fn = sys.argv[1:]
with open(path) as f:
    report = json.loads(f.readline())
nbytes = count = 0
where = set()
for e in report[section]:
    for fr in e["stack"]:
        if fr["function"] == fn:
            where.add("%s:%s" % (os.path.basename(fr["file"] or "?"), fr["line"]))
            nbytes += e["bytes"]
            count += e["count"]
            break
if not where:
    print("none")
else:
    print(nbytes, count, where.pop() if len(where) == 1 else "mixed")
PY
}
