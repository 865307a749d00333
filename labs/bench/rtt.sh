#!/usr/bin/env bash
# rtt.sh - round trips, ours against sockperf's ping-pong, as rows of one
# compare: `pathlab compare --workloads rtt --references`. Our receivers
# reflect (--reflect) and pathlab-gen --pingpong times whole round trips;
# sockperf pp --full-rtt against sockperf sr is the socket path's
# reference. Each round runs every path in turn; the table gives medians
# with min-max of p50, p99 and p99.9, the ratio ours/sockperf and whether
# the ranges separate.
#
#   labs/bench/rtt.sh [--path LIST] [--trials N] [--size BYTES]
# (--seconds S and --vdev-kind K of earlier versions are taken and
# ignored: runs are counts, and both DPDK vdevs run.)
set -eu
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
paths=socket,afxdp,dpdk trials=3 size=64
while [ $# -gt 0 ]; do
	case $1 in
	--path) paths=${2:?--path needs a value}; shift 2 ;;
	--trials) trials=${2:?--trials needs a value}; shift 2 ;;
	--size) size=${2:?--size needs a value}; shift 2 ;;
	--seconds | --vdev-kind) echo "rtt.sh: $1 is ignored" >&2; shift 2 ;;
	-h | --help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "rtt.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
exec "$ROOT/labs/pathlab" compare --paths "$paths" --references \
	--workloads rtt --trials "rtt=$trials" --sizes "$size"
