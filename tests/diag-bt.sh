# tests/diag-bt.sh - running the bpftrace scripts of stap/ from a test;
# source it after tests/lib.sh.
#
# bpftrace takes a second or two to compile and attach, and prints nothing
# a test can wait on until it has: every script of stap/ prints a "# ..."
# line from BEGIN, which bpftrace runs once all probes are attached.  The
# program under test is started only after that line, so no call is missed.

# bt_require: skip unless bpftrace can load programs on this machine.
bt_require() {
	[ -n "${BPFTRACE:-}" ] || skip "bpftrace not found by configure"
	"$BPFTRACE" -e 'BEGIN { exit(); }' >bt-probe.out 2>&1 ||
		skip "bpftrace cannot load programs here: $(grep -v RLIMIT bt-probe.out | head -n 1)"
}

# bt_start OUT SCRIPT ARG...: runs bpftrace with its output in OUT and
# waits for the script's BEGIN line.  Standard output line-buffered, not -o
# (bpftrace 0.17 holds -o output back until it exits), with larger per-CPU
# buffers than the default so a burst of calls is not lost.
bt_start() {
	bt_out=$1
	shift
	BPFTRACE_PERF_RB_PAGES=1024 "$BPFTRACE" -B line "$@" >"$bt_out" 2>bt.stderr &
	bt_pid=$!
	t_reap "$bt_pid"
	n=0
	until grep -q '^# ' "$bt_out" 2>/dev/null; do
		kill -0 "$bt_pid" 2>/dev/null ||
			fail "bpftrace $* exited before attaching: $(grep -v RLIMIT bt.stderr | head -n 3)"
		n=$((n + 1))
		[ "$n" -lt 600 ] || fail "bpftrace $* did not attach within 60 s"
		sleep 0.1
	done
}

# bt_running: bpftrace has not exited (a zombie, not yet waited for, has;
# so has one that is gone between the two looks at /proc).
bt_running() {
	t_alive "$bt_pid"
}

# bt_cpu: bpftrace's CPU time so far, in clock ticks (user + system).
bt_cpu() {
	awk '{ print $14 + $15 }' "/proc/$bt_pid/stat" 2>/dev/null || echo 0
}

# bt_stop: stops bpftrace as Ctrl-C would (END probes run, maps print).
# bpftrace 0.17 now and then lets the first SIGINT pass without stopping
# (seen on a loaded machine).  It is asked again only when it sits idle -
# no output and no CPU time for 5 s - since a second SIGINT while it reads
# and prints its maps cuts the printing short.  Printing ten thousand
# stacks takes it most of a minute on a machine whose other processor is
# busy, so it is given up on only after 60 s without progress, or after
# 300 s in all, rather than hanging the test suite.
bt_stop() {
	kill -INT "$bt_pid" 2>/dev/null || true
	n=0 idle=0
	seen="$(wc -c <"$bt_out") $(bt_cpu)"
	while bt_running; do
		n=$((n + 1))
		if [ "$idle" -ge 600 ] || [ "$n" -ge 3000 ]; then
			kill -KILL "$bt_pid" 2>/dev/null || true
			fail "bpftrace did not stop within $((n / 10)) s of SIGINT ($((idle / 10)) s of them idle)"
		fi
		if [ $((n % 50)) -eq 0 ]; then
			now="$(wc -c <"$bt_out") $(bt_cpu)"
			if [ "$now" = "$seen" ]; then
				kill -INT "$bt_pid" 2>/dev/null || true
				idle=$((idle + 50))
			else
				idle=0
			fi
			seen=$now
		fi
		sleep 0.1
	done
	wait "$bt_pid" || true
}

# bt_wait_lines FILE PATTERN N: waits until FILE has N lines matching PATTERN.
bt_wait_lines() {
	n=0
	until [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; do
		n=$((n + 1))
		[ "$n" -lt 600 ] || fail "$1 has fewer than $3 lines matching '$2' after 60 s"
		sleep 0.1
	done
}

# gated PROG ARG...: starts PROG in the background, held before exec until
# bt_go, so bpftrace can be told its pid first (in $gated_pid).
gated() {
	rm -f gate
	mkfifo gate
	"$@" <gate &
	gated_pid=$!
	t_reap "$gated_pid"
}

# bt_go: lets the gated program run (opens the fifo; writes nothing, since
# the program may be gone before a write and that would be SIGPIPE).
bt_go() {
	: >gate
}

# bt_watch OUT WHAT ARG...: bpftrace ARG... and the gated program's pid
# (bt_start, output in OUT) over the whole run of that program, which must
# succeed ("WHAT failed" otherwise, with bpftrace stopped by the exit
# trap, t_reap).  bpftrace is left running: its last lines may still be on
# their way, so the caller waits for them if it needs them (bt_wait_lines)
# and then calls bt_stop.
bt_watch() {
	bt_out=$1 bt_what=$2
	shift 2
	bt_start "$bt_out" "$@" "$gated_pid"
	bt_go
	wait "$gated_pid" || fail "$bt_what failed"
}

# held: DIAG_HOLD for diag_calls; held_wait waits until the program is done
# and holding, held_release lets it exit.
held_setup() {
	rm -f hold hold.ready
	mkfifo hold
	DIAG_HOLD="$t_dir/hold"
	export DIAG_HOLD
}

held_wait() {
	n=0
	until [ -e hold.ready ]; do
		kill -0 "$1" 2>/dev/null || fail "the program exited before holding"
		n=$((n + 1))
		[ "$n" -lt 600 ] || fail "the program did not finish within 60 s"
		sleep 0.1
	done
}

held_release() {
	: >hold
}

# bt_perf_map PID: gives PID an empty /tmp/perf-PID.map, if it has none,
# for as long as the test runs.  bpftrace 0.17 names user frames with
# libbcc, and Debian 12's libbcc 0.26 closes a file descriptor it never
# set each time it reads a process's modules and finds no readable perf
# map in that process's /tmp (ModulePath::fd_, fixed in bcc 0.33 by its
# pull request 5193).  The number is whatever the heap held there; when it
# is one of bpftrace's own maps, every stack printed after it comes out
# empty ("@map[]:", "failed to look up stack id N (pid P): -9", EBADF) or
# a whole map prints nothing.  The heap's contents follow the paths
# bpftrace reads, so it struck under make distcheck's long _build/sub
# paths, in most runs, and not in the main tree.  With a readable perf
# map bcc stops at its first look, before the faulty one.  The file
# names no symbol: frames are still named from the program's ELF files.
bt_perf_map() {
	bt_map=/tmp/perf-$1.map
	[ -e "$bt_map" ] && return 0
	: >"$bt_map" || fail "cannot create $bt_map, which bpftrace's libbcc needs to name frames safely"
	t_remove_at_exit "$bt_map"
}

# bt_capture OUT SCRIPT MODE [ARG...]: runs 'diag_calls MODE ARG...' under
# SCRIPT (a .bt of stap/ given LIB and the pid), stopping bpftrace while
# the program still lives so frames get names, and fails if bpftrace
# printed an empty stack or, for malloc-leaks.bt, if @leaked_blocks and
# @leaked_bytes printed different stacks (every action of the script
# updates both for the same stack).  The kernel files each stack of
# bpftrace's ustack in a table by hash and refuses one whose slot another
# stack holds (bpf_get_stackid: -EEXIST, printed as "failed to look up
# stack id -17"; mtrace-scripts(7)); whether two of a run's stacks share
# a slot depends on where ASLR put the code, so such a run is made again,
# up to five times.
bt_capture() {
	bt_out=$1 bt_script=$2
	shift 2
	for try in 1 2 3 4 5; do
		held_setup
		gated env LD_PRELOAD="$MTRACE_LIB" "$top_builddir/tests/diag_calls" "$@"
		bt_perf_map "$gated_pid"
		bt_start "$bt_out" "$top_builddir/stap/$bt_script" "$MTRACE_LIB" "$gated_pid"
		bt_go
		held_wait "$gated_pid"
		bt_stop
		held_release
		wait "$gated_pid" || fail "diag_calls $* failed"
		grep -q '^ERROR: failed to look up stack id -17 ' bt.stderr || break
		echo "two stacks shared a slot of the kernel's stack table (try $try)" >&2
	done
	! grep -q '^@[a-z_]*\[\]: ' "$bt_out" ||
		fail "bpftrace printed $(grep -c '^@[a-z_]*\[\]: ' "$bt_out") empty stacks in $bt_out (try $try): $(grep -v RLIMIT bt.stderr | head -n 3)"
	blocks=$(grep -c '^@leaked_blocks\[' "$bt_out" || true)
	bytes=$(grep -c '^@leaked_bytes\[' "$bt_out" || true)
	[ "$blocks" = "$bytes" ] ||
		fail "bpftrace printed $blocks stacks of @leaked_blocks, $bytes of @leaked_bytes in $bt_out: $(grep -v RLIMIT bt.stderr | head -n 3)"
}

# bt_stack_counts FILE MAP FUNC: the count of each entry of MAP, as
# bpftrace printed it in FILE, whose stack has a frame of FUNC; one a line,
# smallest first.
bt_stack_counts() {
	awk -v map="@$2[" -v fn="$3" '
		index($0, map) == 1 { inmap = 1; hit = 0; next }
		inmap && $1 ~ "^" fn "\\+" { hit = 1 }
		inmap && /^\]: / { if (hit) print $2; inmap = 0 }' "$1" | sort -n
}
