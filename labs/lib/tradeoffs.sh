# shellcheck shell=bash
# tradeoffs.sh - `pathlab compare --tradeoffs`: the trade-off table of the
# receive paths, measured. For each path and mode, its visibility run says
# whether tcpdump, a netfilter counter and ss see the packets, how many CPU
# copies reach the application, which interrupts the data path takes and
# whether the kernel's UDP ran.
#
# Around each visibility run, cmp_run (run.sh) calls
#   tr_run_start BASE RX_PID  once the receiver is ready: a counting rule in
#       the rx namespace, /proc/interrupts and /proc/softirqs read, one ss
#       sample, and an ss sampler (tradeoffs-ss.sh) while the receiver lives;
#   tr_run_stop BASE          once the run is merged: the sampler stopped,
#       the rule read and removed, the counters read again. The evidence
#       goes to BASE.tradeoffs.json and into the run object as "tradeoffs".
# After the runs, tr_report makes OUT/tradeoffs.json and OUT/tradeoffs.txt
# from results.json (tradeoffs.jq) and prints the table.
#
# On two hosts (hosts.sh: --iface, --pci) the receivers run in this
# machine's own namespace, and so do the rule and ss; the rule is our own
# nftables table (pathlab_tradeoffs), removed after each run.
#
# Needs topo.sh, paths.sh, proc.sh and run.sh sourced.

# The nftables table and the iptables chain of the counting rule.
TR_NFT_TABLE=pathlab_tradeoffs
TR_IPT_CHAIN=PATHLAB_TRADEOFFS
# Seconds between two ss samples while the receiver runs.
TR_SS_PERIOD=0.05
# The sampler's PID and the tool of the counting rule, per run.
TR_SS_PID=""
TR_NF_TOOL=""
TR_NF_NOTE=""

# True when the receivers run on this machine's own interface, not in the
# lab's rx namespace (two hosts: hosts.sh, --iface or --pci).
# TR_HERE=1 says so where the hosts state is not known (the watchdog).
tr__two_hosts() {
	[ -n "${TR_HERE:-}" ] || { declare -F hosts_lab >/dev/null && ! hosts_lab; }
}

# Run CMD where the receivers run: the lab's rx namespace, or here.
tr__rx() {
	if tr__two_hosts; then
		"$@"
	else
		ns_exec rx "$@"
	fi
}

# Print the nftables script of the counting rule: the earliest IP hook of
# the rx namespace (prerouting, raw priority), UDP to the lab's port, data
# only: byte 10 of the UDP datagram is the pathlab flags byte, and 0x20
# marks the end-of-train markers (tcpdump's filter excludes them too).
tr__nft_script() {
	cat <<EOF
table inet $TR_NFT_TABLE
delete table inet $TR_NFT_TABLE
table inet $TR_NFT_TABLE {
	chain prerouting {
		type filter hook prerouting priority raw; policy accept;
		udp dport $PL_UDP_PORT @th,80,8 & 0x20 == 0 counter
	}
}
EOF
}

# Add the same rule with iptables: raw PREROUTING jumps to our own chain,
# whose one rule counts (u32: the IP header length, then UDP byte 10).
tr__ipt_add() {
	tr__ipt_remove
	tr__rx iptables -t raw -N "$TR_IPT_CHAIN" &&
		tr__rx iptables -t raw -A "$TR_IPT_CHAIN" -p udp \
			--dport "$PL_UDP_PORT" -m u32 \
			--u32 '0>>22&0x3C@10>>24&0x20=0' &&
		tr__rx iptables -t raw -I PREROUTING -j "$TR_IPT_CHAIN"
}

# Remove the iptables chain, if it is there.
tr__ipt_remove() {
	tr__rx iptables -t raw -D PREROUTING -j "$TR_IPT_CHAIN" 2>/dev/null || :
	tr__rx iptables -t raw -F "$TR_IPT_CHAIN" 2>/dev/null || :
	tr__rx iptables -t raw -X "$TR_IPT_CHAIN" 2>/dev/null || :
}

# Add the counting rule with nft, else iptables; set TR_NF_TOOL (empty:
# not measured, TR_NF_NOTE says why). A rule that cannot be added leaves
# the cell unmeasured; it does not fail the run.
tr_nf_add() {
	TR_NF_TOOL=""
	TR_NF_NOTE=""
	# The driver's watchdog removes a rule here if the driver is killed.
	! tr__two_hosts || pl_journal nf-here
	if command -v nft >/dev/null; then
		if tr__nft_script | tr__rx nft -f - 2>"$1.nf.err"; then
			TR_NF_TOOL=nft
		else
			TR_NF_NOTE="nft could not add the rule: $(head -n 1 "$1.nf.err")"
		fi
	elif command -v iptables >/dev/null; then
		if tr__ipt_add 2>"$1.nf.err"; then
			TR_NF_TOOL=iptables
		else
			TR_NF_NOTE="iptables could not add the rule: $(head -n 1 "$1.nf.err")"
		fi
	else
		TR_NF_NOTE="neither nft nor iptables is installed (package nftables)"
	fi
	[ -z "$TR_NF_NOTE" ] || echo "pathlab: tradeoffs: $TR_NF_NOTE" >&2
	return 0
}

# Print the packet count of the counting rule of TR_NF_TOOL.
tr_nf_read() {
	case $TR_NF_TOOL in
	nft)
		tr__rx nft -j list table inet "$TR_NFT_TABLE" |
			jq -e '[.. | objects | select(has("counter"))
				| .counter.packets] | add' ;;
	iptables)
		tr__rx iptables -t raw -L "$TR_IPT_CHAIN" -v -x -n |
			awk 'NR == 3 { print $1; found = 1 } END { exit !found }' ;;
	*) return 1 ;;
	esac
}

# Remove the counting rule (either tool), wherever it is.
tr_nf_remove() {
	tr__two_hosts || ns_exists "$(topo_ns rx 2>/dev/null)" || return 0
	if command -v nft >/dev/null; then
		tr__rx nft delete table inet "$TR_NFT_TABLE" 2>/dev/null || :
	fi
	if command -v iptables >/dev/null; then
		tr__ipt_remove
	fi
	return 0
}

# Print, summed over all CPUs: every /proc/interrupts count, those of the
# lines that name interface IFNAME, how many such lines there are, and the
# NET_RX row of /proc/softirqs. Machine-wide: not per namespace.
tr__irq_read() {
	awk -v ifn="$1" '
		FILENAME ~ /interrupts$/ && FNR == 1 { ncpu = NF; next }
		FILENAME ~ /interrupts$/ {
			n = 0
			for (i = 2; i <= ncpu + 1 && i <= NF; i++)
				if ($i ~ /^[0-9]+$/) n += $i
			all += n
			if (ifn != "" && index($0, ifn)) { link += n; lines++ }
			next
		}
		$1 == "NET_RX:" { for (i = 2; i <= NF; i++) rx += $i }
		END { printf "%.0f %.0f %d %.0f\n", all, link, lines, rx }' \
		/proc/interrupts /proc/softirqs
}

# Print the JSON of the interrupt deltas between files BEFORE and AFTER.
tr__irq_json() {
	local a b
	read -r -a a <"$1" || return 1
	read -r -a b <"$2" || return 1
	jq -n --arg ifname "$PL_RX_IF" \
		--argjson all "$((b[0] - a[0]))" --argjson link "$((b[1] - a[1]))" \
		--argjson lines "${b[2]}" --argjson net_rx "$((b[3] - a[3]))" \
		'{source: "/proc/interrupts and /proc/softirqs, all CPUs, before and after the run",
		  ifname: $ifname, all: $all, link: $link, link_lines: $lines,
		  net_rx_softirqs: $net_rx}'
}

# Print the JSON summary of the ss samples in FILE: how many samples, how
# many showed a socket on the port, its largest Recv-Q (bytes) and the
# socket's drop count (skmem d), and its local address.
tr__ss_json() {
	awk '
		/^# sample/ { n++; next }
		/^[A-Z-]+[ \t]/ {
			if (last != n) { with++; last = n }
			if ($2 + 0 > q) q = $2 + 0
			if (addr == "") addr = $4
			next
		}
		/skmem:/ && match($0, /,d[0-9]+\)/) {
			d = substr($0, RSTART + 2, RLENGTH - 3) + 0
			if (d > drops) drops = d
		}
		END {
			printf "{\"samples\": %d, \"with_socket\": %d, ", n, with
			printf "\"recv_q_max\": %d, \"drops_max\": %d, ", q, drops
			printf "\"local\": \"%s\"}\n", addr
		}' "$1"
}

# Print the JSON array of the processes that hold a packet socket bound
# to interface IFNAME, from `ss -H -0 -p` output in FILE (tcpdump's own,
# which the visibility run starts, left out).
tr__packet_owners() {
	awk -v ifn="$2" '$5 == "*:" ifn' "$1" 2>/dev/null |
		grep -o 'users:(("[^"]*"' | sed 's/.*"\(.*\)"/\1/' |
		grep -vx tcpdump | sort -u |
		jq -R -s 'split("\n") | map(select(length > 0))'
}

# Before the traffic of a visibility run: the rule, the counters, the first
# ss sample (the receiver is ready, so its socket is bound) and the sampler
# for as long as the receiver RX_PID lives.
tr_run_start() {
	local base=$1 rx_pid=$2
	TR_SS_PID=""
	tr_nf_add "$base"
	tr__irq_read "$PL_RX_IF" >"$base.irq-before" || return 1
	{
		echo "# sample (receiver ready)"
		tr__rx ss -H -u -a -n -m "sport = :$PL_UDP_PORT"
	} >"$base.ss.txt" 2>"$base.ss.err"
	tr__rx ss -H -0 -a -n -p >"$base.ss-packet.txt" 2>>"$base.ss.err"
	if tr__two_hosts; then
		bash "$PATHLAB_LIB/tradeoffs-ss.sh" "$PL_UDP_PORT" \
			"$TR_SS_PERIOD" "$rx_pid" </dev/null >>"$base.ss.txt" \
			2>>"$base.ss.err" &
		TR_SS_PID=$!
	else
		ns_spawn TR_SS_PID rx bash "$PATHLAB_LIB/tradeoffs-ss.sh" \
			"$PL_UDP_PORT" "$TR_SS_PERIOD" "$rx_pid" \
			</dev/null >>"$base.ss.txt" 2>>"$base.ss.err" || return 1
	fi
	pl_track "$TR_SS_PID"
}

# Stop the ss sampler (it ends by itself once the receiver has).
tr__ss_stop() {
	[ -n "$TR_SS_PID" ] || return 0
	if ! pl_wait_gone "$TR_SS_PID" 1; then
		kill -TERM "$TR_SS_PID" 2>/dev/null
		pl_wait_gone "$TR_SS_PID" 3 || kill -KILL "$TR_SS_PID" 2>/dev/null
	fi
	pl_reap "$TR_SS_PID"
	TR_SS_PID=""
}

# Print the netfilter evidence as JSON: the tool, the rule and its count.
tr__nf_json() {
	local n=null
	if [ -n "$TR_NF_TOOL" ]; then
		n=$(tr_nf_read 2>>"$1.nf.err") || {
			n=null
			TR_NF_NOTE="could not read the counter: $(tail -n 1 "$1.nf.err")"
		}
	fi
	jq -n --arg tool "$TR_NF_TOOL" --argjson packets "$n" \
		--arg note "$TR_NF_NOTE" --argjson port "$PL_UDP_PORT" \
		'{tool: (if $tool == "" then null else $tool end),
		  hook: "prerouting, raw priority, rx namespace",
		  rule: "udp dport \($port), data only (end markers excluded)",
		  packets: $packets}
		| if $note != "" then .note = $note else . end'
}

# After a visibility run: collect the evidence into BASE.tradeoffs.json,
# add it to BASE.run.json as "tradeoffs", remove the rule.
tr_run_stop() {
	local base=$1 nf ss irq
	tr__ss_stop
	tr__irq_read "$PL_RX_IF" >"$base.irq-after" || return 1
	nf=$(tr__nf_json "$base") || return 1
	tr_nf_remove
	ss=$(tr__ss_json "$base.ss.txt") || return 1
	irq=$(tr__irq_json "$base.irq-before" "$base.irq-after") || return 1
	jq -n --argjson nf "$nf" --argjson ss "$ss" --argjson irq "$irq" \
		--argjson owners "$(tr__packet_owners "$base.ss-packet.txt" \
			"$PL_RX_IF")" \
		--arg cmd "ss -H -u -a -n -m 'sport = :$PL_UDP_PORT'" \
		'{netfilter: $nf,
		  ss: ($ss + {command: $cmd, packet_sockets: $owners}),
		  interrupts: $irq}' >"$base.tradeoffs.json" || return 1
	jq --slurpfile ev "$base.tradeoffs.json" '.tradeoffs = $ev[0]' \
		"$base.run.json" >"$base.run.json.tmp" &&
		mv "$base.run.json.tmp" "$base.run.json"
}

# Print the (path, mode) rows of the path table as JSON, each with how it
# runs and whether it is built and selected for this compare.
tr__modes_json() {
	local p m sel
	for p in $(path_ids); do
		sel=0
		[[ " ${CMP_PATHS[*]} " == *" $p "* ]] && sel=1
		for m in $(path_modes "$p"); do
			printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$m" "$(path_runner "$p")" \
				"$(path_built "$p" && echo 1 || echo 0)" "$sel"
		done
	done | jq -R -s 'split("\n") | map(select(length > 0) | split("\t")
		| {path: .[0], mode: .[1], runner: .[2],
		   built: (.[3] == "1"), selected: (.[4] == "1")})'
}

# After the runs: OUT/tradeoffs.json and OUT/tradeoffs.txt from
# OUT/results.json, and the table on stdout.
tr_report() {
	local out=$CMP_OUT
	tr_nf_remove
	jq --argjson modes "$(tr__modes_json)" --arg format json \
		-f "$PATHLAB_LIB/tradeoffs.jq" "$out/results.json" \
		>"$out/tradeoffs.json" || return 1
	jq -r --arg format text -f "$PATHLAB_LIB/tradeoffs.jq" \
		"$out/tradeoffs.json" >"$out/tradeoffs.txt" || return 1
	echo
	cat "$out/tradeoffs.txt"
	echo "pathlab: trade-offs in $out/tradeoffs.json and tradeoffs.txt"
}
