#!/bin/sh
# The cuda backend's code without a GPU: tests/unit/fakecuda's libcuda.so.1
# stands in for the driver (the consumer runs on the CPU there) so that
# everything around the kernel runs here as it will on a GPU: the driver
# calls by version, the device by PCI address, the warm-up, the launch,
# the dma-buf export's pages. Then what --gpu cuda makes of a driver that
# is too old (a failed run, not a skip), of a machine with no GPU (a
# skip), of a bad --gpu-pci (a usage error).
# $1 test-gpu-consumer, $2 the stand-in (libpathlab-fakecuda.so), $3
# pathlab-rx-socket, $4 pathlab-gen.
set -u
unit=$1 rx=$3 gen=$4
pass=0 fail=0
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/driver"
ln -s "$2" "$tmp/driver/libcuda.so.1"
fake=$tmp/driver

ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS, its output has PATTERN.
expect() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -q -- "$pat" "$tmp/out"; then
		ok "$name (exit $rc)"
	else
		bad "$name: exit $rc, wanted $want and \"$pat\": $(tail -n 5 "$tmp/out")"
	fi
}

export LD_LIBRARY_PATH="$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
expect "the interface test on the cuda backend" 0 "0 differ" "$unit" cuda
grep -q "pathlab fake CUDA driver" "$tmp/out" &&
	grep -q "built with CUDA" "$tmp/out" &&
	grep -q "dma-buf export: ok" "$tmp/out" ||
	bad "test-gpu-consumer cuda did not say which driver: $(head -n 3 "$tmp/out")"
PL_FAKE_CUDA_DMABUF=0 expect "no dma-buf export: said, the rest passes" 0 \
	"dma-buf export: Operation not supported" "$unit" cuda
PL_FAKE_CUDA_VERSION=11000 expect "a driver older than 11.4: a failure" 1 \
	"older than 11.4" "$unit" cuda
PL_FAKE_CUDA_DEVICES=0 expect "a driver without a GPU: a skip" 77 \
	"SKIP" "$unit" cuda

# A --gpu cuda receiver on loopback, end to end through the backend.
command -v jq >/dev/null || { echo "SKIP: the receiver runs need jq"; exit 77; }
port=$((50000 + $$ % 10000))
"$rx" --gpu cuda --bind 127.0.0.1 --port "$port" --iface lo \
	--rcvbuf 4194304 --idle-timeout 3000 --duration 20 --json "$tmp/run.json" \
	--ready "$tmp/ready" --quiet 2>"$tmp/rx.err" &
pid=$!
i=0
while [ ! -e "$tmp/ready" ] && [ $i -lt 500 ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.02
	i=$((i + 1))
done
"$gen" --dst 127.0.0.1 --port "$port" --src-port $((port + 1)) --count 2000 \
	--rate 10000 --size 512 --quiet
wait "$pid"
rc=$?
pid=
if [ "$rc" -eq 0 ] && jq -e '.gpu == "cuda" and .received > 0 and
	.gpu_verified == .received and .gpu_bad == 0 and
	.gpu_detail.backend == "cuda" and .copies_per_packet == 2 and
	(.gpu_detail.device | test("fake")) and
	.gpu_detail.rdma_writes_ordering == "none" and
	.gpu_detail.flush_for_running_kernel == "cuFlushGPUDirectRDMAWrites"' \
	"$tmp/run.json" >/dev/null; then
	ok "socket --gpu cuda: $(jq -c '{received, gpu_verified, launches: .gpu_detail.consumer_launches}' "$tmp/run.json")"
else
	bad "socket --gpu cuda: exit $rc: $(tail -n 3 "$tmp/rx.err"): $(jq -c '{received, gpu_verified, gpu_detail}' "$tmp/run.json" 2>&1 | head -c 600)"
fi
expect "--gpu-pci of no GPU: a failure naming it" 1 "gpu-pci 0000:99:00.0" \
	"$rx" --gpu cuda --gpu-pci 0000:99:00.0 --bind 127.0.0.1 \
	--port "$port" --duration 0.1 --quiet
expect "--gpu-pci that is no address: usage" 2 "not a PCI address" \
	"$rx" --gpu cuda --gpu-pci gpu0 --duration 0.1 --quiet
expect "--gpu-pci without --gpu cuda: usage" 2 "needs --gpu cuda" \
	"$rx" --gpu sim --gpu-pci 0000:3b:00.0 --duration 0.1 --quiet

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
