# shellcheck shell=bash
# kernel.sh - the kernel: release, command line, build options, modules,
# the IOMMU and VFIO.

# The kernel options the verdicts ask about.
KCONF_KEYS='BPF_SYSCALL|BPF_JIT|XDP_SOCKETS|VETH|HUGETLBFS|VFIO|VFIO_PCI'
KCONF_KEYS+='|VFIO_NOIOMMU|INFINIBAND|INFINIBAND_USER_ACCESS|RDMA_RXE|RDMA_SIW'
KCONF_KEYS+='|MLX5_CORE|MLX5_INFINIBAND|DMA_SHARED_BUFFER|DMABUF_MOVE_NOTIFY'
KCONF_KEYS+='|PCI_P2PDMA|MODULES|NO_HZ_FULL|RCU_NOCB_CPU|CPU_ISOLATION|NUMA'
KCONF_KEYS+='|INTEL_IOMMU|AMD_IOMMU'
declare -A KCONF=()
KREL=
KCONF_SRC=
CMDLINE=
MODULES_LOADABLE=
IOMMU_ON=0
IOMMU_MODE=
VFIO_STATE=

# Print the value of kernel parameter KEY (the last one wins), or fail.
cmdline_get() {
	local tok val='' found=1 toks
	read -ra toks <<<"$CMDLINE"
	for tok in "${toks[@]}"; do
		[ "$tok" = -- ] && break
		case $tok in
		"$1"=*) val=${tok#*=} found=0 ;;
		esac
	done
	[ $found -eq 0 ] && printf '%s\n' "$val"
}

# Print y, m or n for kernel option NAME (without CONFIG_); "" if unknown.
kconf() {
	[ -n "$KCONF_SRC" ] || return 0
	printf '%s\n' "${KCONF[$1]:-n}"
}

# Load the options in KCONF_KEYS from the kernel's build configuration.
kernel_load_config() {
	local text='' line
	if has /proc/config.gz; then
		text=$(zcat "$SYSROOT/proc/config.gz" 2>/dev/null) &&
			KCONF_SRC=/proc/config.gz
	fi
	if [ -z "$KCONF_SRC" ] && has "/boot/config-$KREL"; then
		text=$(rdall "/boot/config-$KREL") && KCONF_SRC=/boot/config-$KREL
	fi
	[ -n "$KCONF_SRC" ] || return 0
	while IFS= read -r line; do
		[[ $line =~ ^CONFIG_($KCONF_KEYS)=(.*)$ ]] || continue
		KCONF[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done <<<"$text"
}

# The kernel: release, command line, configuration, loadable modules.
collect_kernel() {
	local k v
	KREL=$(rd /proc/sys/kernel/osrelease) || KREL=unknown
	fact machine/kernel/release s "$KREL" /proc/sys/kernel/osrelease
	CMDLINE=$(rd /proc/cmdline) || CMDLINE=
	fact machine/kernel/cmdline s "$CMDLINE" /proc/cmdline
	kernel_load_config
	if [ -n "$KCONF_SRC" ]; then
		v=
		for k in BPF_SYSCALL XDP_SOCKETS VFIO_PCI INFINIBAND RDMA_RXE \
			HUGETLBFS DMA_SHARED_BUFFER MODULES; do
			v+="${v:+;}$k=$(kconf $k)"
		done
		fact machine/kernel/config a "$v" "$KCONF_SRC"
	else
		fact machine/kernel/config a "" \
			"/proc/config.gz or /boot/config-$KREL (neither readable: options assumed present)"
	fi
	# No /proc/modules means a kernel built without loadable modules.
	if ! has /proc/modules; then
		MODULES_LOADABLE=false
		fact machine/kernel/loadable_modules b false "/proc/modules (absent)"
	elif [ "$(rd /proc/sys/kernel/modules_disabled)" = 1 ]; then
		MODULES_LOADABLE=false
		fact machine/kernel/loadable_modules b false \
			/proc/sys/kernel/modules_disabled
	else
		MODULES_LOADABLE=true
		fact machine/kernel/loadable_modules b true /proc/modules
	fi
}

# True if kernel module NAME is loaded or built in.
module_present() {
	has "/sys/module/$1"
}

# Describe how to get module NAME (option OPT): print "loaded", "loadable",
# "built-in" or "missing" (not in this kernel, or modules cannot load).
module_state() {
	local name=$1 opt=$2 c
	module_present "$name" && { echo loaded; return; }
	c=$(kconf "$opt")
	case $c in
	y) echo built-in ;;
	m) [ "$MODULES_LOADABLE" = true ] && echo loadable || echo missing ;;
	"") [ "$MODULES_LOADABLE" = true ] && echo loadable || echo missing ;;
	*) echo missing ;;
	esac
}

# The IOMMU (hardware units, mode, groups) and VFIO.
collect_iommu() {
	local units groups g t='' pt='' src
	units=$(ls_names '/sys/class/iommu/*' | paste -sd';' -)
	groups=$(ls_names '/sys/kernel/iommu_groups/*' | grep -c .)
	fact machine/iommu/units a "$units" /sys/class/iommu
	fact machine/iommu/groups n "$groups" /sys/kernel/iommu_groups
	for g in $(ls_names '/sys/kernel/iommu_groups/*' | head -n 1); do
		t=$(rd "/sys/kernel/iommu_groups/$g/type") || t=
		src=/sys/kernel/iommu_groups/$g/type
	done
	pt=$(cmdline_get iommu) || pt=
	if [ -n "$units" ] || [ "$groups" -gt 0 ]; then
		# shellcheck disable=SC2034 # read by the files that source this one
		IOMMU_ON=1
		case $t in
		identity) IOMMU_MODE="passthrough (identity)" ;;
		DMA | DMA-FQ) IOMMU_MODE="translated ($t)" ;;
		*) IOMMU_MODE=on ;;
		esac
		[ -z "$t" ] && [ "$pt" = pt ] && IOMMU_MODE="passthrough (iommu=pt)"
		fact machine/iommu/mode s "$IOMMU_MODE" \
			"${src:-/sys/class/iommu}; /proc/cmdline"
	else
		IOMMU_MODE=off
		fact machine/iommu/mode s off \
			"/sys/class/iommu (empty), /sys/kernel/iommu_groups (empty)"
	fi
	fact machine/iommu/cmdline s "$(cmdline_tokens 'intel_iommu amd_iommu iommu')" \
		/proc/cmdline
	VFIO_STATE=$(module_state vfio_pci VFIO_PCI)
	fact machine/vfio/vfio_pci s "$VFIO_STATE" \
		"/sys/module/vfio_pci; ${KCONF_SRC:-kernel config} CONFIG_VFIO_PCI"
	if has /dev/vfio/vfio; then
		fact machine/vfio/dev b true /dev/vfio/vfio
	else
		fact machine/vfio/dev b false "/dev/vfio/vfio (absent)"
	fi
	t=$(rd /sys/module/vfio/parameters/enable_unsafe_noiommu_mode) || t=
	fact machine/vfio/noiommu s "$t" \
		/sys/module/vfio/parameters/enable_unsafe_noiommu_mode
}

# Print the tokens KEY=... of the command line for the KEYS given, or "".
cmdline_tokens() {
	local k v out=
	for k in $1; do
		v=$(cmdline_get "$k") && out+="${out:+ }$k=$v"
	done
	printf '%s\n' "$out"
}
