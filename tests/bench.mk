# tests/bench.mk - tests of the bench helpers whose figures head every
# bench report, included by tests/local.mk.  Not timed: they check what
# the helpers say, not how fast anything runs.
TESTS += tests/t-bench-probe.sh
EXTRA_DIST += tests/t-bench-probe.sh
