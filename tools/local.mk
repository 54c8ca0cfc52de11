# tools/local.mk - build rules for tools/, included by the top Makefile.am.
