# results.jq - the tables and labels the decks show from a results.json.
# pathlab.lua runs it once per directive:
#
#   jq -r --arg what label|path|budget|measured|choose [--arg path ID]
#      [--argjson size N] -f results.jq results.json
#
# Everything it prints is Markdown. Every table is read from the run
# contract (common/results.schema.json) only; "–" marks a figure the
# result set does not have.

# Text from the results file, safe in Markdown: a results file is data,
# and whoever wrote it must not put HTML, a link, an image (which pandoc
# would inline from a local file) or a table cell boundary into a deck.
# Every character that opens HTML, a link or image, code (with its raw
# attribute), a span, math or a table cell is backslash-escaped; line
# breaks become spaces; anything but a string is its JSON text.
def md: (if type == "string" then . else tojson end)
	| gsub("[\r\n\t]+"; " ")
	| gsub("(?<c>[\\\\`<>\\[\\]{}|$])"; "\\\(.c)");

def fmt($d): if . == null then "–"
	else (. * pow(10; $d) | round) / pow(10; $d)
		| if $d == 0 then floor else . end | tostring end;
# Thousands grouped with a thin comma: 17,687.
def grouped: if . == null then "–" else
	(round | tostring) as $s
	| [range(($s | length); 0; -3)] | reverse
	| map(. as $e | $s[([$e - 3, 0] | max):$e]) | join(",") end;
# Nanoseconds as microseconds: one decimal, grouped whole ones from 1,000.
def us: if . == null then "–" else . / 1000
	| if . >= 1000 then grouped else fmt(1) end end;
def kpps: if . == null then "–" else . / 1000 | fmt(0) end;
# What tcpdump saw of a visibility run, and what its own capture dropped
# (the kernel's capture buffer overflowed: not packets the tap missed).
def saw: "\(.tcpdump_seen | grouped) of \(.sent | grouped)"
	+ if (.tcpdump_dropped // 0) > 0
	  then " (\(.tcpdump_dropped | grouped) capture drops)" else "" end;

def path_name: {socket: "kernel stack", xdp: "XDP", afxdp: "AF_XDP",
	dpdk: "DPDK", verbs: "RDMA verbs"}[.] // md;
def env_name: {
	veth: "a veth pair between two network namespaces (no NIC)",
	"veth-vm": "a veth pair between two network namespaces, in a VM (no NIC)",
	"veth-napi": "a veth pair between two network namespaces (no NIC), its receive work in a NAPI thread on the receiving core",
	"veth-napi-vm": "a veth pair between two network namespaces, in a VM (no NIC), its receive work in a NAPI thread on the receiving core",
	nic: "a real NIC",
	"vm-softroce": "Soft-RoCE (software RDMA) in a qemu VM"}[.] // md;
def gpu_name: {sim: "the emulated GPU (device memory in host RAM)",
	cuda: "a CUDA GPU"}[.] // md;

# Runs on an emulated CPU (the Soft-RoCE VM under TCG) cannot stand
# beside the host's (labs/plab/emulated.py says the same): results made
# before a run said how its VM ran have env vm-softroce and no vm.
def in_vm: (.vm | type) == "object" or ((.env // "") | startswith("vm-softroce"));
def comparable: if (.comparable_with_host | type) == "boolean"
	then .comparable_with_host else (in_vm | not) end;
def vm_how: (if .vm.accel == "tcg" or .vm.accel == "kvm" then .vm.accel
	else "accel not recorded" end)
	+ (if .vm.cpus then ", \(.vm.cpus | md) vCPUs" else "" end);

# A row's own note when it ran somewhere else than the rest (the label
# names every environment of the set); a VM's row says how it ran and,
# on an emulated CPU, that it is not comparable.
def env_tag: if in_vm then (if comparable
		then " (Soft-RoCE VM, \(vm_how): software RDMA)"
		else " (*emulated CPU*)" end)
	else {nic: "a real NIC"}[.env // ""]
	// null | if . then " (" + . + ")" else "" end end;

# The receive cost on the receiving core: "total (kernel + app)".
def rx_cost: if . == null or .total == null then "–"
	else "\(.total | grouped) (\(.kernel | grouped) + \(.app | grouped))" end;

def runs_at($size): [.runs[] | select(.frame_bytes == $size)];
def of($w): map(select(.workload == $w)) | first;

# Where, when and how: one sentence under every figure and table; with a
# path id, about that path's runs only; "gpu": the paths that have a GPU
# variant; "nogpu": every run without a GPU.
def where_label($path):
	.host as $h
	| [.runs[] | select((.gpu // "none") != "none") | {path, mode}] as $withgpu
	| [.runs[] | select(if $path == null or $path == "" then true
		elif $path == "nogpu" then (.gpu // "none") == "none"
		elif $path == "gpu" then ({path, mode} as $k | $withgpu | index([$k])) != null
		else .path == $path end)] as $runs
	| ([$runs[] | select(.workload == "throughput") | .gen.count_requested // .sent]
		| max) as $n
	| ([$runs[].env] | unique | map(env_name) | join("; ")) as $env
	| ([$runs[].gpu // "none" | select(. != "none")] | unique | map(gpu_name)) as $gpu
	| ($h.date // "?" | md | sub("T"; " ") | sub(":[0-9]{2}Z$"; " UTC")) as $date
	| "**Measured** \($date) on \($h.cpu_model // "?" | md), \($h.cpus // "?" | md) CPUs"
	+ (if $h.tsc_hz then " (TSC \($h.tsc_hz / 1e9 | fmt(2)) GHz)" else "" end)
	+ ", kernel \($h.kernel // "?" | md), virtualization \($h.virtualization // "?" | md)"
	+ (if ($h.background_cpus_start | type) == "number"
		and ($h.background_cpus_end | type) == "number" then
		([$h.background_cpus_start, $h.background_cpus_end] | max) as $bg
		| if $bg > 0.25
		then " · **a loaded machine**: other work kept \($h.background_cpus_start | fmt(2)) CPUs busy before the first run and \($h.background_cpus_end | fmt(2)) after the last (it shares the CPUs and is in every figure)"
		else " · a quiet machine: load average \($h.loadavg_start | fmt(1)) at the start; with no traffic, \($h.background_cpus_start | fmt(2)) and \($h.background_cpus_end | fmt(2)) CPUs busy before the first run and after the last"
		end
	elif $h.loadavg_start != null and $h.cpus != null
		and ([$h.loadavg_start, $h.loadavg_end // 0] | max) > $h.cpus / 2
		then " · **a loaded machine**: load average \($h.loadavg_start | fmt(1)) at the start, \($h.loadavg_end // null | fmt(1)) at the end (other work shares the CPUs and is in every figure)"
		else "" end)
	+ " · over \($env)"
	+ (if ($gpu | length) > 0 then " · GPU: \($gpu | join(", "))" else "" end)
	+ " · `pathlab compare`"
	+ (if $n != null and $n <= 20000 then " --quick" else "" end)
	+ (if $n != null then ", \($n | grouped) packets per throughput run" else "" end)
	+ ". Not NIC figures."
	+ (if $path != "verbs" and any($runs[]; comparable | not)
		then " *Emulated CPU*: Soft-RoCE in a VM under TCG, not comparable with the host rows." else "" end);

# One path's rows at one frame size: one line per mode (and GPU).
def path_table($path; $size):
	(runs_at($size) | map(select(.path == $path))) as $runs
	| (reduce ($runs[] | {mode, gpu}) as $k ([];
		if index([$k]) then . else . + [$k] end)) as $keys
	| if ($keys | length) == 0 then
		"*This result set has no \($path | path_name) runs at \($size)-byte frames.*"
		+ (if $path == "verbs" then " The verbs rows come from the RDMA VM"
			+ " (`labs/rdma-vm`, `labs/lib/rdma-vm-compare.sh`) and carry"
			+ " `env: vm-softroce`." else "" end)
	else
	"| mode | rate, kpps | lost | one-way p50 / p99, µs | receive cycles/pkt (kernel + app) | all CPUs, generator included | syscalls/pkt | wake-ups/pkt | copies/pkt | Udp InDatagrams | tcpdump saw |",
	"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
	($keys[] as $k
	| [$runs[] | select(.mode == $k.mode and .gpu == $k.gpu)] as $r
	| ($r | of("throughput")) as $t
	| ($r | of("latency")) as $l
	| ($r | of("visibility")) as $v
	| "| \($k.mode | md)\(if ($k.gpu // "none") != "none" then " + GPU " + ($k.gpu | md) else "" end)\($r[0] | env_tag)\(if ($r[0].placement.label | type) == "string" then " [" + ($r[0].placement.label | md) + "]" else "" end)"
	+ " | \($t.pps | kpps) | \($t.lost | grouped) of \($t.sent | grouped)"
	+ " | \(if ($l.latency_ns.count // 0) > 0 then "\($l.latency_ns.p50 | us) / \($l.latency_ns.p99 | us)" else "–" end)"
	+ " | \($t.receive_cycles_per_packet | rx_cost) | \($t.cycles_per_packet.system | grouped)"
	+ " | \($t.syscalls_per_packet | fmt(2)) | \($t.wakeups_per_packet | fmt(2))"
	+ " | \($t.copies_per_packet | fmt(0)) (\($t.copies_source // "?" | sub("_"; " ") | md))"
	+ " | \($t.kernel_udp_in_datagrams | grouped) | \($v | saw) |")
	end;

# The budget per frame size at the measuring machine's TSC, next to the
# cheapest and the kernel stack's measured receive cost (on the receiving
# core; the all-CPU figure where a result set predates it). Rows on an
# emulated CPU are never the cheapest: their cycles are not the host's.
def cost: .receive_cycles_per_packet.total // .cycles_per_packet.system;
def budget_table:
	[.runs[] | select(.budget != null)] as $runs
	| "| frame | line rate at 10 GbE | cycles/pkt at 10 GbE | at 100 GbE | measured receive cost, cheapest path | measured, kernel stack |",
	"|---:|---:|---:|---:|---:|---:|",
	($runs | group_by(.frame_bytes)[]
	| .[0] as $f
	| (map(select(.workload == "throughput" and (.received // 0) > 0
		and cost != null and comparable))) as $t
	| ($t | min_by(cost)) as $best
	| ($t | map(select(.path == "socket")) | first) as $sock
	| "| \($f.frame_bytes) B | \($f.budget.frames_per_second_10g / 1e6 | fmt(2)) Mpps"
	+ " | \($f.budget.cycles_10g | fmt(0)) | \($f.budget.cycles_100g | fmt(1))"
	+ " | \(if $best then "\($best | cost | grouped) (\($best.path | path_name) \($best.mode | md))" else "–" end)"
	+ " | \(if $sock then $sock | cost | grouped else "–" end) |");

# Every path's main figures at one frame size, one row per path and mode.
# $which: "all", "nogpu" (no GPU variant rows) or "gpu" (the GPU variant
# rows only; the "nogpu" table holds the same modes without).
def measured_table($size; $which):
	runs_at($size) as $all
	| [$all[] | select((.gpu // "none") != "none") | {path, mode}] as $withgpu
	| [$all[] | select($which != "nogpu" or (.gpu // "none") == "none")
		| select($which != "gpu" or (.gpu // "none") != "none")] as $runs
	| if $which == "gpu" and ($withgpu | length) == 0 then
		"*This result set has no GPU variant runs at \($size)-byte frames:"
		+ " `labs/pathlab compare --gpu sim` adds them.*"
	else
	(reduce ($runs[] | {path, mode, gpu: (.gpu // "none")}) as $k ([];
		if index([$k]) then . else . + [$k] end)) as $keys
	| "| path | mode | rate, kpps | lost | receive cycles/pkt (kernel + app) | all CPUs, generator included | syscalls/pkt | wake-ups/pkt | copies/pkt | one-way p99, µs | tcpdump saw |",
	"|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
	($keys[] as $k
	| [$runs[] | select(.path == $k.path and .mode == $k.mode and (.gpu // "none") == $k.gpu)] as $r
	| ($r | of("throughput")) as $t
	| ($r | of("latency")) as $l
	| ($r | of("visibility")) as $v
	| "| \($k.path | path_name)\(if $k.gpu != "none" then " + GPU " + ($k.gpu | md) else "" end)"
	+ " | \($k.mode | md)\($r[0] | env_tag) | \($t.pps | kpps)"
	+ " | \(if $t.sent then ($t.lost / $t.sent * 100 | fmt(1)) + " %" else "–" end)"
	+ " | \($t.receive_cycles_per_packet | rx_cost) | \($t.cycles_per_packet.system | grouped)"
	+ " | \($t.syscalls_per_packet | fmt(2)) | \($t.wakeups_per_packet | fmt(2))"
	+ " | \($t.copies_per_packet | fmt(0))"
	+ " | \(if ($l.latency_ns.count // 0) > 0 then $l.latency_ns.p99 | us else "–" end)"
	+ " | \($v | saw) |")
	end;

# What each path gives up (by design, in words) next to what we measured.
def design: {
	socket: {copies: "1: skb to your buffer", irq: "yes, mitigated by NAPI",
		transport: "the kernel's", tools: "all work",
		cores: "shared; the kernel works on any CPU"},
	xdp: {copies: "none: nothing reaches an application", irq: "as the kernel (NAPI)",
		transport: "none: the program decides",
		tools: "miss what the program drops or redirects",
		cores: "shared"},
	afxdp: {copies: "1 in copy mode, 0 zero-copy", irq: "as the kernel (NAPI)",
		transport: "yours", tools: "partly: before the stack",
		cores: "shared; a busy loop is optional"},
	dpdk: {copies: "0 on a real PMD (the vdevs here: 1-2)",
		irq: "none: busy polling",
		transport: "yours, or a user-space stack",
		tools: "none: the kernel never sees the packets",
		cores: "dedicated, at 100 %"},
	verbs: {copies: "0, none on the remote CPU",
		irq: "none needed: poll the CQ",
		transport: "the NIC's; RC is reliable in hardware",
		tools: "NIC and switch counters only",
		cores: "shared; polling optional"}};

# The guide's table: each path's trade, by design, and our figures.
def choose_table($size):
	runs_at($size) as $runs
	| design as $d
	| "| path | copies to the app | interrupts | transport | tcpdump, iptables, ss | cores | measured: copies/pkt | wake-ups/pkt | syscalls/pkt | receive cycles/pkt | cycles/pkt, all CPUs | rate, kpps | tcpdump saw |",
	"|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
	(["socket", "xdp", "afxdp", "dpdk", "verbs"][] as $p
	| ($runs | map(select(.path == $p and (.gpu // "none") == "none"))) as $r
	| ($r | of("throughput")) as $t
	| ($r | map(select(.workload == "visibility" and .mode == $t.mode)) | first) as $v
	| "| **\($p | path_name)**\(if $t then " (" + ($t.mode | md) + ($t | env_tag | sub("^ \\("; ", ") | sub("\\)$"; "")) + ")" else "" end)"
	+ " | \($d[$p].copies) | \($d[$p].irq) | \($d[$p].transport) | \($d[$p].tools) | \($d[$p].cores)"
	+ if $t then
		" | \($t.copies_per_packet | fmt(0)) (\($t.copies_source // "?" | sub("_"; " ") | md))"
		+ " | \($t.wakeups_per_packet | fmt(2)) | \($t.syscalls_per_packet | fmt(2))"
		+ " | \($t.receive_cycles_per_packet.total | grouped)"
		+ " | \($t.cycles_per_packet.system | grouped) | \($t.pps | kpps)"
		+ " | \($v | saw) |"
	else " | not in this result set | – | – | – | – | – | – |" end);

$ARGS.named as $a
| if $a.what == "label" then where_label($a.path)
elif $a.what == "path" then path_table($a.path; $a.size)
elif $a.what == "budget" then budget_table
elif $a.what == "measured" then measured_table($a.size; $a.which // "all")
elif $a.what == "choose" then choose_table($a.size)
else error("results.jq: unknown --arg what \($a.what)") end
