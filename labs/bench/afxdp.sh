#!/usr/bin/env bash
# afxdp.sh - the XDP / AF_XDP benchmark on the lab topology (veth, netns).
#
#   labs/bench/afxdp.sh [TRIALS] [COUNT]       (defaults 3 and 300000)
#
# Part 1, AF_XDP receivers: pathlab-rx-xsk (copy mode, busy loop) against
# dpdk-testpmd rxonly on DPDK's own net_af_xdp PMD.
# Part 2, drop points: XDP_DROP (pathlab-rx-xsk --action drop), a tc
# clsact BPF drop (af-xdp/tc_drop.bpf.c), a socket that reads and discards
# (pathlab-rx-socket) and, if iptables is installed, iptables raw DROP.
#
# Trials alternate the methods (A B A B ...). Rate = packets that reached
# the receiver or drop point / the sender's duration; cycles per packet =
# busy CPU time over ALL CPUs during the send (elapsed x CPUs - idle -
# iowait - steal, from /proc/stat) x TSC rate / packets, generator included;
# receive-core cycles per packet = the receiver's threads and the lab's NAPI
# threads (veth's receive work, pinned to the receive CPU) over the same
# window (schedstat) x TSC rate / packets. Busy-polling receivers spin a
# core whether packets come or not; that is part of their cost.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${PATHLAB_BUILD:-$REPO/build}
PATHLAB_LIB=$REPO/labs/lib
. "$PATHLAB_LIB/topo.sh"

TRIALS=${1:-3}
COUNT=${2:-300000}
GEN=$BUILD/common/pathlab-gen
XSK=$BUILD/af-xdp/pathlab-rx-xsk
SOCK=$BUILD/kernel-stack/pathlab-rx-socket
TCOBJ=$BUILD/af-xdp/tc_drop.bpf.o
TESTPMD=$(command -v dpdk-testpmd)

[ "$(id -u)" -eq 0 ] || { echo "afxdp.sh: needs root" >&2; exit 77; }
for b in "$GEN" "$XSK" "$SOCK" "$TCOBJ"; do
	[ -e "$b" ] || { echo "afxdp.sh: $b not built" >&2; exit 77; }
done

export PATHLAB_PREFIX=plb$$
TMP=$(mktemp -d)
HZ_TICK=$(getconf CLK_TCK)
NCPU=$(nproc)
TSC_HZ=$("$BUILD/common/pathlab-budget" --json --rate 10G --size 64 | jq .clock_hz)
PIDS=""
RXPID=""

cleanup() {
	local p
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	topo_down >/dev/null 2>&1
	rm -rf "/var/run/dpdk/$PATHLAB_PREFIX" "$TMP"
}
trap cleanup EXIT
topo_up >/dev/null || { echo "afxdp.sh: topo_up failed" >&2; exit 1; }
RXNS=$(topo_ns rx)

# Print "idle_ticks" (idle + iowait + steal over all CPUs) and the time.
cpu_snap() {
	awk '/^cpu / { print $5 + $6 + $9 }' /proc/stat
	date +%s.%N
}

# CPU nanoseconds run so far on the receive core by the work under test:
# the receiver's threads ($RXPID, if any) and the lab's NAPI threads.
rx_core_ns() {
	local f t sum=0 tasks=()
	[ -n "$RXPID" ] && tasks=(/proc/"$RXPID"/task/*/schedstat)
	for f in "${tasks[@]}" $(topo_napi_pids | sed 's|.*|/proc/&/schedstat|'); do
		{ read -r t _ <"$f"; } 2>/dev/null || continue
		sum=$((sum + t))
	done
	echo "$sum"
}

# Send COUNT datagrams at full speed; print
# "duration_s busy_s sent rx_core_s".
send() {
	local i0 t0 i1 t1 r0 r1
	read -r i0 t0 < <(cpu_snap | paste -sd' ')
	r0=$(rx_core_ns)
	ns_exec tx "$GEN" --dst "$PL_RX_ADDR" --iface "$PL_TX_IF" --cpu 0 \
		--count "$COUNT" --no-end --quiet --json "$TMP/gen.json" 2>/dev/null
	sleep 0.05 # let the receiver drain
	r1=$(rx_core_ns)
	read -r i1 t1 < <(cpu_snap | paste -sd' ')
	awk -v i0="$i0" -v i1="$i1" -v t0="$t0" -v t1="$t1" -v n="$NCPU" \
		-v hz="$HZ_TICK" -v d="$(jq .duration_s "$TMP/gen.json")" \
		-v s="$(jq .sent "$TMP/gen.json")" -v r0="$r0" -v r1="$r1" \
		'BEGIN { printf "%s %.4f %s %.6f\n", d,
			(t1 - t0) * n - (i1 - i0) / hz, s, (r1 - r0) / 1e9 }'
}

# Link rx packets of the receiving veth.
link_rx() {
	ip -n "$RXNS" -j -s link show "$PL_RX_IF" | jq '.[0].stats64.rx.packets'
}

# Print "pps cycles_per_packet rx_core_cycles_per_packet" for N packets
# over duration D, busy B s, receive core R s.
figures() {
	awk -v n="$1" -v d="$2" -v b="$3" -v r="$4" -v hz="$TSC_HZ" \
		'BEGIN { if (n == 0) n = 1
			printf "%.0f %.0f %.0f\n", n / d, b * hz / n, r * hz / n }'
}

# Start a receiver in the rx namespace; wait for its ready file.
start_rx() {
	rm -f "$TMP/ready"
	ns_spawn RXPID rx "$@" --ready "$TMP/ready" --quiet \
		--json "$TMP/rx.json" 2>"$TMP/rx.err"
	PIDS="$PIDS $RXPID"
	for _ in $(seq 500); do
		[ -e "$TMP/ready" ] && return 0
		kill -0 "$RXPID" 2>/dev/null || break
		sleep 0.02
	done
	echo "afxdp.sh: receiver did not start: $(cat "$TMP/rx.err")" >&2
	return 1
}

# Stop the receiver with SIGINT (it writes its JSON): it must still run when
# send() reads its CPU time, so the generator sends no end markers.
stop_rx() {
	kill -INT "$RXPID" 2>/dev/null
	wait "$RXPID"
	RXPID=""
}

# One trial of pathlab-rx-xsk with ARGS; prints "pps cycles".
run_xsk() {
	local d b r
	start_rx "$XSK" --iface "$PL_RX_IF" --cpu 1 --idle-timeout 1000 \
		"$@" || return 1
	read -r d b _ r < <(send)
	stop_rx
	figures "$(jq .received "$TMP/rx.json")" "$d" "$b" "$r"
}

# One trial of the socket receiver (reads and discards).
run_socket() {
	local d b r
	start_rx "$SOCK" --iface "$PL_RX_IF" --cpu 1 --idle-timeout 1000 ||
		return 1
	read -r d b _ r < <(send)
	stop_rx
	figures "$(jq .received "$TMP/rx.json")" "$d" "$b" "$r"
}

# One trial of testpmd rxonly on net_af_xdp; packets from its port stats.
run_testpmd() {
	local d b r n
	rm -f "$TMP/tp.in" "$TMP/tp.out"
	mkfifo "$TMP/tp.in"
	exec {TPFD}<>"$TMP/tp.in"
	# ip netns exec: libxdp works with its own view of /sys here.
	ip netns exec "$RXNS" "$TESTPMD" -l 0,1 --no-huge -m 512 --no-pci \
		--no-shconf --file-prefix "$PATHLAB_PREFIX" \
		"--vdev=net_af_xdp0,iface=$PL_RX_IF,start_queue=0,queue_count=1" \
		-- --forward-mode=rxonly --total-num-mbufs=16384 \
		<"$TMP/tp.in" >"$TMP/tp.out" 2>&1 &
	TPPID=$!
	RXPID=$TPPID
	PIDS="$PIDS $TPPID"
	for _ in $(seq 500); do
		grep -q "Press enter to exit" "$TMP/tp.out" && break
		sleep 0.02
	done
	sleep 1 # the PMD's socket and program come up after the prompt
	read -r d b _ r < <(send)
	echo >&"$TPFD"
	wait "$TPPID"
	RXPID=""
	exec {TPFD}>&-
	n=$(awk '/Accumulated forward statistics/ { a = 1 }
		a && /RX-packets:/ { print $2; exit }' "$TMP/tp.out")
	figures "${n:-0}" "$d" "$b" "$r"
}

# One trial of a drop that no process sees: count at the link.
run_link_drop() {
	local d b r r0
	r0=$(link_rx)
	read -r d b _ r < <(send)
	figures "$(($(link_rx) - r0))" "$d" "$b" "$r"
}

run_tc() {
	ip -n "$RXNS" link set dev "$PL_RX_IF" up
	ip netns exec "$RXNS" tc qdisc add dev "$PL_RX_IF" clsact
	ip netns exec "$RXNS" tc filter add dev "$PL_RX_IF" ingress \
		bpf da obj "$TCOBJ" sec tc
	run_link_drop
	ip netns exec "$RXNS" tc qdisc del dev "$PL_RX_IF" clsact
}

run_iptables() {
	local d b r n
	ip netns exec "$RXNS" iptables -t raw -A PREROUTING -p udp \
		--dport 9000 -j DROP
	read -r d b _ r < <(send)
	n=$(ip netns exec "$RXNS" iptables -t raw -L PREROUTING -v -x -n |
		awk '/DROP/ { print $1; exit }')
	ip netns exec "$RXNS" iptables -t raw -F PREROUTING
	figures "$n" "$d" "$b" "$r"
}

# Run the methods named in $@ alternately, TRIALS times; then the table.
compare() {
	local t m
	: >"$TMP/results"
	for ((t = 1; t <= TRIALS; t++)); do
		for m in "$@"; do
			echo "$m $(m_"$m")" >>"$TMP/results"
			echo "  trial $t $m: $(tail -1 "$TMP/results" | cut -d' ' -f2-)" >&2
		done
	done
	table "$@"
}

# Median, min and max of each method; ratio of medians to the first.
table() {
	printf '%-14s %18s %24s %24s %8s %8s\n' method "rate kpps med" \
		"cycles/pkt system med" "receive core med" "rate x" "rxc x"
	awk -v order="$*" '
	{ n[$1]++; p[$1, n[$1]] = $2; c[$1, n[$1]] = $3; x[$1, n[$1]] = $4 }
	function med(a, m, k,   i, j, t, v) {
		for (i = 1; i <= k; i++) v[i] = a[m, i]
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		lo = v[1]; hi = v[k]
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	END {
		k = split(order, ms, " ")
		for (i = 1; i <= k; i++) {
			m = ms[i]
			mp = med(p, m, n[m]); plo = lo; phi = hi
			mc = med(c, m, n[m]); clo = lo; chi = hi
			mx = med(x, m, n[m]); xlo = lo; xhi = hi
			if (i == 1) { bp = mp; bx = mx }
			printf "%-14s %6.0f (%4.0f-%4.0f) %9.0f (%6.0f-%6.0f) %9.0f (%6.0f-%6.0f) %8.2f %8.2f\n",
				m, mp / 1e3, plo / 1e3, phi / 1e3, mc, clo, chi,
				mx, xlo, xhi, mp / bp, (bx > 0 ? mx / bx : 0)
		}
	}' "$TMP/results"
}

m_xsk() { run_xsk; }
m_testpmd() { run_testpmd; }
m_xdp_drop() { run_xsk --action drop; }
# Generic (skb) mode: on veth it skips the conversion native XDP needs.
m_xdp_drop_skb() { run_xsk --action drop --attach skb; }
m_tc_bpf() { run_tc; }
m_socket() { run_socket; }
m_iptables_raw() { run_iptables; }

echo "pathlab AF_XDP benchmark: veth in a VM ($(nproc) CPUs, kernel $(uname -r)), $COUNT x 64 B per trial, $TRIALS trials each, alternating"
echo
echo "Part 1: AF_XDP receivers"
if [ -n "$TESTPMD" ]; then
	compare xsk testpmd
else
	echo "(dpdk-testpmd not installed: ours alone)"
	compare xsk
fi
echo
echo "Part 2: drop points"
drops=(xdp_drop xdp_drop_skb tc_bpf socket)
if command -v iptables >/dev/null; then
	drops+=(iptables_raw)
else
	echo "(iptables not installed: apt-get install iptables to add it)"
fi
compare "${drops[@]}"
