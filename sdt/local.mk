# sdt/local.mk - build rules for sdt/, included by the top Makefile.am.
