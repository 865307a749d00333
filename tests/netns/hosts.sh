#!/usr/bin/env bash
# hosts.sh - `pathlab compare` on two hosts (--iface, --pci, --sender),
# with network namespaces standing in for the machines:
#   - argument errors and the safety refusals, each exit 2 with its reason,
#     checked inside a namespace of the test's own that has a default route
#     (so the host's real interfaces are never looked at), and the --pci
#     refusals against a PCI tree of the test's own (PATHLAB_SYSFS);
#   - a real run: the whole compare inside the lab's rx namespace on
#     --iface pl-rx0, the generator in the tx namespace (--sender ns:NAME,
#     the code path of --sender HOST with another prefix), paced runs
#     received exactly; --sender-if sets and then removes the neighbour;
#   - --sender-print: the printed commands, run by the test in the tx
#     namespace, complete the runs;
#   - --hw-stamps on veth: a clear refusal (veth has no hardware clock).
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`, nothing built).
set -u

# shellcheck source-path=SCRIPTDIR source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
driver_env plh$$
GEN=$BUILD/common/pathlab-gen
# shellcheck source-path=SCRIPTDIR source=../../labs/lib/topo.sh
. "$ROOT/labs/lib/topo.sh"
MG=$PATHLAB_PREFIX-mg
TX=$PATHLAB_PREFIX-tx
BG=""
# The run fields res shows when a check on results.json fails.
RES_SHOW="path, mode, workload, sent, received, lost, unattributed,
	sent_source, rx_stamp_source, sender"

# On exit, before scratch_dir's trap removes $TMP: stop what we started
# (by PID), remove our namespaces.
cleanup() {
	[ -z "$BG" ] || kill "$BG" 2>/dev/null
	ip netns delete "$MG" 2>/dev/null
	topo_down >/dev/null 2>&1
}

# True if the driver, run with ARGS inside the MG namespace, exits RC and
# says something matching REGEX (its one-line reason).
refused() {
	local rc=$1 re=$2 got=0
	shift 2
	ip netns exec "$MG" "$PATHLAB" compare "$@" >"$TMP/err.log" 2>&1 || got=$?
	if [ "$got" != "$rc" ] || ! grep -Eq -- "$re" "$TMP/err.log"; then
		echo "     compare $*: exit $got (want $rc), output:"
		sed 's/^/     | /' "$TMP/err.log"
		return 1
	fi
	echo "     $(grep -Em1 -- "$re" "$TMP/err.log")"
}

# A veth pair NAME/NAMEp inside MG, both ends up unless DOWN is given.
mg_port() {
	ip -n "$MG" link add "$1" type veth peer name "$1p" &&
		ip -n "$MG" link set "$1p" up || return 1
	[ "${2:-}" = down ] || ip -n "$MG" link set "$1" up
}

# The namespace with a management interface: mg0 holds the default route;
# dt0 is a second port (address, up), dt1 is down, dt2 has no address.
# (veth pairs: this kernel has no dummy driver.)
make_mg() {
	ip netns add "$MG" || return 1
	ip -n "$MG" link set lo up &&
		mg_port mg0 && ip -n "$MG" addr add 192.0.2.2/24 dev mg0 &&
		ip -n "$MG" route add default via 192.0.2.1 dev mg0 &&
		mg_port dt0 && ip -n "$MG" addr add 198.51.100.2/24 dev dt0 &&
		mg_port dt1 down && ip -n "$MG" addr add 198.51.101.2/24 dev dt1 &&
		mg_port dt2
}

# One fake PCI function under $TMP/sys: ADDR VENDOR DRIVER [NETDEV].
fake_pci() {
	local d=$TMP/sys/bus/pci/devices/$1
	mkdir -p "$d" "$TMP/sys/bus/pci/drivers/$3"
	echo "$2" >"$d/vendor"
	[ "$3" = none ] || ln -s "../../../../bus/pci/drivers/$3" "$d/driver"
	[ -z "${4:-}" ] || mkdir -p "$d/net/$4"
}

# The pieces of a run that ran clean: one of the paced workloads of PATHS
# lost nothing (a busy machine can stall a receiver: then we run again).
paced_clean() {
	jq -e '[.runs[] | select(.workload == "latency" or
		.workload == "visibility") | .lost] | length > 0 and all(. == 0)' \
		"$1/results.json" >/dev/null 2>&1
}

# Compare inside the rx namespace on pl-rx0, the generator in the tx
# namespace; OUT is DIR. Up to three tries when a paced run lost packets.
ns_compare() {
	local dir=$1 try
	shift
	for try in 1 2 3; do
		rm -rf "$dir"
		ip -n "$TX" neigh del "$PL_RX_ADDR" dev "$PL_TX_IF" 2>/dev/null
		ns_exec rx "$PATHLAB" compare --iface "$PL_RX_IF" \
			--sender "ns:$TX" --sender-gen "$GEN" --trials 1 \
			--sender-if "$PL_TX_IF" --sender-cpu 0 --out "$dir" "$@" \
			>"$dir.log" 2>&1 || { tail -n 30 "$dir.log"; return 1; }
		paced_clean "$dir" && return 0
		echo "     try $try lost paced datagrams (a busy machine?); again"
	done
	return 1
}

# Run compare --sender-print in the background; run each printed command
# in the tx namespace as it appears; wait for compare. DIR, then options.
print_compare() {
	local dir=$1 n=0 i cmd rc=0
	shift
	rm -rf "$dir"
	: >"$dir.log"
	PATHLAB_SENDER_WAIT=60 ns_exec rx "$PATHLAB" compare \
		--iface "$PL_RX_IF" --sender-print --sender-gen "$GEN" --sender-cpu 0 \
		--out "$dir" "$@" >"$dir.log" 2>&1 &
	BG=$!
	for ((i = 0; i < 3000; i++)); do
		while [ "$(grep -c '^sender\$ ' "$dir.log")" -gt "$n" ]; do
			n=$((n + 1))
			cmd=$(grep '^sender\$ ' "$dir.log" | sed -n "${n}p")
			cmd=${cmd#sender\$ }
			echo "$cmd" >>"$dir.cmds"
			ip netns exec "$TX" sh -c "$cmd" >/dev/null 2>>"$dir.gen.err" ||
				echo "     the printed command failed: $cmd"
		done
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.1
	done
	wait "$BG" || rc=$?
	BG=""
	[ $rc = 0 ] || { tail -n 30 "$dir.log"; return 1; }
	[ "$n" -gt 0 ] || { echo "     no command was printed"; return 1; }
}

# True if the tx namespace holds no permanent neighbour entry for the rx
# address (compare set one for the run and removed it).
no_neigh_left() {
	! ip -n "$TX" neigh show "$PL_RX_ADDR" dev "$PL_TX_IF" | grep -q PERMANENT
}

# True if the run left nothing on pl-rx0 (no XDP program) and no process
# in either namespace.
left_now() {
	! ip -n "$(topo_ns rx)" -d link show dev "$PL_RX_IF" | grep -q 'prog/xdp' &&
		[ -z "$(ip netns pids "$(topo_ns rx)")" ] &&
		[ -z "$(ip netns pids "$TX")" ]
}
# A process compare ended may take a moment to be reaped: wait up to 3 s,
# then say what is still there.
nothing_left() {
	local _ pid
	for _ in $(seq 30); do
		left_now && return 0
		sleep 0.1
	done
	for pid in $(ip netns pids "$(topo_ns rx)") $(ip netns pids "$TX"); do
		echo "     left: $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
	done
	ip -n "$(topo_ns rx)" -d link show dev "$PL_RX_IF" | grep 'prog/xdp' |
		sed 's/^/     left: /'
	return 1
}

# pathlab-rx-socket --hw-stamps on veth: exit 77 and the reason.
hw_refused() {
	local rc=0
	ns_exec rx "$BUILD/kernel-stack/pathlab-rx-socket" --hw-stamps \
		--iface "$PL_RX_IF" --count 1 >"$TMP/hw.out" 2>"$TMP/hw.err" || rc=$?
	echo "     exit $rc: $(cat "$TMP/hw.err")"
	[ $rc = 77 ] && grep -q 'has no hardware RX stamps' "$TMP/hw.err"
}

need_compare jq tcpdump nsenter unshare

scratch_dir
on_exit cleanup
TMP=$SCRATCH
make_mg || { echo "FAIL: could not build namespace $MG"; exit 1; }
topo_up >/dev/null || { echo "FAIL: topo_up"; exit 1; }

echo "# argument errors and refusals (exit 2), in $MG"
check "--iface that does not exist" refused 2 'no such interface' \
	--iface nope0 --sender "ns:$TX"
check "--iface lo" refused 2 'loopback' --iface lo --sender "ns:$TX"
check "--iface of the default route" refused 2 "mg0: refused: it carries this machine's default route" \
	--iface mg0 --sender "ns:$TX"
check "--iface that is down" refused 2 'dt1: the interface is down' \
	--iface dt1 --sender "ns:$TX"
check "--iface without IPv4" refused 2 'dt2: no IPv4 address' \
	--iface dt2 --sender "ns:$TX"
check "--iface with the sender here" refused 2 'need the generator on another machine' \
	--iface dt0
check "--sender without --iface" refused 2 '--sender ns:.* is for two hosts' \
	--sender "ns:$TX"
check "--sender-print without --iface" refused 2 '--sender-print is for two hosts' \
	--sender-print
check "--sender-print and --sender" refused 2 'one or the other' \
	--iface dt0 --sender-print --sender "ns:$TX"
check "--sender that looks like an ssh option" refused 2 'a host name' \
	--iface dt0 --sender -oProxyCommand=true
check "--sender ns: of no namespace" refused 2 'no network namespace' \
	--iface dt0 --sender "ns:$PATHLAB_PREFIX-none"
check "--paths verbs with --iface of no RDMA device" refused 2 \
	'path verbs needs an RDMA device on --iface dt0: .*no RDMA device has a RoCE v2 GID for dt0' \
	--iface dt0 --sender-print --paths verbs
PATHLAB_QUEUES=2 check "PATHLAB_QUEUES with --iface" refused 2 \
	'PATHLAB_QUEUES shapes the lab' --iface dt0 --sender-print
check "--rx-addr without --pci" refused 2 '--rx-addr is for --pci' \
	--iface dt0 --sender-print --rx-addr 198.51.100.9

echo "# --pci refusals (a PCI tree of our own: PATHLAB_SYSFS)"
fake_pci 0000:01:00.0 0x15b3 mlx5_core mg0
fake_pci 0000:01:00.1 0x15b3 vfio-pci
fake_pci 0000:02:00.0 0x8086 ice dt0
fake_pci 0000:02:00.1 0x8086 none
fake_pci 0000:03:00.0 0x15b3 mlx5_core dt0
fake_pci 0000:04:00.0 0x15b3 mlx5_core dt2
export PATHLAB_SYSFS=$TMP/sys
check "--pci not a full address" refused 2 'give the full PCI address' \
	--pci 3b:00.0 --sender-print
check "--pci of no device" refused 2 'no such PCI device' \
	--pci 0000:09:00.0 --sender-print
check "--pci of the default route's port" refused 2 'it is mg0, the interface of this machine.s default route' \
	--pci 0000:01:00.0 --sender-print
check "--pci of a ConnectX on vfio-pci" refused 2 'ConnectX \(mlx5\) is bifurcated.*never to vfio-pci' \
	--pci 0000:01:00.1 --sender-print --rx-addr 198.51.100.9
check "--pci of a port on its kernel driver (ice)" refused 2 'on its kernel driver ice.*binds no driver' \
	--pci 0000:02:00.0 --sender-print
check "--pci of a port with no driver" refused 2 'no driver is bound' \
	--pci 0000:02:00.1 --sender-print
check "--pci with --paths socket" refused 2 'the dpdk path alone' \
	--pci 0000:03:00.0 --sender-print --paths socket
if [ -x "$BUILD/dpdk/pathlab-rx-dpdk" ]; then
	check "--pci of a ConnectX on mlx5_core: accepted (--check)" refused 0 \
		'DPDK port 0000:03:00.0 on mlx5_core \(bifurcated' \
		--pci 0000:03:00.0 --sender-print --check
	check "--iface and --pci of two ports" refused 2 'are two ports' \
		--iface dt0 --pci 0000:04:00.0 --sender-print
else
	check "--pci without the dpdk path built" refused 2 'dpdk path, which is not built' \
		--pci 0000:03:00.0 --sender-print
fi
unset PATHLAB_SYSFS

echo "# --sender HOST goes through ssh (BatchMode): an unreachable host fails, exit 1"
if command -v ssh >/dev/null; then
	check "ssh to a host that does not answer" refused 1 'the sender .* did not answer' \
		--iface dt0 --sender 192.0.2.1 --check
fi

echo "# --hw-stamps on veth"
check "pathlab-rx-socket --hw-stamps on veth: exit 77, the reason" hw_refused

PATHS=socket
[ -x "$BUILD/af-xdp/pathlab-rx-xsk" ] && PATHS="socket afxdp"
for P in $PATHS; do
	echo "# two hosts through the stand-in: compare --iface $PL_RX_IF --sender ns:$TX --paths $P"
	OUT=$TMP/ns-$P
	check "$P: compare ran (inside $(topo_ns rx)), paced runs lost nothing" \
		ns_compare "$OUT" --paths "$P" --sizes 64 --count 10000 || continue
	check "$P: three workloads, each sent from $TX to pl-rx0" res \
		'[.runs[] | select(.workload == "throughput" or
			.workload == "latency" or .workload == "visibility")]
		| length == 3
		and all(.sender.kind == "ns" and .sender.clock_shared
			and .sender.rx_addr == "198.18.0.2"
			and .sender.rx_iface == "pl-rx0"
			and .sender.sender_iface == "pl-tx0"
			and .sent_source == "generator"
			and .sent == .gen.sent and (.env | startswith("veth")))'
	check "$P: throughput: 10000 sent, lost = sent - received" res \
		'all(.runs[] | select(.workload == "throughput");
			.sent == 10000 and .received > 0
			and .lost == .sent - .received)'
	check "$P: latency: 10000 paced at 10 kpps, every one received" res \
		'all(.runs[] | select(.workload == "latency");
			.sent == 10000 and .received == 10000)'
	check "$P: visibility: 5000 paced at 20 kpps, every one received" res \
		'all(.runs[] | select(.workload == "visibility");
			.sent == 5000 and .received == 5000)'
	if [ "$P" = socket ]; then
		check "socket: tcpdump saw the 5000 (the stack has them)" res \
			'all(.runs[] | select(.workload == "visibility");
				.tcpdump_seen == 5000)'
		check "socket: latency split by software stamps, labelled (veth has no clock)" res \
			'[.runs[] | {(.workload): .rx_stamp_source}] | add
			| .latency == "software" and .throughput == "none"'
	fi
	check "$P: compare set the sender's neighbour entry for the run" \
		grep -q "neighbour 198.18.0.2 lladdr $PL_RX_MAC on pl-tx0 set" "$OUT.log"
	grep -E '^pathlab: (receiver|sender|hardware)' "$OUT.log" | sed 's/^/     /'
done
check "the neighbour entry compare set on the sender is gone" no_neigh_left
check "nothing left on $PL_RX_IF or in the namespaces" nothing_left
ip -n "$TX" neigh replace "$PL_RX_ADDR" lladdr "$PL_RX_MAC" dev "$PL_TX_IF" nud permanent

echo "# --sender-print: the printed commands, run in $TX, complete the runs"
OUT=$TMP/print
if check "compare --sender-print ran" print_compare "$OUT" --paths socket \
	--sizes 64 --quick; then
	check "four commands printed (three workloads and rtt), each a pathlab-gen to 198.18.0.2" \
		test "$(grep -c -- "^$GEN --dst 198.18.0.2 --port 9000 --size 64 --count" "$OUT.cmds")" = 4
	check "the rtt run's command is a ping-pong" \
		grep -q -- "--pingpong --warmup 100" "$OUT.cmds"
	check "each run labelled: printed, with its command" res \
		'(.runs | length) == 4 and all(.runs[]; .sender.kind == "print"
			and (.gen.printed_command | test("--dst 198.18.0.2")))'
	check "paced runs: all received, sent counted by the receiver" res \
		'all(.runs[] | select(.workload != "throughput");
			.received == .sent and .sent > 0
			and (.sent_source == "end_marker" or .sent_source == "sequence"))'
	check "throughput: the end marker's count (or, if every marker was lost, the sequence's)" res \
		'all(.runs[] | select(.workload == "throughput");
			(.sent_source == "end_marker" and .sent == 20000)
			or (.sent_source == "sequence" and .sent <= 20000))'
fi
check "nothing left after --sender-print" nothing_left

finish hosts
