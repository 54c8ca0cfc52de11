# fuzz/local.mk - the libFuzzer targets and their seeds ship in the tarball;
# scripts/fuzz.sh builds and runs them with clang (ASan+UBSan), apart from
# this build, which must not need clang.
EXTRA_DIST += fuzz/fuzz_file.h fuzz/fuzz_file.c fuzz/fuzz_trace.c fuzz/fuzz_wl.c fuzz/fuzz_log.c \
	fuzz/seeds/trace/no-window.mtrace fuzz/seeds/trace/echo.mtrace \
	fuzz/seeds/trace/three-threads.mtrace fuzz/seeds/trace/regress-ts-freq-overflow.mtrace fuzz/seeds/wl/three-threads.wl fuzz/seeds/wl/echo.wl \
	fuzz/seeds/log/glibc-mtrace.log fuzz/seeds/log/malloc-log.log scripts/fuzz.sh
