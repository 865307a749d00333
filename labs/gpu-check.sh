#!/usr/bin/env bash
# gpu-check.sh - on a machine with an NVIDIA GPU: where the GPU and the NICs
# sit, what the GPUDirect variants can use (nvidia-peermem, dma-buf), the
# GPU check (gpudirect/gpu_check.cu), the unit test on the real GPU, and
# each GPU variant this hardware allows, saying which ran for real.
#
#   labs/gpu-check.sh [--pci ADDR] [--count N]
#
#   --pci ADDR  a PCI NIC whose PMD DMAs (mlx5): also set up the DPDK
#               variant on it with --gpu cuda (traffic must come from
#               another machine; without it only the setup is checked)
#   --count N   datagrams per lab run (default 20000)
#
# The lab runs (socket, AF_XDP mapped and copy) need root and build their
# own two-namespace veth lab (prefix plgpuchk-PID), torn down on exit.
# Without a GPU everything GPU-side is reported as skipped and the exit
# status is 77. Takes well under two minutes.
set -u

ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
BUILD=${PATHLAB_BUILD:-$ROOT/build}
PCI=
COUNT=20000
while [ $# -gt 0 ]; do
	case $1 in
	--pci) PCI=${2:?--pci needs an address}; shift ;;
	--count) COUNT=${2:?--count needs a number}; shift ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "gpu-check: unknown argument $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done

TMP=$(mktemp -d)
RAN=()
SKIPPED=()
FAILED=()

# Record a result: ran (for real), skipped (why) or failed (why).
ran() { RAN+=("$1"); echo "  RAN for real: $1"; }
skipped() { SKIPPED+=("$1: $2"); echo "  skipped: $1: $2"; }
failed() { FAILED+=("$1: $2"); echo "  FAILED: $1: $2"; }

# The NUMA node of PCI device $1, or "?".
numa_of() {
	cat "/sys/bus/pci/devices/$1/numa_node" 2>/dev/null || echo "?"
}

# Print where the GPUs and the NICs sit, and what registers GPU memory.
topology() {
	local id name bus dev ifn drv rdma r
	echo "== Topology"
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
		nvidia-smi topo -m 2>&1 | sed 's/^/  /'
		nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader |
			while IFS=', ' read -r id name; do
				bus=${name##* }
				name=${name%, *}
				dev=$(echo "${bus:4}" | tr 'A-F' 'a-f')
				echo "  GPU$id $name pci $dev numa_node $(numa_of "$dev")"
			done
	else
		echo "  nvidia-smi: no GPU answers (not installed, or no device)"
	fi
	for ifn in /sys/class/net/*; do
		[ -e "$ifn/device" ] || continue
		dev=$(readlink -f "$ifn/device")
		[[ ${dev##*/} == virtio* ]] && dev=${dev%/*} # one level down
		dev=${dev##*/}
		[[ $dev == *:*:*.* ]] || continue
		drv=$(basename "$(readlink -f "$ifn/device/driver")" 2>/dev/null)
		rdma=
		for r in "$ifn"/device/infiniband/*; do
			[ -e "$r" ] && rdma+="${r##*/} "
		done
		echo "  NIC ${ifn##*/} driver ${drv:-?} pci $dev numa_node" \
			"$(numa_of "$dev") rdma ${rdma:-none}"
	done
	echo "== Registration of GPU memory for a NIC"
	if [ -d /sys/module/nvidia_peermem ]; then
		echo "  nvidia-peermem: loaded (ibv_reg_mr on GPU memory works)"
	elif modinfo nvidia-peermem >/dev/null 2>&1; then
		echo "  nvidia-peermem: available, not loaded (modprobe nvidia-peermem)"
	else
		echo "  nvidia-peermem: not available"
	fi
	if ls /usr/lib/*/libibverbs.so.1 >/dev/null 2>&1 &&
		grep -q ibv_reg_dmabuf_mr /usr/lib/*/libibverbs.so.1 2>/dev/null; then
		echo "  libibverbs: has ibv_reg_dmabuf_mr (dma-buf registration)"
	else
		echo "  libibverbs: no ibv_reg_dmabuf_mr (rdma-core < 34, or absent)"
	fi
	echo "  GPU-side dma-buf export: see 'check dmabuf' below"
}

# Run the GPU check: the built one, or one built here with nvcc.
gpu_check() {
	local bin=$BUILD/gpudirect/pathlab-gpu-check nvcc rc
	echo "== GPU check (gpudirect/gpu_check.cu)"
	if [ ! -x "$bin" ]; then
		nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
		if [ -x "$nvcc" ] && "$nvcc" -O2 -I"$ROOT/common" -o "$TMP/gpu-check" \
			"$ROOT/gpudirect/gpu_check.cu" 2>"$TMP/nvcc.err"; then
			bin=$TMP/gpu-check
		else
			skipped "gpu check" "not built and no nvcc to build it"
			return
		fi
	fi
	timeout 120 "$bin" | tee "$TMP/check.txt" | sed 's/^/  /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0) ran "gpu check ($(grep -c '^check .* ok' "$TMP/check.txt") checks ok)" ;;
	77) skipped "gpu check" "no GPU: $(head -n1 "$TMP/check.txt")" ;;
	*) failed "gpu check" "exit $rc: $(grep FAILED "$TMP/check.txt" | head -n3)" ;;
	esac
}

# The interface and consumer test on the real GPU.
unit_test() {
	local bin=$BUILD/tests/unit/test-gpu-consumer rc
	echo "== Unit test: test-gpu-consumer cuda"
	[ -x "$bin" ] || { skipped "unit test" "$bin not built"; return; }
	timeout 60 "$bin" cuda >"$TMP/unit.txt" 2>&1
	rc=$?
	sed 's/^/  /' "$TMP/unit.txt"
	case $rc in
	0) ran "unit test on the GPU (interface, consumer, corruption caught)" ;;
	77) skipped "unit test" "$(head -n1 "$TMP/unit.txt")" ;;
	*) failed "unit test" "exit $rc" ;;
	esac
}

# lab_run NAME BIN ARGS: one --gpu cuda receiver fed by pathlab-gen.
lab_run() {
	local name=$1 bin=$2 args=$3 pid i rc
	rm -f "$TMP/$name".*
	# shellcheck disable=SC2086
	ns_spawn pid rx "$bin" --iface "$PL_RX_IF" --cpu 1 --idle-timeout 3000 \
		--count "$COUNT" --gpu cuda $args --ready "$TMP/$name.ready" \
		--json "$TMP/$name.json" --quiet 2>"$TMP/$name.err"
	for ((i = 0; i < 1000; i++)); do
		[ -e "$TMP/$name.ready" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	if [ -e "$TMP/$name.ready" ]; then
		ns_exec tx "$BUILD/common/pathlab-gen" --dst "$PL_RX_ADDR" \
			--iface "$PL_TX_IF" --cpu 0 --count "$COUNT" --rate 20000 \
			--batch 8 --size 256 --quiet >/dev/null 2>&1
	fi
	for ((i = 0; i < 1000; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if [ $rc -eq 77 ]; then
		skipped "$name" "$(tail -n1 "$TMP/$name.err")"
	elif [ $rc -ne 0 ] || [ ! -s "$TMP/$name.json" ]; then
		failed "$name" "exit $rc: $(tail -n2 "$TMP/$name.err")"
	elif jq -e '.gpu == "cuda" and .received > 0 and
		.gpu_verified == .received' "$TMP/$name.json" >/dev/null; then
		ran "$name: $(jq -c '{device: .gpu_detail.device, received,
			gpu_verified, copies_per_packet, pcie_crossings_per_packet,
			launches: .gpu_detail.consumer_launches,
			p50_us: (.latency_ns.p50 / 1000)}' "$TMP/$name.json")"
	else
		failed "$name" "$(jq -c '{received, gpu_verified, gpu_bad}' "$TMP/$name.json")"
	fi
}

# The variants over the lab's veth, and DPDK on a real NIC if given.
variants() {
	echo "== GPU variants (--gpu cuda)"
	if [ "$(id -u)" -ne 0 ]; then
		skipped "lab variants" "need root (network namespaces)"
		return
	fi
	if ! command -v jq >/dev/null; then
		skipped "lab variants" "need jq"
		return
	fi
	export PATHLAB_PREFIX=plgpuchk$$
	# shellcheck source=lib/topo.sh
	. "$ROOT/labs/lib/topo.sh"
	if ! topo_up >/dev/null; then
		failed "lab" "could not build the veth lab"
		return
	fi
	trap 'topo_down >/dev/null 2>&1; rm -rf "$TMP"' EXIT
	if [ -x "$BUILD/kernel-stack/pathlab-rx-socket" ]; then
		lab_run "socket (bounce buffer)" \
			"$BUILD/kernel-stack/pathlab-rx-socket" "--rcvbuf 8388608"
	else
		skipped "socket" "not built"
	fi
	if [ -x "$BUILD/af-xdp/pathlab-rx-xsk" ]; then
		lab_run "afxdp (UMEM mapped)" "$BUILD/af-xdp/pathlab-rx-xsk" \
			"--gpu-mode mapped"
		lab_run "afxdp (copy to device)" "$BUILD/af-xdp/pathlab-rx-xsk" \
			"--gpu-mode copy"
	else
		skipped "afxdp" "not built"
	fi
	if [ -z "$PCI" ]; then
		skipped "dpdk (NIC DMA into device memory)" \
			"needs --pci ADDR of a NIC whose PMD DMAs (mlx5); the lab's vdevs copy with the CPU"
	elif [ -x "$BUILD/dpdk/pathlab-rx-dpdk" ]; then
		timeout 60 "$BUILD/dpdk/pathlab-rx-dpdk" --pci "$PCI" --gpu cuda \
			--duration 5 --json "$TMP/dpdk.json" --quiet \
			>"$TMP/dpdk.err" 2>&1
		if [ -s "$TMP/dpdk.json" ]; then
			ran "dpdk on $PCI: the five steps: $(jq -c '.gpu_detail.dpdk_steps' "$TMP/dpdk.json"); received $(jq .received "$TMP/dpdk.json") in 5 s"
		else
			failed "dpdk on $PCI" "$(tail -n3 "$TMP/dpdk.err")"
		fi
	else
		skipped "dpdk" "not built"
	fi
}

trap 'rm -rf "$TMP"' EXIT
topology
gpu_check
unit_test
variants
echo "== Summary"
printf '  ran for real: %s\n' "${RAN[@]:-none}"
printf '  skipped:      %s\n' "${SKIPPED[@]:-none}"
printf '  failed:       %s\n' "${FAILED[@]:-none}"
[ ${#FAILED[@]} -eq 0 ] || exit 1
[ ${#RAN[@]} -gt 0 ] || exit 77
exit 0
