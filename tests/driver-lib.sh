# shellcheck shell=bash
# driver-lib.sh - what the driver-level tests share: the tests that run
# labs/pathlab (or the labs/lib code behind it) as a student would.
#
# Sourced, right after `set -u`, by tests/netns/compare.sh, tradeoffs.sh,
# hosts.sh, topology.sh and tests/rdma/verbs_on.sh. The lower-level netns
# tests (a receiver and pathlab-gen by hand) use tests/netns/lib.sh
# instead; both define check, so a test sources one or the other, never
# both.
#
# It sets ROOT (the repository), BUILD (the meson build), PATHLAB (the
# driver) and FAILED=0, and offers:
#   driver_env PREFIX                 the driver's environment for a test
#   need_netns, need_tools, need_built, need_compare
#                                     skip (exit 77) what cannot run here
#   scratch_dir, on_exit CMD          $SCRATCH; what runs on exit
#   lab_down                          `pathlab down`, quietly (a CMD)
#   skip, check, finish               the verdicts: exit 77, ok/FAIL, 0 or 1
#   res, exits_with, no_lab_left, built_paths   what the checks ask

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
BUILD=${MESON_BUILD_ROOT:-$ROOT/build}
PATHLAB=$ROOT/labs/pathlab
FAILED=0
SCRATCH=""
EXIT_CMD=""

# Export the driver's environment: the test's own lab prefix PREFIX (its
# namespaces never meet another's), this build, and no package installs
# (the driver's `test` installs the packages; a test installs nothing).
driver_env() {
	export PATHLAB_PREFIX=$1 PATHLAB_BUILD=$BUILD PATHLAB_NO_DEPS=1
}

# Skip with REASON (exit 77).
skip() {
	echo "SKIP: $*"
	exit 77
}

# Skip unless we are root and `ip netns` works (a lab is namespaces).
need_netns() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
	if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
		skip "ip netns is not available"
	fi
}

# Skip unless every TOOL... is on the PATH.
need_tools() {
	local tool
	for tool; do
		command -v "$tool" >/dev/null || skip "$tool is missing"
	done
}

# Skip unless every FILE... (relative to $BUILD) is built.
need_built() {
	local f
	for f; do
		[ -x "$BUILD/$f" ] || skip "$BUILD/$f is not built"
	done
}

# Skip unless `pathlab compare` can run its lab here: root and `ip netns`,
# every TOOL..., the socket receiver and the generator built.
need_compare() {
	need_netns
	need_tools "$@"
	need_built kernel-stack/pathlab-rx-socket common/pathlab-gen
}

# Make the test's scratch directory, $SCRATCH, removed on exit.
scratch_dir() {
	SCRATCH=$(mktemp -d)
	trap driver_exit EXIT
}

# On exit run CMD (a function that ends what the test started: its
# processes, its labs), before $SCRATCH is removed.
on_exit() {
	EXIT_CMD=$1
	trap driver_exit EXIT
}

# The exit trap: EXIT_CMD, then $SCRATCH goes (the exit status is kept).
driver_exit() {
	[ -z "$EXIT_CMD" ] || "$EXIT_CMD"
	[ -z "$SCRATCH" ] || rm -rf "$SCRATCH"
}

# Take the test's lab down, quietly (the driver should have left none).
lab_down() {
	"$PATHLAB" down >/dev/null 2>&1
}

# Report one check: NAME, then the command that must succeed.
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok   $name"
	else
		echo "FAIL $name"
		FAILED=1
	fi
}

# End the test: exit 1 when a check failed, else say that all passed.
finish() {
	if [ "$FAILED" -ne 0 ]; then
		echo "$1: FAILED"
		exit 1
	fi
	echo "$1: all checks passed"
}

# True if jq filter F is true on $OUT/results.json (OUT: the compare run's
# --out). When it is not and RES_SHOW names run fields ("path, sent"),
# print F and those fields of every run.
res() {
	jq -e "$1" "$OUT/results.json" >/dev/null && return 0
	if [ -n "${RES_SHOW:-}" ]; then
		echo "     false: $1"
		jq -c ".runs[] | {$RES_SHOW}" "$OUT/results.json" 2>&1 |
			sed 's/^/     | /'
	fi
	return 1
}

# True if the driver, run with ARGS, exits with status RC; prints its
# first `pathlab:` line, or all it said when the status is not RC.
exits_with() {
	local rc=$1 got=0
	shift
	"$PATHLAB" "$@" >"$SCRATCH/err.log" 2>&1 || got=$?
	if [ "$got" != "$rc" ]; then
		echo "     pathlab $*: exit $got, expected $rc"
		sed 's/^/     | /' "$SCRATCH/err.log"
		return 1
	fi
	echo "     pathlab $*: $(grep -m1 'pathlab:' "$SCRATCH/err.log")"
}

# True if no namespace of the test's lab ($PATHLAB_PREFIX) is left.
no_lab_left() {
	! ip netns list | grep -q "^$PATHLAB_PREFIX-"
}

# Print the paths that run in the lab's namespaces and are built here,
# comma-separated: socket, then xdp,afxdp and dpdk when built.
built_paths() {
	local paths=socket
	[ -x "$BUILD/af-xdp/pathlab-rx-xsk" ] && paths=$paths,xdp,afxdp
	[ -x "$BUILD/dpdk/pathlab-rx-dpdk" ] && paths=$paths,dpdk
	echo "$paths"
}
