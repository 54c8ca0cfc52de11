#!/bin/sh
# t-run-timer: every rung of trace_run's timer ladder, forced one at a time,
# replays with exact counts and says which it is; the auto ladder falls
# back rung by rung when TRACE_RUN_TEST_CPU (test-only) hides what the
# processor has; a rung the processor lacks is refused in one line; the
# counter's frequency comes from the kernel's file where there is one.
# Nothing here expects this processor to have or lack anything.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"
unset TRACE_RUN_TEST_CPU # this test sets it itself, run by run

synth basic b.wl
count() { sed -n "s/^Avg $1 time: *[0-9,]* in *\([0-9,]*\) calls$/\1/p" "$2"; }

# Each timer this processor has, forced: its unit throughout, its name and
# "--timer=NAME" on the Timer line and in JSON, the exact call counts.
timers_here
for s in $timers; do
	unit=$(timer_unit "$s")
	trace_run --timer=$s b.wl >$s.txt || fail "--timer=$s failed"
	grep -Eq "^[0-9,]+ $unit\$" $s.txt || fail "--timer=$s: first line $(head -1 $s.txt)"
	grep -Eq "^Total call time: [0-9,]+ $unit\$" $s.txt || fail "--timer=$s: total line"
	grep -q "^Timer: $s (--timer=$s), " $s.txt || fail "--timer=$s: $(grep Timer $s.txt)"
	grep -Eq "$unit of timer cost subtracted per call(; the counter moves [0-9,]+ $unit at a time)?\$" \
		$s.txt || fail "--timer=$s: timer cost: $(grep Timer $s.txt)"
	expect_eq "--timer=$s: malloc calls" 2 "$(count malloc $s.txt)"
	expect_eq "--timer=$s: free calls" 4 "$(count free $s.txt)"
	trace_run --json --timer=$s b.wl >$s.json || fail "--timer=$s --json failed"
	expect_eq "--timer=$s: json source" "$s" "$(jget $s.json "['timer']['source']")"
	expect_eq "--timer=$s: json chosen_by" "--timer=$s" "$(jget $s.json "['timer']['chosen_by']")"
	expect_eq "--timer=$s: json unit" "$unit" "$(jget $s.json "['unit']")"
	expect_eq "--timer=$s: json calls" 1 "$(jget $s.json "['calls']['realloc']['count']")"
done

# trace_run's view of the processor agrees with the kernel's, where the
# kernel lists x86 flags: RDTSCP and the TSC are taken exactly when listed.
if grep -q '^flags' /proc/cpuinfo 2>/dev/null; then
	for pair in rdtscp:rdtscp rdtsc:tsc; do
		s=${pair%%:*} flag=${pair#*:}
		listed=no taken=no
		grep -m1 '^flags' /proc/cpuinfo | grep -qw "$flag" && listed=yes
		case " $timers " in *" $s "*) taken=yes ;; esac
		expect_eq "--timer=$s taken when /proc/cpuinfo lists $flag" "$listed" "$taken"
	done
fi

# The ladder, from the top: with RDTSCP hidden, auto takes LFENCE;RDTSC;
# LFENCE where there is a TSC; with the TSC hidden too, the next rung;
# with every counter hidden, clock_gettime.  Each time the Timer line says
# what was missing, and a forced rung that is hidden is refused.
ladder() { # ladder WORDS EXPECTED-SOURCE EXPECTED-CHOSEN-BY
	TRACE_RUN_TEST_CPU=$1 trace_run b.wl >l.txt || fail "TRACE_RUN_TEST_CPU=$1 failed"
	grep -q "^Timer: $2 ($3), " l.txt || fail "TRACE_RUN_TEST_CPU=$1: $(grep Timer l.txt), expected $2 ($3)"
	grep -Eq "^[0-9,]+ $(timer_unit "$2")\$" l.txt || fail "TRACE_RUN_TEST_CPU=$1: first line $(head -1 l.txt)"
	expect_eq "TRACE_RUN_TEST_CPU=$1: malloc calls" 2 "$(count malloc l.txt)"
}
case " $timers " in
*" rdtsc "*) ladder no-rdtscp rdtsc "auto: no RDTSCP" ;;
*" cntvct "*) ladder no-rdtscp cntvct auto ;;
*) ladder no-rdtscp clock "auto: no [A-Z_0-9]*" ;;
esac
case " $timers " in
*" cntvct "*) ladder no-tsc cntvct auto ;;
*) ladder no-tsc clock "auto: no [A-Z_0-9]*" ;;
esac
ladder no-tsc,no-cntvct clock "auto: no [A-Z_0-9]*"
# CPUID is not believed on its own: where RDTSCP is reported but traps (as
# under valgrind on a processor without it), auto passes it by, says so,
# and a forced --timer=rdtscp is refused with the reason.
case " $timers " in
*" rdtsc "*)
	ladder rdtscp-traps rdtsc "auto: RDTSCP traps"
	expect_fail_with '^trace_run: --timer=rdtscp: CPUID reports RDTSCP but it traps here' \
		env TRACE_RUN_TEST_CPU=rdtscp-traps trace_run --timer=rdtscp b.wl
	;;
esac
# And so trace_run runs under valgrind, whatever this processor has.
if command -v valgrind >/dev/null; then
	valgrind --tool=none -q trace_run b.wl >vg.txt 2>vg.err ||
		fail "under valgrind: $(tail -n 3 vg.err)"
	expect_eq "malloc calls under valgrind" 2 "$(count malloc vg.txt)"
else
	echo "$t_name: valgrind is not installed: the run under it is left out"
fi
expect_fail_with '^trace_run: --timer=rdtscp: this processor has no RDTSCP instruction$' \
	env TRACE_RUN_TEST_CPU=no-rdtscp trace_run --timer=rdtscp b.wl
[ ! -s "$t_dir/out" ] || fail "a refused --timer=rdtscp printed a report"
expect_fail_with '^trace_run: --timer=rdtsc: this processor has no TSC \(no RDTSC instruction\)$' \
	env TRACE_RUN_TEST_CPU=no-tsc trace_run --timer=rdtsc b.wl
expect_fail_with '^trace_run: --timer=cntvct: this processor has no CNTVCT_EL0' \
	env TRACE_RUN_TEST_CPU=no-cntvct trace_run --timer=cntvct b.wl
# --compare refuses it before replaying anything, once.
expect_fail_with '^trace_run: --timer=rdtscp: this processor has no RDTSCP' \
	env TRACE_RUN_TEST_CPU=no-rdtscp trace_run --compare=glibc,glibc --timer=rdtscp b.wl
expect_fail_with '^trace_run: TRACE_RUN_TEST_CPU: a word is not ' env TRACE_RUN_TEST_CPU=no-fpu trace_run b.wl
# --compare's children time alike: with RDTSCP hidden the table is in the
# fallback's unit.
TRACE_RUN_TEST_CPU=no-rdtscp trace_run --compare=glibc,glibc b.wl >cmp.txt || fail "--compare failed"
TRACE_RUN_TEST_CPU=no-rdtscp trace_run b.wl >nr.txt
fallback=$(sed -n 's/^Timer: \([a-z]*\) .*/\1/p' nr.txt)
grep -Eq "^$(timer_unit "$fallback") +[0-9,]+ " cmp.txt || fail "--compare unit row: $(sed -n 2p cmp.txt)"

# The frequency: from the kernel's tsc_freq_khz where it has one (a file
# stands in for it here), else from CPUID or measured; never from the
# kernel when told it has none.  Only a TSC has a tsc_freq_khz.
tsc=
for s in rdtsc rdtscp; do
	case " $timers " in *" $s "*) tsc=$s ;; esac
done
if [ -n "$tsc" ]; then
	echo 2345678 >khz
	TRACE_RUN_TEST_CPU=tsc-freq-khz-file=$t_dir/khz trace_run --timer=$tsc b.wl >f.txt ||
		fail "with a tsc_freq_khz file: failed"
	grep -q "^Timer: $tsc (--timer=$tsc), TSC at 2345.7 MHz (the kernel's tsc_freq_khz), " f.txt ||
		fail "tsc_freq_khz not used: $(grep Timer f.txt)"
	TRACE_RUN_TEST_CPU=tsc-freq-khz-file=$t_dir/khz trace_run --json --timer=$tsc b.wl >f.json
	expect_eq "json freq_source" kernel "$(jget f.json "['timer']['freq_source']")"
	expect_eq "json tsc_mhz" 2345.7 "$(jget f.json "['timer']['tsc_mhz']")"
	for bad in "" abc 0 "12x"; do
		printf '%s\n' "$bad" >khz
		TRACE_RUN_TEST_CPU=tsc-freq-khz-file=$t_dir/khz trace_run --json --timer=$tsc b.wl >f.json ||
			fail "tsc_freq_khz '$bad': failed"
		[ "$(jget f.json "['timer']['freq_source']")" != kernel ] ||
			fail "tsc_freq_khz '$bad' was taken as a frequency"
	done
	TRACE_RUN_TEST_CPU=no-kernel-freq trace_run --timer=$tsc b.wl >m.txt || fail "no-kernel-freq failed"
	grep -Eq "^Timer: $tsc \(--timer=$tsc\), TSC at [0-9]+\.[0-9] MHz \(measured against CLOCK_MONOTONIC_RAW\), " m.txt ||
		fail "no-kernel-freq: $(grep Timer m.txt)"
else
	echo "no TSC here: the tsc_freq_khz checks need one" >&2
fi
pass
