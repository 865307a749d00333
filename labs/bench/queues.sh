#!/usr/bin/env bash
# queues.sh - one receive queue against two, for one path, as two compares:
# `pathlab compare --queues 1` and `--queues 2`, throughput only, into
# OUT/q1 and OUT/q2, then both tables. compare --queues N builds the lab
# with N queues on each veth end (XPS: sender thread t on CPU t sends on TX
# queue t), runs the receiver with --queues N (queue q on its own pinned
# thread) and feeds it with N sender threads over 4N flows; with one queue
# it is the usual lab (one sender thread, NAPI threaded on the receive
# core). Each compare interleaves its own paths and keeps every trial; the
# two compares run one after the other, so compare their ranges, not
# single runs. Paths that cannot receive on two queues are skipped.
#
# On a 2-CPU machine nothing gets a core of its own: two sender threads,
# the kernel's receive work (in softirq on the sender's CPUs with two
# queues) and one or two receiver threads share both CPUs, and busy
# pollers (AF_XDP, DPDK) spin a CPU a sender needs. It shows where the
# packets go (each run's per-queue shares in results.json) and what a
# second queue costs; it cannot show scaling with cores or RSS on a NIC.
#
#   labs/bench/queues.sh [--path LIST] [--trials N] [--count N]
#                        [--size BYTES] [--raw DIR]
# (--seconds, --vdev-kind and --q1-lab of earlier versions are taken and
# ignored: runs are counts, both DPDK vdevs run, and the one-queue runs
# always use a one-queue lab.)
set -eu
ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
paths=socket trials=3 size=64 count=() out=""
while [ $# -gt 0 ]; do
	case $1 in
	--path) paths=${2:?--path needs a value}; shift 2 ;;
	--trials) trials=${2:?--trials needs a value}; shift 2 ;;
	--count) count=(--count "${2:?--count needs a value}"); shift 2 ;;
	--size) size=${2:?--size needs a value}; shift 2 ;;
	--raw) out=${2:?--raw needs a directory}; shift 2 ;;
	--seconds | --vdev-kind | --q1-lab)
		echo "queues.sh: $1 is ignored" >&2
		shift 2
		;;
	-h | --help) sed -n '2,24p' "$0"; exit 0 ;;
	*) echo "queues.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
out=${out:-$ROOT/results/queues-$(date -u +%Y%m%d-%H%M%S)}
rc=0
for q in 1 2; do
	echo "== queues.sh: --queues $q =="
	"$ROOT/labs/pathlab" compare --paths "$paths" --queues "$q" \
		--workloads throughput --trials "$trials" --sizes "$size" \
		"${count[@]}" --out "$out/q$q" || rc=$?
done
for q in 1 2; do
	echo
	echo "== $paths, $q receive queue(s): $out/q$q/table.txt =="
	cat "$out/q$q/table.txt" 2>/dev/null || echo "(no table: every run failed)"
done
exit "$rc"
