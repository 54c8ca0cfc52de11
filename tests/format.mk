# tests/format.mk - tests of the format part, included by tests/local.mk.
