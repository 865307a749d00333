# shellcheck shell=bash source-path=SCRIPTDIR
# gpu-check-gcc.sh - labs/gpu-check.sh's build where there is no meson (a
# GPU machine with the driver and the CUDA toolkit only): gcc and nvcc
# build the socket receiver, the generator, the GPU interface test, the
# cuda backend and the GPU check, into the places meson would put them
# under B. The source lists are those of common/, kernel-stack/,
# gpudirect/ and tests/unit/'s meson.build files (a unit test builds
# this way too, so a list that falls behind fails there).

GCC_SRC_COMMON=(budget clock hist ifname json link mgmt nicclock napi opt out
	report run rtt rx stats sysctr trace wire)
GCC_SRC_GPU=(gpu gpu_consume gpu_sim gpu_report gpu_pci)
GCC_SRC_SOCKET=(rx_socket socket_setup report_socket reflect_socket
	hwstamp_socket trace_socket gpu_socket opts_socket)
GCC_SRC_GEN=(gen gen_udp gen_packet gen_pingpong)

# Compile SRC into OBJ with the project's flags (and EXTRA ones).
gcc_obj() {
	local src=$1 obj=$2
	shift 2
	gcc -std=gnu11 -O2 -g -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall \
		-Wextra -Wno-missing-field-initializers -pthread \
		-I"$ROOT/common" -I"$ROOT/gpudirect" "$@" -c -o "$obj" "$src"
}

# The toolkit's header folders (cuda.h) as -I options, as nvcc itself
# finds them: its dry run names them, wherever the toolkit lives (a
# symlinked /usr/local/cuda, a distribution's /usr, a wrapper on PATH),
# as gpudirect/meson.build asks it.
nvcc_includes() {
	"$NVCC" --dryrun -x cu -c -o /dev/null /dev/null 2>&1 |
		sed -n 's/^#\$ INCLUDES="\(.*\)" *$/\1/p' | head -n1 |
		grep -o -- '-I[^" ]*' | sort -u
}

# The cuda backend: the consumer's fatbin as C, then the module.
build_gcc_cuda() {
	local o=$B/gpudirect cuda gencode=() a archs inc
	cuda=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
	mapfile -t inc < <(nvcc_includes)
	[ ${#inc[@]} -gt 0 ] || {
		echo "nvcc's dry run names no header folder (cuda.h): is the toolkit whole?"
		return 1
	}
	archs=$(gpu_archs)
	for a in $archs; do
		gencode+=("-gencode=arch=compute_$a,code=sm_$a")
	done
	gencode+=("-gencode=arch=compute_${archs##* },code=compute_${archs##* }")
	"$NVCC" --fatbin "${gencode[@]}" -I"$ROOT/common" -I"$ROOT/gpudirect" \
		-o "$o/consumer.fatbin" "$ROOT/gpudirect/consumer.cu" || return 1
	"$cuda/bin/bin2c" --const --length --name pl_consumer_fatbin \
		"$o/consumer.fatbin" >"$o/consumer_fatbin.inc" || return 1
	gcc -std=gnu11 -O2 -g -D_GNU_SOURCE -Wall -Wextra -fPIC -shared \
		-I"$ROOT/common" -I"$ROOT/gpudirect" -I"$o" "${inc[@]}" \
		"-DPL_CUDA_ARCHS=\"${archs// /,}\"" \
		-o "$o/libpathlab-gpu-cuda.so" "$ROOT/gpudirect/gpu_cuda.c" \
		"$ROOT/gpudirect/gpu_cuda_mem.c" "$ROOT/gpudirect/cuda_drv.c" \
		"$ROOT/gpudirect/cuda_fatbin.c" -ldl || return 1
	"$NVCC" -O2 "${gencode[@]}" -I"$ROOT/common" -I"$ROOT/gpudirect" \
		-o "$o/pathlab-gpu-check" "$ROOT/gpudirect/gpu_check.cu"
}

# The C library parts (common/, gpudirect/'s interface) as objects in obj.
build_gcc_lib() {
	local obj=$1 f pids=() rc=0
	for f in "${GCC_SRC_COMMON[@]}"; do
		gcc_obj "$ROOT/common/$f.c" "$obj/$f.lib.o" & pids+=($!)
	done
	for f in "${GCC_SRC_GPU[@]}"; do
		gcc_obj "$ROOT/gpudirect/$f.c" "$obj/$f.lib.o" \
			"-DPL_GPU_BUILD_DIR=\"$B/gpudirect\"" \
			"-DPL_GPU_INSTALL_DIR=\"/usr/local/lib/pathlab\"" & pids+=($!)
	done
	for f in "${pids[@]}"; do
		wait "$f" || rc=1
	done
	return $rc
}

# Link PROG from the objects of sources SRC... (under DIR) and the library.
gcc_prog() {
	local prog=$1 dir=$2 obj=$B/gcc-obj f o objs=()
	shift 2
	for f in "$@"; do
		o=$obj/${dir//\//-}.$f.o
		gcc_obj "$ROOT/$dir/$f.c" "$o" -I"$ROOT/$dir" || return 1
		objs+=("$o")
	done
	gcc -pthread -o "$prog" "${objs[@]}" "$obj"/*.lib.o -lm -ldl
}

# Everything this build makes, in the places meson would put it.
build_gcc() {
	local obj=$B/gcc-obj
	mkdir -p "$B/gpudirect" "$B/common" "$B/kernel-stack" "$B/tests/unit" \
		"$obj" || return 1
	build_gcc_cuda || return 1
	build_gcc_lib "$obj" || return 1
	gcc_prog "$B/common/pathlab-gen" common "${GCC_SRC_GEN[@]}" &&
		gcc_prog "$B/kernel-stack/pathlab-rx-socket" kernel-stack \
			"${GCC_SRC_SOCKET[@]}" &&
		gcc_prog "$B/tests/unit/test-gpu-consumer" tests/unit \
			gpu_consumer gpu_vs_sim
}
