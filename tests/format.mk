# tests/format.mk - tests of the format part, included by tests/local.mk.
#
# fmt_codec and fmt_roundtrip are C tests of the library itself; fmt_synth
# builds the synthetic traces the shell tests damage and dump.
FMT_TEST_PROGS = tests/fmt_codec tests/fmt_roundtrip
check_PROGRAMS += $(FMT_TEST_PROGS) tests/fmt_synth
TESTS += $(FMT_TEST_PROGS)

tests_fmt_codec_SOURCES = tests/fmt_codec.c tests/fmt_gen.h tests/check.h
tests_fmt_codec_LDADD = lib/libmtformat.la
tests_fmt_roundtrip_SOURCES = tests/fmt_roundtrip.c tests/fmt_gen.h tests/check.h
tests_fmt_roundtrip_LDADD = lib/libmtformat.la
tests_fmt_synth_SOURCES = tests/fmt_synth.c tests/fmt_gen.h
tests_fmt_synth_LDADD = lib/libmtformat.la

TESTS += tests/t-fmt-dump.sh tests/t-fmt-damage.sh
EXTRA_DIST += tests/t-fmt-dump.sh tests/t-fmt-damage.sh tests/data/v2-sort.mtrace tests/data/v2-sort.dump \
	tests/data/v3-sort.mtrace tests/data/v3-sort.dump

# Every tool fails, in one line, when its output cannot be written.
TESTS += tests/t-out-full.sh
EXTRA_DIST += tests/t-out-full.sh

# The trace's readers keep resident the threads open at once, not every
# thread's first window: fmt_threads writes thousands of short threads.
check_PROGRAMS += tests/fmt_threads
tests_fmt_threads_SOURCES = tests/fmt_threads.c tests/gen_writer.h
tests_fmt_threads_LDADD = lib/libmtformat.la
TESTS += tests/t-fmt-threads.sh
EXTRA_DIST += tests/t-fmt-threads.sh
