# shellcheck shell=bash
# packages.sh - the Debian packages the paths build or run with, found by
# a file each ships (so a sysroot tree can say what is installed).

# package -> files, any of which shows it is installed.
declare -A PKG_FILES=(
	[libbpf-dev]='/usr/include/bpf/libbpf.h'
	[libxdp-dev]='/usr/include/xdp/libxdp.h'
	[clang]='/usr/bin/clang /usr/bin/clang-[0-9]*'
	[bpftool]='/usr/sbin/bpftool /usr/bin/bpftool'
	[dpdk-dev]='/usr/lib/*/pkgconfig/libdpdk.pc /usr/local/lib/*/pkgconfig/libdpdk.pc /usr/local/lib/pkgconfig/libdpdk.pc /usr/lib64/pkgconfig/libdpdk.pc'
	[libibverbs-dev]='/usr/include/infiniband/verbs.h'
	[librdmacm-dev]='/usr/include/rdma/rdma_cma.h'
	[ibverbs-providers]='/usr/lib/*/libibverbs/lib*-rdmav*.so /usr/lib64/libibverbs/lib*-rdmav*.so'
	[ibverbs-utils]='/usr/bin/ibv_devinfo'
	[perftest]='/usr/bin/ib_send_lat'
	[qemu-system-x86]='/usr/bin/qemu-system-x86_64'
	[busybox-static]='/bin/busybox /usr/bin/busybox'
)
declare -A PKG_HAVE=()

# Record whether each package is installed.
collect_packages() {
	local p f
	for p in $(printf '%s\n' "${!PKG_FILES[@]}" | sort); do
		# shellcheck disable=SC2086 # the list holds globs
		if f=$(first_of ${PKG_FILES[$p]}); then
			PKG_HAVE[$p]=true
			fact "machine/packages/$p" b true "$f"
		else
			PKG_HAVE[$p]=false
			fact "machine/packages/$p" b false "${PKG_FILES[$p]%% *} (absent)"
		fi
	done
}

# need_packages PATHID PKG...: a reason and one apt-get step for the
# missing ones; fails if any is missing.
need_packages() {
	local id=$1 p missing=()
	shift
	for p in "$@"; do
		[ "${PKG_HAVE[$p]:-false}" = true ] || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	reason "$id" "not installed: ${missing[*]}" \
		"$(for p in "${missing[@]}"; do printf '%s ' "${PKG_FILES[$p]%% *}"; done)(absent)"
	step "$id" package "apt-get install ${missing[*]}"
	return 1
}
