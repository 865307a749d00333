#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma-vm-compare.sh - the verbs rows of `pathlab compare`, run INSIDE the
# rdma-vm guest so that one boot serves every mode, size and workload:
#
#   labs/rdma-vm run --share OUT --share BUILD -- \
#     bash labs/lib/rdma-vm-compare.sh --build BUILD --out OUT/raw \
#       [--modes ud,rc,rc_write_imm] [--sizes 64,1024] \
#       [--counts T,L,V] [--rates 0,10000,20000] [--gpu none|sim|cuda]
#
# For each run it writes OUT/raw/verbs-MODE-SIZE-WORKLOAD.{rx,gen,run}.json
# like compare's other paths: the receiver's JSON, the sender's summary
# (pathlab-tx-verbs, merged like pathlab-gen's) and the merged run. In the
# visibility workload tcpdump on the receiving veth counts the RoCE v2 data
# packets (UDP port 4791, end markers excluded) that crossed it. UD at a
# size whose message does not fit one packet is skipped, with a note.
# With --gpu sim|cuda each run is repeated with the receiver's GPU variant,
# as OUT/raw/verbs-MODE-SIZE-WORKLOAD-gpu-KIND.*; a receiver that refuses
# (exit 77: cuda on rxe, which copies with the CPU) is skipped, with a note.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$REPO/build
OUT=
MODES=ud,rc,rc_write_imm
SIZES=64,1024
COUNTS=200000,20000,5000
RATES=0,10000,20000
GPU=none
WORKLOADS=(throughput latency visibility)
FAILED=0

while [ $# -gt 0 ]; do
	case $1 in
	--build) BUILD=$2 ;;
	--out) OUT=$2 ;;
	--modes) MODES=$2 ;;
	--sizes) SIZES=$2 ;;
	--counts) COUNTS=$2 ;;
	--rates) RATES=$2 ;;
	--gpu) GPU=$2 ;;
	*) echo "rdma-vm-compare: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
[ -n "$OUT" ] || { echo "rdma-vm-compare: --out is required" >&2; exit 2; }
[ -n "${PL_VM_RX_DEV:-}" ] || { echo "rdma-vm-compare: run me inside labs/rdma-vm" >&2; exit 99; }
mkdir -p "$OUT"
RX=$BUILD/rdma/pathlab-rx-verbs
TX=$BUILD/rdma/pathlab-tx-verbs
IFS=, read -r -a counts <<<"$COUNTS"
IFS=, read -r -a rates <<<"$RATES"
ENV_LABEL=$PL_VM_ENV

# Print the tcpdump filter for MODE's data packets: RoCE v2 from the
# sender, not to QP 1 (connection management), and the pathlab flags byte
# (2 bytes into the payload) without the end-marker bit. The BTH (12
# bytes after the UDP header) has the destination QP in its last 3 bytes
# of the second word; the payload follows it and, for UD, a DETH (8); for
# WRITE with immediate, a RETH (16) and the immediate (4).
vis_filter() {
	local off
	case $1 in
	ud) off=30 ;;
	rc) off=22 ;;
	rc_write_imm) off=42 ;;
	esac
	echo "udp dst port 4791 and src host $PL_VM_TX_ADDR and (udp[12:4] & 0xffffff) != 1 and udp[$off] & 0x20 = 0"
}

# Start tcpdump on the receiving link; set TD_PID once it listens.
td_start() {
	local err=$1 mode=$2 n
	tcpdump -i "$PL_VM_RX_IF" -n -p --immediate-mode -w /dev/null \
		"$(vis_filter "$mode")" </dev/null >/dev/null 2>"$err" &
	TD_PID=$!
	for n in $(seq 100); do
		grep -q 'listening on' "$err" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# Stop tcpdump; print "CAPTURED DROPPED".
td_stop() {
	local pid=$1 err=$2
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' "$err" | head -n 1) \
$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' "$err" | head -n 1)"
}

# One run of MODE at frame SIZE with workload WL (count N, rate R), with
# the receiver's GPU variant KIND unless it is none.
one_run() {
	local mode=$1 size=$2 wl=$3 n=$4 rate=$5 gpu=$6 base rx_pid rc seen=null drop=null
	local tx_args=()
	base=$OUT/verbs-$mode-$size-$wl
	[ "$gpu" = none ] || base=$base-gpu-$gpu
	rm -f "$base".*
	if [ "$mode" = ud ] && [ $((size - 46)) -gt 1024 ]; then
		echo "UD messages must fit one packet: $((size - 46)) B > the 1024-byte path MTU" >"$base.skipped"
		echo "skipped (UD message larger than the path MTU)"
		return 0
	fi
	[ "$wl" != visibility ] || td_start "$base.tcpdump.err" "$mode" ||
		{ echo "FAILED (tcpdump)"; return 1; }
	timeout $((60 + n / 2000)) "$RX" --mode "$mode" --device "$PL_VM_RX_DEV" \
		--count "$n" --idle-timeout 1000 --timeout 30000 --workload "$wl" \
		--cpu 1 --env "$ENV_LABEL" --ready "$base.ready" --gpu "$gpu" \
		--json "$base.rx.json" --quiet >"$base.rx.out" 2>"$base.rx.err" &
	rx_pid=$!
	for rc in $(seq 200); do
		[ -e "$base.ready" ] || ! kill -0 $rx_pid 2>/dev/null && break
		sleep 0.05
	done
	if [ ! -e "$base.ready" ] && ! kill -0 $rx_pid 2>/dev/null; then
		wait $rx_pid
		rc=$?
		if [ -n "${TD_PID:-}" ]; then
			td_stop "$TD_PID" "$base.tcpdump.err" >/dev/null
			TD_PID=
		fi
		if [ $rc = 77 ]; then
			tail -n 1 "$base.rx.err" >"$base.skipped"
			echo "skipped: $(cat "$base.skipped")"
			return 0
		fi
		echo "FAILED (receiver exit $rc)"
		tail -n 3 "$base.rx.err" | sed 's/^/    /'
		return 1
	fi
	tx_args=(--mode "$mode" --device "$PL_VM_TX_DEV" --dst "$PL_VM_RX_ADDR"
		--size "$size" --count "$n" --cpu 0 --json "$base.gen.json" --quiet)
	[ "$rate" = 0 ] || tx_args+=(--rate "$rate")
	timeout $((60 + n / 2000)) "$TX" "${tx_args[@]}" >"$base.gen.out" 2>"$base.gen.err"
	rc=$?
	wait $rx_pid || rc=$((rc + 100))
	if [ -n "${TD_PID:-}" ] && [ "$wl" = visibility ]; then
		read -r seen drop < <(td_stop "$TD_PID" "$base.tcpdump.err")
		TD_PID=
	fi
	if [ $rc != 0 ] || ! jq -e . "$base.rx.json" "$base.gen.json" >/dev/null 2>&1; then
		echo "FAILED (exit $rc)"
		tail -n 3 "$base.rx.err" "$base.gen.err" | sed 's/^/    /'
		return 1
	fi
	jq -n --slurpfile rx "$base.rx.json" --slurpfile gen "$base.gen.json" \
		--argjson tcpdump "${seen:-null}" --argjson tcpdump_dropped "${drop:-null}" \
		-f "$REPO/labs/lib/merge.jq" >"$base.run.json"
	jq -r '"\(.pps / 100 | round / 10) kpps, received \(.received)/\(.sent), lost \(.lost), unattributed \(.unattributed)"
		+ (if .workload == "latency" then ", p50 \(.latency_ns.p50 / 100 | round / 10) us one-way" else "" end)
		+ (if .workload == "visibility" then ", tcpdump saw \(.tcpdump_seen)" else "" end)' "$base.run.json"
}

IFS=, read -r -a modes <<<"$MODES"
IFS=, read -r -a sizes <<<"$SIZES"
gpus=(none)
[ "$GPU" = none ] || gpus+=("$GPU")
for mode in "${modes[@]}"; do
	for size in "${sizes[@]}"; do
		for i in 0 1 2; do
			for gpu in "${gpus[@]}"; do
				printf 'verbs %s %s B %s%s ... ' "$mode" "$size" \
					"${WORKLOADS[$i]}" "$([ "$gpu" = none ] || echo " +gpu $gpu")"
				one_run "$mode" "$size" "${WORKLOADS[$i]}" "${counts[$i]}" \
					"${rates[$i]}" "$gpu" || FAILED=$((FAILED + 1))
			done
		done
	done
done
[ $FAILED = 0 ] || echo "rdma-vm-compare: $FAILED runs failed (raw files in $OUT)"
[ $FAILED = 0 ]
