# shellcheck shell=bash
# verdict_kernel.sh - the verdicts of the paths that keep the kernel's
# driver: the socket stack, XDP and AF_XDP.
#
# A verdict says what can run now: "ready" (for real, on a NIC that is
# not the management interface), "lab" (only the lab's form: veth, generic
# XDP, copy mode, DPDK without hugepages, Soft-RoCE, host-staged GPU data),
# or "unavailable". Reasons cite their source; steps say what to do.

# Add the VM caveat to path ID when it is not unavailable.
vm_caveat() {
	[ "$IN_VM" = true ] || return 0
	reason "$1" "in a VM ($VIRT_NAME): it runs, but its latency figures are not to be trusted (see Virtualization)" \
		"/proc/cpuinfo flags (hypervisor)"
}

# Print "IF (driver)" for interface I.
if_label() {
	printf '%s (%s)\n' "$1" "${IF_DRV[$1]}"
}

# Record path ID's view of interface I: mode string, driver, management.
path_if() {
	put "paths/$1/interfaces/$2/mode" s "$3"
	put "paths/$1/interfaces/$2/driver" s "${IF_DRV[$2]}"
	put "paths/$1/interfaces/$2/management" b \
		"$([ -n "${IF_MGMT[$2]:-}" ] && echo true || echo false)"
}

# The kernel socket stack.
verdict_socket() {
	local v i hw=()
	if ! has /proc/net/udp; then
		reason socket "no UDP in this kernel" "/proc/net/udp (absent)"
		verdict socket unavailable "the kernel has no UDP"
		return
	fi
	reason socket "UDP sockets need no package, driver or privilege beyond the kernel" /proc/net/udp
	v=$(rd /proc/sys/net/core/busy_poll) || v=
	[ -n "$v" ] && reason socket "net.core.busy_poll=$v (0: sleep until the interrupt; SO_BUSY_POLL turns polling on per socket)" \
		/proc/sys/net/core/busy_poll
	for i in "${IFACES[@]}"; do
		[ "${IF_HWTS[$i]:-false}" = true ] && hw+=("$i")
	done
	if [ ${#hw[@]} -gt 0 ]; then
		reason socket "hardware RX timestamps (SO_TIMESTAMPING) on: ${hw[*]}" \
			"/sys/class/net/IF/device/ptp, ethtool -T IF"
	else
		reason socket "no interface has hardware timestamps: latency uses software stamps" \
			"/sys/class/net/*/device/ptp, ethtool -T"
	fi
	verdict socket ready "the kernel UDP stack works on every interface"
	vm_caveat socket
}

# XDP: native (driver mode) or generic, per interface.
verdict_xdp() {
	local i native=() ok=true veth
	if [ "$(kconf BPF_SYSCALL)" = n ]; then
		reason xdp "kernel built without CONFIG_BPF_SYSCALL" "$KCONF_SRC"
		step xdp hardware "boot a kernel with CONFIG_BPF_SYSCALL=y (every distribution kernel has it)"
		verdict xdp unavailable "this kernel cannot load BPF programs"
		return
	fi
	need_packages xdp libbpf-dev libxdp-dev clang bpftool || ok=false
	for i in "${IFACES[@]}"; do
		case ${IF_KIND[$i]} in loopback | virtual) [ "${IF_DRV[$i]}" = veth ] || continue ;; esac
		path_if xdp "$i" "${IF_XDP[$i]}"
		if [ -n "${IF_MGMT[$i]:-}" ]; then
			reason xdp "$(if_label "$i"): ${IF_XDP[$i]} XDP, but it is the management interface: never attach XDP there" \
				/proc/net/route
		elif [ "${IF_XDP[$i]}" = native ]; then
			reason xdp "$(if_label "$i"): native XDP (the driver runs the program before any skb exists)" \
				"${IF_DSRC[$i]}, labs/doctor/drivers.txt"
			[ "${IF_KIND[$i]}" = physical ] && native+=("$i")
		else
			reason xdp "$(if_label "$i"): generic XDP only (runs after the skb is built: no faster than the stack)" \
				"${IF_DSRC[$i]}, labs/doctor/drivers.txt"
		fi
	done
	veth=$(kconf VETH)
	[ "$veth" != n ] && reason xdp "veth: native XDP on the lab's namespace pair" \
		"${KCONF_SRC:-kernel config} CONFIG_VETH"
	if [ "$ok" = false ]; then
		verdict xdp unavailable "the XDP build dependencies are missing"
	elif [ ${#native[@]} -gt 0 ]; then
		verdict xdp ready "native XDP on ${native[*]}"
		vm_caveat xdp
	else
		verdict xdp lab "XDP on the lab's veth pair or in generic mode; no spare NIC with native XDP"
		step xdp hardware "for a real run, add a NIC whose driver has native XDP (mlx5_core, ice, i40e, ixgbe, igc) besides the management interface"
	fi
}

# AF_XDP: copy mode everywhere, zero-copy on some drivers.
verdict_afxdp() {
	local i zc=() ok=true lim mode
	if [ "$(kconf XDP_SOCKETS)" = n ]; then
		reason afxdp "kernel built without CONFIG_XDP_SOCKETS" "$KCONF_SRC"
		step afxdp hardware "boot a kernel with CONFIG_XDP_SOCKETS=y"
		verdict afxdp unavailable "this kernel has no AF_XDP sockets"
		return
	fi
	need_packages afxdp libbpf-dev libxdp-dev clang bpftool || ok=false
	for i in "${IFACES[@]}"; do
		case ${IF_KIND[$i]} in loopback | virtual) [ "${IF_DRV[$i]}" = veth ] || continue ;; esac
		if [ "${IF_ZC[$i]}" = yes ]; then
			path_if afxdp "$i" zero-copy
		else
			path_if afxdp "$i" copy
		fi
		if [ -n "${IF_MGMT[$i]:-}" ]; then
			mode="copy mode only"
			[ "${IF_ZC[$i]}" = yes ] && mode="zero-copy capable"
			reason afxdp "$(if_label "$i"): $mode, but it is the management interface: an XSK program there takes its traffic" \
				/proc/net/route
		elif [ "${IF_ZC[$i]}" = yes ]; then
			reason afxdp "$(if_label "$i"): zero-copy capable (XDP_ZEROCOPY: the NIC DMAs into the UMEM)" \
				"${IF_DSRC[$i]}, labs/doctor/drivers.txt"
			[ "${IF_KIND[$i]}" = physical ] && zc+=("$i")
		else
			reason afxdp "$(if_label "$i"): copy mode only (XDP_COPY: one copy into the UMEM)" \
				"${IF_DSRC[$i]}, labs/doctor/drivers.txt"
		fi
	done
	lim=$(rdall /proc/self/limits | awk '/^Max locked memory/ { print $4 }')
	[ -n "$lim" ] && [ "$lim" != unlimited ] &&
		reason afxdp "locked-memory limit $((lim / 1048576)) MiB: keep the UMEM under it, or run as root (CAP_IPC_LOCK)" \
			"/proc/self/limits (Max locked memory)"
	if [ "$ok" = false ]; then
		verdict afxdp unavailable "the AF_XDP build dependencies are missing"
	elif [ ${#zc[@]} -gt 0 ]; then
		verdict afxdp ready "zero-copy AF_XDP on ${zc[*]}"
		vm_caveat afxdp
	else
		verdict afxdp lab "AF_XDP in copy mode (the lab's veth pair); no spare NIC with zero-copy"
		step afxdp hardware "for zero-copy, add a NIC whose driver supports it (mlx5_core, ice, i40e, ixgbe, igc) besides the management interface"
	fi
}
