#!/bin/sh
# deps.sh - install the Debian packages malloc-trace-kit needs, if missing.
#
# Usage: scripts/deps.sh build|test|bench
#   build: compiler, autotools, <sys/sdt.h>, libunwind (stacks), elfutils' libdw,
#          ISA-L's igzip (gzip for mtrace-report --export)
#   test:  build + the tools the tests drive (bpftrace, stap, readelf, strace, chromium
#          for the HTML pages), the other allocators the replay tests run
#          against, clang with its sanitizer and libFuzzer runtimes
#          (scripts/fuzz.sh), and node + npm (t-report-export.sh installs
#          DuckDB's @duckdb/node-api from npm)
#   bench: test + heaptrack and ltrace for side-by-side figures, /usr/bin/time,
#          the programs of the real-program corpus (bench/real.sh), and ISA-L's
#          igzip (isal: bench/export.sh's compression floor)
# Runs apt-get only when something is missing; uses sudo when not root.
set -eu

build="gcc g++ make autoconf automake libtool pkg-config systemtap-sdt-dev libunwind-dev libdw-dev libelf-dev libisal-dev"
test="$build elfutils binutils strace systemtap bpftrace python3 chromium libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 clang libclang-rt-dev nodejs npm"
bench="$test heaptrack ltrace valgrind time perl sqlite3 git zstd isal"

case "${1:-build}" in
build) want=$build ;;
test) want=$test ;;
bench) want=$bench ;;
*) echo "deps.sh: unknown set '$1' (build, test or bench)" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	# A node from elsewhere (NodeSource's nodejs bundles npm) serves as well.
	case "$p" in nodejs | npm) command -v "${p%js}" >/dev/null && continue ;; esac
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

echo "deps.sh: installing$missing" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >&2
