# shellcheck shell=bash
# memory.sh - hugepages (sizes, total and free, per NUMA node), hugetlbfs
# mounts, and the NUMA nodes with their CPUs.

HP_FREE_KB=0
HP_TOTAL_KB=0
HP_MOUNTED=false
NUMA_NODES=

# Hugepages of every size, machine-wide and per node.
memory_hugepages() {
	local d size kb nr fr node ntot nfree per
	for d in $(ls_names '/sys/kernel/mm/hugepages/hugepages-*'); do
		size=${d#hugepages-}
		kb=${size%kB}
		nr=$(rd "/sys/kernel/mm/hugepages/$d/nr_hugepages") || nr=0
		fr=$(rd "/sys/kernel/mm/hugepages/$d/free_hugepages") || fr=0
		fact "machine/memory/hugepages/$size/total" n "$nr" \
			"/sys/kernel/mm/hugepages/$d/nr_hugepages"
		fact "machine/memory/hugepages/$size/free" n "$fr" \
			"/sys/kernel/mm/hugepages/$d/free_hugepages"
		HP_TOTAL_KB=$((HP_TOTAL_KB + nr * kb))
		HP_FREE_KB=$((HP_FREE_KB + fr * kb))
		per=
		for node in $(ls_names '/sys/devices/system/node/node[0-9]*'); do
			ntot=$(rd "/sys/devices/system/node/$node/hugepages/$d/nr_hugepages") || continue
			nfree=$(rd "/sys/devices/system/node/$node/hugepages/$d/free_hugepages") || nfree=0
			per+="${per:+;}$node: $ntot total, $nfree free"
		done
		[ -n "$per" ] && fact "machine/memory/hugepages/$size/per_node" a "$per" \
			"/sys/devices/system/node/node*/hugepages/$d/{nr,free}_hugepages"
	done
	kb=$(rdall /proc/meminfo | awk '$1 == "Hugepagesize:" { print $2 $3 }')
	fact machine/memory/default_hugepage_size s "$kb" "/proc/meminfo (Hugepagesize)"
	d=$(rdall /proc/mounts | awk '$3 == "hugetlbfs" { printf "%s%s (%s)", s, $2, $4; s = ";" }')
	# shellcheck disable=SC2034 # read by the files that source this one
	[ -n "$d" ] && HP_MOUNTED=true
	fact machine/memory/hugetlbfs_mounts a "$d" "/proc/mounts (type hugetlbfs)"
}

# NUMA nodes and the CPUs of each.
memory_numa() {
	local node cpus
	NUMA_NODES=$(rd /sys/devices/system/node/online) || NUMA_NODES=
	fact machine/numa/nodes s "$NUMA_NODES" /sys/devices/system/node/online
	for node in $(ls_names '/sys/devices/system/node/node[0-9]*'); do
		cpus=$(rd "/sys/devices/system/node/$node/cpulist") || continue
		fact "machine/numa/$node/cpus" s "$cpus" \
			"/sys/devices/system/node/$node/cpulist"
	done
}

# Print the CPUs of NUMA node N ("" if unknown).
numa_cpus() {
	rd "/sys/devices/system/node/node$1/cpulist" 2>/dev/null || true
}

# All memory facts.
collect_memory() {
	memory_hugepages
	memory_numa
}
