#!/usr/bin/env bash
# AF_XDP on many queues, and as the far end of the rtt workload, on a lab
# whose veth has two queues. One socket per RX queue, each in the xsks map
# at its queue index: 100,000 datagrams from two sender threads arrive
# exactly, both queues receive, the queues' counts add up to the total and
# agree with veth's own per-queue counters. A receiver on queue 0 alone
# misses what arrives on queue 1 and says where it went (no socket in the
# map). Queue numbers the link does not have are refused in one line.
# --reflect answers pathlab-gen --pingpong through the AF_XDP TX ring:
# every ping comes back, with percentiles in order, on one queue and on
# the queue the ping came in on.
set -u
. "$(dirname "$0")/lib.sh"

RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
if [ ! -x "$RX_XSK" ]; then
	echo "SKIP: $RX_XSK not built (libbpf, libxdp, clang, bpftool)"
	exit 77
fi
export PATHLAB_QUEUES=2
netns_setup

RX="--iface $PL_RX_IF --cpu 0 --idle-timeout 3000"
TX="--iface $PL_TX_IF"
NCPU=$(getconf _NPROCESSORS_ONLN)
RXNS=$(topo_ns rx)
TXNS=$(topo_ns tx)

# Print veth's count of frames XDP saw on RX queue $1 of the rx side.
rxq_xdp_packets() {
	ip netns exec "$RXNS" ethtool -S "$PL_RX_IF" |
		awk -v k="rx_queue_$1_xdp_packets:" '$1 == k { print $2 }'
}

# Print the tx namespace's Udp InCsumErrors.
tx_csum_errors() {
	# shellcheck disable=SC2016 # an awk program
	ip netns exec "$TXNS" awk '/^Udp:/ { if (h) { print $i; exit }
		for (i = 1; i <= NF; i++) if ($i == "InCsumErrors") break; h = 1 }' \
		/proc/net/snmp
}

# 0. The lab's link has two RX queues (ethtool -l), the receiver's limit.
chan=$(ip netns exec "$RXNS" ethtool -l "$PL_RX_IF" |
	awk '/^Current/ { cur = 1 } cur && $1 == "RX:" { print $2 }')
if [ "$chan" = 2 ]; then
	ok "lab: $PL_RX_IF has 2 RX queues (ethtool -l)"
else
	bad "lab: $PL_RX_IF has '$chan' RX queues, expected 2"
fi

# 1. Two queues, two sender threads, four flows: exact, and split.
q0=$(rxq_xdp_packets 0)
q1=$(rxq_xdp_packets 1)
run_pair_exact two "$RX_XSK" "$RX --queues 2" \
	"$TX --threads 2 --flows 4 --count 100000 --rate 100000"
f=$TMP/two.json
check "two queues: 100000 sent, all received, none lost" \
	'.sent == 100000 and .gen.send_errors == 0 and .received == 100000 and
	 .lost == 0 and .duplicates == 0 and .unattributed == 0' "$f"
check "two queues: one entry per RX queue, ids 0 and 1" \
	'.queue_count == 2 and [.queues[].queue] == [0, 1]' "$f" '.queues'
check "two queues: the queues' counts add up to the total" \
	'([.queues[].received] | add) == .received and
	 ([.queues[].packets] | add) == .received and
	 ([.queues[].flows] | add) == 4 and ([.queues[].bad] | add) == 0' "$f" \
	'.queues'
check "two queues: the program found a socket for every datagram" \
	'.afxdp.prog.lab_data == 100000 and .afxdp.prog.lab_no_socket == 0 and
	 .afxdp.prog.verdicts.redirect.packets ==
	   .afxdp.prog.lab_data + .afxdp.prog.lab_end_markers' "$f"
if [ "$NCPU" -lt 2 ]; then
	echo "skip: one CPU online: both sender threads use TX queue 0"
else
	check "two queues: both receive, two flows each, threads on CPUs 0 and 1" \
		'[.queues[] | .received > 0] == [true, true] and
		 [.queues[].flows] == [2, 2] and [.queues[].cpu] == [0, 1]' "$f" \
		'.queues'
	# Thread q's datagrams are queue q's. veth counts per RX queue what
	# XDP saw there: at least what our socket got (data and the end
	# markers it read), at most all the thread sent (it repeats its end
	# markers; the receiver stops at the first, and a busy veth may drop
	# a late repeat before XDP).
	for q in 0 1; do
		was=$([ $q = 0 ] && echo "$q0" || echo "$q1")
		now=$(rxq_xdp_packets $q)
		sent=$(jq ".gen.per_thread[$q].sent" "$f")
		most=$(jq ".gen.per_thread[$q] | .sent + .end_markers_sent" "$f")
		ours=$(jq ".queues[$q].packets" "$f")
		least=$(jq ".queues[$q] | .packets + .end_markers" "$f")
		if [ "$ours" = "$sent" ] && [ -n "$now" ] &&
			[ $((now - was)) -ge "$least" ] &&
			[ $((now - was)) -le "$most" ]; then
			ok "two queues: queue $q got thread $q's $sent; veth's rx_queue_${q}_xdp_packets grew by $((now - was)) ($least..$most)"
		else
			bad "two queues: queue $q got $ours of thread $q's $sent; veth's rx_queue_${q}_xdp_packets grew $was -> $now, expected $least..$most more"
		fi
	done
fi
echo "   two queues: $(jq -c '{pps, queues: [.queues[] | {queue, cpu, received, pps}]}' "$f")"

# 2. A socket on queue 0 only: what veth puts on queue 1 finds no socket
# in the map and goes on to the stack, counted as xdp_no_socket. A sender
# on CPU 1 (queue 1, no end markers) first, then one on CPU 0 (queue 0).
if [ "$NCPU" -ge 2 ]; then
	rm -f "$TMP/one".*
	pid=
	# shellcheck disable=SC2086 # RX and TX are lists of options
	ns_spawn pid rx "$RX_XSK" $RX --ready "$TMP/one.ready" \
		--json "$TMP/one.json" --quiet 2>"$TMP/one.err"
	NETNS_PIDS="${NETNS_PIDS:-} $pid"
	if wait_file "$TMP/one.ready" "$pid"; then
		# shellcheck disable=SC2086
		ns_exec tx "$GEN" --dst "$PL_RX_ADDR" $TX --cpu 1 --src-port 20000 \
			--count 10000 --rate 20000 --no-end --quiet
		# shellcheck disable=SC2086
		ns_exec tx "$GEN" --dst "$PL_RX_ADDR" $TX --cpu 0 \
			--count 10000 --rate 20000 --quiet
		wait "$pid"
		check "queue 0 alone: its 10000 received, queue 1's 10000 passed to the stack as no socket" \
			'.received == 10000 and .lost == 0 and .queue_count == 1 and
			 .drops.xdp_no_socket == 10000 and
			 .afxdp.prog.lab_no_socket == 10000 and
			 .kernel_udp_no_ports >= 10000' "$TMP/one.json" \
			'{received, drops, kernel_udp_no_ports}'
	else
		bad "queue 0 alone: receiver did not start: $(cat "$TMP/one.err")"
	fi
fi

# 3. Queue numbers the link does not have: a one-line error, exit 2.
for args in "--queue 1 --queues 2" "--queues 3" "--queues 2 --action drop" \
	"--reflect --action pass"; do
	# shellcheck disable=SC2086
	ns_exec rx "$RX_XSK" --iface "$PL_RX_IF" $args --duration 0.1 --quiet \
		>"$TMP/usage.out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/usage.out")" -eq 1 ]; then
		ok "usage: $args refused in one line: $(cat "$TMP/usage.out")"
	else
		bad "usage: $args exited $rc: $(cat "$TMP/usage.out")"
	fi
done

# 4. --reflect: pathlab-gen --pingpong, 2000 pings through the TX ring
# (--duration bounds a run whose pings go unanswered). A ping leaves by
# the TX queue of its sender's CPU (XPS) and arrives on that RX queue.
# reflect NAME "RX ARGS" "GEN ARGS": run it, check the round trips.
reflect() {
	local name=$1 csum0 csum1
	csum0=$(tx_csum_errors)
	run_pair "$name" "$RX_XSK" "$2 --reflect --workload rtt" \
		"$TX --pingpong --count 2000 --reply-timeout 500 --duration 30 $3"
	csum1=$(tx_csum_errors)
	f=$TMP/$name.json
	g=$TMP/$name.gen.json
	check "$name: every ping answered (1900 timed, 100 warm-up)" \
		'.rtt.samples == 1900 and .rtt.warmup == 100 and
		 .rtt.timeouts == 0 and .rtt.warmup_timeouts == 0 and
		 .rtt.mismatched == 0 and .rtt.recv_errors == 0' "$g" '.rtt'
	check "$name: percentiles in order, min <= p50 <= p99 <= p99.9 <= max" \
		'.rtt.min_ns > 0 and .rtt.min_ns <= .rtt.p50_ns and
		 .rtt.p50_ns <= .rtt.p99_ns and .rtt.p99_ns <= .rtt.p999_ns and
		 .rtt.p999_ns <= .rtt.max_ns' "$g" '.rtt'
	check "$name: reflected every datagram it received, no errors" \
		'.received == 2000 and .lost == 0 and
		 .reflect.reflected == .received + .end_markers and
		 .reflect.errors == 0 and .workload == "rtt"' "$f" \
		'{received, end_markers, reflect}'
	check "$name: every frame sent came back on the completion ring" \
		'.afxdp.tx.queued == .reflect.reflected and
		 .afxdp.tx.completed == .afxdp.tx.queued and
		 .afxdp.tx.send_dropped == 0 and .afxdp.tx.invalid_descs == 0' \
		"$f" '.afxdp.tx'
	if [ "$csum0" = "$csum1" ]; then
		ok "$name: the replies' UDP checksums were whole (Udp InCsumErrors flat)"
	else
		bad "$name: Udp InCsumErrors in the tx namespace went $csum0 -> $csum1"
	fi
	echo "   $name: $(jq -c '.rtt | {p50_ns, p99_ns, p999_ns, max_ns}' "$g")"
}
reflect reflect "--iface $PL_RX_IF --cpu $((1 % NCPU)) --idle-timeout 3000" "--cpu 0"
# On two queues, a ping from CPU 1 arrives on queue 1 and its reflection
# leaves by queue 1's socket.
if [ "$NCPU" -ge 2 ]; then
	reflect reflect2 "$RX --queues 2 --loop poll" "--cpu 1"
	check "reflect2: the pings arrived on queue 1, and were answered there" \
		'[.queues[].received] == [0, 2000]' "$TMP/reflect2.json" '.queues'
fi

netns_finish
