#!/usr/bin/env bash
# Every path's receiver has the same skeleton, so that diffing two of them
# shows only what differs between the paths: rx_<p>.c defines <p>_setup,
# <p>_rx_loop, <p>_teardown and main, in that order, and one choose_loop();
# rx_<p>.h is its header; no other file of the path picks a loop. The four
# skeletons, with the path id written as <p>, must read the same.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
FAIL=0
PATHS="socket:kernel-stack xsk:af-xdp dpdk:dpdk verbs:rdma"

bad() {
	echo "FAIL: $*"
	FAIL=$((FAIL + 1))
}

# The skeleton of one receiver: its sections, in file order, path id as <p>.
skeleton() {
	local p=$1 file=$2
	grep -oE "^[a-z][a-z_ *]*[ *]($p"'_setup|'"$p"'_rx_loop|'"$p"'_teardown|main|choose_loop)\(' "$file" |
		sed -E "s/.*[ *]([a-z_]+)\(\$/\1/; s/^$p"'_/<p>_/'
}

want=$(printf '%s\n' choose_loop '<p>_setup' '<p>_rx_loop' '<p>_teardown' main)
for entry in $PATHS; do
	p=${entry%%:*}
	dir=$REPO/${entry#*:}
	src=$dir/rx_$p.c
	if [ ! -f "$src" ] || [ ! -f "$dir/rx_$p.h" ]; then
		bad "$p: no ${entry#*:}/rx_$p.c or rx_$p.h"
		continue
	fi
	got=$(skeleton "$p" "$src")
	if [ "$got" = "$want" ]; then
		echo "ok: $p: rx_$p.c is choose_loop, ${p}_setup, ${p}_rx_loop, ${p}_teardown, main"
	else
		bad "$p: rx_$p.c's sections are out of order or missing:"
		diff <(echo "$want") <(echo "$got") | sed 's/^/   /'
	fi
	# The loop is chosen in one place: choose_loop()'s result at setup.
	others=$(grep -lE -- '->rx_loop = |->rx_plain = |->poll = ' "$dir"/*.c |
		grep -v "/rx_$p.c\$")
	if [ -n "$others" ]; then
		bad "$p: a loop is chosen outside rx_$p.c: $others"
	fi
	n=$(grep -cE -- '->rx_loop = ' "$src")
	if [ "$n" -lt 1 ] || grep -E -- '->rx_loop = ' "$src" | grep -qv choose_loop; then
		bad "$p: rx_$p.c assigns rx_loop other than from choose_loop()"
	fi
done

echo "$FAIL failed"
[ "$FAIL" -eq 0 ]
