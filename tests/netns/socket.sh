#!/usr/bin/env bash
# The kernel-stack path in the lab: exact counts at a sustainable rate,
# every loss attributed at full speed, malformed frames counted by reason
# (ours where they reach the socket, the kernel's where it drops them), and
# our own syscall count against strace's.
set -u
. "$(dirname "$0")/lib.sh"
netns_setup

RX="--iface $PL_RX_IF --cpu 1 --idle-timeout 3000"
# A generous buffer for the paced runs: a receiver descheduled for a moment
# on a busy machine must not lose datagrams there.
TX="--iface $PL_TX_IF --cpu 0"

# 1. 100,000 datagrams at a rate the receiver keeps up with: all arrive.
run_pair_exact paced "$RX_SOCKET" "$RX --count 100000 --rcvbuf 8388608" \
	"$TX --count 100000 --rate 50000 --batch 8"
f=$TMP/paced.json
check "paced: generator sent 100000" '.sent == 100000 and .gen.send_errors == 0' "$f"
check "paced: all received, none lost" '.received == 100000 and .lost == 0' "$f"
check "paced: Udp InDatagrams = data + end markers read" \
	'.kernel_udp_in_datagrams == .received + .end_markers' "$f"
check "paced: link saw every datagram" '.link_rx_packets >= .sent' "$f"
check "paced: no bad frames, no duplicates" '.bad == 0 and .duplicates == 0' "$f"
check "paced: one-way latency percentiles ordered" \
	'.latency_ns.kind == "one-way" and .latency_ns.count == .received and
	 .latency_ns.p50 <= .latency_ns.p99 and .latency_ns.p99 <= .latency_ns.p999 and
	 .latency_ns.p999 <= .latency_ns.max and .latency_ns.p50 > 0' "$f"
check "paced: one copy per packet, by design" \
	'.copies_per_packet == 1 and .copies_source == "by_design"' "$f"
check "paced: costs measured" \
	'.cycles_per_packet.system > 0 and .cycles_per_packet.receiver > 0 and
	 .syscalls_per_packet > 0 and .syscalls_per_packet <= 1.01' "$f"
check "paced: veth has no hardware interrupts" \
	'.hw_irqs_per_packet == 0 and .hw_irqs_source == "none on veth" and .env == "veth-napi"' "$f"

# 2. As fast as the generator goes, with a small socket buffer so the
# receiver falls behind: whatever is lost is attributed to a counter.
run_pair full "$RX_SOCKET" "$RX --count 300000 --rcvbuf 65536" \
	"$TX --count 300000"
f=$TMP/full.json
# As in afxdp.sh: UDP's SndbufErrors may count one send more than the
# counters that saw it lost (seen at full speed here); that one, no more.
check "full speed: every loss attributed (unattributed 0, or -1: one SndbufErrors the link did not see)" \
	'.unattributed == 0 or (.unattributed == -1 and .drops.tx_udp_sndbuf_errors == 1)' \
	"$f" '{sent, received, lost, drops, unattributed}'
check "full speed: received + lost = sent" '.received + .lost == .sent' "$f"
echo "   full speed: $(jq -c '{sent, received, lost, drops, pps}' "$f")"

# 3. Every 10th frame malformed, sent raw on AF_PACKET, paced.
run_pair_exact bad "$RX_SOCKET" "$RX --count 20000 --rcvbuf 8388608" \
	"$TX --count 20000 --rate 20000 --batch 4 --tx packet --bad-every 10"
f=$TMP/bad.json
check "malformed: good datagrams all received" \
	'.received == .sent and .sent == 20000' "$f"
for r in hdr_trunc magic version check; do
	check "malformed: $r counted by our parser" \
		".bad_by_reason.$r == .gen.bad_sent_by_reason.$r and .bad_by_reason.$r > 0" "$f"
done
check "malformed: IPv4 header errors counted by the kernel (Ip InHdrErrors)" \
	'.kernel_ip_in_hdr_errors == (.gen.bad_sent_by_reason | .ip_trunc + .ip_version + .ip_ihl + .ip_csum) and .kernel_ip_in_hdr_errors > 0' "$f"
check "malformed: fragments go to reassembly (Ip ReasmReqds)" \
	'.kernel_ip_reasm_reqds == .gen.bad_sent_by_reason.ip_frag and .kernel_ip_reasm_reqds > 0' "$f"
check "malformed: truncated IP counted by the kernel (InTruncatedPkts)" \
	'.kernel_ip_in_truncated_pkts == .gen.bad_sent_by_reason.ip_totlen and .kernel_ip_in_truncated_pkts > 0' "$f"
check "malformed: bad UDP lengths counted by the kernel (Udp InErrors)" \
	'.kernel_udp_in_errors == (.gen.bad_sent_by_reason | .udp_trunc + .udp_len) and .kernel_udp_in_errors > 0' "$f"
echo "   malformed: $(jq -c '{sent_bad: .gen.bad_sent_by_reason, ip_hdr: .kernel_ip_in_hdr_errors, trunc: .kernel_ip_in_truncated_pkts, reasm: .kernel_ip_reasm_reqds, udp_err: .kernel_udp_in_errors, link_drop: .link_rx_dropped, link_err: .link_rx_errors, link_rx: .link_rx_packets, other}' "$f")"

# 4. Our count of system calls against strace's, on a short paced run.
if command -v strace >/dev/null; then
	run_pair strace "strace -c -f -o $TMP/strace.txt -e trace=recvmmsg $RX_SOCKET" \
		"$RX --count 5000" "$TX --count 5000 --rate 5000"
	calls=$(awk '$NF == "recvmmsg" { print $4 }' "$TMP/strace.txt")
	ours=$(jq '.syscalls' "$TMP/strace.json")
	if [ -n "$calls" ] && [ "$calls" = "$ours" ]; then
		ok "syscalls: ours $ours = strace's $calls"
	else
		bad "syscalls: ours $ours, strace counted '${calls:-none}'"
		cat "$TMP/strace.txt"
	fi
else
	echo "skip: strace not installed, syscall cross-check not run"
fi

# 5. --trace: the first 20 datagrams step by step, the values of this run.
run_pair_exact trace "$RX_SOCKET" "$RX --count 500 --trace 20 --trace-file $TMP/trace.txt" \
	"$TX --count 500 --rate 2000 --batch 2 --size 128"
tr=$TMP/trace.txt
steps=$(awk '/^\[pkt/ { print $5 }' "$tr" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')
if [ "$(grep -c '^\[pkt' "$tr")" -eq 80 ] &&
	[ "$(grep -c 'softirq: IP, UDP' "$tr")" -eq 20 ] &&
	[ "$(grep -c 'recvmmsg()' "$tr")" -eq 20 ] &&
	[ "$(grep -c 'copy skb' "$tr")" -eq 20 ] &&
	[ "$(grep -c 'parse pathlab header' "$tr")" -eq 20 ]; then
	ok "trace: 20 datagrams, four steps each ($steps)"
else
	bad "trace: expected 4 x 20 steps, got: $steps"
fi
# Per datagram, in order: kernel queue, the call, the copy, the parse.
order=$(grep '^\[pkt' "$tr" |
	sed -E 's/^\[pkt +([0-9]+)\] +[-0-9.]+ +[a-z]+ +[a-z]+ +(....).*/\1 \2/' |
	awk '{ s[$1] = s[$1] $2 } END { for (k in s) print s[k] }' | sort -u)
if [ "$order" = "softrecvcopypars" ]; then
	ok "trace: every datagram went kernel -> recvmmsg -> copy -> parse"
else
	bad "trace: step order per datagram: $order"
fi
seqs=$(grep 'parse pathlab header' "$tr" | sed 's/.* seq=\([0-9]*\).*/\1/' | tr '\n' ' ')
[ "$seqs" = "$(seq -s ' ' 0 19) " ] && ok "trace: sequence numbers 0..19 in order" ||
	bad "trace: sequence numbers were: $seqs"
lens=$(grep 'copy skb' "$tr" | sed 's/.* len=\([0-9]*\).*/\1/' | sort -u)
[ "$lens" = "$(jq .payload_bytes "$TMP/trace.json")" ] && ok "trace: copied lengths = payload ($lens B)" ||
	bad "trace: copied lengths '$lens'"
calls=$(grep 'recvmmsg()' "$tr" | sed 's/.* call=\([0-9]*\).*/\1/' | tr '\n' ' ')
last=$(echo "$calls" | awk '{ print $NF }')
sorted=$(echo "$calls" | tr ' ' '\n' | sed '/^$/d' | sort -n | tr '\n' ' ')
if [ "$calls" = "$sorted" ] && [ "$last" -le "$(jq .syscalls "$TMP/trace.json")" ]; then
	ok "trace: call numbers advance and stay within the run's $(jq .syscalls "$TMP/trace.json") calls"
else
	bad "trace: call numbers '$calls'"
fi
check "trace: the traced run still received everything" '.received == 500 and .lost == 0' "$TMP/trace.json"

netns_finish
