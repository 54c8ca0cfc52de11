# tests/converter.mk - tests of the converter part, included by tests/local.mk.
