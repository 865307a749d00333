#!/usr/bin/env bash
# Every path's receiver has the same skeleton, so that diffing two of them
# shows only what differs between the paths. rx_<p>.c defines, in this
# order, choose_loop, <p>_setup, <p>_plain_burst, <p>_rx_loop,
# <p>_teardown, setup_error and main; rx_<p>.h is its header; no other
# file of the path picks a handler. Then every pair of rx_<p>.c files is
# diffed with each path's own names written as <p>: at least half of their
# lines (blank ones aside) must align, and the aligned counts are printed.
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
	local p=$1 file=$2 names
	names="${p}_setup|${p}_plain_burst|${p}_rx_loop|${p}_teardown|setup_error|main|choose_loop"
	grep -oE "^[a-z][a-z_ *]*[ *]($names)\(" "$file" |
		sed -E "s/.*[ *]([a-z_]+)\(\$/\1/; s/^$p"'_/<p>_/'
}

want=$(printf '%s\n' choose_loop '<p>_setup' '<p>_plain_burst' '<p>_rx_loop' \
	'<p>_teardown' setup_error main)
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
		echo "ok: $p: rx_$p.c is" $want
	else
		bad "$p: rx_$p.c's sections are out of order or missing:"
		diff <(echo "$want") <(echo "$got") | sed 's/^/   /'
	fi
	# The handler is chosen in one place: choose_loop(), at setup.
	others=$(grep -lE -- '->plain_burst = ' "$dir"/*.c | grep -v "/rx_$p.c\$")
	if [ -n "$others" ]; then
		bad "$p: a handler is chosen outside rx_$p.c: $others"
	fi
	if ! grep -qE -- '->plain_burst = ' "$src"; then
		bad "$p: rx_$p.c's choose_loop() sets no plain_burst"
	fi
done

# Each path's own names as <p>: its id, the id of its other names (its
# struct, its program), its config's old names.
python3 - "$REPO" <<'EOF' || FAIL=$((FAIL + 1))
import difflib, itertools, re, sys

root = sys.argv[1]
paths = {
    "socket": ("kernel-stack", ["sock", "socket"]),
    "xsk": ("af-xdp", ["xsk", "xdp"]),
    "dpdk": ("dpdk", ["dpdk"]),
    "verbs": ("rdma", ["verbs"]),
}


def lines(p):
    folder, ids = paths[p]
    out = []
    with open(f"{root}/{folder}/rx_{p}.c") as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            for i in ids:
                s = re.sub(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % i, "<p>", s)
            out.append(s)
    return out


failed = 0
for a, b in itertools.combinations(paths, 2):
    la, lb = lines(a), lines(b)
    sm = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    m = sum(block.size for block in sm.get_matching_blocks())
    share = 2 * m / (len(la) + len(lb))
    verdict = "ok" if share >= 0.5 else "FAIL"
    print(f"{verdict}: rx_{a}.c / rx_{b}.c: {m} lines align "
          f"(of {len(la)} and {len(lb)}): {share:.1%}")
    failed += share < 0.5
sys.exit(1 if failed else 0)
EOF

echo "$FAIL failed"
[ "$FAIL" -eq 0 ]
