# shellcheck shell=bash disable=SC2034 # globals read by compare.sh
# SPDX-License-Identifier: MIT
# verbs-host.sh - where the verbs rows of `pathlab compare` run: directly on
# this machine's RDMA devices ("direct mode"), or in the Soft-RoCE VM
# (labs/rdma-vm) when there is none.
#
# An endpoint is one ACTIVE RoCE (Ethernet) port with a RoCE v2 GID that
# holds an IPv4 address, read from sysfs under PATHLAB_SYSFS (default /sys;
# tests point it at a fake tree). vh_scan lists them as lines
#   DEV PORT GID_INDEX IPV4 NETDEV KIND
# KIND is nic when the device has a bus device behind it (sysfs "device"
# link: a PCI NIC) and soft when it has none (rxe, siw: software RDMA).
# With one endpoint both ends share it and the NIC loops the traffic back;
# with two or more the receiver takes the first and the sender the second.
# PATHLAB_VERBS_RX and PATHLAB_VERBS_TX (DEV or DEV:PORT) choose instead.
#
# Sourced by labs/pathlab (compare.sh calls vh_where; hosts.sh, for two
# hosts, vh_netdev_end: the port of --iface IF) and by rdma-vm-compare.sh
# --direct (vh_scan, vh_select and the labels) and --peer (vh_netdev_end).

VH_CHOICES="host vm auto"
VH_WHERE=vm
VH_ENDS=()
VH_WHY=()
VH_RX=""
VH_TX=""

# Print the directory that lists the RDMA devices.
vh_dir() {
	echo "${PATHLAB_SYSFS:-/sys}/class/infiniband"
}

# True if WHERE is one of host, vm, auto; else say so and return 2 (usage).
vh_choice_ok() {
	case " $VH_CHOICES " in
	*" $1 "*) return 0 ;;
	esac
	echo "pathlab: --verbs-on '$1': one of host, vm or auto" >&2
	return 2
}

# Print the dotted IPv4 address of an IPv4-mapped GID, or nothing.
vh_gid_ipv4() {
	local h
	h=$(sed -n 's/^0000:0000:0000:0000:0000:ffff:\(....\):\(....\)$/\1\2/p' <<<"$1")
	[ -n "$h" ] || return 0
	printf '%d.%d.%d.%d\n' "0x${h:0:2}" "0x${h:2:2}" "0x${h:4:2}" "0x${h:6:2}"
}

# Print the GID indexes of port directory PORT that hold an IPv4-mapped
# GID, in table order (one grep over the whole table: mlx5 has 255 and
# rxe 1024 entries).
vh_ipv4_gids() {
	grep -l '^0000:0000:0000:0000:0000:ffff:' "$1"/gids/* 2>/dev/null |
		awk -F/ '{ print $NF }' | sort -n
}

# The endpoint of device directory DEV's port directory PORT: append its
# line to VH_ENDS, or the reason it cannot be one to VH_WHY.
vh_port() {
	local d=$1 p=$2 dev=${1##*/} port=${2##*/} state ll i gid ip kind=soft
	state=$(cat "$p/state" 2>/dev/null) || state="no state"
	if [[ $state != *ACTIVE* ]]; then
		VH_WHY+=("$dev port $port is ${state#*: }, not ACTIVE")
		return 0
	fi
	ll=$(cat "$p/link_layer" 2>/dev/null) || ll=unknown
	if [ "$ll" != Ethernet ]; then
		VH_WHY+=("$dev port $port: link layer $ll, not Ethernet (RoCE)")
		return 0
	fi
	[ ! -e "$d/device" ] || kind=nic
	for i in $(vh_ipv4_gids "$p"); do
		[ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
		gid=$(cat "$p/gids/$i" 2>/dev/null) || continue
		ip=$(vh_gid_ipv4 "$gid")
		[ -n "$ip" ] || continue
		VH_ENDS+=("$dev $port $i $ip $(cat "$p/gid_attrs/ndevs/$i" 2>/dev/null || echo -) $kind")
		return 0
	done
	VH_WHY+=("$dev port $port has no RoCE v2 GID with an IPv4 address (no IPv4 address on its network device?)")
}

# The endpoint of network device NETDEV for two hosts: the ACTIVE RoCE
# port whose RoCE v2 GID holds NETDEV's IPv4 address ADDR (any IPv4 GID of
# NETDEV when ADDR is empty), as an endpoint line into VH_RX; return 1,
# with the reason in VH_WHY, when there is none.
vh_netdev_end() {
	local ifn=$1 want=$2 d p i ip kind state
	VH_RX=""
	VH_WHY=()
	for d in "$(vh_dir)"/*; do
		[ -e "$d" ] || continue
		kind=soft
		[ ! -e "$d/device" ] || kind=nic
		for p in "$d"/ports/*; do
			[ -d "$p" ] || continue
			for i in $(vh_ipv4_gids "$p"); do
				[ "$(cat "$p/gid_attrs/ndevs/$i" 2>/dev/null)" = "$ifn" ] || continue
				[ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
				ip=$(vh_gid_ipv4 "$(cat "$p/gids/$i" 2>/dev/null)")
				[ -n "$ip" ] || continue
				[ -z "$want" ] || [ "$ip" = "$want" ] || continue
				state=$(cat "$p/state" 2>/dev/null) || state="no state"
				if [[ $state != *ACTIVE* ]]; then
					VH_WHY+=("${d##*/} port ${p##*/} is ${state#*: }, not ACTIVE")
					continue 2
				fi
				VH_RX="${d##*/} ${p##*/} $i $ip $ifn $kind"
				return 0
			done
		done
	done
	[ ${#VH_WHY[@]} -gt 0 ] ||
		VH_WHY+=("no RDMA device has a RoCE v2 GID for $ifn${want:+ ($want)}")
	return 1
}

# Print the devices ibv_devices lists, one per line; nothing (and fail)
# when the tree is a fake one or ibv_devices is not installed.
vh_ibv_devices() {
	[ -z "${PATHLAB_SYSFS:-}" ] && command -v ibv_devices >/dev/null || return 1
	ibv_devices 2>/dev/null | awk 'NR > 2 && NF { print $1 }'
}

# Fill VH_ENDS with this machine's endpoints and VH_WHY with why the other
# devices and ports are not.
vh_scan() {
	local d p listed="" check=0
	VH_ENDS=()
	VH_WHY=()
	if listed=$(vh_ibv_devices); then check=1; fi
	for d in "$(vh_dir)"/*; do
		[ -e "$d" ] || continue
		if [ $check = 1 ] && ! grep -qx "${d##*/}" <<<"$listed"; then
			VH_WHY+=("${d##*/} is in sysfs but ibv_devices does not list it (its user-space provider, ibverbs-providers, missing?)")
			continue
		fi
		for p in "$d"/ports/*; do
			[ -d "$p" ] && vh_port "$d" "$p"
		done
	done
}

# Print the endpoint line matching SPEC (DEV or DEV:PORT); fail if none.
vh_find() {
	local spec=$1 e dev port f
	dev=${spec%%:*}
	port=${spec#"$dev"}
	port=${port#:}
	for e in "${VH_ENDS[@]}"; do
		read -r -a f <<<"$e"
		if [ "${f[0]}" = "$dev" ] && { [ -z "$port" ] || [ "${f[1]}" = "$port" ]; }; then
			echo "$e"
			return 0
		fi
	done
	return 1
}

# Choose the receiver's and the sender's endpoints into VH_RX and VH_TX:
# the overrides, else the first two endpoints, else one for both. Return
# 1 when there is no endpoint, 2 when an override names none.
vh_select() {
	local rx=${PATHLAB_VERBS_RX:-} tx=${PATHLAB_VERBS_TX:-} e
	VH_RX=""
	VH_TX=""
	[ ${#VH_ENDS[@]} -gt 0 ] || return 1
	VH_RX=${VH_ENDS[0]}
	if [ -n "$rx" ] && ! VH_RX=$(vh_find "$rx"); then
		echo "pathlab: PATHLAB_VERBS_RX=$rx: no such usable device/port (have: $(vh_list))" >&2
		return 2
	fi
	if [ -n "$tx" ]; then
		if ! VH_TX=$(vh_find "$tx"); then
			echo "pathlab: PATHLAB_VERBS_TX=$tx: no such usable device/port (have: $(vh_list))" >&2
			return 2
		fi
		return 0
	fi
	VH_TX=$VH_RX
	for e in "${VH_ENDS[@]}"; do
		[ "$e" = "$VH_RX" ] || { VH_TX=$e; break; }
	done
}

# Print the endpoints as "DEV:PORT" words, or "none".
vh_list() {
	local e f out=""
	for e in "${VH_ENDS[@]}"; do
		read -r -a f <<<"$e"
		out+=${out:+ }${f[0]}:${f[1]}
	done
	echo "${out:-none}"
}

# Print what the scan looked at and found, for a message.
vh_looked() {
	local dir why
	dir=$(vh_dir)
	if [ ${#VH_WHY[@]} -eq 0 ]; then
		why="no RDMA device there"
	else
		why=$(printf '%s; ' "${VH_WHY[@]}")
		why=${why%; }
	fi
	echo "looked at $dir: $why"
}

# Decide where the verbs rows run for --verbs-on WANT: set VH_WHERE (and,
# for host, VH_RX and VH_TX). Return 2, with a message naming what was
# looked at, when WANT is host and there is nothing to run on.
vh_where() {
	local want=$1 rc=0
	VH_WHERE=vm
	vh_choice_ok "$want" || return 2
	[ "$want" != vm ] || return 0
	vh_scan
	vh_select || rc=$?
	[ $rc != 2 ] || return 2
	if [ $rc = 0 ]; then
		VH_WHERE=host
		return 0
	fi
	if [ "$want" = host ]; then
		echo "pathlab: --verbs-on host: no RDMA device to run the verbs rows on ($(vh_looked)); use --verbs-on vm or auto for the Soft-RoCE VM" >&2
		return 2
	fi
	[ ${#VH_WHY[@]} -eq 0 ] ||
		echo "pathlab: verbs: this host's RDMA devices cannot run it ($(vh_looked)): the Soft-RoCE VM instead"
}

# Print the env label of direct runs: nic (two ports of real NICs),
# nic-loopback (one port for both ends), softroce or
# softroce-rxe-loopback (software RDMA devices on this machine).
vh_env_label() {
	local rx tx label=nic
	read -r -a rx <<<"$VH_RX"
	read -r -a tx <<<"$VH_TX"
	[ "${rx[5]}" = nic ] && [ "${tx[5]}" = nic ] || label=softroce
	if [ "$VH_RX" = "$VH_TX" ]; then
		[ $label = nic ] && label=nic-loopback || label=softroce-rxe-loopback
	fi
	echo "$label"
}

# Print one endpoint line as "DEV port P (GID i, ADDR, NETDEV)".
vh_describe() {
	local f
	read -r -a f <<<"$1"
	echo "${f[0]} port ${f[1]} (GID ${f[2]}, ${f[3]}, ${f[4]})"
}

# Print the note of direct runs: which devices, and what that means.
vh_env_note() {
	local label
	label=$(vh_env_label)
	case $label in
	nic) echo "direct on this host's RDMA NICs, two ports: receiver on $(vh_describe "$VH_RX"), sender on $(vh_describe "$VH_TX")" ;;
	nic-loopback) echo "direct on this host's RDMA NIC, one port, loopback through the NIC: receiver and sender on $(vh_describe "$VH_RX")" ;;
	softroce) echo "direct on this machine's software RDMA devices (rxe/siw, no NIC): receiver on $(vh_describe "$VH_RX"), sender on $(vh_describe "$VH_TX")" ;;
	*) echo "direct on this machine's software RDMA device (rxe/siw, no NIC), one device, loopback in software: receiver and sender on $(vh_describe "$VH_RX")" ;;
	esac
}
