#!/bin/sh
# labs/gpu-check.sh without a GPU machine: its build with gcc and nvcc
# alone (what a GPU machine without meson gets) makes the socket receiver,
# the generator, the interface test, the cuda backend and the GPU check,
# and says which paths it could not build and why; the things it built
# work (the interface test on the emulated GPU). Run as it is, it says
# there is no GPU and exits 77 (0 on a machine with one). Then with the
# stand-in driver (tests/unit/fakecuda) and a stand-in GPU check, its
# runs, verdicts and figures: the consumer against the emulated GPU, the
# socket path over loopback verified, the paths it did not build "COULD
# NOT" with the reason. About 30 s, most of it the gcc build.
# $1 the repository, $2 the stand-in driver (libpathlab-fakecuda.so).
set -u
repo=$1
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/driver"
ln -s "$2" "$tmp/driver/libcuda.so.1"
fake=$tmp/driver

ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
# has NAME PATTERN: the last output holds the line PATTERN (a grep -E).
has() {
	if grep -Eq -- "$2" "$tmp/out"; then ok "$1"; else bad "$1: no \"$2\""; fi
}

PATHLAB_GPU_CHECK_BUILD=gcc "$repo/labs/gpu-check.sh" --build-only \
	--build-dir "$tmp/b" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "gcc build: exit 0" || bad "gcc build: exit $rc: $(tail -n 20 "$tmp/out")"
for f in libpathlab-gpu-cuda.so pathlab-gpu-check test-gpu-consumer \
	pathlab-gen pathlab-rx-socket; do
	has "built: $f" "^  built: $f$"
done
has "afxdp: not built, and why" "not built: pathlab-rx-xsk: it needs meson and libbpf"
has "verbs: not built, and why" "not built: pathlab-rx-verbs: it needs meson and rdma-core"
"$tmp/b/tests/unit/test-gpu-consumer" sim >"$tmp/out" 2>&1 &&
	ok "the gcc-built interface test passes on the emulated GPU" ||
	bad "gcc-built test-gpu-consumer sim: $(tail -n 5 "$tmp/out")"

"$repo/labs/gpu-check.sh" --no-build --build-dir "$tmp/b" --count 2000 \
	>"$tmp/out" 2>&1
rc=$?
if cat /sys/bus/pci/devices/*/vendor 2>/dev/null | grep -q 0x10de; then
	[ $rc -eq 0 ] && ok "a GPU machine: exit 0" || bad "a GPU machine: exit $rc: $(tail -n 20 "$tmp/out")"
else
	[ $rc -eq 77 ] && ok "no GPU: exit 77" || bad "no GPU: exit $rc: $(tail -n 20 "$tmp/out")"
	has "no GPU: said by the GPU check" "gpu-check +COULD NOT: no GPU on this machine"
	has "no GPU: said for the socket path" "socket bounce \(lo\) +COULD NOT: no GPU on this machine"
fi

# The runs, on the stand-in driver and a stand-in GPU check.
printf '#!/bin/sh\necho "check device    ok  name=\\"stand-in\\""\n' \
	>"$tmp/b/gpudirect/pathlab-gpu-check"
LD_LIBRARY_PATH="$fake" "$repo/labs/gpu-check.sh" --no-build \
	--build-dir "$tmp/b" --count 2000 >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "stand-in driver: exit 0" || bad "stand-in driver: exit $rc: $(tail -n 20 "$tmp/out")"
has "consumer: against the emulated GPU" "consumer +RAN on a GPU: the interface test passed; pathlab fake CUDA driver .*: 2048 verdicts as the emulated GPU's .* 0 differ"
has "socket: every payload verified" "socket bounce \(lo\) +RAN on a GPU: pathlab fake CUDA driver .* verified ([0-9]+) of \1 payloads"
has "socket: its figures" "^  socket bounce \(lo\) +bounce +loopback +[0-9]+/2000 .* 2 +1 "
has "afxdp: could not, not built" "afxdp +COULD NOT: not built"
has "dpdk: could not, not built" "dpdk nic-dma +COULD NOT: not built"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
