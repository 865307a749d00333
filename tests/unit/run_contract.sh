#!/bin/sh
# The run contract: a real receiver run on loopback (no root needed) has
# every field common/results.schema.json requires, with the right types,
# and its counts agree. $1 pathlab-rx-socket, $2 pathlab-gen, $3 the schema.
set -u
rx=$1 gen=$2 schema=$3
pass=0 fail=0

command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

check() {
	if jq -e "$2" "$3" >/dev/null 2>&1; then
		pass=$((pass + 1))
	else
		echo "FAIL: $1 ($2)"
		fail=$((fail + 1))
	fi
}

port=$((20000 + $$ % 20000))
"$rx" --bind 127.0.0.1 --port "$port" --iface lo --rcvbuf 8388608 \
	--idle-timeout 3000 --duration 20 --json "$tmp/run.json" \
	--ready "$tmp/ready" --quiet &
pid=$!
i=0
while [ ! -e "$tmp/ready" ] && [ $i -lt 500 ]; do
	sleep 0.02
	i=$((i + 1))
done
"$gen" --dst 127.0.0.1 --port "$port" --count 3000 --rate 30000 --size 128 \
	--quiet --json "$tmp/gen.json"
wait "$pid"
echo "receiver exit status $?"
pid=

check "run JSON parses" '.' "$tmp/run.json"
for key in $(jq -r '."$defs".run.required[]' "$schema"); do
	check "required field $key" "has(\"$key\")" "$tmp/run.json"
done
for key in $(jq -r '."$defs".run.properties.cpu.required[]' "$schema"); do
	check "cpu.$key is a number" ".cpu.$key | type == \"number\"" "$tmp/run.json"
done
check "path and mode" '.path == "socket" and .mode == "recvmmsg" and .gpu == "none"' "$tmp/run.json"
check "sizes" '.frame_bytes == 128 and .payload_bytes == 82' "$tmp/run.json"
check "counts from the end marker" '.sent == 3000 and .sent_source == "end_marker"' "$tmp/run.json"
check "received all" '.received == 3000 and .lost == 0 and .unattributed == 0' "$tmp/run.json"
check "latency ordered" '.latency_ns | .p50 <= .p99 and .p99 <= .p999 and .p999 <= .max' "$tmp/run.json"
check "all values are plain" '[.. | scalars] | all(type == "number" or type == "string" or type == "boolean")' "$tmp/run.json"
check "generator agrees" '.sent == 3000' "$tmp/gen.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
