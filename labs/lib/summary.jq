# summary.jq - a Markdown summary of a results.json: one row per path and
# mode at one frame size, throughput and latency runs side by side, and the
# visibility run's tcpdump count. For the README and the slides.
#
#   jq -r --argjson size 64 -f summary.jq results.json

# Text from the results file, safe in Markdown (as slides/tools/results.jq
# has it): HTML, links, images, code, spans, math and cell boundaries
# escaped, line breaks made spaces, anything but a string its JSON text.
def md: (if type == "string" then . else tojson end)
	| gsub("[\r\n\t]+"; " ")
	| gsub("(?<c>[\\\\`<>\\[\\]{}|$])"; "\\\(.c)");
def fmt($d): if . == null then "–" else (. * pow(10; $d) | round) / pow(10; $d) | tostring end;
def us: if . == null then null else . / 1000 end | fmt(1);

.host as $h
| [.runs[] | select(.frame_bytes == $size)] as $runs
| (reduce ($runs[] | {path, mode, gpu}) as $k ([]; if index([$k]) then . else . + [$k] end)) as $keys
| "Measured \($h.date // "?" | md) on \($h.cpu_model // "?" | md), \($h.cpus // "?" | md) CPUs, kernel \($h.kernel // "?" | md), virtualization: \($h.virtualization // "?" | md)\(if $h.loadavg_start != null then "; load average \($h.loadavg_start | md) at the start, \($h.loadavg_end // "?" | md) at the end" else "" end); \($size)-byte frames; env: \($runs | map(.env | md) | unique | join(", ")).",
  "",
  "| path | mode | rate, kpps | lost (unattributed) | one-way p50 / p99, µs | receive cycles/pkt: kernel + app | system-wide incl. generator | syscalls/pkt | copies/pkt | Udp InDatagrams | tcpdump saw |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ($keys[] as $k
   | [$runs[] | select(.path == $k.path and .mode == $k.mode and .gpu == $k.gpu)] as $r
   | ($r | map(select(.workload == "throughput")) | first) as $t
   | ($r | map(select(.workload == "latency")) | first) as $l
   | ($r | map(select(.workload == "visibility")) | first) as $v
   | "| \($k.path | md)\(if $k.gpu != "none" then " +gpu " + ($k.gpu | md) else "" end) | \($k.mode | md) | \(if $t.pps then $t.pps / 1000 else null end | fmt(0)) | \($t.lost | fmt(0)) (\($t.unattributed | fmt(0))) | \(if ($l.latency_ns.count // 0) > 0 then "\($l.latency_ns.p50 | us) / \($l.latency_ns.p99 | us)" else "–" end) | \($t.receive_cycles_per_packet.total | fmt(0)): \($t.receive_cycles_per_packet.kernel | fmt(0)) + \($t.receive_cycles_per_packet.app | fmt(0)) | \($t.cycles_per_packet.system | fmt(0)) | \($t.syscalls_per_packet | fmt(3)) | \($t.copies_per_packet | fmt(0)) | \($t.kernel_udp_in_datagrams | fmt(0)) of \($t.sent | fmt(0)) | \($v.tcpdump_seen | fmt(0)) of \($v.sent | fmt(0)) |"),
  "",
  "Budget at \($size) B: \($runs[0].budget.cycles_10g | fmt(1)) cycles per packet at 10 GbE, \($runs[0].budget.cycles_100g | fmt(1)) at 100 GbE (TSC \($runs[0].budget.clock_hz / 1e9 | fmt(2)) GHz)."
