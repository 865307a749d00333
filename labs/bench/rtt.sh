#!/usr/bin/env bash
# rtt.sh - round-trip latency, ours against sockperf's ping-pong, on the same
# lab topology, in one run:
#   A  pathlab-gen --pingpong  ->  a pathlab receiver with --reflect
#        socket: pathlab-rx-socket (recvmmsg, reflects with sendmmsg)
#        afxdp:  pathlab-rx-xsk --action redirect --bind copy (AF_XDP TX ring)
#        dpdk:   pathlab-rx-dpdk --vdev-kind af_xdp|af_packet (rte_eth_tx_burst)
#   B  sockperf ping-pong      ->  sockperf sr (recvfrom, sendto)
# Client on CPU 0, far end on CPU 1 (taskset -c), over the veth pair of our
# own lab; the same payload and the same duration for both. Trials
# alternate A B A B (with several --path values: A1 A2 B A1 A2 B ...).
#
# Both clients send one message, wait for its reflection, then send the
# next, and time each round trip on their own clock. pathlab-gen's JSON
# "rtt" object gives min/p50/p99/p999/max of the WHOLE round trip in ns.
# sockperf pp prints half the round trip as "latency" unless it is given
# --full-rtt: when its help lists that option (sockperf 3.7 has it) we pass
# it, so both columns are whole round trips; otherwise we double sockperf's
# figures and say so in the table. Per tool and trial we keep p50, p99 and
# p99.9 (percentile 99.900 of sockperf's listing); the table gives the
# median and min-max of each over the trials, in microseconds, and the
# ratios ours/sockperf on the medians.
#
# Warm-up: pathlab-gen leaves its first --warmup pings out of the figures;
# sockperf has a warm-up of its own (a few dummy messages, and it keeps only
# its "valid duration"): each tool's sample count is printed.
# shellcheck source-path=SCRIPTDIR
set -eu
set -o pipefail

BENCH_NAME=rtt.sh
# shellcheck source=lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

TRIALS=5
SECONDS_PER_TRIAL=2
SIZE=64
WARMUP=100
PATHS=socket
VDEV_KIND=af_xdp
RAW_DIR=""
RTT_LAST=""

usage() {
	cat <<EOF
usage: rtt.sh [--trials N] [--seconds S] [--size 64..1518] [--warmup N]
              [--path socket|afxdp|dpdk[,...]] [--vdev-kind af_xdp|af_packet]
              [--raw DIR]

Round-trip latency: pathlab-gen --pingpong against a pathlab receiver that
reflects (--reflect), and sockperf ping-pong against sockperf sr as the
reference, on the lab's veth pair, alternating; client pinned to CPU
$BENCH_TX_CPU, far end to CPU $BENCH_RX_CPU. Needs root.

  --trials N       trials per tool, alternating (default $TRIALS)
  --seconds S      seconds each client runs, whole seconds (default $SECONDS_PER_TRIAL)
  --size BYTES     Ethernet frame size incl. FCS, 64..1518 (default $SIZE);
                   UDP payload = size - 46 (64 -> 18 B, our header's size)
  --warmup N       pathlab-gen's pings left out of the figures (default $WARMUP)
  --path LIST      our far end(s), comma-separated (default $PATHS):
                   socket  pathlab-rx-socket --reflect
                   afxdp   pathlab-rx-xsk --action redirect --bind copy --reflect
                   dpdk    pathlab-rx-dpdk --vdev-kind KIND --reflect
                   sockperf is always the reference row (socket path only)
  --vdev-kind K    the DPDK virtual device for --path dpdk: af_xdp or
                   af_packet (default $VDEV_KIND)
  --raw DIR        keep every trial's raw output under DIR
  --help           this text

Environment: PATHLAB_BUILD (build directory, default build/ of the
repository), PATHLAB_PREFIX (lab namespace prefix, default bench<PID>).
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--trials) TRIALS=${2:?--trials needs a value}; shift 2 ;;
	--seconds) SECONDS_PER_TRIAL=${2:?--seconds needs a value}; shift 2 ;;
	--size) SIZE=${2:?--size needs a value}; shift 2 ;;
	--warmup) WARMUP=${2:?--warmup needs a value}; shift 2 ;;
	--path) PATHS=${2:?--path needs a value}; shift 2 ;;
	--vdev-kind) VDEV_KIND=${2:?--vdev-kind needs a value}; shift 2 ;;
	--raw) RAW_DIR=${2:?--raw needs a directory}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "rtt.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done

# Exit 2 with "rtt.sh: MESSAGE" (a usage error: bad option value).
usage_error() {
	echo "rtt.sh: $*" >&2
	exit 2
}

bench_is_uint "$TRIALS" || usage_error "--trials: a positive integer, not '$TRIALS'"
bench_is_uint "$SECONDS_PER_TRIAL" ||
	usage_error "--seconds: a positive whole number of seconds (sockperf -t), not '$SECONDS_PER_TRIAL'"
if ! bench_is_uint "$SIZE" || [ "$SIZE" -lt 64 ] || [ "$SIZE" -gt 1518 ]; then
	usage_error "--size: a frame size 64..1518, not '$SIZE'"
fi
[[ $WARMUP =~ ^[0-9]+$ ]] || usage_error "--warmup: a count of pings (0 or more), not '$WARMUP'"
case $VDEV_KIND in
af_xdp | af_packet) ;;
*) usage_error "--vdev-kind: af_xdp or af_packet, not '$VDEV_KIND'" ;;
esac
IFS=, read -r -a OUR_PATHS <<<"$PATHS"
[ ${#OUR_PATHS[@]} -gt 0 ] || usage_error "--path: give socket, afxdp or dpdk"
for p in "${OUR_PATHS[@]}"; do
	case $p in
	socket | afxdp | dpdk) ;;
	*) usage_error "--path: socket, afxdp or dpdk (comma-separated), not '$p'" ;;
	esac
done
# Ethernet 14 + IPv4 20 + UDP 8 + FCS 4 = 46 bytes around the UDP payload.
PAYLOAD=$((SIZE - 46))

GEN=$BENCH_BUILD/common/pathlab-gen
RX_SOCKET=$BENCH_BUILD/kernel-stack/pathlab-rx-socket
RX_XSK=$BENCH_BUILD/af-xdp/pathlab-rx-xsk
RX_DPDK=$BENCH_BUILD/dpdk/pathlab-rx-dpdk
DPDK_PIDS=()

# Print the receiver binary of our path $1.
path_binary() {
	case $1 in
	socket) echo "$RX_SOCKET" ;;
	afxdp) echo "$RX_XSK" ;;
	dpdk) echo "$RX_DPDK" ;;
	esac
}

# Print a one-line description of tool $1 (pathlab-PATH or sockperf).
tool_what() {
	case $1 in
	pathlab-socket) echo "pathlab-gen --pingpong -> pathlab-rx-socket --reflect" ;;
	pathlab-afxdp) echo "pathlab-gen --pingpong -> pathlab-rx-xsk copy --reflect" ;;
	pathlab-dpdk) echo "pathlab-gen --pingpong -> pathlab-rx-dpdk $VDEV_KIND --reflect" ;;
	sockperf) echo "sockperf ping-pong -> sockperf sr" ;;
	esac
}

# Remove the EAL runtime directory of every pathlab-rx-dpdk we started: the
# program removes its own at exit, but not when it was killed.
dpdk_runtime_cleanup() {
	local pid
	for pid in "${DPDK_PIDS[@]}"; do
		rm -rf "/var/run/dpdk/pathlab-$pid"
	done
}

cleanup() {
	bench_cleanup
	dpdk_runtime_cleanup
}

bench_require_root
bench_require_cmd sockperf
bench_require_bin "$GEN"
for p in "${OUR_PATHS[@]}"; do
	bench_require_bin "$(path_binary "$p")"
done
if [[ " ${OUR_PATHS[*]} " == *" dpdk "* ]] &&
	! "$RX_DPDK" --help 2>&1 | grep -q -e '--reflect'; then
	bench_die "$RX_DPDK has no --reflect option (rebuild it, or leave dpdk out of --path)"
fi
# sockperf pp --full-rtt: whole round trips; without it, half of them.
if sockperf pp --help 2>&1 | grep -q -e '--full-rtt'; then
	SOCKPERF_FULL=1
else
	SOCKPERF_FULL=0
fi
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
bench_setup "$RAW_DIR"

# --- A: pathlab-gen --pingpong -> our receiver, reflecting -------------------------

# Start our far end for path $2 in DIR $1; it ends on the end-of-train markers.
pathlab_start() {
	local dir=$1 path=$2 args=()
	case $path in
	socket) args=(--mode recvmmsg --bind "$PL_RX_ADDR" --port "$BENCH_PORT") ;;
	afxdp) args=(--action redirect --bind copy --port "$BENCH_PORT") ;;
	# No --port: it takes the lab's port, 9000, which BENCH_PORT is.
	dpdk) args=(--vdev-kind "$VDEV_KIND") ;;
	esac
	ns_spawn BENCH_RX_PID rx taskset -c "$BENCH_RX_CPU" "$(path_binary "$path")" \
		"${args[@]}" --reflect --iface "$PL_RX_IF" \
		--cpu "$BENCH_RX_CPU" --idle-timeout 3000 --workload rtt --quiet \
		--ready "$dir/rx.ready" --json "$dir/rx.json" >"$dir/rx.out" 2>&1
	bench_track "$BENCH_RX_PID"
	[ "$path" != dpdk ] || DPDK_PIDS+=("$BENCH_RX_PID")
}

# Ready once it has created its ready file.
pathlab_ready() {
	[ -e "$1/rx.ready" ]
}

# Ping-pong for SECONDS_PER_TRIAL, one ping in flight.
pathlab_client() {
	ns_exec tx taskset -c "$BENCH_TX_CPU" "$GEN" --dst "$PL_RX_ADDR" \
		--port "$BENCH_PORT" --iface "$PL_TX_IF" --size "$SIZE" \
		--pingpong --count 0 --duration "$SECONDS_PER_TRIAL" \
		--warmup "$WARMUP" --quiet --json "$1/gen.json" >"$1/gen.out" 2>&1
}

# Wait for the far end to end (end markers; idle timeout as the fallback).
pathlab_stop() {
	if ! bench_wait_gone "$BENCH_RX_PID" 6; then
		bench_warn "the far end is still running; stopping it"
		bench_stop "$BENCH_RX_PID"
	fi
	[ -s "$1/rx.json" ]
}

# Print "P50 P99 P999 MIN MAX SAMPLES LOST" (us; LOST: pings unanswered).
pathlab_figures() {
	jq -r '.rtt as $r | [$r.p50_ns, $r.p99_ns, $r.p999_ns, $r.min_ns, $r.max_ns]
		| map(if . == null then "-" else . / 1000 end)
		+ [$r.samples, $r.timeouts] | map(tostring) | join(" ")' "$1/gen.json"
}

# --- B: sockperf ping-pong -> sockperf sr ---------------------------------------

# Start sockperf's server (UDP, one socket, blocking recvfrom).
sockperf_start() {
	ns_spawn BENCH_RX_PID rx taskset -c "$BENCH_RX_CPU" \
		sockperf sr -i "$PL_RX_ADDR" -p "$BENCH_PORT" >"$1/rx.out" 2>&1
	bench_track "$BENCH_RX_PID"
}

# Ready once its UDP socket is bound.
sockperf_ready() {
	bench_udp_bound rx "$BENCH_PORT"
}

# sockperf's ping-pong client: -m payload bytes for SECONDS_PER_TRIAL.
sockperf_client() {
	local full=()
	[ "$SOCKPERF_FULL" -eq 0 ] || full=(--full-rtt)
	ns_exec tx taskset -c "$BENCH_TX_CPU" sockperf pp -i "$PL_RX_ADDR" \
		-p "$BENCH_PORT" -m "$PAYLOAD" -t "$SECONDS_PER_TRIAL" \
		"${full[@]}" >"$1/tx.out" 2>&1
}

# SIGINT makes the server print its total and exit.
sockperf_stop() {
	bench_stop "$BENCH_RX_PID" INT
}

# Print "P50 P99 P999 MIN MAX SAMPLES LOST" (us, whole round trips) from
# the client's listing; "-" for a percentile it did not print. Without
# --full-rtt its figures are half round trips: doubled here.
sockperf_figures() {
	local f=2
	[ "$SOCKPERF_FULL" -eq 0 ] || f=1
	sed 's/\x1b\[[0-9;]*m//g' "$1/tx.out" | awk -v f="$f" '
		/---> percentile 50\.000 =/ { p50 = $NF }
		/---> percentile 99\.000 =/ { p99 = $NF }
		/---> percentile 99\.900 =/ { p999 = $NF }
		/---> <MIN> observation =/ { lo = $NF }
		/---> <MAX> observation =/ { hi = $NF }
		/Total [0-9]+ observations/ {
			for (i = 1; i <= NF; i++) if ($i == "Total") n = $(i + 1)
		}
		/# dropped messages =/ {
			sub(/.*# dropped messages = /, ""); sub(/;.*/, ""); lost = $0
		}
		function x(v) { return v == "" ? "-" : sprintf("%.3f", v * f) }
		END {
			if (p50 == "" || n == "") exit 1
			printf "%s %s %s %s %s %d %d\n", x(p50), x(p99), x(p999),
				x(lo), x(hi), n, lost
		}'
}

# --- one trial ---------------------------------------------------------------------

# Run one trial of TOOL (pathlab-PATH or sockperf) in DIR; append its
# figures to $BENCH_WORK/TOOL.rtt and keep them in RTT_LAST. False if it
# failed. (Not in a subshell: the PIDs it starts are tracked for cleanup.)
rtt_trial() {
	local tool=$1 dir=$2 kind path="" line
	rm -rf "$dir"
	mkdir -p "$dir"
	BENCH_RX_PID=""
	if [ "$tool" = sockperf ]; then
		kind=sockperf
		sockperf_start "$dir" || return 1
	else
		kind=pathlab
		path=${tool#pathlab-}
		pathlab_start "$dir" "$path" || return 1
	fi
	if ! bench_wait_until "$BENCH_READY_S" "$BENCH_RX_PID" "${kind}_ready" "$dir"; then
		bench_warn "$tool: far end not ready within ${BENCH_READY_S} s (see $dir)"
		bench_stop "$BENCH_RX_PID"
		return 1
	fi
	if ! "${kind}_client" "$dir"; then
		bench_warn "$tool: client failed (see $dir)"
		bench_stop "$BENCH_RX_PID"
		return 1
	fi
	"${kind}_stop" "$dir" || { bench_warn "$tool: far end failed (see $dir)"; return 1; }
	line=$("${kind}_figures" "$dir") || { bench_warn "$tool: no figures (see $dir)"; return 1; }
	echo "$line" >>"$BENCH_WORK/$tool.rtt"
	RTT_LAST=$line
}

# Print a one-line account of figures line $1 for the progress output.
rtt_line() {
	echo "$1" | awk '{
		printf "p50 %s us, p99 %s us, p99.9 %s us, min %s, max %s; %d samples, %d lost\n",
			$1, $2, $3, $4, $5, $6, $7 }'
}

# Print "MEDIAN MIN MAX" of column C of TOOL's figures ("- - -" if none).
rtt_col() {
	local f=$BENCH_WORK/$1.rtt
	[ -s "$f" ] || { echo "- - -"; return 0; }
	# shellcheck disable=SC2046
	bench_stats $(awk -v c="$2" '$c != "-" { print $c }' "$f")
}

# Print the row of TOOL: trials, median samples, then per percentile the
# median and min-max.
rtt_row() {
	local tool=$1 n s p50 p99 p999
	n=0
	[ ! -s "$BENCH_WORK/$tool.rtt" ] || n=$(wc -l <"$BENCH_WORK/$tool.rtt")
	s=$(rtt_col "$tool" 6)
	p50=$(rtt_col "$tool" 1)
	p99=$(rtt_col "$tool" 2)
	p999=$(rtt_col "$tool" 3)
	awk -v t="$tool" -v n="$n" -v s="$s" -v a="$p50" -v b="$p99" -v c="$p999" 'BEGIN {
		if (n == 0) { printf "%-22s %3d  (no successful trials)\n", t, 0; exit }
		split(s, S, " ")
		printf "%-22s %3d %8.0f  %s  %s  %s\n", t, n, S[1], f(a), f(b), f(c)
	}
	function f(v,   x) {
		split(v, x, " ")
		if (x[1] == "-") return sprintf("%-24s", "      -")
		return sprintf("%7.1f %-16s", x[1], sprintf("(%.1f-%.1f)", x[2], x[3]))
	}'
}

# Print the ratio row TOOL/sockperf on the medians of p50, p99, p99.9, and
# whether the min-max ranges overlap.
rtt_ratio() {
	local tool=$1 c args=()
	for c in 1 2 3; do
		args+=(-v "a$c=$(rtt_col "$tool" "$c")" -v "b$c=$(rtt_col sockperf "$c")")
	done
	awk -v t="$tool" "${args[@]}" 'BEGIN {
		printf "%-22s %3s %8s  %s  %s  %s\n", "ratio " substr(t, 9) "/sockperf", "", "",
			r(a1, b1), r(a2, b2), r(a3, b3)
	}
	function r(a, b,   x, y, ov) {
		split(a, x, " "); split(b, y, " ")
		if (x[1] == "-" || y[1] == "-" || y[1] == 0) return sprintf("%-24s", "      -")
		ov = (x[2] <= y[3] && y[2] <= x[3]) ? "overlap" : "apart"
		return sprintf("%7.2f %-16s", x[1] / y[1], "(" ov ")")
	}'
}

# --- the run ---------------------------------------------------------------------

TOOLS=()
for p in "${OUR_PATHS[@]}"; do
	TOOLS+=("pathlab-$p")
done
TOOLS+=(sockperf)
if [ "$SOCKPERF_FULL" -eq 1 ]; then
	SOCKPERF_NOTE="sockperf pp --full-rtt: sockperf prints whole round trips (as pathlab-gen)."
else
	SOCKPERF_NOTE="sockperf has no --full-rtt here: its half-round-trip figures are DOUBLED."
fi

echo "rtt.sh: round trips, ${OUR_PATHS[*]} vs sockperf; $SIZE B frames ($PAYLOAD B UDP payload),"
echo "  $TRIALS trials x $SECONDS_PER_TRIAL s each, alternating; client CPU $BENCH_TX_CPU, far end CPU $BENCH_RX_CPU; lab $PATHLAB_PREFIX"
echo "  $SOCKPERF_NOTE"
BG_BEFORE=$(bench_background 1)
echo "background load before: $BG_BEFORE busy CPUs (1 s, no traffic)"
bench_check_background "$BG_BEFORE"

total=$((${#TOOLS[@]} * TRIALS))
k=0
failed=0
for ((i = 1; i <= TRIALS; i++)); do
	for tool in "${TOOLS[@]}"; do
		k=$((k + 1))
		echo "trial $k/$total: $tool ($(tool_what "$tool")) ..."
		if rtt_trial "$tool" "$BENCH_WORK/trial$k-$tool"; then
			echo "trial $k/$total: $tool: $(rtt_line "$RTT_LAST")"
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
echo "== round trips: pathlab (${OUR_PATHS[*]}) vs sockperf: $SIZE B frames ($PAYLOAD B UDP payload), $TRIALS x $SECONDS_PER_TRIAL s, alternating =="
cat <<EOF
Where: veth between two network namespaces, in a VM ($BENCH_NCPUS CPUs). Not a NIC:
  the figures describe this setup only and do not transfer to hardware.
What: the WHOLE round trip (ping sent to its reflection read), on each
  client's own clock, in microseconds. $SOCKPERF_NOTE
Each figure: the median over the trials of that trial's percentile, and
  (min-max) over the trials. Ratios are on the medians; "overlap": the
  min-max ranges overlap, so the difference is inside run-to-run noise.
Pairs: pathlab-gen sends one ping and blocks in recv for its reflection;
  pathlab-rx-socket blocks in recvmmsg and answers with sendmmsg; sockperf
  pp blocks in recvfrom, sockperf sr answers each recvfrom with a sendto.
  pathlab-rx-xsk and pathlab-rx-dpdk spin on their rings (busy polling):
  on this 2-CPU machine they hold CPU $BENCH_RX_CPU the whole time. The
  ping's receive work runs in the lab's NAPI thread on CPU $BENCH_RX_CPU too
  (sharing it with a busy poller); the reply's runs on the CPU that sends it.
Samples: pathlab-gen leaves its first $WARMUP pings out; sockperf keeps only
  its "valid duration" (its own warm-up and tail left out).
Background load (no traffic): $BG_BEFORE busy CPUs before, $BG_AFTER after.
EOF
echo
printf '%-22s %3s %8s  %-24s  %-24s  %s\n' "" n samples "p50 us" "p99 us" "p99.9 us"
printf '%-22s %3s %8s  %-24s  %-24s  %s\n' "" "" median "median (min-max)" \
	"median (min-max)" "median (min-max)"
{
	for tool in "${TOOLS[@]}"; do
		rtt_row "$tool"
	done
	for tool in "${TOOLS[@]}"; do
		[ "$tool" = sockperf ] || rtt_ratio "$tool"
	done
} | sed 's/ *$//'
echo "  (ratio < 1: ours has the shorter round trip)"
if [ "$BENCH_KEEP" -eq 1 ]; then
	echo "raw files: $BENCH_WORK"
fi
if [ "$failed" -gt 0 ]; then
	echo "rtt.sh: $failed trial(s) failed" >&2
	exit 1
fi
