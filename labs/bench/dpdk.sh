#!/usr/bin/env bash
# dpdk.sh - pathlab-rx-dpdk against dpdk-testpmd (rxonly) on the same
# virtual device, the same generator and the same lab, trials alternating
# A B A B ... so that drift in a shared machine hits both alike.
#
#   labs/bench/dpdk.sh [--vdev af_xdp|af_packet] [--trials N] [--count N]
#
# For each trial: the receiver is started and left spinning, the generator
# sends COUNT datagrams as fast as it can, and over the generator's run we
# take /proc/stat for all CPUs. Rate = datagrams received / the generator's
# send time (the same for both, so testpmd needs no clock of ours). System
# cycles per packet = busy CPU seconds of all CPUs (elapsed - idle - iowait
# - steal) x TSC Hz / datagrams received; receive-core cycles per packet =
# the receiver's and the lab's NAPI threads' CPU time (schedstat) x TSC Hz /
# datagrams received. testpmd's count is RX-packets of
# its accumulated port statistics. Medians, min-max and B/A ratios at the
# end. Needs root; builds nothing; leaves nothing.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-${PATHLAB_BUILD:-$REPO/build}}
. "$REPO/labs/lib/topo.sh"

VDEV=af_xdp
TRIALS=3
COUNT=300000
while [ $# -gt 0 ]; do
	case $1 in
	--vdev) VDEV=$2; shift 2 ;;
	--trials) TRIALS=$2; shift 2 ;;
	--count) COUNT=$2; shift 2 ;;
	-h | --help) sed -n '2,18p' "$0"; exit 0 ;;
	*) echo "dpdk.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
case $VDEV in
af_xdp) VDEV_ARG="net_af_xdp0,iface=$PL_RX_IF,start_queue=0,queue_count=1" ;;
af_packet) VDEV_ARG="net_af_packet0,iface=$PL_RX_IF,framecnt=4096" ;;
*) echo "dpdk.sh: --vdev af_xdp or af_packet" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "dpdk.sh: needs root" >&2; exit 77; }
RXBIN=$BUILD/dpdk/pathlab-rx-dpdk
GEN=$BUILD/common/pathlab-gen
TESTPMD=$(command -v dpdk-testpmd) || { echo "dpdk.sh: no dpdk-testpmd" >&2; exit 77; }
[ -x "$RXBIN" ] || { echo "dpdk.sh: $RXBIN not built" >&2; exit 77; }

export PATHLAB_PREFIX=bdpdk$$
TMP=$(mktemp -d)
RXPID=""
cleanup() {
	[ -n "$RXPID" ] && kill -KILL "$RXPID" 2>/dev/null
	topo_down >/dev/null ||
		echo "dpdk.sh: taking the lab $PATHLAB_PREFIX down failed" >&2
	rm -rf "$TMP" "/var/run/dpdk/pltpmd-$$"
}
trap cleanup EXIT
topo_up >/dev/null || { echo "dpdk.sh: topo_up failed" >&2; exit 1; }

# Busy and total CPU seconds of all CPUs so far: "busy total steal".
cpu_now() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {
		t = 0; for (i = 2; i <= 9; i++) t += $i
		printf "%.4f %.4f %.4f\n", (t - $5 - $6 - $9) / hz, t / hz, $9 / hz
	}' /proc/stat
}

# CPU seconds run so far on the receive core by our work: the receiver's
# threads (RXPID) and the lab's NAPI threads (topo_napi_pids), schedstat.
rx_core_now() {
	local f t sum=0
	for f in /proc/"$RXPID"/task/*/schedstat $(topo_napi_pids |
		sed 's|.*|/proc/&/schedstat|'); do
		{ read -r t _ <"$f"; } 2>/dev/null || continue
		sum=$((sum + t))
	done
	awk -v n="$sum" 'BEGIN { printf "%.4f\n", n / 1e9 }'
}

# Send the train and measure the window:
# "sent duration_s busy_s steal_s rx_core_s".
send_and_measure() {
	local b0 b1 r0 r1
	b0=$(cpu_now)
	r0=$(rx_core_now)
	ns_exec tx "$GEN" --dst "$PL_RX_ADDR" --iface "$PL_TX_IF" --cpu 0 \
		--count "$COUNT" --no-end --quiet --json "$TMP/gen.json" 2>/dev/null
	r1=$(rx_core_now)
	b1=$(cpu_now)
	printf '%s %s\n' "$(jq -r '"\(.sent) \(.duration_s)"' "$TMP/gen.json")" \
		"$(awk -v a="$b0" -v b="$b1" -v r0="$r0" -v r1="$r1" 'BEGIN {
			split(a, x); split(b, y)
			printf "%.4f %.4f %.4f", y[1] - x[1], y[3] - x[3], r1 - r0 }')"
}

# The same ring depth on both sides: af_packet's ring (framecnt) and the
# descriptors (--rxd) match pathlab-rx-dpdk's default of 4096.

# Wait up to 20 s for a file or for a log line.
wait_for() { # TEST-CMD...
	local i
	for ((i = 0; i < 400; i++)); do
		"$@" && return 0
		kill -0 "$RXPID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# A: pathlab-rx-dpdk. Prints "received sent duration busy steal".
trial_a() {
	local m
	rm -f "$TMP/a.ready" "$TMP/a.json"
	ns_spawn RXPID rx "$RXBIN" --iface "$PL_RX_IF" --vdev-kind "$VDEV" \
		--cpu 1 --idle-timeout 1500 --quiet \
		--ready "$TMP/a.ready" --json "$TMP/a.json" 2>"$TMP/a.err"
	wait_for test -e "$TMP/a.ready" || { cat "$TMP/a.err" >&2; return 1; }
	m=$(send_and_measure)
	# No end markers (--no-end): it must run until its CPU time is read.
	sleep 0.2 # let the rings drain, as for testpmd
	kill -INT "$RXPID"
	wait "$RXPID"
	RXPID=""
	echo "$(jq -r '.received' "$TMP/a.json") $m"
}

# B: dpdk-testpmd rxonly, stopped with SIGINT; its accumulated RX-packets.
trial_b() {
	local m n
	ns_spawn RXPID rx "$TESTPMD" -l 0,1 --no-huge -m 512 --no-pci \
		--no-shconf --file-prefix "pltpmd-$$" --vdev="$VDEV_ARG" -- \
		--forward-mode=rxonly --total-num-mbufs=16384 --rxd=4096 \
		--stats-period=1 \
		>"$TMP/b.out" 2>&1 </dev/null
	wait_for grep -q "Port statistics" "$TMP/b.out" || { tail "$TMP/b.out" >&2; return 1; }
	m=$(send_and_measure)
	sleep 1.5 # as pathlab-rx-dpdk's idle timeout: let the rings drain
	kill -INT "$RXPID"
	wait "$RXPID"
	RXPID=""
	n=$(sed -n '/Accumulated forward statistics/,$p' "$TMP/b.out" |
		grep -o 'RX-packets: *[0-9]*' | head -1 | grep -o '[0-9]*$')
	# Never more than was sent (a stray frame of the lab's own).
	echo "$((n > COUNT ? COUNT : n)) $m"
}

: >"$TMP/results"
echo "# $VDEV, $COUNT datagrams of 64 B per trial, $TRIALS trials each, A B A B ..."
printf '%-6s %-16s %10s %10s %12s %12s %8s\n' trial receiver received kpps \
	"cyc/pkt sys" "cyc/pkt rxc" steal_s
HZ=0
for ((t = 1; t <= TRIALS; t++)); do
	for who in a b; do
		line=$(trial_$who) || { echo "dpdk.sh: trial $who failed" >&2; exit 1; }
		[ $who = a ] && HZ=$(jq -r '.budget.clock_hz' "$TMP/a.json")
		read -r rcv sent dur busy steal rxc <<<"$line"
		name=$([ $who = a ] && echo pathlab-rx-dpdk || echo testpmd-rxonly)
		awk -v t="$t" -v n="$name" -v r="$rcv" -v s="$sent" -v d="$dur" \
			-v b="$busy" -v st="$steal" -v hz="$HZ" -v w="$who" \
			-v rx="$rxc" 'BEGIN {
			kpps = r / d / 1e3; cyc = r ? b * hz / r : 0
			rcyc = r ? rx * hz / r : 0
			printf "%-6s %-16s %10d %10.1f %12.0f %12.0f %8.2f\n", t, n, r, kpps, cyc, rcyc, st
			printf "%s %f %f %f\n", w, kpps, cyc, rcyc >> "'"$TMP/results"'"
		}'
	done
done

# Median, min and max of column C for receiver W.
col_stats() { # W C
	awk -v w="$1" -v c="$2" '$1 == w { print $c }' "$TMP/results" | sort -g |
		awk '{ v[NR] = $1 } END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.1f %.1f %.1f\n", m, v[1], v[NR] }'
}
read -r ak amin amax <<<"$(col_stats a 2)"
read -r bk bmin bmax <<<"$(col_stats b 2)"
read -r ac acmin acmax <<<"$(col_stats a 3)"
read -r bc bcmin bcmax <<<"$(col_stats b 3)"
read -r ar armin armax <<<"$(col_stats a 4)"
read -r br brmin brmax <<<"$(col_stats b 4)"
r0() { printf %.0f "$1"; }
echo
echo "| $VDEV on veth, in a VM | rate, kpps (median, min-max) | system cycles/packet (median, min-max) | receive-core cycles/packet (median, min-max) |"
echo "|---|---|---|---|"
echo "| A pathlab-rx-dpdk | $ak ($amin-$amax) | $(r0 "$ac") ($(r0 "$acmin")-$(r0 "$acmax")) | $(r0 "$ar") ($(r0 "$armin")-$(r0 "$armax")) |"
echo "| B testpmd rxonly | $bk ($bmin-$bmax) | $(r0 "$bc") ($(r0 "$bcmin")-$(r0 "$bcmax")) | $(r0 "$br") ($(r0 "$brmin")-$(r0 "$brmax")) |"
awk -v a="$ak" -v b="$bk" -v c="$ac" -v d="$bc" -v e="$ar" -v f="$br" 'BEGIN {
	printf "| ratio B/A | %.2f | %.2f | %.2f |\n", b / a, d / c, (e > 0 ? f / e : 0) }'
echo "TSC $(awk -v h="$HZ" 'BEGIN { printf "%.2f GHz", h / 1e9 }'); system cycles = busy CPU time of all CPUs x TSC rate (generator included);"
echo "receive-core cycles = the receiver's threads + the lab's NAPI threads (schedstat) over the generator's run x TSC rate / received; both receivers spin, so idle polls in that window are in it"
