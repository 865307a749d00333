# shellcheck shell=bash source-path=SCRIPTDIR
# gpu-check-runs.sh - labs/gpu-check.sh's runs, each ending in a verdict
# (gpu-check-lib.sh). Every receiver runs with --gpu cuda, bounded in
# time; the lab's namespaces, if made, go at exit (gpu_check_cleanup).

LAB_UP=

# The GPU check program: the GPU itself, before any path.
run_gpu_check() {
	local rc
	echo "== The GPU check: pathlab-gpu-check ${GPU_PCI:+--pci $GPU_PCI}"
	# shellcheck disable=SC2086 # the option and its value, or nothing
	timeout 120 "$B/gpudirect/pathlab-gpu-check" ${GPU_PCI:+--pci $GPU_PCI} \
		>"$OUT/gpu-check.txt" 2>&1
	rc=$?
	sed 's/^/  /' "$OUT/gpu-check.txt"
	case $rc in
	0) verdict ran gpu-check "$(grep -c '^check .* ok' "$OUT/gpu-check.txt") checks ok: $(sed -n 's/^check device *ok *//p' "$OUT/gpu-check.txt" | cut -c1-90)" ;;
	77)
		NO_GPU=1
		verdict could gpu-check "no GPU on this machine: $(head -n1 "$OUT/gpu-check.txt" | sed 's/^check device *skipped *//')"
		;;
	*) verdict failed gpu-check "exit $rc: $(grep -E 'FAILED' "$OUT/gpu-check.txt" | head -n3 | paste -sd' ' -)" ;;
	esac
}

# False, with its verdict, when there is no GPU to run NAME on.
have_gpu() {
	[ -z "$NO_GPU" ] && return 0
	verdict could "$1" "no GPU on this machine"
	return 1
}

# The interface test on the GPU, and the kernel against the emulated GPU.
run_consumer() {
	local rc line
	echo "== The consumer: test-gpu-consumer cuda"
	have_gpu consumer || return 0
	timeout 120 "$B/tests/unit/test-gpu-consumer" cuda >"$OUT/consumer.txt" 2>&1
	rc=$?
	sed 's/^/  /' "$OUT/consumer.txt"
	line=$(grep '^consumer on' "$OUT/consumer.txt")
	case $rc in
	0) verdict ran consumer "the interface test passed; ${line#consumer on }" ;;
	77) verdict could consumer "$(tail -n1 "$OUT/consumer.txt")" ;;
	*) verdict failed consumer "exit $rc: $(grep -v '^consumer on' "$OUT/consumer.txt" | tail -n3 | paste -sd' ' -)" ;;
	esac
}

# Wait (5 s at most) for FILE to appear while process PID lives.
wait_ready() {
	local i
	for ((i = 0; i < 500; i++)); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# The bounce buffer over loopback: any user, no lab needed.
run_socket() {
	local name="socket bounce (lo)" port=$((40000 + $$ % 20000)) pid rc
	echo "== $name"
	have_gpu "$name" || return 0
	# shellcheck disable=SC2086
	timeout 90 "$B/kernel-stack/pathlab-rx-socket" --gpu cuda \
		${GPU_PCI:+--gpu-pci $GPU_PCI} --bind 127.0.0.1 --port "$port" \
		--iface lo --rcvbuf 8388608 --count "$COUNT" --idle-timeout 3000 \
		--duration 60 --env loopback --json "$OUT/socket.json" \
		--ready "$OUT/socket.ready" --quiet 2>"$OUT/socket.err" &
	pid=$!
	wait_ready "$OUT/socket.ready" "$pid" &&
		"$B/common/pathlab-gen" --dst 127.0.0.1 --port "$port" \
			--src-port $((port + 1)) --count "$COUNT" --rate 20000 \
			--size 512 --quiet
	wait "$pid"
	rc=$?
	judge "$name" "$OUT/socket.json" "$rc" "$OUT/socket.err"
}

# Undo the lab, if this check made one.
gpu_check_cleanup() {
	[ -n "$LAB_UP" ] && topo_down >/dev/null 2>&1
	LAB_UP=
}

# Bring up a lab of our own (prefix plgpuPID); false, with why, if not.
lab_up() {
	[ -n "$LAB_UP" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		LAB_WHY="the veth lab needs root"
		return 1
	fi
	export PATHLAB_PREFIX=plgpu$$
	# shellcheck source=topo.sh
	. "$ROOT/labs/lib/topo.sh"
	if ! topo_up >"$OUT/lab.log" 2>&1; then
		LAB_WHY="the veth lab did not come up: $(tail -n1 "$OUT/lab.log")"
		return 1
	fi
	LAB_UP=1
}

# lab_run NAME TAG BIN ARGS: a --gpu cuda receiver in the lab, fed by
# pathlab-gen from the other namespace.
lab_run() {
	local name=$1 tag=$2 bin=$3 args=$4 pid rc
	# shellcheck disable=SC2086
	ns_spawn pid rx timeout 90 "$bin" --iface "$PL_RX_IF" --cpu 1 \
		--idle-timeout 3000 --count "$COUNT" --gpu cuda \
		${GPU_PCI:+--gpu-pci $GPU_PCI} $args --ready "$OUT/$tag.ready" \
		--json "$OUT/$tag.json" --quiet 2>"$OUT/$tag.err"
	wait_ready "$OUT/$tag.ready" "$pid" &&
		ns_exec tx "$B/common/pathlab-gen" --dst "$PL_RX_ADDR" \
			--iface "$PL_TX_IF" --cpu 0 --count "$COUNT" --rate 20000 \
			--batch 8 --size 512 --quiet >/dev/null 2>&1
	wait "$pid"
	rc=$?
	judge "$name" "$OUT/$tag.json" "$rc" "$OUT/$tag.err"
}

# AF_XDP over the lab's veth: the UMEM read in place, then copied.
run_afxdp() {
	local bin=$B/af-xdp/pathlab-rx-xsk mode
	echo "== afxdp over veth (UMEM mapped, and copied)"
	have_gpu afxdp || return 0
	if [ ! -x "$bin" ]; then
		verdict could afxdp "not built (it needs libbpf, libxdp, clang, bpftool and meson)"
		return 0
	fi
	lab_up || { verdict could afxdp "$LAB_WHY"; return 0; }
	for mode in mapped copy; do
		lab_run "afxdp $mode (veth)" "afxdp-$mode" "$bin" "--gpu-mode $mode"
	done
}

# DPDK on a NIC whose PMD DMAs into GPU memory: only with --pci.
run_dpdk() {
	local bin=$B/dpdk/pathlab-rx-dpdk name="dpdk nic-dma" rc
	echo "== $name${PCI:+ on $PCI}"
	have_gpu "$name" || return 0
	if [ ! -x "$bin" ]; then
		verdict could "$name" "not built (it needs DPDK and meson)"
		return 0
	elif [ -z "$PCI" ]; then
		verdict could "$name" "needs --pci ADDR of a NIC whose PMD DMAs (mlx5) and packets from another machine; the lab's vdevs copy with the CPU, which cannot write GPU memory"
		return 0
	fi
	# shellcheck disable=SC2086
	timeout 90 "$bin" --pci "$PCI" --gpu cuda ${GPU_PCI:+--gpu-pci $GPU_PCI} \
		--duration 10 --json "$OUT/dpdk.json" --quiet >"$OUT/dpdk.err" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(jget "$OUT/dpdk.json" received)" = 0 ]; then
		verdict could "$name" "the five steps ran ($(grep -o '"rte_[a-z_]*": "[^"]*"' "$OUT/dpdk.json" | paste -sd' ' -)), but no packet arrived in 10 s: send to $PCI from another machine"
		return 0
	fi
	judge "$name" "$OUT/dpdk.json" "$rc" "$OUT/dpdk.err"
}

# An RDMA device that DMAs (not rxe or siw) and an IPv4 address of its
# link: "DEVICE ADDR", or nothing.
verbs_device() {
	local d n a
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		case ${d##*/} in rxe* | siw*) continue ;; esac
		for n in "$d"/device/net/*; do
			a=$(ip -4 -o addr show dev "${n##*/}" 2>/dev/null |
				awk '{ sub(/\/.*/, "", $4); print $4; exit }')
			[ -n "$a" ] && { echo "${d##*/} $a"; return 0; }
		done
	done
	return 1
}

# Verbs RC into GPU memory, over one RDMA NIC to itself.
run_verbs() {
	local name="verbs nic-dma" dev addr pid rc
	echo "== $name"
	have_gpu "$name" || return 0
	if [ ! -x "$B/rdma/pathlab-rx-verbs" ]; then
		verdict could "$name" "not built (it needs rdma-core and meson)"
		return 0
	fi
	if ! read -r dev addr < <(verbs_device); then
		verdict could "$name" "no RDMA NIC that DMAs, with an IPv4 address (RDMA devices: ${RDMA_DEVS:-none}; rxe and siw copy with the CPU and cannot reach GPU memory)"
		return 0
	fi
	# shellcheck disable=SC2086
	timeout 90 "$B/rdma/pathlab-rx-verbs" --device "$dev" --mode rc \
		--gpu cuda ${GPU_PCI:+--gpu-pci $GPU_PCI} --count "$COUNT" \
		--timeout 20000 --json "$OUT/verbs.json" --ready "$OUT/verbs.ready" \
		--quiet 2>"$OUT/verbs.err" &
	pid=$!
	wait_ready "$OUT/verbs.ready" "$pid" &&
		timeout 60 "$B/rdma/pathlab-tx-verbs" --device "$dev" --dst "$addr" \
			--mode rc --count "$COUNT" --payload 1024 --quiet \
			>>"$OUT/verbs.err" 2>&1
	wait "$pid"
	rc=$?
	judge "$name ($dev)" "$OUT/verbs.json" "$rc" "$OUT/verbs.err"
}
