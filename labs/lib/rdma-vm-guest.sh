#!/bin/bash
# SPDX-License-Identifier: MIT
# rdma-vm-guest.sh TOPO CMD... - runs inside the rdma-vm guest (chrooted
# into the host's root): make the Soft-RoCE devices, then run CMD.
#
# veth: rxe0 on pl-tx (10.77.0.1) and rxe1 on pl-rx (10.77.0.2), the two
# ends of a veth pair, so every RoCE v2 packet really crosses a network
# device (tcpdump -i pl-rx sees UDP to port 4791).
# Simplification: both ends stay in the initial network namespace. This
# kernel's rxe opens its UDP port 4791 socket in the initial namespace only,
# so an rxe device on a link in another namespace never receives. Instead,
# policy routing sends traffic bound to one end's device out of that device
# (the local table would otherwise short-cut it through lo), and
# accept_local lets the other end take packets from an address of its own.
#
# loopback: one rxe0 on a dummy device; sender and receiver share it and
# rxe hands packets from one QP to the other without any device ("rxe
# loopback").
set -eu
topo=$1
shift
NET=10.77.0

# Write VALUE to a sysctl given as a /proc/sys path.
set_sysctl() {
	echo "$2" >"/proc/sys/$1"
}

# Wait until DEV has a RoCE v2 GID for the IPv4 address ADDR.
wait_gid() {
	local dev=$1 addr=$2 hex _
	# shellcheck disable=SC2086 # the four octets as four arguments
	hex=$(printf '%02x%02x:%02x%02x' ${addr//./ })
	for _ in $(seq 100); do
		grep -qs "0000:0000:0000:0000:0000:ffff:$hex" \
			/sys/class/infiniband/"$dev"/ports/1/gids/* && return 0
		sleep 0.05
	done
	echo "rdma-vm guest: $dev has no GID for $addr" >&2
	return 1
}

# As the host's lab does (labs/lib/topo.sh): pl-rx receives with NAPI in
# a kernel thread pinned to the receive CPU (1, or 0 with one vCPU), so
# rxe's receive work, which runs from the UDP receive in that thread, is
# charged to the receiving core rather than done on the sender's.
napi_on_rx_core() {
	local cpu=0 pid comm d
	[ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ] || cpu=1
	ethtool -K pl-tx tso off >/dev/null
	ethtool -K pl-rx gro on >/dev/null
	echo 1 >/sys/class/net/pl-rx/threaded
	for d in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$d/comm" || continue
		pid=${d#/proc/}
		case $comm in napi/pl-rx-*) taskset -p -c "$cpu" "$pid" >/dev/null ;; esac
	done
}

# Two rxe devices joined by a veth pair, in one namespace (see above).
topo_veth() {
	local tx_mac rx_mac f
	ip link add pl-tx type veth peer name pl-rx
	ip addr add $NET.1/24 dev pl-tx
	ip addr add $NET.2/24 dev pl-rx
	ip link set pl-tx up
	ip link set pl-rx up
	for f in all default pl-tx pl-rx; do
		set_sysctl net/ipv4/conf/$f/rp_filter 0
		set_sysctl net/ipv4/conf/$f/accept_local 1
	done
	# Lookups that name an outgoing device go out of it: the local
	# table (normally first) moves behind two per-device tables.
	ip rule add pref 1000 lookup local
	ip rule del pref 0
	ip rule add pref 100 oif pl-tx lookup 100
	ip rule add pref 101 oif pl-rx lookup 101
	ip route add $NET.2/32 dev pl-tx src $NET.1 table 100
	ip route add $NET.1/32 dev pl-rx src $NET.2 table 101
	tx_mac=$(cat /sys/class/net/pl-tx/address)
	rx_mac=$(cat /sys/class/net/pl-rx/address)
	ip neigh replace $NET.2 lladdr "$rx_mac" dev pl-tx nud permanent
	ip neigh replace $NET.1 lladdr "$tx_mac" dev pl-rx nud permanent
	napi_on_rx_core
	rdma link add rxe0 type rxe netdev pl-tx
	rdma link add rxe1 type rxe netdev pl-rx
	wait_gid rxe0 $NET.1
	wait_gid rxe1 $NET.2
	export PL_VM_TX_DEV=rxe0 PL_VM_TX_IF=pl-tx PL_VM_TX_ADDR=$NET.1
	export PL_VM_RX_DEV=rxe1 PL_VM_RX_IF=pl-rx PL_VM_RX_ADDR=$NET.2
}

# One rxe device on a dummy link: both ends use it.
topo_loopback() {
	ip link add pl-dummy type dummy 2>/dev/null || true
	ip addr add $NET.1/24 dev pl-dummy
	ip link set pl-dummy up
	rdma link add rxe0 type rxe netdev pl-dummy
	wait_gid rxe0 $NET.1
	export PL_VM_TX_DEV=rxe0 PL_VM_TX_IF=pl-dummy PL_VM_TX_ADDR=$NET.1
	export PL_VM_RX_DEV=rxe0 PL_VM_RX_IF=pl-dummy PL_VM_RX_ADDR=$NET.1
}

ip link set lo up
ulimit -l unlimited
case $topo in
veth) topo_veth ;;
loopback) topo_loopback ;;
*) echo "rdma-vm guest: unknown topology $topo" >&2; exit 99 ;;
esac
export PL_VM_TOPO=$topo PL_VM_ENV=vm-softroce
# How the VM runs (the host's start script sets PL_VM_ACCEL).
PL_VM_CPUS=$(getconf _NPROCESSORS_ONLN)
PL_VM_KERNEL=$(uname -r)
export PL_VM_ACCEL=${PL_VM_ACCEL:-tcg} PL_VM_CPUS PL_VM_KERNEL
[ "$topo" != loopback ] || PL_VM_ENV=vm-softroce-rxe-loopback
exec "$@"
