# merge.jq - one run object from a receiver's JSON and the generator's.
#
#   jq -n --slurpfile rx RX.json --slurpfile gen GEN.json \
#	--argjson tcpdump N_OR_NULL [--argjson tcpdump_dropped N] \
#	[--arg env_note TEXT] -f merge.jq
#
# With the rtt workload, the generator's round trips (pathlab-gen
# --pingpong) become rtt_ns, beside the receiver's one-way latency_ns.
# tcpdump is what tcpdump captured in a visibility run (null otherwise);
# tcpdump_dropped, optional, what its capture ring dropped; env_note
# (--arg), optional, a sentence on where the run ran.
# The receiver's object wins everywhere except what only the sender knows:
# how many datagrams left (sent), the drops counted on the sending side, and
# what follows from both. unattributed is not clamped: a negative value
# means a drop counter counted something that was not lost, a bug to see.
# End-of-train markers are UDP datagrams too: when one is dropped, a drop
# counter counts it although no data datagram was lost, so the markers the
# receiver knows it missed (end_markers_lost) are added back.

# Sum of an object's numeric values (0 for an empty or missing object).
def total: [(. // {})[] | numbers] | add // 0;

# Union of two {counter: count} objects; a shared key (there should be
# none) is summed rather than overwritten.
def union($a; $b):
	reduce (($b // {}) | to_entries[]) as $e (($a // {});
		.[$e.key] = ((.[$e.key] // 0) + $e.value));

$rx[0] as $r
| $gen[0] as $g
| ($g.sent // 0) as $sent
| ([$sent - ($r.received // 0), 0] | max) as $lost
| union($r.drops; $g.drops) as $drops
| $r + {
	sent: $sent,
	sent_source: "generator",
	lost: $lost,
	drops: $drops,
	unattributed: ($lost + ($r.end_markers_lost // 0) - ($drops | total)),
	gen: $g
}
| if $tcpdump != null then .tcpdump_seen = $tcpdump else . end
| if ($ARGS.named.tcpdump_dropped // null) != null
	then .tcpdump_dropped = $ARGS.named.tcpdump_dropped else . end
| if ($ARGS.named.env_note // null) != null
	then .env_note = $ARGS.named.env_note else . end
| if $g.rtt then .rtt_ns = {
	kind: "round_trip",
	clock: "CLOCK_MONOTONIC of the sender",
	count: $g.rtt.samples, min: $g.rtt.min_ns, mean: $g.rtt.mean_ns,
	p50: $g.rtt.p50_ns, p99: $g.rtt.p99_ns, p999: $g.rtt.p999_ns,
	max: $g.rtt.max_ns, warmup: $g.rtt.warmup,
	timeouts: $g.rtt.timeouts,
	note: "the whole round trip; sockperf and perftest print half of it"
} else . end
