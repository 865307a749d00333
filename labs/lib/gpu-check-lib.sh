# shellcheck shell=bash source-path=SCRIPTDIR
# gpu-check-lib.sh - what labs/gpu-check.sh does: the machine, the build,
# the verdicts and the figures (the runs are in gpu-check-runs.sh). Needs
# ROOT, B (build directory), OUT, GPU_PCI, COUNT.

VERDICT_NAME=()
VERDICT_TEXT=()
NRAN=0
NFAIL=0
NO_GPU=
FAILED_BUILD=0
ROWS=()

# Record a verdict: ran|could|failed NAME TEXT.
verdict() {
	case $1 in
	ran) NRAN=$((NRAN + 1)); VERDICT_TEXT+=("RAN on a GPU: $3") ;;
	could) VERDICT_TEXT+=("COULD NOT: $3") ;;
	failed) NFAIL=$((NFAIL + 1)); VERDICT_TEXT+=("FAILED: $3") ;;
	esac
	VERDICT_NAME+=("$2")
	echo "  -> $2: ${VERDICT_TEXT[-1]}"
}

# Print the value at dotted PATH of a run's JSON (as our writer indents it:
# two spaces a level, one key a line); nothing when it is not there.
jget() {
	awk -v p="$2" '
		match($0, /^ *"[^"]*": /) {
			d = (index($0, "\"") - 1) / 2
			k = substr($0, d * 2 + 2)
			sub(/".*/, "", k)
			key[d] = k
			path = key[1]
			for (i = 2; i <= d; i++)
				path = path "." key[i]
			if (path == p) {
				v = $0
				sub(/^ *"[^"]*": /, "", v)
				sub(/,$/, "", v)
				gsub(/^"|"$/, "", v)
				print v
				exit
			}
		}' "$1" 2>/dev/null
}

# The NVIDIA GPUs on PCI (vendor 0x10de, display or 3D controller).
pci_gpus() {
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor" 2>/dev/null)" = 0x10de ] || continue
		[[ $(cat "$d/class" 2>/dev/null) == 0x03* ]] && echo "${d##*/}"
	done
}

# nvcc: on PATH, or where the toolkit installs it.
find_nvcc() {
	local n
	for n in "$(command -v nvcc)" /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
		[ -x "$n" ] && { echo "$n"; return 0; }
	done
	return 1
}

# Say what this machine has for the GPU variants.
machine() {
	local g rd v
	echo "== This machine"
	GPUS=$(pci_gpus | paste -sd' ' -)
	echo "  NVIDIA GPUs on PCI: ${GPUS:-none}"
	for g in $GPUS; do
		echo "    $g: NUMA node $(cat "/sys/bus/pci/devices/$g/numa_node" 2>/dev/null)," \
			"device $(cat "/sys/bus/pci/devices/$g/device" 2>/dev/null)"
	done
	v=$(sed -n 's/.*Kernel Module[^0-9]*\([0-9][0-9.]*\).*/\1/p' /proc/driver/nvidia/version 2>/dev/null)
	echo "  NVIDIA driver: ${v:-not loaded (/proc/driver/nvidia/version)}"
	NVCC=$(find_nvcc) || NVCC=
	echo "  nvcc: ${NVCC:-none}${NVCC:+ ($("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p'))}"
	if [ -d /sys/module/nvidia_peermem ]; then
		echo "  nvidia-peermem: loaded"
	else
		echo "  nvidia-peermem: not loaded"
	fi
	RDMA_DEVS=
	for rd in /sys/class/infiniband/*; do
		[ -e "$rd" ] && RDMA_DEVS+="${rd##*/} "
	done
	echo "  RDMA devices: ${RDMA_DEVS:-none}"
	echo "  root: $([ "$(id -u)" -eq 0 ] && echo yes || echo "no (the veth lab runs need it)")"
}

# The compute capabilities to build SASS for: 80, 90 and this GPU's.
gpu_archs() {
	local cc
	cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
		head -n1 | tr -d '. ')
	printf '%s\n' 80 90 "$cc" | grep -E '^[0-9]+$' | sort -un | paste -sd' ' -
}

# Build with meson (every path whose libraries are there) or gcc and nvcc.
build() {
	echo "== Build into $B"
	[ -n "$NVCC" ] || { echo "  no nvcc: the CUDA toolkit is needed"; return 1; }
	PATH=$PATH:$(dirname "$NVCC")
	if [ -f "$B/build.ninja" ]; then
		echo "  a meson build is there: ninja -C $B"
		ninja -C "$B" >"$OUT/build.log" 2>&1 || { tail -n 20 "$OUT/build.log"; return 1; }
	elif [ "${PATHLAB_GPU_CHECK_BUILD:-}" != gcc ] && command -v meson >/dev/null &&
		command -v ninja >/dev/null; then
		echo "  meson setup -Dcuda=enabled -Dgpu_arch=$(gpu_archs | tr ' ' ,)"
		if meson setup "$B" "$ROOT" -Dcuda=enabled \
			"-Dgpu_arch=$(gpu_archs | tr ' ' ,)" >"$OUT/build.log" 2>&1 &&
			ninja -C "$B" >>"$OUT/build.log" 2>&1; then
			sed -n '/Paths/,/^$/p' "$OUT/build.log" | sed 's/^/  /'
			built_list
			return
		fi
		tail -n 10 "$OUT/build.log" | sed 's/^/  meson: /'
		B=$B/gcc
		echo "  the meson build failed: gcc and nvcc build into $B instead"
	else
		echo "  gcc and nvcc alone (no meson and ninja here, or" \
			"PATHLAB_GPU_CHECK_BUILD=gcc): the socket path and the GPU parts"
	fi
	# shellcheck source=gpu-check-gcc.sh
	. "$ROOT/labs/lib/gpu-check-gcc.sh"
	build_gcc >"$OUT/build-gcc.log" 2>&1 || { tail -n 20 "$OUT/build-gcc.log"; return 1; }
	built_list
}

# Name what was built, and for each path not built, why.
built_list() {
	local f what
	for f in gpudirect/libpathlab-gpu-cuda.so gpudirect/pathlab-gpu-check \
		tests/unit/test-gpu-consumer common/pathlab-gen \
		kernel-stack/pathlab-rx-socket af-xdp/pathlab-rx-xsk \
		dpdk/pathlab-rx-dpdk rdma/pathlab-rx-verbs rdma/pathlab-tx-verbs; do
		if [ -e "$B/$f" ]; then
			echo "  built: ${f##*/}"
		else
			case $f in
			af-xdp/*) what="libbpf, libxdp, clang and bpftool" ;;
			dpdk/*) what="DPDK (libdpdk)" ;;
			rdma/*) what="rdma-core (libibverbs, librdmacm)" ;;
			*) what="" ;;
			esac
			[ -n "$what" ] || { echo "  MISSING: $f"; return 1; }
			if [ -f "$B/build.ninja" ]; then
				echo "  not built: ${f##*/}: meson found no $what here"
			else
				echo "  not built: ${f##*/}: it needs meson and $what"
			fi
		fi
	done
}

# Keep a run's figures as one row of the table summary() prints.
row() {
	local j=$2
	ROWS+=("$(printf '%-22s %-7s %-9s %6s/%-6s %8s %6s %9s %8s %9s %8s %6s' \
		"$1" "$(jget "$j" gpu_detail.variant)" "$(jget "$j" env | cut -c1-9)" \
		"$(jget "$j" received)" "$(jget "$j" sent)" "$(jget "$j" gpu_verified)" \
		"$(jget "$j" copies_per_packet)" "$(jget "$j" pcie_crossings_per_packet)" \
		"$(awk -v v="$(jget "$j" pps)" 'BEGIN { printf "%.1f", v / 1000 }')" \
		"$(awk -v a="$(jget "$j" latency_ns.p50)" -v b="$(jget "$j" latency_ns.p99)" \
			'BEGIN { printf "%.0f/%.0f", a / 1000, b / 1000 }')" \
		"$(jget "$j" gpu_detail.consumer_launches)" \
		"$(awk -v v="$(jget "$j" gpu_detail.packets_per_launch)" 'BEGIN { printf "%.1f", v }')")")
}

# The verdict on a --gpu cuda run's JSON: every payload verified on a GPU.
judge() {
	local name=$1 j=$2 rc=$3 err=$4 rec ver dev
	rec=$(jget "$j" received) ver=$(jget "$j" gpu_verified)
	dev="$(jget "$j" gpu_detail.device) at $(jget "$j" gpu_detail.pci)"
	if [ "$rc" -eq 77 ]; then
		verdict could "$name" "$(tail -n1 "$err")"
	elif [ "$rc" -ne 0 ] || [ ! -s "$j" ]; then
		verdict failed "$name" "exit $rc: $(tail -n2 "$err" | paste -sd' ' -)"
	elif [ "$(jget "$j" gpu)" != cuda ] || [ "${rec:-0}" -eq 0 ]; then
		verdict failed "$name" "no payload reached the GPU (received ${rec:-?})"
	elif [ "$ver" != "$rec" ] || [ "$(jget "$j" gpu_bad)" != 0 ]; then
		verdict failed "$name" "$dev verified $ver of $rec payloads, $(jget "$j" gpu_bad) bad"
	else
		verdict ran "$name" "$dev verified $ver of $rec payloads ($(jget "$j" gpu_detail.selected))"
		row "$name" "$j"
	fi
}

# The verdicts, and the figures of the runs that ran on a GPU.
summary() {
	local i
	[ ${#VERDICT_NAME[@]} -gt 0 ] || return 0
	echo "== Verdicts"
	for i in "${!VERDICT_NAME[@]}"; do
		printf '  %-22s %s\n' "${VERDICT_NAME[i]}" "${VERDICT_TEXT[i]}"
	done
	[ ${#ROWS[@]} -gt 0 ] || return 0
	echo "== Figures of the runs on the GPU (--gpu cuda: copies and crossings by design)"
	printf '  %-22s %-7s %-9s %13s %8s %6s %9s %8s %9s %8s %6s\n' run variant env \
		received/sent verified copies crossings kpps 'p50/p99us' launches '/launch'
	printf '  %s\n' "${ROWS[@]}"
}

# Exit as the header says.
finish() {
	if [ "$FAILED_BUILD" -ne 0 ] || [ "$NFAIL" -gt 0 ]; then
		echo "gpu-check: FAILED"
		exit 1
	fi
	if [ -n "$NO_GPU" ]; then
		echo "gpu-check: no GPU on this machine: nothing ran on one (exit 77)"
		exit 77
	fi
	echo "gpu-check: $NRAN path(s) ran on the GPU and verified their payloads"
	exit 0
}

# shellcheck source=gpu-check-runs.sh
. "$ROOT/labs/lib/gpu-check-runs.sh"
