#!/bin/sh
# t-rec-probes: the SDT markers built into the libraries are exactly those
# docs/PROBES.md lists, with as many arguments as it says, each at one
# site.  The list is read from the doc's tables, so the doc cannot drift
# from the code.
. "$top_srcdir/tests/lib.sh"

[ -n "$READELF" ] || skip "readelf not found"

# "name nargs" for every marker of provider mtrace in a library.
built() {
	"$READELF" -n "$1" | awk '
		/Provider:/ { prov = $2 }
		/Name:/ { if (name != "") print name, n; name = (prov == "mtrace") ? $2 : ""; n = 0 }
		/Arguments:/ { n = NF - 1 }
		END { if (name != "") print name, n }' | grep -v '^ ' | sort -u
}

# "name nargs" for every table row of the doc; optional ones (built only
# where the C library has them) go to a second list.
awk -F'|' '
	/^Where the C library has them/ { opt = 1 }
	/^## / { opt = 0 }
	/^\| `/ {
		name = $2; gsub(/[ `]/, "", name)
		args = $3; gsub(/^ +| +$/, "", args)
		n = (args == "" || args == "-") ? 0 : split(args, a, ",")
		print name, n > (opt ? "optional" : "required")
	}' "$top_srcdir/docs/PROBES.md"
[ -s required ] || fail "no marker table found in docs/PROBES.md"
sort -u required -o required
sort -u optional required -o documented 2>/dev/null || sort -u required -o documented

for lib in "$MTRACE_LIB" "$MTRACECTL_LIB"; do
	# One site per marker: a stack walked from a marker must not depend on
	# which path the call took (watched or not).
	sites=$("$READELF" -n "$lib" | awk '/Provider:/ { prov = $2 } /Name:/ && prov == "mtrace" { print $2 }' |
		sort | uniq -d | tr '\n' ' ')
	[ -z "$sites" ] || fail "markers with more than one site in $(basename "$lib"): $sites"
	built "$lib" >built.txt
	[ -s built.txt ] || fail "$lib has no mtrace markers"
	missing=$(comm -23 required built.txt | tr '\n' ' ')
	[ -z "$missing" ] || fail "documented but not in $(basename "$lib") (or wrong argument count): $missing"
	extra=$(comm -13 documented built.txt | tr '\n' ' ')
	[ -z "$extra" ] || fail "in $(basename "$lib") but not documented (or wrong argument count): $extra"
done
pass
