# converter/local.mk - build rules for converter/, included by the top Makefile.am.
