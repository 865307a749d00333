# shellcheck shell=bash
# topo.sh - how each GPU sits relative to each NIC: the nvidia-smi topo -m
# relation when nvidia-smi is there, otherwise one derived from the PCI
# paths in sysfs; warnings when they sit on different NUMA nodes or the
# path between them crosses the CPU's root complex.

declare -A TOPO_REL=() TOPO_SRC=() GPU_NAME=()
TOPO_NOTES=()

# Print the label of NIC A for relations: its RDMA device, else netdev.
nic_label() {
	local l=${NIC_RDMA[$1]%% *}
	[ -n "$l" ] || l=${NIC_NETDEVS[$1]%% *}
	printf '%s\n' "${l:-$1}"
}

# Name the GPUs as nvidia-smi does (GPU0, GPU1, ...) into GPU_NAME: from
# nvidia-smi --query-gpu when it answers, else in PCI order (its default).
gpu_names() {
	local idx bus i src="PCI order of /sys/bus/pci/devices (nvidia-smi's default numbering)"
	if { [ -n "$SYSROOT" ] || has /proc/driver/nvidia/version; } &&
		run_cmd nvidia-smi-query-gpu nvidia-smi --query-gpu=index,pci.bus_id \
			--format=csv,noheader; then
		while IFS=', ' read -r idx bus; do
			bus=${bus,,}
			[ -n "$bus" ] && GPU_NAME[${bus: -12}]=GPU$idx
		done <<<"$CMD_OUT"
		src=$CMD_SRC
	fi
	for i in "${!GPUS[@]}"; do
		[ -n "${GPU_NAME[${GPUS[i]}]:-}" ] || GPU_NAME[${GPUS[i]}]=GPU$i
		fact "topology/gpus/${GPUS[i]}/name" s "${GPU_NAME[${GPUS[i]}]}" "$src"
	done
}

# Parse nvidia-smi topo -m: TOPO_REL[GPUn|nic] = PIX/PXB/PHB/NODE/SYS/NV#.
topo_nvidia_smi() {
	local txt hdr=() line f=() i row nic col
	declare -A legend=()
	# Only with the driver loaded: nvidia-smi would otherwise try to load
	# it (through nvidia-modprobe), and the doctor changes nothing.
	[ -n "$SYSROOT" ] || has /proc/driver/nvidia/version || return 1
	run_cmd nvidia-smi-topo-m nvidia-smi topo -m || return 1
	# Newer versions underline the header with escape sequences.
	# shellcheck disable=SC2001 # a regular expression, not a substitution
	txt=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$CMD_OUT")
	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]+(NIC[0-9]+):[[:space:]]+([^[:space:]]+) ]] &&
			legend[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done <<<"$txt"
	while IFS= read -r line; do
		# Split on single tabs: empty cells count (IFS=tab would merge them).
		IFS=$'\x1f' read -r -a f <<<"${line//$'\t'/$'\x1f'}"
		for i in "${!f[@]}"; do
			f[i]=$(trim "${f[i]}")
		done
		if [ ${#hdr[@]} -eq 0 ]; then
			[[ $line == *GPU0* ]] && [ -z "${f[0]}" ] && hdr=("${f[@]}")
			continue
		fi
		row=${f[0]:-}
		[[ $row =~ ^GPU[0-9]+$ ]] || continue
		for i in "${!hdr[@]}"; do
			col=${hdr[i]}
			case $col in '' | GPU[0-9]* | *Affinity* | *NUMA*) continue ;; esac
			nic=${legend[$col]:-$col}
			TOPO_REL[$row\|$nic]=${f[i]:-}
			TOPO_SRC[$row\|$nic]=$CMD_SRC
		done
		for i in "${!hdr[@]}"; do
			[ "${hdr[i]}" = "CPU Affinity" ] &&
				fact "topology/gpu_cpu_affinity/$row" s "${f[i]:-}" "$CMD_SRC"
		done
	done <<<"$txt"
	[ ${#TOPO_REL[@]} -gt 0 ]
}

# Print the relation of GPU G and NIC N from their PCI paths: PIX/PXB if
# they share a switch or root port, PHB if only the host bridge, NODE if
# different host bridges on one NUMA node, SYS across NUMA nodes.
topo_from_sysfs() {
	local g=$1 n=$2 ga gb
	if [ "${GPU_ROOT[$g]}" = "${NIC_ROOT[$n]}" ] && [ -n "${GPU_ROOT[$g]}" ]; then
		ga=${GPU_CHAIN[$g]%%/*} gb=${NIC_CHAIN[$n]%%/*}
		if [ "$ga" = "$gb" ] && [[ ${GPU_CHAIN[$g]} == */* ]]; then
			echo PIX/PXB
		else
			echo PHB
		fi
	elif [ "${GPU_NUMA[$g]}" = "${NIC_NUMA[$n]}" ] && [ "${GPU_NUMA[$g]}" != -1 ]; then
		echo NODE
	elif [ "${GPU_NUMA[$g]}" = -1 ] || [ "${NIC_NUMA[$n]}" = -1 ]; then
		echo unknown
	else
		echo SYS
	fi
}

# Relations for every GPU and every NIC that is not the management
# interface; warnings for the NICs GPUDirect would use (RDMA-capable).
collect_topology() {
	local g n gname lbl key rel src
	[ ${#GPUS[@]} -gt 0 ] || return 0
	gpu_names
	topo_nvidia_smi
	for g in "${GPUS[@]}"; do
		gname=${GPU_NAME[$g]}
		TW_NUMA=() TW_SRC=()
		declare -A TW_REL=()
		for n in "${NICS[@]}"; do
			[ -n "${NIC_MGMT[$n]:-}" ] && continue
			lbl=$(nic_label "$n")
			key="$gname|$lbl"
			if [ -n "${TOPO_REL[$key]:-}" ]; then
				rel=${TOPO_REL[$key]} src=${TOPO_SRC[$key]}
			else
				rel=$(topo_from_sysfs "$g" "$n")
				src="derived from the PCI paths and numa_node of /sys/bus/pci/devices/$g and $n"
			fi
			fact "topology/relations/$gname/$lbl" s "$rel" "$src"
			[ -n "${NIC_RDMA[$n]}" ] || continue
			topo_note "$g" "$n" "$lbl" "$rel" "$src"
		done
		topo_warn "$g" "$gname"
		unset TW_REL
	done
}

# Note how RDMA NIC N (label LBL) sits relative to GPU G, for topo_warn.
topo_note() {
	local g=$1 n=$2 lbl=$3 rel=$4 src=$5 gn=${GPU_NUMA[$1]} nn=${NIC_NUMA[$2]}
	if [ "$gn" != -1 ] && [ "$nn" != -1 ] && [ "$gn" != "$nn" ]; then
		TW_NUMA+=("$lbl ($n, node $nn)")
	fi
	case $rel in
	SYS | NODE | PHB)
		TW_REL[$rel]+="${TW_REL[$rel]:+, }$lbl"
		TW_SRC+=("$src")
		;;
	esac
}

# One warning per GPU and kind: NUMA nodes apart, or a relation that
# crosses the CPU's root complex (PHB, NODE) or the sockets (SYS).
topo_warn() {
	local g=$1 gname=$2 rel why
	local far
	if [ ${#TW_NUMA[@]} -gt 0 ]; then
		far=$(printf '%s, ' "${TW_NUMA[@]}" | sed 's/, $//')
		warn gpu-nic-numa "$(printf '%s ' \
			"$gname ($g, NUMA node ${GPU_NUMA[$g]}) and $far sit on" \
			"different NUMA nodes: GPUDirect traffic between them crosses" \
			"the inter-socket link; pair the GPU with an RDMA NIC on its" \
			"own node")" "/sys/bus/pci/devices/*/numa_node"
		TOPO_NOTES+=("$gname (NUMA node ${GPU_NUMA[$g]}) and $far are on different NUMA nodes")
	fi
	for rel in SYS NODE PHB; do
		[ -n "${TW_REL[$rel]:-}" ] || continue
		case $rel in
		SYS)
			why="the path crosses the CPU's root complex and the link"
			why+=" between sockets; GPUDirect RDMA is slow there, and"
			why+=" NCCL does not use it by default"
			;;
		*)
			why="peer-to-peer traffic crosses the CPU's root complex"
			why+=" (host bridge); best is PIX or PXB, behind one PCIe switch"
			;;
		esac
		warn gpu-nic-topo "$gname and ${TW_REL[$rel]}: $rel, $why" "${TW_SRC[0]}"
		TOPO_NOTES+=("$gname to ${TW_REL[$rel]}: $rel")
	done
}
