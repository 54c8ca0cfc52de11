# stap/local.mk - build rules for stap/, included by the top Makefile.am.

# Diagnostic scripts (stap and their bpftrace twins) are made from X.in so
# that the usage they print names the paths of this installation: the
# installed libmtrace.so and this machine's libc.  Installed as data in
# $(stapdir); run them with `stap` or `bpftrace`.
stapdir = $(pkgdatadir)/stap
DIAG_STAP_FILES = \
	stap/malloc-log.stp stap/malloc-log.bt stap/malloc-log-uprobes.bt \
	stap/malloc-stacks.stp stap/malloc-stacks.bt stap/malloc-leaks.stp stap/malloc-leaks.bt \
	stap/malloc-sizes.stp stap/malloc-sizes.bt
# The live report of glibc's arenas, heaps, sbrk and thresholds, and its twin.
DIAG_STAP_FILES += stap/malloc.stp stap/malloc.bt
stap_DATA = $(DIAG_STAP_FILES)
EXTRA_DIST += $(DIAG_STAP_FILES:=.in) stap/ustack-bt.stp.inc
CLEANFILES += $(DIAG_STAP_FILES)

# Lines of a bpftrace script that start with @FREE_SIZED@ or
# @FREE_ALIGNED_SIZED@ probe markers that libmtrace.so has only where the C
# library has those functions: kept then, dropped otherwise, since bpftrace
# refuses a probe that does not exist.
# The line @USTACK_BT@ of a stap script becomes stap/ustack-bt.stp.inc.
$(DIAG_STAP_FILES): $(DIAG_STAP_FILES:=.in) stap/ustack-bt.stp.inc Makefile config.h
	$(AM_V_GEN)$(MKDIR_P) stap && \
	libc=`readlink -f "\`$(CC) -print-file-name=libc.so.6\`"` && \
	keep() { if grep -q "^#define HAVE_$$1 1" config.h; then echo "s|^@$$1@||"; \
		 else echo "/^@$$1@/d"; fi; } && \
	sed -e 's|@MTRACE_LIB[@]|$(libdir)/libmtrace.so|g' -e "s|@LIBC_PATH[@]|$$libc|g" \
	    -e "`keep FREE_SIZED`" -e "`keep FREE_ALIGNED_SIZED`" \
	    -e '/^@USTACK_BT@$$/{' -e 'r $(srcdir)/stap/ustack-bt.stp.inc' -e 'd' -e '}' \
		$(srcdir)/$@.in >$@.tmp && mv $@.tmp $@

# mtrace-bt: runs a .bt script after checking that the library has what
# the script attaches to; knows where the scripts are installed.
bin_SCRIPTS += stap/mtrace-bt
CLEANFILES += stap/mtrace-bt
EXTRA_DIST += stap/mtrace-bt.in
stap/mtrace-bt: $(srcdir)/stap/mtrace-bt.in Makefile
	$(AM_V_GEN)$(MKDIR_P) stap && \
	sed -e 's|@stapdir[@]|$(stapdir)|g' -e 's|@BPFTRACE[@]|$(BPFTRACE)|g' \
		$(srcdir)/stap/mtrace-bt.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

# What every script of stap/ does and how to run it.
dist_man7_MANS = docs/mtrace-scripts.7
