#!/usr/bin/env bash
# Every C, header and CUDA file of the tree is as clang-format (the
# repository's .clang-format) would write it: `clang-format -i FILE` fixes
# one that is not.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v clang-format >/dev/null; then
	echo "SKIP: clang-format is not installed"
	exit 77
fi
cd "$REPO" || exit 1
mapfile -t files < <(find common kernel-stack af-xdp dpdk rdma gpudirect \
	exercises tests -name '*.[ch]' -o -name '*.cu' | sort)
if [ "${#files[@]}" -lt 50 ]; then
	echo "FAIL: found only ${#files[@]} C files under $REPO"
	exit 1
fi
if clang-format --dry-run --Werror "${files[@]}"; then
	echo "ok: ${#files[@]} files formatted"
else
	echo "FAIL: run clang-format -i on the files above"
	exit 1
fi
