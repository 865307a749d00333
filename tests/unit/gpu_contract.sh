#!/bin/sh
# The run contract of a GPU variant: pathlab-rx-socket --gpu sim on
# loopback (no root needed) writes the GPU fields of the schema, and the
# consumer's count agrees with the receiver's. $1 pathlab-rx-socket,
# $2 pathlab-gen, $3 the schema.
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
		echo "FAIL: $1 ($2): $(jq -c "${4:-.}" "$3" 2>&1 | head -c 400)"
		fail=$((fail + 1))
	fi
}

# Outside run_contract.sh's 20000-39999: the two may run at once.
port=$((40000 + $$ % 10000))
"$rx" --gpu sim --bind 127.0.0.1 --port "$port" --iface lo \
	--rcvbuf 4194304 --idle-timeout 3000 --duration 20 --json "$tmp/run.json" \
	--ready "$tmp/ready" --quiet &
pid=$!
i=0
while [ ! -e "$tmp/ready" ] && [ $i -lt 500 ]; do
	sleep 0.02
	i=$((i + 1))
done
# Its own source port too: run_contract.sh's generator holds the default.
"$gen" --dst 127.0.0.1 --port "$port" --src-port $((port + 1)) --count 3000 \
	--rate 10000 --size 256 --quiet --json "$tmp/gen.json"
wait "$pid"
echo "receiver exit status $?"
pid=

check "run JSON parses" '.' "$tmp/run.json"
for key in $(jq -r '."$defs".run.required[]' "$schema"); do
	check "required field $key" "has(\"$key\")" "$tmp/run.json"
done
# A loaded machine may drop some on loopback: the accounting must still add up.
check "sent 3000, each received or lost" \
	'.sent == 3000 and .received + .lost == .sent and .received > 0' "$tmp/run.json"
check "gpu sim, every datagram verified by the consumer" \
	'.gpu == "sim" and .gpu_verified == .received and .gpu_bad == 0' \
	"$tmp/run.json" '{gpu, gpu_verified, gpu_bad, received}'
check "bounce buffer: two copies, one crossing, modelled" \
	'.copies_per_packet == 2 and .copies_source == "modelled" and
	 .pcie_crossings_per_packet == 1 and .pcie_source == "modelled"' \
	"$tmp/run.json" '{copies_per_packet, copies_source, pcie_crossings_per_packet, pcie_source}'
for key in pcie_source copies_source; do
	check "$key is one of the schema's values" \
		"[.${key}] | inside($(jq -c ".\"\$defs\".run.properties.${key}.enum" "$schema"))" \
		"$tmp/run.json"
done
for key in backend variant registration figures_source; do
	check "gpu_detail.$key is one of the schema's values" \
		"[.gpu_detail.${key}] | inside($(jq -c ".\"\$defs\".run.properties.gpu_detail.properties.${key}.enum" "$schema"))" \
		"$tmp/run.json"
done
check "gpu_detail says emulated GPU" \
	'.gpu_detail.device == "emulated GPU" and .gpu_detail.registration == "emulated"' \
	"$tmp/run.json" '.gpu_detail'
check "all values are plain" \
	'[.. | scalars] | all(type == "number" or type == "string" or type == "boolean")' \
	"$tmp/run.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
