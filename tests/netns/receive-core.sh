#!/usr/bin/env bash
# The receive core and the receive cost (common/report.c,
# labs/lib/topo.sh), per path (socket, AF_XDP, DPDK on af_packet) in its
# default placement (labs/lib/paths.tsv: the socket's NAPI thread on the
# receive core, the pollers' on the other CPU):
#  - veth's receive work runs in its NAPI thread, on the CPU the placement
#    says, which ran > 0 s; the JSON names the placement (run.placement)
#    and how long the receiver and NAPI waited for a CPU (run.run_delay);
#  - calibration: --extra-work-cycles K spins K TSC cycles per datagram in
#    the receive loop, so receive_cycles_per_packet.total must rise by K
#    (within 15 %) over a run without it, and the rise must show in the
#    app part, at three values of K. A figure that counted the generator,
#    idle polling or another core would miss it. Each K is three pairs,
#    judged on the median rise: one pair on a shared machine proves
#    nothing.
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../labs/lib/paths.sh
. "$PATHLAB_LIB/paths.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
if [ "$NCPU" -lt 2 ]; then
	echo "SKIP: one CPU: the receive core and the sender's are the same"
	exit 77
fi
netns_setup

KS="20000 50000 90000"
COUNT=10000
TX="--iface $PL_TX_IF --cpu 0 --count $COUNT --rate 10000 --batch 8"
BASE="--iface $PL_RX_IF --cpu 1 --idle-timeout 3000 --count $COUNT"

# The placement a path runs in by default, and the CPU its NAPI thread is
# then on.
place_of() {
	path_placements "$1" "$2" | head -n 1
}

# run_calm NAME RXBIN "RX ARGS" "TX ARGS": run_pair_exact, again (up to
# three times) while the receiver waited for its CPU more than 10 % of
# the run (run_delay.receiver_share): other work took turns on its core,
# and the loop's turns then include that work's time slices.
run_calm() {
	local share
	for _ in 1 2 3; do
		run_pair_exact "$@" || return 1
		share=$(jq '.run_delay.receiver_share // 0' "$TMP/$1.json" 2>/dev/null)
		jq -en "${share:-0} <= 0.1" >/dev/null && return 0
		echo "note: $1: the receiver waited for its CPU ${share} of the run;" \
			"other work on its core? running it again"
	done
}

# calibrate NAME PATH MODE RXBIN "RX ARGS": per K, three pairs (a run
# without K, one with), interleaved; the verdict on the median rise. A run
# whose receiver waited for its CPU is made again (run_calm).
calibrate() {
	local name=$1 path=$2 mode=$3 rxbin=$4 rxargs=$5 f0 k t place cpu
	place=$(place_of "$path" "$mode")
	[ "$place" = other-core ] && cpu=0 || cpu=1
	topo_napi_place "$place" || { bad "$name: placing NAPI ($place)"; return; }
	f0=$TMP/$name-0.json
	for k in $KS; do
		for t in 1 2 3; do
			run_calm "$name-0" "$rxbin" "$BASE $rxargs" "$TX"
			run_calm "$name-$k" "$rxbin" \
				"$BASE $rxargs --extra-work-cycles $k" "$TX"
			jq -n --slurpfile a "$f0" --slurpfile b "$TMP/$name-$k.json" '
				($a[0].receive_cycles_per_packet) as $x |
				($b[0].receive_cycles_per_packet) as $y |
				{without: $x.total, with: $y.total,
				 rise: ($y.total - $x.total),
				 app_rise: ($y.app - $x.app)}' \
				>"$TMP/$name-$k-$t.json" 2>/dev/null
		done
		jq -s "{k: $k, rise: ([.[].rise] | sort | .[1]),
			app_rise: ([.[].app_rise] | sort | .[1]),
			pairs: [.[] | {without, with}]}" \
			"$TMP/$name-$k"-[123].json >"$TMP/$name-$k-cal.json"
		echo "     $name ($place) K $k: $(jq -c . "$TMP/$name-$k-cal.json")"
		check "$name: receive cycles rise by K = $k within 15 % (median of 3)" \
			".rise > .k * 0.85 and .rise < .k * 1.15 and
			 .app_rise > .k * 0.85" "$TMP/$name-$k-cal.json"
		check "$name: the K run received them all too, and says K" \
			".received == $COUNT and .extra_work_cycles == $k" \
			"$TMP/$name-$k.json" '{received, lost, extra_work_cycles}'
	done
	check "$name: every datagram received" \
		".received == $COUNT" "$f0" '{received, lost, drops}'
	check "$name: placement $place: veth-napi, kernel part from the NAPI thread on CPU $cpu" \
		'.env == "veth-napi" and .placement.napi == "'"$place"'" and
		 .placement.napi_cpu == '"$cpu"' and .placement.receiver_cpu == 1 and
		 .receive_cycles_per_packet.kernel_source == "napi_threads" and
		 .receive_cycles_per_packet.napi_threads == 1 and
		 ([.napi[] | select(.run_s > 0) | .cpu] == ['"$cpu"']) and
		 .receive_cycles_per_packet.kernel > 0' "$f0" \
		'{env, placement, receive_cycles_per_packet, napi}'
	check "$name: the waits for a CPU are measured and within the run" \
		'.run_delay.receiver_share >= 0 and .run_delay.receiver_share <= 1
		 and .run_delay.napi_share >= 0 and .run_delay.napi_share <= 1
		 and (.contended | type) == "boolean"
		 and .contended == (.run_delay.receiver_share > 0.1
				    or .run_delay.napi_share > 0.1)' "$f0" \
		'{run_delay, contended}'
	if [ "$place" = rx-core ]; then
		check "$name: the sender's core did not do the receive work" \
			".net_rx_softirqs_by_cpu[0] / $COUNT < 0.1" "$f0" \
			'.net_rx_softirqs_by_cpu'
	fi
}

calibrate socket socket recvmmsg "$RX_SOCKET" "--rcvbuf 8388608"

RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
if [ -x "$RX_XSK" ]; then
	calibrate afxdp afxdp copy "$RX_XSK" "--action redirect --bind copy"
else
	echo "note: $RX_XSK not built: AF_XDP not calibrated"
fi

RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
if [ -x "$RX_DPDK" ]; then
	calibrate dpdk dpdk af_packet "$RX_DPDK" \
		"--vdev-kind af_packet --rx-desc 16384 --mbufs 32767"
else
	echo "note: $RX_DPDK not built: DPDK not calibrated"
fi

netns_finish
