#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# helpers.sh OUT ARCHIVE "KEEP..." "FORBID...": the functions of the lab's
# library (ARCHIVE, built with one section per function) that an
# exercise's student file may call, KEEP, and only what they need, as one
# relocatable object OUT for its worker. The reference the exercise is
# graded against is not in it: a student file that calls it does not
# link. FORBID names the references; if a kept helper needs one, the
# exercise is wrong, and this says so.
set -eu
out=$1 archive=$2
read -r -a keep <<<"$3"
read -r -a forbid <<<"${4:-}"
args=()
for s in "${keep[@]}"; do args+=(-u "$s"); done
ld -r --gc-sections "${args[@]}" -o "$out" "$archive"
for s in "${forbid[@]}"; do
	if nm --defined-only "$out" | awk '{ print $3 }' | grep -qx "$s"; then
		echo "helpers.sh: $s, a reference of this exercise, is needed by one of: ${keep[*]}" >&2
		rm -f "$out"
		exit 1
	fi
done
