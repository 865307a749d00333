#!/usr/bin/env bash
# topology.sh - the lab topology: idempotent up, status, reachability without
# ARP, processes inside, teardown that leaves nothing, recovery of a half-built
# topology, cleanup after a failed setup, parallel prefixes.
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`).
# shellcheck source-path=SCRIPTDIR
set -u

# shellcheck source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
PREFIX_A=pltopo$$a
PREFIX_B=pltopo$$b
BG_PIDS=()

# Tear down both test prefixes and stop anything this test started.
cleanup() {
	local pid
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null
	done
	PATHLAB_PREFIX=$PREFIX_A topo_down >/dev/null 2>&1
	PATHLAB_PREFIX=$PREFIX_B topo_down >/dev/null 2>&1
}

need_netns
need_tools nsenter unshare flock jq

# shellcheck source=../../labs/lib/topo.sh
. "$ROOT/labs/lib/topo.sh"
on_exit cleanup

# Run CMD... with the lab prefix P (and PATHLAB_QUEUES Q if not empty).
in_lab() {
	# shellcheck disable=SC2034 # read by the topo_* functions
	local PATHLAB_PREFIX=$1 PATHLAB_QUEUES=${2:-1}
	shift 2
	"$@"
}

# True if topo_up fails for prefix P with Q queues.
up_fails() {
	! in_lab "$1" "$2" topo_up 2>/dev/null
}

# True if the lab with prefix P and Q queues shows Q queues each way.
has_queues() {
	in_lab "$1" "$2" topo_status | grep -q "queues rx $2 tx $2"
}

# True if the lab of P is up for a caller that sets no PATHLAB_QUEUES.
up_any_queues() {
	(
		unset PATHLAB_QUEUES
		PATHLAB_PREFIX=$1 topo_status >/dev/null 2>&1
	)
}

# True if the rx namespace of P sees pl-rx0 in /sys but not pl-tx0.
own_sysfs() {
	in_lab "$1" "" ns_exec rx test -e /sys/class/net/pl-rx0 &&
		! in_lab "$1" "" ns_exec rx test -e /sys/class/net/pl-tx0
}

# True if topo_status of P lists a process whose command line has TEXT.
lists_process() {
	in_lab "$1" "" topo_status | grep -q -- "$2"
}

# Wait for both PIDs; true if both succeeded.
wait_both() {
	local rc=0
	wait "$1" || rc=1
	wait "$2" || rc=1
	return $rc
}

# The status of prefix P wanting Q queues (default 1): 0 up, 1 down, 2 partial.
status_of() {
	in_lab "$1" "${2:-1}" topo_status >/dev/null 2>&1
	echo $?
}

# True if the status of prefix P (wanting Q queues, default 1) is S.
status_is() {
	[ "$(status_of "$1" "${3:-}")" = "$2" ]
}

# Read a counter of pl-rx0 through the namespace's own sysfs.
rx_packets() {
	PATHLAB_PREFIX=$1 ns_exec rx cat /sys/class/net/pl-rx0/statistics/rx_packets
}

# Read Udp NoPorts in the rx namespace of prefix P.
udp_noports() {
	# shellcheck disable=SC2016 # awk's $3
	PATHLAB_PREFIX=$1 ns_exec rx awk \
		'/^Udp:/ { if (h) { print $3; exit } h = 1 }' /proc/net/snmp
}

# Send N datagrams from tx to 198.18.0.2:9 (no listener) with bash /dev/udp.
send_udp() {
	local p=$1 n=$2 i
	for ((i = 0; i < n; i++)); do
		PATHLAB_PREFIX=$p ns_exec tx bash -c \
			'exec 3<>/dev/udp/198.18.0.2/9 && printf x >&3' 2>/dev/null
	done
	return 0
}

# True if N datagrams sent over prefix P arrive (link and UDP counters).
reachable() {
	local p=$1 n=3 l0 u0 l1 u1
	l0=$(rx_packets "$p") && u0=$(udp_noports "$p") || return 1
	send_udp "$p" $n
	sleep 0.2
	l1=$(rx_packets "$p") && u1=$(udp_noports "$p") || return 1
	echo "     $p: link rx +$((l1 - l0)), Udp NoPorts +$((u1 - u0))"
	[ $((l1 - l0)) -eq $n ] && [ $((u1 - u0)) -eq $n ]
}

# True if no ARP entry of the lab was learnt dynamically (all permanent).
no_arp_needed() {
	PATHLAB_PREFIX=$1 ns_exec tx ip -j neigh show dev pl-tx0 |
		jq -e 'length == 1 and all(.[]; any(.state[]; . == "PERMANENT"))' \
			>/dev/null
}

# True if nothing of prefix P is left: no namespace, no pl-* link at root.
nothing_left() {
	local p=$1
	if ip netns list | grep -q "^$p-"; then
		echo "     left: $(ip netns list | grep "^$p-" | tr '\n' ' ')"
		return 1
	fi
	if ip -o link show | grep -q ': pl-'; then
		echo "     left in the root namespace: pl-* link"
		return 1
	fi
}

# True if PID is gone (or a zombie).
gone() {
	! kill -0 "$1" 2>/dev/null ||
		[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]
}

# True if the driver, killed with SIGKILL mid-run, leaves only what down ends.
killed_driver_recovers() {
	local drv child pid
	PATHLAB_PREFIX=$PREFIX_A "$ROOT/labs/pathlab" exec rx sleep 300 &
	drv=$!
	BG_PIDS+=("$drv")
	# The sleep itself, not a process on its way to exec it.
	for _ in $(seq 50); do
		child=""
		for pid in $(ip netns pids "$PREFIX_A-rx" 2>/dev/null); do
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && child=$pid
		done
		[ -n "$child" ] && break
		sleep 0.1
	done
	[ -n "$child" ] || { echo "     no process appeared in $PREFIX_A-rx"; return 1; }
	kill -KILL "$drv"
	wait "$drv" 2>/dev/null
	echo "     driver $drv killed; $child still in $PREFIX_A-rx"
	PATHLAB_PREFIX=$PREFIX_A topo_status | grep -q "$child" || return 1
	PATHLAB_PREFIX=$PREFIX_A topo_down || return 1
	gone "$child"
}

echo "# up twice, status"
check "up" in_lab "$PREFIX_A" "" topo_up
check "up again (no-op)" in_lab "$PREFIX_A" "" topo_up
check "status says up" status_is "$PREFIX_A" 0
PATHLAB_PREFIX=$PREFIX_A topo_status | sed 's/^/     /'

echo "# reachability without ARP"
check "3 UDP datagrams tx -> rx" reachable "$PREFIX_A"
check "neighbours static, no ARP" no_arp_needed "$PREFIX_A"
check "rx sysfs is the namespace's" own_sysfs "$PREFIX_A"

echo "# processes inside the rx namespace"
PATHLAB_PREFIX=$PREFIX_A ns_spawn SLEEPER rx sleep 300
BG_PIDS+=("$SLEEPER")
sleep 0.3
check "status lists the process" lists_process "$PREFIX_A" "sleep 300"
kill -KILL "$SLEEPER"
wait "$SLEEPER" 2>/dev/null
check "kill -9 ends it" gone "$SLEEPER"
check "driver killed with -9: down ends its child" killed_driver_recovers

echo "# down"
check "up (again)" in_lab "$PREFIX_A" "" topo_up
PATHLAB_PREFIX=$PREFIX_A ns_spawn SLEEPER rx sleep 300
BG_PIDS+=("$SLEEPER")
check "down" in_lab "$PREFIX_A" "" topo_down
check "down ended the process inside" gone "$SLEEPER"
check "nothing left" nothing_left "$PREFIX_A"
check "status says down" status_is "$PREFIX_A" 1
check "down again (nothing there)" in_lab "$PREFIX_A" "" topo_down

echo "# half-built topology"
# As a build that stopped half way leaves it: one namespace, marked ours
# (a namespace of someone else's with the lab's name: tests/netns/topo-ours.sh).
topo__ns_add "$PREFIX_A-tx"
check "status says partial" status_is "$PREFIX_A" 2
check "up rebuilds it" in_lab "$PREFIX_A" "" topo_up
check "status says up" status_is "$PREFIX_A" 0
ip -n "$PREFIX_A-rx" link set dev pl-rx0 down
check "a link down is partial" status_is "$PREFIX_A" 2
check "up repairs it" in_lab "$PREFIX_A" "" topo_up
check "reachable after repair" reachable "$PREFIX_A"
in_lab "$PREFIX_A" "" topo_down

echo "# failed setup cleans up"
check "up with 5000 queues fails" up_fails "$PREFIX_A" 5000
check "nothing left after the failure" nothing_left "$PREFIX_A"
check "up with 4 queues" in_lab "$PREFIX_A" 4 topo_up
check "4 queues each way" has_queues "$PREFIX_A" 4
check "up for a caller without PATHLAB_QUEUES" up_any_queues "$PREFIX_A"
check "partial for one that wants 1 queue" status_is "$PREFIX_A" 2 1
check "up for one that wants 4 queues" status_is "$PREFIX_A" 0 4
in_lab "$PREFIX_A" "" topo_down

echo "# parallel prefixes"
(PATHLAB_PREFIX=$PREFIX_A topo_up) &
pa=$!
(PATHLAB_PREFIX=$PREFIX_B topo_up) &
pb=$!
check "two ups at once" wait_both "$pa" "$pb"
check "$PREFIX_A up" status_is "$PREFIX_A" 0
check "$PREFIX_B up" status_is "$PREFIX_B" 0
b0=$(rx_packets "$PREFIX_B")
check "traffic on $PREFIX_A" reachable "$PREFIX_A"
check "none of it on $PREFIX_B" test "$(rx_packets "$PREFIX_B")" = "$b0"
in_lab "$PREFIX_A" "" topo_down
check "$PREFIX_B still up after $PREFIX_A is down" status_is "$PREFIX_B" 0
in_lab "$PREFIX_B" "" topo_down
check "nothing left of $PREFIX_A" nothing_left "$PREFIX_A"
check "nothing left of $PREFIX_B" nothing_left "$PREFIX_B"

finish topology
