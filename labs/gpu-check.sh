#!/usr/bin/env bash
# gpu-check.sh - the GPU variants on a machine with an NVIDIA GPU, from the
# working tree, in a few minutes, with nothing but the GPU driver, the CUDA
# toolkit (nvcc, gcc) and bash. It builds what the machine's tools allow:
# with meson and ninja every path whose libraries are there, else, with
# gcc and nvcc alone, the socket path and the GPU parts. Then, with
# --gpu cuda, one verdict per path, each "RAN on a GPU and verified N
# payloads", "COULD NOT: why" or "FAILED: why":
#
#   gpu-check    pathlab-gpu-check: the GPU, SYNC_MEMOPS, the ordering of
#                a NIC's writes, mapped memory, copies, the consumer, dma-buf
#   consumer     the interface test on the GPU, and the consumer kernel's
#                verdicts on a mixed batch against the emulated GPU's
#   socket       the bounce buffer over loopback (no root needed)
#   afxdp        UMEM mapped, and copied, over the lab's veth (root, libxdp)
#   dpdk         the mbuf pool in device memory on a NIC whose PMD DMAs
#                (--pci ADDR, packets from another machine)
#   verbs        RDMA into device memory, RC over a NIC that DMAs, to itself
#
# and the figures the lab's rows would show for each run.
#
#   labs/gpu-check.sh [--build-only | --no-build] [--build-dir DIR]
#                     [--gpu-pci ADDR] [--pci ADDR] [--count N] [--out DIR]
#
#   --build-only    build, say what was built and what not, and stop
#   --no-build      run what is built in the build directory as it is
#   --build-dir DIR where to build (default build-gpu in the tree; a meson
#                   build already there is brought up to date)
#   --gpu-pci ADDR  the GPU to use (default: the one nearest each NIC)
#   --pci ADDR      a PCI NIC for the DPDK run (mlx5: keep it on mlx5_core)
#   --count N       datagrams per run (default 20000)
#   --out DIR       keep every log and JSON there (default: a temporary one)
#
# Exit: 0 a GPU ran every path this machine could run and verified its
# payloads; 1 something failed (a build, a GPU that is there but unusable,
# a run, a payload not verified); 77 no GPU on this machine (what could be
# built was); 2 a bad option. PATHLAB_GPU_CHECK_BUILD=gcc takes the gcc
# build even where meson is there.
# shellcheck source-path=SCRIPTDIR source-path=SCRIPTDIR/lib
set -u

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
B=$ROOT/build-gpu
GPU_PCI=
PCI=
COUNT=20000
BUILD_ONLY=
NO_BUILD=
OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--build-only) BUILD_ONLY=1 ;;
	--no-build) NO_BUILD=1 ;;
	--build-dir) B=${2:?--build-dir needs a directory}; shift ;;
	--gpu-pci) GPU_PCI=${2:?--gpu-pci needs an address}; shift ;;
	--pci) PCI=${2:?--pci needs an address}; shift ;;
	--count) COUNT=${2:?--count needs a number}; shift ;;
	--out) OUT=${2:?--out needs a directory}; shift ;;
	-h | --help) sed -n '3,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "gpu-check: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done
[[ $COUNT =~ ^[1-9][0-9]*$ ]] || { echo "gpu-check: --count $COUNT: not a count" >&2; exit 2; }
B=$(mkdir -p "$B" && cd "$B" && pwd) || { echo "gpu-check: --build-dir: cannot use it" >&2; exit 2; }
TMP_OUT=
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d)
	TMP_OUT=$OUT
fi
mkdir -p "$OUT" || exit 2
# shellcheck source=lib/gpu-check-lib.sh
. "$ROOT/labs/lib/gpu-check-lib.sh"
trap 'gpu_check_cleanup; [ -z "$TMP_OUT" ] || rm -rf "$TMP_OUT"' EXIT

machine
if [ -n "$NO_BUILD" ]; then
	echo "== Built already, in $B"
	built_list || FAILED_BUILD=1
else
	build || FAILED_BUILD=1
fi
[ -n "$BUILD_ONLY" ] && { summary; exit $((FAILED_BUILD ? 1 : 0)); }
run_gpu_check
run_consumer
run_socket
run_afxdp
run_dpdk
run_verbs
summary
finish
