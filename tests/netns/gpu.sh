#!/usr/bin/env bash
# The GPU variants on the emulated GPU (--gpu sim), end to end in the lab:
# the socket path (bounce buffer), AF_XDP (the UMEM mapped, and copied),
# DPDK on net_af_packet (the mbuf pool in device memory: every mbuf's data
# inside it). For each: the consumer verified every datagram received, the
# copies and PCIe crossings per packet are the variant's and say "modelled",
# the rows say "emulated GPU". Then: corrupted payloads caught by the
# consumer in device memory, the step-through trace with its GPU steps,
# clear refusals (no GPU for --gpu cuda; cuda on a vdev that copies), and
# labs/gpu-check.sh's runs over the stand-in CUDA driver of the unit tests
# (tests/unit/fakecuda), AF_XDP in a lab of its own included.
set -u
. "$(dirname "$0")/lib.sh"
netns_setup

RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
RX="--iface $PL_RX_IF --cpu 1 --idle-timeout 3000"
TX="--iface $PL_TX_IF --cpu 0"
PACED="$TX --count 20000 --rate 20000 --batch 8 --size 256"

# check_gpu NAME COPIES CROSSINGS VARIANT: what every sim run must show.
check_gpu() {
	local f=$TMP/$1.json
	check "$1: every datagram received, none lost" \
		'.sent == 20000 and .received == 20000 and .lost == 0' "$f" \
		'{sent, received, lost, drops}'
	check "$1: the consumer verified each one (gpu_verified = received)" \
		'.gpu == "sim" and .gpu_verified == .received and .gpu_bad == 0' \
		"$f" '{gpu, gpu_verified, gpu_bad, received}'
	check "$1: $2 copies and $3 PCIe crossing per packet, modelled" \
		".copies_per_packet == $2 and .copies_source == \"modelled\" and
		 .pcie_crossings_per_packet == $3 and .pcie_source == \"modelled\"" \
		"$f" '{copies_per_packet, copies_source, pcie_crossings_per_packet, pcie_source}'
	check "$1: the row says emulated GPU, variant $4" \
		".gpu_detail.device == \"emulated GPU\" and
		 .gpu_detail.registration == \"emulated\" and
		 .gpu_detail.variant == \"$4\" and
		 .gpu_detail.packets_checked >= .received" "$f" '.gpu_detail'
	echo "   $1: $(jq -c '{gpu_verified, copies_per_packet, pcie_crossings_per_packet,
		bytes: .gpu_detail.bytes, launches: .gpu_detail.consumer_launches}' "$f")"
}

# 1. The socket path: recvmmsg, one copy of the batch to the device.
run_pair_exact socket "$BUILD/kernel-stack/pathlab-rx-socket" \
	"$RX --gpu sim --rcvbuf 8388608 --count 20000" "$PACED"
check_gpu socket 2 1 bounce
check "socket: one batch transfer per consumer launch" \
	'.gpu_detail.h2d_transfers == .gpu_detail.consumer_launches and
	 .gpu_detail.registration_emulated == "host-pinned"' "$TMP/socket.json"

# 2. AF_XDP: the consumer reads the UMEM in place, or a copy of it.
if [ -x "$RX_XSK" ]; then
	run_pair_exact xsk-mapped "$RX_XSK" "$RX --gpu sim --count 20000" "$PACED"
	check_gpu xsk-mapped 1 1 mapped
	check "xsk-mapped: no bytes copied to the device, all read in place" \
		'.gpu_detail.bytes.h2d_copy == 0 and
		 .gpu_detail.packets.mapped_read == .gpu_detail.packets_checked and
		 .gpu_detail.registration_emulated == "host-mapped"' "$TMP/xsk-mapped.json"
	run_pair_exact xsk-copy "$RX_XSK" \
		"$RX --gpu sim --gpu-mode copy --count 20000" "$PACED"
	check_gpu xsk-copy 2 1 copy
	ns_exec rx "$RX_XSK" --iface "$PL_RX_IF" --action drop --gpu sim \
		--duration 0.1 --quiet >"$TMP/xdp-gpu.out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'needs --action redirect' "$TMP/xdp-gpu.out"; then
		ok "xdp drop with --gpu: refused, usage"
	else
		bad "xdp drop with --gpu: exit $rc: $(cat "$TMP/xdp-gpu.out")"
	fi
else
	echo "skip: $RX_XSK not built"
fi

# 3. DPDK on af_packet: the five steps put the mbufs' data in device memory.
if [ -x "$RX_DPDK" ]; then
	run_pair_exact dpdk "$RX_DPDK" \
		"$RX --vdev-kind af_packet --rx-desc 16384 --gpu sim --count 20000" \
		"$TX --count 20000 --rate 20000 --batch 8 --size 256"
	check_gpu dpdk 2 1 nic-dma
	check "dpdk: every mbuf's data lay inside the emulated device memory" \
		'.gpu_detail.mbufs_outside_device == 0 and
		 .gpu_detail.mbufs_in_device == .gpu_detail.packets_checked and
		 .gpu_detail.packets.nic_dma == .gpu_detail.packets_checked' \
		"$TMP/dpdk.json" '.gpu_detail'
	check "dpdk: the DPDK steps ran (extmem, pool on it, RX queue)" \
		'.gpu_detail.dpdk_steps.rte_extmem_register == "ok" and
		 .gpu_detail.dpdk_steps.rte_pktmbuf_pool_create_extbuf == "ok" and
		 .gpu_detail.dpdk_steps.rte_eth_rx_queue_setup == "ok"' \
		"$TMP/dpdk.json" '.gpu_detail.dpdk_steps'
	check "dpdk: the row says the PMD's CPU copy stood in for the DMA" \
		'(.copies_note | test("CPU copy standing in")) and
		 (.copies_note | test("no CPU copy") | not)' "$TMP/dpdk.json" \
		'.copies_note'
	echo "   dpdk steps: $(jq -c '.gpu_detail.dpdk_steps' "$TMP/dpdk.json")"
	ns_exec rx "$RX_DPDK" --iface "$PL_RX_IF" --vdev-kind af_packet \
		--gpu cuda --duration 0.1 --quiet >"$TMP/dpdk-cuda.out" 2>&1
	rc=$?
	if [ $rc -eq 77 ] && grep -q 'DMA' "$TMP/dpdk-cuda.out"; then
		ok "dpdk cuda on af_packet: refused (skip), the PMD copies with the CPU"
	else
		bad "dpdk cuda on af_packet: exit $rc: $(cat "$TMP/dpdk-cuda.out")"
	fi
	ns_exec rx "$RX_DPDK" --iface "$PL_RX_IF" --vdev-kind af_xdp \
		--gpu sim --duration 0.1 --quiet >"$TMP/dpdk-afxdp.out" 2>&1
	rc=$?
	if [ $rc -eq 77 ] && grep -q 'UMEM' "$TMP/dpdk-afxdp.out"; then
		ok "dpdk sim on af_xdp: refused (skip): its UMEM is the pool's memory"
	else
		bad "dpdk sim on af_xdp: exit $rc: $(cat "$TMP/dpdk-afxdp.out")"
	fi
else
	echo "skip: $RX_DPDK not built"
fi

# 4. Corrupted payloads: on the wire here, caught in device memory.
run_pair bad "$BUILD/kernel-stack/pathlab-rx-socket" \
	"$RX --gpu sim --rcvbuf 8388608 --count 10000" \
	"$TX --count 10000 --rate 20000 --batch 4 --tx packet --bad-every 10"
check "corrupted: the consumer caught each bad payload that reached it" \
	'.gpu_bad == (.gen.bad_sent_by_reason | .hdr_trunc + .magic + .version + .check) and
	 .gpu_bad > 0 and .gpu_detail.bad_by_reason.check == .gen.bad_sent_by_reason.check and
	 .gpu_verified == .received and .received == 10000' "$TMP/bad.json" \
	'{gpu_bad, bad: .gpu_detail.bad_by_reason, sent_bad: .gen.bad_sent_by_reason}'

# 5. The trace: per datagram the call, the copy, the DMA, the check.
run_pair trace "$BUILD/kernel-stack/pathlab-rx-socket" \
	"$RX --gpu sim --count 500 --trace 20 --trace-file $TMP/trace.txt" \
	"$TX --count 500 --rate 2000 --batch 2 --size 128"
tr=$TMP/trace.txt
if [ "$(grep -c '^\[pkt.*gpu  *dma' "$tr")" -eq 20 ] &&
	[ "$(grep -c '^\[pkt.*gpu  *check.*reason=0 ' "$tr")" -eq 20 ] &&
	[ "$(grep -c 'copy skb' "$tr")" -eq 20 ]; then
	ok "trace: 20 datagrams, each copied, DMAed and checked on the GPU"
else
	bad "trace: $(grep -c '^\[pkt' "$tr") steps: $(head -c 800 "$tr")"
fi
check "trace: the traced run received everything" \
	'.received == 500 and .gpu_verified == 500' "$TMP/trace.json"

# check_gpu_trace NAME GPU-STEP: a traced GPU run of 200 datagrams, --trace
# 10: the GPU step, then the consumer's check, for packets 1..10 in order,
# sequence numbers 0..9, every verdict ok; the run verified all it received.
check_gpu_trace() {
	local tr=$TMP/$1.txt res
	res=$(awk -v step="$2" '
		/^\[pkt/ {
			u = $2 + 0; sub(/\]$/, "", u)
			if (index($0, step)) { ng++; gl[u] = NR; if (u != ng) bad = 1 }
			if (index($0, "consumer checks the packet")) {
				nc++
				if (u != nc || !gl[u] || gl[u] > NR) bad = 1
				if (!index($0, "packet: ok") || !index($0, " seq=" nc - 1 " ")) bad = 1
			}
		}
		END { print (ng == 10 && nc == 10 && !bad) ? "ok" : "bad " ng " " nc }' "$tr")
	if [ "$res" = ok ]; then
		ok "$1: 10 datagrams: \"$2\", then the consumer: seq 0..9, ok"
	else
		bad "$1: $res: $(grep -E "$2|consumer checks" "$tr" | head -c 1200)"
	fi
	check "$1: the traced run verified what it received" \
		'.received == 200 and .gpu_verified == .received and .gpu_bad == 0' \
		"$TMP/$1.json" '{received, gpu_verified, gpu_bad}'
}

# 5b. The traced GPU loops of AF_XDP (mapped, copy) and DPDK.
TRACE_TX="$TX --count 200 --rate 2000 --batch 2 --size 128"
if [ -x "$RX_XSK" ]; then
	run_pair xsk-mapped-trace "$RX_XSK" "$RX --gpu sim --count 200 \
		--trace 10 --trace-file $TMP/xsk-mapped-trace.txt" "$TRACE_TX"
	check_gpu_trace xsk-mapped-trace \
		"GPU reads the frame in the UMEM across PCIe"
	run_pair xsk-copy-trace "$RX_XSK" "$RX --gpu sim --gpu-mode copy \
		--count 200 --trace 10 --trace-file $TMP/xsk-copy-trace.txt" \
		"$TRACE_TX"
	check_gpu_trace xsk-copy-trace "copy frame to device memory"
fi
if [ -x "$RX_DPDK" ]; then
	run_pair dpdk-trace "$RX_DPDK" "$RX --vdev-kind af_packet --gpu sim \
		--count 200 --trace 10 --trace-file $TMP/dpdk-trace.txt" \
		"$TRACE_TX"
	check_gpu_trace dpdk-trace "PMD writes the payload into device memory"
	check "dpdk-trace: every mbuf's data inside the device memory" \
		'.gpu_detail.mbufs_outside_device == 0' "$TMP/dpdk-trace.json"
fi

# 6. --gpu cuda where there is no GPU: a skip with the reason.
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
	ns_exec rx "$BUILD/kernel-stack/pathlab-rx-socket" --gpu cuda \
		--duration 0.1 --quiet >"$TMP/cuda.out" 2>&1
	rc=$?
	if [ $rc -eq 77 ] && grep -q -- '--gpu cuda:' "$TMP/cuda.out"; then
		ok "no GPU: --gpu cuda skips (77): $(cat "$TMP/cuda.out")"
	else
		bad "no GPU: --gpu cuda exit $rc: $(cat "$TMP/cuda.out")"
	fi
fi

# 7. labs/gpu-check.sh's runs, on the stand-in driver (the consumer on the
# CPU behind the CUDA driver API) and a stand-in GPU check program.
FAKE=$TMP/driver
if [ -e "$BUILD/tests/unit/fakecuda/libpathlab-fakecuda.so" ] && [ -x "$RX_XSK" ]; then
	mkdir "$FAKE"
	ln -s "$BUILD/tests/unit/fakecuda/libpathlab-fakecuda.so" "$FAKE/libcuda.so.1"
	fb=$TMP/gpu-check-build
	mkdir -p "$fb/common" "$fb/kernel-stack" "$fb/af-xdp" "$fb/tests/unit" \
		"$fb/gpudirect"
	for f in common/pathlab-gen kernel-stack/pathlab-rx-socket \
		af-xdp/pathlab-rx-xsk tests/unit/test-gpu-consumer \
		gpudirect/libpathlab-gpu-cuda.so; do
		ln -s "$BUILD/$f" "$fb/$f"
	done
	printf '#!/bin/sh\necho "check device    ok  name=stand-in"\n' \
		>"$fb/gpudirect/pathlab-gpu-check"
	chmod +x "$fb/gpudirect/pathlab-gpu-check"
	LD_LIBRARY_PATH=$FAKE "$REPO/labs/gpu-check.sh" --no-build \
		--build-dir "$fb" --count 2000 >"$TMP/gpu-check.out" 2>&1
	rc=$?
	n=0
	for run in "afxdp mapped \(veth\)" "afxdp copy \(veth\)" "socket bounce \(lo\)"; do
		grep -Eq "^  $run +RAN on a GPU: pathlab fake CUDA driver .* verified ([0-9]+) of \1 payloads" \
			"$TMP/gpu-check.out" && n=$((n + 1))
	done
	if [ $rc -eq 0 ] && [ $n -eq 3 ] &&
		grep -Eq "^  afxdp mapped \(veth\) +mapped +veth-napi +[0-9]+/2000 +[0-9]+ +1 +1 " "$TMP/gpu-check.out" &&
		grep -Eq "^  afxdp copy \(veth\) +copy +veth-napi +[0-9]+/2000 +[0-9]+ +2 +1 " "$TMP/gpu-check.out"; then
		ok "gpu-check.sh on the stand-in driver: afxdp mapped, copy and the socket verified, their rows"
	else
		bad "gpu-check.sh on the stand-in driver: exit $rc, $n of 3 runs: $(sed -n '/== Verdicts/,$p' "$TMP/gpu-check.out")"
	fi
else
	echo "skip: no stand-in CUDA driver or no AF_XDP receiver built"
fi

netns_finish
