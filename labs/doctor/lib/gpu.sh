# shellcheck shell=bash
# gpu.sh - NVIDIA GPUs: PCI address, NUMA node, driver, nvidia-peermem,
# dma-buf support, and the CUDA toolkit.

GPUS=()
declare -A GPU_DRV=() GPU_NUMA=() GPU_ROOT=() GPU_CHAIN=()
NV_VERSION=
NV_OPEN=false
PEERMEM=false
DMABUF=unknown
DMABUF_WHY=
CUDA_VERSION=

# The NVIDIA display and 3D controllers (class 0300xx, 0302xx) on PCI.
gpu_devices() {
	local a cls ven base drv
	for a in $(ls_names '/sys/bus/pci/devices/*' | LC_ALL=C sort); do
		ven=$(rd "/sys/bus/pci/devices/$a/vendor") || continue
		cls=$(rd "/sys/bus/pci/devices/$a/class") || continue
		[ "$ven" = 0x10de ] || continue
		[[ $cls == 0x0300* || $cls == 0x0302* ]] || continue
		GPUS+=("$a")
		base=topology/gpus/$a
		drv=$(lnk_base "/sys/bus/pci/devices/$a/driver") || drv=none
		# shellcheck disable=SC2034 # read by the files that source this one
		GPU_DRV[$a]=$drv
		fact "$base/driver" s "$drv" "/sys/bus/pci/devices/$a/driver"
		pci_facts "$a" "$base"
		# shellcheck disable=SC2034 # read by the files that source this one
		GPU_NUMA[$a]=$PCI_NUMA GPU_ROOT[$a]=$PCI_ROOT GPU_CHAIN[$a]=$PCI_CHAIN
	done
	return 0
}

# The NVIDIA kernel driver: version, open or proprietary flavour.
gpu_driver() {
	local v
	v=$(rd /proc/driver/nvidia/version) || v=
	if [[ $v =~ Kernel\ Module\ (for\ [a-z0-9_]+\ +)?\ *([0-9]+\.[0-9.]+) ]]; then
		NV_VERSION=${BASH_REMATCH[2]}
	elif [[ $v =~ ([0-9]{3}\.[0-9]+(\.[0-9]+)?) ]]; then
		NV_VERSION=${BASH_REMATCH[1]}
	fi
	[[ $v == *"Open Kernel Module"* ]] && NV_OPEN=true
	fact paths/gpu/driver_version s "$NV_VERSION" /proc/driver/nvidia/version
	fact paths/gpu/open_kernel_module b "$NV_OPEN" /proc/driver/nvidia/version
}

# GPUDirect RDMA's two kernel routes: nvidia-peermem, or dma-buf (kernel
# 5.12+, the open NVIDIA module 515+, rdma-core 34+).
gpu_direct() {
	local why=()
	module_present nvidia_peermem && PEERMEM=true
	fact paths/gpu/nvidia_peermem b "$PEERMEM" /sys/module/nvidia_peermem
	if [ -z "$NV_VERSION" ]; then
		DMABUF=unknown
		why+=("no NVIDIA driver loaded")
	else
		DMABUF=likely
		kver_ge "$KREL" 5.12 || { DMABUF=unlikely; why+=("kernel $KREL < 5.12"); }
		[ "${NV_VERSION%%.*}" -ge 515 ] 2>/dev/null ||
			{ DMABUF=unlikely; why+=("driver $NV_VERSION < 515"); }
		[ "$NV_OPEN" = true ] ||
			{ DMABUF=unlikely; why+=("proprietary module: dma-buf export needs the open kernel module"); }
		[ "$(kconf DMA_SHARED_BUFFER)" = n ] &&
			{ DMABUF=unlikely; why+=("kernel without CONFIG_DMA_SHARED_BUFFER"); }
	fi
	DMABUF_WHY=$(printf '%s; ' "${why[@]}" | sed 's/; $//')
	fact paths/gpu/dmabuf s "$DMABUF${DMABUF_WHY:+ ($DMABUF_WHY)}" \
		"/proc/driver/nvidia/version; /proc/sys/kernel/osrelease; ${KCONF_SRC:-kernel config}"
}

# The CUDA toolkit: nvcc and its version (version.json, the versioned
# directory /usr/local/cuda links to, or nvcc --version).
gpu_cuda() {
	local nvcc top v='' src
	nvcc=$(first_of /usr/local/cuda/bin/nvcc '/usr/local/cuda-*/bin/nvcc' \
		/usr/bin/nvcc) || nvcc=
	if [ -z "$nvcc" ]; then
		fact paths/gpu/cuda s "" "/usr/local/cuda/bin/nvcc (absent)"
		return
	fi
	top=${nvcc%/bin/nvcc}
	src="$top/version.json"
	v=$(rdall "$top/version.json" | jq -r '.cuda.version // empty' 2>/dev/null) || v=
	if [ -z "$v" ] && [[ $(lnk "$top") =~ cuda-([0-9]+\.[0-9]+) ]]; then
		v=${BASH_REMATCH[1]} src="$top -> $(lnk "$top")"
	fi
	if [ -z "$v" ] && run_cmd nvcc-version "$nvcc" --version; then
		v=$(sed -n 's/.*release \([0-9][0-9.]*\).*/\1/p' <<<"$CMD_OUT")
		src=$CMD_SRC
	fi
	CUDA_VERSION=${v:-unknown}
	fact paths/gpu/cuda s "$CUDA_VERSION" "$nvcc; $src"
}

# All GPU facts.
collect_gpu() {
	gpu_devices
	gpu_driver
	gpu_direct
	gpu_cuda
}
