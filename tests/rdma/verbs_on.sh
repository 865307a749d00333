#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verbs_on.sh - where `pathlab compare` runs the verbs rows, without any
# RDMA device or VM: labs/lib/verbs-host.sh on fake sysfs trees
# (PATHLAB_SYSFS) with NICs, software devices, ports down, InfiniBand and
# no IPv4 GID; --verbs-on parsing; and, as root, the real CLI refusing
# `--verbs-on host` where there is no device, with the message that says
# what it looked at.
# Exit 0 pass, 1 fail.
# shellcheck source-path=SCRIPTDIR
set -u
# shellcheck source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
# shellcheck source=../../labs/lib/verbs-host.sh
. "$ROOT/labs/lib/verbs-host.sh"
scratch_dir
T=$SCRATCH
unset PATHLAB_VERBS_RX PATHLAB_VERBS_TX

# mkdev TREE DEV KIND PORT STATE LINK_LAYER [IDX=GID=TYPE=NETDEV]...: a
# fake sysfs device; KIND nic gets a bus "device" link, soft none.
mkdev() {
	local tree=$1 dev=$2 kind=$3 port=$4 state=$5 ll=$6 e idx gid type ndev
	local d=$tree/devices/virtual/infiniband/$dev p
	shift 6
	if [ "$kind" = nic ]; then
		d=$tree/devices/pci0000:00/0000:00:0$((RANDOM % 9)).0/infiniband/$dev
		mkdir -p "$d" && ln -sfn ../.. "$d/device"
	fi
	p=$d/ports/$port
	mkdir -p "$p/gids" "$p/gid_attrs/types" "$p/gid_attrs/ndevs" "$tree/class/infiniband"
	ln -sfn "$d" "$tree/class/infiniband/$dev"
	echo "$state" >"$p/state"
	echo "$ll" >"$p/link_layer"
	for idx in $(seq 0 15); do
		echo 0000:0000:0000:0000:0000:0000:0000:0000 >"$p/gids/$idx"
	done
	for e in "$@"; do
		IFS='=' read -r idx gid type ndev <<<"$e"
		echo "$gid" >"$p/gids/$idx"
		echo "$type" >"$p/gid_attrs/types/$idx"
		echo "$ndev" >"$p/gid_attrs/ndevs/$idx"
	done
}

# The GID table of a ConnectX port with IPv4 ADDR (hex A:B) on NETDEV:
# RoCE v1 and v2 link-local GIDs, then v1 and v2 IPv4 ones; a second
# IPv4 v2 GID at index 12 must lose to index 3 (numeric, not text order).
cx_gids() {
	echo "0=fe80:0000:0000:0000:0202:c9ff:fe00:0001=IB/RoCE v1=$3"
	echo "1=fe80:0000:0000:0000:0202:c9ff:fe00:0001=RoCE v2=$3"
	echo "2=0000:0000:0000:0000:0000:ffff:$1:$2=IB/RoCE v1=$3"
	echo "3=0000:0000:0000:0000:0000:ffff:$1:$2=RoCE v2=$3"
	echo "12=0000:0000:0000:0000:0000:ffff:c0a8:6301=RoCE v2=$3"
}

# where TREE WANT: run vh_where on TREE; leave VH_* set, its status in RC
# and what it printed (both streams) in MSG.
where() {
	export PATHLAB_SYSFS=$1
	MSG=$(vh_where "$2" 2>&1; echo "rc=$?")
	RC=${MSG##*rc=}
	MSG=${MSG%rc=*}
	vh_where "$2" >/dev/null 2>&1
}

# True if the last where had status RC, chose WHERE and printed PATTERN
# (an extended regex; empty: printed nothing).
# shellcheck disable=SC2317 # called through check
said() {
	if [ "$RC" != "$1" ] || [ "$VH_WHERE" != "$2" ]; then
		echo "     rc $RC, where $VH_WHERE: $MSG"
		return 1
	fi
	if [ -z "$3" ]; then
		[ -z "${MSG//[[:space:]]/}" ] || { echo "     printed: $MSG"; return 1; }
	else
		grep -qE -- "$3" <<<"$MSG" || { echo "     no /$3/ in: $MSG"; return 1; }
	fi
}

# True if VH_RX, VH_TX and the label are as given.
# shellcheck disable=SC2317 # called through check
ends() {
	[ "$VH_RX" = "$1" ] && [ "$VH_TX" = "$2" ] && [ "$(vh_env_label)" = "$3" ] && return 0
	echo "     rx '$VH_RX' tx '$VH_TX' label $(vh_env_label)"
	return 1
}

# 1. Nothing there (an empty directory, or none at all as on this host).
mkdir -p "$T/empty/class/infiniband" "$T/none"
for tree in empty none; do
	where "$T/$tree" auto
	check "$tree: auto picks the VM, silently" said 0 vm ""
	where "$T/$tree" host
	check "$tree: host refused, naming what it looked at" said 2 vm \
		"^pathlab: --verbs-on host: no RDMA device .*looked at $T/$tree/class/infiniband: no RDMA device there.*--verbs-on vm or auto"
	where "$T/$tree" vm
	check "$tree: vm is the VM" said 0 vm ""
done

# 2. One ConnectX port: both ends on it, the NIC loops the traffic back.
mapfile -t g0 < <(cx_gids c0a8 070a ens1f0)
mkdev "$T/one" mlx5_0 nic 1 "4: ACTIVE" Ethernet "${g0[@]}"
where "$T/one" auto
check "one NIC port: auto runs direct" said 0 host ""
check "one NIC port: both ends on mlx5_0 port 1, GID 3 (first IPv4 RoCE v2), label nic-loopback" \
	ends "mlx5_0 1 3 192.168.7.10 ens1f0 nic" "mlx5_0 1 3 192.168.7.10 ens1f0 nic" nic-loopback
check "one NIC port: the note says loopback through the NIC" \
	grep -q "one port, loopback through the NIC: receiver and sender on mlx5_0 port 1 (GID 3, 192.168.7.10, ens1f0)" <<<"$(vh_env_note)"
where "$T/one" vm
check "one NIC port: --verbs-on vm still takes the VM" said 0 vm ""

# 3. Two ports (two devices, as ConnectX shows a dual-port card).
cp -a "$T/one" "$T/two"
mapfile -t g1 < <(cx_gids c0a8 070b ens1f1)
mkdev "$T/two" mlx5_1 nic 1 "4: ACTIVE" Ethernet "${g1[@]}"
where "$T/two" host
check "two NIC ports: host runs direct" said 0 host ""
check "two NIC ports: receiver on mlx5_0, sender on mlx5_1, label nic" \
	ends "mlx5_0 1 3 192.168.7.10 ens1f0 nic" "mlx5_1 1 3 192.168.7.11 ens1f1 nic" nic
check "two NIC ports: the note names both" \
	grep -q "two ports: receiver on mlx5_0 port 1 (GID 3, 192.168.7.10, ens1f0), sender on mlx5_1 port 1 (GID 3, 192.168.7.11, ens1f1)" <<<"$(vh_env_note)"
PATHLAB_VERBS_RX=mlx5_1 where "$T/two" auto
check "PATHLAB_VERBS_RX=mlx5_1: receiver there, sender on the other" \
	ends "mlx5_1 1 3 192.168.7.11 ens1f1 nic" "mlx5_0 1 3 192.168.7.10 ens1f0 nic" nic
PATHLAB_VERBS_RX=mlx5_1 PATHLAB_VERBS_TX=mlx5_1:1 where "$T/two" auto
check "PATHLAB_VERBS_RX/TX on one port: loopback" \
	ends "mlx5_1 1 3 192.168.7.11 ens1f1 nic" "mlx5_1 1 3 192.168.7.11 ens1f1 nic" nic-loopback
PATHLAB_VERBS_TX=mlx5_0:2 where "$T/two" auto
check "PATHLAB_VERBS_TX naming no usable port: refused, listing the usable ones" \
	said 2 vm "PATHLAB_VERBS_TX=mlx5_0:2: no such usable device/port \(have: mlx5_0:1 mlx5_1:1\)"

# 4. Devices that cannot serve: port down, InfiniBand, no IPv4 GID.
mkdev "$T/bad" mlx5_0 nic 1 "1: DOWN" Ethernet "${g0[@]}"
mkdev "$T/bad" mlx5_1 nic 1 "4: ACTIVE" InfiniBand "${g1[@]}"
mkdev "$T/bad" mlx5_2 nic 1 "4: ACTIVE" Ethernet "0=fe80:0000:0000:0000:0202:c9ff:fe00:0003=RoCE v2=ens2"
where "$T/bad" auto
check "unusable devices: auto falls back to the VM and says why" said 0 vm \
	"mlx5_0 port 1 is DOWN, not ACTIVE; mlx5_1 port 1: link layer InfiniBand, not Ethernet \(RoCE\); mlx5_2 port 1 has no RoCE v2 GID with an IPv4 address.*the Soft-RoCE VM instead"
where "$T/bad" host
check "unusable devices: host refused with the same reasons" said 2 vm \
	"^pathlab: --verbs-on host: .*looked at $T/bad/class/infiniband: mlx5_0 port 1 is DOWN"

# 5. Software RDMA devices (rxe: no bus device): softroce labels.
mkdev "$T/rxe" rxe0 soft 1 "4: ACTIVE" Ethernet \
	"0=fe80:0000:0000:0000:68d9:87ff:fe35:1f3a=RoCE v2=pl-tx" "1=0000:0000:0000:0000:0000:ffff:0a4d:0001=RoCE v2=pl-tx"
mkdev "$T/rxe" rxe1 soft 1 "4: ACTIVE" Ethernet \
	"0=fe80:0000:0000:0000:4c91:fcff:fe3e:362b=RoCE v2=pl-rx" "1=0000:0000:0000:0000:0000:ffff:0a4d:0002=RoCE v2=pl-rx"
where "$T/rxe" auto
check "two rxe devices: direct, label softroce (not vm-)" \
	ends "rxe0 1 1 10.77.0.1 pl-tx soft" "rxe1 1 1 10.77.0.2 pl-rx soft" softroce
check "two rxe devices: the note says software RDMA" \
	grep -q "software RDMA devices (rxe/siw, no NIC)" <<<"$(vh_env_note)"
PATHLAB_VERBS_TX=rxe0 where "$T/rxe" auto
check "one rxe device for both ends: softroce-rxe-loopback" \
	ends "rxe0 1 1 10.77.0.1 pl-tx soft" "rxe0 1 1 10.77.0.1 pl-tx soft" softroce-rxe-loopback

# 6. Two hosts (compare --iface IF): the receiver's port is the one whose
# RoCE v2 GID holds IF's address, whatever the order of the devices.
# shellcheck disable=SC2317 # called through check
netdev_end() {
	export PATHLAB_SYSFS=$1
	vh_netdev_end "$2" "$3"
	RC=$?
	[ "$RC:$VH_RX" = "$4" ] && { [ -z "${5:-}" ] || grep -qE -- "$5" <<<"$(vh_looked)"; } && return 0
	echo "     rc $RC, rx '$VH_RX': $(vh_looked)"
	return 1
}
check "--iface ens1f1: mlx5_1 port 1, GID 3 (its address)" \
	netdev_end "$T/two" ens1f1 192.168.7.11 "0:mlx5_1 1 3 192.168.7.11 ens1f1 nic"
check "--iface ens1f0 with a second address: the GID holding it (12), not the first" \
	netdev_end "$T/two" ens1f0 192.168.99.1 "0:mlx5_0 1 12 192.168.99.1 ens1f0 nic"
check "--iface pl-rx on rxe: rxe1, software" \
	netdev_end "$T/rxe" pl-rx 10.77.0.2 "0:rxe1 1 1 10.77.0.2 pl-rx soft"
check "--iface of no RDMA device: none, saying so" \
	netdev_end "$T/two" eth9 198.51.100.2 "1:" "no RDMA device has a RoCE v2 GID for eth9 \(198.51.100.2\)"
check "--iface whose port is down: none, saying so" \
	netdev_end "$T/bad" ens1f0 192.168.7.10 "1:" "mlx5_0 port 1 is DOWN, not ACTIVE"

unset PATHLAB_SYSFS

# 7. The real CLI, as root, with the verbs path built: --verbs-on host where
# there is no device (a fake empty tree, and this host's own /sys when it
# has none) fails at once with that message, leaving nothing behind; a
# wrong --verbs-on is a usage error.
if [ "$(id -u)" != 0 ]; then
	echo "     (not root: the CLI checks are skipped; pathlab needs root)"
elif [ ! -x "$BUILD/rdma/pathlab-rx-verbs" ]; then
	echo "     (the verbs path is not built: the CLI checks are skipped)"
else
	driver_env plvo$$
	trees=("$T/empty")
	[ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ] || trees+=("")
	for tree in "${trees[@]}"; do
		what=${tree:-/sys}
		out=$(PATHLAB_SYSFS=$tree "$PATHLAB" compare --paths verbs \
			--verbs-on=host --out "$T/out" 2>&1)
		rc=$?
		check "pathlab compare --verbs-on host on $what: exit 2, says what it looked at" \
			grep -qE "^pathlab: --verbs-on host: no RDMA device to run the verbs rows on \(looked at $what/class/infiniband: no RDMA device there\)" <<<"$out"
		[ "$rc" = 2 ] || { echo "     exit $rc: $out"; FAILED=1; }
		check "... and made nothing (no output directory)" test ! -e "$T/out"
	done
	out=$("$PATHLAB" compare --verbs-on sideways 2>&1)
	rc=$?
	check "pathlab compare --verbs-on sideways: exit 2" \
		test "$rc:$out" = "2:pathlab: --verbs-on 'sideways': one of host, vm or auto"
fi

[ $FAILED = 0 ] && echo "all passed"
exit $FAILED
