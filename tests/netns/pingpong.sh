#!/usr/bin/env bash
# pathlab-gen --pingpong against a small UDP echo in the rx namespace (a
# stand-in for a receiver's reflect mode): every ping answered and timed,
# the warm-up left out, the end markers sent; then an echo that drops,
# delays and corrupts chosen pings, and each kind is counted apart.
set -u
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
	echo "SKIP: the echo needs $PY"
	exit 77
fi
netns_setup

# The echo: reflect every datagram to its sender until an end marker
# (flag 0x20 in byte 2); then write how many it reflected. With
# "misbehave", ping n (from 1) is dropped when n is 200 or 400, answered
# only after the next ping when n is 300 (late), corrupted when n is 500.
cat >"$TMP/echo.py" <<'EOF'
import socket, sys
ready, out, misbehave = sys.argv[1], sys.argv[2], sys.argv[3] == "misbehave"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9000))
open(ready, "w").close()
n = reflected = 0
held = None
while True:
    d, a = s.recvfrom(4096)
    if len(d) > 2 and d[2] & 0x20:
        break
    n += 1
    if held:
        s.sendto(*held)
        held = None
    if misbehave and n in (200, 400):
        continue
    if misbehave and n == 300:
        held = (d, a)
        continue
    if misbehave and n == 500:
        d = d[:17] + bytes([d[17] ^ 0xFF]) + d[18:]
    s.sendto(d, a)
    reflected += 1
with open(out, "w") as f:
    f.write(str(reflected))
EOF

# pingpong NAME ECHO-MODE "GEN ARGS": the echo in rx, pathlab-gen in tx.
pingpong() {
	local name=$1 mode=$2 args=$3 pid
	ns_spawn pid rx "$PY" "$TMP/echo.py" "$TMP/$name.ready" \
		"$TMP/$name.reflected" "$mode"
	NETNS_PIDS="${NETNS_PIDS:-} $pid"
	if ! wait_file "$TMP/$name.ready" "$pid"; then
		bad "$name: the echo did not start"
		return 1
	fi
	# shellcheck disable=SC2086
	ns_exec tx "$GEN" --dst "$PL_RX_ADDR" --iface "$PL_TX_IF" --pingpong \
		$args --quiet --json "$TMP/$name.json" 2>"$TMP/$name.err" ||
		bad "$name: generator failed: $(cat "$TMP/$name.err")"
	# The echo ends at the first end marker: proof the markers went out.
	if wait "$pid"; then
		ok "$name: the echo saw an end marker and stopped"
	else
		bad "$name: the echo exited $?"
	fi
}

# 1. 2,000 pings, a good echo: all answered; the default warm-up is 100.
pingpong good good "--count 2000 --reply-timeout 2000"
f=$TMP/good.json
check "good: 2000 pings sent, end markers sent" \
	'.sent == 2000 and .send_errors == 0 and .end_markers_sent >= 1' "$f"
reflected=$(cat "$TMP/good.reflected" 2>/dev/null)
if [ "$reflected" = 2000 ]; then
	ok "good: the echo reflected 2000"
else
	bad "good: the echo reflected '$reflected'"
fi
check "good: samples = 2000 - warm-up (100), nothing lost or stray" \
	'.rtt.warmup == 100 and .rtt.samples == 1900 and .rtt.timeouts == 0 and
	 .rtt.warmup_timeouts == 0 and .rtt.late == 0 and .rtt.mismatched == 0' \
	"$f" '.rtt'
check "good: round-trip percentiles ordered, min > 0" \
	'.rtt.kind == "round_trip" and .rtt.min_ns > 0 and
	 .rtt.min_ns <= .rtt.p50_ns and .rtt.p50_ns <= .rtt.p99_ns and
	 .rtt.p99_ns <= .rtt.p999_ns and .rtt.p999_ns <= .rtt.max_ns and
	 .rtt.mean_ns >= .rtt.min_ns and .rtt.mean_ns <= .rtt.max_ns' "$f" '.rtt'
echo "   good: $(jq -c '.rtt | {min_ns, p50_ns, p99_ns, max_ns}' "$f")"

# 2. An echo that drops two pings, answers one late and corrupts one,
# over two flows: four timeouts, one late reply, one mismatched.
pingpong bad misbehave \
	"--count 600 --warmup 50 --flows 2 --rate 2000 --reply-timeout 300"
f=$TMP/bad.json
check "misbehaving echo: 600 pings sent" '.sent == 600' "$f"
check "misbehaving echo: 4 timeouts, 1 late, 1 mismatched" \
	'.rtt.timeouts == 4 and .rtt.late == 1 and .rtt.mismatched == 1' \
	"$f" '.rtt'
check "misbehaving echo: samples = 600 - 50 - 4" \
	'.rtt.warmup == 50 and .rtt.samples == 546' "$f" '.rtt'

# 3. Nobody reflects: every ping times out and the generator says so.
if ns_exec tx "$GEN" --dst "$PL_RX_ADDR" --pingpong --count 5 --warmup 1 \
	--reply-timeout 20 --quiet --json "$TMP/none.json" 2>"$TMP/none.err"; then
	bad "no echo: the generator succeeded"
else
	check "no echo: 4 timeouts, no samples, exit 1" \
		'.rtt.samples == 0 and .rtt.timeouts == 4' "$TMP/none.json" '.rtt'
fi

# 4. Usage: ping-pong is UDP and one thread.
for args in "--tx packet" "--threads 2 --flows 2" "--count 10 --warmup 10"; do
	# shellcheck disable=SC2086
	"$GEN" --pingpong $args >/dev/null 2>&1
	rc=$?
	if [ $rc -eq 2 ]; then
		ok "usage: --pingpong $args exits 2"
	else
		bad "usage: --pingpong $args exited $rc"
	fi
done

netns_finish
