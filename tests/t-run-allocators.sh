#!/bin/sh
# t-run-allocators: each Debian allocator that is installed replays the
# workloads with the same calls and the same ideal RSS as glibc, the library
# really is the one malloc resolves to, and --compare lines them up.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

synth every e.wl
synth handoff h.wl 50
find_allocators
have=glibc
for a in ${allocators#glibc}; do
	trace_run --json --allocator=$a e.wl >e-$a.json 2>err || fail "--allocator=$a: $(cat err)"
	have="$have,$a"
	lib=$(jget e-$a.json "['allocator_lib']")
	case "$lib" in *lib$a*) ;; *) fail "--allocator=$a: malloc came from $lib" ;; esac
	for c in malloc calloc realloc posix_memalign valloc pvalloc free; do
		expect_eq "$a: $c" "$(expected e.wl $c)" "$(jget e-$a.json "['calls']['$c']['count']")"
	done
	expect_eq "$a: ideal" "$(expected e.wl ideal_peak)" "$(jget e-$a.json "['ideal_peak_bytes']")"
	trace_run --json --allocator=$a h.wl >h-$a.json || fail "--allocator=$a: handoff failed"
	expect_eq "$a: handoff ideal" "$(expected h.wl ideal_peak)" "$(jget h-$a.json "['ideal_peak_bytes']")"
done
[ "$have" != glibc ] || skip "none of libjemalloc2, libtcmalloc-minimal4, libmimalloc2.0 is installed"

# One table: a column per allocator; the ideal RSS is the program's, so its
# ratio is exactly 1 in every column.
n=$(echo "$have" | tr , '\n' | wc -l)
trace_run --compare=$have h.wl >cmp.txt || fail "--compare=$have failed"
for a in $(echo "$have" | tr , ' '); do
	grep -m1 "^ " cmp.txt | grep -qw "$a" || fail "--compare: no column for $a"
done
ideal=$(grep '^Kb Max Ideal RSS' cmp.txt) || fail "--compare: no ideal RSS row"
expect_eq "ideal ratios" $((n - 1)) "$(echo "$ideal" | grep -o '1\.00x' | wc -l)"
grep -Eq '^avg malloc ' cmp.txt || fail "--compare: no avg malloc row"
trace_run --compare=$have --json h.wl >cmp.json || fail "--compare --json failed"
expect_eq "--compare --json entries (3 runs each)" "$((3 * n))" \
	"$(python3 -c "import json; print(len(json.load(open('cmp.json'))))")"

# An allocator inherited in LD_PRELOAD (here tests/run_stall.so, which
# defines malloc) is dropped for --allocator, whichever; -o without
# --allocator refuses to tune a malloc that is not glibc's.
stall="$top_builddir/tests/.libs/run_stall.so"
LD_PRELOAD="$stall" trace_run --json --allocator=glibc -o top_pad=0 e.wl >g.json 2>err ||
	fail "inherited LD_PRELOAD, --allocator=glibc: $(cat err)"
case "$(jget g.json "['allocator_lib']")" in */libc.so*) ;; *) fail "--allocator=glibc ran $(jget g.json "['allocator_lib']")" ;; esac
expect_eq "inherited LD_PRELOAD: ideal" "$(expected e.wl ideal_peak)" "$(jget g.json "['ideal_peak_bytes']")"
last=${have##*,}
if [ "$last" != glibc ]; then
	LD_PRELOAD="$stall" trace_run --json --allocator=$last e.wl >l.json 2>err ||
		fail "inherited LD_PRELOAD, --allocator=$last: $(cat err)"
	case "$(jget l.json "['allocator_lib']")" in *lib$last*) ;; *) fail "--allocator=$last ran $(jget l.json "['allocator_lib']")" ;; esac
fi
expect_fail_with "^trace_run: -o sets glibc's malloc, and malloc here is .*run_stall.so's" \
	env LD_PRELOAD="$stall" trace_run -o top_pad=0 e.wl
expect_eq "exit status of -o under another malloc" 2 "$rc"

expect_fail_with "^trace_run: /nonexistent/libx.so: not found" trace_run --allocator=/nonexistent/libx.so e.wl
expect_eq "exit status of a missing library" 1 "$rc"
expect_fail_with "^trace_run: -o sets glibc's malloc" trace_run --allocator=${have##*,} -o top_pad=0 e.wl
expect_eq "exit status of -o with --allocator" 2 "$rc"
pass
