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
# sender goes. Latency, both as round trips of a ping-pong with both sides
# busy-polling, one message in flight, the same payload, the same vCPUs,
# 5000 measured round trips a trial: ib_send_lat (RC and UD), which prints
# HALF THE ROUND TRIP (t_typical, its median), against pathlab-tx-verbs
# --pingpong -> pathlab-rx-verbs --reflect, which measures the WHOLE round
# trip on the sender's clock (p50); the table shows ours whole and halved,
# and (ours / 2) / ib_send_lat, paired trial by trial. Then, a different
# thing compared with neither: our ONE-WAY latency, the sender's
# CLOCK_MONOTONIC stamp to the receiver's CQ poll, paced at 1000 messages
# a second. Last, our receiver busy-polling the CQ against sleeping on its
# completion channel, each mode, 5000 messages a second: receiver CPU time
# per message (schedstat), wake-ups and system calls per message.
# Everything here is Soft-RoCE in a VM: software RDMA, emulated CPUs (qemu
# TCG); these numbers say nothing about an RDMA NIC.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-${PATHLAB_BUILD:-$REPO/build}}
TRIALS=3
COUNT=100000
SIZE=64
GUEST=0
LAT_N=5000      # round trips measured per latency trial, each tool
LAT_WARMUP=100  # our ping-pong's unmeasured first pings

while [ $# -gt 0 ]; do
	case $1 in
	--trials) TRIALS=$2; shift 2 ;;
	--count) COUNT=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--in-guest) GUEST=1; shift ;;
	-h | --help) sed -n '3,25p' "$0"; exit 0 ;;
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
	rm -f "$T/ready" "$T/rx.json" "$T/tx.json"
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

# round_trips MODE: one ping-pong, MODE rc or ud: the receiver reflects
# each ping, the sender times LAT_N round trips after LAT_WARMUP. Prints
# the sender's JSON file, or says on stderr why it has no round trips.
round_trips() {
	local f=$T/tx.json lost
	ours "--mode $1 --reflect --workload rtt --count 0" \
		"--mode $1 --pingpong --count $((LAT_N + LAT_WARMUP)) --warmup $LAT_WARMUP --reply-timeout 2000 --payload $PAYLOAD" >/dev/null
	if ! jq -e '.rtt.kind == "round_trip" and .rtt.samples > 0' "$f" >/dev/null 2>&1; then
		echo "rdma.sh: $1 ping-pong: the sender wrote no round trips ($f: $(head -c 200 "$f" 2>/dev/null || echo missing))" >&2
		return 1
	fi
	lost=$(jq '.rtt.timeouts' "$f")
	[ "$lost" = 0 ] ||
		echo "rdma.sh: $1 ping-pong: $lost of $LAT_N pings unanswered within 2 s (not in the percentiles)" >&2
	echo "$f"
}

# brief DIGITS FILE: "median (min-max)" of the numbers in FILE, one a
# line, with DIGITS decimals: a cell of the round-trip table.
brief() {
	sort -g "$2" | awk -v d="$1" '{ v[NR] = $1 } END {
		if (!NR) { printf "n/a"; exit }
		f = "%." d "f (%." d "f-%." d "f)"
		printf f, (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'
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

echo "latency: round trips of a ping-pong, both sides busy-polling, one message in flight, $PAYLOAD-byte messages,"
echo "  $LAT_N measured per trial (ours after $LAT_WARMUP unmeasured warm-up pings), ib_send_lat and ours alternating"
echo "  and, separately, our ONE-WAY latency, 3000 messages paced at 1000/s"
for c in RC UD; do
	m=${c,,}
	for v in pt pt99 rtt rtt99 half half99 ratio ratio99 ow ow99; do
		: >"$T/${m}_$v"
	done
	for _ in $(seq "$TRIALS"); do
		perftest ib_send_lat -c "$c" -s "$PAYLOAD" -n "$LAT_N" >"$T/line"
		pt=$(awk 'NF { print $5 }' "$T/line")
		pt99=$(awk 'NF { print $8 }' "$T/line")
		[ -n "$pt" ] || echo "rdma.sh: ib_send_lat -c $c gave no result line; its server said: $(tail -n 3 "$T/srv")" >&2
		[ -z "$pt" ] || echo "$pt" >>"$T/${m}_pt"
		[ -z "$pt99" ] || echo "$pt99" >>"$T/${m}_pt99"
		if f=$(round_trips "$m"); then
			# ours whole, halved, and halved over this trial's ib_send_lat
			read -r p50 p99 < <(jq -r '.rtt | "\(.p50_ns / 1e3) \(.p99_ns / 1e3)"' "$f")
			echo "$p50" >>"$T/${m}_rtt"
			echo "$p99" >>"$T/${m}_rtt99"
			awk -v x="$p50" 'BEGIN { print x / 2 }' >>"$T/${m}_half"
			awk -v x="$p99" 'BEGIN { print x / 2 }' >>"$T/${m}_half99"
			[ -z "$pt" ] || awk -v x="$p50" -v y="$pt" 'BEGIN { print x / 2 / y }' >>"$T/${m}_ratio"
			[ -z "$pt99" ] || awk -v x="$p99" -v y="$pt99" 'BEGIN { print x / 2 / y }' >>"$T/${m}_ratio99"
		fi
		f=$(ours "--mode $m --count 0" "--mode $m --count 3000 --rate 1000 --payload $PAYLOAD")
		jq '.latency_ns.p50 / 1000' "$f" >>"$T/${m}_ow"
		jq '.latency_ns.p99 / 1000' "$f" >>"$T/${m}_ow99"
	done
done
echo "  round trip, us: median (min-max) of $TRIALS trials"
printf '  %-14s %-26s %-26s %-22s %s\n' "" "ib_send_lat: HALF the" "pathlab --pingpong:" "pathlab round trip" "(pathlab / 2) /"
printf '  %-14s %-26s %-26s %-22s %s\n' "" "round trip, as printed" "WHOLE round trip" "HALVED (/ 2)" "ib_send_lat, per trial"
for m in rc ud; do
	printf '  %-14s %-26s %-26s %-22s %s\n' "${m^^} p50" "$(brief 1 "$T/${m}_pt") typical" \
		"$(brief 1 "$T/${m}_rtt")" "$(brief 1 "$T/${m}_half")" "$(brief 2 "$T/${m}_ratio")"
	printf '  %-14s %-26s %-26s %-22s %s\n' "${m^^} p99" "$(brief 1 "$T/${m}_pt99")" \
		"$(brief 1 "$T/${m}_rtt99")" "$(brief 1 "$T/${m}_half99")" "$(brief 2 "$T/${m}_ratio99")"
done
echo "  ONE-WAY (not a round trip: compare it with neither column above): sender's stamp to receiver's CQ poll"
for m in rc ud; do
	printf '  %-52s %s\n' "pathlab $m, poll: ONE-WAY, p50 (1000 msg/s)" "$(stats us <"$T/${m}_ow")"
	printf '  %-52s %s\n' "  its 99th percentile (ONE-WAY)" "$(stats us <"$T/${m}_ow99")"
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
