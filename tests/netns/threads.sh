#!/usr/bin/env bash
# pathlab-gen --threads: N sender threads, each with flows, sockets and
# sequence numbers of its own. The count is split exactly, every datagram
# arrives, the threads' counts add up; on a lab with two queues, XPS
# (topo.sh) puts thread t's packets on TX queue t of pl-tx0, and veth
# hands them to RX queue t of pl-rx0 once that side uses NAPI.
set -u
. "$(dirname "$0")/lib.sh"
export PATHLAB_QUEUES=2
netns_setup

RX="--iface $PL_RX_IF --cpu 1 --idle-timeout 3000 --rcvbuf 8388608"
TX="--iface $PL_TX_IF"
NCPU=$(getconf _NPROCESSORS_ONLN)
TXNS=$(topo_ns tx)
RXNS=$(topo_ns rx)

# 1. Two threads, four flows, 100,000 datagrams to a one-socket receiver.
run_pair_exact two "$RX_SOCKET" "$RX --count 100000" \
	"$TX --threads 2 --flows 4 --count 100000 --rate 50000"
f=$TMP/two.json
check "two threads: generator sent 100000" \
	'.sent == 100000 and .gen.send_errors == 0' "$f"
check "two threads: all received, none lost, no duplicates" \
	'.received == 100000 and .lost == 0 and .duplicates == 0' "$f"
check "two threads: per-thread sent sums to 100000 (50000 each)" \
	'.gen.threads == 2 and ([.gen.per_thread[].sent] | add) == 100000 and
	 [.gen.per_thread[].sent] == [50000, 50000]' "$f" '.gen.per_thread'
check "two threads: two flows each, on CPUs 0 and $((1 % NCPU))" \
	"[.gen.per_thread[] | [.thread, .cpu, .flows]] ==
	 [[0, 0, 2], [1, $((1 % NCPU)), 2]]" "$f" '.gen.per_thread'

# 2. More threads than CPUs, a count and flows that do not divide evenly.
# The receiver has no count: it stops at the first end marker, so every
# thread's data must be out before any thread's markers.
run_pair_exact three "$RX_SOCKET" "$RX" \
	"$TX --threads 3 --flows 5 --count 30001 --rate 30000"
f=$TMP/three.json
check "three threads: 30001 sent and received before the first end marker" \
	'.sent == 30001 and .received == 30001 and .lost == 0 and
	 .end_markers >= 1' "$f"
check "three threads: count split 10001/10000/10000, flows 2/2/1" \
	'[.gen.per_thread[] | [.sent, .flows]] ==
	 [[10001, 2], [10000, 2], [10000, 1]]' "$f" '.gen.per_thread'
check "three threads: CPUs wrap around ($NCPU online)" \
	"[.gen.per_thread[].cpu] == [0, $((1 % NCPU)), $((2 % NCPU))]" "$f" \
	'.gen.per_thread'

# 3. Queues: XPS maps TX queue q to CPU q; count per TX queue with an mq
# qdisc on pl-tx0 (veth keeps no per-queue TX counts of its own) and per
# RX queue from veth's NAPI counters on pl-rx0 (GRO, and UDP GRO
# forwarding because pl-tx0 does TSO, make veth use NAPI there).
xps=$(ip netns exec "$TXNS" cat "/sys/class/net/$PL_TX_IF/queues/tx-0/xps_cpus" \
	"/sys/class/net/$PL_TX_IF/queues/tx-1/xps_cpus" | tr '\n' ' ')
if [ "$NCPU" -lt 2 ]; then
	echo "skip: one CPU online, both queues map to it: queue checks not run"
elif [ "$xps" != "1 2 " ]; then
	bad "queues: xps_cpus of tx-0 and tx-1 are '$xps', expected '1 2'"
elif ! tc -n "$TXNS" qdisc add dev "$PL_TX_IF" root handle 1: mq ||
	! ip netns exec "$RXNS" ethtool -K "$PL_RX_IF" gro on \
		rx-udp-gro-forwarding on; then
	bad "queues: could not add mq on $PL_TX_IF or turn GRO on on $PL_RX_IF"
else
	ok "queues: XPS maps tx-0 to CPU 0 and tx-1 to CPU 1"
	run_pair_exact queues "$RX_SOCKET" "$RX --count 40000" \
		"$TX --threads 2 --flows 2 --count 40000 --rate 40000"
	f=$TMP/queues.json
	check "queues: 40000 sent and received" \
		'.sent == 40000 and .received == 40000' "$f"
	tc -n "$TXNS" -s -j qdisc show dev "$PL_TX_IF" >"$TMP/tc.json"
	ip netns exec "$RXNS" ethtool -S "$PL_RX_IF" >"$TMP/ethtool.txt"
	for q in 0 1; do
		want=$(jq ".gen.per_thread[$q] | .sent + .end_markers_sent" "$f")
		txq=$(jq ".[] | select(.parent == \"1:$((q + 1))\") | .packets" \
			"$TMP/tc.json")
		rxq=$(awk -v k="rx_queue_${q}_xdp_packets:" '$1 == k { print $2 }' \
			"$TMP/ethtool.txt")
		if [ "${want:-0}" -gt 0 ] && [ "$txq" = "$want" ]; then
			ok "queues: TX queue $q carried thread $q's $want packets"
		else
			bad "queues: TX queue $q carried '$txq', thread $q sent '$want'"
		fi
		if [ "$rxq" = "$want" ]; then
			ok "queues: RX queue $q of $PL_RX_IF got the same $rxq"
		else
			bad "queues: RX queue $q got '$rxq', thread $q sent '$want'"
		fi
	done
fi

netns_finish
