# shellcheck shell=bash
# verdict_bypass.sh - the verdicts of the paths that bypass the kernel's
# driver: DPDK, RDMA verbs, and GPUDirect.

# Print the hugepage next steps' page size: 1 GB if the CPU has it.
dpdk_hugepage_steps() {
	case $CPU_FLAGS in
	*" pdpe1gb "*)
		step dpdk kernel_parameter "default_hugepagesz=1G hugepagesz=1G hugepages=4 (reserve 4 GB of 1 GB pages at boot)" ;;
	esac
	step dpdk command "or now, without a reboot: echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages (2 GB of 2 MB pages)"
}

# The IOMMU and vfio-pci, which a NIC handed to vfio-pci needs.
dpdk_iommu_steps() {
	reason dpdk "IOMMU: $IOMMU_MODE; vfio-pci: $VFIO_STATE" \
		"/sys/class/iommu, /sys/kernel/iommu_groups, /sys/module/vfio_pci"
	if [ "$IOMMU_ON" = 0 ]; then
		if [ "$IN_VM" = true ]; then
			step dpdk hardware "in a VM: give the guest a virtual IOMMU (qemu -device intel-iommu), or use vfio's unsafe noiommu mode"
		elif [ "$CPU_VENDOR" = AuthenticAMD ]; then
			step dpdk kernel_parameter "amd_iommu=on iommu=pt (and enable the IOMMU in the firmware setup)"
		else
			step dpdk kernel_parameter "intel_iommu=on iommu=pt (and enable VT-d in the firmware setup)"
		fi
	fi
	case $VFIO_STATE in
	loadable) step dpdk module "modprobe vfio-pci" ;;
	missing) step dpdk hardware "boot a kernel with vfio-pci (CONFIG_VFIO_PCI) and loadable modules; this one has neither" ;;
	esac
}

# One PCI NIC as DPDK sees it: sets NIC_USE to bifurcated, vfio-bound,
# bindable or none, and records its action.
dpdk_nic() {
	local a=$1 drv=${NIC_DRV[$1]} nd=${NIC_NETDEVS[$1]} kind act lbl
	# virtio's PCI function is driven by virtio-pci; the table knows the
	# interface's driver (virtio_net).
	[ -n "$nd" ] && [ -n "${IF_DRV[${nd%% *}]:-}" ] && drv=${IF_DRV[${nd%% *}]}
	lbl="$a (${nd:-no interface}, $drv)"
	kind=${DRV_DPDK[$drv]:-none}
	[ "$drv" = vfio-pci ] && kind=bound
	NIC_USE=none
	if [ -n "${NIC_MGMT[$a]:-}" ]; then
		act="never: it carries the default route (management interface)"
		reason dpdk "$lbl: management interface: never bind it to vfio-pci or hand it to DPDK" \
			/proc/net/route
	else
		case $kind in
		bifurcated)
			act="stay on $drv, do not bind to vfio-pci: DPDK's PMD runs on top of it (-a $a)"
			reason dpdk "$lbl: bifurcated driver: stay on $drv, do not bind to vfio-pci; the PMD reaches it through verbs" \
				"/sys/bus/pci/devices/$a/driver, labs/doctor/drivers.txt"
			[ -n "${NIC_RDMA[$a]}" ] && NIC_USE=bifurcated
			;;
		bound)
			act="bound to vfio-pci: DPDK owns it (-a $a)"
			reason dpdk "$lbl: bound to vfio-pci, ready for DPDK" "/sys/bus/pci/devices/$a/driver"
			NIC_USE=vfio-bound
			;;
		vfio)
			act="can be bound: dpdk-devbind.py --bind=vfio-pci $a (the kernel then loses ${nd:-it})"
			reason dpdk "$lbl: can be handed to vfio-pci (the kernel loses the interface while DPDK has it)" \
				"/sys/bus/pci/devices/$a/driver, labs/doctor/drivers.txt"
			NIC_USE=bindable
			;;
		*)
			act="no DPDK PMD: use --vdev net_af_xdp or net_af_packet on ${nd:-its interface}"
			reason dpdk "$lbl: no DPDK PMD for $drv; net_af_xdp/net_af_packet work on its interface" \
				"labs/doctor/drivers.txt"
			;;
		esac
	fi
	put "paths/dpdk/nics/$a/driver" s "$drv"
	put "paths/dpdk/nics/$a/interfaces" a "${nd// /;}"
	put "paths/dpdk/nics/$a/action" s "$act"
}

# Isolated cores for the poll loop; if there are none, suggest the CPUs of
# the first usable NIC's NUMA node (or all), less the first core's threads.
dpdk_cores() {
	local nic=$1 n nn='' pool keep list where
	if [ -n "$ISOLATED" ]; then
		reason dpdk "isolated cores for the poll loop: $ISOLATED" \
			"/sys/devices/system/cpu/isolated, /proc/cmdline"
		return
	fi
	n=$(cpulist_count "$CPU_ONLINE")
	if [ "$n" -lt 4 ]; then
		reason dpdk "no isolated cores, and with $n CPUs none to spare: pin the poller and expect interference" \
			/sys/devices/system/cpu/online
		return
	fi
	reason dpdk "no isolated cores: the poll loop shares its core with everything else" /proc/cmdline
	pool=$CPU_ONLINE where="all CPUs"
	[ -n "$nic" ] && nn=${NIC_NUMA[$nic]}
	if [ -n "$nn" ] && [ "$nn" != -1 ] && [ -n "$(numa_cpus "$nn")" ]; then
		pool=$(numa_cpus "$nn") where="the CPUs of NUMA node $nn, where $nic sits"
	fi
	keep=$(rd "$SYS_CPU/cpu0/topology/thread_siblings_list") || keep=0
	list=$(cpulist_expand "$pool" | grep -vxF -f <(cpulist_expand "$keep") | cpulist_format)
	step dpdk kernel_parameter "isolcpus=$list nohz_full=$list rcu_nocbs=$list ($where, less CPU 0's core, which stays with the system)"
}

# DPDK: the package, hugepages, the NICs, IOMMU and vfio.
verdict_dpdk() {
	local ok=true a b use=() hp=false kinds
	need_packages dpdk dpdk-dev || ok=false
	if [ "$HP_FREE_KB" -gt 0 ]; then
		hp=true
		reason dpdk "hugepages: $((HP_FREE_KB / 1024)) MiB free of $((HP_TOTAL_KB / 1024)) MiB" \
			"/sys/kernel/mm/hugepages/hugepages-*/{free,nr}_hugepages"
		if [ "$HP_MOUNTED" = false ]; then
			hp=false
			reason dpdk "no hugetlbfs mounted: DPDK cannot map the pages" "/proc/mounts"
			step dpdk command "mount -t hugetlbfs nodev /dev/hugepages"
		fi
	else
		reason dpdk "no free hugepages ($((HP_TOTAL_KB / 1024)) MiB reserved): only --no-huge runs (slower, lab only)" \
			"/sys/kernel/mm/hugepages/hugepages-*/{free,nr}_hugepages"
		dpdk_hugepage_steps
	fi
	for a in "${NICS[@]}"; do
		dpdk_nic "$a"
		[ "$NIC_USE" = none ] || use+=("$NIC_USE:$a")
	done
	kinds=" ${use[*]} "
	b=$(dpdk_first bindable "${use[@]}")
	if [[ $kinds == *" bifurcated:"* ]]; then
		:
	elif [[ $kinds == *" vfio-bound:"* ]]; then
		dpdk_iommu_steps
	elif [ -n "$b" ]; then
		dpdk_iommu_steps
		step dpdk command "dpdk-devbind.py --bind=vfio-pci $b (never the management interface)"
	else
		reason dpdk "IOMMU: $IOMMU_MODE; vfio-pci: $VFIO_STATE (they matter once a NIC has a DPDK PMD)" \
			"/sys/class/iommu, /sys/kernel/iommu_groups, /sys/module/vfio_pci"
		step dpdk hardware "$(printf '%s ' \
			"for a real run, add a NIC with a DPDK PMD besides the" \
			"management interface: ConnectX (mlx5, stays on its kernel" \
			"driver) or Intel ice/i40e/ixgbe (bound to vfio-pci)")"
	fi
	dpdk_cores "$(dpdk_first bifurcated "${use[@]}")$(dpdk_first vfio-bound "${use[@]}")"
	for a in "${use[@]}"; do
		dpdk_numa_check "${a#*:}"
	done
	dpdk_decide "$ok" "$hp" "$kinds" "${use[@]}"
}

# The DPDK verdict from: packages OK, hugepages OK, the kinds of usable
# NICs, and the "kind:address" words.
dpdk_decide() {
	local ok=$1 hp=$2 kinds=$3 miss=() own=
	shift 3
	if [[ $kinds == *" bifurcated:"* ]]; then
		if need_packages dpdk ibverbs-providers; then
			own="a bifurcated NIC on its kernel driver ($(dpdk_first bifurcated "$@"))"
		else
			miss+=("the verbs provider for the bifurcated NIC")
		fi
	fi
	if [ -z "$own" ] && [[ $kinds == *" vfio-bound:"* ]]; then
		if [ "$IOMMU_ON" = 1 ] || [ "$(rd /sys/module/vfio/parameters/enable_unsafe_noiommu_mode)" = Y ]; then
			own="a NIC bound to vfio-pci ($(dpdk_first vfio-bound "$@"))"
		else
			miss+=("an IOMMU for the vfio-pci NIC")
		fi
	fi
	if [ -n "$own" ]; then
		miss=()
	elif [ ${#miss[@]} -eq 0 ]; then
		miss+=("a NIC DPDK can own")
	fi
	[ "$hp" = true ] || miss+=("hugepages")
	if [ "$ok" = false ]; then
		verdict dpdk unavailable "dpdk-dev is not installed"
	elif [ ${#miss[@]} -eq 0 ]; then
		verdict dpdk ready "hugepages and $own"
		vm_caveat dpdk
	else
		verdict dpdk lab "--no-huge with net_af_packet or net_af_xdp on the lab's veth pair (missing: $(printf '%s, ' "${miss[@]}" | sed 's/, $//'))"
	fi
}

# Warn if NIC A sits on a NUMA node where no CPU is isolated.
dpdk_numa_check() {
	local a=$1 nn=${NIC_NUMA[$1]} both
	[ "$nn" != -1 ] && [ -n "$ISOLATED" ] || return 0
	both=$( (cpulist_expand "$(numa_cpus "$nn")"; cpulist_expand "$ISOLATED") |
		sort | uniq -d)
	[ -n "$both" ] && return 0
	warn dpdk-numa "NIC $a is on NUMA node $nn but none of its CPUs is isolated: a poller on an isolated core would reach the NIC across sockets" \
		"/sys/bus/pci/devices/$a/numa_node, /sys/devices/system/node/node$nn/cpulist"
}

# Print the address of the first NIC of kind K among "kind:addr" words.
dpdk_first() {
	local k=$1 w
	shift
	for w in "$@"; do
		[ "${w%%:*}" = "$k" ] && { echo "${w#*:}"; return; }
	done
}
