#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# audit.sh OUT "DENY..." CC [CFLAGS...] -- FILE...: what a student file
# includes, checked before its worker is built. It may include headers,
# not the lab's sources (a .c file: the reference, pasted in by the
# preprocessor), nor the headers DENY names (a library's helpers that do
# the exercise, such as <xdp/xsk.h> for the rings of exercise 13). OUT is
# written (an empty header the worker's build waits for) when all is fine.
set -u
out=$1
read -r -a deny <<<"$2"
shift 2
cc=() files=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do cc+=("$1"); shift; done
shift
files=("$@")
bad=0
for f in "${files[@]}"; do
	deps=$("${cc[@]}" -M -MG "$f" 2>&1) || {
		echo "$f: error: the preprocessor refused it: $deps" >&2
		bad=1
		continue
	}
	# One dependency per line; the first is the file itself.
	while read -r d; do
		case $d in
		"$f" | */exercises/solutions/*) continue ;;
		*.c)
			echo "$f: error: includes $d, a source file of the lab: write the exercise yourself" >&2
			bad=1 ;;
		esac
		for x in "${deny[@]}"; do
			case $d in
			"$x" | */"$x")
				echo "$f: error: includes <$x>, whose helpers are this exercise written out: write them yourself" >&2
				bad=1 ;;
			esac
		done
	done < <(sed -e 's/^[^:]*://' -e 's/\\$//' <<<"$deps" | tr ' ' '\n' | grep -v '^$')
done
[ "$bad" -eq 0 ] || exit 1
echo "/* $(basename "$out"): the student's includes were checked. */" >"$out"
