/*
 * rec_sigbus.c - a window whose file was cut under it.
 *
 * Windows are shared mappings of the trace file.  Their space is reserved
 * before they are mapped (rec_file.c), so the recorder's own work cannot
 * meet a full disk there; but if something else truncates the trace file
 * while the program runs, the next store into a window past the new end
 * raises SIGBUS, and SIGBUS kills.  So while the program leaves SIGBUS at
 * its default, the recorder handles it: a fault inside one of its windows
 * (a thread's, or the stack table's) puts zero pages in place of the window
 * (the interrupted store then completes, into memory no file sees) and
 * stops recording, once, with one line; any other SIGBUS gets the default
 * action it would have had without the recorder.  A program that installs its own handler replaces this
 * one, and such a fault is then its to handle.
 *
 * Everything here runs in a signal handler or is set up with the recorder
 * lock held: no allocation, only async-signal-safe calls.
 */
#include "config.h"

#include <signal.h>
#include <sys/mman.h>

#include "rec_table.h"
#include "rec_thread.h"
#include "recorder.h"

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	(void)context;
	uint8_t *base;
	uint32_t size;
	/* si_code > 0: raised by the kernel for a fault at si_addr. */
	if (si->si_code > 0 &&
	    (mt_window_holding(si->si_addr, &base, &size) ||
	     mt_table_window_holding(si->si_addr, &base, &size)) &&
	    mmap(base, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0) != MAP_FAILED) {
		mt_recorder_file_cut();
		return;
	}
	/* Not ours: as if we were never here.  A fault recurs when the
	 * handler returns; a signal someone sent is sent again. */
	signal(sig, SIG_DFL);
	if (si->si_code <= 0)
		raise(sig);
}

void mt_sigbus_guard(void)
{
	struct sigaction now, sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO) &&
	    now.sa_handler == SIG_DFL)
		sigaction(SIGBUS, &sa, NULL);
}
