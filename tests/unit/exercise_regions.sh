#!/usr/bin/env bash
# exercise_regions.sh - the exercises' copies of the lab's code are in step
# with it (exercises/lib/regions.py --check), and the check can fail: on a
# copy of the tree, a changed line in a region exercise 5 is generated
# from, a changed line in a region another exercise copies by hand, and a
# region that moved to another file (found by name, still in step).
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-python3}
pass=0 fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

out=$("$PY" "$REPO/exercises/lib/regions.py" --check 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	ok "the tree's copies are in step"
else
	bad "the tree's copies (exit $rc):"
	printf '%s\n' "$out"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in af-xdp common dpdk gpudirect kernel-stack rdma exercises; do
	cp -r "$REPO/$d" "$tmp/"
done
check() { "$PY" "$tmp/exercises/lib/regions.py" --check 2>&1; }
fresh() {
	rm -rf "$tmp/af-xdp" "$tmp/common" "$tmp/exercises"
	cp -r "$REPO/af-xdp" "$REPO/common" "$REPO/exercises" "$tmp/"
}

# 1. Two lines of the XDP program change, one in a hole of exercise 5:
# its copies are stale.
sed -i -e 's/^\t\tc->bytes += len;$/\t\tc->bytes += len * 1;/' \
	-e 's/^\tif (trace_n) /\tif (trace_n != 0) /' "$tmp/af-xdp/pathlab.bpf.c"
out=$(check)
rc=$?
if [ $rc -eq 1 ] && grep -q 'xdp_ex.bpf.c: its copy of region xdp-program' \
	<<<"$out" && grep -q 'meta.sh 05' <<<"$out"; then
	ok "a changed XDP program: exercise 5 is named"
else
	bad "a changed XDP program: exit $rc: $out"
fi
"$PY" "$tmp/exercises/lib/regions.py" --write >/dev/null 2>&1
ex=$tmp/exercises/05-xdp-verdict/xdp_ex.bpf.c
sol=$tmp/exercises/solutions/05-xdp-verdict/xdp_ex.bpf.c
[ -e "$sol" ] || sol=$tmp/af-xdp/pathlab.bpf.c # a student kit
if check >/dev/null && grep -q 'c->bytes += len \* 1;' "$sol" &&
	grep -q 'if (trace_n != 0)' "$sol" && grep -q 'if (trace_n != 0)' "$ex" &&
	grep -q 'Exercise 5.1' "$ex" && ! grep -q 'c->bytes' "$ex"; then
	ok "--write: the solution has the new line, the skeleton its hole"
else
	bad "--write did not regenerate exercise 5 as expected"
fi
fresh

# 2. A region copied by hand changes: its exercise is named.
sed -i 's/^\t\treturn PL_BAD_UDP_TRUNC;$/\t\treturn (PL_BAD_UDP_TRUNC);/' \
	"$tmp/common/wire.c"
out=$(check)
rc=$?
if [ $rc -eq 1 ] && grep -q 'region wire-parse changed since exercises/02-parse' \
	<<<"$out"; then
	ok "a changed parser: exercise 2 is named"
else
	bad "a changed parser: exit $rc: $out"
fi
fresh

# 3. A region moves to another file, re-indented: still found, in step.
"$PY" - "$tmp/common/hist.c" "$tmp/common/hist_moved.c" <<'EOF'
import sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split("\n")
a = lines.index("/* 8< hist-percentile */")
b = lines.index("/* >8 hist-percentile */")
open(dst, "w").write("\n".join("  " + l if l else l
                               for l in lines[a:b + 1]) + "\n")
open(src, "w").write("\n".join(lines[:a] + lines[b + 1:]))
EOF
out=$(check)
rc=$?
if [ $rc -eq 0 ]; then
	ok "a region moved to another file is found by its name"
else
	bad "a moved region: exit $rc: $out"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
