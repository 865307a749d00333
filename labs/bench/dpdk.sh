#!/usr/bin/env bash
# dpdk.sh - pathlab-rx-dpdk against dpdk-testpmd rxonly on the same virtual
# device (net_af_xdp and net_af_packet), fed by the same generator, as rows
# of one compare: `pathlab compare --paths dpdk,afxdp --references`. Each
# round runs ours, then testpmd, on each vdev; the table gives medians with
# min-max, the ratio ours/testpmd and whether the ranges separate (testpmd
# on net_af_xdp is compared with the AF_XDP path too).
#
#   labs/bench/dpdk.sh [--trials N] [--count N]
# (--vdev of earlier versions is taken and ignored: both vdevs run.)
set -eu
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
trials=3 count=()
while [ $# -gt 0 ]; do
	case $1 in
	--trials) trials=${2:?--trials needs a value}; shift 2 ;;
	--count) count=(--count "${2:?--count needs a value}"); shift 2 ;;
	--vdev) echo "dpdk.sh: --vdev is ignored: both vdevs run" >&2; shift 2 ;;
	-h | --help) sed -n '2,11p' "$0"; exit 0 ;;
	*) echo "dpdk.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
exec "$ROOT/labs/pathlab" compare --paths dpdk,afxdp --references \
	--workloads throughput --trials "$trials" --sizes 64 "${count[@]}"
