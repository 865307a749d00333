# shellcheck shell=bash
# lib.sh - what every netns test shares: root check, its own lab prefix,
# cleanup on exit, and one measured run (a receiver and pathlab-gen).
#
# A test sources this, then calls  netns_setup  and  run_pair.
# Results: pass/fail counting with ok/bad, and netns_finish to exit.

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$TESTS_DIR/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-$REPO/build}
PATHLAB_LIB=$REPO/labs/lib
# shellcheck source=../../labs/lib/topo.sh
. "$PATHLAB_LIB/topo.sh"

GEN=$BUILD/common/pathlab-gen
# shellcheck disable=SC2034 # used by the tests that source this file
RX_SOCKET=$BUILD/kernel-stack/pathlab-rx-socket
PASS=0
FAIL=0

# Skip (exit 77) unless we are root and can make network namespaces.
netns_require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root to create network namespaces"
		exit 77
	fi
	if ! ip netns list >/dev/null 2>&1; then
		echo "SKIP: 'ip netns' is not available"
		exit 77
	fi
}

# Our own lab (prefix per test and process), torn down on any exit.
netns_setup() {
	netns_require_root
	export PATHLAB_PREFIX=${PATHLAB_PREFIX:-plt$$}
	TMP=$(mktemp -d)
	trap netns_cleanup EXIT
	topo_up >/dev/null || { echo "FAIL: topo_up"; exit 1; }
}

# Kill what we started (by PID), take the lab down, remove the files.
netns_cleanup() {
	local pid
	for pid in ${NETNS_PIDS:-}; do
		kill "$pid" 2>/dev/null
	done
	topo_down >/dev/null 2>&1
	rm -rf "$TMP"
}

ok() {
	echo "ok: $*"
	PASS=$((PASS + 1))
}

bad() {
	echo "FAIL: $*"
	FAIL=$((FAIL + 1))
}

# check NAME JQ-EXPRESSION FILE: pass when the expression is true.
check() {
	if jq -e "$2" "$3" >/dev/null; then
		ok "$1"
	else
		bad "$1: $2 is false in $3: $(jq -c "${4:-.}" "$3" 2>&1 | head -c 600)"
	fi
}

# Print the summary line and exit with the verdict.
netns_finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}

# Wait (up to 10 s) for file $1 to appear while process $2 lives.
wait_file() {
	local i
	for ((i = 0; i < 1000; i++)); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# run_pair NAME RXBIN "RX ARGS" "GEN ARGS": a receiver in the rx namespace,
# the generator in the tx namespace, the merged run in $TMP/NAME.json. A
# test that defines before_gen has it called (with NAME) once the
# receiver is ready, before the generator starts.
run_pair() {
	local name=$1 rxbin=$2 rxargs=$3 genargs=$4 pid i
	rm -f "$TMP/$name".*
	# shellcheck disable=SC2086
	ns_spawn pid rx $rxbin $rxargs --ready "$TMP/$name.ready" \
		--json "$TMP/$name.rx.json" --quiet 2>"$TMP/$name.rx.err"
	NETNS_PIDS="${NETNS_PIDS:-} $pid"
	if ! wait_file "$TMP/$name.ready" "$pid"; then
		bad "$name: receiver did not start: $(cat "$TMP/$name.rx.err")"
		return 1
	fi
	! declare -F before_gen >/dev/null || before_gen "$name"
	# shellcheck disable=SC2086
	ns_exec tx "$GEN" --dst "$PL_RX_ADDR" $genargs --quiet \
		--json "$TMP/$name.gen.json" 2>"$TMP/$name.gen.err" ||
		bad "$name: generator failed: $(cat "$TMP/$name.gen.err")"
	for ((i = 0; i < 1500; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" || bad "$name: receiver exited $?: $(cat "$TMP/$name.rx.err")"
	/usr/bin/python3 "$REPO/labs/plab" merge "$TMP/$name.rx.json" \
		"$TMP/$name.gen.json" >"$TMP/$name.json"
}

# run_pair_exact: run_pair for the runs that must lose nothing (paced at a
# rate the receiver keeps up with). A busy machine can still stall the
# receiver for a moment: when datagrams were lost, say where they went and
# try again (three runs at most), so the checks that follow see one clean
# run or a real bug.
run_pair_exact() {
	local name=$1 lost try
	for try in 1 2 3; do
		run_pair "$@" || return 1
		lost=$(jq '.lost' "$TMP/$name.json" 2>/dev/null || echo 0)
		[ "${lost:-0}" -eq 0 ] && return 0
		[ $try -lt 3 ] || break
		echo "note: $name lost $lost ($(jq -c '.drops' "$TMP/$name.json")," \
			"unattributed $(jq '.unattributed' "$TMP/$name.json"));" \
			"a busy machine? running it again"
	done
}
