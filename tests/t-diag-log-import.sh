#!/bin/sh
# t-diag-log-import.sh - the log importer turns malloc-log and glibc
# MALLOC_TRACE text into traces holding exactly the calls written, in time
# order, and refuses bad lines with one "FILE:LINE: ..." error.
. "$top_srcdir/tests/lib.sh"

imp="$top_builddir/tests/diag_logimport"
dump="$top_builddir/tools/mtrace-dump"
[ -x "$dump" ] || fail "tools/mtrace-dump is not built"

# Every call type, two threads, lines out of time order (as per-CPU tracer
# buffers print them), comments and bpftrace's banner.
cat >mixed.log <<'EOF'
Attaching 24 probes...
# mlog1 hand-written
mlog1 7 1000 malloc 16 = 0x1000
mlog1 8 1100 calloc 3 8 = 0x2000
mlog1 7 1300 realloc 0x1000 32 = 0x3000
mlog1 7 1200 memalign 64 100 = 0x4000

mlog1 8 1400 posix_memalign 32 40 = 0x5000 0
mlog1 8 1500 posix_memalign 3 10 = 0x0 22
mlog1 7 1600 reallocarray 0x0 10 20 = 0x6000
mlog1  7	1700 aligned_alloc 16 32 = 0x7000
mlog1 8 1800 valloc 10 = 0x8000
mlog1 8 1900 pvalloc 10 = 0x9000
mlog1 7 2000 malloc 9223372036854775807 = 0x0
mlog1 7 2100 free 0x0
mlog1 7 2200 free_sized 0x3000 32
mlog1 8 2300 free_aligned_sized 0x5000 32 40
mlog1 8 2400 free 0x2000
EOF
expect_eq "sniffed kind" malloc-log "$("$imp" mixed.log mixed.tr)"
"$dump" mixed.tr | grep -v '^#' | sed 's/ *+[0-9.]* */ /' >mixed.out
cat >mixed.want <<'EOF'
7:0 malloc(16) = 0x1000  usable 16
8:0 calloc(3, 8) = 0x2000  usable 24
7:1 memalign(64, 100) = 0x4000  usable 100
7:2 realloc(0x1000, 32) = 0x3000  usable 32
8:1 posix_memalign(align 32, 40) = 0x5000  usable 40
8:2 posix_memalign(align 3, 10) = EINVAL
7:3 reallocarray(NULL, 10, 20) = 0x6000  usable 200
7:4 aligned_alloc(16, 32) = 0x7000  usable 32
8:3 valloc(10) = 0x8000  usable 10
8:4 pvalloc(10) = 0x9000  usable 10
7:5 malloc(9223372036854775807) = NULL
7:6 free(NULL)
7:7 free_sized(0x3000, 32)
8:5 free_aligned_sized(0x5000, 32, 40)
8:6 free(0x2000)
EOF
diff -u mixed.want mixed.out >&2 || fail "mixed.log imported differently (diff above)"

# glibc's own MALLOC_TRACE output of the known sequence: 9 blocks returned
# (one NULL), 2 reallocs, 8 frees; posix_memalign's failure is not printed.
MALLOC_TRACE="$t_dir/mtrace.log" LD_PRELOAD=libc_malloc_debug.so.0 \
	"$top_builddir/tests/diag_calls" mtrace
[ -s mtrace.log ] || skip "libc_malloc_debug.so.0 wrote no MALLOC_TRACE (glibc older than 2.34?)"
expect_eq "sniffed kind" mtrace "$("$imp" mtrace.log mtrace.tr)"
"$dump" mtrace.tr | grep -v '^#' | awk '{ sub(/\(.*/, "", $3); print $3 }' | sort | uniq -c |
	awk '{ printf "%s=%s ", $2, $1 }' >counts
expect_eq "MALLOC_TRACE calls" "free=8 malloc=9 realloc=2 " "$(cat counts)"
expect_eq "failed malloc" 1 "$("$dump" mtrace.tr | grep -c 'malloc(9223372036854775807) = NULL')"
expect_eq "realloc to 0 is a free" 1 \
	"$("$dump" mtrace.tr | grep -c "free($(grep -o '+ 0x[0-9a-f]* 0x32$' mtrace.log | cut -d' ' -f2))")"

# Each bad line: exactly one error naming the file and line.
bad() { # NAME LINE PATTERN: the log NAME (given on stdin) fails at LINE
	cat >"$1"
	expect_fail_with "^diag_logimport: $1:$2: $3" "$imp" "$1" "$1.tr"
}
printf 'mlog1 7 1000 malloc 16 = 0x1000\nmlog2 7 1001 malloc 16 = 0x1000\n' |
	bad v2.log 2 "malloc-log version 2"
printf 'mlog1 7 1000 mallok 16 = 0x1000\n' | bad call.log 1 "unknown call 'mallok'"
printf 'mlog1 7 1000 calloc 16 = 0x1000\n' | bad args.log 1 "calloc takes 2 arguments, got 1"
printf 'mlog1 7 1000 free 0x10 0x20\n' | bad free.log 1 "free takes 1 argument, got 2"
printf 'mlog1 7 1000 free 0x10 = 0x20\n' | bad freeres.log 1 "free returns nothing"
printf 'mlog1 7 1000 malloc 16\n' | bad res.log 1 "malloc must end with '= PTR'"
printf 'mlog1 7 1000 malloc 1z = 0x10\n' | bad num.log 1 "size '1z' is not a number"
printf 'mlog1 0 1000 malloc 1 = 0x10\n' | bad tid.log 1 "thread id 0 out of range"
printf 'mlog1 7 1000 posix_memalign 8 8 = 0x10 12\n' | bad pm.log 1 "posix_memalign result 0x10 with rc 12: one of them must be 0"
printf '# c\nmlog1 7 1 malloc 1 = 0x10\nLost 12 events\n' | bad lost.log 3 "the tracer lost calls"
printf 'hello\n' | bad junk.log 1 "neither a malloc-log"
printf '= Start\n@ ./a:[0x1] < 0x10\n@ ./a:[0x1] + 0x20 0x8\n' | bad half.log 3 "'<' line not followed"
printf '= Start\n+ 0x10 0x8\n* 0x10\n' | bad op.log 3 "unknown MALLOC_TRACE operation"
printf '= Start\n@ ./a:[0x1 + 0x10 0x8\n' | bad at.log 2 "caller field"
printf '= Start\n- zz\n' | bad ptr.log 2 "pointer 'zz'"
printf '= Start\n< 0x10\n' | bad end.log 2 "log ends after a '<' line"
expect_fail_with "^diag_logimport: nosuch.log: cannot open" "$imp" nosuch.log x.tr

# glibc's log converts and replays too.
command -v trace2wl >/dev/null || skip "converter/trace2wl not built: imports checked, not replayed"
command -v trace_run >/dev/null || skip "trace_run/trace_run not built: imports checked, not replayed"
# trace2wl hands every text input to the importer, whose first line is
# judged as a log line: one error with its number, never "bad magic".
t2w_bad() { # NAME LINE PATTERN: trace2wl on the log NAME (on stdin) fails so
	cat >"$1"
	expect_fail_with "^trace2wl: $1$2 $3" trace2wl -f out.wl "$1"
}
printf 'hello\n' | t2w_bad hello.log :1: "neither a malloc-log"
printf 'mlog0 7 1000 malloc 16 = 0x1000\n' | t2w_bad v0.log :1: "malloc-log version 0"
printf 'Attaching 21 probes...\n# mlog1 malloc-log: markers of x, pid 7\n\n' |
	t2w_bad header.log : "no calls"
printf '= Start\n= End\n' | t2w_bad nocalls.log : "no calls"
printf '# c\n+ (nil) 0x10\n@ ./a:[0x1] - 0x20 0x8\n' | t2w_bad trailing.log :3: "'-' takes 1 operand"
# A blank before the first field is no error, and glibc's NULL is a call.
printf ' mlog1 7 1000 malloc 16 = 0x1000\n\tmlog1 7 1001 free 0x1000\n' >blanks.log
trace2wl -f blanks.wl blanks.log >/dev/null || fail "trace2wl refused a log whose lines start with blanks"
printf '+ (nil) 0x10\n' >nil.log
trace2wl -f nil.wl nil.log >/dev/null || fail "trace2wl refused a MALLOC_TRACE log starting with a failed malloc"

trace2wl mtrace.wl mtrace.log || fail "trace2wl could not convert the MALLOC_TRACE log"
trace_run --json mtrace.wl >run.out || fail "trace_run could not replay the MALLOC_TRACE log"
expect_eq "mallocs replayed" 9 "$(grep -o '"malloc":{"count":[0-9]*' run.out | cut -d: -f3)"
expect_eq "reallocs replayed" 2 "$(grep -o '"realloc":{"count":[0-9]*' run.out | cut -d: -f3)"
pass
