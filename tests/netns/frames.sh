#!/usr/bin/env bash
# Bad input, counted: the train of malformed and foreign frames (pl-frames:
# one class per reason of common/wire.c a frame can carry, VLAN, QinQ,
# IPv6, garbage EtherTypes, the 10-byte frame the sender's kernel refuses)
# from a raw socket in the sender's namespace, then 1,000 good datagrams,
# at every path: the socket, AF_XDP, XDP drop, DPDK af_xdp and af_packet.
# Nothing crashes; every good datagram is received or its loss explained;
# every frame of the train is accounted for: as bad by its reason or as
# other by a path that sees it, else by a named kernel counter, or among
# the frames that never reached IPv4 (not_ours.to_kernel); a frame that
# was not ours never counts as our loss: unattributed is 0. About 40 s.
set -u
. "$(dirname "$0")/lib.sh"

FRAMES=$BUILD/tests/netns/pl-frames
RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
netns_setup
TX="--iface $PL_TX_IF --cpu 0 --count 1000 --rate 5000"
SKIP=

# The train, once the receiver is ready (lib.sh's run_pair calls it).
before_gen() {
	ns_exec tx "$FRAMES" --iface "$PL_TX_IF" --src-mac "$PL_TX_MAC" \
		--dst-mac "$PL_RX_MAC" --src "$PL_TX_ADDR" --dst "$PL_RX_ADDR" \
		--each 3 ${SKIP:+--skip "$SKIP"} >"$TMP/$1.train.json" \
		2>"$TMP/$1.train.err" ||
		bad "$1: the train failed: $(cat "$TMP/$1.train.err")"
}

# train NAME RXBIN "RX ARGS": one run, the train beside it in .train; a
# busy machine that made it lose datagrams gets two more tries.
train() {
	local name=$1 try lost
	for try in 1 2 3; do
		run_pair "$@" "$TX" || return 1
		jq --slurpfile t "$TMP/$name.train.json" '.train = $t[0]' \
			"$TMP/$name.json" >"$TMP/$name.t.json" &&
			mv "$TMP/$name.t.json" "$TMP/$name.json"
		lost=$(jq '.lost' "$TMP/$name.json")
		[ "$lost" = 0 ] && break
		echo "note: $name (try $try) lost $lost ($(jq -c .drops "$TMP/$name.json"));" \
			"a busy machine? running it again"
	done
	echo "   $name: $(jq -c '{received, lost, bad, other, unattributed,
		not_ours, link_rx: .link_rx_packets}' "$TMP/$name.json")"
	check "$name: every datagram received or its loss explained" \
		'.received + .lost == 1000 and .unattributed == 0' \
		"$TMP/$name.json" '{received, lost, drops, unattributed, not_ours}'
	check "$name: the train went out, the 10-byte frame refused" \
		'.train.classes.eth_trunc.refused != "" and
		 .train.classes_refused == 1 and .train.sent >= 60' \
		"$TMP/$name.json" '.train | {sent, classes_refused}'
}

# every_reason NAME [SKIP...]: a path that sees whole frames counted each
# bad frame of the train by its reason (but SKIP).
every_reason() {
	local name=$1 r
	shift
	for r in $(jq -r '.train.by_reason | to_entries[] |
		select(.value > 0 and (.key | startswith("other") | not)) |
		.key' "$TMP/$name.json"); do
		[[ " $* " == *" $r "* ]] && continue
		check "$name: $r counted by reason" \
			".bad_by_reason.$r == .train.by_reason.$r" "$TMP/$name.json" \
			"{got: .bad_by_reason.$r, sent: .train.by_reason.$r}"
	done
}

# 1. The socket sees the datagrams to its port whose IP and UDP are whole.
# The kernel counts every other IPv4 frame by what is wrong with it (the
# counters common/wire.c's break_headers() names); the rest never
# reached IPv4: not_ours.to_kernel, of them what the link dropped.
train socket "$RX_SOCKET" "--iface $PL_RX_IF --cpu 1 --idle-timeout 3000"
f=$TMP/socket.json
for r in hdr_trunc magic version check; do
	check "socket: $r counted by reason" \
		".bad_by_reason.$r == .train.by_reason.$r" "$f"
done
check "socket: the IPv4 frames reached IP (Ip InReceives)" \
	'.kernel_ip_in_receives == .received + .lost - .drops.tx_link_dropped +
	 .end_markers + .end_markers_lost + .train.ipv4' "$f" \
	'{ip_in: .kernel_ip_in_receives, received, end_markers, ipv4: .train.ipv4}'
check "socket: each IPv4 class in its kernel counter" \
	'.train.classes as $c
	 | .kernel_ip_in_hdr_errors == $c.ip_trunc.sent + $c.ip_version.sent +
		$c.ip_ihl.sent + $c.ip_csum.sent
	 and .kernel_ip_in_truncated_pkts == $c.ip_totlen.sent
	 and .kernel_ip_reasm_reqds == $c.ip_frag.sent
	 and .kernel_ip_in_unknown_protos == $c.other_l4.sent
	 and .kernel_udp_in_errors - .kernel_udp_rcvbuf_errors ==
		$c.udp_trunc.sent + $c.udp_len.sent
	 and .kernel_udp_no_ports == $c.other_port.sent' "$f" \
	'{hdr: .kernel_ip_in_hdr_errors, trunc: .kernel_ip_in_truncated_pkts,
	  reasm: .kernel_ip_reasm_reqds, proto: .kernel_ip_in_unknown_protos,
	  udp_err: .kernel_udp_in_errors, no_ports: .kernel_udp_no_ports}'
check "socket: the rest never reached IPv4, none taken for ours" \
	'.not_ours.to_kernel == .train.non_ipv4 and
	 .not_ours.link_dropped == .link_rx_dropped' "$f" \
	'{not_ours, link_rx_dropped, non_ipv4: .train.non_ipv4}'

# 2. AF_XDP: the program passes what is not ours to the kernel and counts
# it by reason; the socket counts the bad checks only it can see. XDP
# drop: the program does not verify the payload's check (the
# simplification it names), so the train leaves that class out there.
if [ -x "$RX_XSK" ]; then
	for mode in afxdp xdp-drop; do
		args="--iface $PL_RX_IF --cpu 1 --idle-timeout 3000"
		SKIP=
		[ $mode = xdp-drop ] && args+=" --action drop" SKIP=check
		train "$mode" "$RX_XSK" "$args"
		f=$TMP/$mode.json
		every_reason "$mode"
		check "$mode: bad and other as the train's" \
			'.bad == .train.bad and .other == .train.other' "$f" \
			'{bad, other, train: (.train | {bad, other})}'
		check "$mode: what was not ours went on to the kernel" \
			'.not_ours.to_kernel == .train.sent -
			 (.train.by_reason.check // 0) and
			 .not_ours.link_dropped == .link_rx_dropped' "$f" \
			'{not_ours, link_rx_dropped}'
	done
	SKIP=
else
	echo "   skip: $RX_XSK not built"
fi

# 3. DPDK: af_xdp takes every frame. af_packet sees what the kernel's
# packet taps see: not a cut-off VLAN tag (freed before the taps), not a
# fragment (its fanout group asks for reassembled packets: Ip
# ReasmReqds), but the frames the receiving kernel sends back (ICMP).
if [ -x "$RX_DPDK" ]; then
	for kind in af_xdp af_packet; do
		train "dpdk-$kind" "$RX_DPDK" \
			"--iface $PL_RX_IF --vdev-kind $kind --cpu 1 --idle-timeout 3000"
		f=$TMP/dpdk-$kind.json
		if [ $kind = af_xdp ]; then
			every_reason "dpdk-$kind"
			check "dpdk $kind: bad and other as the train's" \
				'.bad == .train.bad and .other == .train.other' "$f" \
				'{bad, other, train: (.train | {bad, other})}'
		else
			every_reason "dpdk-$kind" vlan_trunc ip_frag
			check "dpdk $kind: bad as the train's, but the cut-off tags and fragments" \
				'.bad == .train.bad - .train.by_reason.vlan_trunc -
				 .train.by_reason.ip_frag and
				 .kernel_ip_reasm_reqds >= .train.by_reason.ip_frag and
				 .other >= .train.other' "$f" \
				'{bad, other, reasm: .kernel_ip_reasm_reqds,
				  train: (.train | {bad, other})}'
		fi
	done
else
	echo "   skip: $RX_DPDK not built"
fi
netns_finish
