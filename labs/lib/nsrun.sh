#!/usr/bin/env bash
# nsrun.sh - run a command with a /sys that shows the current network
# namespace, keeping the file systems mounted below /sys (bpffs above all).
#
# Usage (what ns_exec in topo.sh does):
#   nsenter --net=/run/netns/NS unshare --mount --propagation private -- \
#	bash nsrun.sh CMD [ARGS...]
#
# Why: sysfs shows the network devices of the namespace that mounted it, so
# after `nsenter --net` alone /sys/class/net still lists the root namespace's
# devices and /sys/class/net/pl-rx0/statistics does not exist. `ip netns
# exec` fixes that by mounting a fresh sysfs, but the fresh mount hides every
# mount below /sys, /sys/fs/bpf included, and with it the pins that libxdp
# and bpftool share. Here, in a private mount namespace of our own, we open
# each mount we want to keep, mount a fresh sysfs over /sys and bind the
# kept mounts back through their open descriptors. Nothing leaks into the
# root mount namespace: the mount namespace dies with the command.
set -eu

# Mounts below /sys that the lab's tools may need inside a namespace.
keep=(/sys/fs/bpf /sys/fs/cgroup /sys/kernel/tracing /sys/kernel/debug)

# Open each kept mount that exists; record "FD PATH" pairs in kept_fds.
open_kept() {
	local d fd
	kept_fds=()
	for d in "${keep[@]}"; do
		mountpoint -q "$d" 2>/dev/null || continue
		exec {fd}<"$d"
		kept_fds+=("$fd" "$d")
	done
}

# Mount a fresh sysfs on /sys and bind the kept mounts back onto it.
remount_sys() {
	local i fd d
	mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
	for ((i = 0; i < ${#kept_fds[@]}; i += 2)); do
		fd=${kept_fds[i]}
		d=${kept_fds[i + 1]}
		# -c: do not canonicalize, or mount would resolve the
		# descriptor's path name again, now inside the new sysfs.
		mount -c --rbind "/proc/self/fd/$fd" "$d"
		exec {fd}<&-
	done
}

if [ $# -eq 0 ]; then
	echo "nsrun.sh: no command" >&2
	exit 2
fi
open_kept
remount_sys
exec "$@"
