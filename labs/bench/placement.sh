#!/usr/bin/env bash
# placement.sh - where the kernel's receive work runs, measured: the socket
# path, AF_XDP and DPDK (af_xdp, af_packet) with veth's NAPI thread on the
# receiver's core (rx-core), on the other core (other-core) and, where the
# path can, driven by the receiver's own calls (busy-poll), as rows of one
# compare: `pathlab compare --napi rx-core,other-core,busy-poll`, paths
# interleaved within each round, medians with min-max, every run's wait
# for a CPU (run_delay) and "contended" where it passed 10 % of the run.
#
#   labs/bench/placement.sh [--trials N] [--size BYTES] [--raw DIR]
set -eu
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
trials=3 size=64 out=()
while [ $# -gt 0 ]; do
	case $1 in
	--trials) trials=${2:?--trials needs a value}; shift 2 ;;
	--size) size=${2:?--size needs a value}; shift 2 ;;
	--raw) out=(--out "${2:?--raw needs a directory}"); shift 2 ;;
	-h | --help) sed -n '2,10p' "$0"; exit 0 ;;
	*) echo "placement.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
exec "$ROOT/labs/pathlab" compare --paths socket,afxdp,dpdk \
	--napi rx-core,other-core,busy-poll --workloads throughput,latency \
	--trials "$trials" --sizes "$size" "${out[@]}"
