# tests/replay.mk - tests of the replay part, included by tests/local.mk.
