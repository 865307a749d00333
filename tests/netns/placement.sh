#!/usr/bin/env bash
# Where the kernel's receive work runs (labs/lib/topo.sh topo_napi_place,
# common/report.c run.placement, run.run_delay, run.contended):
#  - each placement moves veth's NAPI thread where it says and sets the
#    link's busy-poll deferral only for busy-poll; a bad one is refused,
#    and `pathlab rx` refuses a placement the path does not support;
#  - a busy poller with the NAPI thread pinned beside it on purpose
#    (rx-core, as fast as it goes) is marked contended, with the waits
#    that make it so; in its default placement the same run is not;
#  - --busy-poll says whether the kernel gave the socket a NAPI to poll:
#    where it did not (AF_XDP copy mode on Linux 6.13 and later, all veth
#    can do), the run does not claim busy polling;
#  - the lesson of the default placements: the kernel-bypass paths' median
#    one-way p50 over three interleaved rounds is no worse than the socket
#    path's (with a margin for a loaded machine).
set -u
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../labs/lib/paths.sh
. "$PATHLAB_LIB/paths.sh"

NCPU=$(getconf _NPROCESSORS_ONLN)
if [ "$NCPU" -lt 2 ]; then
	echo "SKIP: one CPU: there is no other core to place NAPI on"
	exit 77
fi
RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
if [ ! -x "$RX_XSK" ]; then
	echo "SKIP: $RX_XSK is not built (-Dafxdp): no busy poller to place"
	exit 77
fi
netns_setup
RXNS=$(topo_ns rx)

# The CPU list veth's NAPI thread may run on, and the link's two knobs.
napi_cpus() {
	local pid
	pid=$(topo_napi_pids | head -n 1)
	taskset -p -c "$pid" | sed 's/.*: //'
}
knobs() {
	ip netns exec "$RXNS" sh -c 'cat /sys/class/net/$1/napi_defer_hard_irqs \
		/sys/class/net/$1/gro_flush_timeout | paste -sd" " -' knobs "$PL_RX_IF"
}
for want in "other-core 0 0 0" "busy-poll 1 2 200000" "rx-core 1 0 0"; do
	read -r p cpu defer flush <<<"$want"
	if topo_napi_place "$p" && [ "$(napi_cpus)" = "$cpu" ] &&
		[ "$(knobs)" = "$defer $flush" ]; then
		ok "placement $p: NAPI thread on CPU $cpu, deferral $defer/$flush"
	else
		bad "placement $p: NAPI thread on $(napi_cpus), knobs $(knobs)"
	fi
done
topo_napi_place sideways 2>"$TMP/bad.err"
rc=$?
if [ $rc = 2 ] && grep -q "unknown placement 'sideways'" "$TMP/bad.err"; then
	ok "an unknown placement is refused (exit 2, named)"
else
	bad "unknown placement: exit $rc: $(cat "$TMP/bad.err")"
fi
PATHLAB_NO_DEPS=1 PATHLAB_BUILD=$BUILD "$REPO/labs/pathlab" rx socket \
	--napi busy-poll --count 1 >"$TMP/rx.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "socket recvmmsg supports: rx-core other-core" "$TMP/rx.out"; then
	ok "pathlab rx socket --napi busy-poll: refused (a blocking receiver does not busy poll)"
else
	bad "pathlab rx socket --napi busy-poll: exit $rc: $(cat "$TMP/rx.out")"
fi

XSK="--iface $PL_RX_IF --cpu 1 --idle-timeout 3000 --action redirect --bind copy"
FAST="--iface $PL_TX_IF --cpu 0 --count 200000"
topo_napi_place rx-core
run_pair fast-rx-core "$RX_XSK" "$XSK --count 200000" "$FAST"
check "afxdp beside its NAPI thread, flat out: contended, and the waits say why" \
	'.placement.napi == "rx-core" and .placement.napi_cpu == 1 and
	 .placement.receiver_cpu == 1 and .contended == true and
	 (.run_delay.receiver_share > 0.1 or .run_delay.napi_share > 0.1)' \
	"$TMP/fast-rx-core.json" '{placement, run_delay, contended, received}'
topo_napi_place other-core
run_pair fast-other "$RX_XSK" "$XSK --count 200000" "$FAST"
check "afxdp with NAPI on the other core: the NAPI thread ran there, the receiver alone on CPU 1" \
	'.placement.napi == "other-core" and .placement.napi_cpu == 0 and
	 .placement.receiver_cpu == 1 and
	 ([.napi[] | select(.run_s > 0) | .cpu] == [0])' \
	"$TMP/fast-other.json" '{placement, run_delay, contended, napi}'
echo "     waited for a CPU, flat out: beside $(jq -c .run_delay "$TMP/fast-rx-core.json")"
echo "     waited for a CPU, flat out: apart  $(jq -c .run_delay "$TMP/fast-other.json")"

PACED="--iface $PL_TX_IF --cpu 0 --count 5000 --rate 10000"
topo_napi_place busy-poll
run_pair_exact busy "$RX_XSK" "$XSK --count 5000 --busy-poll" "$PACED"
check "--busy-poll: claimed only where the kernel gave the socket a NAPI id" \
	'.placement.busy_poll == true and .received == 5000 and
	 if .placement.busy_poll_napi_id == 0
	 then .placement.napi != "busy-poll" and
	      (.placement.label | test("no NAPI id"))
	 else .placement.napi == "busy-poll" end' \
	"$TMP/busy.json" '{placement, received}'

# The default placements' lesson, on the latency workload: three rounds of
# socket, afxdp and (if built) dpdk af_xdp, interleaved.
RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
rows="socket:recvmmsg afxdp:copy"
[ -x "$RX_DPDK" ] && rows+=" dpdk:af_xdp"
for t in 1 2 3; do
	for row in $rows; do
		path=${row%%:*} mode=${row#*:}
		topo_napi_place "$(path_placements "$path" "$mode" | head -n 1)"
		case $path in
		socket) bin=$RX_SOCKET args="--iface $PL_RX_IF --cpu 1 --rx-stamps" ;;
		afxdp) bin=$RX_XSK args=$XSK ;;
		dpdk) bin=$RX_DPDK args="--iface $PL_RX_IF --cpu 1 --vdev-kind af_xdp" ;;
		esac
		run_pair_exact "lat-$path-$t" "$bin" \
			"$args --idle-timeout 3000 --count 5000 --workload latency" "$PACED"
	done
done
p50() {
	jq -s '[.[].latency_ns.p50] | sort | .[1] / 1000' "$TMP/lat-$1"-[123].json
}
sock=$(p50 socket)
for row in $rows; do
	path=${row%%:*}
	[ "$path" = socket ] && continue
	v=$(p50 "$path")
	echo "     median one-way p50: $path ${v} us, socket ${sock} us" \
		"($(jq -r .placement.label "$TMP/lat-$path-1.json") vs" \
		"$(jq -r .placement.label "$TMP/lat-socket-1.json"))"
	if jq -en --argjson a "$v" --argjson s "$sock" '$a <= $s * 1.5' >/dev/null; then
		ok "$path in its default placement: median p50 ${v} us, no worse than the socket path's ${sock} us (x1.5)"
	else
		bad "$path in its default placement: median p50 ${v} us, socket ${sock} us"
	fi
done
topo_napi_place rx-core
netns_finish
