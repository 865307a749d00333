# shellcheck shell=bash source-path=SCRIPTDIR disable=SC2034 # globals read by the driver libs
# SPDX-License-Identifier: MIT
# direct.sh - the rdma suite's check of `pathlab compare --verbs-on auto`
# where verbs devices exist (sourced by guest.sh, with lib.sh's helpers):
# the decision on the real sysfs and ibv_devices, then compare's verbs
# dispatch (cmp_vm_runs) running labs/lib/rdma-vm-compare.sh --direct for
# every mode and workload at one frame size, quick counts.

# Set up just what cmp_vm_runs reads: the driver's paths, its counts
# (throughput kept small: its count is not what is checked), one size.
direct_setup() {
	PATHLAB_ROOT=$REPO
	PATHLAB_LIB=$REPO/labs/lib
	PATHLAB_BUILD=$BUILD
	# shellcheck source=../../labs/lib/paths.sh
	. "$PATHLAB_LIB/paths.sh"
	# shellcheck source=../../labs/lib/run.sh
	. "$PATHLAB_LIB/run.sh"
	# shellcheck source=../../labs/lib/verbs-host.sh
	. "$PATHLAB_LIB/verbs-host.sh"
	# shellcheck source=../../labs/lib/compare.sh
	. "$PATHLAB_LIB/compare.sh"
	CMP_OUT=$OUT/direct
	CMP_SIZES=(64)
	CMP_N_THROUGHPUT=2000
	CMP_N_LATENCY=$PL_QUICK_LATENCY
	CMP_N_VISIBILITY=$PL_QUICK_VISIBILITY
	CMP_N_RTT=300
	CMP_QUEUES=1
	CMP_GPU=none
	CMP_RX_CPU=1
	CMP_TX_CPU=0
	rm -rf "$CMP_OUT"
	mkdir -p "$CMP_OUT/raw"
}

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

# Check the runs cmp_vm_runs left in raw/ (and in its runs array): three
# modes x three one-way workloads, and the round trips of ud and rc
# (rc_write_imm has no reflect mode).
direct_check_runs() {
	local f m wl n rx tx
	read -r -a rx <<<"$EXP_RX"
	read -r -a tx <<<"$EXP_TX"
	if [ "${#runs[@]}" = 11 ]; then
		ok "direct: compare collected 11 runs (3 modes x 3 workloads, 2 round trips)"
	else
		bad "direct: compare collected ${#runs[@]} runs, not 11" "$(ls "$CMP_OUT/raw")"
	fi
	for m in ud rc; do
		check "direct: $m rtt: 270 round trips after 30 warm-up pings, ordered" \
			'.workload == "rtt" and .rtt_ns.count + .rtt_ns.timeouts == 270 and
			 .rtt_ns.min > 0 and .rtt_ns.p50 <= .rtt_ns.p99 and
			 .rtt_ns.p99 <= .rtt_ns.p999 and .rtt_ns.p999 <= .rtt_ns.max' \
			"$CMP_OUT/raw/verbs-$m-64-rtt.run.json" '.rtt_ns'
	done
	[ -e "$CMP_OUT/raw/verbs-rc_write_imm-64-rtt.skipped" ] &&
		ok "direct: rc_write_imm rtt skipped (no reflect mode)" ||
		bad "direct: rc_write_imm rtt was not skipped" "$(ls "$CMP_OUT/raw")"
	for m in ud rc rc_write_imm; do
		for wl in throughput latency visibility; do
			f=$CMP_OUT/raw/verbs-$m-64-$wl.run.json
			[ -s "$f" ] || { bad "direct: $m $wl: no run" "$(tail -n 5 "$CMP_OUT/raw/verbs-host.log")"; continue; }
			check "direct: $m $wl: env $EXP_ENV (not vm-), a direct note; receiver on ${rx[0]} GID ${rx[2]}, sender on ${tx[0]}" \
				".mode == \"$m\" and .workload == \"$wl\" and .env == \"$EXP_ENV\" and (.env | startswith(\"vm-\") | not)
				and (.env_note | startswith(\"direct on \")) and (.env_note | test(\"VM\") | not)
				and .verbs.device == \"${rx[0]}\" and .verbs.ib_port == ${rx[1]} and .verbs.gid_index == ${rx[2]}
				and .gen.verbs.device == \"${tx[0]}\"" \
				"$f" '{mode, workload, env, env_note, rx: (.verbs | {device, ib_port, gid_index}), tx: .gen.verbs.device}'
			case $wl in
			throughput) n=$CMP_N_THROUGHPUT ;;
			latency) n=$CMP_N_LATENCY ;;
			visibility) n=$CMP_N_VISIBILITY ;;
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
			check "direct: $m visibility: tcpdump saw or dropped each of the $CMP_N_VISIBILITY data packets" \
				".tcpdump_seen + (.tcpdump_dropped // 0) == $CMP_N_VISIBILITY" \
				"$CMP_OUT/raw/verbs-$m-64-visibility.run.json" '{tcpdump_seen, tcpdump_dropped}' ;;
		esac
	done
}

# The whole check: the decision, then the runs.
direct_compare() {
	local i=0 total=12 runs=() failed=0 t0=$SECONDS
	direct_setup
	vh_where auto >"$CMP_OUT/where.txt" 2>&1
	direct_expect
	if [ "$VH_WHERE" = host ] && [ "$VH_RX" = "$EXP_RX" ] && [ "$VH_TX" = "$EXP_TX" ]; then
		ok "direct: --verbs-on auto chose this machine's devices: rx $VH_RX, tx $VH_TX"
	else
		bad "direct: --verbs-on auto chose $VH_WHERE (rx '$VH_RX', tx '$VH_TX')" "$(cat "$CMP_OUT/where.txt")"
		return 0
	fi
	cmp_vm_runs verbs "$i" "$total" >"$CMP_OUT/summary.txt" 2>&1 || failed=1
	if [ $failed = 0 ] && grep -q "^\[1-12\] verbs ud,rc,rc_write_imm direct on " "$CMP_OUT/summary.txt"; then
		ok "direct: compare's verbs runs went direct, exit 0 ($((SECONDS - t0)) s)"
	else
		bad "direct: compare's verbs runs (direct)" "$(tail -n 8 "$CMP_OUT/summary.txt")"
	fi
	sed 's/^/     /' "$CMP_OUT/summary.txt"
	direct_check_runs
}
