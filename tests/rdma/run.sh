#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rdma suite: run tests/rdma/guest.sh where RDMA devices exist. On a
# host with a verbs device (an IPv4 RoCE GID on an active port) it runs
# there, both ends on that device; otherwise labs/rdma-vm boots the
# Soft-RoCE VM once and runs it inside. Skips (77) only when neither is
# possible, and says why.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-$REPO/build}
BUILD=$(cd "$BUILD" && pwd)

if [ ! -x "$BUILD/rdma/pathlab-rx-verbs" ] || [ ! -x "$BUILD/rdma/pathlab-tx-verbs" ]; then
	echo "SKIP: the RDMA path is not built (libibverbs-dev, librdmacm-dev; meson -Drdma=enabled)"
	exit 77
fi
command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }

# Print "DEVICE ADDRESS" of the first host device with an active port 1
# and an IPv4-mapped GID, or nothing.
host_device() {
	local d g hex
	for d in /sys/class/infiniband/*; do
		[ -e "$d/ports/1/state" ] || continue
		grep -q ACTIVE "$d/ports/1/state" || continue
		for g in "$d"/ports/1/gids/*; do
			hex=$(sed -n 's/^0000:0000:0000:0000:0000:ffff:\(....\):\(....\)$/\1\2/p' "$g" 2>/dev/null)
			[ -n "$hex" ] || continue
			printf '%s %d.%d.%d.%d\n' "${d##*/}" "0x${hex:0:2}" "0x${hex:2:2}" \
				"0x${hex:4:2}" "0x${hex:6:2}"
			return 0
		done
	done
}

OUT=$(mktemp -d "$BUILD/rdma-test.XXXXXX")
read -r dev addr < <(host_device)
if [ -n "${dev:-}" ]; then
	echo "rdma suite: on this host's $dev ($addr), both ends on it"
	env PL_VM_TX_DEV="$dev" PL_VM_RX_DEV="$dev" PL_VM_TX_ADDR="$addr" \
		PL_VM_RX_ADDR="$addr" PL_VM_ENV=nic PL_VM_TOPO=host \
		bash "$REPO/tests/rdma/guest.sh" "$BUILD" "$OUT"
	rc=$?
else
	why=$("$REPO/labs/rdma-vm" check 2>&1)
	rc=$?
	if [ $rc = 77 ]; then
		echo "SKIP: no RDMA device on this host and no Soft-RoCE VM: $why"
		rm -rf "$OUT"
		exit 77
	elif [ $rc != 0 ]; then
		echo "rdma suite: cannot prepare the VM: $why"
		rm -rf "$OUT"
		exit 99
	fi
	echo "rdma suite: in the Soft-RoCE VM (one boot for the whole suite)"
	# Below meson's 900 s: the whole suite took 600 s and more under TCG
	# on a loaded 2-CPU machine once the kernel-share checks joined it.
	"$REPO/labs/rdma-vm" run --timeout 840 --share "$BUILD" -- \
		bash "$REPO/tests/rdma/guest.sh" "$BUILD" "$OUT"
	rc=$?
fi
if [ $rc = 0 ]; then
	rm -rf "$OUT"
else
	echo "rdma suite: exit $rc; the runs' JSON is kept in $OUT"
fi
exit $rc
