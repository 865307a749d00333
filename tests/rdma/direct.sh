# shellcheck shell=bash source-path=SCRIPTDIR
# SPDX-License-Identifier: MIT
# direct.sh - the rdma suite's check of `pathlab compare --verbs-on auto`
# where verbs devices exist (sourced by guest.sh, with lib.sh's helpers):
# the decision on the real sysfs and ibv_devices, then compare itself
# (labs/plab) running labs/lib/rdma-vm-compare.sh --direct for every mode
# and workload at one frame size, quick counts, one trial.

# The expected receiver and sender: in the VM the guest's two rxe devices
# in sysfs order (rxe0 receives), on a host whatever verbs-host.sh found.
direct_expect() {
	case ${PL_VM_TOPO:-host} in
	veth)
		EXP_RX="rxe0 1 1 $PL_VM_TX_ADDR $PL_VM_TX_IF soft"
		EXP_TX="rxe1 1 1 $PL_VM_RX_ADDR $PL_VM_RX_IF soft"
		EXP_ENV=softroce ;;
	loopback)
		EXP_RX="rxe0 1 1 $PL_VM_TX_ADDR $PL_VM_TX_IF soft"
		EXP_TX=$EXP_RX
		EXP_ENV=softroce-rxe-loopback ;;
	*)
		EXP_RX=$VH_RX
		EXP_TX=$VH_TX
		EXP_ENV=$(vh_env_label) ;;
	esac
}

# The counts of `compare --quick --count 2000`: throughput (kept small:
# its count is not what is checked), latency, visibility; rtt pings.
DIRECT_N_THROUGHPUT=2000
DIRECT_N_LATENCY=2000
DIRECT_N_VISIBILITY=1000

# Check the runs compare left in raw/ and results.json: three modes x
# three one-way workloads, and the round trips of ud and rc
# (rc_write_imm has no reflect mode).
direct_check_runs() {
	local f m wl n rx tx raw=$DIRECT_OUT/raw
	read -r -a rx <<<"$EXP_RX"
	read -r -a tx <<<"$EXP_TX"
	check "direct: compare collected 11 runs (3 modes x 3 workloads, 2 round trips), no failure" \
		'(.runs | length) == 11 and .failures == []' "$DIRECT_OUT/results.json" \
		'{runs: (.runs | length), failures}'
	for m in ud rc; do
		check "direct: $m rtt: 900 round trips after 100 warm-up pings, ordered" \
			'.workload == "rtt" and .rtt_ns.count + .rtt_ns.timeouts == 900 and
			 .rtt_ns.min > 0 and .rtt_ns.p50 <= .rtt_ns.p99 and
			 .rtt_ns.p99 <= .rtt_ns.p999 and .rtt_ns.p999 <= .rtt_ns.max' \
			"$raw/verbs-$m-64-rtt.run.json" '.rtt_ns'
	done
	[ -e "$raw/verbs-rc_write_imm-64-rtt.skipped" ] &&
		ok "direct: rc_write_imm rtt skipped (no reflect mode)" ||
		bad "direct: rc_write_imm rtt was not skipped" "$(ls "$raw")"
	for m in ud rc rc_write_imm; do
		for wl in throughput latency visibility; do
			f=$raw/verbs-$m-64-$wl.run.json
			[ -s "$f" ] || { bad "direct: $m $wl: no run" "$(tail -n 5 "$raw/verbs-host.log")"; continue; }
			check "direct: $m $wl: env $EXP_ENV (not vm-), a direct note; receiver on ${rx[0]} GID ${rx[2]}, sender on ${tx[0]}" \
				".mode == \"$m\" and .workload == \"$wl\" and .env == \"$EXP_ENV\" and (.env | startswith(\"vm-\") | not)
				and (.env_note | startswith(\"direct on \")) and (.env_note | test(\"VM\") | not)
				and .verbs.device == \"${rx[0]}\" and .verbs.ib_port == ${rx[1]} and .verbs.gid_index == ${rx[2]}
				and .gen.verbs.device == \"${tx[0]}\"" \
				"$f" '{mode, workload, env, env_note, rx: (.verbs | {device, ib_port, gid_index}), tx: .gen.verbs.device}'
			case $wl in
			throughput) n=$DIRECT_N_THROUGHPUT ;;
			latency) n=$DIRECT_N_LATENCY ;;
			visibility) n=$DIRECT_N_VISIBILITY ;;
			esac
			# Paced (latency, visibility) or reliable (RC): exact.
			if [ "$wl" != throughput ] || [ "$m" != ud ]; then
				check "direct: $m $wl: $n sent, $n received, none lost" \
					".sent == $n and .received == $n and .lost == 0 and .bad == 0" "$f" '{sent, received, lost, bad}'
			else
				check "direct: ud throughput: $n sent, every one received or counted lost" \
					".sent == $n and .received + .lost == .sent" "$f" '{sent, received, lost}'
			fi
		done
		# rxe's packets cross the receiving link, where tcpdump sees
		# them (or counts what its ring dropped); a NIC hides them.
		case $EXP_ENV in
		softroce)
			check "direct: $m visibility: tcpdump saw or dropped each of the $DIRECT_N_VISIBILITY data packets" \
				".tcpdump_seen + (.tcpdump_dropped // 0) == $DIRECT_N_VISIBILITY" \
				"$raw/verbs-$m-64-visibility.run.json" '{tcpdump_seen, tcpdump_dropped}' ;;
		esac
	done
}

# The whole check: the decision, then compare's verbs rows.
direct_compare() {
	local t0=$SECONDS log
	DIRECT_OUT=$OUT/direct
	log=$OUT/direct.log
	rm -rf "$DIRECT_OUT"
	# shellcheck source=../../labs/lib/verbs-host.sh
	. "$REPO/labs/lib/verbs-host.sh"
	vh_where auto >"$OUT/direct-where.txt" 2>&1
	direct_expect
	if [ "$VH_WHERE" = host ] && [ "$VH_RX" = "$EXP_RX" ] && [ "$VH_TX" = "$EXP_TX" ]; then
		ok "direct: --verbs-on auto chose this machine's devices: rx $VH_RX, tx $VH_TX"
	else
		bad "direct: --verbs-on auto chose $VH_WHERE (rx '$VH_RX', tx '$VH_TX')" "$(cat "$OUT/direct-where.txt")"
		return 0
	fi
	# No plots: matplotlib under TCG would take longer than the runs.
	if PATHLAB_PREFIX=pldirect PATHLAB_NO_DEPS=1 PATHLAB_NO_BUILD=1 PATHLAB_NO_PLOTS=1 \
		PATHLAB_BUILD=$BUILD "$REPO/labs/pathlab" compare --paths verbs \
		--verbs-on auto --sizes 64 --quick --count "$DIRECT_N_THROUGHPUT" \
		--out "$DIRECT_OUT" >"$log" 2>&1 &&
		grep -q "^pathlab: verbs: 12 runs direct on " "$log"; then
		ok "direct: compare's verbs runs went direct, exit 0 ($((SECONDS - t0)) s)"
	else
		bad "direct: compare's verbs runs (direct)" "$(tail -n 8 "$log")"
	fi
	grep -E '^\[|^pathlab: verbs' "$log" | sed 's/^/     /'
	if [ "$(grep -c '^\[[0-9]*/12\] verbs ' "$log")" = 12 ]; then
		ok "direct: a progress line per run (12 planned)"
	else
		bad "direct: not one progress line per run" "$(grep -c '^\[' "$log")"
	fi
	direct_check_runs
}
