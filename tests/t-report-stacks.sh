#!/bin/sh
# t-report-stacks.sh - stacks recorded without frame pointers name the
# functions, files and lines that allocated, leaked, made the peak and
# allocated temporaries, with exact bytes and counts; in the program, in a
# shared library it links, through an inlined helper, through libstdc++'s
# operator new, in a stripped binary whose debug information sits in a
# separate file, and from a trace moved to another directory.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/report-lib.sh"

src=$top_srcdir/tests/report_prog.c
build_prog "$t_dir/bin"
record prog.mtr "$t_dir/bin/report_prog"
mtrace-report --json --top=0 prog.mtr >prog.json || fail "mtrace-report --json failed"

# Leaks: each site by function, file and line, bytes and count.
expect_eq "leak_here" "700 7 report_prog.c:$(line_of "$src" leak_here)" "$(site prog.json leaks leak_here)"
expect_eq "lib_leak in the shared library" \
	"3000 3 report_lib.c:$(line_of "$top_srcdir/tests/report_lib.c" lib_leak)" \
	"$(site prog.json leaks lib_leak)"
expect_eq "the inlined helper" "200 5 report_prog.c:$(line_of "$src" inl_alloc)" \
	"$(site prog.json leaks inl_alloc)"
expect_eq "its caller, at the inlined call" "200 5 report_prog.c:$(line_of "$src" via_inline)" \
	"$(site prog.json leaks via_inline)"
expect_eq "no leak at the peak site" "none" "$(site prog.json leaks peak_build)"
# The peak: the 20 blocks of peak_build live at once, first.
expect_eq "peak" "100000 20 report_prog.c:$(line_of "$src" peak_build)" "$(site prog.json peak peak_build)"
first_peak=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["peak"][0]["stack"][0]["function"])' prog.json)
expect_eq "the peak's top site" "peak_build" "$first_peak"
# Temporaries: the 50 blocks of temp_site, and nothing of the leaks.
expect_eq "temporary" "3200 50 report_prog.c:$(line_of "$src" temp_site)" "$(site prog.json temporary temp_site)"
expect_eq "a leak is no temporary" "none" "$(site prog.json temporary leak_here)"
# Allocations count every call.
expect_eq "allocations" "3200 50 report_prog.c:$(line_of "$src" temp_site)" \
	"$(site prog.json allocations temp_site)"

# The text report says the same, as people read it.
mtrace-report --leaks prog.mtr >leaks.txt || fail "mtrace-report --leaks failed"
grep -q "^  [0-9]*\. 3000 bytes in 3 blocks" leaks.txt || fail "text: no 3000-byte leak: $(cat leaks.txt)"
grep -q "lib_leak  report_lib.c:$(line_of "$top_srcdir/tests/report_lib.c" lib_leak)  \[libreport_lib.so\]" leaks.txt ||
	fail "text: lib_leak not named with its module: $(cat leaks.txt)"
if grep -q "^peak\|^temporary\|^allocations" leaks.txt; then
	fail "--leaks printed other sections"
fi

# Folded stacks, outermost first, weighed by bytes or by count.
mtrace-report --folded --leaks prog.mtr >folded.txt || fail "--folded failed"
grep -Eq "(^|;)main;leak_here 700$" folded.txt || fail "folded: no 'main;leak_here 700': $(cat folded.txt)"
mtrace-report --folded --weight=count --leaks prog.mtr >folded-n.txt || fail "--weight=count failed"
grep -Eq "(^|;)main;leak_here 7$" folded-n.txt || fail "folded by count: no 'main;leak_here 7'"

# A trace moved elsewhere still symbolises: modules are found by their paths.
mkdir moved
mv prog.mtr moved/elsewhere.mtr
(cd / && mtrace-report --json "$t_dir/moved/elsewhere.mtr") >moved.json || fail "moved trace failed"
expect_eq "moved trace" "700 7 report_prog.c:$(line_of "$src" leak_here)" "$(site moved.json leaks leak_here)"

# A stripped binary whose debug information is in a separate file.
command -v objcopy >/dev/null || skip "objcopy (binutils) is needed for the separate debuginfo case"
mkdir strip
cp bin/report_prog strip/report_prog
objcopy --only-keep-debug strip/report_prog strip/report_prog.debug
objcopy --strip-all strip/report_prog
objcopy --add-gnu-debuglink=strip/report_prog.debug strip/report_prog
if nm strip/report_prog 2>/dev/null | grep -q leak_here; then
	fail "the stripped binary still has its symbols"
fi
record strip.mtr "$t_dir/strip/report_prog"
mtrace-report --json strip.mtr >strip.json || fail "mtrace-report on the stripped program failed"
expect_eq "stripped, separate debuginfo" "700 7 report_prog.c:$(line_of "$src" leak_here)" \
	"$(site strip.json leaks leak_here)"

# C++ new through libstdc++: the C++ function that asked.
if command -v "$CXX" >/dev/null; then
	"$CXX" $RFLAGS -o cxx "$top_srcdir/tests/report_cxx.cc"
	record cxx.mtr "$t_dir/cxx"
	mtrace-report --json cxx.mtr >cxx.json || fail "mtrace-report on the C++ program failed"
	expect_eq "C++ new" "192 4 report_cxx.cc:$(line_of "$top_srcdir/tests/report_cxx.cc" make_widget)" \
		"$(site cxx.json leaks 'shop::make_widget(int)')"
else
	echo "no C++ compiler ($CXX): the C++ case is not tested" >&2
fi
pass
