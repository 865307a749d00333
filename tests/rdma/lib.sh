# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# lib.sh - what the rdma suite's guest side shares: one measured run (a
# receiver and a sender over two rxe devices), checks on its JSON, and
# checks that a failing command fails fast and says why.
#
# Needs BUILD (the meson build directory), OUT (a writable directory) and
# the PL_VM_* variables labs/rdma-vm (or run.sh on a host) sets.

RX_VERBS=$BUILD/rdma/pathlab-rx-verbs
TX_VERBS=$BUILD/rdma/pathlab-tx-verbs
PLAB=$REPO/labs/plab
PASS=0
FAIL=0
FAILED=()

# Count one result: ok DESCRIPTION, or bad DESCRIPTION [DETAIL].
ok() {
	PASS=$((PASS + 1))
	echo "ok   $1"
}
bad() {
	FAIL=$((FAIL + 1))
	FAILED+=("$1")
	echo "FAIL $1${2:+: $2}"
}

# Name the failed checks again at the end: a long log is shown by its tail.
fails_again() {
	local f
	for f in "${FAILED[@]}"; do
		echo "failed: $f"
	done
}

# check DESC JQ-EXPR FILE [JQ-TO-SHOW]: pass if the expression is true.
check() {
	if jq -e "$2" "$3" >/dev/null 2>&1; then
		ok "$1"
	else
		bad "$1" "$(jq -Mc "${4:-.}" "$3" 2>&1 | head -c 600)"
	fi
}

# run_pair NAME "RX ARGS" "TX ARGS": a receiver, then a sender once it is
# ready; both bounded. Leaves OUT/NAME.rx.json, .tx.json and the merged
# OUT/NAME.json (what labs/pathlab compare keeps for each run).
run_pair() {
	local name=$1 rx_args=$2 tx_args=$3 base=$OUT/$1 pid _ rc_tx rc_rx
	rm -f "$base".*
	# shellcheck disable=SC2086 # argument lists; RX_WRAP: e.g. strace
	timeout 120 ${RX_WRAP:-} "$RX_VERBS" $rx_args --device "$PL_VM_RX_DEV" \
		--env "$PL_VM_ENV" --ready "$base.ready" --json "$base.rx.json" \
		--quiet >"$base.rx.out" 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		[ -e "$base.ready" ] || ! kill -0 "$pid" 2>/dev/null && break
		sleep 0.05
	done
	# shellcheck disable=SC2086
	timeout 120 "$TX_VERBS" $tx_args --device "$PL_VM_TX_DEV" \
		--dst "$PL_VM_RX_ADDR" --json "$base.tx.json" --quiet \
		>"$base.tx.out" 2>&1
	rc_tx=$?
	wait "$pid"
	rc_rx=$?
	if [ $rc_rx != 0 ] || [ $rc_tx != 0 ] || [ ! -s "$base.rx.json" ] ||
		[ ! -s "$base.tx.json" ]; then
		bad "$name: receiver exit $rc_rx, sender exit $rc_tx"
		sed "s/^/    rx: /" "$base.rx.out" | tail -n 8
		sed "s/^/    tx: /" "$base.tx.out" | tail -n 8
		echo '{}' >"$base.json"
		return 1
	fi
	/usr/bin/python3 "$PLAB" merge "$base.rx.json" "$base.tx.json" \
		>"$base.json"
}

# fails_fast DESC SECONDS PATTERN CMD...: CMD must fail (not 0, not a
# timeout) within SECONDS and print PATTERN.
fails_fast() {
	local desc=$1 limit=$2 pattern=$3 t0 t1 rc out
	shift 3
	t0=$(date +%s%N)
	out=$(timeout $((limit + 10)) "$@" 2>&1)
	rc=$?
	t1=$(date +%s%N)
	t1=$(((t1 - t0) / 1000000))
	if [ $rc = 0 ] || [ $rc = 124 ]; then
		bad "$desc" "exit $rc after $t1 ms"
	elif [ $t1 -gt $((limit * 1000)) ]; then
		bad "$desc" "took $t1 ms (limit ${limit} s)"
	elif ! grep -qE "$pattern" <<<"$out"; then
		bad "$desc" "no '$pattern' in: $(tail -n 2 <<<"$out")"
	else
		ok "$desc (exit $rc in $t1 ms: $(grep -E "$pattern" <<<"$out" | head -n 1 | cut -c1-90))"
	fi
}

# Print one line about a run: what it measured.
show() {
	jq -r '"     \(.mode)/\(.verbs.cq): \(.received)/\(.sent) in \(.duration_s * 1000 | round) ms, \(.pps / 100 | round / 10) kpps, p50 \(.latency_ns.p50 / 100 | round / 10) us, syscalls/pkt \(.syscalls_per_packet * 1000 | round / 1000), wakeups/pkt \(.wakeups_per_packet * 1000 | round / 1000)"' "$OUT/$1.json" 2>/dev/null
}
