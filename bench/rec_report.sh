# rec_report.sh - the table bench/recorder.sh prints and the issue's targets
# checked against it, from the result files rec_run.sh leaves in $work.
# shellcheck shell=sh

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Medians of contender $1 at $2 threads, or nothing: wall ns per call,
# page faults per 1000 calls, thread CPU ns per call.
ns_of() { [ -s "$work/r.$1.$2" ] && cut -d' ' -f1 "$work/r.$1.$2" | median; }
faults_of() { [ -s "$work/r.$1.$2" ] && cut -d' ' -f2 "$work/r.$1.$2" | median; }
cpu_of() { [ -s "$work/r.$1.$2" ] && cut -d' ' -f3 "$work/r.$1.$2" | median; }

# Median added wall ns per call of $1 at $2 threads (cpu_added_of: added
# CPU ns), or nothing.
added_of() { difference ns_of "$@"; }
cpu_added_of() { difference cpu_of "$@"; }
difference() {
	a=$($1 "$2" "$3") && u=$($1 untraced "$3") || return 0
	awk -v a="$a" -v u="$u" 'BEGIN { printf "%.2f\n", a - u }'
}

report() {
	printf '%-7s %-11s %8s %6s %8s %9s %10s %9s %10s\n' threads contender ns/call ratio \
		"added ns" "cpu added" bytes/call faults/1k instr/call
	for t in 1 2; do
		for c in $contenders; do
			n=$(ns_of "$c" "$t") || continue
			u=$(ns_of untraced "$t") || continue
			ir=-
			[ "$t" -eq 1 ] && [ -s "$work/ir.$c" ] && ir=$(cat "$work/ir.$c")
			b=$(cat "$work/b.$c.$t" 2>/dev/null || echo -)
			awk -v t="$t" -v c="$c" -v n="$n" -v u="$u" -v ca="$(cpu_added_of "$c" "$t")" \
				-v b="$b" -v f="$(faults_of "$c" "$t")" -v ir="$ir" 'BEGIN {
				printf "%-7s %-11s %8.2f %6.2f %8.2f %9.2f %10s %9.2f %10s\n",
					t, c, n, n / u, n - u, ca, b, f, ir }'
		done
	done
	cat <<EOF

ns/call: each thread's timed loop (wall clock) over its calls, median of
$reps runs; ratio and added ns against untraced.  cpu added: the same with the
thread's CPU time, which leaves out time other processes took the CPU (and
time spent asleep, e.g. waiting for writeback or for heaptrack's pipe).
faults/1k: minor page faults in the loop per 1000 calls (getrusage): fresh
trace pages.  instr/call: callgrind, the loop only, 1 thread, $cg_calls calls.
bytes/call: our trace size / records; floor 32; heaptrack and mtrace() file
size / program calls.

EOF
}

# verdict NAME OK DETAILS: one line of the target list.
verdict() {
	if [ -z "$2" ]; then
		printf '  ----  %s: not measured\n' "$1"
	elif [ "$2" = 1 ]; then
		printf '  PASS  %s: %s\n' "$1" "$3"
	else
		printf '  MISS  %s: %s\n' "$1" "$3"
	fi
}

# Evaluates an awk condition over named values; prints 1 or 0, or nothing
# when a value is missing.  Usage: holds 'a < 1' a=VALUE...
holds() {
	cond=$1
	shift
	for kv in "$@"; do [ -n "${kv#*=}" ] || return 0; done
	# shellcheck disable=SC2046
	awk $(printf -- '-v %s ' "$@") "BEGIN { print ($cond) ? 1 : 0 }"
}

# The targets on the recorder's own work (markers, pages warm, two threads)
# are judged on thread CPU time: that is the code's cost, and other
# processes on a shared machine cannot inflate it.  Those on a trace kept on
# disk are judged on wall time, because sleeping in writeback or on a full
# pipe is part of what a tracer costs there.
check_targets() {
	echo "Targets (issue #2), from the figures above:"
	m1=$(cpu_added_of markers 1) m2=$(cpu_added_of markers 2)
	verdict "markers alone add < 1 ns per call (cpu)" "$(holds 'a < 1 && b < 1' a="$m1" b="$m2")" \
		"$m1 ns (1 thread), $m2 ns (2 threads); wall $(added_of markers 1), $(added_of markers 2); callgrind $(ir_added markers) instr/call"
	w1=$(cpu_added_of rec-shm 1) w2=$(cpu_added_of rec-shm 2)
	verdict "recording adds <= 15 ns per call (#15), thread CPU time (tmpfs)" \
		"$(holds 'a <= 15 && b <= 15' a="$w1" b="$w2")" \
		"$w1 ns (1 thread), $w2 ns (2 threads); wall $(added_of rec-shm 1), $(added_of rec-shm 2)"
	k1=$(added_of rec-disk 1) k2=$(added_of rec-disk 2)
	verdict "recording adds <= 15 ns per call (#15), wall time, trace kept on disk" \
		"$(holds 'a <= 15 && b <= 15' a="$k1" b="$k2")" \
		"$k1 ns (1 thread), $k2 ns (2 threads); cpu $(cpu_added_of rec-disk 1), $(cpu_added_of rec-disk 2)"
	p1=$(cpu_added_of rec-precise 1) p2=$(cpu_added_of rec-precise 2)
	printf '  ----  for comparison, MTRACE_PRECISE_TIME=1 (tmpfs, cpu): %s ns (1 thread), %s ns (2 threads); callgrind %s instr/call\n' \
		"$p1" "$p2" "$(ir_added rec-precise)"
	for t in 1 2; do
		d=$(added_of rec-disk "$t") h=$(added_of heaptrack "$t") g=$(added_of mtrace "$t")
		verdict "trace kept on disk, $t thread(s): >= 5x cheaper than heaptrack (wall)" \
			"$(holds 'd * 5 <= h' d="$d" h="$h")" "$d vs $h ns added ($(ratio_of "$h" "$d")x)"
		verdict "trace kept on disk, $t thread(s): >= 10x cheaper than mtrace() (wall)" \
			"$(holds 'd * 10 <= g' d="$d" g="$g")" "$d vs $g ns added ($(ratio_of "$g" "$d")x)"
	done
	# Two threads on two cores share nothing per call if the recorder is
	# right; the allowance of 10% + 1 ns covers run-to-run noise.
	verdict "two threads cost no more per call than one (tmpfs, cpu, 10% + 1 ns noise)" \
		"$(holds 'b <= a * 1.1 + 1' a="$w1" b="$w2")" "$w1 ns (1 thread), $w2 ns (2 threads)"
	for t in 1 2; do
		k=$(added_of rec-stacks "$t") h=$(added_of heaptrack "$t")
		verdict "with stacks (#13), $t thread(s): at most a third of heaptrack's cost (wall)" \
			"$(holds 'k * 3 <= h' k="$k" h="$h")" "$k vs $h ns added ($(ratio_of "$h" "$k")x)"
	done
	s1=$(cat "$work/b.rec-stacks.1" 2>/dev/null || true) s2=$(cat "$work/b.rec-stacks.2" 2>/dev/null || true)
	verdict "with stacks (#13): <= 12 bytes per call" "$(holds 'a <= 12 && b <= 12' a="$s1" b="$s2")" \
		"$s1 (1 thread), $s2 (2 threads) bytes per record; callgrind $(ir_added rec-stacks) instr/call"
	b1=$(cat "$work/b.rec-shm.1" 2>/dev/null || true) b2=$(cat "$work/b.rec-shm.2" 2>/dev/null || true)
	verdict "<= 8 bytes per call (#15)" "$(holds 'a <= 8 && b <= 8' a="$b1" b="$b2")" \
		"$b1 (1 thread), $b2 (2 threads) bytes per record; fast path $(ir_added rec-shm) instr/call over untraced (callgrind)"
}

# Instructions per call callgrind counted for $1 beyond the untraced loop.
ir_added() {
	if [ -s "$work/ir.$1" ] && [ -s "$work/ir.untraced" ]; then
		awk -v a="$(cat "$work/ir.$1")" -v u="$(cat "$work/ir.untraced")" \
			'BEGIN { printf "%.1f\n", a - u }'
	else
		echo "-"
	fi
}

# How many times cheaper $2 added ns are than $1.
ratio_of() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "-";
		else if (b <= 0) print "inf"; else printf "%.1f\n", a / b }'
}

# The kit's own code in the callgrind profiles of markers and rec-shm, by
# instructions per call, with the mispredicted branches callgrind's branch
# simulation counts there: where a missed target's time goes.  The total
# of rec-shm is the recorder's fast path per call.
where_instructions() {
	command -v callgrind_annotate >/dev/null || return 0
	for c in markers rec-shm rec-precise; do
		[ -s "$work/cg.$c" ] || continue
		echo "Per call in the kit's code, $c (callgrind, self cost, 1 thread):"
		echo "    instr  mispred  file:function"
		callgrind_annotate --show=Ir,Bcm "$work/cg.$c" 2>/dev/null | awk -v n="$cg_calls" '
			/%\) / {
				gsub(/\( *[0-9.]+%\)/, "")
				ir = $1; bcm = $2; fn = $3
				gsub(",", "", ir); gsub(",", "", bcm)
				if (bcm == ".") bcm = 0
				if (fn !~ /(^|\/)(sdt|lib)\/[^\/]+:/) next
				sub(/.*\//, "", fn)
				if (++shown <= 12) printf "  %7.1f  %7.3f  %s\n", ir / n, bcm / n, fn
				total += ir; mis += bcm }
			END { printf "  %7.1f  %7.3f  in all (%d file:function entries): the fast path\n",
				total / n, mis / n, shown }'
	done
	echo
}
