# tests/diag-stap.sh - a stand-in kernel build tree for `stap -p2/-p3`;
# source it after tests/lib.sh.
#
# stap wants a kernel build tree even to translate a script, and this
# machine (like most where stap cannot load modules) has none.  Translating
# needs only the release and the two options that make stap resolve
# process(...).mark probes (uprobes, which it reaches through
# tracepoints), so the tree is written from scratch instead of from
# /proc/config.gz, which many kernels lack.

# stap_tree: makes $t_dir/kernel and sets stap_tree to it.
stap_tree() {
	stap_tree=$t_dir/kernel
	mkdir -p "$stap_tree/include/config"
	printf 'CONFIG_UPROBES=y\nCONFIG_TRACEPOINTS=y\n' >"$stap_tree/.config"
	: >"$stap_tree/Module.symvers"
	echo 'all:' >"$stap_tree/Makefile"
	uname -r >"$stap_tree/include/config/kernel.release"
}
