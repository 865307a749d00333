# tradeoffs.jq - the trade-off table of the receive paths, every cell from
# what that path's visibility run measured: results.json's runs and the
# evidence `compare --tradeoffs` added to them (.tradeoffs, tradeoffs.sh).
#
#   jq --argjson modes MODES --arg format json -f tradeoffs.jq \
#	results.json >tradeoffs.json
#   jq -r --arg format text -f tradeoffs.jq tradeoffs.json >tradeoffs.txt
#
# MODES: [{path, mode, runner, built, selected}], the path table's rows in
# order; a row without a visibility run in results.json is "not run".
# Only the plain rows (gpu "none") are read.

# A number with two decimals, as text ("-" for null).
def fixed2:
	if . == null then "-"
	else (. * 100 | round) as $c
		| "\($c / 100 | floor).\($c % 100 | tostring
			| if length < 2 then "0" + . else . end)"
	end;

# Pad text to width $w on the right.
def pad($w): . + ((" " * ($w - length)) // "");

# Who does the transport, by design, for path id P (the input).
def transport_label:
	{socket: "kernel UDP/IP",
	 xdp: "the XDP program: it drops, no transport",
	 afxdp: "user space: our parser on the UMEM frame",
	 dpdk: "user space: our parser on the mbuf",
	 verbs: "the NIC"}[.]
	// "not known";

# yes / no / partly for a count N of SENT datagrams.
def seen_verdict($n; $sent):
	if $n == 0 then "no" elif $n >= $sent then "yes" else "partly" end;

# Did tcpdump on the receiving interface see the datagrams? Its ring's
# drops were handed to tcpdump, so they count as seen.
def tcpdump_cell:
	(.tcpdump_seen // null) as $seen
	| (.tcpdump_dropped // 0) as $drop
	| .sent as $sent
	| if $seen == null then {verdict: "not measured", text: "not measured"}
	else seen_verdict($seen + $drop; $sent) as $v
		| {verdict: $v, seen: $seen, ring_dropped: $drop, sent: $sent,
		   text: ("\($v) (\($seen)/\($sent)"
			+ (if $drop > 0 then " + \($drop) ring drops" else "" end)
			+ ")")}
	end;

# Why a run has no evidence of its own (the VM's rows have none).
def no_evidence:
	if (.env // "" | startswith("vm")) then "not measured (run in the VM)"
	elif .path == "verbs" then "not measured (verbs runs apart)"
	else "not measured (run without --tradeoffs)" end;

# Did the netfilter counter in the rx namespace count them?
def netfilter_cell:
	.sent as $sent
	| .tradeoffs.netfilter as $nf
	| if $nf == null then {verdict: "not measured", text: no_evidence}
	elif $nf.packets == null then
		{verdict: "not measured", tool: $nf.tool, note: $nf.note,
		 text: "not measured (\($nf.note // "no counter"))"}
	else seen_verdict($nf.packets; $sent) as $v
		| {verdict: $v, packets: $nf.packets, sent: $sent, tool: $nf.tool,
		   hook: $nf.hook, rule: $nf.rule,
		   text: "\($v) (\($nf.packets)/\($sent))"}
	end;

# Did ss show a socket (and its queue) on the lab's port while the
# receiver ran? Packet sockets other than tcpdump's are named too.
def ss_cell:
	.tradeoffs.ss as $ss
	| if $ss == null then {verdict: "not measured", text: no_evidence}
	else ($ss.with_socket > 0) as $y
		| ($ss.packet_sockets // []) as $pk
		| {verdict: (if $y then "yes" else "no" end),
		   samples: $ss.samples, with_socket: $ss.with_socket,
		   recv_q_max: $ss.recv_q_max, drops: $ss.drops_max,
		   local: $ss.local, packet_sockets: $pk, command: $ss.command,
		   text: ((if $y then
				"yes (\($ss.with_socket)/\($ss.samples) samples,"
				+ " Recv-Q max \($ss.recv_q_max), drops \($ss.drops_max))"
			else "no (0/\($ss.samples) samples"
				+ (if ($pk | length) > 0
					then "; packet socket: \($pk | join(", "))"
					else "" end)
				+ ")" end))}
	end;

# CPU copies to the application, as the receiver reports them.
def copies_cell:
	{verdict: .copies_per_packet, per_packet: .copies_per_packet,
	 source: .copies_source, note: .copies_note,
	 text: "\(.copies_per_packet) (\(.copies_source // "?" | gsub("_"; " ")))"};

# Interrupts on the data path: IRQ lines of the receiving interface and
# NET_RX softirqs over the run. The harness's deltas where it took them;
# the receiver's own (over its window) for the VM's rows.
def irq_cell:
	.sent as $sent
	| (if .tradeoffs.interrupts != null then
		.tradeoffs.interrupts
		| {source, ifname, hw_irqs: .link, irq_lines: .link_lines,
		   net_rx_softirqs, all_interrupts: .all}
	else
		{source: "the receiver's deltas (\(.hw_irqs_source // "?"))",
		 ifname: .ifname,
		 hw_irqs: ((.hw_irqs_per_packet // 0) * (.received // 0) | round),
		 irq_lines: (if (.hw_irqs_source // "") | test("^no irq line|^none")
			then 0 else null end),
		 net_rx_softirqs: .kernel_net_rx_softirqs,
		 all_interrupts: .kernel_interrupts}
	end)
	| .verdict = (if .hw_irqs > 0 then "hardware IRQs"
		elif (.net_rx_softirqs // 0) > 0 then "softirqs only"
		else "none" end)
	| .text = "\(.verdict) (NET_RX \(if .net_rx_softirqs == null then "-"
			else .net_rx_softirqs / $sent | fixed2 end)/pkt, "
		+ (if .hw_irqs > 0 then "IRQs \(.hw_irqs / $sent | fixed2)/pkt)"
		elif .irq_lines == 0 then "no IRQ line)"
		else "IRQs 0)" end);

# Who does the transport: by design, with the kernel's UDP counters of
# the receiver's namespace as the evidence of whether the kernel's ran.
def transport_cell:
	(.env // "" | startswith("vm")) as $vm
	| (.path | transport_label
		| if . == "the NIC" and $vm
		then . + "; here Soft-RoCE, rxe in the guest kernel"
		else . end) as $l
	| (.kernel_udp_in_datagrams // 0) as $in
	| (.kernel_udp_no_ports // 0) as $np
	| {verdict: $l, by_design: true, udp_in_datagrams: $in,
	   udp_no_ports: $np, kernel_udp_ran: ($in > 0),
	   text: ("\($l) (by design; Udp InDatagrams +\($in)"
		+ (if $np > 0 then ", NoPorts +\($np)" else "" end) + ")")};

# One row of the table from one visibility run.
def run_row($m):
	{path, mode, frame_bytes, env, sent, received, runner: $m.runner,
	 status: "measured",
	 tcpdump: tcpdump_cell, netfilter: netfilter_cell, ss: ss_cell,
	 copies: copies_cell, interrupts: irq_cell,
	 transport: transport_cell};

# The row of a (path, mode) without a visibility run, and why.
def not_run_row:
	{path, mode, runner, status: "not run",
	 reason: (if .built | not then "not built"
		elif .selected | not then "not selected"
		else "no visibility run in results.json: failed or skipped, see raw/"
		end)};

# What each column means, for the JSON and the text's footnotes.
def notes: {
	tcpdump: "packets tcpdump captured on the receiving interface (plus what its ring dropped) / datagrams sent; end-of-train markers excluded",
	netfilter: "an nftables (else iptables) counter in the rx namespace, prerouting hook at raw priority, UDP to the lab's port, data only / datagrams sent",
	ss: "`ss -u -a -n -m` on the lab's port in the rx namespace, once when the receiver is ready and then every 50 ms while it runs; Recv-Q and drops (skmem d) are the socket's",
	copies: "the receiver's copies_per_packet and copies_source",
	interrupts: "deltas over the run of /proc/interrupts (the lines naming the receiving interface) and of NET_RX in /proc/softirqs, all CPUs, machine-wide: other traffic adds to them. veth has no hardware IRQs: with one queue the lab runs its receive work in a NAPI thread on the receive core (no NET_RX softirq for it); with several queues, in NET_RX softirqs on the sending CPUs; the same for every path",
	transport: "by design; Udp InDatagrams (and NoPorts) of the receiver's namespace say whether the kernel's UDP ran"
};

# results.json to tradeoffs.json.
def build:
	. as $r
	| [$r.runs[] | select(.workload == "visibility"
		and (.gpu // "none") == "none")] as $vis
	| {pathlab_tradeoffs: 1,
	   host: $r.host,
	   workload: "visibility",
	   rows: [($ARGS.named.modes // [])[] as $m
		| [$vis[] | select(.path == $m.path and .mode == $m.mode)]
		| if length == 0 then [$m | not_run_row]
		else sort_by(.frame_bytes) | map(run_row($m)) end
		| .[]],
	   notes: notes};

# tradeoffs.json to the text table and its footnotes.
def render:
	["path", "mode", "frame", "tcpdump", "netfilter", "ss",
		"copies/pkt", "interrupts", "transport"] as $head
	| [.rows[] | select(.status == "measured")
		| [.path, .mode, "\(.frame_bytes) B", .tcpdump.text,
		   .netfilter.text, .ss.text, .copies.text, .interrupts.text,
		   .transport.text]] as $cells
	| [range(0; $head | length) as $i
		| [($head[$i] | length), ($cells[][$i] | length),
			(if $i < 2 then .rows[] | [.path, .mode][$i] | length
			else empty end)] | max] as $w
	| def line: [range(0; length) as $i | .[$i] | pad($w[$i])]
		| join("  ") | sub(" +$"; "");
	"Trade-offs, measured: the visibility workload of each path"
		+ " (kernel \(.host.kernel // "?"), \(.host.cpus // "?") CPUs,"
		+ " \(.host.virtualization // "?"))",
	"",
	($head | line),
	(.rows[] | if .status == "measured" then
		[.path, .mode, "\(.frame_bytes) B", .tcpdump.text,
		 .netfilter.text, .ss.text, .copies.text, .interrupts.text,
		 .transport.text] | line
	else
		[.path, .mode, "not run (\(.reason))"] | line
	end),
	"",
	(.notes | to_entries[] | "\(.key): \(.value).");

if ($ARGS.named.format // "json") == "text" then render else build end
