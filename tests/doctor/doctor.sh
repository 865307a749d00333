#!/usr/bin/env bash
# doctor.sh - tests for labs/doctor/doctor: it runs against each fake
# machine under fixtures/ (--sysroot) and the verdicts, warnings and facts
# must be the ones that machine calls for; then once on the real machine,
# where it must finish and print JSON with all six paths. Prints
# "N passed, M failed"; exit 0 if none failed, 77 if jq is missing.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DOCTOR=${DOCTOR:-$ROOT/labs/doctor/doctor}
FIX=$HERE/fixtures
pass=0 fail=0

command -v jq >/dev/null || { echo "SKIP: jq is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# check NAME FILE JQ-EXPRESSION-THAT-MUST-BE-TRUE (jq 1.6 -e passes an
# empty file, hence the -s test).
check() {
	if [ -s "$2" ] && jq -e "$3" "$2" >/dev/null 2>&1; then ok; else bad "$1: $3"; fi
}

# A Python with jsonschema, if there is one.
PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then PY=$p; break; fi
done

# True if FILE follows schema.json; prints the first errors.
schema_ok() {
	"$PY" -W ignore - "$ROOT/labs/doctor/schema.json" "$1" <<'PYEOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
for e in errors[:5]:
    print("  ", list(e.absolute_path), e.message[:160])
sys.exit(1 if errors else 0)
PYEOF
}

# valid NAME FILE: FILE follows schema.json (skipped without jsonschema).
valid() {
	[ -n "$PY" ] || return 0
	if schema_ok "$2"; then ok; else bad "$1: does not follow schema.json"; fi
}

# run SHAPE: the JSON and the text report of one fixture, and the checks
# every report must pass.
run() {
	local s=$1 j=$tmp/$1.json
	if "$DOCTOR" --sysroot "$FIX/$s" --json >"$j"; then ok; else bad "$s: --json exit status"; fi
	if "$DOCTOR" --sysroot "$FIX/$s" >"$tmp/$s.txt"; then ok; else bad "$s: text exit status"; fi
	common "$s" "$j" "$tmp/$s.txt"
}

# The checks every report passes, fixture or live.
common() {
	local s=$1 j=$2 t=$3 p
	check "$s parses" "$j" 'type == "object"'
	check "$s six paths" "$j" '.paths | keys == (["afxdp","dpdk","gpu","socket","verbs","xdp"])'
	check "$s verdicts" "$j" '[.paths[].verdict] | all(. == "ready" or . == "lab" or . == "unavailable")'
	check "$s every fact has a source" "$j" \
		'[.. | objects | select(has("value") and has("source")) | .source | select(type != "string" or length == 0)] == []'
	check "$s every reason has a source" "$j" '[.paths[].reasons[] | select((.source | length) == 0)] == []'
	check "$s every warning has a source" "$j" '[.warnings[] | select((.source | length) == 0)] == []'
	check "$s not-ready paths say why" "$j" '[.paths[] | select(.verdict != "ready") | select((.reasons | length) == 0)] == []'
	valid "$s" "$j"
	for p in socket xdp afxdp dpdk verbs gpu; do
		if grep -Eq "^  $p +(READY|LAB ONLY|NOT AVAILABLE) " "$t"; then ok; else bad "$s: text report has no verdict line for $p"; fi
	done
	if grep -q '^SAFETY' "$t" && grep -q '\[/proc/cpuinfo' "$t"; then ok; else bad "$s: text report sections or sources missing"; fi
}

# The laptop: Wi-Fi management, e1000e spare (generic XDP only), a
# GeForce with the proprietary driver and no RDMA NIC, verbs libraries
# missing, powersave governor and deep C-states, no hugepages.
laptop() {
	local j=$tmp/laptop.json
	run laptop
	check "laptop verdicts" "$j" '.paths | map_values(.verdict) == {socket: "ready", xdp: "lab", afxdp: "lab", dpdk: "lab", verbs: "unavailable", gpu: "lab"}'
	check "laptop management" "$j" '.safety.management_interfaces.value == ["wlp0s20f3"]'
	check "laptop wifi" "$j" '.interfaces.wlp0s20f3.kind.value == "wifi"'
	check "laptop e1000e generic" "$j" '.paths.xdp.interfaces.enp0s31f6.mode == "generic" and .interfaces.enp0s31f6.xdp.value == "generic"'
	check "laptop verbs package step" "$j" 'any(.paths.verbs.next_steps[]; .kind == "package" and (.text | test("apt-get install libibverbs-dev")))'
	check "laptop verbs rxe route" "$j" 'any(.paths.verbs.next_steps[]; .text == "modprobe rdma_rxe")'
	check "laptop gpu proprietary" "$j" 'any(.paths.gpu.reasons[]; .text | test("proprietary"))'
	check "laptop gpu peermem step" "$j" 'any(.paths.gpu.next_steps[]; .kind == "module" and (.text | test("nvidia-peermem")))'
	check "laptop only the NVIDIA GPU" "$j" '.topology.gpus | keys == ["0000:01:00.0"]'
	check "laptop hugepages step" "$j" 'any(.paths.dpdk.next_steps[]; .kind == "kernel_parameter" and (.text | test("hugepages=")))'
	check "laptop no DPDK NIC" "$j" 'any(.paths.dpdk.next_steps[]; .kind == "hardware")'
	check "laptop smt" "$j" '.machine.cpu.smt.value == "on" and .machine.cpu.cores.value == 4 and .machine.cpu.logical_cpus.value == 8 and (.machine.cpu.siblings.value | index(["0,4"]))'
	check "laptop governor warning" "$j" 'any(.warnings[]; .id == "cpu-governor")'
	check "laptop cstates warning" "$j" 'any(.warnings[]; .id == "cpu-cstates" and (.text | test("C10")))'
	check "laptop not a VM" "$j" '.virtualization.hypervisor.value == false and all(.warnings[]; .id != "vm")'
	check "laptop iommu" "$j" '.machine.iommu.mode.value == "translated (DMA-FQ)"'
}

# The VM: hypervisor, no PMU, virtio eth0 (management) and eth1, a veth,
# kernel 6.1 (virtio zero-copy needs 6.11), no GPU.
vm() {
	local j=$tmp/vm.json
	run vm
	check "vm verdicts" "$j" '.paths | map_values(.verdict) == {socket: "ready", xdp: "ready", afxdp: "lab", dpdk: "lab", verbs: "lab", gpu: "unavailable"}'
	check "vm hypervisor" "$j" '.virtualization.hypervisor.value == true and .virtualization.name.value == "KVM/QEMU"'
	check "vm warning" "$j" 'any(.warnings[]; .id == "vm")'
	check "vm no PMU" "$j" '.machine.cpu.pmu.value == false and (.virtualization.unreliable.pmu.value | test("no CPU PMU"))'
	check "vm jitter" "$j" '.virtualization.unreliable.jitter.value | test("steal so far: 4211")'
	check "vm no hw timestamps" "$j" '.virtualization.unreliable.timestamps and .interfaces.eth0.hw_timestamps.value == false'
	check "vm management" "$j" '.safety.management_interfaces.value == ["eth0"] and .interfaces.eth0.management.value == true'
	check "vm xdp per interface" "$j" '.paths.xdp.interfaces.eth1.mode == "native" and .paths.xdp.interfaces.eth0.management == true and .paths.xdp.summary == "native XDP on eth1"'
	check "vm xdp management reason" "$j" 'any(.paths.xdp.reasons[]; .text | test("eth0.*management interface"))'
	check "vm afxdp copy on 6.1" "$j" '.paths.afxdp.interfaces.eth1.mode == "copy"'
	check "vm veth driver" "$j" '.interfaces.veth0.driver.value == "veth" and (.interfaces.veth0.driver.source | test("ethtool -i veth0"))'
	check "vm gpu unavailable with a step" "$j" '.paths.gpu.verdict == "unavailable" and any(.paths.gpu.next_steps[]; .kind == "hardware" and (.text | test("NVIDIA GPU")))'
	check "vm dpdk vIOMMU step" "$j" 'any(.paths.dpdk.next_steps[]; .text | test("virtual IOMMU"))'
	check "vm dpdk never eth0" "$j" '.paths.dpdk.nics["0000:00:03.0"].action | startswith("never")'
	check "vm socket caveat" "$j" 'any(.paths.socket.reasons[]; .text | test("in a VM"))'
	check "vm no cpufreq" "$j" '.machine.cpu.governor.value == ""'
}

# The two-socket server: ConnectX on node 1, H100 on node 0 (SYS).
server() {
	local j=$tmp/server-2socket.json
	run server-2socket
	check "server verdicts" "$j" '[.paths[].verdict] | all(. == "ready")'
	check "server numa warning" "$j" 'any(.warnings[]; .id == "gpu-nic-numa" and (.text | test("GPU0")) and (.text | test("mlx5_0")))'
	check "server topo warning" "$j" 'any(.warnings[]; .id == "gpu-nic-topo" and (.text | test("GPU0 and mlx5_0.*SYS")))'
	check "server topo -m relation" "$j" '.topology.relations.GPU0.mlx5_0.value == "SYS" and (.topology.relations.GPU0.mlx5_0.source | test("nvidia-smi topo -m"))'
	check "server sysfs relation" "$j" '.topology.relations.GPU0.eno2.value == "NODE"'
	check "server gpu affinity" "$j" '.topology.gpu_cpu_affinity.GPU0.value == "0-3,8-11"'
	check "server mlx5 stays" "$j" 'any(.paths.dpdk.reasons[]; .text | test("stay on mlx5_core, do not bind to vfio-pci"))'
	check "server mlx5 action" "$j" '.paths.dpdk.nics["0000:86:00.0"].action | test("^stay on mlx5_core")'
	check "server management" "$j" '.safety.management_interfaces.value == ["br0", "eno1"] and (.paths.dpdk.nics["0000:04:00.0"].action | startswith("never"))'
	check "server xdp management" "$j" '.paths.xdp.interfaces.eno1.management == true and (.paths.xdp.summary | test("eno1") | not)'
	check "server roce v2" "$j" '.paths.verbs.devices.mlx5_0.ports["1"].roce_versions.value | index(["RoCE v2"])'
	check "server gids" "$j" '.paths.verbs.devices.mlx5_0.ports["1"].gids.value | length == 4'
	check "server pfc" "$j" '.paths.verbs.devices.mlx5_0.ports["1"].pfc.value | test("3:on")'
	check "server ecn" "$j" '.paths.verbs.devices.mlx5_0.ports["1"].ecn_enabled.value == ["roce_np priorities: 3", "roce_rp priorities: 3"]'
	check "server gpu" "$j" '.paths.gpu.driver_version.value == "550.54.15" and .paths.gpu.open_kernel_module.value and .paths.gpu.nvidia_peermem.value and (.paths.gpu.dmabuf.value | startswith("likely")) and .paths.gpu.cuda.value == "12.4.1"'
	check "server numa" "$j" '.machine.numa.nodes.value == "0-1" and .machine.cpu.sockets.value == 2 and .machine.numa.node1.cpus.value == "4-7,12-15"'
	check "server iommu" "$j" '.machine.iommu.mode.value == "passthrough (identity)"'
	check "server isolcpus step on the NIC node" "$j" 'any(.paths.dpdk.next_steps[]; .text | startswith("isolcpus=4-7,12-15 "))'
	check "server hw timestamps" "$j" '.interfaces.ens6f0np0.hw_timestamps.value == true'
	check "server not a VM" "$j" '.virtualization.hypervisor.value == false'
}

# Isolated cores (their hyper-thread siblings are not) and 1 GB pages.
isolated() {
	local j=$tmp/isolated-hugepages.json
	run isolated-hugepages
	check "isolated verdicts" "$j" '.paths | map_values(.verdict) == {socket: "ready", xdp: "ready", afxdp: "ready", dpdk: "ready", verbs: "lab", gpu: "unavailable"}'
	check "isolated cmdline" "$j" '.machine.cpu.isolcpus.value == "managed_irq,domain,2-7" and .machine.cpu.nohz_full.value == "2-7" and .machine.cpu.rcu_nocbs.value == "2-7"'
	check "isolated in effect" "$j" '.machine.cpu.isolated.value == "2-7" and .machine.cpu.nohz_full_active.value == "2-7"'
	check "isolated 1G pages" "$j" '.machine.memory.hugepages["1048576kB"].total.value == 8 and .machine.memory.hugepages["1048576kB"].free.value == 6'
	check "isolated default page size" "$j" '.machine.memory.default_hugepage_size.value == "1048576kB"'
	check "isolated dpdk via vfio" "$j" '(.paths.dpdk.summary | test("vfio-pci")) and (.paths.dpdk.nics["0000:01:00.1"].action | test("bound to vfio-pci"))'
	check "isolated dpdk cores" "$j" 'any(.paths.dpdk.reasons[]; .text == "isolated cores for the poll loop: 2-7")'
	check "isolated dpdk hugepages" "$j" 'any(.paths.dpdk.reasons[]; .text | test("6144 MiB free of 8192 MiB"))'
	check "isolated sibling warning" "$j" 'any(.warnings[]; .id == "cpu-sibling" and (.text | test("2/10")))'
	check "isolated zero-copy" "$j" '.paths.afxdp.interfaces.ens1f0.mode == "zero-copy" and .paths.afxdp.summary == "zero-copy AF_XDP on ens1f0"'
	check "isolated no clock warnings" "$j" 'all(.warnings[]; .id != "cpu-governor" and .id != "cpu-cstates")'
}

# expect NAME WANT CMD...: CMD exits with status WANT.
expect() {
	local name=$1 want=$2 rc=0
	shift 2
	"$@" >/dev/null 2>&1 || rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$name: exit $rc, want $want"; fi
}

# Usage: bad options exit 2, --help exits 0 and names the options.
usage() {
	expect "unknown option" 2 "$DOCTOR" --bogus
	expect "--sysroot without DIR" 2 "$DOCTOR" --sysroot
	expect "--sysroot of a missing tree" 2 "$DOCTOR" --sysroot "$tmp/none"
	expect "--help" 0 "$DOCTOR" --help
	if "$DOCTOR" --help | grep -q -- '--sysroot DIR'; then ok; else bad "--help text"; fi
}

# The schema rejects what it should (so passing it means something).
schema_bites() {
	[ -n "$PY" ] || { echo "note: no python3 with jsonschema: schema checks skipped"; return 0; }
	jq '.paths.gpu.verdict = "maybe"' "$tmp/vm.json" >"$tmp/broken.json"
	if schema_ok "$tmp/broken.json" >/dev/null; then
		bad "schema.json accepts the verdict \"maybe\""
	else
		ok
	fi
}

# The checked-in trees are what mkfixtures.sh writes, and the doctor did
# not write into them.
fixtures_current() {
	if "$HERE/mkfixtures.sh" "$tmp/fx" &&
		diff -r --no-dereference "$FIX" "$tmp/fx" >"$tmp/fx.diff"; then
		ok
	else
		bad "fixtures/ differ from mkfixtures.sh's output (run tests/doctor/mkfixtures.sh):"
		head -n 20 "$tmp/fx.diff"
	fi
}

# The real machine: it completes, and its JSON parses with all six paths.
live() {
	local j=$tmp/live.json
	if timeout 120 "$DOCTOR" --json >"$j"; then ok; else bad "live: --json exit status"; fi
	if timeout 120 "$DOCTOR" >"$tmp/live.txt"; then ok; else bad "live: text exit status"; fi
	check "live sysroot" "$j" '.sysroot == null'
	common live "$j" "$tmp/live.txt"
}

laptop
vm
server
isolated
usage
schema_bites
fixtures_current
live
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
