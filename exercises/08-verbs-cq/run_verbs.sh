#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_verbs.sh GRADER --worker WORKER [grade options]: run exercise 8's
# grader where verbs work. On a host with an RDMA device (an active port 1
# with an IPv4 RoCE GID) it runs here, both ends on that device; otherwise
# inside the Soft-RoCE VM (labs/rdma-vm, one boot), where the worker, as
# nobody, may open the guest's verbs devices (as rdma-core's udev rules
# allow on a host). Without either, every case is reported skipped (exit
# 77) with the reason.
#
# run_verbs.sh GRADER --each DIR WORKER...: the grader on each worker, all
# in one boot (the meta-test's red team): DIR/WORKER.stdout, .log, .rc.
set -u
SELF=$(readlink -f "$0")
IN_VM=0
if [ "${1:-}" = --in-vm ]; then
	IN_VM=1
	shift
fi
TEST=$(readlink -f "$1")
shift
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-$(cd "$(dirname "$TEST")/.." && pwd)}
EACH=""
if [ "${1:-}" = --each ]; then
	EACH=$(readlink -f "$2")
	shift 2
fi

# --list needs no device.
case " $* " in *" --list "*) exec "$TEST" "$@" ;; esac

# Grade (every worker, with --each): here, where the devices are.
graders() {
	local w
	if [ -z "$EACH" ]; then
		"$TEST" "$@"
		return
	fi
	for w in "$@"; do
		"$TEST" --worker "$w" >"$EACH/${w##*/}.stdout" \
			2>"$EACH/${w##*/}.log"
		echo $? >"$EACH/${w##*/}.rc"
	done
}

if [ "$IN_VM" = 1 ]; then
	graders "$@"
	exit
fi

# Report every case skipped for reason $1, exit 77 (--each: in DIR/skipped).
skip_all() {
	echo "SKIP: $1" >&2
	"$TEST" --list | while read -r _ points name _; do
		echo "GRADE SKIP $points $name $1"
	done >"${EACH:-/dev/stdout}${EACH:+/skipped}"
	exit 77
}

# Print "DEVICE ADDRESS" of the first device with an active port 1 and an
# IPv4-mapped GID, or nothing.
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

read -r dev addr < <(host_device)
if [ -n "${dev:-}" ]; then
	export PL_VM_TX_DEV=$dev PL_VM_RX_DEV=$dev PL_VM_TX_ADDR=$addr \
		PL_VM_RX_ADDR=$addr
	graders "$@"
	exit
fi
why=$("$REPO/labs/rdma-vm" check 2>&1)
case $? in
0) ;;
77) skip_all "no RDMA device here and no Soft-RoCE VM: ${why//$'\n'/ }" ;;
*) skip_all "the Soft-RoCE VM cannot be prepared: ${why//$'\n'/ }" ;;
esac
# The guest's console may end lines with CR; the grader wants plain lines.
out=$(mktemp)
"$REPO/labs/rdma-vm" run --timeout 600 --share "$BUILD" -- \
	sh -c 'chmod 0666 /dev/infiniband/uverbs* && exec "$@"' sh \
	env GR_TIMEOUT="${GR_TIMEOUT:-60}" ${GR_SEED:+GR_SEED=$GR_SEED} \
	bash "$SELF" --in-vm "$TEST" ${EACH:+--each "$EACH"} "$@" |
	tr -d '\r' | tee "$out"
rc=${PIPESTATUS[0]}
# No result at all: the VM did not run the test (it did not boot, timed
# out, could not write its cache). That grades nothing: the cases are
# skipped, not failed.
if [ -n "$EACH" ]; then
	rm -f "$out"
	ls "$EACH"/*.rc >/dev/null 2>&1 ||
		skip_all "the Soft-RoCE VM did not run the graders (labs/rdma-vm run exited $rc)"
	exit 0
fi
if ! grep -q '^GRADE ' "$out"; then
	rm -f "$out"
	skip_all "the Soft-RoCE VM did not run the test (labs/rdma-vm run exited $rc)"
fi
rm -f "$out"
exit "$rc"
