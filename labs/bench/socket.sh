#!/usr/bin/env bash
# socket.sh - our socket receiver against sockperf, as rows of one compare:
# `pathlab compare --paths socket --references`, throughput and round
# trips. Each round runs ours and then sockperf (sockperf tp -> sockperf sr,
# sockperf pp -> sockperf sr) on the same cores; the table gives medians
# with min-max and the ratio ours/sockperf, and says whether the ranges
# separate. sockperf's server counts only its own client's messages, so
# sockperf feeds it; everything else (cores, lab, measurement) is shared.
#
#   labs/bench/socket.sh [--trials N] [--size BYTES] [--raw DIR]
# (--seconds S of earlier versions is taken and ignored: runs are counts.)
set -eu
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
trials=5 size=64 out=()
while [ $# -gt 0 ]; do
	case $1 in
	--trials) trials=${2:?--trials needs a value}; shift 2 ;;
	--size) size=${2:?--size needs a value}; shift 2 ;;
	--raw) out=(--out "${2:?--raw needs a directory}"); shift 2 ;;
	--seconds) echo "socket.sh: --seconds is ignored: runs are counts" >&2; shift 2 ;;
	-h | --help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "socket.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
exec "$ROOT/labs/pathlab" compare --paths socket --references \
	--workloads throughput,rtt --trials "throughput=$trials,rtt=$trials" \
	--sizes "$size" "${out[@]}"
