#!/usr/bin/env bash
# queues.sh - one receive queue against two, for one path, on the same lab
# topology, in one run:
#   2q  pathlab-gen --threads 2 --flows 8  ->  receiver --queues 2 --cpu 0
#   1q  pathlab-gen --threads 2 --flows 8  ->  receiver --queues 1 --cpu 0
# The receiver is that of --path: pathlab-rx-socket (recvmmsg; SO_REUSEPORT
# sockets, one per queue), pathlab-rx-xsk (AF_XDP copy mode, one socket per
# RX queue) or pathlab-rx-dpdk (net_af_xdp or net_af_packet, one queue each).
# The lab is built with PATHLAB_QUEUES=2: both veth ends get two queues and
# XPS ties TX queue q to CPU q, so sender thread t (on CPU t) sends on TX
# queue t. Queue q of the receiver runs on CPU q. Trials alternate 2q 1q 2q
# 1q; each sends at full speed for --seconds. Per trial: packets received,
# receive rate (received / the sender's own sending time), packets lost, and
# system-wide CPU busy time from /proc/stat over the traffic window (as
# socket.sh does), hence TSC-equivalent cycles per packet; the run JSON's
# own cycles_per_packet.system is printed as a cross-check. Medians, min-max
# and the ratios 2q/1q.
#
# What a 2-vCPU machine can show, and what it cannot:
# - On the two-queue lab veth's NAPI stays in softirq context, so the
#   kernel's receive work (NAPI, XDP, the IP/UDP stack, the copy into the
#   socket or the UMEM) runs on the SENDER's CPU: two pinned sender threads
#   spread it over both CPUs whatever the receiver does, and the receiver's
#   queues only decide where the user-space half runs. The one-queue lab
#   (1q) runs it in a NAPI thread on the receive core instead.
# - There are only two CPUs for two sender threads, the kernel's receive
#   work and one or two receiver threads. Nothing gets a core of its own: a
#   second queue adds a thread that competes with a sender for CPU 1, and
#   busy pollers (AF_XDP, DPDK) spin at 100% whether packets come or not,
#   taking that CPU away from the sender that feeds them. A 2q/1q rate ratio
#   near or below 1 is therefore what this machine shows, not what a NIC
#   with RSS and spare cores would.
# - What it can show: that the traffic really spreads over both queues (the
#   per-queue shares), what a second queue costs per packet system-wide,
#   and whether a single queue drops packets that two would take (lost).
# - It cannot show scaling with cores, RSS or interrupt steering on a NIC,
#   or NUMA effects: a veth has no hardware queues or interrupts.
# One-queue baseline: the socket path does not care which RX queue a packet
# came in on, so its 1q trials use the same two-queue lab. An AF_XDP socket
# (ours, or DPDK's net_af_xdp) sees only the queue it is bound to: on the
# two-queue lab a one-queue receiver would miss queue 1's half. So for afxdp
# and dpdk the 1q trials run by default on a second lab of our own with one
# queue (--q1-lab one), where everything arrives on queue 0, as on a NIC set
# to one channel; --q1-lab same measures the one-queue receiver on the
# two-queue lab instead (it then loses what arrives on queue 1).
# shellcheck source-path=SCRIPTDIR
set -eu
set -o pipefail

BENCH_NAME=queues.sh
# shellcheck source=lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

TRIALS=5
SECONDS_PER_TRIAL=2
SIZE=64
RX_PATH=socket
VDEV_KIND=af_xdp
Q1_LAB=""
RAW_DIR=""
GEN_THREADS=2
GEN_FLOWS=8
# Sender thread t and receiver queue q run on CPU FIRST_CPU + t (+ q).
FIRST_CPU=0

usage() {
	cat <<EOF
usage: queues.sh [--path socket|afxdp|dpdk] [--vdev-kind af_xdp|af_packet]
                 [--trials N] [--seconds S] [--size 64..1518]
                 [--q1-lab same|one] [--raw DIR]

One receive queue against two for one path: pathlab-gen --threads $GEN_THREADS
--flows $GEN_FLOWS at full speed into the receiver with --queues 1 and --queues 2
(queue q on CPU q), on a lab built with PATHLAB_QUEUES=2 (XPS: CPU q sends on
TX queue q), trials alternating. Needs root.

  --path P         the receiver (default $RX_PATH):
                   socket  pathlab-rx-socket --mode recvmmsg (SO_REUSEPORT)
                   afxdp   pathlab-rx-xsk --action redirect --bind copy
                   dpdk    pathlab-rx-dpdk --vdev-kind KIND
  --vdev-kind K    the DPDK virtual device: af_xdp or af_packet (default $VDEV_KIND)
  --trials N       trials per queue count, alternating (default $TRIALS)
  --seconds S      seconds the sender sends, whole seconds (default $SECONDS_PER_TRIAL)
  --size BYTES     Ethernet frame size incl. FCS, 64..1518 (default $SIZE)
  --q1-lab L       where the 1-queue trials run: "same" two-queue lab, or
                   "one", a second lab with one queue (default: same for
                   socket, one for afxdp and dpdk, whose one queue would
                   otherwise see only queue 0's share)
  --raw DIR        keep every trial's raw output under DIR
  --help           this text

Environment: PATHLAB_BUILD (build directory, default build/ of the
repository), PATHLAB_PREFIX (lab namespace prefix, default bench<PID>; the
one-queue lab, if any, is PREFIX-1q).
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--path) RX_PATH=${2:?--path needs a value}; shift 2 ;;
	--vdev-kind) VDEV_KIND=${2:?--vdev-kind needs a value}; shift 2 ;;
	--trials) TRIALS=${2:?--trials needs a value}; shift 2 ;;
	--seconds) SECONDS_PER_TRIAL=${2:?--seconds needs a value}; shift 2 ;;
	--size) SIZE=${2:?--size needs a value}; shift 2 ;;
	--q1-lab) Q1_LAB=${2:?--q1-lab needs a value}; shift 2 ;;
	--raw) RAW_DIR=${2:?--raw needs a directory}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "queues.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done

# Exit 2 with "queues.sh: MESSAGE" (a usage error: bad option value).
usage_error() {
	echo "queues.sh: $*" >&2
	exit 2
}

case $RX_PATH in
socket) Q1_LAB=${Q1_LAB:-same} ;;
afxdp | dpdk) Q1_LAB=${Q1_LAB:-one} ;;
*) usage_error "--path: socket, afxdp or dpdk, not '$RX_PATH'" ;;
esac
case $VDEV_KIND in
af_xdp | af_packet) ;;
*) usage_error "--vdev-kind: af_xdp or af_packet, not '$VDEV_KIND'" ;;
esac
case $Q1_LAB in
same | one) ;;
*) usage_error "--q1-lab: same or one, not '$Q1_LAB'" ;;
esac
bench_is_uint "$TRIALS" || usage_error "--trials: a positive integer, not '$TRIALS'"
bench_is_uint "$SECONDS_PER_TRIAL" ||
	usage_error "--seconds: a positive whole number of seconds, not '$SECONDS_PER_TRIAL'"
if ! bench_is_uint "$SIZE" || [ "$SIZE" -lt 64 ] || [ "$SIZE" -gt 1518 ]; then
	usage_error "--size: a frame size 64..1518, not '$SIZE'"
fi

GEN=$BENCH_BUILD/common/pathlab-gen
case $RX_PATH in
socket) RX_BIN=$BENCH_BUILD/kernel-stack/pathlab-rx-socket ;;
afxdp) RX_BIN=$BENCH_BUILD/af-xdp/pathlab-rx-xsk ;;
dpdk) RX_BIN=$BENCH_BUILD/dpdk/pathlab-rx-dpdk ;;
esac
LAB2=""
LAB1=""
DPDK_PIDS=()

# Remove the EAL runtime directory of every pathlab-rx-dpdk we started: the
# program removes its own at exit, but not when it was killed.
dpdk_runtime_cleanup() {
	local pid
	for pid in "${DPDK_PIDS[@]}"; do
		rm -rf "/var/run/dpdk/pathlab-$pid"
	done
}

# Stop what we started, take down both labs (the current one goes with
# bench_cleanup), remove the work dir unless kept.
cleanup() {
	bench_cleanup
	local l
	for l in "$LAB1" "$LAB2"; do
		[ -z "$l" ] || PATHLAB_PREFIX=$l topo_down >/dev/null 2>&1 || true
	done
	dpdk_runtime_cleanup
}

bench_require_root
bench_require_bin "$GEN" "$RX_BIN" "$BENCH_BUILD/common/pathlab-budget"
[ "$(getconf _NPROCESSORS_ONLN)" -ge "$GEN_THREADS" ] ||
	bench_die "needs $GEN_THREADS CPUs (one per sender thread and receive queue)"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export PATHLAB_QUEUES=2
bench_setup "$RAW_DIR"
LAB2=$PATHLAB_PREFIX
LAB1=$LAB2
if [ "$Q1_LAB" = one ]; then
	LAB1=$LAB2-1q
	PATHLAB_PREFIX=$LAB1 PATHLAB_QUEUES=1 topo_up >/dev/null ||
		bench_die "could not bring the one-queue lab up (prefix $LAB1)"
fi
BENCH_TSC_HZ=$(bench_tsc_hz)

# Make lab PREFIX the current one: namespaces, and the link watcher (the
# old lab's is stopped; bench_traffic_window starts one in the new lab).
use_lab() {
	[ "$PATHLAB_PREFIX" != "$1" ] || return 0
	export PATHLAB_PREFIX=$1
	if [ -n "$BENCH_WATCH_PID" ]; then
		bench_stop "$BENCH_WATCH_PID"
		BENCH_WATCH_PID=""
	fi
}

# --- the receiver and the sender, for Q queues ---------------------------------

# Start the receiver with Q queues in DIR. The generator sends no end
# markers: the receiver must still run when its CPU time is read after the
# drain; rx_stop ends it with SIGINT (1.5 s without a packet also ends it).
rx_start() {
	local dir=$1 q=$2 args=()
	case $RX_PATH in
	socket) args=(--mode recvmmsg --bind "$PL_RX_ADDR" --port "$BENCH_PORT") ;;
	afxdp) args=(--action redirect --bind copy --port "$BENCH_PORT") ;;
	# No --port: it takes the lab's port, 9000, which BENCH_PORT is.
	dpdk) args=(--vdev-kind "$VDEV_KIND") ;;
	esac
	ns_spawn BENCH_RX_PID rx "$RX_BIN" "${args[@]}" --queues "$q" \
		--cpu "$FIRST_CPU" --iface "$PL_RX_IF" --idle-timeout 1500 \
		--quiet --ready "$dir/rx.ready" --json "$dir/rx.json" \
		>"$dir/rx.out" 2>&1
	bench_track "$BENCH_RX_PID"
	[ "$RX_PATH" != dpdk ] || DPDK_PIDS+=("$BENCH_RX_PID")
}

# Ready once it has created its ready file.
rx_ready() {
	[ -e "$1/rx.ready" ]
}

# Send as fast as possible for SECONDS_PER_TRIAL: thread t on CPU t.
gen_tx() {
	ns_exec tx "$GEN" --dst "$PL_RX_ADDR" --port "$BENCH_PORT" \
		--iface "$PL_TX_IF" --size "$SIZE" --threads "$GEN_THREADS" \
		--flows "$GEN_FLOWS" --cpu "$FIRST_CPU" --count 0 \
		--duration "$SECONDS_PER_TRIAL" --no-end --quiet \
		--json "$1/gen.json" >"$1/gen.out" 2>&1
}

# Stop the receiver (SIGINT); it must have written its run JSON.
rx_stop() {
	bench_stop "$BENCH_RX_PID" INT
	[ -s "$1/rx.json" ]
}

# Received from the receiver's JSON; sent and sending time from the generator's.
rx_count() {
	printf '%s %s %s\n' "$(jq -r .received "$1/rx.json")" \
		"$(jq -r .sent "$1/gen.json")" "$(jq -r .duration_s "$1/gen.json")"
}

# bench_pair's hooks for the tools q1 and q2.
q1_rx_start() { rx_start "$1" 1; }
q2_rx_start() { rx_start "$1" 2; }
q1_rx_ready() { rx_ready "$1"; }
q2_rx_ready() { rx_ready "$1"; }
q1_tx() { gen_tx "$1"; }
q2_tx() { gen_tx "$1"; }
q1_rx_stop() { rx_stop "$1"; }
q2_rx_stop() { rx_stop "$1"; }
q1_count() { rx_count "$1"; }
q2_count() { rx_count "$1"; }

# Append "LOST CPP_JSON SHARE0 SHARE1 ..." of the trial in DIR to
# $BENCH_WORK/TOOL.extra (shares: each queue's part of what was received).
extra_record() {
	local tool=$1 dir=$2
	jq -r '[.lost, (.cycles_per_packet.system // "-")]
		+ [(.queues // [])[] | .share // "-"] | map(tostring) | join(" ")' \
		"$dir/rx.json" >>"$BENCH_WORK/$tool.extra"
}

# Print the last line of TOOL.extra for the progress output.
extra_line() {
	tail -1 "$BENCH_WORK/$1.extra" | awk '{
		s = ""
		for (i = 3; i <= NF; i++)
			s = s (i > 3 ? " + " : "") sprintf("%.0f%%", $i * 100)
		printf "lost %d, run JSON %s cycles/pkt (system)%s\n", $1,
			($2 == "-" ? "-" : sprintf("%.0f", $2)),
			(s == "" ? "" : ", queue shares " s) }'
}

# Print "MEDIAN MIN MAX" of column C of TOOL.extra ("- - -" if none).
extra_col() {
	local f=$BENCH_WORK/$1.extra
	[ -s "$f" ] || { echo "- - -"; return 0; }
	# shellcheck disable=SC2046
	bench_stats $(awk -v c="$2" 'NF >= c && $c != "-" { print $c }' "$f")
}

# Print the extra rows of TOOL (label LABEL): lost, run JSON cycles, shares.
extra_rows() {
	local tool=$1 label=$2
	awk -v l="$label" -v lost="$(extra_col "$tool" 1)" \
		-v cpp="$(extra_col "$tool" 2)" -v s0="$(extra_col "$tool" 3)" \
		-v s1="$(extra_col "$tool" 4)" 'BEGIN {
		split(lost, a, " "); split(cpp, b, " "); split(s0, c, " "); split(s1, d, " ")
		if (a[1] == "-") { printf "%-24s (no successful trials)\n", l; exit }
		printf "%-24s %10.0f  %-19s  %10s  %-15s  %s\n", l, a[1],
			sprintf("  %.0f - %.0f", a[2], a[3]),
			(b[1] == "-" ? "-" : sprintf("%.0f", b[1])),
			(b[1] == "-" ? "" : sprintf("  %.0f - %.0f", b[2], b[3])),
			(c[1] == "-" ? "-" : sprintf("%.0f%%", c[1] * 100) \
				(d[1] == "-" ? "" : sprintf(" + %.0f%%", d[1] * 100)))
	}'
}

# --- the run ---------------------------------------------------------------------

case $RX_PATH in
socket) WHAT="pathlab-rx-socket recvmmsg" ;;
afxdp) WHAT="pathlab-rx-xsk AF_XDP copy" ;;
dpdk) WHAT="pathlab-rx-dpdk net_$VDEV_KIND" ;;
esac
echo "queues.sh: $WHAT, 2 queues vs 1; $SIZE B frames; sender $GEN_THREADS threads x $GEN_FLOWS flows,"
echo "  $TRIALS trials x $SECONDS_PER_TRIAL s each, alternating; 2q on lab $LAB2 (2 queues), 1q on lab $LAB1 ($([ "$Q1_LAB" = one ] && echo "1 queue" || echo "2 queues"))"
BG_BEFORE=$(bench_background 1)
echo "background load before: $BG_BEFORE busy CPUs (1 s, no traffic)"
bench_check_background "$BG_BEFORE"

total=$((2 * TRIALS))
k=0
failed=0
for ((i = 1; i <= TRIALS; i++)); do
	for tool in q2 q1; do
		k=$((k + 1))
		if [ "$tool" = q2 ]; then
			use_lab "$LAB2"
			what="--queues 2, CPUs $FIRST_CPU and $((FIRST_CPU + 1))"
		else
			use_lab "$LAB1"
			what="--queues 1, CPU $FIRST_CPU"
		fi
		echo "trial $k/$total: $tool ($what) ..."
		if bench_pair "$tool" "$BENCH_WORK/trial$k-$tool"; then
			extra_record "$tool" "$BENCH_WORK/trial$k-$tool"
			echo "trial $k/$total: $tool: $(bench_last_line)"
			echo "trial $k/$total: $tool: $(extra_line "$tool")"
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
echo "== $WHAT: 2 receive queues (2q) vs 1 (1q): $SIZE B frames, $TRIALS x $SECONDS_PER_TRIAL s, alternating =="
ghz=$(awk -v h="$BENCH_TSC_HZ" 'BEGIN { printf "%.3f", h / 1e9 }')
cat <<EOF
Where: veth between two network namespaces, in a VM ($BENCH_NCPUS CPUs). Not a NIC:
  the figures describe this setup only and do not transfer to hardware.
Sender: pathlab-gen, $GEN_THREADS threads on CPUs $FIRST_CPU..$((FIRST_CPU + GEN_THREADS - 1)), $GEN_FLOWS flows (source ports),
  XPS: the thread on CPU q sends on TX queue q. Receiver: queue q on CPU $FIRST_CPU + q.
  2q: --queues 2 on the two-queue lab. 1q: --queues 1 on the $([ "$Q1_LAB" = one ] && echo "one-queue lab (all traffic on queue 0)" || echo "same two-queue lab").
On the two-queue lab veth's receive work runs on the SENDER's CPUs (NAPI in
  softirq context): the two sender threads spread it over both CPUs; the
  one-queue lab runs it in a NAPI thread pinned to CPU $FIRST_CPU. Two CPUs are shared by
  the two sender threads, the kernel's work and the receiver's thread(s):
  nothing gets a core of its own, and busy-polling receivers (AF_XDP, DPDK)
  spin a CPU that a sender needs. This machine cannot show scaling with
  cores; it shows where the packets go and what a second queue costs.
Rate: packets the receiver got / the sender's own sending time.
Cycles: TSC-equivalent = system-wide CPU busy time x TSC rate ($ghz GHz),
  from /proc/stat over all CPUs, from the last ${BENCH_POLL_S} s poll before the rx
  link counter rises to ${BENCH_QUIET_POLLS} quiet polls after it stops; it counts
  sender, receiver, kernel and any background load. The run JSON's own
  cycles_per_packet.system (the receiver's run window) is a cross-check.
Lost: what the receiver's sequence accounting found missing (run JSON "lost").
Other load: busy CPUs are checked for ${BENCH_IDLE_CHECK_S} s with no traffic just before and
  just after each trial (the waiting receiver's own CPU time left out: a busy
  poller spins); above ${BENCH_BG_WARN} the trial is marked suspect.
Noise: runs here move 15-25% run to run; trials alternate 2q 1q 2q 1q; a
  difference inside the min-max ranges is no difference.
Background load (no traffic): $BG_BEFORE busy CPUs before, $BG_AFTER after.
EOF
echo
bench_table 2q q2 1q q1
echo
printf '%-24s %10s  %-19s  %10s  %-15s  %s\n' "" lost "  min - max" \
	"cycles/pkt" "  min - max" "queue shares"
printf '%-24s %10s  %-19s  %10s  %-15s  %s\n' "" median "" "run JSON" "" median
extra_rows q2 2q
extra_rows q1 1q
if [ "$BENCH_KEEP" -eq 1 ]; then
	echo "raw files: $BENCH_WORK"
fi
if [ "$failed" -gt 0 ]; then
	echo "queues.sh: $failed trial(s) failed" >&2
	exit 1
fi
