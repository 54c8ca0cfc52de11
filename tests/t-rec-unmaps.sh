#!/bin/sh
# t-rec-unmaps: the windows of threads run in turn are mapped into the
# recorder's reserved area and given back a batch at a time, one system
# call for each run of windows that touch (sdt/rec_maps.c), where each
# unmap is a TLB shootdown: at most one call for every 4 windows mapped
# (300 threads of 3,000 calls: ~390 windows, ~50 calls).  Under a ulimit -v
# that leaves no room for the area, windows are mapped anywhere and
# unmapped one by one, and every call still reads back.
. "$top_srcdir/tests/lib.sh"

command -v strace >/dev/null || skip "no strace (scripts/deps.sh test installs it)"
threads=300 calls=3000

# run NAME [ulimit -v KB]: rec_storm's turn mode recorded as NAME.*, its
# mmap and munmap calls in NAME.sys; checks that every call reads back.
run() {
	name=$1
	(
		[ -z "${2:-}" ] || ulimit -v "$2"
		strace -f -e trace=mmap,munmap -o "$t_dir/$name.sys" -E MTRACE_CTL_QUIET=1 \
			-E MTRACE_CTL_FILE="$t_dir/$name" -E LD_PRELOAD="$MTRACECTL_LIB" \
			"$top_builddir/tests/rec_storm" "$t_dir/$name.log" turn $threads $calls
	) >out 2>err || fail "rec_storm ($name) failed: $(cat err)"
	trace=$(ls $name.*[0-9])
	"$top_builddir/tests/rec_count" "$trace" 2>/dev/null | sort >recorded ||
		fail "$name: rec_count failed"
	sort $name.log >made
	cmp -s made recorded ||
		fail "$name: calls recorded differ from calls made: $(diff made recorded | head -5)"
}

run area
maps=$(grep -c 'MAP_SHARED|MAP_FIXED' area.sys || true)
backs=$(grep -c 'PROT_NONE, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS|MAP_NORESERVE' area.sys || true)
unmaps=$(grep -c 'munmap(' area.sys || true)
echo "area: $maps windows mapped, $backs given back, $unmaps other unmaps"
# Spares (gone threads' windows reused) need no mapping: a quarter of the
# threads is a floor that shows the area in use.
[ "$maps" -ge $((threads / 4)) ] ||
	fail "area: $maps windows mapped into the area, expected $((threads / 4)) or more"
[ $(((backs + unmaps) * 4)) -le "$maps" ] ||
	fail "area: $backs windows given back and $unmaps unmaps for $maps windows (bound: a quarter)"

run limited 2000000
fixed=$(grep -c 'MAP_SHARED|MAP_FIXED' limited.sys || true)
anywhere=$(grep -c 'PROT_READ|PROT_WRITE, MAP_SHARED, ' limited.sys || true)
echo "under ulimit -v: $fixed windows in an area, $anywhere mapped anywhere"
expect_eq "windows mapped into an area under ulimit -v" 0 "$fixed"
[ "$anywhere" -ge $((threads / 4)) ] ||
	fail "under ulimit -v: $anywhere windows mapped, expected $((threads / 4)) or more"
pass
