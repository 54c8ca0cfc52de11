# sdt/local.mk - the interposer, its SDT markers and the recorder.
#
# The code is built once, as a PIC convenience library, and linked whole
# into both libraries: libmtracectl.so must itself define malloc (a library
# it merely depended on would come after libc in the lookup scope).
noinst_LTLIBRARIES += sdt/libmtinterpose.la sdt/libmtwrappers.la
sdt_libmtinterpose_la_SOURCES = \
	sdt/glibc_events.h \
	sdt/next_alloc.c sdt/next_compat.c sdt/next_alloc.h \
	sdt/recorder.c sdt/recorder.h sdt/rec_hot.c \
	sdt/rec_thread.c sdt/rec_thread.h sdt/rec_helper.c sdt/rec_helper.h \
	sdt/rec_file.c sdt/rec_file.h sdt/rec_fd.h sdt/rec_sigbus.c \
	sdt/rec_pages.c sdt/rec_pages.h sdt/rec_maps.c sdt/rec_maps.h \
	sdt/rec_regions.c sdt/rec_regions.h \
	sdt/rec_config.c sdt/rec_config.h sdt/rec_list.c sdt/rec_list.h \
	sdt/rec_text.c sdt/rec_text.h sdt/rec_clock.h \
	sdt/api.c sdt/image_end.c sdt/visibility.h
# Call stacks (MTRACE_STACKS, issue #13): the unwinders (ours, from the CFI,
# and libunwind), the in-process stack table, the table windows of the trace
# and the module map.
sdt_libmtinterpose_la_SOURCES += \
	sdt/rec_stack.c sdt/rec_stack.h sdt/rec_unwind.c sdt/rec_unwind.h \
	sdt/rec_stack_walk.c sdt/rec_stack_walk.h sdt/rec_stack_cfi.c sdt/rec_stack_cfi.h \
	sdt/rec_stack_memo.c sdt/rec_stack_memo.h \
	sdt/rec_table.c sdt/rec_table.h sdt/rec_modules.c sdt/rec_modules.h
# Derived glibc events and the mallopt interposer (issue #5, glibc_*.c).
sdt_libmtinterpose_la_SOURCES += \
	sdt/glibc_events.c sdt/glibc_arenas.c sdt/glibc_thresholds.c \
	sdt/glibc_tunables.c sdt/glibc_internal.h sdt/glibc_layout.h
# Only the malloc family and mtrace_* are exported; the rest stays internal
# (direct calls, no PLT, on the per-call path).
sdt_libmtinterpose_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -O2
sdt_libmtinterpose_la_LIBADD = lib/libmtcore.la sdt/libmtwrappers.la

# The wrappers themselves, where every call marker fires, keep frame
# pointers: a stack walked from a marker (malloc-stacks, malloc-leaks) then
# names the wrapper's caller, which it skips without them.  Cost: a push,
# a mov and a leave per call.  The code they call needs none.
sdt_libmtwrappers_la_SOURCES = sdt/interpose.c
sdt_libmtwrappers_la_CFLAGS = $(sdt_libmtinterpose_la_CFLAGS) -fno-omit-frame-pointer

# nodelete: a dlclose must not unmap code that thread-exit and fork handlers
# still point to.  Only the interposed functions and the API are exported.
MT_LIB_LDFLAGS = -Wl,-z,nodelete -no-undefined \
	-export-symbols-regex '^(mtrace_[a-z]+|malloc|malloc_usable_size|mallopt|free|free_sized|free_aligned_sized|calloc|realloc|reallocarray|memalign|posix_memalign|aligned_alloc|valloc|pvalloc|exec[lv]p?e?|fexecve|_exit|_Exit)$$' 

lib_LTLIBRARIES += sdt/libmtrace.la sdt/libmtracectl.la
include_HEADERS += sdt/mtrace.h

sdt_libmtrace_la_SOURCES = sdt/autostart.c
sdt_libmtrace_la_LIBADD = sdt/libmtinterpose.la $(LIBS)
sdt_libmtrace_la_LDFLAGS = $(AM_LDFLAGS) $(MT_LIB_LDFLAGS) -version-info 0:0:0

sdt_libmtracectl_la_SOURCES = sdt/autostart.c
sdt_libmtracectl_la_CPPFLAGS = $(AM_CPPFLAGS) -DMT_ALWAYS_START
sdt_libmtracectl_la_LIBADD = sdt/libmtinterpose.la $(LIBS)
sdt_libmtracectl_la_LDFLAGS = $(AM_LDFLAGS) $(MT_LIB_LDFLAGS) -module -avoid-version

dist_man3_MANS += docs/libmtrace.3

# A bare LD_PRELOAD=libmtracectl.so is found only through the loader's
# cache, so refresh it after a real (not staged, DESTDIR-less) root install.
install-exec-hook:
	@if test -z "$(DESTDIR)" && test "$$(id -u)" = 0 && command -v ldconfig >/dev/null; then \
		echo "ldconfig: refreshing the loader cache for $(libdir)"; ldconfig; fi
