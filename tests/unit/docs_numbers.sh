#!/bin/sh
# docs_numbers.sh PLAB - every figure in README.md, labs/*.md and
# slides/*.md comes from a checked-in results file, every generated block
# matches its results file, and no checked-in run has losses no counter
# explains (unattributed other than 0). First the checker itself must
# catch a hand-typed figure, a stale block and such a run, so a check
# that passes means something. PLAB: labs/plab (its docs command).
set -u
PLAB=$1
# The checker: /usr/bin/python3 $DOCS COMMAND ... runs labs/plab docs COMMAND.
DOCS="$PLAB docs"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. A made-up figure in prose is caught; one inside code is not read.
cat >"$TMP/typed.md" <<'MD'
The socket path took 12,345.6 cycles per packet here.

```
$ pathlab-gen --count 98765
```
MD
out=$(/usr/bin/python3 $DOCS numbers "$TMP/typed.md") && fail "a hand-typed figure passed"
echo "$out" | grep -q '12,345.6 is in no results file' ||
	fail "the hand-typed figure not named: $out"
echo "$out" | grep -q 98765 && fail "a number inside a code block was read"

# 2. Parameters and the allow-list pass: round counts, powers of two,
# the line-rate constants.
printf 'Send 200,000 frames of 1024 B: 14,880,952 frames/s at 10 GbE.\n' \
	>"$TMP/ok.md"
/usr/bin/python3 $DOCS numbers "$TMP/ok.md" || fail "parameters or constants refused"

# 3. A generated block that differs from its results file is stale.
printf '<!-- results: budget -->\n| made up |\n<!-- /results -->\n' \
	>"$TMP/stale.md"
cp "$TMP/stale.md" "$TMP/stale.orig"
/usr/bin/python3 $DOCS render --check "$TMP/stale.md" && fail "a stale block passed"
cmp -s "$TMP/stale.md" "$TMP/stale.orig" || fail "--check rewrote the file"
/usr/bin/python3 $DOCS render "$TMP/stale.md" >/dev/null || fail "render failed"
grep -q 'Mpps' "$TMP/stale.md" || fail "render did not fill the budget block"
/usr/bin/python3 $DOCS render --check "$TMP/stale.md" || fail "fresh block still stale"
/usr/bin/python3 $DOCS numbers "$TMP/stale.md" || fail "a rendered block's figures refused"

# 4. An unknown block is an error (exit 2), not silently kept.
printf '<!-- bench: no-such-log -->\n<!-- /bench -->\n' >"$TMP/bad.md"
/usr/bin/python3 $DOCS render --check "$TMP/bad.md" 2>/dev/null
[ $? -eq 2 ] || fail "a block naming no results file was not refused"

# 5. A results file with a run whose loss no counter explains is caught,
# the run named; one with every loss explained passes.
cat >"$TMP/u.json" <<'JSON'
{"pathlab": 1, "host": {}, "runs": [
 {"path": "socket", "mode": "recvmmsg", "gpu": "none", "frame_bytes": 1024,
  "workload": "throughput", "unattributed": -1},
 {"path": "xdp", "mode": "drop", "gpu": "none", "frame_bytes": 64,
  "workload": "latency", "unattributed": 0}]}
JSON
printf 'Nothing measured here.\n' >"$TMP/plain.md"
out=$(/usr/bin/python3 $DOCS numbers --results "$TMP/u.json" "$TMP/plain.md") &&
	fail "a run with unattributed -1 passed"
echo "$out" | grep -q 'socket recvmmsg 1024 B throughput: unattributed -1' ||
	fail "the run with unattributed -1 not named: $out"
echo "$out" | grep -q 'xdp drop' && fail "a run with unattributed 0 named"
sed -i 's/"unattributed": -1/"unattributed": 0/' "$TMP/u.json"
/usr/bin/python3 $DOCS numbers --results "$TMP/u.json" "$TMP/plain.md" ||
	fail "runs with every loss explained refused"

# 6. The project's own documents.
/usr/bin/python3 $DOCS render --check || fail "generated blocks are stale: run labs/pathlab docs"
/usr/bin/python3 $DOCS numbers || fail "hand-typed figures (above)"
echo "docs: every figure comes from a results file"
