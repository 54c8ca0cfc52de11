# rec_run.sh - how bench/recorder.sh builds what it times and runs each
# contender; results land in files under $work for rec_report.sh.
# Sourced by recorder.sh, which sets: me srcdir builddir calls reps cg_calls
# diskdir, and after build_tree: work shmdir diskwork.
# shellcheck shell=sh

# Contenders in run order.  floor-shm runs before floor-warm, which pre-fills
# as many bytes as the fresh run wrote.  There is no warm twin for our
# recorder: it creates a new file (O_EXCL) and reserves each window with
# fallocate, so /dev/shm is its warm regime; floor-warm shows what is left
# of a recorder's cost once no page has to be allocated.
all_contenders="untraced markers rec-shm rec-precise rec-disk rec-stacks floor-shm floor-warm floor-disk heaptrack mtrace"

describe_contender() {
	case $1 in
	untraced) echo "the program alone" ;;
	markers) echo "LD_PRELOAD=libmtrace.so, recorder off: interposer and SDT markers" ;;
	rec-shm) echo "recording, trace on tmpfs (/dev/shm): pages warm, no writeback" ;;
	rec-precise) echo "recording with MTRACE_PRECISE_TIME=1 (every record stamped: one rdtsc a call), on tmpfs" ;;
	rec-disk) echo "recording, trace kept on disk ($diskdir)" ;;
	rec-stacks) echo "recording with MTRACE_STACKS=64 (call stacks: our walker, libunwind for what it cannot take), kept on disk" ;;
	floor-shm) echo "bare 32-byte records per thread window, fresh tmpfs pages" ;;
	floor-warm) echo "bare 32-byte records, tmpfs pages already in the page cache" ;;
	floor-disk) echo "bare 32-byte records, kept on disk" ;;
	heaptrack) echo "heaptrack -o FILE (kept on disk)" ;;
	mtrace) echo "glibc mtrace(): MALLOC_TRACE=FILE, LD_PRELOAD=libc_malloc_debug.so (on disk)" ;;
	esac
}

# Builds the program, the floor and, if it builds, our library; sets B,
# prog, floorlib, mtlib (empty when missing), dump, mdebug, contenders.
build_tree() {
	use_builddir
	echo "$me: building in $B" >&2
	make -s -C "$B" -j2 bench/alloc_heavy bench/libfloor.la tools/mtrace-dump >&2 ||
		die "cannot build the benchmark program in $B"
	prog=$B/bench/alloc_heavy
	floorlib=$B/bench/.libs/libfloor.so
	dump=$B/tools/mtrace-dump
	mtlib=$B/sdt/.libs/libmtrace.so
	if ! make -s -C "$B" -j2 sdt/libmtrace.la >&2 || [ ! -f "$mtlib" ]; then
		echo "$me: libmtrace.so does not build: markers and recording are not measured" >&2
		mtlib=
	elif ! err=$(env -u MTRACE_CTL_FILE LD_PRELOAD="$mtlib" "$prog" --calls 1 2>&1 >/dev/null) ||
		[ -n "$err" ]; then
		echo "$me: libmtrace.so does not load cleanly: markers and recording are not measured:" >&2
		echo "$err" | head -n 3 >&2
		mtlib=
	fi
	mdebug=$(ldconfig -p | awk '/libc_malloc_debug\.so\.0 / { print $NF; exit }')
	contenders=
	for c in $all_contenders; do
		if available "$c"; then contenders="$contenders $c"; fi
	done
}

# Whether contender $1 is to run: all do but those --only ($only) leaves
# out; untraced always, as every figure is paired with it.
wanted() {
	[ -z "$only" ] && return 0
	case " untraced $only " in *" $1 "*) return 0 ;; esac
	return 1
}

# Whether contender $1 is wanted and can run here.
available() {
	wanted "$1" || return 1
	case $1 in
	markers | rec-*) [ -n "$mtlib" ] ;;
	heaptrack) command -v heaptrack >/dev/null ;;
	mtrace) [ -n "$mdebug" ] ;;
	*) true ;;
	esac
}

describe_run() {
	echo "Recorder overhead: bench/alloc_heavy$prog_args${one_args:+ (1 thread:$one_args)}, $calls calls per thread, median of $reps runs"
	machine_line "$B" "$work"
	echo "disk dir: $diskdir ($(stat -f -c %T "$diskdir")); load average at start:" \
		"$(cut -d' ' -f1 /proc/loadavg) (above 0.2, other processes share the CPUs: expect noise)"
	for c in $all_contenders; do
		if available "$c"; then
			printf '  %-11s %s\n' "$c" "$(describe_contender "$c")"
		else
			printf '  %-11s not measured: %s\n' "$c" "$(missing_piece "$c")"
		fi
	done
	echo
}

missing_piece() {
	wanted "$1" || { echo "left out (--only)"; return; }
	case $1 in
	heaptrack) echo heaptrack missing ;;
	mtrace) echo libc_malloc_debug.so missing ;;
	*) echo "sdt/libmtrace.so missing" ;;
	esac
}

# Runs the program with a clean environment plus the given settings; the
# result line goes to $work/line.  Returns non-zero (after saying why) if the
# program failed or printed no result.
go() {
	if ! env -u LD_PRELOAD -u MTRACE_CTL_FILE -u MTRACE_STACKS -u MALLOC_TRACE -u FLOOR_FILE "$@" \
		>"$work/out" 2>"$work/err"; then
		echo "$me: $c, $t threads: the run failed:" >&2
		tail -n 3 "$work/err" >&2
		return 1
	fi
	grep '^threads=' "$work/out" >"$work/line" && return 0
	echo "$me: $c, $t threads: no result line; stderr ends:" >&2
	tail -n 3 "$work/err" >&2
	return 1
}

field() {
	awk -v k="$1" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' \
		"$work/line"
}

# One timed run of contender $1 with $2 threads (repetition, or round, $3).
# Appends "round ns_per_call faults_per_1k_calls cpu_ns_per_call
# waited_ns_per_call other_cpu_ns_per_call" to $work/r.C.T (alloc_heavy's
# figures: rec_report.sh pairs each round's runs with the untraced run of
# the same round) and keeps the trace's bytes per call in $work/b.C.T.
run_contender() {
	c=$1 t=$2 r=$3
	args="--calls $calls --threads $t$prog_args"
	[ "$t" != 1 ] || args="$args$one_args"
	rm -rf "$shmdir"/* "$diskwork"/*
	sync
	# shellcheck disable=SC2086
	case $c in
	untraced) go "$prog" $args ;;
	markers) go LD_PRELOAD="$mtlib" "$prog" $args ;;
	rec-shm) go LD_PRELOAD="$mtlib" MTRACE_CTL_FILE="$shmdir/rec" "$prog" $args ;;
	rec-precise)
		go LD_PRELOAD="$mtlib" MTRACE_PRECISE_TIME=1 MTRACE_CTL_FILE="$shmdir/rec" "$prog" $args ;;
	rec-disk) go LD_PRELOAD="$mtlib" MTRACE_CTL_FILE="$diskwork/rec" "$prog" $args ;;
	rec-stacks)
		go LD_PRELOAD="$mtlib" MTRACE_STACKS=64 MTRACE_CTL_FILE="$diskwork/rec" "$prog" $args ;;
	floor-shm) go LD_PRELOAD="$floorlib" FLOOR_FILE="$shmdir/floor" "$prog" $args ;;
	floor-disk) go LD_PRELOAD="$floorlib" FLOOR_FILE="$diskwork/floor" "$prog" $args ;;
	floor-warm)
		head -c "$(warm_size "$t")" /dev/zero >"$shmdir/floor"
		go LD_PRELOAD="$floorlib" FLOOR_FILE="$shmdir/floor" "$prog" $args ;;
	heaptrack) go heaptrack -o "$diskwork/heaptrack" "$prog" $args ;;
	mtrace) go LD_PRELOAD="$mdebug" MALLOC_TRACE="$diskwork/mtrace.txt" "$prog" $args ;;
	esac || return 0
	echo "$r $(field ns_per_call) $(field minflt) $(field calls) $(field cpu_ns_per_call)" \
		"$(field waited_ns_per_call) $(field other_cpu_ns_per_call)" |
		awk '{ printf "%s %s %.3f %s %s %s\n", $1, $2, $3 * 1000 / $4, $5, $6, $7 }' >>"$work/r.$c.$t"
	trace_bytes "$(field program_calls)"
	rm -rf "$shmdir"/* "$diskwork"/*
}

# Bytes floor-warm pre-fills: what floor-shm wrote, or a generous guess if
# it has not run.
warm_size() {
	cat "$work/size.floor.$1" 2>/dev/null || echo $((calls * $1 * 32 + 4194304))
}

# Bytes per call of the trace just written (first repetition only: the calls
# are the same every time).
trace_bytes() {
	[ "$r" -eq 1 ] || return 0
	case $c in
	rec-*)
		f=$(ls "${shmdir}"/rec.* "${diskwork}"/rec.* 2>/dev/null | head -n 1)
		[ -n "$f" ] || { echo "$me: $c: no trace file was written" >&2; return 0; }
		size=$(stat -c %s "$f")
		recs=$("$dump" --stats --json "$f" 2>/dev/null | grep -o '"records":[0-9]*' | head -n 1 | cut -d: -f2)
		[ -n "$recs" ] || { echo "$me: $c: mtrace-dump cannot read $f" >&2; return 0; }
		echo "$size $recs" | awk '{ printf "%.2f\n", $1 / $2 }' >"$work/b.$c.$t" ;;
	floor-*)
		[ "$c" = floor-shm ] && stat -c %s "$shmdir/floor" >"$work/size.floor.$t"
		echo 32 >"$work/b.$c.$t" ;;
	heaptrack | mtrace)
		f=$(ls "$diskwork"/heaptrack.* "$diskwork"/mtrace.txt 2>/dev/null | head -n 1)
		[ -n "$f" ] || { echo "$me: $c: no output file was written" >&2; return 0; }
		echo "$(stat -c %s "$f") $1" | awk '{ printf "%.2f\n", $1 / $2 }' >"$work/b.$c.$t" ;;
	esac
}

# callgrind instruction counts of the timed loop only (1 thread), a measure
# that does not move with machine noise.  Writes $work/ir.C (per call).
count_instructions() {
	command -v valgrind >/dev/null || { echo "$me: no valgrind: no instruction counts" >&2; return 0; }
	t=1
	for c in untraced markers rec-shm rec-precise rec-stacks floor-shm; do
		available "$c" || continue
		case $c in
		untraced) set -- ;;
		markers) set -- LD_PRELOAD="$mtlib" ;;
		rec-shm) set -- LD_PRELOAD="$mtlib" MTRACE_CTL_FILE="$shmdir/rec" ;;
		rec-precise) set -- LD_PRELOAD="$mtlib" MTRACE_PRECISE_TIME=1 MTRACE_CTL_FILE="$shmdir/rec" ;;
		rec-stacks) set -- LD_PRELOAD="$mtlib" MTRACE_STACKS=64 MTRACE_CTL_FILE="$shmdir/rec" ;;
		floor-shm) set -- LD_PRELOAD="$floorlib" FLOOR_FILE="$shmdir/floor" ;;
		esac
		go "$@" valgrind --tool=callgrind --branch-sim=yes --toggle-collect=alloc_loop \
			--callgrind-out-file="$work/cg.out" "$prog" --calls "$cg_calls"$prog_args$one_args || continue
		awk -v n="$cg_calls" '/^(summary|totals):/ { printf "%.1f\n", $2 / n; exit }' \
			"$work/cg.out" >"$work/ir.$c"
		mv "$work/cg.out" "$work/cg.$c"
		rm -rf "$shmdir"/*
	done
}
