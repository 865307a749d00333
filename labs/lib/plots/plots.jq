# plots.jq - the data and the settings of the compare plots, from a
# results.json. plots.sh runs it once per output:
#
#   jq -r --arg what vars|rate|lat|cpu|budget -f plots.jq results.json
#
# vars is a gnuplot script of settings (loaded by the .gp files); the others
# are whitespace-separated data. A series is one (path, mode, gpu); every
# plot draws the series in the same order, colour and shape.

# Path ids in figure order, their names and Okabe-Ito colours (safe for
# the common colour-vision deficiencies; shapes and names carry it too).
def path_order: {socket: 0, xdp: 1, afxdp: 2, dpdk: 3, verbs: 4}[.] // 9;
def path_name: {socket: "Kernel stack", xdp: "XDP", afxdp: "AF_XDP",
	dpdk: "DPDK", verbs: "RDMA verbs"}[.] // .;
def path_short: {socket: "Kernel", verbs: "RDMA"}[.] // path_name;
def path_colour: {socket: "#0072B2", xdp: "#E69F00", afxdp: "#009E73",
	dpdk: "#CC79A7", verbs: "#D55E00"}[.] // "#444444";
def env_name: {veth: "veth pair (no NIC)", "veth-vm": "veth in a VM",
	"veth-napi": "veth pair, NAPI on the receiving core",
	"veth-napi-vm": "veth in a VM, NAPI on the receiving core",
	nic: "a real NIC", "vm-softroce": "Soft-RoCE in a VM"}[.] // .;
def gpu_name: {sim: "emulated GPU", cuda: "CUDA GPU"}[.] // .;

# A string as a gnuplot double-quoted literal.
def gq: "\"" + (gsub("\\\\"; "\\\\") | gsub("\""; "\\\"")
	| gsub("\n"; "\\n")) + "\"";

# A gnuplot array literal of strings or numbers.
def garray: "[" + (map(if type == "string" then gq else tostring end)
	| join(", ")) + "]";

# A count with k/M suffix, 2-3 significant digits.
def short:
	if . == null then "-"
	elif . >= 1e6 then (. / 1e5 | round / 10 | tostring) + "M"
	elif . >= 1e4 then (. / 1e3 | round | tostring) + "k"
	elif . >= 1e3 then (. / 1e2 | round / 10 | tostring) + "k"
	elif . >= 10 then (round | tostring)
	else (. * 10 | round / 10 | tostring) end;

def gpu_of: .gpu // "none";
def gpu_tic: if .gpu != "none" then "\n+ GPU \(.gpu)" else "" end;
def key: "\(.path)/\(.mode)/\(gpu_of)";

# The series, in path order then order of appearance, with their styles.
def series:
	[.runs | to_entries[]
		| {key: (.value | key), path: .value.path, mode: .value.mode,
		   gpu: (.value | gpu_of), first: .key}]
	| group_by(.key) | map(min_by(.first))
	| sort_by([(.path | path_order), .first])
	| to_entries
	| map(.key as $i | .value + {n: ($i + 1)})
	| group_by(.path) | map(to_entries | map(.value + {rank: .key}))
	| flatten | sort_by(.n)
	| map(. + {
		title: ("\(.path | path_name) \(.mode)"
			+ (if .gpu != "none" then " + \(.gpu | gpu_name)"
			   else "" end)),
		tic: ("\(.path | path_name)\n\(.mode)" + gpu_tic),
		ticShort: ("\(.path | path_short)\n\(.mode)" + gpu_tic),
		colour: (.path | path_colour),
		pattern: ([3, 4, 5, 6][.rank] // 7),
		dash: ([1, 2, 3, 4][.rank] // 5),
		point: ([7, 5, 9, 11, 13, 15, 4, 6, 8, 10, 12, 14][.n - 1]
			// 1)});

def sizes: [.runs[].frame_bytes] | unique;

# The runs of a workload that received something.
def runs_of($w): [.runs[] | select(.workload == $w and (.received // 0) > 0)];

# Bar positions: frame size clusters, one slot per series, a gap between.
def bar_x($ns; $si; $n): $si * ($ns + 1) + $n;

# The receive cost on the receiving cores: [kernel, app] cycles per
# packet (receive_cycles_per_packet); nulls for a run that predates it.
def receive_cycles:
	.receive_cycles_per_packet as $r
	| if $r == null then [null, null] else [$r.kernel, $r.app] end;

# Where and how the runs were made: one line for every footnote.
def environment:
	.host as $h
	| ([.runs[].env] | unique | map(env_name) | join(", ")) as $env
	| ([.runs[] | gpu_of | select(. != "none")] | unique
		| map(gpu_name) | join(", ")) as $gpu
	| "Measured on \($env)"
	+ (if $gpu != "" then ", \($gpu)" else "" end)
	+ " | \($h.cpu_model // "unknown CPU"), \($h.cpus // "?") CPUs"
	+ (if ($h.virtualization // "none") != "none"
		then " (\($h.virtualization))" else "" end)
	+ " | Linux \($h.kernel // "?")"
	+ " | \(($h.date // "") | sub("T"; " ") | sub(":[0-9]+Z$"; " UTC"))"
	+ " | pathlab compare";

def latency_runs:
	[runs_of("latency")[] | select((.latency_ns.count // 0) > 0)];

# Percentiles on a "nines" axis: p50 at 0.3, p90 at 1, p99 at 2, ...
def lat_points:
	[[0.30103, .p50], [1, .p90], [2, .p99], [3, .p999], [4, .p9999],
	 [5, .max]] | map(select(.[1] != null));

def vars:
	series as $s | ($s | length) as $ns | sizes as $sz
	| latency_runs as $lr
	| ([$lr[].frame_bytes] | unique) as $lsz
	| "NS = \($ns)",
	  "array TITLE[\($ns)] = \([$s[].title] | garray)",
	  "array COLOUR[\($ns)] = \([$s[].colour] | garray)",
	  "array PATTERN[\($ns)] = \([$s[].pattern] | garray)",
	  "array DASH[\($ns)] = \([$s[].dash] | garray)",
	  "array POINT[\($ns)] = \([$s[].point] | garray)",
	  "ENVIRONMENT = \(environment | gq)",
	  # Bar plots: one tic per bar (its series), frame sizes on x2.
	  # At least 6 slots wide, so that one bar is not a wall.
	  ((($sz | length) * ($ns + 1)) as $w | ([$w, 6] | max) as $v
	   | "XLO = \(($w - $v) / 2)", "XHI = \(($w + $v) / 2)"),
	  "set xtics (\([range(0; $sz | length) as $i | $s[]
		| "\((if ($sz | length) * $ns > 12 then .ticShort else .tic end)
			| gq) \(bar_x($ns; $i; .n))"] | join(", ")))",
	  "set x2tics (\([$sz | to_entries[]
		| "\("\(.value)-byte frames" | gq) \(bar_x($ns; .key;
			($ns + 1) / 2))"] | join(", ")))",
	  # Bar plots get wider with more bars (about 85 pixels a bar, at
	  # most 2400); many bars also get smaller, shorter tic labels.
	  ((($sz | length) * $ns) as $b
	   | "BARS = \($b)",
	     "WIDTH = \([[200 + 85 * ($b + ($sz | length)), 1280] | max, 2400]
		| min | floor)",
	     "TICFONT = \((if $b <= 6 then ",14" elif $b <= 24 then ",12"
		else ",10" end) | gq)",
	     "VALFONT = \((if $b <= 12 then ",15" else ",12" end) | gq)"),
	  # A log scale for rates when they span more than 30x.
	  ([runs_of("throughput")[].pps | select(. > 0)] as $r
	   | "RATE_LOG = \(if ($r | length) > 0 and
		($r | max) > 30 * ($r | min) then 1 else 0 end)",
	     "RATE_MIN = \(($r | min // 1000) / 1000)",
	     "RATE_MAX = \(($r | max // 1000) / 1000)"),
	  "CPU_MIN = \([runs_of("throughput")[]
		| (receive_cycles | map(select(. != null and . > 0))[]),
		  (.cycles_per_packet.system // empty),
		  (.budget.cycles_100g // empty)]
		| map(select(. > 0)) | (min // 1))",
	  "CPU_MAX = \([runs_of("throughput")[]
		| (receive_cycles | map(. // 0) | add),
		  (.cycles_per_packet.system // 0),
		  (.budget.cycles_10g // 0)] | (max // 10))",
	  "LAT_PANELS = \($lsz | length)",
	  "array LAT_SIZE[\([($lsz | length), 1] | max)] = \(
		if ($lsz | length) > 0 then $lsz | garray else "[0]" end)",
	  "array LAT_SERIES[\([($lsz | length), 1] | max)] = \(
		if ($lsz | length) > 0 then
		[$lsz[] as $f | [$lr[] | select(.frame_bytes == $f) | key]
			| map(. as $k | $s[] | select(.key == $k) | .n)
			| unique | map(tostring) | join(" ")] | garray
		else "[\"\"]" end)",
	  # The key of a panel lists only the series no panel before it did.
	  "array LAT_TITLED[\([($lsz | length), 1] | max)] = \(
		if ($lsz | length) > 0 then
		[foreach ($lsz[] as $f | [$lr[] | select(.frame_bytes == $f)
			| key] | map(. as $k | $s[] | select(.key == $k) | .n)
			| unique) as $now
		  ({seen: [], new: []};
		   {seen: (.seen + $now | unique), new: ($now - .seen)};
		   .new | map(tostring) | join(" "))] | garray
		else "[\"\"]" end)",
	  "LAT_KIND = \([$lr[].latency_ns.kind // "one-way"] | unique
		| join(" and ") | gq)",
	  "LAT_MISSING = \(
		([runs_of("latency")[] | select((.latency_ns.count // 0) == 0)
			| key] | unique) as $miss
		| [$s[] | select(.key as $k | $miss | index($k)) | .title]
		| join(", ") | gq)";

# rate: x kpps series value_label loss_label short_loss_label
def rate:
	series as $s | ($s | length) as $ns | sizes as $sz
	| runs_of("throughput")[]
	| key as $k | .frame_bytes as $f
	| ($s[] | select(.key == $k) | .n) as $n
	| ($sz | index($f)) as $si
	| ((.lost // 0) / ([.sent // 0, 1] | max) * 100) as $loss
	| "\(bar_x($ns; $si; $n)) \(.pps / 1000) \($n) "
	+ ((.pps / 1000 | if . >= 100 then round | tostring
		else . * 10 | round / 10 | tostring end) | gq) + " "
	+ ((if $loss >= 0.5 then "\($loss | round)% lost" else "" end) | gq)
	+ " " + ((if $loss >= 0.5 then "-\($loss | round)%" else "" end) | gq);

# lat: one block per (frame size, series), in LAT_SIZE / LAT_SERIES order:
# nines latency_us
def lat:
	series as $s | latency_runs as $lr
	| ([$lr[].frame_bytes] | unique)[] as $f
	| ([$lr[] | select(.frame_bytes == $f)]
		| group_by(key)
		| map((.[0] | key) as $k
			| {n: ($s[] | select(.key == $k) | .n), run: .[0]})
		| sort_by(.n))[]
	| (.run.latency_ns | lat_points | map("\(.[0]) \(.[1] / 1000)")
		| join("\n")) + "\n\n";

# cpu: x kernel_top total_top system series total_label system_label
def cpu:
	series as $s | ($s | length) as $ns | sizes as $sz
	| runs_of("throughput")[]
	| key as $k
	| ($s[] | select(.key == $k) | .n) as $n
	| .frame_bytes as $f
	| bar_x($ns; $sz | index($f); $n) as $x
	| receive_cycles as $c
	| (if $c[0] == null then null else $c[0] + $c[1] end) as $t
	| "\($x) \($c[0] // "NaN") \($t // "NaN") "
	+ "\(.cycles_per_packet.system // "NaN") \($n) "
	+ (($t | short) | gq) + " "
	+ ((.cycles_per_packet.system // null | short) | gq);

# budget: x_from x_to cycles_10g cycles_100g label10 label100, per size
def budget:
	series as $s | ($s | length) as $ns | sizes as $sz
	| [.runs[] | select(.budget != null)] | group_by(.frame_bytes)[]
	| .[0] as $r | ($sz | index($r.frame_bytes)) as $si
	| "\(bar_x($ns; $si; 0.5)) \(bar_x($ns; $si; $ns + 0.5)) "
	+ "\($r.budget.cycles_10g) \($r.budget.cycles_100g) "
	+ ("10 GbE: \($r.budget.cycles_10g | short)" | gq) + " "
	+ ("100 GbE: \($r.budget.cycles_100g | short)" | gq);

if $what == "vars" then vars
elif $what == "rate" then rate
elif $what == "lat" then lat
elif $what == "cpu" then cpu
elif $what == "budget" then budget
else error("plots.jq: unknown --arg what \($what)") end
