# shellcheck shell=bash
# virt.sh - is this a virtual machine, and which figures does that make
# unreliable? Evidence: the CPU's hypervisor flag, the DMI vendor and
# product, /sys/hypervisor, systemd-detect-virt, steal time.

IN_VM=false

# Print a hypervisor name if the DMI strings name one.
virt_dmi_name() {
	case "$1 $2" in
	*QEMU* | *KVM*) echo KVM/QEMU ;;
	*VMware*) echo VMware ;;
	*innotek* | *VirtualBox*) echo VirtualBox ;;
	*"Microsoft Corporation Virtual Machine"*) echo Hyper-V ;;
	*Xen*) echo Xen ;;
	*"Amazon EC2"*) echo "Amazon EC2" ;;
	*Google*) echo "Google Compute Engine" ;;
	*) return 1 ;;
	esac
}

# The evidence, each with its source.
virt_evidence() {
	local flag=false ven prod name='' hyp dv steal
	case $CPU_FLAGS in *" hypervisor "*) flag=true ;; esac
	fact virtualization/cpu_hypervisor_flag b "$flag" "/proc/cpuinfo flags (hypervisor)"
	ven=$(rd /sys/class/dmi/id/sys_vendor) || ven=
	prod=$(rd /sys/class/dmi/id/product_name) || prod=
	fact virtualization/dmi s "${ven:+$ven / }$prod" \
		"/sys/class/dmi/id/{sys_vendor,product_name}"
	hyp=$(rd /sys/hypervisor/type) || hyp=
	[ -n "$hyp" ] && fact virtualization/hypervisor_type s "$hyp" /sys/hypervisor/type
	run_cmd systemd-detect-virt systemd-detect-virt
	dv=$(head -n 1 <<<"$CMD_OUT")
	[ -n "$dv" ] && fact virtualization/systemd_detect_virt s "$dv" "$CMD_SRC"
	steal=$(rdall /proc/stat | awk '$1 == "cpu" { print $9; exit }')
	fact virtualization/steal_ticks n "$steal" "/proc/stat (cpu line, 8th value: steal)"
	[ "$flag" = true ] && IN_VM=true
	[ -n "$hyp" ] && IN_VM=true
	name=$(virt_dmi_name "$ven" "$prod") && IN_VM=true
	case ${dv:-none} in none | docker | podman | lxc* | systemd-nspawn | wsl) ;;
	*) IN_VM=true name=${name:-$dv} ;;
	esac
	# Last resort: the paravirtual clock the guest was offered.
	if [ -z "$name" ] && [ -z "$hyp" ] && [ "$flag" = true ]; then
		case " $(rd /sys/devices/system/clocksource/clocksource0/available_clocksource) " in
		*" kvm-clock "*) name="KVM (kvm-clock)" ;;
		*" hyperv_clocksource"*) name="Hyper-V (hyperv_clocksource)" ;;
		*" xen "*) name="Xen (xen clocksource)" ;;
		esac
	fi
	VIRT_NAME=${name:-${hyp:-unknown hypervisor}}
	STEAL=${steal:-0}
}

# When in a VM: the figures it makes unreliable, and one warning.
virt_unreliable() {
	local i ts=false
	fact virtualization/hypervisor b "$IN_VM" \
		"/proc/cpuinfo flags, /sys/class/dmi/id, /sys/hypervisor, systemd-detect-virt"
	[ "$IN_VM" = true ] || return 0
	fact virtualization/name s "$VIRT_NAME" \
		"/sys/class/dmi/id, /sys/hypervisor/type, systemd-detect-virt, /sys/devices/system/clocksource/clocksource0/available_clocksource"
	fact virtualization/unreliable/jitter s "latency tails (p99, p99.9) and run-to-run spread: the host schedules the vCPUs (steal so far: $STEAL ticks)" \
		"/proc/stat (steal)"
	if [ "$HAS_PMU" = false ]; then
		fact virtualization/unreliable/pmu s "$(printf '%s ' \
			"cycles and instructions: no CPU PMU in this guest, perf stat" \
			"-e cycles fails; count TSC-equivalent cycles (CPU time x TSC" \
			"rate) instead")" /sys/bus/event_source/devices
	fi
	for i in "${IFACES[@]}"; do
		[ "${IF_HWTS[$i]:-false}" = true ] && ts=true
	done
	if [ "$ts" = false ]; then
		fact virtualization/unreliable/timestamps s "one-way latency: no interface has hardware timestamps; software stamps include the guest's scheduling" \
			"/sys/class/net/*/device/ptp, ethtool -T"
	fi
	fact virtualization/unreliable/topology s "NUMA and PCIe placement: the guest sees the hypervisor's topology, not the host's" \
		"/sys/bus/pci/devices/*/numa_node"
	warn vm "$(printf '%s ' \
		"running under a hypervisor ($VIRT_NAME): use this machine to" \
		"learn and to check correctness; do not trust its latency tails," \
		"cycle counts or timestamps")" "/proc/cpuinfo flags (hypervisor), /sys/class/dmi/id"
}

# All virtualisation facts.
collect_virt() {
	virt_evidence
	virt_unreliable
}
