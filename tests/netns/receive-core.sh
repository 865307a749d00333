#!/usr/bin/env bash
# The receive core and the receive cost (common/report.c,
# labs/lib/topo.sh). Per path (socket, AF_XDP, DPDK on af_packet):
#  - veth's receive work runs in its NAPI thread, pinned to the receive
#    core (CPU 1), which ran > 0 s; the sender's core raised next to no
#    NET_RX softirqs (the work did not run there);
#  - calibration: --extra-work-cycles K spins K TSC cycles per datagram in
#    the receive loop, so receive_cycles_per_packet.total must rise by K
#    (within 15 %) over a run without it, and the rise must show in the
#    app part. A figure that counted the generator, idle polling or
#    another core would miss it.
set -u
. "$(dirname "$0")/lib.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
if [ "$NCPU" -lt 2 ]; then
	echo "SKIP: one CPU: the receive core and the sender's are the same"
	exit 77
fi
netns_setup

K=50000
COUNT=20000
TX="--iface $PL_TX_IF --cpu 0 --count $COUNT --rate 10000 --batch 8"
BASE="--iface $PL_RX_IF --cpu 1 --idle-timeout 3000 --count $COUNT"

# The calibration's verdict on $TMP/NAME-cal.json.
CAL_OK=".rise > $K * 0.85 and .rise < $K * 1.15 and .app_rise > $K * 0.85"

# calibrate NAME RXBIN "RX ARGS": a run without and one with K cycles. A
# busy poller's useful time counts a poll that another task preempted, so
# a loaded machine can inflate one run: a pair that misses is run again,
# up to three times, each shown; the verdict is on the last.
calibrate() {
	local name=$1 rxbin=$2 rxargs=$3 f0 fk trial
	f0=$TMP/$name-0.json
	fk=$TMP/$name-k.json
	for trial in 1 2 3; do
		run_pair_exact "$name-0" "$rxbin" "$BASE $rxargs" "$TX"
		run_pair_exact "$name-k" "$rxbin" \
			"$BASE $rxargs --extra-work-cycles $K" "$TX"
		jq -n --slurpfile a "$f0" --slurpfile b "$fk" '
			($a[0].receive_cycles_per_packet) as $x |
			($b[0].receive_cycles_per_packet) as $y |
			{without: $x.total, with: $y.total,
			 rise: ($y.total - $x.total),
			 app_rise: ($y.app - $x.app), k: '"$K"'}' \
			>"$TMP/$name-cal.json" 2>/dev/null || break
		echo "     $name trial $trial: $(jq -c . "$TMP/$name-cal.json")"
		jq -e "$CAL_OK" "$TMP/$name-cal.json" >/dev/null && break
	done
	check "$name: every datagram received, both runs" \
		".received == $COUNT" "$f0" '{received, lost, drops}'
	check "$name: the K run received them all too, and says K" \
		".received == $COUNT and .extra_work_cycles == $K" "$fk" \
		'{received, lost, extra_work_cycles}'
	check "$name: veth-napi, kernel part from the NAPI thread on CPU 1" \
		'.env == "veth-napi" and
		 .receive_cycles_per_packet.kernel_source == "napi_threads" and
		 .receive_cycles_per_packet.napi_threads == 1 and
		 ([.napi[] | select(.run_s > 0) | .cpu] == [1]) and
		 .receive_cycles_per_packet.kernel > 0' "$f0" \
		'{env, receive_cycles_per_packet, napi}'
	check "$name: the sender's core did not do the receive work" \
		".net_rx_softirqs_by_cpu[0] / $COUNT < 0.1" "$f0" \
		'.net_rx_softirqs_by_cpu'
	check "$name: receive cycles rise by K = $K within 15 %" \
		"$CAL_OK" "$TMP/$name-cal.json"
}

calibrate socket "$RX_SOCKET" "--rcvbuf 8388608"

RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
if [ -x "$RX_XSK" ]; then
	calibrate afxdp "$RX_XSK" ""
else
	echo "note: $RX_XSK not built: AF_XDP not calibrated"
fi

RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
if [ -x "$RX_DPDK" ]; then
	calibrate dpdk "$RX_DPDK" "--vdev-kind af_packet --rx-desc 16384 --mbufs 32767"
else
	echo "note: $RX_DPDK not built: DPDK not calibrated"
fi

netns_finish
