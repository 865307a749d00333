# shellcheck shell=bash
# cpu.sh - the CPU facts that decide latency: model, cores and hyper-thread
# siblings, isolated cores, frequency governor, C-states, TSC, PMU.

CPU_FLAGS=
CPU_VENDOR=
CPU_ONLINE=
ISOLATED=
HAS_PMU=false
SYS_CPU=/sys/devices/system/cpu

# Print field NAME of the first processor in /proc/cpuinfo.
cpuinfo_field() {
	rdall /proc/cpuinfo | awk -F': *' -v k="$1" \
		'{ sub(/[ \t]+$/, "", $1) } $1 == k { print $2; exit }'
}

# Print the numeric CPUs of a kernel parameter value, without flags such
# as "domain," or "managed_irq," (isolcpus=managed_irq,2-7 gives 2-7).
cpus_of_param() {
	local part out=
	local IFS=,
	for part in $1; do
		[[ $part =~ ^[0-9] ]] && out+="${out:+,}$part"
	done
	printf '%s\n' "$out"
}

# Model, vendor and flags.
cpu_identity() {
	local model
	model=$(cpuinfo_field 'model name')
	[ -n "$model" ] || model=$(cpuinfo_field Hardware)
	CPU_VENDOR=$(cpuinfo_field vendor_id)
	CPU_FLAGS=" $(cpuinfo_field flags) "
	fact machine/cpu/model s "${model:-unknown}" "/proc/cpuinfo (model name)"
	fact machine/cpu/vendor s "$CPU_VENDOR" "/proc/cpuinfo (vendor_id)"
}

# Logical CPUs, sockets, cores and the hyper-thread sibling groups.
cpu_topology() {
	local c pkg sib smt groups=() pkgs=() multi=()
	CPU_ONLINE=$(rd $SYS_CPU/online) || CPU_ONLINE=
	fact machine/cpu/logical_cpus n "$(cpulist_count "$CPU_ONLINE")" \
		"$SYS_CPU/online ($CPU_ONLINE)"
	for c in $(cpulist_expand "$CPU_ONLINE"); do
		pkg=$(rd "$SYS_CPU/cpu$c/topology/physical_package_id") || continue
		sib=$(rd "$SYS_CPU/cpu$c/topology/thread_siblings_list") || continue
		pkgs+=("$pkg")
		groups+=("$sib")
	done
	if [ ${#groups[@]} -gt 0 ]; then
		fact machine/cpu/sockets n \
			"$(printf '%s\n' "${pkgs[@]}" | sort -u | grep -c .)" \
			"$SYS_CPU/cpu*/topology/physical_package_id"
		fact machine/cpu/cores n \
			"$(printf '%s\n' "${groups[@]}" | sort -u | grep -c .)" \
			"$SYS_CPU/cpu*/topology/thread_siblings_list"
		mapfile -t multi < <(printf '%s\n' "${groups[@]}" |
			grep '[,-]' | sort -u -V)
	fi
	fact machine/cpu/siblings a "$(IFS=';'; echo "${multi[*]}")" \
		"$SYS_CPU/cpu*/topology/thread_siblings_list"
	smt=$(rd $SYS_CPU/smt/control) || smt=
	if [ -z "$smt" ] || [ "$smt" = notsupported ]; then
		[ ${#multi[@]} -gt 0 ] && smt=on || smt=off
		fact machine/cpu/smt s "$smt" \
			"$SYS_CPU/cpu*/topology/thread_siblings_list"
	else
		fact machine/cpu/smt s "$smt" $SYS_CPU/smt/control
	fi
}

# isolcpus, nohz_full and rcu_nocbs, asked for and in effect; a warning
# for an isolated CPU whose hyper-thread sibling is not isolated.
cpu_isolation() {
	local k v eff c s sib pairs=()
	for k in isolcpus nohz_full rcu_nocbs; do
		v=$(cmdline_get $k) || v=
		fact "machine/cpu/$k" s "$v" "/proc/cmdline ($k=)"
	done
	ISOLATED=$(rd $SYS_CPU/isolated) || ISOLATED=
	if [ -z "$ISOLATED" ]; then
		v=$(cmdline_get isolcpus) && ISOLATED=$(cpus_of_param "$v")
	fi
	fact machine/cpu/isolated s "$ISOLATED" $SYS_CPU/isolated
	eff=$(rd $SYS_CPU/nohz_full) || eff=
	has $SYS_CPU/nohz_full &&
		fact machine/cpu/nohz_full_active s "$eff" $SYS_CPU/nohz_full
	for c in $(cpulist_expand "$ISOLATED"); do
		sib=$(rd "$SYS_CPU/cpu$c/topology/thread_siblings_list") || continue
		for s in $(cpulist_expand "$sib"); do
			[ "$s" = "$c" ] && continue
			cpulist_expand "$ISOLATED" | grep -qx "$s" || pairs+=("$c/$s")
		done
	done
	[ ${#pairs[@]} -gt 0 ] || return 0
	warn cpu-sibling "$(printf '%s ' \
		"isolated CPUs share a core with hyper-threads that are not" \
		"isolated (isolated/sibling: ${pairs[*]}): work on the sibling" \
		"steals cycles from the poller; isolate both siblings, or turn" \
		"SMT off")" "$SYS_CPU/cpu*/topology/thread_siblings_list, $SYS_CPU/isolated"
}

# Frequency governor and driver, over all CPUs that have cpufreq.
cpu_frequency() {
	local govs drv
	govs=$(for f in "$SYSROOT$SYS_CPU"/cpu[0-9]*/cpufreq/scaling_governor; do
		[ -r "$f" ] && cat "$f"
	done | sort | uniq -c | awk '{ printf "%s%s (%d CPUs)", s, $2, $1; s = ";" }')
	drv=$(rd $SYS_CPU/cpu0/cpufreq/scaling_driver) || drv=
	if [ -z "$govs" ]; then
		fact machine/cpu/governor s "" \
			"$SYS_CPU/cpu*/cpufreq (absent: no frequency scaling visible)"
		return
	fi
	fact machine/cpu/governor a "$govs" \
		"$SYS_CPU/cpu*/cpufreq/scaling_governor"
	fact machine/cpu/cpufreq_driver s "$drv" \
		$SYS_CPU/cpu0/cpufreq/scaling_driver
	case $govs in
	"performance ("*) ;;
	*) warn cpu-governor "$(printf '%s ' \
		"CPU frequency governor is not 'performance' ($govs): clock" \
		"ramps add latency variance; for measurements: cpupower" \
		"frequency-set -g performance")" "$SYS_CPU/cpu*/cpufreq/scaling_governor" ;;
	esac
}

# The idle driver and the C-states of CPU 0 with their exit latencies.
cpu_idle() {
	local drv st name lat dis out=() deep=
	drv=$(rd $SYS_CPU/cpuidle/current_driver) || drv=
	fact machine/cpu/idle_driver s "$drv" $SYS_CPU/cpuidle/current_driver
	for st in $(ls_names "$SYS_CPU/cpu0/cpuidle/state*"); do
		name=$(rd "$SYS_CPU/cpu0/cpuidle/$st/name") || continue
		lat=$(rd "$SYS_CPU/cpu0/cpuidle/$st/latency") || lat='?'
		dis=$(rd "$SYS_CPU/cpu0/cpuidle/$st/disable") || dis=0
		if [ "$dis" = 1 ]; then
			out+=("$name ${lat}us disabled")
		else
			out+=("$name ${lat}us")
			[[ $lat =~ ^[0-9]+$ ]] && [ "$lat" -gt 20 ] && deep="$name (${lat} us)"
		fi
	done
	fact machine/cpu/cstates a "$(IFS=';'; echo "${out[*]}")" \
		"$SYS_CPU/cpu0/cpuidle/state*/{name,latency,disable}"
	[ -n "$deep" ] || return 0
	warn cpu-cstates "$(printf '%s ' \
		"deep C-state $deep is enabled: an idle core wakes slowly and" \
		"the first packet after a pause pays for it; for latency runs" \
		"keep pollers busy or limit C-states (intel_idle.max_cstate=1" \
		"or cpupower idle-set -D 20)")" "$SYS_CPU/cpu0/cpuidle/state*/latency"
}

# Invariant TSC, the clocksource, and the CPU's performance counters.
cpu_clock_pmu() {
	local inv=false cs d
	case $CPU_FLAGS in
	*" constant_tsc "*" nonstop_tsc "*) inv=true ;;
	esac
	fact machine/cpu/invariant_tsc b "$inv" \
		"/proc/cpuinfo flags (constant_tsc, nonstop_tsc)"
	cs=$(rd /sys/devices/system/clocksource/clocksource0/current_clocksource) || cs=
	fact machine/cpu/clocksource s "$cs" \
		/sys/devices/system/clocksource/clocksource0/current_clocksource
	for d in cpu cpu_core cpu_atom armv8_pmuv3 armv8_pmuv3_0; do
		if has "/sys/bus/event_source/devices/$d"; then
			# shellcheck disable=SC2034 # read by the files that source this one
			HAS_PMU=true
			fact machine/cpu/pmu b true "/sys/bus/event_source/devices/$d"
			return
		fi
	done
	fact machine/cpu/pmu b false \
		"/sys/bus/event_source/devices (no cpu PMU: perf stat -e cycles will fail)"
}

# All CPU facts.
collect_cpu() {
	cpu_identity
	cpu_topology
	cpu_isolation
	cpu_frequency
	cpu_idle
	cpu_clock_pmu
}
