#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdma.sh - the verbs path against perftest on the same Soft-RoCE devices,
# in one boot of the rdma VM, as rows of one compare: `pathlab compare
# --paths verbs --references`. Each round runs our receiver and then
# ib_send_bw (message rate, UD and RC SEND) and ib_send_lat (round trips;
# it prints half of one, which compare doubles) on the same devices and
# vCPUs; the table gives medians with min-max, the ratio ours/perftest and
# whether the ranges separate. Soft-RoCE in a VM under qemu TCG: these
# numbers say nothing about an RDMA NIC.
#
#   labs/bench/rdma.sh [--trials N] [--count N] [--size BYTES]
set -eu
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
trials=3 size=64 count=()
while [ $# -gt 0 ]; do
	case $1 in
	--trials) trials=${2:?--trials needs a value}; shift 2 ;;
	--count) count=(--count "${2:?--count needs a value}"); shift 2 ;;
	--size) size=${2:?--size needs a value}; shift 2 ;;
	-h | --help) sed -n '3,14p' "$0"; exit 0 ;;
	*) echo "rdma.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
exec "$ROOT/labs/pathlab" compare --paths verbs --verbs-on vm --references \
	--workloads throughput,rtt --trials "throughput=$trials,rtt=$trials" \
	--sizes "$size" "${count[@]}"
