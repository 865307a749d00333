# shellcheck shell=bash
# verdict_rdma.sh - the verdicts of RDMA verbs and of GPUDirect.

# Reasons for one verbs device: provider, ports, link layer, RoCE, PFC.
verbs_device() {
	local d=$1 base=/sys/class/infiniband/$1 p st ll kind
	[ "${RDMA_SOFT[$d]}" = true ] && kind="software (${d%%[0-9]*})" || kind=hardware
	for p in $(ls_names "$base/ports/*"); do
		st=$(rd "$base/ports/$p/state") || st='?'
		ll=$(rd "$base/ports/$p/link_layer") || ll='?'
		reason verbs "$d port $p: $kind, $ll, ${st#*: }$(verbs_roce "$d" "$p")" \
			"$base/ports/$p/{state,link_layer}, $base/ports/$p/gid_attrs/types/*"
		if [ "$ll" = InfiniBand ] && [[ $st == *INIT* ]]; then
			reason verbs "$d port $p is INIT: no subnet manager has configured the fabric" \
				"$base/ports/$p/state"
			step verbs package "run a subnet manager on one node of the fabric: apt-get install opensm"
		fi
	done
	if [ -n "$RDMA_USER_DEVS" ] && [[ ";$RDMA_USER_DEVS;" != *";$d;"* ]]; then
		reason verbs "libibverbs does not list $d: its provider library is missing" \
			"ibv_devinfo -l"
		step verbs package "apt-get install ibverbs-providers"
	fi
}

# Print ", RoCE v1/v2" for an Ethernet port from its GID types.
verbs_roce() {
	local t
	t=$(for g in $(ls_names "/sys/class/infiniband/$1/ports/$2/gid_attrs/types/*"); do
		rd "/sys/class/infiniband/$1/ports/$2/gid_attrs/types/$g" 2>/dev/null
	done | grep -i roce | sort -u | paste -sd/ -)
	[ -n "$t" ] && printf ', GID types %s' "$t"
	return 0
}

# How verbs can run without an RDMA NIC: Soft-RoCE on this kernel, or in
# the lab's qemu VM. Sets VERBS_ROUTE to host, vm or none.
verbs_lab_route() {
	local rxe up i
	rxe=$(module_state rdma_rxe RDMA_RXE)
	# Soft-RoCE over a spare NIC if there is one, else over any NIC (rxe
	# only adds a device; the interface keeps its traffic).
	up=$(for i in "${IFACES[@]}"; do
		[ "${IF_KIND[$i]}" = physical ] || continue
		[ -n "${IF_MGMT[$i]:-}" ] && echo "1 $i" || echo "0 $i"
	done | sort -n | awk 'NR == 1 { print $2 }')
	case $rxe in
	loaded | built-in | loadable)
		reason verbs "Soft-RoCE (rdma_rxe) is available in this kernel: $rxe" \
			"/sys/module/rdma_rxe, ${KCONF_SRC:-kernel config} CONFIG_RDMA_RXE"
		[ "$rxe" = loadable ] && step verbs module "modprobe rdma_rxe"
		step verbs command "rdma link add rxe0 type rxe netdev ${up:-IF} (Soft-RoCE over that interface)"
		VERBS_ROUTE=host
		return
		;;
	esac
	reason verbs "this kernel has no RDMA (CONFIG_INFINIBAND/RDMA_RXE) or cannot load it" \
		"${KCONF_SRC:-kernel config}, /proc/modules"
	if [ "${PKG_HAVE[qemu-system-x86]}" = true ] && [ "${PKG_HAVE[busybox-static]}" = true ]; then
		reason verbs "qemu and busybox are installed: the lab runs verbs over Soft-RoCE in a Debian kernel under qemu" \
			"${PKG_FILES[qemu-system-x86]}, ${PKG_FILES[busybox-static]%% *}"
		VERBS_ROUTE=vm
	else
		step verbs package "apt-get install qemu-system-x86 busybox-static (the lab's RDMA VM), or boot a kernel with CONFIG_RDMA_RXE"
		VERBS_ROUTE=none
	fi
}

# RDMA verbs: hardware device with an active port, or a lab route.
verdict_verbs() {
	local ok=true d soft=()
	need_packages verbs libibverbs-dev librdmacm-dev ibverbs-providers || ok=false
	for d in "${RDMA_DEVS[@]}"; do
		verbs_device "$d"
		[ "${RDMA_SOFT[$d]}" = true ] && [ -n "${RDMA_ACTIVE[$d]:-}" ] && soft+=("$d")
	done
	if [ ${#RDMA_DEVS[@]} -gt 0 ] && [ -z "$(ls_names '/dev/infiniband/uverbs*')" ]; then
		reason verbs "no /dev/infiniband/uverbs*: user space cannot open the devices" /dev/infiniband
		step verbs module "modprobe ib_uverbs"
		ok=false
	fi
	if [ ${#RDMA_DEVS[@]} -eq 0 ]; then
		reason verbs "no verbs devices" "/sys/class/infiniband (empty)"
	fi
	if [ "$RDMA_HW_ACTIVE" -gt 0 ]; then
		if [ "$ok" = true ]; then
			verdict verbs ready "an RDMA NIC with an active port"
			vm_caveat verbs
		else
			verdict verbs unavailable "an RDMA NIC is there, but the verbs libraries or devices are missing"
		fi
		return
	fi
	if [ ${#soft[@]} -gt 0 ]; then
		VERBS_ROUTE=soft
	else
		verbs_lab_route
		[ ${#RDMA_DEVS[@]} -eq 0 ] &&
			step verbs hardware "for a real run: an RDMA NIC (ConnectX-4 or later for RoCE v2, on a fabric with PFC/ECN)"
	fi
	if [ "$ok" = false ]; then
		verdict verbs unavailable "the verbs libraries are missing (then: $(verbs_route_text))"
		return
	fi
	case $VERBS_ROUTE in
	none) verdict verbs unavailable "no RDMA device, no Soft-RoCE, no VM to run it in" ;;
	*) verdict verbs lab "$(verbs_route_text)" ;;
	esac
}

# Print the lab route of verbs in words.
verbs_route_text() {
	case $VERBS_ROUTE in
	soft) echo "Soft-RoCE on this kernel: real verbs, software transport" ;;
	host) echo "Soft-RoCE on this kernel, once an rxe device is added" ;;
	vm) echo "Soft-RoCE inside the lab's qemu VM (no RDMA in this kernel)" ;;
	*) echo "no route to verbs here" ;;
	esac
}

# GPUDirect: a GPU with its driver and CUDA, a kernel route for the NIC
# to reach GPU memory (nvidia-peermem or dma-buf), and an RDMA NIC.
verdict_gpu() {
	local g nv=false direct=false
	if [ ${#GPUS[@]} -eq 0 ]; then
		reason gpu "no NVIDIA GPU on the PCI bus" \
			"/sys/bus/pci/devices/*/{vendor,class} (no 0x10de display or 3D controller)"
		[ -n "$CUDA_VERSION" ] && reason gpu "CUDA $CUDA_VERSION is installed: GPU code builds here, it cannot run" \
			/usr/local/cuda/bin/nvcc
		step gpu hardware "$(printf '%s ' \
			"run on a machine with an NVIDIA GPU (data-centre class, next" \
			"to an RDMA NIC, for GPUDirect); until then the GPU variants" \
			"run on the emulated device-memory backend")"
		verdict gpu unavailable "no NVIDIA GPU"
		return
	fi
	for g in "${GPUS[@]}"; do
		reason gpu "${GPU_NAME[$g]:-GPU} $g: driver ${GPU_DRV[$g]}, NUMA node ${GPU_NUMA[$g]}" \
			"/sys/bus/pci/devices/$g/{driver,numa_node}"
		[ "${GPU_DRV[$g]}" = nvidia ] && nv=true
		[ "${GPU_DRV[$g]}" = nouveau ] &&
			step gpu package "nouveau drives $g: install the NVIDIA driver and blacklist nouveau"
	done
	if [ "$nv" = false ] || [ -z "$NV_VERSION" ]; then
		reason gpu "the NVIDIA kernel driver is not loaded" "/proc/driver/nvidia/version (absent)"
		step gpu package "install the NVIDIA driver (nvidia-driver from Debian's non-free, or NVIDIA's data-centre driver)"
		verdict gpu unavailable "a GPU, but no NVIDIA driver"
		return
	fi
	reason gpu "NVIDIA driver $NV_VERSION ($([ "$NV_OPEN" = true ] && echo open || echo proprietary) kernel module)" \
		/proc/driver/nvidia/version
	if [ -z "$CUDA_VERSION" ]; then
		reason gpu "no CUDA toolkit: the GPU variants cannot be built" "/usr/local/cuda/bin/nvcc (absent)"
		step gpu package "install the CUDA toolkit (NVIDIA's cuda-toolkit, or Debian's nvidia-cuda-toolkit)"
		verdict gpu unavailable "a GPU and its driver, but no CUDA toolkit"
		return
	fi
	reason gpu "CUDA $CUDA_VERSION" /usr/local/cuda/bin/nvcc
	gpu_direct_reasons && direct=true
	for g in "${TOPO_NOTES[@]}"; do
		reason gpu "$g" "nvidia-smi topo -m, /sys/bus/pci/devices/*/numa_node"
	done
	if [ "$direct" = true ]; then
		verdict gpu ready "GPUDirect RDMA: GPU, driver, $GPU_ROUTE and an RDMA NIC"
		vm_caveat gpu
	else
		verdict gpu lab "the GPU works, but packets reach it through host memory (no GPUDirect RDMA yet)"
	fi
}

# The GPUDirect pieces: nvidia-peermem or dma-buf, and an RDMA NIC. Sets
# GPU_ROUTE; fails if one is missing.
gpu_direct_reasons() {
	local ok=0
	GPU_ROUTE=
	if [ "$PEERMEM" = true ]; then
		GPU_ROUTE=nvidia-peermem
		reason gpu "nvidia-peermem is loaded: the RDMA stack can pin GPU memory" /sys/module/nvidia_peermem
	elif [[ $DMABUF == likely* ]]; then
		GPU_ROUTE=dma-buf
		reason gpu "dma-buf route likely (kernel >= 5.12, open module >= 515): verbs can register GPU memory with ibv_reg_dmabuf_mr" \
			"/proc/driver/nvidia/version, /proc/sys/kernel/osrelease"
	else
		reason gpu "neither nvidia-peermem nor dma-buf: the NIC cannot reach GPU memory (dma-buf $DMABUF${DMABUF_WHY:+: $DMABUF_WHY})" \
			"/sys/module/nvidia_peermem (absent), /proc/driver/nvidia/version"
		step gpu module "modprobe nvidia-peermem (it ships with the NVIDIA driver and needs the kernel's RDMA core)"
		ok=1
	fi
	if [ "$RDMA_HW_ACTIVE" -eq 0 ]; then
		reason gpu "no RDMA NIC with an active port: GPUDirect RDMA has no NIC to DMA from" /sys/class/infiniband
		step gpu hardware "an RDMA NIC (ConnectX) on the GPU's NUMA node, ideally behind the same PCIe switch (PIX/PXB)"
		ok=1
	fi
	return $ok
}
