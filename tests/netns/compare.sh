#!/usr/bin/env bash
# compare.sh - `pathlab compare --quick --sizes 64` end to end: it succeeds,
# results.json follows the contract's shape, the socket path's numbers add
# up, tcpdump sees the visibility run, and bad options exit 2.
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`, nothing built).
set -u

# shellcheck source-path=SCRIPTDIR source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
driver_env plcmp$$

# True if jq filter F is true on the one 64 B socket run of workload WL.
sock_is() {
	jq -e --arg wl "$1" '[.runs[] | select(.path == "socket"
		and .frame_bytes == 64 and .workload == $wl) | '"$2"'] == [true]' \
		"$OUT/results.json" >/dev/null
}

# True if every run has every field the schema's run object requires.
has_required() {
	local schema=$ROOT/common/results.schema.json missing
	[ -r "$schema" ] || { echo "     no $schema"; return 1; }
	missing=$(jq -r -n --slurpfile s "$schema" --slurpfile d "$OUT/results.json" \
		'$s[0]["$defs"].run.required as $req
		| [$d[0].runs[] | . as $r | $req[]
			| select(. as $k | $r | has($k) | not)] | unique | join(" ")')
	[ -z "$missing" ] || { echo "     missing: $missing"; return 1; }
}

need_compare jq tcpdump nsenter unshare

# The output; the driver should leave no lab, lab_down ends any it did.
scratch_dir
on_exit lab_down
OUT=$SCRATCH

# The paths that run in the lab's namespaces; verbs (the VM) and the GPU
# rows are checked apart, below.
PATHS=$(built_paths)

echo "# pathlab compare --paths $PATHS --quick --sizes 64 --out $OUT"
if "$PATHLAB" compare --paths "$PATHS" --quick --sizes 64 --out "$OUT"; then
	echo "ok   compare succeeded"
else
	echo "FAIL compare exited $?"
	FAILED=1
	for f in "$OUT"/raw/*.err; do
		[ -s "$f" ] && sed "s|^|     ${f##*/}: |" "$f"
	done
fi
check "lab torn down after compare" no_lab_left

echo "# results.json"
check "parses" res .
check "pathlab == 1" res '.pathlab == 1'
check "host has kernel, cpus, date, tsc_hz" \
	res '.host | (.kernel | length > 0) and .cpus >= 1 and
		(.date | test("^[0-9-]+T[0-9:]+Z$")) and .tsc_hz > 0'
check "a run per (path, mode, size, workload)" \
	res '[.runs[] | [.path, .mode, .frame_bytes, .workload]] |
		(length == (unique | length)) and length >= 3'
check "every path run has the three one-way workloads, and rtt where it reflects" \
	res '[.runs | group_by([.path, .mode])[] | {p: .[0].path, m: .[0].mode,
		w: (map(.workload) | sort)}] |
		all(.[]; .w == (["latency", "throughput", "visibility"]
			+ (if .p == "xdp" then [] else ["rtt"] end) | sort))'
check "every run: frame 64 B, sent from the generator" \
	res 'all(.runs[]; .frame_bytes == 64 and .sent_source == "generator"
		and .gen.tool == "pathlab-gen" and .sent == .gen.sent)'
check "every run: lost = max(0, sent - received)" \
	res 'all(.runs[]; .lost == ([.sent - .received, 0] | max))'
check "every run: unattributed = lost + end markers lost - sum(drops)" \
	res 'all(.runs[]; .unattributed == .lost + (.end_markers_lost // 0)
		- ([.drops[]] | add // 0))'
check "every run: the schema's required fields are there" has_required

echo "# the socket path"
check "throughput: received > 0" sock_is throughput '.received > 0'
jq -r '.runs[] | select(.path == "socket" and .workload == "throughput") |
	"     sent \(.sent) received \(.received) lost \(.lost)" +
	" drops \(.drops | tostring) unattributed \(.unattributed)"' \
	"$OUT/results.json"
# As in socket.sh: at most one SndbufErrors no counter explains, no more.
check "throughput: unattributed == 0 (or -1: one SndbufErrors the link did not see)" \
	sock_is throughput '.unattributed == 0 or
	(.unattributed == -1 and .drops.tx_udp_sndbuf_errors == 1)'
check "latency: one-way percentiles measured" sock_is latency \
	'.latency_ns.count > 0 and .latency_ns.p50 > 0
	and .latency_ns.p50 <= .latency_ns.p99'
check "visibility: tcpdump_seen == sent" sock_is visibility \
	'.tcpdump_seen == .sent'
check "rtt: 900 round trips after 100 warm-up pings, percentiles ordered" \
	sock_is rtt '.rtt_ns.kind == "round_trip" and
	.rtt_ns.count + .rtt_ns.timeouts == 900 and .rtt_ns.warmup == 100 and
	.rtt_ns.min > 0 and .rtt_ns.p50 <= .rtt_ns.p99 and
	.rtt_ns.p99 <= .rtt_ns.p999 and .rtt_ns.p999 <= .rtt_ns.max and
	.reflect.reflected >= .received and .received >= 1000'
check "the table was written" test -s "$OUT/table.txt"
check "the table says what its rtt figures are" \
	grep -q "^rtt rows: p50/p99/p99.9 are whole round trips" "$OUT/table.txt"

echo "# errors exit 2"
check "--paths bogus" exits_with 2 compare --paths bogus
check "--sizes 10" exits_with 2 compare --sizes 10
check "--sizes 1519" exits_with 2 compare --sizes 1519
check "--gpu nope" exits_with 2 compare --gpu nope
check "--count 0" exits_with 2 compare --count 0
check "--queues 0" exits_with 2 compare --queues 0
check "--queues 17" exits_with 2 compare --queues 17
check "--workloads bogus" exits_with 2 compare --workloads throughput,bogus
check "no lab left behind" no_lab_left

echo "# --gpu sim adds the GPU rows of the socket path"
if "$PATHLAB" compare --paths socket --gpu sim --quick --sizes 64 \
	--out "$OUT/gpu" >"$OUT/gpu.log" 2>&1; then
	check "--gpu sim: plain and GPU rows, every packet verified" \
		jq -e '([.runs[] | select(.gpu == "sim")] | length == 3) and
			([.runs[] | select(.gpu == "none")] | length == 4) and
			all(.runs[] | select(.gpu == "sim");
				.gpu_verified == .received and .received > 0)' \
		"$OUT/gpu/results.json"
else
	echo "FAIL compare --gpu sim"
	tail -n 20 "$OUT/gpu.log"
	FAILED=1
fi

echo "# --queues 2: two receive queues, two sender threads"
if "$PATHLAB" compare --paths socket --queues 2 --workloads throughput,rtt \
	--quick --sizes 64 --out "$OUT/q2" >"$OUT/q2.log" 2>&1; then
	check "--queues 2: both queues received and add up to the total" \
		jq -e '[.runs[] | select(.workload == "throughput")] | length == 1
			and all(.[]; .queue_count == 2 and .received > 0 and
				([.queues[].received] | add) == .received and
				all(.queues[]; .received > 0) and .gen.threads >= 1)' \
		"$OUT/q2/results.json"
	check "--queues 2: the round trip still completes" \
		jq -e '[.runs[] | select(.workload == "rtt")] | length == 1 and
			all(.[]; .rtt_ns.count + .rtt_ns.timeouts == 900)' \
		"$OUT/q2/results.json"
else
	echo "FAIL compare --queues 2"
	tail -n 20 "$OUT/q2.log"
	FAILED=1
fi
check "no lab left behind" no_lab_left

finish compare
