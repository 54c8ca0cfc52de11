# tests/recorder.mk - tests of the recorder part, included by tests/local.mk.
