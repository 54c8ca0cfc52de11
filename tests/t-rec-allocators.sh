#!/bin/sh
# t-rec-allocators: the recorder over each other allocator Debian packages
# (preloaded after it, so it is the next malloc in the chain): the known
# sequence of every call type on 4 threads is in the trace exactly, with
# the usable sizes that allocator gave (valloc, pvalloc and memalign go
# through the recorder's stand-ins where the allocator lacks them), sort's
# trace is consistent, and the header names the allocator.
. "$top_srcdir/tests/lib.sh"

export MTRACE_LIBDIR=$(dirname "$MTRACECTL_LIB")
seq 3000 -1 1 >input
installed_allocators >allocators
tested=
# The list is read on fd 3, so no program the loop runs can eat it.
while read -r name lib <&3; do
	REC_LOG_GLIBC=0 MTRACE_CTL_QUIET=1 MTRACE_CTL_FILE=$t_dir/$name LD_PRELOAD="$MTRACECTL_LIB $lib" \
		"$top_builddir/tests/rec_known" "$name.log" 2>"$name.err" ||
		fail "$name: rec_known failed: $(cat "$name.err")"
	trace=$(ls "$name".[0-9]*)
	mtrace-dump "$trace" | sed -n 3p | grep -q "^# allocator lib$name" ||
		fail "$name: header names $(mtrace-dump "$trace" | sed -n 3p)"
	"$top_builddir/tests/rec_expect" --skip-before --exit-frees "$trace" "$name.log" >out 2>&1 ||
		fail "$name: $(cat out)"
	LD_PRELOAD=$lib mtrace-record -q -o "$name-sort.mtr" -- sort input >sorted ||
		fail "$name: sort failed under the recorder"
	sort input | cmp -s - sorted || fail "$name: sort's output differs under the recorder"
	"$top_builddir/tests/rec_consistent" "$name-sort.mtr" >out 2>&1 || fail "$name: sort: $(cat out)"
	tested="$tested $name"
done 3<allocators
[ -n "$tested" ] || skip "none of libjemalloc2, libtcmalloc-minimal4, libmimalloc2.0 is installed"
echo "tested:$tested"
pass
