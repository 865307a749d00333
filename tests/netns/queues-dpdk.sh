#!/usr/bin/env bash
# DPDK on many queues, and as the far end of the rtt workload, on a lab
# whose veth has two queues; both virtual devices. One lcore per queue:
# 100,000 datagrams from two sender threads arrive exactly, both queues
# receive, the queues' counts add up to the total and to what the PMD
# counted per queue. af_xdp: one vdev per kernel RX queue, and veth puts
# sender thread q's flows on queue q (XPS), so the split is exact.
# af_packet: one vdev, qpairs=2, the kernel's fanout hash picks a queue
# per flow (16 flows, so both get some). --reflect answers pathlab-gen
# --pingpong through rte_eth_tx_burst on the queue the ping came in on.
# Asking for more queues than the lcores, the port or the link have is
# refused in one line, and no runtime files are left.
set -u
. "$(dirname "$0")/lib.sh"

RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
if [ ! -x "$RX_DPDK" ]; then
	echo "SKIP: $RX_DPDK not built (libdpdk not found by meson)"
	exit 77
fi
export PATHLAB_QUEUES=2
netns_setup

NCPU=$(getconf _NPROCESSORS_ONLN)
RXNS=$(topo_ns rx)
TXNS=$(topo_ns tx)
RUNDIR=/var/run/dpdk
TX="--iface $PL_TX_IF"
# Deep rings: two spinning lcores share the CPUs with two sender threads.
DEEP="--rx-desc 16384 --mbufs 32767"

# Print the tx namespace's Udp InCsumErrors.
tx_csum_errors() {
	# shellcheck disable=SC2016 # an awk program
	ip netns exec "$TXNS" awk '/^Udp:/ { if (h) { print $i; exit }
		for (i = 1; i <= NF; i++) if ($i == "InCsumErrors") break; h = 1 }' \
		/proc/net/snmp
}

# Print the --file-prefix of the run whose JSON is $1.
file_prefix() {
	jq -r '.dpdk.eal_args | .[index("--file-prefix") + 1]' "$1"
}

# 0. The lab's link has two RX queues (ethtool -l).
chan=$(ip netns exec "$RXNS" ethtool -l "$PL_RX_IF" |
	awk '/^Current/ { cur = 1 } cur && $1 == "RX:" { print $2 }')
if [ "$chan" = 2 ]; then
	ok "lab: $PL_RX_IF has 2 RX queues (ethtool -l)"
else
	bad "lab: $PL_RX_IF has '$chan' RX queues, expected 2"
fi

# 1. Two queues, two sender threads: exact, and split over both queues.
want_cpus="[$((1 % NCPU)), $((2 % NCPU))]"
for kind in af_xdp af_packet; do
	RX="--iface $PL_RX_IF --vdev-kind $kind --cpu 1 --idle-timeout 3000 $DEEP"
	flows=4
	[ $kind = af_packet ] && flows=16
	run_pair_exact "two-$kind" "$RX_DPDK" "$RX --queues 2 --count 100000" \
		"$TX --threads 2 --flows $flows --count 100000 --rate 25000 --batch 8"
	f=$TMP/two-$kind.json
	# On af_packet the kernel sees every datagram too, finds no socket on
	# the port and answers now and then with an ICMP port unreachable
	# (rate-limited); the generator's connected socket then fails one
	# sendmmsg() with ECONNREFUSED, and sends that batch again: the count
	# stays exact, the failed call is counted.
	check "$kind two queues: 100000 sent, all received, none lost" \
		'.sent == 100000 and .received == 100000 and .lost == 0 and
		 .duplicates == 0 and .bad == 0 and (.gen.send_errors == 0 or
		 ("'$kind'" == "af_packet" and .gen.last_error == "Connection refused"))' "$f" \
		'{sent, received, lost, duplicates, bad, send_errors: .gen.send_errors, last_error: .gen.last_error, drops}'
	check "$kind two queues: one entry per queue, ids 0 and 1, each received" \
		'.queue_count == 2 and [.queues[].queue] == [0, 1] and
		 all(.queues[]; .received > 0)' "$f" '.queues'
	check "$kind two queues: the queues' counts add up to the total" \
		"([.queues[].received] | add) == .received and
		 ([.queues[].packets] | add) == .received and
		 ([.queues[].flows] | add) == $flows" "$f" '.queues'
	check "$kind two queues: lcore q polls queue q, on CPU --cpu + q (wrapped)" \
		"[.dpdk.queues[].lcore] == [0, 1] and [.queues[].cpu] == $want_cpus and
		 [.dpdk.queues[].cpu] == $want_cpus and
		 (.dpdk.eal_args | index(\"--lcores\")) != null" "$f" \
		'{eal: .dpdk.eal_args, q: [.dpdk.queues[] | {lcore, cpu}]}'
	# shellcheck disable=SC2016 # jq's variables
	check "$kind two queues: the PMD counted each queue's datagrams and markers" \
		'[range(2) as $q | .dpdk.queues[$q].pmd_ipackets >=
		  .queues[$q].packets + .queues[$q].end_markers] | all' "$f" \
		'[.queues[] | {packets, end_markers}] + [.dpdk.queues[].pmd_ipackets]'
	check "$kind two queues: both lcores polled" \
		'all(.dpdk.queues[]; .polls > 0 and .busy_cycles > 0)' "$f" '.dpdk.queues'
	if [ $kind = af_xdp ]; then
		check "af_xdp two queues: one vdev (port) per kernel queue, steered by the kernel" \
			'.dpdk.ports == 2 and .dpdk.steering == "kernel_rx_queue" and
			 [.dpdk.queues[] | [.port, .port_queue]] == [[0, 0], [1, 0]] and
			 ([.dpdk.eal_args[] | select(test("^--vdev=net_af_xdp[01],.*start_queue=[01],queue_count=1,busy_budget=0$"))]
			  | length) == 2' "$f" '.dpdk | {ports, steering, eal_args}'
		if [ "$NCPU" -ge 2 ]; then
			# Thread t on CPU t sends on TX queue t (XPS), which veth
			# delivers on RX queue t: flows 0, 2 and 1, 3.
			check "af_xdp two queues: sender thread q's two flows, 50000, on queue q" \
				'[.queues[] | [.flows, .received]] == [[2, 50000], [2, 50000]]' \
				"$f" '.queues'
		fi
	else
		check "af_packet two queues: one port, qpairs=2, the kernel's fanout hash" \
			'.dpdk.ports == 1 and .dpdk.steering == "kernel_fanout_hash" and
			 [.dpdk.queues[] | [.port, .port_queue]] == [[0, 0], [0, 1]] and
			 any(.dpdk.eal_args[]; test("^--vdev=net_af_packet0,.*,qpairs=2$"))' \
			"$f" '.dpdk | {ports, steering, eal_args}'
	fi
	pfx=$(file_prefix "$f")
	if [ -n "$pfx" ] && [ ! -e "$RUNDIR/$pfx" ]; then
		ok "$kind two queues: $RUNDIR/$pfx removed"
	else
		bad "$kind two queues: $RUNDIR/$pfx left behind"
	fi
	echo "   $kind two queues: $(jq -c '{pps, queues: [.queues[] | {queue, cpu, received, flows, pps}]}' "$f")"
done

# 2. --reflect: pathlab-gen --pingpong from CPU 1, 2000 pings, two queues.
for kind in af_xdp af_packet; do
	name=reflect-$kind
	RX="--iface $PL_RX_IF --vdev-kind $kind --cpu 1 --idle-timeout 3000"
	csum0=$(tx_csum_errors)
	run_pair "$name" "$RX_DPDK" "$RX --queues 2 --reflect --workload rtt" \
		"$TX --cpu 1 --pingpong --count 2000 --reply-timeout 1000"
	csum1=$(tx_csum_errors)
	f=$TMP/$name.json
	g=$TMP/$name.gen.json
	# af_packet leaves the kernel stack in the path: with nobody on port
	# 9000 it also answers each ping with an ICMP port unreachable (rate
	# limited), which the pinging socket reads as ECONNREFUSED.
	check "$name: every ping answered (1900 timed, 100 warm-up)" \
		'.rtt.samples == 1900 and .rtt.warmup == 100 and
		 .rtt.timeouts == 0 and .rtt.warmup_timeouts == 0 and
		 .rtt.mismatched == 0' "$g" '.rtt'
	check "$name: percentiles in order, min <= p50 <= p99 <= p99.9 <= max" \
		'.rtt.min_ns > 0 and .rtt.min_ns <= .rtt.p50_ns and
		 .rtt.p50_ns <= .rtt.p99_ns and .rtt.p99_ns <= .rtt.p999_ns and
		 .rtt.p999_ns <= .rtt.max_ns' "$g" '.rtt'
	check "$name: reflected every datagram it received, no errors" \
		'.received == 2000 and .lost == 0 and
		 .reflect.reflected == .received + .end_markers and
		 .reflect.errors == 0 and .workload == "rtt"' "$f" \
		'{received, end_markers, reflect}'
	# shellcheck disable=SC2016 # jq's variables
	check "$name: each queue sent back what it received, on its own TX queue" \
		'[range(.queue_count) as $q | .dpdk.queues[$q] as $d | .queues[$q] |
		  $d.reflected == .packets + .end_markers and $d.reflect_errors == 0]
		 | all' \
		"$f" '{q: .queues, d: .dpdk.queues}'
	if [ $kind = af_xdp ] && [ "$NCPU" -ge 2 ]; then
		check "$name: a ping from CPU 1 arrives on queue 1 (XPS) and is answered there" \
			'[.queues[].received] == [0, 2000] and .dpdk.queues[1].reflected > 0' \
			"$f" '.queues'
	fi
	if [ "$csum0" = "$csum1" ]; then
		ok "$name: the replies' UDP checksums were whole (Udp InCsumErrors flat)"
	else
		bad "$name: Udp InCsumErrors in the tx namespace went $csum0 -> $csum1"
	fi
	echo "   $name: $(jq -c '.rtt | {p50_ns, p99_ns, p999_ns, max_ns, recv_errors}' "$g")"
done

# 3. More queues than the lcores, the port or the link have: one line.
# expect_usage NAME TEXT ARGS...: exit 2 and one line of ours saying TEXT.
expect_usage() {
	local name=$1 text=$2 rc
	shift 2
	ns_exec rx "$RX_DPDK" "$@" >"$TMP/usage.out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && [ "$(grep -c '^pathlab-rx-dpdk: ' "$TMP/usage.out")" -eq 1 ] &&
		grep -q -- "$text" "$TMP/usage.out"; then
		ok "usage: $name: $(grep '^pathlab-rx-dpdk: ' "$TMP/usage.out")"
	else
		bad "usage: $name: exit $rc, wanted '$text': $(tail -3 "$TMP/usage.out")"
	fi
}
EAL="--no-huge -m 512 --no-pci --no-shconf --file-prefix pltestq$$"
# shellcheck disable=SC2086 # EAL is a list of arguments
expect_usage "one lcore for two queues" "needs 2 lcores" \
	-l 0 $EAL "--vdev=net_af_packet0,iface=$PL_RX_IF,qpairs=2" -- \
	--iface "$PL_RX_IF" --queues 2 --duration 0.1
# shellcheck disable=SC2086
expect_usage "a port of two qpairs for three queues" "takes 2 queues at most" \
	--lcores 0@0,1@0,2@0 $EAL "--vdev=net_af_packet0,iface=$PL_RX_IF,qpairs=2" -- \
	--iface "$PL_RX_IF" --queues 3 --duration 0.1
expect_usage "af_xdp on three queues of a two-queue link" "has 2 RX queues" \
	--iface "$PL_RX_IF" --vdev-kind af_xdp --queues 3 --duration 0.1
expect_usage "--queues with --trace" "no --trace or --gpu" \
	--iface "$PL_RX_IF" --queues 2 --trace 5 --duration 0.1
expect_usage "--reflect with --gpu" "no --trace or --gpu" \
	--iface "$PL_RX_IF" --reflect --gpu sim --duration 0.1
if [ ! -e "$RUNDIR/pltestq$$" ]; then
	ok "usage: no runtime directory left"
else
	bad "usage: $RUNDIR/pltestq$$ left behind"
fi

netns_finish
