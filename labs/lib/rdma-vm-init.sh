#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: MIT
# /init of the rdma-vm initramfs: load the modules, mount the host's root
# read-only and the shared directories read-write over 9p, chroot into the
# host's root to run the run directory's start script, print its exit status
# on a marker line for the host, power off. The kernel command line sets
# PLVM_SHARES (shared paths, colon-separated, tags s0, s1, ...) and
# PLVM_RUN (the run directory, tag run).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev

# Print the guest's exit marker and power off; the host parses the line.
finish() {
	echo "PATHLAB-RDMA-VM-EXIT=$1 uptime=$(cut -d' ' -f1 /proc/uptime)"
	sync
	poweroff -f
}

while read -r m; do
	insmod "/mods/$m" || echo "rdma-vm init: insmod $m failed"
done </mods/list
R=/newroot
O=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$O,ro,cache=loose" root $R ||
	{ echo "rdma-vm init: cannot mount the host root over 9p"; finish 99; }
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/shm $R/dev/pts
ln -sf /proc/self/fd $R/dev/fd
mount -t tmpfs shm $R/dev/shm
mount -t devpts devpts $R/dev/pts
for d in /tmp /run /var/tmp; do
	mount -t tmpfs tmp "$R$d"
done
i=0
for d in $(echo "$PLVM_SHARES" | tr : ' '); do
	mkdir -p "$R$d" 2>/dev/null
	mount -t 9p -o "$O,cache=mmap" "s$i" "$R$d" ||
		{ echo "rdma-vm init: cannot mount $d"; finish 99; }
	i=$((i + 1))
done
mkdir -p "$R$PLVM_RUN" 2>/dev/null
mount -t 9p -o "$O,cache=mmap" run "$R$PLVM_RUN" ||
	{ echo "rdma-vm init: cannot mount the run directory"; finish 99; }
echo "rdma-vm init: up after $(cut -d' ' -f1 /proc/uptime) s"
HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	chroot $R /bin/bash "$PLVM_RUN/start" </dev/console
finish $?
