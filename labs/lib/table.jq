# table.jq - the side-by-side table of a results.json, one row per run,
# then the cycle budget per packet at 10 and 100 GbE for each frame size.
# The cost column is receive_cycles_per_packet: what the path spent on the
# receiving cores (kernel: the link's NAPI threads; app: the receive loop's
# useful time). The system-wide figure beside it includes the generator.
#
#   jq -r -f table.jq results.json

# A number with $d decimals as text; "-" for null.
def fixed($d):
	if . == null then "-"
	elif type != "number" then tostring
	else
		(if . < 0 then "-" else "" end) as $sign
		| ((if . < 0 then -. else . end) * pow(10; $d) | round
			| tostring) as $s
		| if $d == 0 then $sign + $s
		else
			(if ($s | length) <= $d
				then "0" * ($d + 1 - ($s | length)) + $s
				else $s end) as $p
			| $sign + $p[:-$d] + "." + $p[-$d:]
		end
	end;

# Nanoseconds to microseconds with 1 decimal.
def us: if . == null then null else . / 1000 end | fixed(1);

# Pad to width $w: text to the left, numbers to the right.
def pad($w; $right):
	(" " * ($w - length) // "") as $fill
	| if $right then $fill + . else . + $fill end;

def header: [
	"path", "mode", "gpu", "env", "frame B", "q", "workload",
	"sent", "received", "lost", "unattr", "kpps", "Gbit/s",
	"p50 us", "p99 us", "p99.9 us", "recv cyc/pkt", "kernel",
	"app", "sys+gen cyc/pkt",
	"syscalls/pkt", "copies/pkt", "Udp InDgrams", "link rx",
	"tcpdump seen"
];

# The columns of one run, all as text.
def row:
	(.workload == "latency" and (.latency_ns.count // 1) > 0) as $lat
	| (.rtt_ns // null) as $rtt
	| [
		.path, .mode, (.gpu // "none"), .env,
		(.frame_bytes | fixed(0)), ((.queue_count // 1) | fixed(0)),
		.workload,
		(.sent | fixed(0)), (.received | fixed(0)),
		(.lost | fixed(0)), (.unattributed | fixed(0)),
		(if .pps == null then null else .pps / 1000 end | fixed(1)),
		(.gbps | fixed(3)),
		(if $rtt then $rtt.p50 | us elif $lat then .latency_ns.p50 | us
			else "-" end),
		(if $rtt then $rtt.p99 | us elif $lat then .latency_ns.p99 | us
			else "-" end),
		(if $rtt then $rtt.p999 | us elif $lat then .latency_ns.p999 | us
			else "-" end),
		(.receive_cycles_per_packet.total | fixed(0)),
		(.receive_cycles_per_packet.kernel | fixed(0)),
		(.receive_cycles_per_packet.app | fixed(0)),
		(.cycles_per_packet.system | fixed(0)),
		(.syscalls_per_packet | fixed(3)),
		(.copies_per_packet | fixed(2)),
		(.kernel_udp_in_datagrams | fixed(0)),
		(.link_rx_packets | fixed(0)),
		(if .workload == "visibility" then .tcpdump_seen | fixed(0)
			else "-" end)
	]
	| map(tostring);

# One line per frame size: the cycles a core has per packet at line rate.
def budgets:
	[.runs[] | select(.budget != null)]
	| group_by(.frame_bytes)[]
	| .[0]
	| "budget \(.frame_bytes) B at \((.budget.clock_hz // 0) / 1e9
		| fixed(2)) GHz: 10 GbE \(.budget.cycles_10g | fixed(1))"
	+ " cycles/pkt, 100 GbE \(.budget.cycles_100g | fixed(1)) cycles/pkt";

([header] + [.runs[] | row]) as $rows
| ([range(0; header | length) as $i
	| [$rows[][$i] | length] | max]) as $w
| ($rows[] | [range(0; length) as $i
	| .[$i] | pad($w[$i]; $i == 4 or $i == 5 or $i >= 7)] | join("  ")),
  (if any(.runs[]; .rtt_ns) then
	"rtt rows: p50/p99/p99.9 are whole round trips on the sender's clock"
	+ " (sockperf and perftest print half of one); latency rows: one-way"
  else empty end),
  budgets
