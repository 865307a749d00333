#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# guide.sh GUIDE.md - an RDMA guide (labs/04-rdma.md) as a student follows
# it: every command block runs as written, in order, and every claim the
# guide marks (<!-- see: ... -->) is checked against what the run printed
# (labs/plab/guidetest.py says how a guide marks them). The guide's own
# blocks prepare the Soft-RoCE VM (labs/rdma-vm build) and boot it, one
# boot per block, each powering off by itself; this test starts nothing
# else, so it leaves nothing behind. Skips (77) only where the guide could
# not run: the verbs tools not built, or no VM possible here.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-$REPO/build}
BUILD=$(cd "$BUILD" && pwd)
guide=${1:?usage: guide.sh GUIDE.md}

if [ ! -x "$BUILD/rdma/pathlab-rx-verbs" ] || [ ! -x "$BUILD/rdma/pathlab-tx-verbs" ]; then
	echo "SKIP: the RDMA path is not built (libibverbs-dev, librdmacm-dev; meson -Drdma=enabled)"
	exit 77
fi
command -v jq >/dev/null || { echo "SKIP: jq is not installed (the guide's commands use it)"; exit 77; }
# The guide's commands run build/ inside the guest, which sees the
# repository (labs/rdma-vm shares it), not a build folder elsewhere.
if [ "$BUILD" != "$(cd "$REPO/build" 2>/dev/null && pwd)" ]; then
	echo "SKIP: the guide runs build/ in the repository inside the VM; this build is $BUILD"
	exit 77
fi
why=$("$REPO/labs/rdma-vm" check 2>&1)
case $? in
0) ;;
77) echo "SKIP: no Soft-RoCE VM here: $why"; exit 77 ;;
*) echo "FAIL: cannot prepare the VM: $why"; exit 1 ;;
esac

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export PATHLAB_BUILD=$BUILD
/usr/bin/python3 "$REPO/labs/plab" guide-test "$REPO/$guide" "$TMP"
