#!/usr/bin/env bash
# The socket receiver at the edges of what a datagram may be: one longer
# than a 1500-byte frame's payload (fragmented on the wire, whole in the
# socket) is received and checked like any other; one longer than the
# receive buffer is counted as too_long, never parsed cut short; and
# --reflect sends back only the good datagrams, never a bad or a foreign
# one. A small Python sender builds the datagrams pathlab-gen cannot.
set -u
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
	echo "SKIP: the sender needs $PY"
	exit 77
fi
netns_setup

# send.py DST SIZES...: one pathlab datagram of each payload size (a size
# prefixed with "bad:" gets a broken magic, one with "long:" is not counted
# as sent: the receiver cannot take it), then the end markers; with
# "echo" as the first size, count what comes back and print it as JSON.
cat >"$TMP/send.py" <<'PYEOF'
import json, socket, struct, sys, time

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def payload(size, seq, flags=0, magic=0x504c):
    b = bytearray(struct.pack("!HBBIQH", magic, 1 | flags, 0, seq,
                              time.clock_gettime_ns(time.CLOCK_MONOTONIC), 0))
    b += bytes((seq + i) & 0xff for i in range(18, size))
    c = csum(bytes(b))
    struct.pack_into("!H", b, 16, c or 0xffff)
    return bytes(b)

dst, sizes = sys.argv[1], sys.argv[2:]
echo = sizes[0] == "echo"
sizes = sizes[1:] if echo else sizes
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 0))
seq = 0
for z in sizes:
    kind, _, n = z.rpartition(":")
    bad = kind == "bad"
    s.sendto(payload(int(n), seq, magic=0x4242 if bad else 0x504c),
             (dst, 9000))
    seq += 0 if kind else 1
    time.sleep(0.002)
for r in range(3):
    s.sendto(payload(18, seq, 0x20 | (r << 6)), (dst, 9000))
    time.sleep(0.02)
if echo:
    s.settimeout(1.0)
    got = {"good": 0, "bad": 0, "end": 0}
    try:
        while True:
            d = s.recv(65536)
            if d[:2] != b"PL":
                got["bad"] += 1
            elif d[2] & 0x20:
                got["end"] += 1
            else:
                got["good"] += 1
    except socket.timeout:
        pass
    print(json.dumps(got))
PYEOF

# rx NAME ARGS...: the receiver in the rx namespace, ready, then the
# sender's datagrams SIZES (the rest of the arguments after --).
rx() {
	local name=$1 pid
	shift
	local args=() sizes=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	sizes=("$@")
	ns_spawn pid rx "$RX_SOCKET" --iface "$PL_RX_IF" --idle-timeout 3000 \
		"${args[@]}" --ready "$TMP/$name.ready" --json "$TMP/$name.json" \
		--quiet 2>"$TMP/$name.err"
	NETNS_PIDS="${NETNS_PIDS:-} $pid"
	if ! wait_file "$TMP/$name.ready" "$pid"; then
		bad "$name: receiver did not start: $(cat "$TMP/$name.err")"
		return 1
	fi
	ns_exec tx "$PY" "$TMP/send.py" "$PL_RX_ADDR" "${sizes[@]}" \
		>"$TMP/$name.sent" || bad "$name: sender failed"
	wait "$pid" || bad "$name: receiver exited $?: $(cat "$TMP/$name.err")"
}

# 1. Datagrams of 4000 and 8000 bytes (two and six fragments on a
# 1500-byte MTU): received and good. Two of 12000 bytes: too long for
# the buffer, counted as such. recvmmsg and recvfrom alike.
for mode in recvmmsg recvfrom; do
	rx "big-$mode" --mode "$mode" -- 4000 8000 4000 long:12000 8000 long:12000 64
	f=$TMP/big-$mode.json
	check "$mode: datagrams of 4000 and 8000 bytes received, good" \
		'.received == 5 and .lost == 0' "$f" '{received, lost, bad, bad_by_reason}'
	check "$mode: datagrams longer than the buffer counted as too_long" \
		'.bad == 2 and .bad_by_reason.too_long == 2' "$f" '{bad, bad_by_reason}'
done

# 2. --reflect: good pings come back, bad ones and end markers as the
# receiver counted them, never a datagram it refused.
rx reflect --reflect -- echo 64 bad:64 64 bad:200 200 long:12000 64
f=$TMP/reflect.json
check "reflect: the receiver saw 4 good, 3 bad" \
	'.received == 4 and .bad == 3' "$f" '{received, bad, bad_by_reason}'
if jq -e '.good == 4 and .bad == 0' "$TMP/reflect.sent" >/dev/null; then
	ok "reflect: the 4 good came back, no bad one: $(cat "$TMP/reflect.sent")"
else
	bad "reflect: came back $(cat "$TMP/reflect.sent"), want 4 good, 0 bad"
fi
check "reflect: reflected = good + end markers it read" \
	'.reflect.reflected == .received + .end_markers' "$f" '{reflect, received, end_markers}'

netns_finish
