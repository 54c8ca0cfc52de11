# stap/local.mk - build rules for stap/, included by the top Makefile.am.
