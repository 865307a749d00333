#!/usr/bin/env bash
# afxdp.sh - the XDP / AF_XDP benchmark as rows of one compare:
# `pathlab compare --paths afxdp,dpdk,xdp,socket --references`, throughput
# of 64 B frames. AF_XDP receivers: ours (copy mode) against dpdk-testpmd
# rxonly on DPDK's net_af_xdp (and DPDK's own receiver on it). Drop points:
# XDP_DROP (the xdp path) against the kernel's later ones, its reference
# rows: XDP in generic (skb) mode, a tc clsact BPF drop
# (af-xdp/tc_drop.bpf.c) and netfilter's prerouting raw drop (nft), each
# counted by its own kernel counter, and a socket that reads and discards
# (the socket path). Each round runs every row in turn; the table gives
# medians with min-max, the ratio ours/reference and whether the ranges
# separate.
#
#   labs/bench/afxdp.sh [--trials N] [--count N]
# (the TRIALS and COUNT arguments of earlier versions are taken too.)
set -eu
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
trials=3 count=() n=0
while [ $# -gt 0 ]; do
	case $1 in
	--trials) trials=${2:?--trials needs a value}; shift 2 ;;
	--count) count=(--count "${2:?--count needs a value}"); shift 2 ;;
	-h | --help) sed -n '2,15p' "$0"; exit 0 ;;
	[0-9]*)
		n=$((n + 1))
		case $n in
		1) trials=$1 ;;
		2) count=(--count "$1") ;;
		*) echo "afxdp.sh: unknown argument $1" >&2; exit 2 ;;
		esac
		shift
		;;
	*) echo "afxdp.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
exec "$ROOT/labs/pathlab" compare --paths afxdp,dpdk,xdp,socket \
	--references --workloads throughput --trials "$trials" --sizes 64 \
	"${count[@]}"
