# shellcheck shell=bash
# deps.sh - the packages the lab and its tests need, and the build.
#
# deps_ensure installs what is missing with apt-get on Debian and Ubuntu;
# elsewhere it prints the Debian names of what to install and fails if a
# tool the driver cannot run without is missing. PATHLAB_NO_DEPS=1 skips it.
# build_ensure configures the build directory if needed and builds it.

# The one list of packages: Debian 12 names.
PL_PACKAGES=(
	build-essential meson ninja-build pkg-config
	clang llvm lld
	iproute2 jq tcpdump nftables strace ethtool sockperf
	python3 python3-matplotlib
	chromium fonts-dejavu-core pandoc
	libbpf-dev libxdp-dev xdp-tools bpftool
	dpdk dpdk-dev
	libibverbs-dev librdmacm-dev ibverbs-providers ibverbs-utils
	rdmacm-utils perftest
	busybox-static qemu-system-x86
	util-linux procps python3
)

# Commands the driver itself cannot do without (checked on other systems).
PL_COMMANDS=(cc meson ninja ip jq tcpdump nsenter unshare flock mountpoint)

# True if this is a Debian-like system with dpkg and apt-get.
deps__is_debian() {
	local id_like=""
	[ -r /etc/os-release ] || return 1
	# shellcheck disable=SC1091
	id_like=$(. /etc/os-release && echo "${ID:-} ${ID_LIKE:-}")
	case " $id_like " in
	*" debian "* | *" ubuntu "*) ;;
	*) return 1 ;;
	esac
	command -v dpkg >/dev/null && command -v apt-get >/dev/null
}

# True if package P is installed.
deps__installed() {
	dpkg-query -W -f '${Status}' "$1" 2>/dev/null |
		grep -q 'install ok installed'
}

# Print the compiler-rt package matching the installed clang, if it exists.
deps__clang_rt() {
	local v
	command -v clang >/dev/null || return 0
	v=$(clang -dumpversion 2>/dev/null) || return 0
	v=${v%%.*}
	if apt-cache show "libclang-rt-$v-dev" >/dev/null 2>&1; then
		echo "libclang-rt-$v-dev"
	fi
}

# Print the packages of LIST... that are not installed.
deps__missing() {
	local p
	for p in "$@"; do
		deps__installed "$p" || echo "$p"
	done
}

# Install packages P... (apt-get update first); one by one if that fails.
deps__apt_install() {
	local p rc=0
	echo "pathlab: installing: $*"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || apt-get update -q || return 1
	if apt-get install -y -q --no-install-recommends "$@" >/dev/null; then
		return 0
	fi
	for p in "$@"; do
		apt-get install -y -q --no-install-recommends "$p" >/dev/null ||
			{ echo "pathlab: could not install $p" >&2; rc=1; }
	done
	return $rc
}

# Check the tools on a system that is not Debian-like.
deps__other() {
	local c missing=()
	for c in "${PL_COMMANDS[@]}"; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	echo "pathlab: not a Debian or Ubuntu system: install the equivalents" \
		"of these Debian packages yourself:" >&2
	echo "  ${PL_PACKAGES[*]} libclang-rt-<clang version>-dev" >&2
	if [ ${#missing[@]} -gt 0 ]; then
		echo "pathlab: missing commands: ${missing[*]}" >&2
		return 1
	fi
	echo "pathlab: the commands the driver needs are there; continuing" >&2
}

# Make sure every package the lab needs is installed.
deps_ensure() {
	local missing rt
	[ "${PATHLAB_NO_DEPS:-0}" = 1 ] && return 0
	if ! deps__is_debian; then
		deps__other
		return
	fi
	mapfile -t missing < <(deps__missing "${PL_PACKAGES[@]}")
	if [ ${#missing[@]} -gt 0 ]; then
		deps__apt_install "${missing[@]}"
		mapfile -t missing < <(deps__missing "${missing[@]}")
		if [ ${#missing[@]} -gt 0 ]; then
			echo "pathlab: still missing: ${missing[*]}" >&2
			return 1
		fi
	fi
	# The sanitizers' runtime has to match the clang that is installed.
	rt=$(deps__clang_rt)
	if [ -n "$rt" ] && ! deps__installed "$rt"; then
		deps__apt_install "$rt" || return 1
	fi
	echo "pathlab: packages: all ${#PL_PACKAGES[@]} present${rt:+ (+ $rt)}"
}

# Run a command quietly; show its output only if it fails.
deps__quiet() {
	local out
	out=$("$@" 2>&1) && return 0
	printf '%s\n' "$out" >&2
	return 1
}

# Configure DIR (default: the build directory) if needed, then build it.
build_ensure() {
	local dir=${1:-${PATHLAB_BUILD:?}} src=${PATHLAB_ROOT:?}
	if [ -f "$dir/build.ninja" ]; then
		echo "pathlab: build: $dir is configured"
	elif [ -e "$dir/meson-private/coredata.dat" ]; then
		echo "pathlab: build: meson setup --reconfigure $dir"
		deps__quiet meson setup --reconfigure "$dir" "$src" || return 1
	else
		echo "pathlab: build: meson setup $dir"
		deps__quiet meson setup "$dir" "$src" || return 1
	fi
	echo "pathlab: build: ninja -C $dir"
	deps__quiet ninja -C "$dir"
}
