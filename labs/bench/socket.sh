#!/usr/bin/env bash
# socket.sh - our socket receiver against sockperf, on the same lab topology,
# in one run:
#   A  pathlab-gen (sendmmsg)  ->  pathlab-rx-socket (recvmmsg)
#   B  sockperf tp (sendto)    ->  sockperf sr (recvfrom)
# Sender on CPU 0, receiver on CPU 1 (taskset -c), both over the veth pair of
# our own lab. Trials alternate A B A B; each is timed by its sender (-t /
# --duration SECONDS). Per trial: packets the receiver got, receive rate, and
# system-wide CPU busy time from /proc/stat (read by this script, the same
# way for both), hence TSC-equivalent cycles per packet. Prints medians and
# min-max for each, and the ratios pathlab/sockperf.
#
# sockperf's server is the only one that knows what arrived: on SIGINT it
# prints "Total N messages received and handled" (warm-up messages not
# counted); that line is our count for B. The client's "Total of N messages
# sent in T sec" gives what was sent and the sending time.
# shellcheck source-path=SCRIPTDIR
set -eu
set -o pipefail

BENCH_NAME=socket.sh
# shellcheck source=lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

TRIALS=5
SECONDS_PER_TRIAL=2
SIZE=64
RAW_DIR=""

usage() {
	cat <<EOF
usage: socket.sh [--trials N] [--seconds S] [--size 64|1024] [--raw DIR]

Our socket receiver (pathlab-gen -> pathlab-rx-socket, recvmmsg) against
sockperf (sockperf tp -> sockperf sr) on the lab's veth pair, alternating,
sender pinned to CPU $BENCH_TX_CPU and receiver to CPU $BENCH_RX_CPU. Needs root.

  --trials N     trials per tool, alternating A B A B (default $TRIALS)
  --seconds S    seconds each sender sends, whole seconds (default $SECONDS_PER_TRIAL)
  --size BYTES   Ethernet frame size incl. FCS, 64..1518 (default $SIZE);
                 UDP payload = size - 46: 64 -> 18 B, 1024 -> 978 B
  --raw DIR      keep every trial's raw output under DIR
  --help         this text

Environment: PATHLAB_BUILD (build directory, default build/ of the
repository), PATHLAB_PREFIX (lab namespace prefix, default bench<PID>).
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--trials) TRIALS=${2:?--trials needs a value}; shift 2 ;;
	--seconds) SECONDS_PER_TRIAL=${2:?--seconds needs a value}; shift 2 ;;
	--size) SIZE=${2:?--size needs a value}; shift 2 ;;
	--raw) RAW_DIR=${2:?--raw needs a directory}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "socket.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
bench_is_uint "$TRIALS" || bench_die "--trials: a positive integer, not '$TRIALS'"
bench_is_uint "$SECONDS_PER_TRIAL" ||
	bench_die "--seconds: a positive whole number of seconds (sockperf -t), not '$SECONDS_PER_TRIAL'"
if ! bench_is_uint "$SIZE" || [ "$SIZE" -lt 64 ] || [ "$SIZE" -gt 1518 ]; then
	bench_die "--size: a frame size 64..1518, not '$SIZE'"
fi
# Ethernet 14 + IPv4 20 + UDP 8 + FCS 4 = 46 bytes around the UDP payload.
PAYLOAD=$((SIZE - 46))

GEN=$BENCH_BUILD/common/pathlab-gen
RX_SOCKET=$BENCH_BUILD/kernel-stack/pathlab-rx-socket

cleanup() {
	bench_cleanup
}

bench_require_root
bench_require_cmd sockperf
bench_require_bin "$GEN" "$RX_SOCKET" "$BENCH_BUILD/common/pathlab-budget"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
bench_setup "$RAW_DIR"
BENCH_TSC_HZ=$(bench_tsc_hz)

# --- A: pathlab-gen -> pathlab-rx-socket (recvmmsg) ---------------------------

# Start our receiver. The generator sends no end-of-train markers
# (--no-end): the receiver must still be running when its CPU time is read
# after the drain, so the script stops it with SIGINT, as sockperf's.
pathlab_rx_start() {
	ns_spawn BENCH_RX_PID rx taskset -c "$BENCH_RX_CPU" "$RX_SOCKET" \
		--mode recvmmsg --bind "$PL_RX_ADDR" --port "$BENCH_PORT" \
		--iface "$PL_RX_IF" --idle-timeout 3000 --quiet \
		--ready "$1/rx.ready" --json "$1/rx.json" >"$1/rx.out" 2>&1
	bench_track "$BENCH_RX_PID"
}

# Ready once it has created its ready file.
pathlab_rx_ready() {
	[ -e "$1/rx.ready" ]
}

# Send as fast as possible for SECONDS_PER_TRIAL.
pathlab_tx() {
	ns_exec tx taskset -c "$BENCH_TX_CPU" "$GEN" --dst "$PL_RX_ADDR" \
		--port "$BENCH_PORT" --iface "$PL_TX_IF" --size "$SIZE" \
		--count 0 --duration "$SECONDS_PER_TRIAL" --no-end --quiet \
		--json "$1/gen.json" >"$1/gen.out" 2>&1
}

# Stop it with SIGINT; it writes its JSON and exits.
pathlab_rx_stop() {
	local rc=0
	bench_stop "$BENCH_RX_PID" INT
	[ -s "$1/rx.json" ] || rc=1
	return $rc
}

# Received from the receiver's JSON; sent and sending time from the generator's.
pathlab_count() {
	printf '%s %s %s\n' "$(jq -r .received "$1/rx.json")" \
		"$(jq -r .sent "$1/gen.json")" "$(jq -r .duration_s "$1/gen.json")"
}

# --- B: sockperf tp -> sockperf sr ---------------------------------------------

# Start sockperf's server (UDP, one socket, blocking recvfrom).
sockperf_rx_start() {
	ns_spawn BENCH_RX_PID rx taskset -c "$BENCH_RX_CPU" \
		sockperf sr -i "$PL_RX_ADDR" -p "$BENCH_PORT" >"$1/rx.out" 2>&1
	bench_track "$BENCH_RX_PID"
}

# Ready once its UDP socket is bound.
sockperf_rx_ready() {
	bench_udp_bound rx "$BENCH_PORT"
}

# sockperf's throughput client: -m payload bytes, as fast as it goes.
sockperf_tx() {
	ns_exec tx taskset -c "$BENCH_TX_CPU" sockperf tp -i "$PL_RX_ADDR" \
		-p "$BENCH_PORT" -m "$PAYLOAD" -t "$SECONDS_PER_TRIAL" --mps max \
		>"$1/tx.out" 2>&1
}

# SIGINT makes the server print its received total and exit.
sockperf_rx_stop() {
	bench_stop "$BENCH_RX_PID" INT
	grep -q -e 'messages received and handled' \
		-e 'No messages were received' "$1/rx.out"
}

# Received from the server's exit summary; sent and time from the client's.
sockperf_count() {
	local rx sent t
	if grep -q 'No messages were received' "$1/rx.out"; then
		rx=0
	else
		rx=$(sed -n 's/.*Total \([0-9][0-9]*\) messages received and handled.*/\1/p' "$1/rx.out" | tail -1)
	fi
	read -r sent t < <(sed -n \
		's/.*Total of \([0-9][0-9]*\) messages sent in \([0-9.][0-9.]*\) sec.*/\1 \2/p' \
		"$1/tx.out" | tail -1) || true
	printf '%s %s %s\n' "$rx" "${sent:--}" "$t"
}

# --- the run ---------------------------------------------------------------------

echo "socket.sh: pathlab recvmmsg vs sockperf; $SIZE B frames ($PAYLOAD B UDP payload),"
echo "  $TRIALS trials x $SECONDS_PER_TRIAL s each, alternating; sender CPU $BENCH_TX_CPU, receiver CPU $BENCH_RX_CPU; lab $PATHLAB_PREFIX"
BG_BEFORE=$(bench_background 1)
echo "background load before: $BG_BEFORE busy CPUs (1 s, no traffic)"
bench_check_background "$BG_BEFORE"

total=$((2 * TRIALS))
k=0
failed=0
for ((i = 1; i <= TRIALS; i++)); do
	for tool in pathlab sockperf; do
		k=$((k + 1))
		if [ "$tool" = pathlab ]; then
			what="pathlab-gen -> pathlab-rx-socket"
		else
			what="sockperf tp -> sockperf sr"
		fi
		echo "trial $k/$total: $tool ($what) ..."
		if bench_pair "$tool" "$BENCH_WORK/trial$k-$tool"; then
			echo "trial $k/$total: $tool: $(bench_last_line)"
		else
			echo "trial $k/$total: $tool: FAILED (not counted)"
			failed=$((failed + 1))
		fi
	done
done
BG_AFTER=$(bench_background 1)
echo "background load after: $BG_AFTER busy CPUs (1 s, no traffic)"
bench_check_background "$BG_AFTER"

echo
echo "== pathlab socket receiver vs sockperf: $SIZE B frames ($PAYLOAD B UDP payload), $TRIALS x $SECONDS_PER_TRIAL s, alternating =="
bench_labels \
	"Pairs: each tool brings its own sender. pathlab-gen sends with sendmmsg" \
	"  (64 per call), sockperf tp with one sendto per message; sockperf sr reads" \
	"  with one recvfrom per message, pathlab-rx-socket with recvmmsg (64). The" \
	"  rate is the pair's: the sender's CPU carries the send path, so the" \
	"  sender may be what limits it; the receive cost is on the receive core." \
	"Counts: pathlab from its run JSON; sockperf from the server's exit summary" \
	"  on SIGINT (\"Total N messages received and handled\", warm-up excluded)." \
	"Background load (no traffic): $BG_BEFORE busy CPUs before, $BG_AFTER after."
echo
bench_table pathlab pathlab sockperf sockperf
if [ "$BENCH_KEEP" -eq 1 ]; then
	echo "raw files: $BENCH_WORK"
fi
if [ "$failed" -gt 0 ]; then
	echo "socket.sh: $failed trial(s) failed" >&2
	exit 1
fi
