#!/bin/sh
# The trade-off table (labs/plab's tradeoffs) on a made-up results.json:
# each cell's verdict follows from the evidence (counts against sent), a
# (path, mode) without a visibility run is "not run" with its reason, runs
# of other workloads and GPU rows are left out, and the text has a row per
# path and mode. No root needed. $1: labs/plab.
set -u
plab=$1
# The table, as compare makes it: tradeoffs [--modes JSON] --format F FILE.
table() {
	/usr/bin/python3 "$plab" tradeoffs "$@"
}
pass=0 fail=0

command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME FILTER FILE: pass when the jq filter is true on FILE.
check() {
	if jq -e "$2" "$3" >/dev/null 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL: $1 ($2)"
		fail=$((fail + 1))
	fi
}

# A visibility run with the harness's evidence: path mode tcpdump_seen
# netfilter_packets ss_with_socket in_datagrams no_ports copies.
run() {
	jq -n --arg path "$1" --arg mode "$2" --argjson td "$3" \
		--argjson nf "$4" --argjson ss "$5" --argjson in "$6" \
		--argjson np "$7" --argjson cp "$8" \
		'{path: $path, mode: $mode, gpu: "none", workload: "visibility",
		  env: "veth", frame_bytes: 64, sent: 1000, received: 1000,
		  tcpdump_seen: $td, tcpdump_dropped: 0,
		  copies_per_packet: $cp, copies_source: "by_design",
		  kernel_udp_in_datagrams: $in, kernel_udp_no_ports: $np,
		  tradeoffs: {
			netfilter: {tool: "nft", packets: $nf},
			ss: {samples: 4, with_socket: $ss, recv_q_max: 0,
			     drops_max: 0, packet_sockets: []},
			interrupts: {link: 0, link_lines: 0, all: 900,
			     net_rx_softirqs: 1003}}}'
}

{
	run socket recvmmsg 1000 1000 4 1000 0 1
	run xdp drop 0 0 0 0 0 0
	run dpdk af_packet 1000 1000 0 0 1001 2
	# Left out: another workload, a GPU row.
	run socket recvmmsg 1 1 1 1 0 1 | jq '.workload = "throughput"'
	run socket recvmmsg 1 1 1 1 0 1 | jq '.gpu = "sim"'
	# A verbs row from the VM: no harness evidence, tcpdump's ring drops.
	jq -n '{path: "verbs", mode: "rc", gpu: "none", workload: "visibility",
		env: "vm-softroce", frame_bytes: 64, sent: 1000, received: 1000,
		tcpdump_seen: 700, tcpdump_dropped: 300, copies_per_packet: 0,
		copies_source: "by_design", kernel_udp_in_datagrams: 2000,
		kernel_udp_no_ports: 0, hw_irqs_per_packet: 0,
		hw_irqs_source: "no irq line names the link",
		kernel_net_rx_softirqs: 1000}'
} | jq -s '{pathlab: 1, host: {kernel: "test", cpus: 2}, runs: .}' \
	>"$tmp/results.json"

modes='[{"path":"socket","mode":"recvmmsg","runner":"netns","built":true,"selected":true},
 {"path":"xdp","mode":"drop","runner":"netns","built":true,"selected":true},
 {"path":"afxdp","mode":"copy","runner":"netns","built":true,"selected":false},
 {"path":"dpdk","mode":"af_xdp","runner":"netns","built":true,"selected":true},
 {"path":"dpdk","mode":"af_packet","runner":"netns","built":true,"selected":true},
 {"path":"verbs","mode":"ud","runner":"vm","built":false,"selected":false},
 {"path":"verbs","mode":"rc","runner":"vm","built":true,"selected":true}]'
table --modes "$modes" --format json "$tmp/results.json" >"$tmp/t.json" ||
	{ echo "FAIL: the table as JSON"; exit 1; }
table --format text "$tmp/t.json" >"$tmp/t.txt" ||
	{ echo "FAIL: the table as text"; exit 1; }

t=$tmp/t.json
check "one row per (path, mode) with a run, or not run" \
	'[.rows[] | [.path, .mode]] == [["socket","recvmmsg"], ["xdp","drop"],
	  ["afxdp","copy"], ["dpdk","af_xdp"], ["dpdk","af_packet"],
	  ["verbs","ud"], ["verbs","rc"]]' "$t"
check "socket: every tool sees it" \
	'.rows[0] | .tcpdump.verdict == "yes" and .netfilter.verdict == "yes"
	 and .ss.verdict == "yes" and .netfilter.packets == 1000
	 and .transport.kernel_udp_ran' "$t"
check "socket: the text carries the numbers" \
	'.rows[0] | .tcpdump.text == "yes (1000/1000)"
	 and .netfilter.text == "yes (1000/1000)"
	 and (.ss.text | startswith("yes (4/4 samples"))' "$t"
check "xdp drop: nothing sees it" \
	'.rows[1] | .tcpdump.verdict == "no" and .netfilter.verdict == "no"
	 and .ss.verdict == "no" and .copies.per_packet == 0
	 and (.transport.kernel_udp_ran | not)' "$t"
check "not run, with the reason" \
	'[.rows[2, 3, 5] | .status + ": " + .reason] ==
	 ["not run: not selected",
	  "not run: no visibility run in results.json: failed or skipped, see raw/",
	  "not run: not built"]' "$t"
check "dpdk af_packet: tcpdump and netfilter see it, no UDP socket" \
	'.rows[4] | .tcpdump.verdict == "yes" and .netfilter.verdict == "yes"
	 and .ss.verdict == "no" and .transport.udp_no_ports == 1001
	 and .copies.text == "2 (by design)"' "$t"
check "interrupts: softirqs only, no IRQ line" \
	'.rows[0].interrupts | .verdict == "softirqs only"
	 and .text == "softirqs only (NET_RX 1.00/pkt, no IRQ line)"' "$t"
check "verbs from the VM: tcpdump with ring drops; no harness evidence" \
	'.rows[6] | .tcpdump.verdict == "yes" and .tcpdump.ring_dropped == 300
	 and .netfilter.verdict == "not measured"
	 and .ss.verdict == "not measured"
	 and .interrupts.net_rx_softirqs == 1000
	 and (.transport.text | test("Soft-RoCE"))' "$t"
# partly: half the datagrams counted.
jq '.runs[0].tradeoffs.netfilter.packets = 500' "$tmp/results.json" |
	table --modes "$modes" --format json - >"$tmp/p.json"
check "partly: 500 of 1000" \
	'.rows[0].netfilter | .verdict == "partly" and .text == "partly (500/1000)"' \
	"$tmp/p.json"

if grep -q '^socket  *recvmmsg  *64 B  *yes (1000/1000)' "$tmp/t.txt" &&
	grep -q '^verbs  *ud  *not run (not built)' "$tmp/t.txt" &&
	[ "$(grep -c '^[a-z]' "$tmp/t.txt")" -ge 8 ]; then
	pass=$((pass + 1))
else
	echo "FAIL: the text table"
	cat "$tmp/t.txt"
	fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
