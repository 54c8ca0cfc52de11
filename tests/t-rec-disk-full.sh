#!/bin/sh
# t-rec-disk-full: a full disk never breaks the traced program (issue #10).
# On a 1 MiB tmpfs mounted here, the recorder stops when a window cannot be
# claimed, says so once, the program's output and exit status are what
# they are untraced, and the trace says it stopped because the disk was
# full.  On a tmpfs with no room even for the header no file is left (not
# even an empty one), and trace2wl fails with one line and leaves nothing.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
mkdir mnt
mount -t tmpfs -o size=1m,mode=0755 mtrace-test mnt 2>mount.err ||
	skip "cannot mount a tmpfs here: $(cat mount.err)"
trap 'umount "$t_dir/mnt" 2>/dev/null || true
if [ "$t_keep" = 0 ]; then rm -rf "$t_dir"; else echo "scratch kept in $t_dir" >&2; fi' EXIT

storm=$top_builddir/tests/rec_storm
args="2 300000 0"
"$storm" "$t_dir/untraced.log" $args >untraced.out 2>untraced.err ||
	fail "rec_storm failed untraced: $(cat untraced.err)"

# traced NAME [LIB]: records rec_storm into mnt/NAME.PID (with LIB
# preloaded in front of the recorder); its output and exit status must be
# the untraced ones, with one line on stderr (NAME.err).
traced() {
	MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/mnt/$1 LD_PRELOAD="${2:-} $MTRACECTL_LIB" \
		"$storm" "$t_dir/$1.log" $args >"$1.out" 2>"$1.err" ||
		fail "$1: the traced program failed: $(cat "$1.err")"
	cmp -s untraced.out "$1.out" || fail "$1: output differs from untraced: $(cat "$1.out")"
	expect_eq "$1: stderr lines" 1 "$(wc -l <"$1.err")"
}

traced full
grep -Eq '^mtrace: cannot extend .*/mnt/full\.[0-9]+: disk full; recording stopped$' full.err ||
	fail "unexpected message: $(cat full.err)"
trace=$(ls mnt/full.*)
mtrace-dump --stats --json "$trace" 2>dump.err >dump.json || fail "$(cat dump.err)"
grep -q '"stopped_early":{"reason":"disk full","code":2,"calls":[1-9][0-9]*}' dump.json ||
	fail "the trace does not say the disk was full: $(head -c 400 dump.json)"
grep -q 'incomplete: recording stopped early (disk full)' dump.err ||
	fail "mtrace-dump did not warn: $(cat dump.err)"
"$top_builddir/tests/rec_consistent" --allow-warnings "$trace" >check 2>&1 || fail "$(cat check)"

# trace2wl onto the full disk (filled up again: at its stop the recorder
# gave back the windows it had claimed ahead): one line naming the output,
# nothing left.
dd if=/dev/zero of=mnt/filler bs=4096 2>/dev/null || true
expect_fail_with '^trace2wl: .*/mnt/out\.wl: .*No space left on device$' trace2wl "$t_dir/mnt/out.wl" "$trace"
rm -f mnt/filler
expect_eq "files on the full disk after trace2wl" "$(basename "$trace")" "$(ls mnt)"

# A filesystem without fallocate (rec_failsys.so says EOPNOTSUPP): windows
# are written as zeros before they are mapped, so the full disk shows there
# and not as SIGBUS in the program; the partial window is taken back.
rm mnt/full.*
failsys=$top_builddir/tests/.libs/rec_failsys.so
[ -f "$failsys" ] || fail "$failsys is not built"
export REC_FAIL_FALLOCATE=1
traced nofalloc "$failsys"
unset REC_FAIL_FALLOCATE
grep -Eq '^mtrace: cannot extend .*/mnt/nofalloc\.[0-9]+: disk full; recording stopped$' nofalloc.err ||
	fail "nofalloc: unexpected message: $(cat nofalloc.err)"
mtrace-dump --stats --json mnt/nofalloc.* 2>nofalloc.dump.err >nofalloc.json ||
	fail "$(cat nofalloc.dump.err)"
grep -q '"stopped_early":{"reason":"disk full","code":2,"calls":[1-9][0-9]*}' nofalloc.json ||
	fail "nofalloc: the trace does not say the disk was full: $(head -c 400 nofalloc.json)"
expect_eq "nofalloc: mtrace-dump warnings" 1 "$(wc -l <nofalloc.dump.err)"

# No room for the header: no trace at all, and no empty file.
dd if=/dev/zero of=mnt/filler bs=4096 2>/dev/null || true
traced none
grep -Eq '^mtrace: cannot write .*/mnt/none\.[0-9]+: No space left on device; not recording$' none.err ||
	fail "unexpected message: $(cat none.err)"
[ -z "$(ls mnt/none* 2>/dev/null)" ] || fail "a file was left: $(ls -l mnt/none*)"
pass
