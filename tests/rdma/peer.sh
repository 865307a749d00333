# shellcheck shell=bash disable=SC2034 # globals read by the driver libs
# SPDX-License-Identifier: MIT
# peer.sh - the rdma suite's check of the verbs path on two hosts
# (`pathlab compare --iface IF --sender ns:NAME --paths verbs`; sourced by
# guest.sh, with lib.sh's helpers). Only in the VM's veth topology: the
# receiver on rxe1, the RDMA device of the rx-side veth (pl-rx), the
# sender through `ip netns exec NAME`, the transport of --sender ns:NAME.
#
# The guest keeps both veth ends in its one network namespace (this
# kernel's rxe receives in the initial namespace only: rdma-vm-guest.sh),
# so NAME is that namespace, named (ip netns attach), standing in for the
# second host; its rxe0 on pl-tx is the only other device. --sender-if
# pl-tx: the sender's route to pl-rx's address goes out of pl-tx (the
# guest's policy routing), not through lo; its neighbour entry is already
# there (kept). Quick counts, paced workloads only: exact.

# compare --quick's count of workload WL (labs/plab/options.py QUICK).
peer_quick_count() {
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1])
from plab import options; print(options.QUICK[sys.argv[2]])' "$REPO/labs" "$1"
}

# The whole check, into OUT/peer.
peer_compare() {
	local ns=plpeer$$ out=$OUT/peer t0=$SECONDS rc=0 f
	local PL_QUICK_LATENCY PL_QUICK_VISIBILITY
	PL_QUICK_LATENCY=$(peer_quick_count latency) || return 1
	PL_QUICK_VISIBILITY=$(peer_quick_count visibility) || return 1
	[ "${PL_VM_TOPO:-}" = veth ] || { echo "peer: not the VM's veth topology: skipped"; return 0; }
	rm -rf "$out" "$out.log"
	if ! ip netns attach "$ns" $$ 2>"$out.err"; then
		bad "peer: ip netns attach $ns (the sender's stand-in)" "$(cat "$out.err")"
		return 0
	fi
	# What compare --check plans, then the runs.
	PATHLAB_NO_DEPS=1 PATHLAB_BUILD=$BUILD "$REPO/labs/pathlab" compare \
		--iface "$PL_VM_RX_IF" --sender "ns:$ns" --sender-if "$PL_VM_TX_IF" \
		--sender-gen "$BUILD/common/pathlab-gen" --paths verbs --check >"$out.check" 2>&1 || rc=$?
	if [ $rc = 0 ] && grep -q "^pathlab: verbs: receiver here on $PL_VM_RX_DEV port 1 (GID [0-9]*, $PL_VM_RX_ADDR, $PL_VM_RX_IF); sender: $BUILD/rdma/pathlab-tx-verbs there" "$out.check" &&
		grep -q "^pathlab: sender: pathlab-tx-verbs runs; its route to $PL_VM_RX_ADDR: dev $PL_VM_TX_IF" "$out.check"; then
		ok "peer: --check: verbs on $PL_VM_RX_IF's device $PL_VM_RX_DEV, pathlab-tx-verbs runs on the sender"
	else
		bad "peer: --check (exit $rc)" "$(cat "$out.check")"
	fi
	rc=0
	PATHLAB_NO_DEPS=1 PATHLAB_BUILD=$BUILD "$REPO/labs/pathlab" compare \
		--iface "$PL_VM_RX_IF" --sender "ns:$ns" --sender-if "$PL_VM_TX_IF" \
		--sender-gen "$BUILD/common/pathlab-gen" --paths verbs --sizes 64 --quick \
		--workloads latency,visibility --out "$out" >"$out.log" 2>&1 || rc=$?
	ip netns delete "$ns" 2>/dev/null
	if [ $rc = 0 ] && [ -s "$out/results.json" ]; then
		ok "peer: compare --iface $PL_VM_RX_IF --sender ns:$ns --paths verbs: exit 0 ($((SECONDS - t0)) s)"
	else
		bad "peer: compare --iface $PL_VM_RX_IF --sender ns:$ns --paths verbs: exit $rc" \
			"$(tail -n 20 "$out.log"; tail -n 10 "$out/raw/verbs-peer.log" 2>/dev/null)"
		return 0
	fi
	sed -n 's/^\[.*verbs.*two hosts/     &/p' "$out.log"
	f=$out/results.json
	check "peer: 3 modes x latency, visibility: 6 runs" \
		'[.runs[] | select(.path == "verbs")] | length == 6' "$f" '[.runs[] | {mode, workload}]'
	check "peer: env softroce; the note names receiver $PL_VM_RX_DEV here and the sender's $PL_VM_TX_DEV in $ns" \
		"all(.runs[]; .env == \"softroce\"
			and (.env_note | startswith(\"two hosts: receiver here on $PL_VM_RX_DEV:1 (GID \"))
			and (.env_note | test(\"$PL_VM_RX_ADDR, $PL_VM_RX_IF\\\\), sender on network namespace $ns .*, device $PL_VM_TX_DEV there\"))
			and .verbs.device == \"$PL_VM_RX_DEV\" and .gen.verbs.device == \"$PL_VM_TX_DEV\")" \
		"$f" '[.runs[] | {env, env_note, rx: .verbs.device, tx: .gen.verbs.device}]'
	check "peer: each run labelled: sender kind ns, to $PL_VM_RX_ADDR on $PL_VM_RX_IF" \
		"all(.runs[]; .sender.kind == \"ns\" and .sender.where == \"ns:$ns\"
			and .sender.rx_addr == \"$PL_VM_RX_ADDR\" and .sender.rx_iface == \"$PL_VM_RX_IF\"
			and .sent_source == \"generator\")" "$f" '[.runs[] | .sender]'
	check "peer: paced: latency $PL_QUICK_LATENCY, visibility $PL_QUICK_VISIBILITY sent, each received, none lost" \
		"all(.runs[]; .lost == 0 and .bad == 0 and .sent == .received and
			.sent == (if .workload == \"latency\" then $PL_QUICK_LATENCY else $PL_QUICK_VISIBILITY end))" \
		"$f" '[.runs[] | {mode, workload, sent, received, lost}]'
	check "peer: visibility: tcpdump on $PL_VM_RX_IF saw or dropped each data packet" \
		"all(.runs[] | select(.workload == \"visibility\");
			.tcpdump_seen + (.tcpdump_dropped // 0) == $PL_QUICK_VISIBILITY)" \
		"$f" '[.runs[] | select(.workload == "visibility") | {mode, tcpdump_seen, tcpdump_dropped}]'
	if [ "$(grep -l -- "--dst $PL_VM_RX_ADDR" "$out"/raw/verbs-*.gen.cmd | wc -l)" = 6 ] &&
		! grep -q -- '--device' "$out"/raw/verbs-*.gen.cmd; then
		ok "peer: the sender's commands: --dst $PL_VM_RX_ADDR, no --device (its own choice)"
	else
		bad "peer: the sender's commands" "$(cat "$out"/raw/verbs-*.gen.cmd 2>&1 | head -n 3)"
	fi
	if [ -z "$(pgrep -f "pathlab-(rx|tx)-verbs" 2>/dev/null)" ] && ! ip netns list | grep -qw "$ns"; then
		ok "peer: nothing left: no verbs process, no $ns"
	else
		bad "peer: left behind" "$(pgrep -af "pathlab-(rx|tx)-verbs"; ip netns list)"
	fi
}
