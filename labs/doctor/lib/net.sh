# shellcheck shell=bash
# net.sh - network interfaces (driver, PCI address, NUMA node, XDP and
# AF_XDP abilities, hardware timestamps), the management interface, and
# the PCI network functions (also those no interface shows, bound to
# vfio-pci).

declare -A DRV_XDP=() DRV_ZC=() DRV_DPDK=() DRV_NOTE=()
declare -A IF_DRV=() IF_KIND=() IF_XDP=() IF_ZC=() IF_MGMT=() IF_HWTS=()
declare -A IF_DSRC=() NIC_DRV=() NIC_NETDEVS=() NIC_RDMA=() NIC_NUMA=()
declare -A NIC_ROOT=() NIC_CHAIN=() NIC_MGMT=()
IFACES=()
NICS=()
MGMT_IFS=()
LSPCI=
LSPCI_SRC=
PCI_RE='^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$'

# Load drivers.txt into DRV_*.
net_load_drivers() {
	local d x z p n
	while read -r d x z p n; do
		case $d in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2034 # read by the files that source this one
		DRV_XDP[$d]=$x DRV_ZC[$d]=$z DRV_DPDK[$d]=$p DRV_NOTE[$d]=$n
	done <"$DOCTOR_DIR/drivers.txt"
}

# Print VALUE (native@6.6, yes@6.11) reduced to what this kernel gives:
# the part before @ if the kernel is new enough, else FALLBACK.
drv_since() {
	local v=$1 fallback=$2
	case $v in
	*@*) kver_ge "$KREL" "${v#*@}" && echo "${v%@*}" || echo "$fallback" ;;
	*) echo "$v" ;;
	esac
}

# Print the PCI address in sysfs link target T, or fail.
pci_of_target() {
	local c a=
	local IFS=/
	for c in $1; do
		[[ $c =~ $PCI_RE ]] && a=$c
	done
	[ -n "$a" ] && echo "$a"
}

# Print the PCI root (host bridge, pci0000:17) in sysfs link target T.
root_of_target() {
	local c
	local IFS=/
	for c in $1; do
		[[ $c =~ ^pci[0-9a-f]{4}:[0-9a-f]{2}$ ]] && { echo "$c"; return; }
	done
	return 1
}

# Print the interfaces carrying a default route (IPv4, then IPv6): the
# destination and mask (prefix) are zero and the route is up (flag 0x1),
# and for IPv6 not a reject route (flag 0x200).
net_default_route_ifs() {
	local ifc dst flags mask rest plen
	while read -r ifc dst _ flags _ _ _ mask rest; do
		if [ "$dst" = 00000000 ] && [ "$mask" = 00000000 ] &&
			(((0x$flags & 1) == 1)); then
			echo "$ifc"
		fi
	done < <(rdall /proc/net/route | tail -n +2)
	while read -r dst plen _ _ _ _ _ _ flags ifc; do
		if [[ $dst =~ ^0+$ ]] && [ "$plen" = 00 ] && [ "$ifc" != lo ] &&
			(((0x$flags & 0x201) == 1)); then
			echo "$ifc"
		fi
	done < <(rdall /proc/net/ipv6_route)
}

# Print IF and, recursively, the interfaces under it (bridge ports, bond
# members, a VLAN's parent): all of them carry the management traffic.
net_lower_ifs() {
	local l
	echo "$1"
	for l in $(ls_names "/sys/class/net/$1/lower_*"); do
		net_lower_ifs "${l#lower_}"
	done
}

# The management interface(s): whatever the default route leaves by.
net_management() {
	local i src="/proc/net/route, /proc/net/ipv6_route (default route)"
	mapfile -t MGMT_IFS < <(for i in $(net_default_route_ifs | sort -u); do
		net_lower_ifs "$i"
	done | awk '!seen[$0]++')
	for i in "${MGMT_IFS[@]}"; do
		IF_MGMT[$i]=1
	done
	fact safety/management_interfaces a "$(IFS=';'; echo "${MGMT_IFS[*]}")" "$src"
	put safety/rule s "$(printf '%s ' \
		"never hand a management interface to XDP, AF_XDP or DPDK: a" \
		"program or a rebind there cuts the machine off the network (and" \
		"your SSH session with it)")"
}

# The driver of virtual interface I into VDRV and VDRV_SRC: the uevent's
# DEVTYPE, tun_flags, or ethtool -i on the live machine.
net_virtual_driver() {
	local i=$1 t
	VDRV=virtual VDRV_SRC="/sys/class/net/$i/uevent (no DEVTYPE)"
	t=$(rdall "/sys/class/net/$i/uevent" | sed -n 's/^DEVTYPE=//p')
	if [ -n "$t" ]; then
		VDRV=$t VDRV_SRC="/sys/class/net/$i/uevent (DEVTYPE)"
	elif has "/sys/class/net/$i/tun_flags"; then
		VDRV=tun VDRV_SRC="/sys/class/net/$i/tun_flags"
	elif run_cmd "ethtool-i-$i" ethtool -i "$i" &&
		t=$(sed -n 's/^driver: //p' <<<"$CMD_OUT") && [ -n "$t" ]; then
		VDRV=$t VDRV_SRC=$CMD_SRC
	fi
}

# Hardware timestamps of interface I into HWTS (true or false) and
# HWTS_SRC: a PTP hardware clock in sysfs, or ethtool -T's capabilities.
net_hw_timestamps() {
	local i=$1
	HWTS=false
	HWTS_SRC="/sys/class/net/$i/device/ptp (absent)"
	if [ -n "$(ls_names "/sys/class/net/$i/device/ptp/ptp*")" ]; then
		HWTS=true HWTS_SRC="/sys/class/net/$i/device/ptp"
	elif run_cmd "ethtool-T-$i" ethtool -T "$i"; then
		HWTS_SRC=$CMD_SRC
		grep -q 'hardware-receive' <<<"$CMD_OUT" && HWTS=true
	fi
	# shellcheck disable=SC2034 # read by the files that source this one
	IF_HWTS[$i]=$HWTS
}

# One interface: what it is and what XDP and AF_XDP can do on it.
net_interface() {
	local i=$1 base=interfaces/$1 t kind drv pci='' numa='' x z
	local dsrc="/sys/class/net/$i/device/driver"
	t=$(lnk "/sys/class/net/$i") || t=
	if [ "$(rd "/sys/class/net/$i/type")" = 772 ]; then
		kind=loopback drv=loopback dsrc="/sys/class/net/$i/type (772: loopback)"
	elif [[ $t == */virtual/* ]] || ! has "/sys/class/net/$i/device"; then
		net_virtual_driver "$i"
		kind=virtual drv=$VDRV dsrc=$VDRV_SRC
	else
		kind=physical
		drv=$(lnk_base "/sys/class/net/$i/device/driver") || drv=unknown
		has "/sys/class/net/$i/wireless" && kind=wifi
		has "/sys/class/net/$i/phy80211" && kind=wifi
		pci=$(pci_of_target "$t") || pci=
	fi
	# shellcheck disable=SC2034 # read by the files that source this one
	IF_KIND[$i]=$kind IF_DRV[$i]=$drv IF_DSRC[$i]=$dsrc
	fact "$base/kind" s "$kind" "/sys/class/net/$i -> ${t:-?}"
	fact "$base/driver" s "$drv" "$dsrc"
	if [ -n "$pci" ]; then
		numa=$(rd "/sys/bus/pci/devices/$pci/numa_node") || numa=-1
		fact "$base/pci" s "$pci" "/sys/class/net/$i -> $t"
		fact "$base/numa_node" n "$numa" "/sys/bus/pci/devices/$pci/numa_node"
	fi
	fact "$base/operstate" s "$(rd "/sys/class/net/$i/operstate")" \
		"/sys/class/net/$i/operstate"
	fact "$base/rx_queues" n "$(ls_names "/sys/class/net/$i/queues/rx-*" | grep -c .)" \
		"/sys/class/net/$i/queues/rx-*"
	x=$(drv_since "${DRV_XDP[$drv]:-generic}" generic)
	z=$(drv_since "${DRV_ZC[$drv]:-no}" no)
	# shellcheck disable=SC2034 # read by the files that source this one
	IF_XDP[$i]=$x IF_ZC[$i]=$z
	fact "$base/xdp" s "$x" "labs/doctor/drivers.txt ($drv); generic XDP works on any interface"
	fact "$base/afxdp_zero_copy" b "$([ "$z" = yes ] && echo true || echo false)" \
		"labs/doctor/drivers.txt ($drv); copy mode works on any interface"
	if [ "$kind" = physical ]; then
		net_hw_timestamps "$i"
		fact "$base/hw_timestamps" b "$HWTS" "$HWTS_SRC"
	fi
	fact "$base/management" b "$([ -n "${IF_MGMT[$i]:-}" ] && echo true || echo false)" \
		"/proc/net/route (default route)"
	[ -n "${DRV_NOTE[$drv]:-}" ] && put "$base/note" s "${DRV_NOTE[$drv]}"
	return 0
}

# Print the netdevs of PCI function A (also those under a virtio child).
pci_netdevs() {
	ls_names "/sys/bus/pci/devices/$1/net/*"
	ls_names "/sys/bus/pci/devices/$1/virtio*/net/*"
}

# Print the lspci line's description for PCI address A, if known.
pci_name() {
	[ -n "$LSPCI" ] || return 1
	awk -v a="$1" '$1 == a || "0000:" $1 == a { $1 = ""; sub(/^ /, ""); print; exit }' <<<"$LSPCI"
}

# Record the PCI facts of device A under BASE (name, ids, NUMA, root).
pci_facts() {
	local a=$1 base=$2 t ven dev name
	t=$(lnk "/sys/bus/pci/devices/$a") || t=
	ven=$(rd "/sys/bus/pci/devices/$a/vendor") || ven='?'
	dev=$(rd "/sys/bus/pci/devices/$a/device") || dev='?'
	name=$(pci_name "$a") || name=
	fact "$base/ids" s "${ven#0x}:${dev#0x}" "/sys/bus/pci/devices/$a/{vendor,device}"
	[ -n "$name" ] && fact "$base/name" s "$name" "$LSPCI_SRC"
	PCI_NUMA=$(rd "/sys/bus/pci/devices/$a/numa_node") || PCI_NUMA=-1
	fact "$base/numa_node" n "$PCI_NUMA" "/sys/bus/pci/devices/$a/numa_node"
	PCI_ROOT=$(root_of_target "$t") || PCI_ROOT=
	PCI_CHAIN=${t#*"$PCI_ROOT"/}
	fact "$base/root_complex" s "$PCI_ROOT" "/sys/bus/pci/devices/$a -> $t"
}

# Every PCI network function (class 02xxxx), with or without a netdev.
net_pci_nics() {
	local a cls base drv nd rdma
	for a in $(ls_names '/sys/bus/pci/devices/*' | LC_ALL=C sort); do
		cls=$(rd "/sys/bus/pci/devices/$a/class") || continue
		[[ $cls == 0x02* ]] || continue
		base=topology/nics/$a
		NICS+=("$a")
		drv=$(lnk_base "/sys/bus/pci/devices/$a/driver") || drv=none
		nd=$(pci_netdevs "$a" | paste -sd' ' -)
		rdma=$(ls_names "/sys/bus/pci/devices/$a/infiniband/*" | paste -sd' ' -)
		# shellcheck disable=SC2034 # read by the files that source this one
		NIC_DRV[$a]=$drv NIC_NETDEVS[$a]=$nd NIC_RDMA[$a]=$rdma
		fact "$base/driver" s "$drv" "/sys/bus/pci/devices/$a/driver"
		fact "$base/netdevs" a "${nd// /;}" "/sys/bus/pci/devices/$a/net"
		[ -n "$rdma" ] && fact "$base/rdma" a "${rdma// /;}" \
			"/sys/bus/pci/devices/$a/infiniband"
		pci_facts "$a" "$base"
		# shellcheck disable=SC2034 # read by the files that source this one
		NIC_NUMA[$a]=$PCI_NUMA NIC_ROOT[$a]=$PCI_ROOT NIC_CHAIN[$a]=$PCI_CHAIN
		for nd in $nd; do
			# shellcheck disable=SC2034 # read by the files that source this one
			[ -n "${IF_MGMT[$nd]:-}" ] && NIC_MGMT[$a]=1
		done
	done
	return 0
}

# All network facts.
collect_net() {
	local i
	net_load_drivers
	LSPCI=
	run_cmd lspci lspci -D && LSPCI=$CMD_OUT LSPCI_SRC=$CMD_SRC
	net_management
	mapfile -t IFACES < <(ls_names '/sys/class/net/*' | grep -vx bonding_masters)
	for i in "${IFACES[@]}"; do
		net_interface "$i"
	done
	net_pci_nics
}
