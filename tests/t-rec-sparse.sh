#!/bin/sh
# t-rec-sparse: while only one thread of a process has recorded, the
# recorder stamps one record in 16 (the header's stamp_every says 16);
# once a second thread has recorded, every thread follows the owner
# tables' rule (one record in 16 stamped, and every other one too but a
# call on blocks of regions its thread has had to itself, or an
# allocation of the block its thread's previous record freed); a forked
# child, one thread again, is sparse again; MTRACE_PRECISE_TIME=1 stamps
# all (sdt/recorder.h, docs/FORMAT.md "Time").  The sparse traces convert
# with no free lost and replay, timed by each timer trace_run has here.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/run_lib.sh"

calls=20000
stamps=$top_builddir/tests/rec_stamps

MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/sparse LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_sparse" $calls 2>err || fail "rec_sparse failed: $(cat err)"
[ ! -s err ] || fail "unexpected messages: $(cat err)"
set -- sparse.*
[ $# -eq 2 ] || fail "expected the parent's and the child's trace: $*"
traces="$*"

# check TRACE PHASES...: each phase (a marker size, rec_sparse.c) of the
# trace holds its calls; "sparse" ones have runs of at most 15 unstamped
# records, 15 among them, and few stamps; "owner" ones have some
# unstamped records, in runs of at most 15, and only where the owner
# tables allow one: never a realloc; an allocation of the block the
# thread's previous record freed, or a call on a block of a 4 MiB region
# that no other thread's record uses anywhere in the trace (rec_sparse's
# threads keep to heaps of their own; the rule allows more: a region's
# calls before another thread's first there).
check() {
	trace=$1
	shift
	"$stamps" --list "$trace" >"$trace.list" || fail "rec_stamps --list $trace"
	awk -v phases="$*" -v calls=$calls '
	function region(hex,   v, i) {
		v = 0
		for (i = 3; i <= length(hex); i++)
			v = v * 16 + index("0123456789abcdef", substr(hex, i, 1)) - 1
		return int(v / 4194304)
	}
	BEGIN {
		n = split(phases, p, " ")
		for (i = 1; i < n; i += 2) kind[p[i]] = p[i + 1]
	}
	NR == FNR {
		if ($3 != "0" && $3 != "0x0") {
			g = region($3)
			if (!(g in user)) user[g] = $1
			else if (user[g] != $1) user[g] = "shared"
		}
		next
	}
	$2 == 1 && ($5 in kind) { phase[$1] = $5; seen[$5] = 1 }
	!($1 in phase) { next }
	{
		ph = phase[$1]; recs[ph]++
		if ($4) { stamped[ph]++; run[$1] = 0 }
		else if (++run[$1] > longest[ph]) longest[ph] = run[$1]
		if (kind[ph] == "owner" && !$4) {
			unstamped[ph]++
			handback = $2 != 2 && prev_call[$1] == 2 && prev_block[$1] == $3
			alone = $3 == "0" || $3 == "0x0" || user[region($3)] == $1
			if ($2 == 4 || $2 == 5 || !(handback || alone)) {
				print "record " FNR " in " ph " unstamped, not after a free of its block" \
					" nor in a region of its own: " $0
				bad = 1
			}
		}
		prev_call[$1] = $2; prev_block[$1] = $3
	}
	END {
		for (ph in kind) {
			if (!seen[ph]) { print "no phase " ph; bad = 1; continue }
			if (recs[ph] < calls) { print ph ": " recs[ph] " records, expected " calls " or more"; bad = 1 }
			if (kind[ph] == "sparse" && (longest[ph] != 15 || stamped[ph] * 8 > recs[ph])) {
				print ph ": " stamped[ph] " of " recs[ph] " stamped, longest unstamped run " longest[ph] ", expected 15"
				bad = 1
			}
			if (kind[ph] == "owner" && (!unstamped[ph] || longest[ph] > 15)) {
				print ph ": " unstamped[ph] " records unstamped, longest run " longest[ph] \
					", expected the owner tables rule"
				bad = 1
			}
		}
		exit bad
	}' "$trace.list" "$trace.list" >"$trace.bad" || fail "$trace: $(head -5 "$trace.bad")"
	"$stamps" "$trace" >"$trace.count" || fail "rec_stamps $trace"
	expect_eq "$trace: the header's stamp_every" 16 "$(cut -d' ' -f3 "$trace.count")"
}

# Markers: SPARSE_ALONE 0x5a5a1 = 370081, SPARSE_SECOND 370082,
# SPARSE_AFTER 370083, SPARSE_CHILD 370084.
parent='' child=''
for f in $traces; do
	"$stamps" --list "$f" >"$f.list" || fail "rec_stamps --list $f"
	if awk '$2 == 1 && $5 == 370084 { found = 1 } END { exit !found }' "$f.list"; then
		child=$f
	else
		parent=$f
	fi
done
[ -n "$child" ] && [ -n "$parent" ] || fail "expected one trace with the child's phase: $traces"
check "$parent" 370081 sparse 370082 owner 370083 owner
check "$child" 370084 sparse

timers_here
for trace in $parent $child; do
	trace2wl --timing "$trace.wl" "$trace" >"$trace.sum" 2>err || fail "trace2wl $trace: $(cat err)"
	grep -q ' 0 unknown frees -> ' "$trace.sum" || fail "$trace: frees dropped: $(cat "$trace.sum")"
	trace2wl --stats --json "$trace.wl" >"$trace.stats" || fail "trace2wl --stats $trace.wl"
	for s in $timers; do
		trace_run --json --touch=none --timer="$s" "$trace.wl" >"$trace.$s.json" 2>err ||
			fail "trace_run --timer=$s $trace.wl: $(cat err)"
		expect_calls "$trace, --timer=$s" "$trace.stats" "$trace.$s.json"
	done
done

MTRACE_PRECISE_TIME=1 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/precise LD_PRELOAD=$MTRACECTL_LIB \
	"$top_builddir/tests/rec_sparse" $calls 2>err || fail "rec_sparse, precise: $(cat err)"
for trace in precise.*; do
	"$stamps" "$trace" >"$trace.count" || fail "rec_stamps $trace"
	# shellcheck disable=SC2046
	set -- $(cat "$trace.count")
	[ "$2" -gt $calls ] || fail "$trace: too few records to tell: $2"
	expect_eq "$trace: stamped records with MTRACE_PRECISE_TIME=1" "$2" "$1"
	expect_eq "$trace: the header's stamp_every with MTRACE_PRECISE_TIME=1" 1 "$3"
done
pass
