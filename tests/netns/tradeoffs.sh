#!/usr/bin/env bash
# tradeoffs.sh - `pathlab compare --tradeoffs --quick` end to end on the
# paths that run in the lab's namespaces: only visibility runs, and
# tradeoffs.json says what was measured: tcpdump and the netfilter counter
# see every datagram of the socket path and none of XDP drop, AF_XDP or
# DPDK af_xdp (DPDK af_packet: all, the stack still gets them), ss shows
# the socket path's socket and no other, the verbs rows are "not run".
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`, nothing built).
set -u

# shellcheck source-path=SCRIPTDIR source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
driver_env pltro$$

# True if jq filter F is true on the row of PATH and MODE in tradeoffs.json;
# shows the row when it is not.
row() {
	local path=$1 mode=$2 f=$3
	if jq -e --arg p "$path" --arg m "$mode" \
		'[.rows[] | select(.path == $p and .mode == $m)] as $r
		| ($r | length) == 1 and ($r[0] | '"$f"')' \
		"$OUT/tradeoffs.json" >/dev/null 2>&1; then
		return 0
	fi
	jq -c --arg p "$path" --arg m "$mode" '.rows[] | select(.path == $p
		and .mode == $m) | {status, sent, tcpdump: .tcpdump.text,
		netfilter: .netfilter.text, ss: .ss.text,
		transport: .transport.text}' "$OUT/tradeoffs.json" 2>&1 |
		sed 's/^/     /'
	return 1
}

# The checks of a path whose packets the kernel never gets: nothing sees
# them, no UDP socket, the kernel's UDP did not run.
unseen() {
	check "$1 $2: tcpdump saw 0" row "$1" "$2" \
		'.status == "measured" and .tcpdump.seen == 0'
	[ "$NF" = 0 ] || check "$1 $2: netfilter counted 0" row "$1" "$2" \
		'.netfilter.packets == 0'
	check "$1 $2: ss shows no UDP socket" row "$1" "$2" \
		'.ss.samples >= 1 and .ss.with_socket == 0'
	check "$1 $2: Udp InDatagrams +0" row "$1" "$2" \
		'.transport.udp_in_datagrams == 0'
}

# True if `jq -e ARGS...` is true (its output hidden).
jq_true() {
	jq -e "$@" >/dev/null
}

need_compare jq tcpdump ss nsenter unshare
# The netfilter column needs nft or iptables (deps.sh installs nftables).
NF=1
if ! command -v nft >/dev/null && ! command -v iptables >/dev/null; then
	echo "note: neither nft nor iptables is installed: netfilter checks skipped"
	NF=0
fi

# The output; the driver should leave no lab, lab_down ends any it did.
scratch_dir
on_exit lab_down
OUT=$SCRATCH

PATHS=$(built_paths)

echo "# pathlab compare --tradeoffs --paths $PATHS --quick --sizes 64"
if "$PATHLAB" compare --tradeoffs --paths "$PATHS" --quick --sizes 64 \
	--out "$OUT" >"$OUT/compare.log" 2>&1; then
	echo "ok   compare --tradeoffs succeeded"
	awk 'NF == 0 { blank++ } blank < 2' "$OUT/tradeoffs.txt"
else
	echo "FAIL compare --tradeoffs exited $?"
	FAILED=1
	tail -n 30 "$OUT/compare.log"
fi
check "lab torn down after compare" no_lab_left

echo "# what ran"
check "results.json: visibility runs only, one per path and mode" \
	jq_true '([.runs[] | [.path, .mode]] | length == (unique | length))
		and all(.runs[]; .workload == "visibility" and .sent == 1000)' \
	"$OUT/results.json"
# shellcheck disable=SC2016 # $sel and $s are jq's
check "tradeoffs.json: a measured row for each mode of $PATHS" \
	jq_true --arg sel "$PATHS" '($sel | split(",")) as $s
		| [.rows[] | select(.path as $p | $s | index($p))]
		| length >= ($s | length) and all(.status == "measured")' \
	"$OUT/tradeoffs.json"
check "tradeoffs.json and tradeoffs.txt written" \
	test -s "$OUT/tradeoffs.json" -a -s "$OUT/tradeoffs.txt"
check "verbs rows: not run" jq_true '[.rows[] | select(.path == "verbs")]
	| length == 3 and all(.status == "not run")' "$OUT/tradeoffs.json"
check "the text has the verbs rows as not run" \
	grep -q '^verbs  *rc  *not run' "$OUT/tradeoffs.txt"

echo "# the socket path: the kernel's tools see every datagram"
check "socket: tcpdump saw all sent" row socket recvmmsg \
	'.tcpdump.seen == .sent and .sent == 1000'
[ "$NF" = 0 ] || check "socket: netfilter counted all sent" row socket \
	recvmmsg '.netfilter.packets == .sent'
check "socket: ss showed the socket on port 9000" row socket recvmmsg \
	'.ss.with_socket >= 1 and (.ss.local | endswith(":9000"))'
check "socket: one copy, the kernel's UDP ran" row socket recvmmsg \
	'.copies.per_packet == 1 and .transport.udp_in_datagrams > 0'
check "socket: veth has no IRQ line; NET_RX softirqs ran" row socket \
	recvmmsg '.interrupts.irq_lines == 0 and .interrupts.net_rx_softirqs > 0'

if [[ $PATHS == *xdp* ]]; then
	echo "# XDP drop and AF_XDP: the kernel never gets the packets"
	unseen xdp drop
	check "xdp drop: no copy" row xdp drop '.copies.per_packet == 0'
	unseen afxdp copy
fi
if [[ $PATHS == *dpdk* ]]; then
	echo "# DPDK"
	unseen dpdk af_xdp
	check "dpdk af_packet: tcpdump saw all sent" row dpdk af_packet \
		'.tcpdump.seen == .sent'
	[ "$NF" = 0 ] || check "dpdk af_packet: netfilter counted all sent" \
		row dpdk af_packet '.netfilter.packets == .sent'
	check "dpdk af_packet: no UDP socket, NoPorts grew" row dpdk af_packet \
		'.ss.with_socket == 0 and .transport.udp_no_ports > 0'
fi
check "no lab left behind" no_lab_left

finish tradeoffs
