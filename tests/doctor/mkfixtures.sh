#!/usr/bin/env bash
# mkfixtures.sh - writes the fake machines the doctor's tests read with
# --sysroot: fixtures/<shape>/{proc,sys,dev,usr,boot,cmd}. The trees are
# checked in; this script is their source. Edit a shape here, run
# `tests/doctor/mkfixtures.sh`, and commit the result (doctor.sh fails
# if the two differ). With DIR, writes the shapes under DIR instead.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/fixtures}
# shellcheck source=fixture_lib.sh
. "$HERE/fixture_lib.sh"

# Start a new shape: an empty tree at $FX.
shape() {
	FX=$OUT/$1
	rm -rf "$FX"
	mkdir -p "$FX"
}

# A kernel config with the options the doctor asks about.
kconfig() {
	local rel=$1
	shift
	file proc/sys/kernel/osrelease "$rel"
	file "boot/config-$rel" "# fixture: the options the doctor reads" "$@"
}

INTEL_FLAGS="fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 x2apic movbe popcnt aes xsave avx f16c rdrand avx2"

# A laptop: one socket, hyper-threads, Wi-Fi carries the default route,
# an idle e1000e port, a GeForce GPU with the proprietary driver and no
# RDMA NIC, powersave governor, deep C-states, no hugepages.
laptop() {
	shape laptop
	common 0
	cpuinfo 8 GenuineIntel "11th Gen Intel(R) Core(TM) i7-1185G7 @ 3.00GHz" "$INTEL_FLAGS"
	cpus 1 4 2
	governor powersave intel_pstate 8
	cstates intel_idle POLL:0 C1:1 C1E:2 C6:170 C8:200 C10:680
	file sys/bus/event_source/devices/cpu/type 4
	file sys/devices/system/cpu/smt/control on
	file sys/devices/system/cpu/smt/active 1
	hugepages 2048 0 0 0:0:0
	file proc/meminfo "MemTotal:       32602456 kB" "Hugepagesize:       2048 kB"
	kconfig 6.1.0-18-amd64 CONFIG_MODULES=y CONFIG_BPF_SYSCALL=y \
		CONFIG_XDP_SOCKETS=y CONFIG_VETH=m CONFIG_HUGETLBFS=y \
		CONFIG_VFIO_PCI=m CONFIG_INFINIBAND=m CONFIG_RDMA_RXE=m \
		CONFIG_DMA_SHARED_BUFFER=y
	file proc/cmdline "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=0b7e1c2a ro quiet splash"
	file sys/class/iommu/dmar0/intel-iommu/version 1:0
	file sys/kernel/iommu_groups/0/type DMA-FQ
	file sys/kernel/iommu_groups/1/type DMA-FQ
	file sys/class/dmi/id/sys_vendor "LENOVO"
	file sys/class/dmi/id/product_name "20XW0055GE"
	pci pci0000:00/0000:00:14.3 0x028000 0x8086 0xa0f0 -1 iwlwifi
	netdev wlp0s20f3 pci0000:00/0000:00:14.3 up
	file sys/devices/pci0000:00/0000:00:14.3/net/wlp0s20f3/wireless/uevent ""
	pci pci0000:00/0000:00:1f.6 0x020000 0x8086 0x15fc -1 e1000e
	netdev enp0s31f6 pci0000:00/0000:00:1f.6 down ptp
	pci pci0000:00/0000:00:02.0 0x030000 0x8086 0x9a49 -1 i915
	pci pci0000:00/0000:00:01.0/0000:01:00.0 0x030000 0x10de 0x25a2 -1 nvidia
	vnetdev docker0 1 bridge down
	route wlp0s20f3
	file proc/driver/nvidia/version \
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb 17 22:55:48 UTC 2024" \
		"GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)"
	file usr/local/cuda/bin/nvcc fixture
	file usr/local/cuda/version.json '{"cuda": {"name": "CUDA SDK", "version": "12.2.2"}}'
	usr libbpf-dev libxdp-dev clang bpftool dpdk-dev
	file cmd/systemd-detect-virt.txt none
	file cmd/lspci.txt \
		"0000:00:02.0 VGA compatible controller: Intel Corporation TigerLake-LP GT2 [Iris Xe Graphics] (rev 01)" \
		"0000:00:14.3 Network controller: Intel Corporation Wi-Fi 6 AX201 (rev 20)" \
		"0000:00:1f.6 Ethernet controller: Intel Corporation Ethernet Connection (13) I219-LM (rev 20)" \
		"0000:01:00.0 3D controller: NVIDIA Corporation GA107M [GeForce RTX 3050 Ti Mobile] (rev a1)"
}

# A VM like the lab's: KVM, 2 vCPUs, no PMU, no cpufreq, haltpoll idle,
# virtio NICs (eth0 management, eth1 spare), a veth pair, no IOMMU, no
# hugepages, no GPU; kernel 6.1 with loadable modules.
vm() {
	shape vm
	common 4211
	cpuinfo 2 AuthenticAMD "AMD EPYC 7B13" \
		"fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc cpuid tsc_known_freq pni ssse3 sse4_1 sse4_2 x2apic popcnt aes xsave avx hypervisor"
	cpus 1 2 1
	cstates haltpoll POLL:0 haltpoll:1
	hugepages 2048 0 0 0:0:0
	hugepages 1048576 0 0 0:0:0
	file proc/meminfo "MemTotal:        4025040 kB" "Hugepagesize:       2048 kB"
	kconfig 6.1.0-25-cloud-amd64 CONFIG_MODULES=y CONFIG_BPF_SYSCALL=y \
		CONFIG_XDP_SOCKETS=y CONFIG_VETH=m CONFIG_HUGETLBFS=y \
		CONFIG_VFIO_PCI=m CONFIG_INFINIBAND=m CONFIG_RDMA_RXE=m
	file proc/cmdline "BOOT_IMAGE=/boot/vmlinuz-6.1.0-25-cloud-amd64 root=PARTUUID=5b2a ro console=ttyS0"
	file sys/class/dmi/id/sys_vendor QEMU
	file sys/class/dmi/id/product_name "Standard PC (Q35 + ICH9, 2009)"
	pci pci0000:00/0000:00:03.0 0x020000 0x1af4 0x1041 -1 virtio-pci
	virtio pci0000:00/0000:00:03.0 1
	netdev eth0 pci0000:00/0000:00:03.0/virtio1 up
	pci pci0000:00/0000:00:04.0 0x020000 0x1af4 0x1041 -1 virtio-pci
	virtio pci0000:00/0000:00:04.0 2
	netdev eth1 pci0000:00/0000:00:04.0/virtio2 up
	vnetdev veth0 1 "" up
	file cmd/ethtool-i-veth0.txt "driver: veth" "version: 1.0" "bus-info: "
	file cmd/ethtool-T-eth0.txt "Time stamping parameters for eth0:" "Capabilities:" \
		"	software-transmit" "	software-receive" "	software-system-clock" \
		"PTP Hardware Clock: none"
	route eth0
	usr libbpf-dev libxdp-dev clang bpftool dpdk-dev libibverbs-dev \
		librdmacm-dev ibverbs-providers
	file cmd/systemd-detect-virt.txt kvm
}

# A two-socket server: Xeon, NUMA nodes 0 and 1, igb management port on
# node 0 (a port of the bridge br0, which carries the default route), a ConnectX-6 Dx (mlx5, RoCE v2) on node 1, an H100 on node 0
# (nvidia-smi topo -m says SYS), IOMMU in passthrough, vfio-pci loaded,
# 2 MB hugepages on both nodes, nvidia-peermem loaded.
server() {
	local g
	shape server-2socket
	common 0
	cpuinfo 16 GenuineIntel "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz" "$INTEL_FLAGS"
	cpus 2 4 2
	governor performance intel_pstate 16
	cstates intel_idle POLL:0 C1:2 C1E:10 C6:170
	file sys/bus/event_source/devices/cpu/type 4
	file sys/devices/system/cpu/smt/control on
	hugepages 2048 4096 4096 0:2048:2048 1:2048:2048
	hugepages 1048576 0 0 0:0:0 1:0:0
	file proc/meminfo "MemTotal:       527939852 kB" "Hugepagesize:       2048 kB"
	file proc/mounts "sysfs /sys sysfs rw 0 0" "proc /proc proc rw 0 0" \
		"hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0"
	kconfig 6.8.0-45-generic CONFIG_MODULES=y CONFIG_BPF_SYSCALL=y \
		CONFIG_XDP_SOCKETS=y CONFIG_VETH=m CONFIG_HUGETLBFS=y \
		CONFIG_VFIO_PCI=m CONFIG_INFINIBAND=m CONFIG_RDMA_RXE=m \
		CONFIG_MLX5_CORE=m CONFIG_DMA_SHARED_BUFFER=y
	file proc/cmdline "BOOT_IMAGE=/vmlinuz-6.8.0-45-generic root=/dev/mapper/vg-root ro intel_iommu=on iommu=pt"
	file sys/class/iommu/dmar0/intel-iommu/version 1:0
	file sys/class/iommu/dmar1/intel-iommu/version 1:0
	for g in 0 1 2 3; do
		file sys/kernel/iommu_groups/$g/type identity
	done
	file sys/module/vfio_pci/initstate live
	file sys/module/nvidia_peermem/initstate live
	file dev/vfio/vfio ""
	file sys/class/dmi/id/sys_vendor "Dell Inc."
	file sys/class/dmi/id/product_name "PowerEdge R750"
	pci pci0000:00/0000:00:1c.0/0000:04:00.0 0x020000 0x8086 0x1521 0 igb
	netdev eno1 pci0000:00/0000:00:1c.0/0000:04:00.0 up
	pci pci0000:00/0000:00:1c.0/0000:04:00.1 0x020000 0x8086 0x1521 0 igb
	netdev eno2 pci0000:00/0000:00:1c.0/0000:04:00.1 down
	pci pci0000:85/0000:85:02.0/0000:86:00.0 0x020000 0x15b3 0x101d 1 mlx5_core
	netdev ens6f0np0 pci0000:85/0000:85:02.0/0000:86:00.0 up ptp
	pci pci0000:85/0000:85:02.0/0000:86:00.1 0x020000 0x15b3 0x101d 1 mlx5_core
	netdev ens6f1np1 pci0000:85/0000:85:02.0/0000:86:00.1 up ptp
	ibdev mlx5_0 pci0000:85/0000:85:02.0/0000:86:00.0 ens6f0np0 Ethernet "4: ACTIVE" \
		"0 fe80:0000:0000:0000:ba3f:d2ff:fe1c:4a10 IB/RoCE v1" \
		"1 fe80:0000:0000:0000:ba3f:d2ff:fe1c:4a10 RoCE v2" \
		"2 0000:0000:0000:0000:0000:ffff:0a00:0001 IB/RoCE v1" \
		"3 0000:0000:0000:0000:0000:ffff:0a00:0001 RoCE v2"
	ibdev mlx5_1 pci0000:85/0000:85:02.0/0000:86:00.1 ens6f1np1 Ethernet "1: DOWN" \
		"0 fe80:0000:0000:0000:ba3f:d2ff:fe1c:4a11 IB/RoCE v1" \
		"1 fe80:0000:0000:0000:ba3f:d2ff:fe1c:4a11 RoCE v2"
	for g in 0 1 2 3 4 5 6 7; do
		file sys/devices/pci0000:85/0000:85:02.0/0000:86:00.0/net/ens6f0np0/ecn/roce_np/enable/$g \
			"$([ $g = 3 ] && echo 1 || echo 0)"
		file sys/devices/pci0000:85/0000:85:02.0/0000:86:00.0/net/ens6f0np0/ecn/roce_rp/enable/$g \
			"$([ $g = 3 ] && echo 1 || echo 0)"
	done
	file dev/infiniband/uverbs0 ""
	file dev/infiniband/uverbs1 ""
	pci pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0 0x030200 0x10de 0x2330 0 nvidia
	vnetdev br0 1 bridge up
	link sys/devices/virtual/net/br0/lower_eno1 \
		sys/devices/pci0000:00/0000:00:1c.0/0000:04:00.0/net/eno1
	route br0 01000A0A
	file proc/driver/nvidia/version \
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024" \
		"GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)"
	file usr/local/cuda/bin/nvcc fixture
	file usr/local/cuda/version.json '{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}'
	usr libbpf-dev libxdp-dev clang bpftool dpdk-dev libibverbs-dev \
		librdmacm-dev ibverbs-providers ibverbs-utils perftest
	file cmd/systemd-detect-virt.txt none
	file cmd/ibv_devinfo.txt "2 HCAs found:" "	mlx5_0" "	mlx5_1"
	file cmd/nvidia-smi-query-gpu.txt "0, 00000000:17:00.0"
	printf '\tGPU0\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \tSYS\tSYS\t0-3,8-11\t0\t\tN/A\nNIC0\tSYS\t X \tPIX\t\t\t\t\nNIC1\tSYS\tPIX\t X \t\t\t\t\n\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n  PIX  = Connection traversing at most a single PCIe bridge\n  NV#  = Connection traversing a bonded set of # NVLinks\n\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n\n' \
		>"$FX/cmd/nvidia-smi-topo-m.txt"
	file cmd/dcb-pfc-ens6f0np0.txt "pfc-cap 8 macsec-bw 0 del 0 " \
		"prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"
	file cmd/lspci.txt \
		"0000:04:00.0 Ethernet controller: Intel Corporation I350 Gigabit Network Connection (rev 01)" \
		"0000:04:00.1 Ethernet controller: Intel Corporation I350 Gigabit Network Connection (rev 01)" \
		"0000:17:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)" \
		"0000:86:00.0 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]" \
		"0000:86:00.1 Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]"
}

# A box tuned for DPDK: isolcpus/nohz_full/rcu_nocbs on 2-7 (their
# hyper-thread siblings 10-15 are not isolated), 1 GB hugepages, IOMMU
# passthrough, an E810 with one port on ice and one bound to vfio-pci.
isolated() {
	shape isolated-hugepages
	common 0
	cpuinfo 16 GenuineIntel "Intel(R) Xeon(R) E-2388G CPU @ 3.20GHz" "$INTEL_FLAGS"
	cpus 1 8 2
	file sys/devices/system/cpu/isolated 2-7
	file sys/devices/system/cpu/nohz_full 2-7
	governor performance acpi-cpufreq 16
	cstates acpi_idle POLL:0 C1:1
	file sys/bus/event_source/devices/cpu/type 4
	hugepages 1048576 8 6 0:8:6
	hugepages 2048 0 0 0:0:0
	file proc/meminfo "MemTotal:       65536000 kB" "Hugepagesize:    1048576 kB"
	file proc/mounts "sysfs /sys sysfs rw 0 0" "proc /proc proc rw 0 0" \
		"hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=1024M 0 0"
	kconfig 6.1.0-25-amd64 CONFIG_MODULES=y CONFIG_BPF_SYSCALL=y \
		CONFIG_XDP_SOCKETS=y CONFIG_VETH=m CONFIG_HUGETLBFS=y \
		CONFIG_VFIO_PCI=m CONFIG_INFINIBAND=m CONFIG_RDMA_RXE=m \
		CONFIG_NO_HZ_FULL=y CONFIG_RCU_NOCB_CPU=y
	file proc/cmdline "BOOT_IMAGE=/boot/vmlinuz-6.1.0-25-amd64 root=UUID=4c1d ro default_hugepagesz=1G hugepagesz=1G hugepages=8 isolcpus=managed_irq,domain,2-7 nohz_full=2-7 rcu_nocbs=2-7 intel_iommu=on iommu=pt intel_idle.max_cstate=0 processor.max_cstate=1"
	file sys/class/iommu/dmar0/intel-iommu/version 1:0
	file sys/kernel/iommu_groups/0/type identity
	file sys/kernel/iommu_groups/12/type identity
	file sys/module/vfio_pci/initstate live
	file dev/vfio/vfio ""
	file dev/vfio/12 ""
	file sys/class/dmi/id/sys_vendor Supermicro
	file sys/class/dmi/id/product_name "SYS-510T-MR"
	pci pci0000:00/0000:00:1c.0/0000:02:00.0 0x020000 0x8086 0x125c 0 igc
	netdev eno1 pci0000:00/0000:00:1c.0/0000:02:00.0 up
	pci pci0000:00/0000:00:01.0/0000:01:00.0 0x020000 0x8086 0x1593 0 ice
	netdev ens1f0 pci0000:00/0000:00:01.0/0000:01:00.0 up ptp
	pci pci0000:00/0000:00:01.0/0000:01:00.1 0x020000 0x8086 0x1593 0 vfio-pci
	route eno1
	usr libbpf-dev libxdp-dev clang bpftool dpdk-dev libibverbs-dev \
		librdmacm-dev ibverbs-providers
	file cmd/systemd-detect-virt.txt none
}

laptop
vm
server
isolated
