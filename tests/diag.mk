# tests/diag.mk - tests of the diag part, included by tests/local.mk.
