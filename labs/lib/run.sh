# shellcheck shell=bash
# run.sh - one run of one path: the receiver in the rx namespace, pathlab-gen
# in the tx namespace, tcpdump beside the receiver in visibility runs, and
# merge.jq to make one run object of the two JSON files.
#
# Needs topo.sh, paths.sh and proc.sh sourced; compare.sh sets CMP_OUT,
# CMP_ENV, CMP_RX_CPU, CMP_TX_CPU and the CMP_N_* counts.

# Paced rates: latency is measured on an unloaded path.
PL_RATE_LATENCY=10000
PL_RATE_VISIBILITY=20000
# Soft-RoCE under TCG: 10 kpps saturates the guest's sending vCPU.
# shellcheck disable=SC2034 # read by the files that source this one
PL_RATE_LATENCY_VM=2000
# Seconds to wait: for --ready, for the receiver after the generator ended.
PL_READY_S=10
PL_DRAIN_S=15
PL_UDP_PORT=9000

# Start tcpdump in the rx namespace counting the lab's data datagrams into
# ERRFILE; set CMP_TCPDUMP to its PID once it listens.
cmp_tcpdump_start() {
	local err=$1 n=$((PL_READY_S * 10))
	# Only data: udp[10] is the pathlab header's version/flags byte and
	# 0x20 marks the generator's end-of-train markers, which are not sent
	# datagrams. --immediate-mode: every packet is counted when SIGINT
	# comes. In that mode each ring slot holds a whole snapshot, so a
	# short snapshot (-s) and a larger buffer (-B, KiB) keep the ring from
	# overflowing: this run is about what tcpdump can see, not its speed.
	hosts_spawn_rx CMP_TCPDUMP tcpdump -i "$PL_RX_IF" -n -p --immediate-mode \
		-s 128 -B 16384 -w /dev/null \
		"udp dst port $PL_UDP_PORT and udp[10] & 0x20 = 0" \
		</dev/null >/dev/null 2>"$err" || return 1
	pl_track "$CMP_TCPDUMP"
	while [ $n -gt 0 ]; do
		grep -q 'listening on' "$err" 2>/dev/null && return 0
		pl_alive "$CMP_TCPDUMP" || break
		sleep 0.1
		n=$((n - 1))
	done
	echo "pathlab: tcpdump did not start listening" >&2
	pl_show tcpdump "$err"
	return 1
}

# Stop tcpdump (SIGINT); put how many packets it captured in CMP_SEEN and
# how many its ring dropped in CMP_SEEN_DROPPED.
cmp_tcpdump_stop() {
	local pid=$1 err=$2
	kill -INT "$pid" 2>/dev/null
	if ! pl_wait_gone "$pid" 5; then
		kill -KILL "$pid" 2>/dev/null
		echo "pathlab: tcpdump did not stop on SIGINT" >&2
		return 1
	fi
	pl_reap "$pid"
	CMP_SEEN=$(sed -n 's/^\([0-9][0-9]*\) packets\{0,1\} captured.*/\1/p' \
		"$err" | head -n 1)
	CMP_SEEN_DROPPED=$(sed -n \
		's/^\([0-9][0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' \
		"$err" | head -n 1)
	if [ -z "$CMP_SEEN" ]; then
		echo "pathlab: no capture count from tcpdump" >&2
		pl_show tcpdump "$err"
		return 1
	fi
	: "${CMP_SEEN_DROPPED:=null}"
}

# Wait for the receiver PID to create READY; show ERR if it dies or is slow.
cmp_wait_ready() {
	local pid=$1 ready=$2 err=$3 n=$((PL_READY_S * 10))
	while [ $n -gt 0 ]; do
		[ -e "$ready" ] && return 0
		if ! pl_alive "$pid"; then
			pl_reap "$pid"
			# 77: the receiver says this machine cannot run it.
			[ "$PL_RC" = 77 ] && return 77
			echo "pathlab: the receiver ended before it was ready (exit $PL_RC)" >&2
			pl_show rx "$err"
			return 1
		fi
		sleep 0.1
		n=$((n - 1))
	done
	echo "pathlab: the receiver was not ready after ${PL_READY_S} s" >&2
	pl_show rx "$err"
	return 1
}

# Run the generator in the tx namespace; wait for it, bounded by its count.
cmp_gen() {
	local base=$1 size=$2 count=$3 rate=$4 pid limit
	# Two hosts (hosts.sh): the generator runs on the sender.
	hosts_lab || { hosts_gen "$@"; return; }
	local args=(--dst "$PL_RX_ADDR" --port "$PL_UDP_PORT" --size "$size"
		--count "$count" --iface "$PL_TX_IF" --cpu "$CMP_TX_CPU"
		--json "$base.gen.json" --quiet)
	[ "$rate" = 0 ] || args+=(--rate "$rate")
	args+=("${CMP_GEN_EXTRA[@]}")
	# Generous: the count at 10 kpps (or at the paced rate), plus 30 s.
	limit=$((30 + count / (rate > 0 ? rate : 10000)))
	ns_spawn pid tx "$PATHLAB_BUILD/$PL_GEN_BIN" "${args[@]}" \
		</dev/null >"$base.gen.out" 2>"$base.gen.err" || return 1
	pl_track "$pid"
	if ! pl_wait_gone "$pid" "$limit"; then
		kill -TERM "$pid" 2>/dev/null
		echo "pathlab: the generator ran longer than ${limit} s" >&2
		pl_show gen "$base.gen.err"
		return 1
	fi
	pl_reap "$pid"
	if [ "$PL_RC" != 0 ] || ! jq -e . "$base.gen.json" >/dev/null 2>&1; then
		echo "pathlab: the generator failed (exit $PL_RC)" >&2
		pl_show gen "$base.gen.err"
		return 1
	fi
}

# Wait for the receiver after the generator ended; SIGTERM it after a while
# (it then writes its JSON and exits). Check that it succeeded.
cmp_rx_finish() {
	local pid=$1 base=$2
	if ! pl_wait_gone "$pid" "$PL_DRAIN_S"; then
		echo "  (receiver still running ${PL_DRAIN_S} s after the generator: SIGTERM)" >&2
		kill -TERM "$pid" 2>/dev/null
		if ! pl_wait_gone "$pid" 5; then
			kill -KILL "$pid" 2>/dev/null
			echo "pathlab: the receiver did not end on SIGTERM" >&2
			pl_show rx "$base.rx.err"
			return 1
		fi
	fi
	pl_reap "$pid"
	if [ "$PL_RC" != 0 ]; then
		echo "pathlab: the receiver failed (exit $PL_RC)" >&2
		pl_show rx "$base.rx.err"
		return 1
	fi
	if ! jq -e 'type == "object"' "$base.rx.json" >/dev/null 2>&1; then
		echo "pathlab: the receiver wrote no run JSON" >&2
		pl_show rx "$base.rx.err"
		return 1
	fi
}

# Print the generator count and rate of WORKLOAD.
cmp_workload_load() {
	case $1 in
	throughput) echo "$CMP_N_THROUGHPUT 0" ;;
	latency) echo "$CMP_N_LATENCY $PL_RATE_LATENCY" ;;
	visibility) echo "$CMP_N_VISIBILITY $PL_RATE_VISIBILITY" ;;
	# One ping at a time, each after the last one's reply: no pacing.
	rtt) echo "$CMP_N_RTT 0" ;;
	esac
}

# Set CMP_GEN_EXTRA and add to the receiver arguments (array RX_ARGS) what
# WORKLOAD and --queues ask of path P in MODE with GPU kind GPU: rtt makes
# the receiver reflect and the generator ping-pong; --queues N gives the
# receiver N queues and the generator min(N, CPUs) threads and 4 flows per
# queue (so the flow hash has something to spread). Exit 77 with the
# reason in ERR when the path cannot.
cmp_workload_args() {
	local -n cmp_rx=$1
	local p=$2 mode=$3 wl=$4 gpu=$5 count=$6 err=$7 threads
	CMP_GEN_EXTRA=()
	if [ "$wl" = rtt ]; then
		if ! path_has_reflect "$p" "$mode" || [ "$gpu" != none ]; then
			echo "$p $mode${gpu/#none/}: no reflect mode, so no round trip" >"$err"
			return 77
		fi
		cmp_rx+=(--reflect)
		CMP_GEN_EXTRA+=(--pingpong --warmup $((count / 10 < 100 ? count / 10 : 100)))
	fi
	[ "${CMP_QUEUES:-1}" -gt 1 ] || return 0
	if ! path_has_queues "$p" "$mode" || [ "$gpu" != none ]; then
		echo "$p $mode${gpu/#none/}: receives on one queue only" >"$err"
		return 77
	fi
	cmp_rx+=(--queues "$CMP_QUEUES")
	[ "$wl" != rtt ] || return 0
	threads=$(nproc)
	[ "$threads" -le "$CMP_QUEUES" ] || threads=$CMP_QUEUES
	CMP_GEN_EXTRA+=(--threads "$threads" --flows $((4 * CMP_QUEUES)))
}

# One run of PATH in MODE at frame SIZE with WORKLOAD; writes its raw files
# as OUT/raw/PATH-MODE-SIZE-WORKLOAD.* and the merged run as *.run.json.
cmp_run() {
	local path=$1 mode=$2 size=$3 wl=$4 gpu=${5:-none} base count rate rx_pid
	local seen=null seen_dropped=null
	local rx_args=() extra=() lat=()
	base=$CMP_OUT/raw/$path-$mode-$size-$wl
	[ "$gpu" = none ] || base=$base-gpu-$gpu
	read -r count rate < <(cmp_workload_load "$wl")
	rm -f "$base".*
	read -r -a extra <<<"$(hosts_path_args "$path" "$mode")"
	[ "$wl" != latency ] || [ "$gpu" != none ] ||
		read -r -a lat <<<"$(hosts_latency_args "$path" "$mode")"
	[ "$gpu" = none ] || extra+=(--gpu "$gpu")
	rx_args=("${extra[@]}" "${lat[@]}" --count "$count"
		--idle-timeout 1000 --iface "$PL_RX_IF" --workload "$wl"
		--cpu "$CMP_RX_CPU" --env "$CMP_ENV" --ready "$base.ready"
		--json "$base.rx.json" --quiet)
	cmp_workload_args rx_args "$path" "$mode" "$wl" "$gpu" "$count" \
		"$base.rx.err" || return $?
	CMP_TCPDUMP=""
	if [ "$wl" = visibility ]; then
		cmp_tcpdump_start "$base.tcpdump.err" || return 1
	fi
	hosts_fix_rx_args rx_args "$mode"
	hosts_spawn_rx rx_pid "$(path_bin "$path")" "${rx_args[@]}" \
		</dev/null >"$base.rx.out" 2>"$base.rx.err" || return 1
	pl_track "$rx_pid"
	cmp_wait_ready "$rx_pid" "$base.ready" "$base.rx.err" || return $?
	# --tradeoffs: a netfilter counter, ss samples, interrupt counts.
	if [ "${CMP_TRADEOFFS:-0}" = 1 ] && [ "$wl" = visibility ]; then
		tr_run_start "$base" "$rx_pid" || return 1
	fi
	cmp_gen "$base" "$size" "$count" "$rate" "$rx_pid" || return 1
	cmp_rx_finish "$rx_pid" "$base" || return 1
	if [ -n "$CMP_TCPDUMP" ]; then
		cmp_tcpdump_stop "$CMP_TCPDUMP" "$base.tcpdump.err" || return 1
		seen=$CMP_SEEN
		seen_dropped=$CMP_SEEN_DROPPED
	fi
	jq -n --slurpfile rx "$base.rx.json" --slurpfile gen "$base.gen.json" \
		--argjson tcpdump "$seen" \
		--argjson tcpdump_dropped "$seen_dropped" \
		-f "$PATHLAB_LIB/merge.jq" >"$base.run.json" || return 1
	hosts_annotate "$base" || return 1
	if [ "${CMP_TRADEOFFS:-0}" = 1 ] && [ "$wl" = visibility ]; then
		tr_run_stop "$base" || return 1
	fi
}

# Print a one-line summary of the run in FILE.
cmp_run_summary() {
	jq -r '"\(.pps / 1000 * 10 | round / 10) kpps, received"
		+ " \(.received)/\(.sent), lost \(.lost),"
		+ " unattributed \(.unattributed)"
		+ (if .workload == "latency" then
			", p50 \(.latency_ns.p50 / 100 | round / 10) us" else "" end)
		+ (if .workload == "visibility" then
			", tcpdump saw \(.tcpdump_seen)" else "" end)
		+ (if .rtt_ns then ", round trip p50 \(.rtt_ns.p50 / 100 | round / 10)"
			+ " us p99 \(.rtt_ns.p99 / 100 | round / 10) us" else "" end)
		+ (if (.queue_count // 1) > 1 then ", queues \([.queues[].received]
			| map(tostring) | join("+"))" else "" end)' "$1"
}
