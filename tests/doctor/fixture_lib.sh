# shellcheck shell=bash
# fixture_lib.sh - small builders for fake /proc and /sys trees: each call
# writes a few files or links under $FX (the fixture's root) shaped like
# the real ones, so the doctor reads them as it would a live machine.
# Used by mkfixtures.sh.

# file PATH CONTENT...: write a file (one line per CONTENT argument).
file() {
	local p=$1
	shift
	mkdir -p "$(dirname "$FX/$p")"
	printf '%s\n' "$@" >"$FX/$p"
}

# link PATH TARGET: a relative symlink at PATH to TARGET (both in $FX).
link() {
	local dir
	dir=$(dirname "$FX/$1")
	mkdir -p "$dir"
	ln -sfn "$(realpath -s -m --relative-to="$dir" "$FX/$2")" "$FX/$1"
}

# Print a cpulist (0-3,8-11) for the CPU numbers given.
cpulist() {
	printf '%s\n' "$@" | sort -n | awk '
		NR == 1 { a = b = $1; next }
		$1 == b + 1 { b = $1; next }
		{ out = out sep (a == b ? a : a "-" b); sep = ","; a = b = $1 }
		END { if (NR) print out sep (a == b ? a : a "-" b) }'
}

# cpus SOCKETS CORES THREADS: the CPU topology in sysfs, Intel numbering
# (CPU s*CORES+c is the first thread of core c on socket s; its sibling is
# that plus SOCKETS*CORES), and one NUMA node per socket.
cpus() {
	local S=$1 C=$2 T=$3 n=$(($1 * $2 * $3)) s c t id sib node_cpus
	local base=sys/devices/system/cpu
	file $base/online "0-$((n - 1))"
	file $base/possible "0-$((n - 1))"
	file sys/devices/system/node/online "$(cpulist $(seq 0 $((S - 1))))"
	for ((s = 0; s < S; s++)); do
		node_cpus=()
		for ((c = 0; c < C; c++)); do
			sib=()
			for ((t = 0; t < T; t++)); do
				sib+=($((t * S * C + s * C + c)))
			done
			for id in "${sib[@]}"; do
				file $base/cpu$id/topology/physical_package_id $s
				file $base/cpu$id/topology/core_id $c
				file $base/cpu$id/topology/thread_siblings_list "$(cpulist "${sib[@]}")"
				node_cpus+=("$id")
			done
		done
		file sys/devices/system/node/node$s/cpulist "$(cpulist "${node_cpus[@]}")"
	done
}

# cpuinfo N VENDOR MODEL FLAGS: /proc/cpuinfo with N processors.
cpuinfo() {
	local n=$1 i
	mkdir -p "$FX/proc"
	for ((i = 0; i < n; i++)); do
		printf 'processor\t: %d\nvendor_id\t: %s\nmodel name\t: %s\nflags\t\t: %s\n\n' \
			"$i" "$2" "$3" "$4"
	done >"$FX/proc/cpuinfo"
}

# governor NAME DRIVER N: cpufreq for CPUs 0..N-1.
governor() {
	local i
	for ((i = 0; i < $3; i++)); do
		file sys/devices/system/cpu/cpu$i/cpufreq/scaling_governor "$1"
		file sys/devices/system/cpu/cpu$i/cpufreq/scaling_driver "$2"
	done
}

# cstates DRIVER NAME:LATENCY[:disabled]...: cpuidle of CPU 0.
cstates() {
	local i=0 st name lat dis
	file sys/devices/system/cpu/cpuidle/current_driver "$1"
	shift
	for st in "$@"; do
		IFS=: read -r name lat dis <<<"$st"
		file sys/devices/system/cpu/cpu0/cpuidle/state$i/name "$name"
		file sys/devices/system/cpu/cpu0/cpuidle/state$i/latency "$lat"
		file sys/devices/system/cpu/cpu0/cpuidle/state$i/disable \
			"$([ "$dis" = disabled ] && echo 1 || echo 0)"
		i=$((i + 1))
	done
}

# hugepages SIZE_KB TOTAL FREE [NODE:TOTAL:FREE...]
hugepages() {
	local d=hugepages-$1kB per node tot fr
	file sys/kernel/mm/hugepages/$d/nr_hugepages "$2"
	file sys/kernel/mm/hugepages/$d/free_hugepages "$3"
	shift 3
	for per in "$@"; do
		IFS=: read -r node tot fr <<<"$per"
		file sys/devices/system/node/node$node/hugepages/$d/nr_hugepages "$tot"
		file sys/devices/system/node/node$node/hugepages/$d/free_hugepages "$fr"
	done
}

# pci PATH CLASS VENDOR DEVICE NUMA DRIVER: a PCI function at sysfs path
# PATH (pci0000:17/0000:17:01.0/0000:18:00.0); the bridges on the way
# are created too. DRIVER "-" for none.
pci() {
	local path=$1 cls=$2 ven=$3 dev=$4 numa=$5 drv=$6 acc='' c addr
	local IFS=/
	for c in $path; do
		acc+="${acc:+/}$c"
		[[ $c == pci* ]] && continue
		link "sys/bus/pci/devices/$c" "sys/devices/$acc"
		file "sys/devices/$acc/numa_node" "$numa"
		[ "$acc" = "$path" ] && continue
		file "sys/devices/$acc/class" 0x060400
		file "sys/devices/$acc/vendor" 0x8086
		file "sys/devices/$acc/device" 0x2030
	done
	addr=${path##*/}
	file "sys/devices/$path/class" "$cls"
	file "sys/devices/$path/vendor" "$ven"
	file "sys/devices/$path/device" "$dev"
	[ "$drv" = - ] || link "sys/devices/$path/driver" "sys/bus/pci/drivers/$drv"
	: "$addr"
}

# netdev NAME PARENT OPERSTATE [ptp]: an interface under the device at
# sysfs path PARENT (a PCI function, or its virtio child).
netdev() {
	local n=$1 parent=$2 d=sys/devices/$2/net/$1
	file $d/type 1
	file $d/operstate "$3"
	file $d/mtu 1500
	file $d/uevent "INTERFACE=$n"
	file $d/queues/rx-0/rps_cpus 0
	link $d/device "sys/devices/$parent"
	link "sys/class/net/$n" "$d"
	[ "${4:-}" = ptp ] && file "sys/devices/$parent/ptp/ptp0/clock_name" "$n"
	return 0
}

# virtio PCIPATH N: the virtio child (virtioN) of a virtio PCI function.
virtio() {
	link "sys/devices/$1/virtio$2/driver" sys/bus/virtio/drivers/virtio_net
	file "sys/devices/$1/virtio$2/features" 1100010110111011
}

# vnetdev NAME TYPE DEVTYPE OPERSTATE: a virtual interface.
vnetdev() {
	local d=sys/devices/virtual/net/$1
	file $d/type "$2"
	file $d/operstate "$4"
	file $d/uevent "INTERFACE=$1" ${3:+"DEVTYPE=$3"}
	file $d/queues/rx-0/rps_cpus 0
	link "sys/class/net/$1" "$d"
}

# ibdev NAME PCIPATH NETDEV LINK_LAYER STATE GID...: a verbs device with
# one port; each GID is "index value type".
ibdev() {
	local n=$1 pci=$2 nd=$3 ll=$4 st=$5 d g i v t
	d=sys/devices/$pci/infiniband/$n
	shift 5
	file $d/fw_ver 22.36.1010
	file $d/node_type "1: CA"
	link $d/device "sys/devices/$pci"
	link "sys/class/infiniband/$n" "$d"
	file $d/ports/1/state "$st"
	file $d/ports/1/phys_state "5: LinkUp"
	file $d/ports/1/link_layer "$ll"
	file $d/ports/1/rate "100 Gb/sec (2X HDR)"
	for g in "$@"; do
		read -r i v t <<<"$g"
		file $d/ports/1/gids/$i "$v"
		[ -n "$t" ] && file $d/ports/1/gid_attrs/types/$i "$t"
		[ -n "$t" ] && file $d/ports/1/gid_attrs/ndevs/$i "$nd"
	done
	file $d/ports/1/gids/7 0000:0000:0000:0000:0000:0000:0000:0000
	file $d/ports/1/hw_counters/np_ecn_marked_roce_packets 0
	file $d/ports/1/hw_counters/np_cnp_sent 0
	file $d/ports/1/hw_counters/rp_cnp_handled 0
	file $d/ports/1/hw_counters/out_of_sequence 0
}

# route IF [GATEWAY_HEX]: /proc/net/route with a default route via IF.
route() {
	file proc/net/route \
		"Iface	Destination	Gateway 	Flags	RefCnt	Use	Metric	Mask		MTU	Window	IRTT" \
		"$1	00000000	${2:-0100A8C0}	0003	0	0	100	00000000	0	0	0" \
		"$1	0000A8C0	00000000	0001	0	0	100	00FFFFFF	0	0	0"
	file proc/net/ipv6_route \
		"fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001 $1"
}

# usr PACKAGE...: the file the doctor looks for to see each package.
usr() {
	local p
	for p in "$@"; do
		case $p in
		libbpf-dev) file usr/include/bpf/libbpf.h "/* fixture */" ;;
		libxdp-dev) file usr/include/xdp/libxdp.h "/* fixture */" ;;
		clang) file usr/bin/clang "fixture" ;;
		bpftool) file usr/sbin/bpftool "fixture" ;;
		dpdk-dev) file usr/lib/x86_64-linux-gnu/pkgconfig/libdpdk.pc "Version: 22.11.5" ;;
		libibverbs-dev) file usr/include/infiniband/verbs.h "/* fixture */" ;;
		librdmacm-dev) file usr/include/rdma/rdma_cma.h "/* fixture */" ;;
		ibverbs-providers) file usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so "fixture" ;;
		ibverbs-utils) file usr/bin/ibv_devinfo "fixture" ;;
		perftest) file usr/bin/ib_send_lat "fixture" ;;
		qemu-system-x86) file usr/bin/qemu-system-x86_64 "fixture" ;;
		busybox-static) file usr/bin/busybox "fixture" ;;
		*) echo "usr: unknown package $p" >&2; return 1 ;;
		esac
	done
}

# common: files every Linux machine has.
common() {
	file proc/net/udp "  sl  local_address rem_address   st"
	file proc/sys/net/core/busy_poll 0
	file proc/stat "cpu  1000 0 500 90000 10 0 20 ${1:-0} 0 0"
	file proc/modules "ext4 1 0 - Live 0x0"
	file proc/sys/kernel/modules_disabled 0
	file sys/devices/system/clocksource/clocksource0/current_clocksource tsc
	file proc/mounts "sysfs /sys sysfs rw 0 0" "proc /proc proc rw 0 0"
	file proc/self/limits "Max locked memory         8388608              8388608              bytes"
	vnetdev lo 772 "" unknown
}
