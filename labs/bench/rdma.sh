#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma.sh - the verbs path against perftest on the same Soft-RoCE devices,
# in one boot of the rdma VM (labs/rdma-vm), trials alternating A B A B.
#
#   labs/bench/rdma.sh [--trials N] [--count N] [--size BYTES]
#
# Message rate, UD SEND: perftest's ib_send_bw -c UD (the receiving side's
# MsgRate; once as it comes, once posting 32 sends per call as we do)
# against pathlab-tx-verbs -> pathlab-rx-verbs --mode ud (the
# receiver's rate, first to last message), COUNT messages as fast as the
# sender goes. Latency: ib_send_lat (RC and UD) reports HALF THE ROUND TRIP
# of a ping-pong (t_typical, its median); ours is ONE-WAY, the sender's
# CLOCK_MONOTONIC stamp to the receiver's CQ poll, paced at 1000 messages a
# second. The two are different measurements of different things; the
# table labels each. Last, our receiver busy-polling the CQ against sleeping
# on its completion channel, each mode, 5000 messages a second: receiver
# CPU time per message (schedstat), wake-ups and system calls per message. Everything here is Soft-RoCE in a VM: software RDMA,
# emulated CPUs (qemu TCG); these numbers say nothing about an RDMA NIC.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-${PATHLAB_BUILD:-$REPO/build}}
TRIALS=3
COUNT=100000
SIZE=64
GUEST=0

while [ $# -gt 0 ]; do
	case $1 in
	--trials) TRIALS=$2; shift 2 ;;
	--count) COUNT=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--in-guest) GUEST=1; shift ;;
	-h | --help) sed -n '3,20p' "$0"; exit 0 ;;
	*) echo "rdma.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
PAYLOAD=$((SIZE - 46))
if [ "$PAYLOAD" -lt 18 ] || [ "$PAYLOAD" -gt 1024 ]; then
	echo "rdma.sh: --size 64..1070 (the UD message must fit one packet)" >&2
	exit 2
fi

if [ $GUEST = 0 ]; then
	BUILD=$(cd "$BUILD" && pwd)
	[ -x "$BUILD/rdma/pathlab-rx-verbs" ] ||
		{ echo "rdma.sh: $BUILD/rdma/pathlab-rx-verbs is not built" >&2; exit 1; }
	exec "$REPO/labs/rdma-vm" run --timeout 900 --share "$BUILD" -- \
		env MESON_BUILD_ROOT="$BUILD" bash "$0" --in-guest \
		--trials "$TRIALS" --count "$COUNT" --size "$SIZE"
fi

RX=$BUILD/rdma/pathlab-rx-verbs
TX=$BUILD/rdma/pathlab-tx-verbs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
RXD=$PL_VM_RX_DEV
TXD=$PL_VM_TX_DEV
DST=$PL_VM_RX_ADDR

# perftest TOOL ARGS...: server on the receiving device, client on the
# sending one; prints the server's result line.
perftest() {
	local tool=$1 pid
	shift
	timeout 120 taskset -c 1 "$tool" -d "$RXD" -x 1 "$@" >"$T/srv" 2>&1 &
	pid=$!
	sleep 1
	timeout 120 taskset -c 0 "$tool" -d "$TXD" -x 1 "$@" "$DST" >"$T/cli" 2>&1
	wait $pid
	awk '$1 ~ /^[0-9]+$/ && NF >= 5 { line = $0 } END { print line }' "$T/srv"
}

# ours "RX ARGS" "TX ARGS": one run; prints the receiver's JSON file.
ours() {
	local pid
	rm -f "$T/ready"
	# shellcheck disable=SC2086
	timeout 120 "$RX" $1 --device "$RXD" --cpu 1 --idle-timeout 2000 \
		--env "$PL_VM_ENV" --ready "$T/ready" --json "$T/rx.json" --quiet &
	pid=$!
	while [ ! -e "$T/ready" ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
	# shellcheck disable=SC2086
	timeout 120 "$TX" $2 --device "$TXD" --dst "$DST" --cpu 0 --quiet \
		--json "$T/tx.json"
	wait $pid
	echo "$T/rx.json"
}

# Median, min and max of the numbers on stdin, with a unit.
stats() {
	sort -g | awk -v u="$1" '{ v[NR] = $1 } END {
		if (!NR) { print "n/a"; exit }
		printf "median %.1f %s  (min %.1f, max %.1f, %d trials)", \
			(NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), u, v[1], v[NR], NR }'
}

echo "Soft-RoCE in a VM: software RDMA. $TXD ($PL_VM_TX_IF) -> $RXD ($PL_VM_RX_IF), qemu TCG, $(nproc) vCPUs"
echo "message rate, UD SEND, $PAYLOAD-byte messages ($SIZE-byte frame equivalent), $COUNT messages per trial"
: >"$T/pt_rate"
: >"$T/pt_rate_l"
: >"$T/our_rate"
: >"$T/our_loss"
for _ in $(seq "$TRIALS"); do
	perftest ib_send_bw -c UD -s "$PAYLOAD" -n "$COUNT" |
		awk '{ print $5 * 1000 }' >>"$T/pt_rate"
	perftest ib_send_bw -c UD -s "$PAYLOAD" -n "$COUNT" -l 32 |
		awk '{ print $5 * 1000 }' >>"$T/pt_rate_l"
	f=$(ours "--mode ud --count 0" "--mode ud --count $COUNT --payload $PAYLOAD")
	jq '.pps / 1000' "$f" >>"$T/our_rate"
	jq '.lost' "$f" >>"$T/our_loss"
done
printf '  %-52s %s\n' "perftest ib_send_bw -c UD (receiver's MsgRate)" \
	"$(stats kpps <"$T/pt_rate")"
printf '  %-52s %s\n' "  the same, -l 32: 32 sends per ibv_post_send" \
	"$(stats kpps <"$T/pt_rate_l")"
printf '  %-52s %s\n' "pathlab-rx-verbs --mode ud, busy poll (rx rate)" \
	"$(stats kpps <"$T/our_rate")"
printf '  %-52s %s\n' "  its UD losses (receive queue empty)" \
	"$(stats messages <"$T/our_loss")"

echo "latency, $PAYLOAD-byte messages"
for c in RC UD; do
	m=${c,,}
	: >"$T/pt_lat"
	: >"$T/pt_p99"
	: >"$T/our_lat"
	: >"$T/our_p99"
	for _ in $(seq "$TRIALS"); do
		perftest ib_send_lat -c "$c" -s "$PAYLOAD" -n 5000 >"$T/line"
		awk '{ print $5 }' "$T/line" >>"$T/pt_lat"
		awk '{ print $8 }' "$T/line" >>"$T/pt_p99"
		f=$(ours "--mode $m --count 0" "--mode $m --count 3000 --rate 1000 --payload $PAYLOAD")
		jq '.latency_ns.p50 / 1000' "$f" >>"$T/our_lat"
		jq '.latency_ns.p99 / 1000' "$f" >>"$T/our_p99"
	done
	printf '  %-52s %s\n' "perftest ib_send_lat -c $c: RTT/2 (ping-pong), typical" \
		"$(stats us <"$T/pt_lat")"
	printf '  %-52s %s\n' "  its 99th percentile (RTT/2)" "$(stats us <"$T/pt_p99")"
	printf '  %-52s %s\n' "pathlab $m, poll: one-way, p50 (1000 msg/s)" \
		"$(stats us <"$T/our_lat")"
	printf '  %-52s %s\n' "  its 99th percentile (one-way)" "$(stats us <"$T/our_p99")"
done

echo "CQ: busy poll against completion events, 10000 messages at 5000/s"
printf '  %-24s %-26s %-14s %-12s %s\n' "mode / cq" "receiver CPU per message" \
	"wakeups/msg" "syscalls/msg" "one-way p50"
for m in ud rc rc_write_imm; do
	for cq in poll event; do
		: >"$T/cpu_$cq"
		: >"$T/wk_$cq"
		: >"$T/sc_$cq"
		: >"$T/p50_$cq"
	done
	for _ in $(seq "$TRIALS"); do
		for cq in poll event; do
			f=$(ours "--mode $m --cq $cq --count 0" "--mode $m --count 10000 --rate 5000 --payload $PAYLOAD")
			jq '.cpu.rx_run_s / .received * 1e6' "$f" >>"$T/cpu_$cq"
			jq '.wakeups_per_packet' "$f" >>"$T/wk_$cq"
			jq '.syscalls_per_packet' "$f" >>"$T/sc_$cq"
			jq '.latency_ns.p50 / 1000' "$f" >>"$T/p50_$cq"
		done
	done
	for cq in poll event; do
		printf '  %-24s %-26s %-14s %-12s %s\n' "$m / $cq" \
			"$(sort -g "$T/cpu_$cq" | awk '{ v[NR] = $1 } END { printf "%.1f us", v[int((NR + 1) / 2)] }')" \
			"$(sort -g "$T/wk_$cq" | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }')" \
			"$(sort -g "$T/sc_$cq" | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }')" \
			"$(sort -g "$T/p50_$cq" | awk '{ v[NR] = $1 } END { printf "%.1f us", v[int((NR + 1) / 2)] }')"
	done
done
echo "(medians of $TRIALS trials; CPU per message = the receiver's time on a CPU over the run / messages)"
