# docs/local.mk - build rules for docs/, included by the top Makefile.am.
