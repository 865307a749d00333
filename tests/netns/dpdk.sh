#!/usr/bin/env bash
# The DPDK path in the lab, on both virtual devices (net_af_packet and
# net_af_xdp on the veth): exact counts at a sustainable rate, every loss
# attributed at full speed, NoPorts showing that af_packet leaves the kernel
# stack in the path, malformed frames counted by reason in our parser,
# --trace with the run's real polls, mbuf addresses and lengths, runs
# in a row and at once that do not collide, clear errors for bad arguments,
# --hw-stamps refused (exit 77) on the vdevs, which have no RX stamps,
# and no runtime files left, even by a receiver killed with SIGKILL.
#
# Who cleans up after SIGKILL: a killed receiver cannot run
# rte_eal_cleanup(), so its /var/run/dpdk/pathlab-PID stays. The next
# pathlab-rx-dpdk to start removes every pathlab-PID directory whose PID is
# dead (and only those). An af_xdp receiver also leaves its XDP program on
# the interface; the lab teardown (deleting the namespace) removes it.
set -u
. "$(dirname "$0")/lib.sh"

RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
if [ ! -x "$RX_DPDK" ]; then
	echo "SKIP: $RX_DPDK not built (libdpdk not found by meson)"
	exit 77
fi
netns_setup
# The pollers' own placement (labs/lib/paths.tsv): veth's NAPI thread on
# the other core, not taking turns with a loop that never sleeps.
topo_napi_place other-core || { echo "FAIL: topo_napi_place other-core"; exit 1; }
RUNDIR=/var/run/dpdk

# Our runtime directories under /var/run/dpdk (pathlab-PID), one a line.
runtime_left() {
	find "$RUNDIR" -mindepth 1 -maxdepth 1 -name 'pathlab-*' 2>/dev/null
}

# True when no runtime directory of the PIDs given is left.
none_left() {
	local pid
	for pid in "$@"; do
		[ -e "$RUNDIR/pathlab-$pid" ] && return 1
	done
	return 0
}

TX="--iface $PL_TX_IF --cpu 0"
for kind in af_packet af_xdp; do
	# Deep rings: the CPUs are shared, and a receiver that loses its
	# core for 100 ms at 50 kpps needs 5,000 slots to lose nothing.
	RX="--iface $PL_RX_IF --vdev-kind $kind --cpu 1 --idle-timeout 3000"
	DEEP="--rx-desc 16384 --mbufs 32767"

	# 1. 100,000 datagrams at a rate the poll loop keeps up with.
	run_pair_exact "$kind-paced" "$RX_DPDK" "$RX $DEEP --count 100000" \
		"$TX --count 100000 --rate 25000 --batch 8"
	f=$TMP/$kind-paced.json
	# af_packet: the kernel also sees each datagram, finds no socket on
	# the port and now and then (rate-limited) answers with an ICMP port
	# unreachable; the generator's connected socket fails one sendmmsg()
	# with ECONNREFUSED and sends that batch again. The count stays exact.
	check "$kind paced: generator sent 100000" \
		'.sent == 100000 and (.gen.send_errors == 0 or ("'$kind'" == "af_packet"
		 and .gen.last_error == "Connection refused"))' "$f" \
		'{sent, send_errors: .gen.send_errors, last_error: .gen.last_error}'
	check "$kind paced: all received, none lost" \
		'.received == 100000 and .lost == 0 and .bad == 0 and .duplicates == 0' \
		"$f" '{received, lost, drops, bad}'
	check "$kind paced: path dpdk, mode $kind, env veth" \
		".path == \"dpdk\" and .mode == \"$kind\" and .env == \"veth-napi\"" "$f"
	check "$kind paced: the PMD counted what we parsed" \
		'.dpdk.eth_stats.ipackets >= .received + .end_markers' "$f" '.dpdk.eth_stats'
	check "$kind paced: the poll loop mostly found nothing (it spins)" \
		'.dpdk.empty_poll_share > 0.5 and .dpdk.polls > .received / 32' \
		"$f" '.dpdk'
	check "$kind paced: busy cycles per packet measured, below the loop's" \
		'.dpdk.busy_cycles_per_packet > 0 and
		 .dpdk.busy_cycles_per_packet < .dpdk.loop_cycles_per_packet' "$f"
	check "$kind paced: never slept (no wake-ups)" '.wakeups_per_packet < 0.001' "$f"
	check "$kind paced: hugepages stated" \
		'.dpdk.hugepages.used or (.dpdk.hugepages.note | length > 0)' "$f"
	if [ "$kind" = af_packet ]; then
		check "af_packet: the kernel stack saw every datagram (NoPorts)" \
			'.kernel_udp_no_ports >= .received and .kernel_udp_in_datagrams == 0' \
			"$f" '{kernel_udp_no_ports, received}'
		check "af_packet: two copies per packet, by design" \
			'.copies_per_packet == 2 and .copies_source == "by_design"' "$f"
	else
		check "af_xdp: the kernel stack saw none of them (NoPorts 0)" \
			'.kernel_udp_no_ports == 0 and .kernel_udp_in_datagrams == 0' \
			"$f" '{kernel_udp_no_ports, received}'
		check "af_xdp: one copy per packet (copy mode), by design" \
			'.copies_per_packet == 1 and .copies_source == "by_design"' "$f"
	fi
	check "$kind paced: link saw every datagram" '.link_rx_packets >= .sent' "$f"
	pfx=$(jq -r '.dpdk.eal_args | .[index("--file-prefix") + 1]' "$f")
	if [ -n "$pfx" ] && [ ! -e "$RUNDIR/$pfx" ]; then
		ok "$kind paced: $RUNDIR/$pfx removed by rte_eal_cleanup and exit"
	else
		bad "$kind paced: $RUNDIR/$pfx left behind"
	fi

	# 2. As fast as the generator goes, on a shallow ring so that the
	# receiver may fall behind: whatever is lost is attributed.
	run_pair "$kind-full" "$RX_DPDK" \
		"$RX --rx-desc 256 --count 300000 --xstats" \
		"$TX --count 300000"
	f=$TMP/$kind-full.json
	if [ "$kind" = af_packet ]; then
		# The packet ring also drops frames that are not data: the end
		# markers and the ICMP port-unreachable replies the kernel
		# sends out (a packet socket sees outgoing frames too). Its
		# drop count may exceed the data lost by those few.
		check "af_packet full speed: every loss attributed (unattributed 0 .. -(markers + ICMP))" \
			'.unattributed <= 0 and .unattributed >= -(.gen.end_markers_sent + 10)' \
			"$f" '{sent, received, lost, drops, unattributed}'
	else
		# The link's rx_dropped counts dropped end markers too.
		check "af_xdp full speed: every loss attributed (unattributed 0 .. -markers)" \
			'.unattributed <= 0 and .unattributed >= -.gen.end_markers_sent' \
			"$f" '{sent, received, lost, drops, unattributed}'
	fi
	check "$kind full speed: received + lost = sent" \
		'.received + .lost == .sent' "$f"
	check "$kind full speed: xstats reported" '.dpdk.xstats | length > 0' "$f"
	echo "   $kind full speed: $(jq -c '{sent, received, lost, drops, pps}' "$f")"

	# 3. Every 10th frame malformed, raw on AF_PACKET: DPDK sees the
	# frames before any kernel check, so our parser counts every reason.
	run_pair_exact "$kind-bad" "$RX_DPDK" "$RX $DEEP --count 20000" \
		"$TX --count 20000 --rate 20000 --batch 4 --tx packet --bad-every 10"
	f=$TMP/$kind-bad.json
	check "$kind malformed: good datagrams all received" \
		'.received == .sent and .sent == 20000' "$f"
	if [ "$kind" = af_packet ]; then
		# The packet socket is a tap inside the kernel's receive path:
		# it runs after VLAN untagging (a cut-off tag is dropped before
		# any tap), and the PMD's fanout asks the kernel to reassemble
		# fragments first (PACKET_FANOUT_FLAG_DEFRAG): those two
		# reasons never reach us; the fragments show in ReasmReqds,
		# once for the fanout and once for the stack.
		hidden='["vlan_trunc", "ip_frag"]'
		check "af_packet malformed: fragments held by the kernel's defrag (ReasmReqds 2x)" \
			'.bad_by_reason.ip_frag == 0 and
			 .kernel_ip_reasm_reqds == 2 * .gen.bad_sent_by_reason.ip_frag' \
			"$f" '{kernel_ip_reasm_reqds, sent: .gen.bad_sent_by_reason.ip_frag}'
		check "af_packet malformed: cut-off VLAN tags never reach a tap" \
			'.bad_by_reason.vlan_trunc == 0 and .gen.bad_sent_by_reason.vlan_trunc > 0' "$f"
	else
		hidden='[]' # the XDP program sees each frame as the veth got it
	fi
	check "$kind malformed: every other reason counted exactly by our parser" \
		". as \$f | [.gen.bad_sent_by_reason | to_entries[] | select(.value > 0)
		 | .key | select(IN(${hidden}[]) | not)] as \$k | (\$k | length) >= 10 and
		 all(\$k[]; \$f.bad_by_reason[.] == \$f.gen.bad_sent_by_reason[.])" \
		"$f" '{sent: .gen.bad_sent_by_reason, ours: .bad_by_reason}'
	check "$kind malformed: nothing counted bad that was not sent bad" \
		".bad == ([.gen.bad_sent_by_reason | to_entries[]
		 | select(.key | IN(${hidden}[]) | not) | .value] | add)" "$f"
done

# 4b. --trace: the first 20 frames step by step, on both virtual devices.
for kind in af_packet af_xdp; do
	RX="--iface $PL_RX_IF --vdev-kind $kind --cpu 1 --idle-timeout 3000 $DEEP"
	case $kind in
	af_packet) into='PMD copies packet ring -> mbuf' ;;
	af_xdp) into='kernel copies frame into mbuf (UMEM)' ;;
	esac
	run_pair_exact "$kind-trace" "$RX_DPDK" \
		"$RX --count 500 --trace 20 --trace-file $TMP/$kind-trace.txt" \
		"$TX --count 500 --rate 2000 --batch 2 --size 128"
	tr=$TMP/$kind-trace.txt
	f=$TMP/$kind-trace.json
	steps=$(grep '^\[pkt' "$tr" | sed -E 's/^\[pkt +[0-9]+\] +[-0-9.]+ +[a-z]+ +[a-z]+ +//; s/  .*//; s/ [a-z_]+=.*//' |
		sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s:%s ", substr($0, 2), n }')
	good=1
	for s in 'rte_eth_rx_burst (poll)' "$into" 'parse (mtod)' 'free mbufs to the pool'; do
		[ "$(grep -cF "$s" "$tr")" -eq 20 ] || good=0
	done
	[ $good -eq 1 ] && [ "$(grep -c '^\[pkt' "$tr")" -eq 80 ] &&
		ok "$kind trace: 20 frames, four steps each ($steps)" ||
		bad "$kind trace: expected 4 x 20 steps: $steps"
	for s in 'rte_eal_init' 'mbuf pool' 'rte_eth_dev_configure' 'RX queue setup' 'rte_eth_dev_start'; do
		grep -q "^\[setup.*$s" "$tr" || bad "$kind trace: setup step '$s' missing"
	done
	grep -q '^\[setup.*mbuf pool .* mbufs=32767 ' "$tr" &&
		grep -Eq '^\[setup.*RX queue setup .* descriptors=[1-9]' "$tr" &&
		ok "$kind trace: setup: EAL, a pool of 32767 mbufs, the RX queue, started" ||
		bad "$kind trace: setup: $(grep '^\[setup' "$tr")"
	order=$(grep '^\[pkt' "$tr" |
		sed -E 's/^\[pkt +([0-9]+)\] +[-0-9.]+ +[a-z]+ +[a-z]+ +(....).*/\1 \2/' |
		awk '{ s[$1] = s[$1] $2 } END { for (k in s) print s[k] }' | sort -u)
	[ "$order" = "rte_$(echo "$into" | cut -c1-4 | cut -d' ' -f1)parsfree" ] &&
		ok "$kind trace: every frame went rx_burst -> mbuf -> parse -> free" ||
		bad "$kind trace: step order per frame: $order"
	val() { grep -F "$1" "$tr" | sed "s/.* $2=\([0-9a-fx]*\).*/\1/" | tr '\n' ' '; }
	# af_packet also hands us the link's other frames (ARP, IPv6: the
	# kernel's own, both ways): traced too, and parsed as not ours.
	labseqs=$(grep -F 'parse (mtod)' "$tr" | grep ' reason=0 ' | sed 's/.* seq=\([0-9]*\).*/\1/' | tr '\n' ' ')
	nlab=$(echo "$labseqs" | wc -w)
	others=$(grep -F 'parse (mtod)' "$tr" | grep -vc ' reason=0 ')
	want=20
	[ "$kind" = af_packet ] && want=5
	[ "$nlab" -ge "$want" ] && [ $((nlab + others)) -eq 20 ] &&
		[ "$labseqs" = "$(seq -s ' ' 0 $((nlab - 1))) " ] &&
		ok "$kind trace: lab sequence numbers 0..$((nlab - 1)) in order (and $others other frames)" ||
		bad "$kind trace: lab sequence numbers were: $labseqs ($others others)"
	flen=$(($(jq .payload_bytes "$f") + 42))
	lens=$(grep -F -e "$into" -e 'parse (mtod)' "$tr" |
		awk '/data_len=/ { sub(/.*data_len=/, ""); l = $1 } / reason=0 / { print l }' | sort -u)
	[ "$lens" = "$flen" ] && ok "$kind trace: mbuf data_len of every lab frame = the frame ($flen B: payload + 42)" ||
		bad "$kind trace: data_len '$lens', frame $flen"
	# Every mbuf lies in the pool's memory and belongs to the pool.
	lo=$(grep '^\[setup.*mbuf pool' "$tr" | sed 's/.* addr=\(0x[0-9a-f]*\).*/\1/')
	span=$(grep '^\[setup.*mbuf pool' "$tr" | sed 's/.* bytes=\([0-9]*\).*/\1/')
	good=1
	for a in $(val "$into" data_addr); do
		[ $((a)) -ge $((lo)) ] && [ $((a)) -lt $((lo + span)) ] || good=0
	done
	[ $good -eq 1 ] && [ "$(val "$into" pool_addr | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)" -eq 1 ] &&
		ok "$kind trace: every mbuf lies inside the pool's $span bytes, one pool" ||
		bad "$kind trace: mbuf addresses $(val "$into" data_addr) outside $lo + $span"
	polls=$(val 'rte_eth_rx_burst' poll)
	sorted=$(echo "$polls" | tr ' ' '\n' | sed '/^$/d' | sort -n | tr '\n' ' ')
	last=$(echo "$polls" | awk '{ print $NF }')
	[ "$polls" = "$sorted" ] && [ "$last" -le "$(jq .dpdk.polls "$f")" ] &&
		[ "$(val 'rte_eth_rx_burst' returned | tr ' ' '\n' | sed '/^$/d' | sort -n | head -1)" -ge 1 ] &&
		ok "$kind trace: poll numbers advance, within the run's $(jq .dpdk.polls "$f") polls" ||
		bad "$kind trace: poll numbers '$polls'"
	check "$kind trace: the traced run still received everything" \
		'.received == 500 and .lost == 0' "$f"
done

# 4. Two runs in a row, then two at once (each its own file prefix). At
# 20 kpps the paced generator spins on CPU 0 between sends, so NAPI goes
# back beside the receivers: two pollers and NAPI share CPU 1, and the
# sender keeps a core of its own.
topo_napi_place rx-core || bad "topo_napi_place rx-core"
RX="--iface $PL_RX_IF --vdev-kind af_packet --cpu 1 --idle-timeout 3000 $DEEP"
run_pair_exact row1 "$RX_DPDK" "$RX --count 20000" "$TX --count 20000 --rate 20000"
run_pair_exact row2 "$RX_DPDK" "$RX --count 20000" "$TX --count 20000 --rate 20000"
check "in a row: first run exact" '.received == 20000 and .lost == 0' "$TMP/row1.json"
check "in a row: second run exact" '.received == 20000 and .lost == 0' "$TMP/row2.json"

pids=()
for i in 1 2; do
	ns_spawn pid rx "$RX_DPDK" $RX --count 20000 --quiet \
		--ready "$TMP/both$i.ready" --json "$TMP/both$i.json" \
		2>"$TMP/both$i.err"
	pids+=("$pid")
	NETNS_PIDS="${NETNS_PIDS:-} $pid"
	wait_file "$TMP/both$i.ready" "$pid" ||
		bad "at once: receiver $i did not start: $(cat "$TMP/both$i.err")"
done
# Two pollers and NAPI take turns on CPU 1: half the rate, so veth's ring
# (256 frames) outlasts a time slice of the other two.
ns_exec tx "$GEN" --dst "$PL_RX_ADDR" $TX --count 20000 --rate 10000 --quiet \
	--json "$TMP/both.gen.json" 2>"$TMP/both.gen.err"
for i in 1 2; do
	wait "${pids[i - 1]}" || bad "at once: receiver $i exited $?: $(cat "$TMP/both$i.err")"
	check "at once: receiver $i got all 20000 (af_packet: each socket a copy)" \
		'.received == 20000 and .lost == 0' "$TMP/both$i.json"
done
p1=$(jq -r '.dpdk.eal_args | .[index("--file-prefix") + 1]' "$TMP/both1.json")
p2=$(jq -r '.dpdk.eal_args | .[index("--file-prefix") + 1]' "$TMP/both2.json")
if [ "$p1" != "$p2" ] && none_left "${pids[@]}"; then
	ok "at once: prefixes $p1 and $p2 differ, both removed"
else
	bad "at once: prefixes '$p1' '$p2', left: $(runtime_left)"
fi

# 5. Bad arguments: a clear error, a non-zero exit, no crash, no files.
expect_error() { # NAME EXPECTED-TEXT ARGS...
	local name=$1 text=$2 rc
	shift 2
	ns_exec rx "$RX_DPDK" "$@" >"$TMP/err.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q -- "$text" "$TMP/err.out"; then
		ok "$name: exit $rc, says '$text'"
	else
		bad "$name: exit $rc, wanted '$text': $(tail -3 "$TMP/err.out")"
	fi
}
before=$(runtime_left | sort)
expect_error "bad EAL option" "not an option DPDK 22.11 takes" \
	--no-such-eal-option -- --count 1
expect_error "bad lcore" "EAL: Invalid argument" \
	-l 999 --no-huge --no-pci --no-shconf --file-prefix pltest$$ -- --count 1
expect_error "unknown vdev key" "takes no key 'no_such_key'" \
	-l 1 --no-huge -m 512 --no-pci --no-shconf --file-prefix pltest$$ \
	--vdev=net_af_packet0,iface=$PL_RX_IF,no_such_key=1 -- --iface $PL_RX_IF --count 1
expect_error "bad vdev argument" "did not probe" \
	-l 1 --no-huge -m 512 --no-pci --no-shconf --file-prefix pltest$$ \
	--vdev=net_af_packet0,iface=$PL_RX_IF,qpairs=0 -- --iface $PL_RX_IF --count 1
expect_error "missing interface" "'nosuch0' is no interface in this network namespace" \
	--iface nosuch0 --count 1
expect_error "missing PCI device" "no PCI device" --pci 0000:ff:1f.7 --count 1
expect_error "neither --iface nor --pci" "give --iface" --count 1
# The default route's device is refused before EAL starts, so this one
# runs in the root namespace, where the route is; nothing is touched.
defif=$(awk '$2 == "00000000" && $8 == "00000000" { print $1; exit }' /proc/net/route)
defdev=$(readlink -f "/sys/class/net/$defif/device" 2>/dev/null)
case ${defdev##*/} in virtio*) defdev=${defdev%/*} ;; esac
defpci=${defdev##*/}
if [ -n "$defif" ] && [[ $defpci == *:*.* ]]; then
	"$RX_DPDK" --pci "$defpci" --count 1 >"$TMP/err.out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q "refusing PCI device $defpci: it is $defif" "$TMP/err.out"; then
		ok "default route's device $defpci ($defif) refused: exit 2"
	else
		bad "default route's device $defpci: exit $rc: $(cat "$TMP/err.out")"
	fi
else
	echo "   skip: the default route has no PCI device here"
fi
if [ "$(runtime_left | sort)" = "$before" ] && [ ! -e "$RUNDIR/pltest$$" ]; then
	ok "bad arguments: no runtime files left"
else
	bad "bad arguments: left $(runtime_left) $(ls -d "$RUNDIR/pltest$$" 2>/dev/null)"
fi

# 5b. --hw-stamps: neither lab vdev offers the RX timestamp offload (nor
# does any vdev this DPDK ships: net_null, net_ring, net_tap, net_pcap and
# net_memif report none), so the receiver says so in one line naming the
# driver and exits 77: no runtime directory, no XDP program left. The
# stamped loop itself is checked by the unit test hwts-dpdk.

# The XDP programs on the lab's receiving interface, as ip shows them.
xdp_on_rx() {
	ip -n "$(topo_ns rx)" link show dev "$PL_RX_IF" | grep -o 'prog/xdp id [0-9]*'
}
for kind in af_packet af_xdp; do
	out=$TMP/hw-$kind.out
	xdp0=$(xdp_on_rx)
	ns_spawn pid rx "$RX_DPDK" --iface "$PL_RX_IF" --vdev-kind "$kind" \
		--cpu 1 --hw-stamps --count 1 >"$out" 2>&1
	rc=0
	wait "$pid" || rc=$?
	want="pathlab-rx-dpdk: --hw-stamps: net_$kind has no RX timestamp offload: hardware stamps need a NIC that offers it (mlx5, ice, ...)"
	if [ $rc -eq 77 ] && grep -qxF -- "$want" "$out" &&
		[ "$(grep -c -- '--hw-stamps' "$out")" -eq 1 ]; then
		ok "$kind --hw-stamps: exit 77, one line: no RX timestamp offload"
	else
		bad "$kind --hw-stamps: exit $rc: $(grep -v '^EAL\|^TELEMETRY' "$out")"
	fi
	xdp=$(xdp_on_rx)
	if none_left "$pid" && [ "$xdp" = "$xdp0" ]; then
		ok "$kind --hw-stamps: nothing left ($RUNDIR/pathlab-$pid gone, no XDP program added)"
	else
		bad "$kind --hw-stamps: left: $(runtime_left) XDP '$xdp0' -> '$xdp'"
	fi
done
# What it runs without: a usage error (exit 2), before EAL starts.
for extra in "--queues 2" "--trace 5" "--gpu sim" "--reflect"; do
	rc=0
	# shellcheck disable=SC2086 # the options are words
	ns_exec rx "$RX_DPDK" --iface "$PL_RX_IF" --hw-stamps $extra \
		--count 1 >"$TMP/err.out" 2>&1 || rc=$?
	if [ $rc -eq 2 ] && ! grep -q '^EAL' "$TMP/err.out" &&
		grep -q -- '--hw-stamps runs its own loop on one queue' "$TMP/err.out"; then
		ok "--hw-stamps $extra: refused, exit 2"
	else
		bad "--hw-stamps $extra: exit $rc: $(tail -2 "$TMP/err.out")"
	fi
done

# 6. kill -9: the runtime directory stays; the next receiver removes it.
RX="--iface $PL_RX_IF --vdev-kind af_xdp --cpu 1"
ns_spawn pid rx "$RX_DPDK" $RX --duration 30 --quiet --ready "$TMP/kill.ready" \
	2>"$TMP/kill.err"
NETNS_PIDS="${NETNS_PIDS:-} $pid"
if wait_file "$TMP/kill.ready" "$pid"; then
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	echo "   left after kill -9 of $pid: $(find "$RUNDIR/pathlab-$pid" 2>/dev/null | tr '\n' ' ')"
	echo "   XDP on $PL_RX_IF: $(ip -n "$(topo_ns rx)" link show dev "$PL_RX_IF" | grep -o 'prog/xdp id [0-9]*\|xdp id [0-9]*' | head -1)"
	[ -e "$RUNDIR/pathlab-$pid" ] && ok "kill -9: $RUNDIR/pathlab-$pid left (nobody ran rte_eal_cleanup)"
	ns_exec rx "$RX_DPDK" $RX --duration 0.3 --quiet >"$TMP/next.out" 2>&1 ||
		bad "kill -9: next receiver failed: $(tail -3 "$TMP/next.out")"
	if none_left "$pid" && grep -q "removing $RUNDIR/pathlab-$pid" "$TMP/next.out"; then
		ok "kill -9: the next receiver removed it and said so"
	else
		bad "kill -9: still left: $(runtime_left)"
	fi
else
	bad "kill -9: receiver did not start: $(cat "$TMP/kill.err")"
fi

# 7. After the lab teardown: no namespaces, no runtime or hugepage files.
topo_down >/dev/null 2>&1
if ns_exists "$(topo_ns rx)" || ns_exists "$(topo_ns tx)"; then
	bad "teardown: namespaces left"
else
	ok "teardown: namespaces removed"
fi
left=""
for f in "$TMP"/*.json; do
	p=$(jq -r '.dpdk.eal_args // [] | .[(index("--file-prefix") // -2) + 1] // empty' "$f" 2>/dev/null)
	[ -n "$p" ] && [ -e "$RUNDIR/$p" ] && left="$left $RUNDIR/$p"
done
# shellcheck disable=SC2086
none_left ${NETNS_PIDS:-} || left="$left $(runtime_left)"
huge=$(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts |
	while read -r m; do find "$m" -maxdepth 1 -name 'pathlab-*' 2>/dev/null; done)
if [ -z "$left$huge" ]; then
	ok "teardown: no runtime or hugepage files of ours left"
else
	bad "teardown: left $left $huge"
fi

netns_finish
