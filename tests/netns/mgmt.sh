#!/usr/bin/env bash
# The management-interface guard (common/mgmt.c) on a made-up topology in a
# namespace of our own: a default route over a bridge, another over a VLAN
# (a macvlan where the kernel has no 8021q: it links to its parent the same
# way), and forty more, one per interface, with the longest names. Every
# receiver that takes over an interface refuses the bridge, its port, the
# VLAN and its parent, and the last of the forty (the old default-route
# loop overflowed its buffer there), whichever way it is named: --iface,
# an alternative name, raw EAL arguments however DPDK would read them
# (abbreviations, any length, net_tap's remote=), -a PCI. An interface
# under no default route passes. pathlab-gen refuses a destination the
# default route leads to (unless --allow-routed), one on the management
# LAN, its gateway included (unless --allow-mgmt-lan), and multicast or
# broadcast (unless --allow-multicast). Nothing outside the namespace is
# touched: each refusal comes before any XDP program or EAL start.
set -u
. "$(dirname "$0")/lib.sh"

RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
netns_require_root
NS=${PATHLAB_PREFIX:-plt$$}-mgmt
TMP=$(mktemp -d)
cleanup() {
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
ip netns add "$NS" || { echo "FAIL: ip netns add $NS"; exit 1; }

# inns CMD...: run CMD in the namespace, with its own /sys (30 s at most).
inns() {
	timeout 30 ip netns exec "$NS" "$@"
}

# Two veth pairs: "port" into the bridge, "par" the VLAN's parent; "free"
# is under no default route.
set -e
inns ip link set lo up
for i in port par free; do
	inns ip link add "m$i" type veth peer name "m${i}p"
	inns ip link set "m$i" up
	inns ip link set "m${i}p" up
done
inns ip link add mbr type bridge
inns ip link set mport master mbr
inns ip link set mbr up
inns ip addr add 198.18.7.1/24 dev mbr
inns ip route add default via 198.18.7.254 dev mbr
if inns ip link add link mpar name mvl type vlan id 7 2>/dev/null; then
	upper="VLAN"
else
	inns ip link add link mpar name mvl type macvlan
	upper="macvlan (no 8021q in this kernel)"
fi
inns ip link set mvl up
inns ip addr add 198.18.8.1/24 dev mvl
inns ip addr add 198.18.9.1/24 dev mfree
inns ip route add default via 198.18.8.254 dev mvl metric 100
# Forty more, 15-character names: 640 bytes of names.
for ((i = 0; i < 40; i++)); do
	n=$(printf 'mgmtroute%06d' "$i")
	inns ip link add "$n" type veth peer name "${n:0:9}p$(printf '%05d' "$i")"
	inns ip link set "$n" up
	inns ip route add default dev "$n" metric $((200 + i))
done
# Alternative names of the bridge, short and long: the same interface.
inns ip link property add dev mbr altname mbralt
inns ip link property add dev mbr altname management-bridge-alternative-name
set +e
last=$n
echo "   topology: default routes over mbr (bridge, port mport), mvl" \
	"($upper on mpar) and 40 more; mfree under none"

# refused NAME WHO TEXT CMD...: CMD exits 2 and says TEXT.
refused() {
	local name=$1 text=$2 rc
	shift 2
	"$@" >"$TMP/out" 2>&1
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$text" "$TMP/out"; then
		ok "$name: refused, exit 2"
	else
		bad "$name: exit $rc, wanted 2 and '$text': $(tail -3 "$TMP/out")"
	fi
}

# passes NAME CMD...: CMD runs (exit 0): the guard let it through.
passes() {
	local name=$1 rc
	shift
	"$@" >"$TMP/out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$name: not refused, ran"
	else
		bad "$name: exit $rc: $(tail -3 "$TMP/out")"
	fi
}

EAL="-l 0 --no-huge -m 512 --no-pci --no-shconf --file-prefix plmgmt$$"
for rx in "$RX_XSK" "$RX_DPDK"; do
	name=${rx##*-}
	if [ ! -x "$rx" ]; then
		echo "   skip: $rx not built"
		continue
	fi
	refused "$name bridge port" "mport lies under mbr" \
		inns "$rx" --iface mport --count 1
	refused "$name bridge" "mbr carries this machine's default route" \
		inns "$rx" --iface mbr --count 1
	refused "$name VLAN parent" "mpar lies under mvl" \
		inns "$rx" --iface mpar --count 1
	refused "$name VLAN" "mvl carries" inns "$rx" --iface mvl --count 1
	refused "$name 40th default route" "$last carries" \
		inns "$rx" --iface "$last" --count 1
	# Names are compared by interface index: an altname is the bridge.
	refused "$name bridge by altname" "mbr carries" \
		inns "$rx" --iface mbralt --count 1
	refused "$name bridge by long altname" "mbr carries" \
		inns "$rx" --iface management-bridge-alternative-name --count 1
	refused "$name no such interface" "is no interface" \
		inns "$rx" --iface NO-SUCH-IF --count 1
	refused "$name comma in --iface" "is not an interface name" \
		inns "$rx" --iface mfree,iface=mbr --count 1
done
[ -x "$RX_XSK" ] &&
	passes "xsk other interface" inns "$RX_XSK" --iface mfree --duration 0.2
if [ -x "$RX_DPDK" ]; then
	# shellcheck disable=SC2086
	refused "dpdk raw --vdev=...,iface=" "mpar lies under mvl" \
		inns "$RX_DPDK" $EAL --vdev=net_af_packet0,iface=mpar -- --count 1
	# shellcheck disable=SC2086
	refused "dpdk raw --vdev ...,rx_iface=" "mport lies under mbr" \
		inns "$RX_DPDK" $EAL --vdev net_pcap0,rx_iface=mport -- --count 1
	# The vector as DPDK reads it: getopt_long abbreviations, any length,
	# keys other than iface that name an interface, and what the guard
	# does not know.
	# shellcheck disable=SC2086
	refused "dpdk raw --vd=" "mpar lies under mvl" \
		inns "$RX_DPDK" $EAL --vd=net_af_packet0,iface=mpar -- --count 1
	# shellcheck disable=SC2086
	refused "dpdk raw --vde" "mpar lies under mvl" \
		inns "$RX_DPDK" $EAL --vde net_af_packet0,iface=mpar -- --count 1
	long=net_af_packet0$(printf ',qpairs=1%.0s' {1..30}),iface=mport
	# shellcheck disable=SC2086
	refused "dpdk raw --vdev of ${#long} bytes" "mport lies under mbr" \
		inns "$RX_DPDK" $EAL --vdev "$long" -- --count 1
	# shellcheck disable=SC2086
	refused "dpdk raw net_tap remote=" "mbr carries" \
		inns "$RX_DPDK" $EAL --vdev net_tap0,remote=mbr -- --count 1
	# shellcheck disable=SC2086
	refused "dpdk raw vdev by altname" "mbr carries" \
		inns "$RX_DPDK" $EAL --vdev net_af_packet0,iface=mbralt -- --count 1
	# shellcheck disable=SC2086
	refused "dpdk raw unknown devargs key" "takes no key 'bogus'" \
		inns "$RX_DPDK" $EAL --vdev net_af_packet0,iface=mfree,bogus=1 \
		-- --count 1
	refused "dpdk raw without --no-pci or -a" "neither --no-pci nor -a" \
		inns "$RX_DPDK" -l 0 --no-huge -m 512 --no-shconf \
		--vdev=net_af_packet0,iface=mfree -- --count 1
	passes "dpdk other interface" inns "$RX_DPDK" --iface mfree \
		--vdev-kind af_packet --duration 0.2
	# The root namespace's default route, named by PCI address in the raw
	# EAL arguments: refused before EAL starts, so nothing is touched.
	defif=$(awk '$2 == "00000000" && $8 == "00000000" { print $1; exit }' /proc/net/route)
	defdev=$(readlink -f "/sys/class/net/$defif/device" 2>/dev/null)
	case ${defdev##*/} in virtio*) defdev=${defdev%/*} ;; esac
	defpci=${defdev##*/}
	if [ -n "$defif" ] && [[ $defpci == *:*.* ]]; then
		refused "dpdk raw -a $defpci" "refusing PCI device $defpci: it is $defif" \
			timeout 30 "$RX_DPDK" -a "$defpci" -- --count 1
		refused "dpdk raw --allow=$defpci,devargs" "it is $defif" \
			timeout 30 "$RX_DPDK" "--allow=$defpci,x=1" -- --count 1
		refused "dpdk raw --allo=$defpci" "it is $defif" \
			timeout 30 "$RX_DPDK" "--allo=$defpci" -- --count 1
	else
		echo "   skip: the default route has no PCI device here"
	fi
else
	echo "   skip: $RX_DPDK not built"
fi

# pathlab-gen sends only where a route other than the default one leads:
# a connected receiver (the lab's, a second host's) or loopback.
GEN=$BUILD/common/pathlab-gen
refused "gen to a routed --dst" "reached through the default route (via 198.18.7.254 dev mbr)" \
	inns "$GEN" --dst 203.0.113.9 --count 1 --quiet
refused "gen --tx packet to a routed --dst" "the frames would leave by mbr" \
	inns "$GEN" --dst 203.0.113.9 --tx packet --iface mbr --count 1 --quiet
# The management LAN: the gateway itself, a host beside it, --tx packet
# out of the bridge or its port; multicast and broadcast anywhere.
refused "gen to the default gateway" "the frames would leave by mbr" \
	inns "$GEN" --dst 198.18.7.254 --count 1 --quiet
refused "gen to the management LAN" "the frames would leave by mvl" \
	inns "$GEN" --dst 198.18.8.9 --count 1 --quiet
refused "gen --tx packet out of a bridge port" "leave by mport, under mbr" \
	inns "$GEN" --dst 198.18.9.9 --tx packet --iface mport --count 1 --quiet
refused "gen --tx packet by altname" "the frames would leave by mbr" \
	inns "$GEN" --dst 198.18.9.9 --tx packet --iface mbralt --count 1 \
	--quiet
refused "gen to multicast" "a multicast or broadcast address" \
	inns "$GEN" --dst 239.1.2.3 --count 1 --quiet
refused "gen to the broadcast address" "a multicast or broadcast address" \
	inns "$GEN" --dst 255.255.255.255 --count 1 --quiet
refused "gen to a subnet's broadcast" "a multicast or broadcast address" \
	inns "$GEN" --dst 198.18.9.255 --count 1 --quiet
passes "gen to a connected --dst" inns "$GEN" --dst 198.18.9.9 --count 10 --quiet
passes "gen to loopback" inns "$GEN" --dst 127.0.0.1 --count 10 --quiet
passes "gen --allow-routed" inns "$GEN" --dst 203.0.113.9 --count 10 \
	--allow-routed --quiet
passes "gen --allow-mgmt-lan" inns "$GEN" --dst 198.18.8.9 --count 10 \
	--allow-mgmt-lan --quiet
refused "gen --allow-multicast, out of the management LAN" \
	"the frames would leave by mbr" inns "$GEN" --dst 239.1.2.3 --count 1 \
	--allow-multicast --quiet
netns_finish
