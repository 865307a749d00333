#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma-vm-compare.sh - the verbs rows of `pathlab compare`: the one place
# that runs them, either INSIDE the rdma-vm guest, so that one boot serves
# every mode, size and workload:
#
#   labs/rdma-vm run --share OUT --share BUILD -- \
#     bash labs/lib/rdma-vm-compare.sh --build BUILD --out OUT/raw \
#       [--modes ud,rc,rc_write_imm] [--sizes 64,1024] \
#       [--counts T,L,V,R] [--rates 0,10000,20000,0] [--gpu none|sim|cuda]
#       [--workloads throughput,latency,visibility,rtt] [--queues N]
#
# or, with --direct, on this machine's own RDMA devices (a NIC, or rxe):
#
#   bash labs/lib/rdma-vm-compare.sh --direct [--cpus RX,TX] --out OUT/raw ...
#
# or, with --peer IF, on two hosts (labs/plab/sender.py: compare --iface IF
# --sender ...): the receiver here on the RDMA device and port whose RoCE
# v2 GID holds IF's IPv4 address, the sender on the other machine, its
# command line handed to a transport (--tx-via: "ssh ... HOST" or "ip netns
# exec NAME sh -c", which take the line as their last argument) or printed
# for a person to run there (--tx-print SECS: how long to wait for it):
#
#   bash labs/lib/rdma-vm-compare.sh --peer IF --tx-via PREFIX
#     [--tx-bin PATH] [--sender-label TEXT] [--cpus RX,[TX]] --out OUT/raw ...
#
# In the guest the devices come from labs/rdma-vm (PL_VM_*: rxe1 on pl-rx
# receives, rxe0 on pl-tx sends; env vm-softroce). --direct skips all of
# that and picks the endpoints as labs/lib/verbs-host.sh says: one port
# for both ends (the NIC loops the traffic back) or receiver and sender on
# two ports, each with its RoCE v2 IPv4 GID; env nic, nic-loopback,
# softroce or softroce-rxe-loopback. --peer: env nic (or softroce for
# rxe/siw); the sender picks its own device there (its first RoCE v2 IPv4
# GID), named in the note once its JSON is back. Every run gets an
# env_note naming the devices.
#
# For each run it writes OUT/raw/verbs-MODE-SIZE-WORKLOAD.{rx,gen,merge}.json
# like compare's other paths: the receiver's JSON, the sender's summary
# (pathlab-tx-verbs, merged like pathlab-gen's) and what the merge needs
# from here (tcpdump's counts, the env note); compare merges them into the
# run on the host (no Python started in the guest per run). In the
# visibility workload tcpdump on the receiving veth counts the RoCE v2 data
# packets (UDP port 4791, end markers excluded) that crossed it. UD at a
# size whose message does not fit one packet is skipped, with a note.
# With --gpu sim|cuda each run is repeated with the receiver's GPU variant,
# as OUT/raw/verbs-MODE-SIZE-WORKLOAD-gpu-KIND.*; a receiver that refuses
# (exit 77: cuda on rxe, which copies with the CPU) is skipped, with a note.
# The rtt workload: the receiver reflects (--reflect), the sender times
# whole round trips (--pingpong); rc_write_imm has no reflect mode and the
# GPU variants do not reflect: skipped. --queues N: N QPs on each end, one
# CQ and thread each, and 4 flows per QP from the sender; round trips
# alternate between the QPs, and where the receiver's N busy pollers and
# the sender's do not each get a CPU of their own (the VM's 2 vCPUs), the
# receiver sleeps on its CQs' events (--cq event), which the run's note
# says.
# --plan FILE (what pathlab compare gives): the runs in that order, one a
# line, "REF MODE SIZE WORKLOAD GPU TRIAL" (REF "-" for ours; a trial
# after the first adds -tTRIAL to the file names). REF ib_send_bw or
# ib_send_lat runs perftest on the same devices and cores: the server's
# result line stays in ib_*-verbs-MODE-SIZE-WORKLOAD[-tN].srv, which
# compare reads. Every run prints one line as it ends; a failed one leaves
# its reason in BASE.error too: each end's exit status (a timeout named as
# one), what its JSON says it did, and the last lines of its stderr.
# shellcheck source-path=SCRIPTDIR
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$REPO/build
OUT=
MODES=ud,rc,rc_write_imm
SIZES=64,1024
COUNTS=200000,20000,5000,10000
RATES=0,10000,20000,0
QUEUES=1
WORKLOAD_LIST=throughput,latency,visibility,rtt
GPU=none
DIRECT=0
PEER=""
TX_VIA=""
TX_PRINT=""
TX_BIN=""
SENDER_LABEL="the sender"
CPUS=1,0
WORKLOADS=(throughput latency visibility rtt) # the order of COUNTS, RATES
FAILED=0
IN_VM=0
PLAN=""

while [ $# -gt 0 ]; do
	case $1 in
	--direct) DIRECT=1; shift; continue ;;
	--*) [ $# -ge 2 ] || { echo "rdma-vm-compare: $1 needs a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--cpus) CPUS=$2 ;;
	--peer) PEER=$2 ;;
	--tx-via) TX_VIA=$2 ;;
	--tx-print) TX_PRINT=$2 ;;
	--tx-bin) TX_BIN=$2 ;;
	--sender-label) SENDER_LABEL=$2 ;;
	--build) BUILD=$2 ;;
	--out) OUT=$2 ;;
	--modes) MODES=$2 ;;
	--sizes) SIZES=$2 ;;
	--counts) COUNTS=$2 ;;
	--rates) RATES=$2 ;;
	--gpu) GPU=$2 ;;
	--queues) QUEUES=$2 ;;
	--workloads) WORKLOAD_LIST=$2 ;;
	--plan) PLAN=$2 ;;
	*) echo "rdma-vm-compare: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
[ -n "$OUT" ] || { echo "rdma-vm-compare: --out is required" >&2; exit 2; }
[[ $CPUS =~ ^[0-9]+,[0-9]*$ ]] || { echo "rdma-vm-compare: --cpus '$CPUS': RX,TX (CPU numbers; TX may be empty)" >&2; exit 2; }
if [ -n "$PEER" ]; then
	[ "$DIRECT" = 0 ] || { echo "rdma-vm-compare: --peer or --direct" >&2; exit 2; }
	[ -n "$TX_VIA" ] || [[ $TX_PRINT =~ ^[1-9][0-9]*$ ]] ||
		{ echo "rdma-vm-compare: --peer needs --tx-via PREFIX or --tx-print SECS" >&2; exit 2; }
elif [ -n "$TX_VIA$TX_PRINT$TX_BIN" ]; then
	echo "rdma-vm-compare: --tx-via, --tx-print and --tx-bin are for --peer" >&2
	exit 2
fi
RX=$BUILD/rdma/pathlab-rx-verbs
TX=${TX_BIN:-$BUILD/rdma/pathlab-tx-verbs}
# The transport's words (validated by compare: none holds a blank).
read -r -a VIA <<<"$TX_VIA"

# Print ARG quoted for a POSIX shell (as it is when it needs no quotes),
# as compare quotes the generator's command line for the sender.
hosts_q() {
	local s=$1
	if [[ $s =~ ^[A-Za-z0-9_./:=,@+%-]+$ ]]; then
		printf '%s' "$s"
	else
		printf "'%s'" "${s//\'/\'\\\'\'}"
	fi
}
IFS=, read -r -a counts <<<"$COUNTS"
IFS=, read -r -a rates <<<"$RATES"
IFS=, read -r RX_CPU TX_CPU <<<"$CPUS"

# Set the two ends (RX_* and TX_*: device, port, GID index or empty for
# the binaries' own choice, IPv4 address, network device), ENV_LABEL and
# ENV_NOTE from the guest's PL_VM_* variables.
# shellcheck disable=SC2153 # PL_VM_* come from rdma-vm-guest.sh
ends_vm() {
	[ -n "${PL_VM_RX_DEV:-}" ] || {
		echo "rdma-vm-compare: run me inside labs/rdma-vm, or with --direct" >&2
		exit 99
	}
	RX_DEV=$PL_VM_RX_DEV RX_PORT=1 RX_GID="" RX_ADDR=$PL_VM_RX_ADDR RX_IF=$PL_VM_RX_IF
	TX_DEV=$PL_VM_TX_DEV TX_PORT=1 TX_GID="" TX_ADDR=$PL_VM_TX_ADDR
	ENV_LABEL=$PL_VM_ENV
	ENV_NOTE="Soft-RoCE in a VM: software RDMA (rdma_rxe in a qemu guest under ${PL_VM_ACCEL:-tcg}, $PL_VM_CPUS vCPUs), receiver on $RX_DEV ($RX_IF, $RX_ADDR), sender on $TX_DEV ($PL_VM_TX_IF, $TX_ADDR)"
	IN_VM=1
}

# How the VM runs, once for every run of this boot (compare reads it
# into each verbs run's vm object): OUT/verbs-vm.json.
vm_json() {
	jq -n --arg accel "${PL_VM_ACCEL:-tcg}" --argjson cpus "$PL_VM_CPUS" \
		--arg kernel "$PL_VM_KERNEL" \
		'{accel: $accel, cpus: $cpus, kernel: $kernel}' >"$OUT/verbs-vm.json"
}

# Print "KSOFTIRQD_NS SOFTIRQ_TICKS" of the receive CPU: its ksoftirqd
# thread's run time (schedstat, exact) and /proc/stat's softirq column
# (USER_HZ ticks). The receiver's kernel share is the receive link's NAPI
# thread (common/napi.c finds it by name on this guest kernel): rxe's
# receive work runs from the UDP receive in that thread, and the tasklets
# it defers (6.1: responder, completer) run at that thread's
# local_bh_enable, in its run time (the guest has no
# IRQ_TIME_ACCOUNTING, so softirq time is part of the task it
# interrupted). What the kernel pushes out to ksoftirqd is not: these two
# say how much that was, beside the run.
rx_cpu_sample() {
	local d comm ns=0 ticks
	for d in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$d/comm" || continue
		[ "$comm" = "ksoftirqd/$RX_CPU" ] || continue
		read -r ns _ <"$d/schedstat" || ns=0
		break
	done
	ticks=$(awk -v c="cpu$RX_CPU" '$1 == c { print $8 }' /proc/stat)
	echo "$ns ${ticks:-0}"
}

# The same from this machine's own devices (labs/lib/verbs-host.sh).
ends_direct() {
	local f rc=0
	# shellcheck source=verbs-host.sh
	. "$REPO/labs/lib/verbs-host.sh"
	vh_scan
	vh_select || rc=$?
	if [ $rc != 0 ]; then
		[ $rc = 2 ] || echo "rdma-vm-compare: --direct: no RDMA device to run on ($(vh_looked))" >&2
		exit 2
	fi
	read -r -a f <<<"$VH_RX"
	RX_DEV=${f[0]} RX_PORT=${f[1]} RX_GID=${f[2]} RX_ADDR=${f[3]} RX_IF=${f[4]}
	read -r -a f <<<"$VH_TX"
	TX_DEV=${f[0]} TX_PORT=${f[1]} TX_GID=${f[2]} TX_ADDR=${f[3]}
	ENV_LABEL=$(vh_env_label)
	ENV_NOTE=$(vh_env_note)
}

# The same for two hosts: the receiver on the port whose RoCE v2 GID holds
# IF's IPv4 address; the sender's device is the other host's choice.
ends_peer() {
	local f addr
	# shellcheck source=verbs-host.sh
	. "$REPO/labs/lib/verbs-host.sh"
	addr=$(ip -j -4 addr show dev "$PEER" 2>/dev/null |
		jq -r '[.[0].addr_info[]? | select(.family == "inet") | .local][0] // empty')
	if ! vh_netdev_end "$PEER" "$addr"; then
		echo "rdma-vm-compare: --peer $PEER: no RDMA device to receive on ($(vh_looked))" >&2
		exit 2
	fi
	read -r -a f <<<"$VH_RX"
	RX_DEV=${f[0]} RX_PORT=${f[1]} RX_GID=${f[2]} RX_ADDR=${f[3]} RX_IF=${f[4]}
	TX_DEV="" TX_PORT="" TX_GID="" TX_ADDR=""
	ENV_LABEL=nic
	[ "${f[5]}" = nic ] || ENV_LABEL=softroce
	ENV_NOTE="two hosts: receiver here on $RX_DEV:$RX_PORT (GID $RX_GID, $RX_ADDR, $RX_IF), sender on $SENDER_LABEL"
}

# Run the sender: here (TX_ARGS, its JSON into BASE.gen.json), or on the
# other host through the transport (its JSON back on stdout), or printed
# for a person to run there, waiting for the receiver (PID) to end. SECS
# bounds it. Returns the sender's exit status.
run_tx() {
	local base=$1 secs=$2 rx_pid=$3 a cmd="" rc=0 t
	shift 3
	if [ -z "$PEER" ]; then
		timeout -k 15 "$secs" "$TX" "$@" --json "$base.gen.json" --quiet \
			>"$base.gen.out" 2>"$base.gen.err"
		return
	fi
	for a in "$TX" "$@"; do cmd+="${cmd:+ }$(hosts_q "$a")"; done
	if [ -n "$TX_PRINT" ]; then
		echo "$cmd" >"$base.gen.cmd"
		printf '\nrdma-vm-compare: run this on the sender now (waiting up to %s s):\nsender$ %s\n' \
			"$TX_PRINT" "$cmd" >&2
		for ((t = 0; t < TX_PRINT * 10; t++)); do
			kill -0 "$rx_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$rx_pid" 2>/dev/null && return 1
		jq -n --arg cmd "$cmd" '{tool: "pathlab-tx-verbs", printed_command: $cmd}' >"$base.gen.json"
		return 0
	fi
	cmd+=" --json - --quiet"
	echo "$cmd" >"$base.gen.cmd"
	timeout -k 5 "$secs" "${VIA[@]}" "$cmd" </dev/null >"$base.gen.json" 2>"$base.gen.err" || rc=$?
	return $rc
}

# Print the active MTU of DEV's PORT in bytes (what one UD message may
# carry); 1024, what rxe has on a 1500-byte link, when unknown.
path_mtu() {
	local m
	m=$(ibv_devinfo -d "$1" -i "$2" 2>/dev/null | awk '$1 == "active_mtu:" { print $2; exit }')
	[[ $m =~ ^[0-9]+$ ]] && echo "$m" || echo 1024
}

if [ -n "$PEER" ]; then
	ends_peer
elif [ "$DIRECT" = 1 ]; then
	ends_direct
else
	ends_vm
fi
mkdir -p "$OUT"
[ "$IN_VM" = 0 ] || vm_json
MTU=$(path_mtu "$RX_DEV" "$RX_PORT")
echo "rdma-vm-compare: env $ENV_LABEL: $ENV_NOTE; path MTU $MTU"

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
	local who="src host $TX_ADDR"
	[ -n "$TX_ADDR" ] || who="dst host $RX_ADDR" # --peer: the sender's own choice
	echo "udp dst port 4791 and $who and (udp[12:4] & 0xffffff) != 1 and udp[$off] & 0x20 = 0"
}

# Start tcpdump on the receiving link; set TD_PID once it listens.
td_start() {
	local err=$1 mode=$2 n
	tcpdump -i "$RX_IF" -n -p --immediate-mode -w /dev/null \
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

# Say that the run BASE failed, and why (also into BASE.error).
run_failed() {
	echo "FAILED ($2)"
	echo "$2" >"$1.error"
}

# Print what exit status RC means for a command bounded by `timeout SECS`.
exit_words() {
	case $1 in
	124) echo "exit 124 (still running after its $2 s limit: stopped by timeout)" ;;
	137) echo "exit 137 (still running 15 s after its $2 s limit: killed)" ;;
	*) echo "exit $1" ;;
	esac
}

# Print the last lines of FILE on one line, or that it is empty.
err_tail() {
	if [ -s "$1" ]; then
		tail -n 3 "$1" | paste -sd'|' -
	else
		echo "nothing"
	fi
}

# Print why run BASE failed, on one line: each end's exit status (RC_TX
# and RC_RX, under limits of TX_S and RX_S seconds), what its JSON says it
# did when it wrote one, and its last words on stderr.
why_failed() {
	local base=$1 rc_tx=$2 rc_rx=$3 tx_s=$4 rx_s=$5 tx rx
	tx=$(jq -r '"sent \(.sent) of \(.count_requested)"
		+ (if .rtt then ", \(.rtt.samples) round trips timed, \(.rtt.timeouts) pings unanswered" else "" end)
		+ (if (.last_error // "") != "" then ", last error: \(.last_error)" else "" end)' \
		"$base.gen.json" 2>/dev/null) || tx="no JSON"
	rx=$(jq -r '"received \(.received)"
		+ (if (.queues // []) | length > 1 then " (QPs " + ([.queues[].received | tostring] | join("+")) + ")" else "" end)
		+ (if (.verbs.last_wc_error // "") != "" then ", last error: \(.verbs.last_wc_error)" else "" end)' \
		"$base.rx.json" 2>/dev/null) || rx="no JSON"
	echo "sender $(exit_words "$rc_tx" "$tx_s"): ${tx:-no JSON}; its stderr: $(err_tail "$base.gen.err")" \
		"| receiver $(exit_words "$rc_rx" "$rx_s"): ${rx:-no JSON}; its stderr: $(err_tail "$base.rx.err")"
}

# Whether every busy poller of a round trip has a CPU of its own: the
# receiver's queue q runs on RX_CPU + q modulo the CPU count (common/rx.c),
# the sender (when it runs here) on TX_CPU. One ping is in flight at a
# time, so a poller that shares its CPU with another holds the CPU the
# other needs until the scheduler takes it away: a slice (milliseconds)
# per ping.
pollers_fit() {
	local n q here=1
	n=$(getconf _NPROCESSORS_ONLN)
	[ -z "$PEER" ] || here=0
	[ $((QUEUES + here)) -le "$n" ] || return 1
	[ "$here" = 1 ] && [ -n "$TX_CPU" ] || return 0
	for ((q = 0; q < QUEUES; q++)); do
		[ $(((RX_CPU + q) % n)) != "$TX_CPU" ] || return 1
	done
}

# One run of MODE at frame SIZE with workload WL (count N, rate R), with
# the receiver's GPU variant KIND unless it is none; TRIAL (default 0)
# after the first adds -tTRIAL to its files.
one_run() {
	local mode=$1 size=$2 wl=$3 n=$4 rate=$5 gpu=$6 trial=${7:-0} base rx_pid rc seen="" drop=""
	local rx_args=() tx_args=() wait_ms=30000 note=$ENV_NOTE dev s0="" s1=""
	local rc_rx rx_s tx_s
	base=$OUT/verbs-$mode-$size-$wl
	[ "$gpu" = none ] || base=$base-gpu-$gpu
	[ "$trial" = 0 ] || base=$base-t$trial
	rm -f "$base".*
	if [ "$mode" = ud ] && [ $((size - 46)) -gt "$MTU" ]; then
		echo "UD messages must fit one packet: $((size - 46)) B > the $MTU-byte path MTU" >"$base.skipped"
		echo "skipped (UD message larger than the path MTU)"
		return 0
	fi
	[ -z "$TX_PRINT" ] || wait_ms=$((TX_PRINT * 1000))
	[ "$wl" != visibility ] || td_start "$base.tcpdump.err" "$mode" ||
		{ run_failed "$base" "tcpdump did not start"; return 1; }
	if [ "$wl" = rtt ] && { [ "$mode" = rc_write_imm ] || [ "$gpu" != none ]; }; then
		echo "$mode${gpu/#none/}: no reflect mode, so no round trip" >"$base.skipped"
		echo "skipped ($(cat "$base.skipped"))"
		return 0
	fi
	rx_args=(--mode "$mode" --device "$RX_DEV" --ib-port "$RX_PORT"
		--count "$n" --idle-timeout 1000 --timeout "$wait_ms" --workload "$wl"
		--cpu "$RX_CPU" --env "$ENV_LABEL" --ready "$base.ready" --gpu "$gpu"
		--json "$base.rx.json" --quiet)
	[ -z "$RX_GID" ] || rx_args+=(--gid-index "$RX_GID")
	[ "$QUEUES" = 1 ] || rx_args+=(--queues "$QUEUES")
	[ "$wl" != rtt ] || rx_args+=(--reflect)
	# Round trips over more QPs than the pollers have CPUs (the VM's 2
	# vCPUs: QP 1's thread lands on the sender's): the receiver's threads
	# sleep on their CQ's events between pings, as a blocking far end
	# does, so that each answers once woken.
	if [ "$wl" = rtt ] && [ "$QUEUES" != 1 ] && ! pollers_fit; then
		rx_args+=(--cq event)
		note+="; the receiver's $QUEUES QPs wait on CQ events (--cq event): with one ping in flight, $QUEUES busy-polling threads and the sender's do not fit $(getconf _NPROCESSORS_ONLN) CPUs"
	fi
	# The receiver outlives a sender stopped at its limit (which then
	# sends its end markers and writes its JSON): each says what it saw.
	tx_s=$((60 + n / 2000))
	rx_s=$((tx_s + 20 + wait_ms / 1000 - 30))
	timeout -k 15 "$rx_s" "$RX" "${rx_args[@]}" >"$base.rx.out" 2>"$base.rx.err" &
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
		run_failed "$base" "receiver exit $rc: $(tail -n 3 "$base.rx.err" | paste -sd'|' -)"
		return 1
	fi
	tx_args=(--mode "$mode" --dst "$RX_ADDR" --size "$size" --count "$n")
	[ -z "$TX_DEV" ] || tx_args+=(--device "$TX_DEV" --ib-port "$TX_PORT")
	[ -z "$TX_CPU" ] || tx_args+=(--cpu "$TX_CPU")
	[ "$rate" = 0 ] || tx_args+=(--rate "$rate")
	[ -z "$TX_GID" ] || tx_args+=(--gid-index "$TX_GID")
	[ "$QUEUES" = 1 ] || tx_args+=(--queues "$QUEUES")
	if [ "$wl" = rtt ]; then
		tx_args+=(--pingpong --warmup $((n / 10 < 100 ? n / 10 : 100))
			--reply-timeout 2000)
	elif [ "$QUEUES" != 1 ]; then
		tx_args+=(--flows $((4 * QUEUES)))
	fi
	[ "$IN_VM" = 0 ] || s0=$(rx_cpu_sample)
	run_tx "$base" "$tx_s" "$rx_pid" "${tx_args[@]}"
	rc=$?
	wait $rx_pid
	rc_rx=$?
	[ "$IN_VM" = 0 ] || s1=$(rx_cpu_sample)
	if [ -n "${TD_PID:-}" ] && [ "$wl" = visibility ]; then
		read -r seen drop < <(td_stop "$TD_PID" "$base.tcpdump.err")
		TD_PID=
	fi
	if [ $rc != 0 ] || [ $rc_rx != 0 ] ||
		! jq -e . "$base.rx.json" "$base.gen.json" >/dev/null 2>&1; then
		run_failed "$base" "$(why_failed "$base" $rc $rc_rx "$tx_s" "$rx_s")"
		return 1
	fi
	if [ -n "$PEER" ]; then
		dev=$(jq -r '.verbs.device // empty' "$base.gen.json")
		note+=${dev:+, device $dev there (its own choice)}
	fi
	# compare merges the two JSON files on the host (labs/plab/merge.py):
	# what only this side knows goes beside them.
	jq -n --argjson seen "${seen:-null}" --argjson drop "${drop:-null}" \
		--arg note "$note" --arg s0 "$s0" --arg s1 "$s1" \
		--argjson hz "$(getconf CLK_TCK)" \
		'{tcpdump: $seen, tcpdump_dropped: $drop, env_note: $note}
		+ if $s0 != "" and $s1 != "" then
		($s0 | split(" ") | map(tonumber)) as $a
		| ($s1 | split(" ") | map(tonumber)) as $b
		| {vm_rx_cpu: {rx_cpu_ksoftirqd_s: (($b[0] - $a[0]) / 1e9),
		   rx_cpu_softirq_s: (($b[1] - $a[1]) / $hz)}} else {} end' \
		>"$base.merge.json"
	jq -rn --slurpfile rx "$base.rx.json" --slurpfile gen "$base.gen.json" \
		'$rx[0] as $r | $gen[0] as $g
		| "\(($r.pps // 0) / 100 | round / 10) kpps, received \($r.received) of \($g.sent) sent"
		+ (if $r.workload == "latency" then ", p50 \($r.latency_ns.p50 / 100 | round / 10) us one-way" else "" end)
		+ (if $r.workload == "visibility" then ", tcpdump saw \($seen)" else "" end)
		+ (if $g.rtt then ", round trip p50 \($g.rtt.p50_ns / 100 | round / 10) us" else "" end)
		+ (if $r.verbs.cq == "event" then " (receiver on CQ events)" else "" end)' \
		--argjson seen "${seen:-null}"
}

# One perftest run of TOOL (ib_send_bw or ib_send_lat) for MODE at SIZE,
# N messages, trial TRIAL: the server on the receiving device and core,
# the client on the sending ones; the server's output stays in BASE.srv.
ref_run() {
	local tool=$1 mode=$2 size=$3 wl=$4 n=$5 trial=$6 base pid rc=0 c=${2^^}
	base=$OUT/$tool-verbs-$mode-$size-$wl
	[ "$trial" = 0 ] || base=$base-t$trial
	rm -f "$base".*
	[ "$tool" != ib_send_lat ] || n=$((n < 5000 ? n : 5000))
	timeout 120 taskset -c "$RX_CPU" "$tool" -d "$RX_DEV" -i "$RX_PORT" \
		-x "${RX_GID:-1}" -c "$c" -s $((size - 46)) -n "$n" >"$base.srv" 2>&1 &
	pid=$!
	sleep 1
	timeout 120 taskset -c "${TX_CPU:-0}" "$tool" -d "$TX_DEV" -i "$TX_PORT" \
		-x "${TX_GID:-1}" -c "$c" -s $((size - 46)) -n "$n" "$RX_ADDR" >"$base.cli" 2>&1 || rc=$?
	wait "$pid" || rc=$((rc + 100))
	if [ $rc != 0 ] || ! grep -qE '^ *[0-9]+ +[0-9]+ ' "$base.srv"; then
		run_failed "$base" "$tool exit $rc: $(tail -n 3 "$base.srv" | paste -sd'|' -)"
		return 1
	fi
	awk -v t="$tool" '$1 ~ /^[0-9]+$/ && NF >= 5 { l = $0; r = $5; p = $8 }
		END { if (t == "ib_send_bw") printf "%.1f kpps (MsgRate)\n", r * 1000
			else printf "half round trip t_typical %s us, 99%% %s us\n", r, p }' "$base.srv"
}

# The runs of --plan FILE, in order (see the top of this file).
run_plan() {
	local ref mode size wl gpu trial i
	while read -r ref mode size wl gpu trial; do
		i=$(wl_index "$wl")
		if [ "$ref" != - ]; then
			printf 'ref %s verbs %s %s B %s trial %s ... ' "$ref" "$mode" "$size" "$wl" "$trial"
			ref_run "$ref" "$mode" "$size" "$wl" "${counts[$i]}" "$trial" || FAILED=$((FAILED + 1))
			continue
		fi
		printf 'verbs %s %s B %s%s%s ... ' "$mode" "$size" "$wl" \
			"$([ "$gpu" = none ] || echo " +gpu $gpu")" "$([ "$trial" = 0 ] || echo " trial $trial")"
		one_run "$mode" "$size" "$wl" "${counts[$i]}" "${rates[$i]}" "$gpu" "$trial" ||
			FAILED=$((FAILED + 1))
	done <"$PLAN"
}

IFS=, read -r -a modes <<<"$MODES"
IFS=, read -r -a sizes <<<"$SIZES"
gpus=(none)
[ "$GPU" = none ] || gpus+=("$GPU")
# The index of workload W in WORKLOADS (and so in COUNTS and RATES).
wl_index() {
	local i
	for i in "${!WORKLOADS[@]}"; do
		[ "${WORKLOADS[$i]}" != "$1" ] || { echo "$i"; return 0; }
	done
	echo "rdma-vm-compare: unknown workload '$1'" >&2
	exit 2
}

if [ -n "$PLAN" ]; then
	run_plan
	[ $FAILED = 0 ] || echo "rdma-vm-compare: $FAILED runs failed (raw files in $OUT)"
	[ $FAILED = 0 ]
	exit
fi
IFS=, read -r -a wls <<<"$WORKLOAD_LIST"
idx=()
for w in "${wls[@]}"; do idx+=("$(wl_index "$w")"); done
for mode in "${modes[@]}"; do
	for size in "${sizes[@]}"; do
		for i in "${idx[@]}"; do
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
