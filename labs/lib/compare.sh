# shellcheck shell=bash disable=SC2034 # globals shared between lib files
# compare.sh - `pathlab compare`: run every built path over the same
# workloads on the lab topology and collect the runs into results.json.
#
# For each path, frame size and workload: the receiver starts in the rx
# namespace and says it is ready (--ready FILE); pathlab-gen sends from the
# tx namespace; the receiver stops on the generator's end-of-train markers,
# on its count or when idle, and prints its run JSON at exit. merge.jq adds
# what only the sender knows. Raw files stay under OUT/raw/.
#
# Needs topo.sh, deps.sh, paths.sh, proc.sh, run.sh and verbs-host.sh sourced,
# PATHLAB_ROOT and PATHLAB_BUILD.

PL_WORKLOADS=(throughput latency visibility rtt)
PL_GPUS=(none sim cuda)
# Packets per workload: default, and with --quick.
PL_COUNT_THROUGHPUT=200000
PL_COUNT_LATENCY=20000
PL_COUNT_VISIBILITY=5000
PL_COUNT_RTT=10000
PL_QUICK_THROUGHPUT=20000
PL_QUICK_LATENCY=2000
PL_QUICK_VISIBILITY=1000
PL_QUICK_RTT=1000

# Print the compare usage.
cmp_usage() {
	cat <<EOF
usage: pathlab compare [--paths LIST] [--sizes LIST] [--count N]
                       [--gpu none|sim|cuda] [--out DIR] [--quick]
                       [--workloads LIST] [--queues N] [--tradeoffs]
                       [--verbs-on host|vm|auto]

  --paths LIST   comma-separated, from: $(path_ids | paste -sd, -)
                 (default: every path that is built)
  --sizes LIST   Ethernet frame sizes incl. FCS, 64..1518 (default 64,1024)
  --count N      packets of the throughput workload (default $PL_COUNT_THROUGHPUT)
  --gpu KIND     none (default), sim or cuda
  --out DIR      where results.json and raw/ go
                 (default results/YYYYmmdd-HHMMSS, linked as results/latest)
  --quick        small counts ($PL_QUICK_THROUGHPUT/$PL_QUICK_LATENCY/$PL_QUICK_VISIBILITY/$PL_QUICK_RTT), for tests
  --queues N     receive on N queues, one pinned thread (lcore, QP) each,
                 fed by N sender threads (1..16, default 1); the lab's veth
                 gets N queues. Paths that cannot are skipped, saying so
  --workloads L  comma-separated, from: $(IFS=,; echo "${PL_WORKLOADS[*]}")
                 (default: all; rtt: the receiver reflects, pathlab-gen
                 --pingpong times whole round trips)
  --tradeoffs    the visibility workload only, measured for the trade-off
                 table (tcpdump, netfilter, ss, copies, interrupts,
                 transport): OUT/tradeoffs.json and tradeoffs.txt
  --verbs-on W   where the verbs rows run: host (this machine's RDMA devices,
                 direct), vm (the Soft-RoCE VM, software RDMA) or auto
                 (default: host when $(vh_dir) has a device with an
                 active RoCE port and an IPv4 RoCE v2 GID, else vm).
                 On the host: one port serves both ends (the NIC loops the
                 traffic back, env nic-loopback), two ports carry receiver
                 and sender (env nic); PATHLAB_VERBS_RX / PATHLAB_VERBS_TX
                 (DEV or DEV:PORT) choose. VM rows: env vm-softroce.
                 With --iface (two hosts) none of this: see --sender-verbs
EOF
	hosts_usage
}

# Print the host object of results.json (tsc_hz is filled in later).
cmp_host_json() {
	local virt cpu
	virt=$(systemd-detect-virt 2>/dev/null) || virt=""
	if [ -z "$virt" ]; then
		if grep -qw hypervisor /proc/cpuinfo; then virt=vm; else virt=none; fi
	fi
	cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	jq -n --arg hostname "$(uname -n)" --arg kernel "$(uname -r)" \
		--arg cpu "${cpu:-unknown}" --argjson cpus "$(nproc)" \
		--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg virt "$virt" \
		--argjson load "$(cmp_loadavg)" \
		'{hostname: $hostname, kernel: $kernel, cpu_model: $cpu,
		  cpus: $cpus, date: $date, virtualization: $virt,
		  tsc_hz: null, loadavg_start: $load}'
}

# Print the 1-minute load average (runnable tasks, machine-wide): other
# work on a shared machine shows up in every figure, so results say it.
cmp_loadavg() {
	awk '{ print $1 + 0 }' /proc/loadavg
}

# Print the env label of the runs: the link ("veth-napi": the lab's veth,
# its receive work in NAPI threads on the receive core), and "-vm" under a
# hypervisor.
cmp_env_label() {
	local l=veth
	[ "$CMP_QUEUES" != 1 ] || l=veth-napi # topo.sh: one queue only
	if grep -qw hypervisor /proc/cpuinfo; then echo "$l-vm"; else echo "$l"; fi
}

# Split a comma list into the array named by VAR.
cmp_split() {
	local -n cmp_split_out=$1
	# shellcheck disable=SC2034 # a nameref: assigns the caller's array
	IFS=, read -r -a cmp_split_out <<<"$2"
}

# Parse the compare options into CMP_* globals; return 2 on a usage error.
cmp_parse() {
	local opt val quick=0 count=""
	CMP_PATHS=()
	CMP_EXPLICIT=0
	hosts_reset
	CMP_SIZES=(64 1024)
	CMP_GPU=none
	CMP_TRADEOFFS=0
	CMP_OUT=""
	CMP_VERBS_ON=auto
	CMP_QUEUES=1
	while [ $# -gt 0 ]; do
		opt=$1
		val=""
		case $opt in
		--*=*) val=${opt#*=}; opt=${opt%%=*} ;;
		--iface | --pci | --rx-addr | --sender | --sender-gen | --sender-verbs | --sender-if | --sender-cpu | \
		--paths | --sizes | --count | --gpu | --out | --verbs-on | --queues | --workloads)
			[ $# -ge 2 ] || { echo "pathlab: $opt needs a value" >&2; return 2; }
			val=$2
			shift ;;
		esac
		case $opt in
		--paths) cmp_split CMP_PATHS "$val"; CMP_EXPLICIT=1 ;;
		--sizes) cmp_split CMP_SIZES "$val" ;;
		--count) count=$val ;;
		--gpu) CMP_GPU=$val ;;
		--out) CMP_OUT=$val ;;
		--quick) quick=1 ;;
		--tradeoffs) CMP_TRADEOFFS=1; PL_WORKLOADS=(visibility) ;;
		--verbs-on) CMP_VERBS_ON=$val; vh_choice_ok "$val" || return 2 ;;
		--queues) CMP_QUEUES=$val ;;
		--workloads) cmp_split PL_WORKLOADS "$val" ;;
		--iface | --pci | --rx-addr | --sender | --sender-gen | --sender-verbs | --sender-if | --sender-cpu | \
			--sender-print | --check) hosts_opt "$opt" "$val" ;;
		-h | --help) cmp_usage; return 3 ;;
		*) echo "pathlab: compare: unknown option '$opt'" >&2; cmp_usage >&2; return 2 ;;
		esac
		shift
	done
	cmp_counts "$quick" "$count" && cmp_check && hosts_check
}

# Set the per-workload counts from --quick and --count.
cmp_counts() {
	local quick=$1 count=$2
	if [ "$quick" = 1 ]; then
		CMP_N_THROUGHPUT=$PL_QUICK_THROUGHPUT
		CMP_N_LATENCY=$PL_QUICK_LATENCY
		CMP_N_VISIBILITY=$PL_QUICK_VISIBILITY
		CMP_N_RTT=$PL_QUICK_RTT
	else
		CMP_N_THROUGHPUT=$PL_COUNT_THROUGHPUT
		CMP_N_LATENCY=$PL_COUNT_LATENCY
		CMP_N_VISIBILITY=$PL_COUNT_VISIBILITY
		CMP_N_RTT=$PL_COUNT_RTT
	fi
	if [ -n "$count" ]; then
		if [[ ! $count =~ ^[1-9][0-9]{0,9}$ ]]; then
			echo "pathlab: --count '$count': a positive number" >&2
			return 2
		fi
		CMP_N_THROUGHPUT=$count
	fi
}

# Check the queue count and the workloads; return 2 with a message.
cmp_check_queues() {
	local w known
	if [[ ! $CMP_QUEUES =~ ^[0-9]{1,2}$ ]] || [ "$CMP_QUEUES" -lt 1 ] ||
		[ "$CMP_QUEUES" -gt 16 ]; then
		echo "pathlab: --queues '$CMP_QUEUES': 1..16" >&2
		return 2
	fi
	[ ${#PL_WORKLOADS[@]} -gt 0 ] || { echo "pathlab: --workloads is empty" >&2; return 2; }
	for w in "${PL_WORKLOADS[@]}"; do
		case $w in
		throughput | latency | visibility | rtt) ;;
		*)
			known="throughput latency visibility rtt"
			echo "pathlab: unknown workload '$w' (known: $known)" >&2
			return 2 ;;
		esac
	done
}

# Check paths, sizes and GPU kind; return 2 with a message if one is wrong.
cmp_check() {
	local p s g ok=0
	cmp_check_queues || return 2
	for g in "${PL_GPUS[@]}"; do [ "$CMP_GPU" = "$g" ] && ok=1; done
	if [ $ok = 0 ]; then
		echo "pathlab: --gpu '$CMP_GPU': one of ${PL_GPUS[*]}" >&2
		return 2
	fi
	[ ${#CMP_SIZES[@]} -gt 0 ] || { echo "pathlab: --sizes is empty" >&2; return 2; }
	for s in "${CMP_SIZES[@]}"; do
		if [[ ! $s =~ ^[0-9]{1,5}$ ]] || [ "$s" -lt 64 ] || [ "$s" -gt 1518 ]; then
			echo "pathlab: frame size '$s': 64..1518 (Ethernet incl. FCS)" >&2
			return 2
		fi
	done
	for p in "${CMP_PATHS[@]}"; do
		if ! path_known "$p"; then
			echo "pathlab: unknown path '$p' (known: $(path_ids | paste -sd' ' -))" >&2
			return 2
		fi
	done
	if [ "$CMP_EXPLICIT" = 1 ]; then
		[ ${#CMP_PATHS[@]} -gt 0 ] || { echo "pathlab: --paths is empty" >&2; return 2; }
		return 0
	fi
	cmp_select_built
}

# Without --paths: select every path that is built (none on a fresh clone,
# before build_ensure; cmp_usable selects again after it).
cmp_select_built() {
	local p
	CMP_PATHS=()
	for p in $(path_ids); do
		path_built "$p" && CMP_PATHS+=("$p")
	done
	return 0
}

# Check that the selected paths can run; drop or refuse the ones that
# cannot. Without --paths, every path that is built: so this comes after
# the build, or a fresh clone would find none.
cmp_usable() {
	local p sel=()
	if [ "$CMP_EXPLICIT" = 0 ] && [ ${#CMP_PATHS[@]} -eq 0 ]; then
		# A fresh clone: nothing was built when the options were checked.
		cmp_select_built
		if ! hosts_lab; then
			hosts__check_paths || return
		fi
	fi
	for p in "${CMP_PATHS[@]}"; do
		if ! path_built "$p"; then
			path_not_built_msg "$p" >&2
			return 2
		fi
		if [ "$(path_runner "$p")" = vm ] && ! hosts_lab; then
			VH_WHERE=peer # two hosts: hosts_check found IF's device
		elif [ "$(path_runner "$p")" = vm ]; then
			vh_where "$CMP_VERBS_ON" || return 2
		fi
		if [ "$(path_runner "$p")" = vm ] && [ "$VH_WHERE" = vm ] &&
			! command -v qemu-system-x86_64 >/dev/null; then
			if [ "$CMP_EXPLICIT" = 1 ]; then
				echo "pathlab: path $p runs in the Soft-RoCE VM, which needs qemu-system-x86" >&2
				return 2
			fi
			echo "pathlab: skipping path $p (the Soft-RoCE VM needs qemu-system-x86)"
			continue
		fi
		sel+=("$p")
	done
	CMP_PATHS=("${sel[@]}")
	if [ ${#CMP_PATHS[@]} -eq 0 ]; then
		echo "pathlab: no path to compare is built" >&2
		return 2
	fi
}

# Collect the runs of this compare into OUT/results.json.
cmp_assemble() {
	local runs=("$@")
	jq -n --slurpfile host "$CMP_OUT/raw/host.json" \
		'{pathlab: 1, host: $host[0], runs: [inputs]}
		| .host.tsc_hz = ([.runs[].budget.clock_hz // empty][0] // null)
		| .host.loadavg_end = $load_end' --argjson load_end "$(cmp_loadavg)" \
		"${runs[@]}" >"$CMP_OUT/results.json"
}

# Pick the output directory; link results/latest when it is the default.
# Open the folder it hangs from (CMP_ANCHOR, a descriptor kept until the
# end: OUT itself when it exists, else the parent of the first folder this
# makes, CMP_TOP) and note what is there already (CMP_OLD, relative to
# it): cmp_chown gives away only what compare created, through that
# descriptor, whatever is renamed or linked in its place meanwhile.
cmp_outdir() {
	local stamp d
	if [ -z "$CMP_OUT" ]; then
		stamp=$(date +%Y%m%d-%H%M%S)
		CMP_OUT=$PATHLAB_ROOT/results/$stamp
	fi
	CMP_OUT=$(realpath -m -- "$CMP_OUT") || return 1
	d=$CMP_OUT CMP_TOP=.
	while [ ! -e "$d" ] && [ ! -L "$d" ]; do
		CMP_TOP=${d##*/}
		d=$(dirname -- "$d")
	done
	[ -n "${CMP_ANCHOR:-}" ] && exec {CMP_ANCHOR}<&-
	exec {CMP_ANCHOR}<"$d" || return 1
	CMP_ANCHOR_DIR=/proc/$BASHPID/fd/$CMP_ANCHOR
	CMP_OLD=$(cd "$CMP_ANCHOR_DIR" && find . -mindepth 1 \
		-maxdepth 3 -printf '%P\0' 2>/dev/null | base64 -w0)
	mkdir -p "$CMP_OUT/raw" || return 1
	[ -z "${stamp:-}" ] || ln -sfn "$stamp" "$PATHLAB_ROOT/results/latest"
}

# Give the results to the user who ran us through sudo: what compare
# created, never a folder that was there before (--out /etc), walked from
# the descriptor cmp_outdir opened (labs/lib/giveaway.py), never by path.
cmp_chown() {
	[ -n "${SUDO_UID:-}" ] && [ "${SUDO_UID}" != 0 ] || return 0
	base64 -d <<<"$CMP_OLD" | python3 \
		"$(dirname -- "${BASH_SOURCE[0]}")/giveaway.py" \
		"$CMP_ANCHOR_DIR" "$CMP_TOP" "$SUDO_UID" \
		"${SUDO_GID:-$SUDO_UID}"
}

# Print the number of runs: (path, mode) rows x sizes x workloads, and
# again for the rows with a GPU variant when --gpu asks for one.
cmp_total() {
	local p m n=0
	for p in "${CMP_PATHS[@]}"; do
		for m in $(hosts_modes "$p"); do
			n=$((n + 1))
			if [ "$CMP_GPU" != none ] && path_has_gpu "$p" "$m"; then
				n=$((n + 1))
			fi
		done
	done
	echo $((n * ${#CMP_SIZES[@]} * ${#PL_WORKLOADS[@]}))
}

# The verbs rows, all by labs/lib/rdma-vm-compare.sh: directly on this
# host's RDMA devices when cmp_usable chose host (VH_WHERE), else in one
# boot of the Soft-RoCE VM; either runs every mode, size and workload and
# writes raw/verbs-*.run.json; with --gpu, the GPU variant's runs too
# (raw/verbs-*-gpu-KIND.run.json). The log is raw/verbs-host.log or
# raw/verbs-vm.log. Two hosts (VH_WHERE peer): the receiver here on
# --iface's RDMA device, the sender through hosts.sh's transport
# (hosts_verbs_args), each run labelled like the others (hosts_annotate);
# the log is raw/verbs-peer.log.
cmp_vm_runs() {
	local path=$1 i=$2 total=$3 f n=0 modes log args peer
	modes=$(path_modes "$path" | paste -sd, -)
	log=$CMP_OUT/raw/$path-$VH_WHERE.log
	args=(--build "$PATHLAB_BUILD" --out "$CMP_OUT/raw" --modes "$modes"
		--sizes "$(IFS=,; echo "${CMP_SIZES[*]}")"
		--counts "$CMP_N_THROUGHPUT,$CMP_N_LATENCY,$CMP_N_VISIBILITY,$CMP_N_RTT"
		--workloads "$(IFS=,; echo "${PL_WORKLOADS[*]}")"
		--queues "$CMP_QUEUES" --gpu "$CMP_GPU")
	if [ "$VH_WHERE" = peer ]; then
		mapfile -t peer < <(hosts_verbs_args)
		vh_netdev_end "$PL_RX_IF" "$HOSTS_RX_ADDR"
		echo "[$((i + 1))-$total] $path $modes two hosts: receiver here on $(vh_describe "$VH_RX"), sender $(hosts_sender_label) ..."
		if [ "$HOSTS_SENDER" = print ]; then
			# The commands to type on the sender come on stderr
			# (kept as LOG.err too).
			bash "$PATHLAB_LIB/rdma-vm-compare.sh" "${peer[@]}" "${args[@]}" \
				--rates "0,$PL_RATE_LATENCY,$PL_RATE_VISIBILITY,0" \
				--cpus "$CMP_RX_CPU,$HOSTS_SENDER_CPU" >"$log" 2> >(tee "$log.err" >&2)
		else
			bash "$PATHLAB_LIB/rdma-vm-compare.sh" "${peer[@]}" "${args[@]}" \
				--rates "0,$PL_RATE_LATENCY,$PL_RATE_VISIBILITY,0" \
				--cpus "$CMP_RX_CPU,$HOSTS_SENDER_CPU" >"$log" 2>&1
		fi
	elif [ "$VH_WHERE" = host ]; then
		echo "[$((i + 1))-$total] $path $modes $(vh_env_note) ..."
		bash "$PATHLAB_LIB/rdma-vm-compare.sh" --direct "${args[@]}" \
			--rates "0,$PL_RATE_LATENCY,$PL_RATE_VISIBILITY,0" \
			--cpus "$CMP_RX_CPU,$CMP_TX_CPU" >"$log" 2>&1
	else
		echo "[$((i + 1))-$total] $path $modes in the Soft-RoCE VM (one boot) ..."
		# A compare killed with SIGKILL takes the VM (and qemu) along.
		setpriv --pdeathsig TERM \
			"$PATHLAB_ROOT/labs/rdma-vm" run --timeout 1800 --share "$CMP_OUT" \
			--share "$PATHLAB_BUILD" -- \
			bash "$PATHLAB_LIB/rdma-vm-compare.sh" "${args[@]}" \
			--rates "0,$PL_RATE_LATENCY_VM,$PL_RATE_VISIBILITY,0" >"$log" 2>&1
	fi
	local rc=$?
	for f in "$CMP_OUT"/raw/"$path"-*.run.json; do
		[ -e "$f" ] || continue
		if [ "$VH_WHERE" = peer ]; then
			hosts_annotate "${f%.run.json}" || continue
		fi
		echo "  ${f##*/}: $(cmp_run_summary "$f")"
		runs+=("$f")
		n=$((n + 1))
	done
	if [ $rc -ne 0 ] || [ $n -eq 0 ]; then
		echo "  the verbs runs ($VH_WHERE) failed (exit $rc): $log" >&2
		tail -n 20 "$log" >&2
		return 1
	fi
}

# Every run of PATH with GPU kind GPU (none: the plain receiver); adds to
# runs, i and failed of cmp_main.
cmp_path_runs() {
	local path=$1 gpu=$2 mode size wl name rc
	if [ "$(path_runner "$path")" = vm ]; then
		[ "$gpu" = none ] || return 0
		# One boot runs the plain rows and, with --gpu, the GPU rows.
		cmp_vm_runs "$path" "$i" "$total" || failed=$((failed + 1))
		i=$((i + $(path_modes "$path" | wc -l) * ${#CMP_SIZES[@]} * ${#PL_WORKLOADS[@]} * ${#CMP_GPUS[@]}))
		return 0
	fi
	for mode in $(hosts_modes "$path"); do
		[ "$gpu" = none ] || path_has_gpu "$path" "$mode" || continue
		for size in "${CMP_SIZES[@]}"; do
			for wl in "${PL_WORKLOADS[@]}"; do
				i=$((i + 1))
				name=$path-$mode-$size-$wl
				[ "$gpu" = none ] || name=$name-gpu-$gpu
				printf '[%d/%d] %s %s%s %s B %s ...' "$i" "$total" \
					"$path" "$mode" "$([ "$gpu" = none ] || echo " +gpu $gpu")" "$size" "$wl"
				cmp_run "$path" "$mode" "$size" "$wl" "$gpu"
				rc=$?
				if [ $rc = 0 ]; then
					echo " $(cmp_run_summary "$CMP_OUT/raw/$name.run.json")"
					runs+=("$CMP_OUT/raw/$name.run.json")
				elif [ $rc = 77 ]; then
					echo " skipped: $(tail -n 1 "$CMP_OUT/raw/$name.rx.err")"
				else
					echo " FAILED"
					failed=$((failed + 1))
					pl_stop_tracked
				fi
			done
		done
	done
}

# pathlab compare: see cmp_usage.
cmp_main() {
	local rc=0 gpu i=0 total runs=() failed=0
	cmp_parse "$@" || { rc=$?; [ $rc = 3 ] && return 0; return $rc; }
	deps_ensure || return 1
	build_ensure || return 1
	cmp_usable || return $?
	if [ ! -x "$PATHLAB_BUILD/$PL_GEN_BIN" ]; then
		echo "pathlab: $PL_GEN_BIN is not built" >&2
		return 1
	fi
	cmp_outdir || return 1
	CMP_ENV=$(cmp_env_label)
	# The receive core, where the lab also runs veth's NAPI threads.
	CMP_RX_CPU=$(topo_rx_cpu) || return 1
	CMP_TX_CPU=0
	hosts_prepare || return 1
	# --queues N: the lab's veth gets N queues (and XPS: topo.sh).
	[ "$CMP_QUEUES" = 1 ] || export PATHLAB_QUEUES=$CMP_QUEUES
	if hosts_lab; then pl_topo_up || return 1; fi
	cmp_host_json >"$CMP_OUT/raw/host.json"
	CMP_GPUS=(none)
	[ "$CMP_GPU" = none ] || CMP_GPUS+=("$CMP_GPU")
	total=$(cmp_total)
	echo "pathlab: compare ${CMP_PATHS[*]} at ${CMP_SIZES[*]} B into $CMP_OUT"
	for gpu in "${CMP_GPUS[@]}"; do
		for path in "${CMP_PATHS[@]}"; do
			cmp_path_runs "$path" "$gpu"
		done
	done
	PL_PIDS=()
	if [ ${#runs[@]} -gt 0 ]; then
		cmp_assemble "${runs[@]}" || return 1
		echo
		jq -r -f "$PATHLAB_LIB/table.jq" "$CMP_OUT/results.json" |
			tee "$CMP_OUT/table.txt"
		echo
		bash "$PATHLAB_LIB/plots.sh" plots "$CMP_OUT/results.json" "$CMP_OUT" || true
		bash "$PATHLAB_LIB/plots.sh" figure "$CMP_OUT/results.json" "$CMP_OUT" || true
		echo "pathlab: results in $CMP_OUT/results.json"
		[ "$CMP_TRADEOFFS" = 0 ] || tr_report || failed=$((failed + 1))
	fi
	cmp_chown
	if [ $failed -gt 0 ]; then
		echo "pathlab: compare: $failed of $total runs failed (raw files in $CMP_OUT/raw)" >&2
		return 1
	fi
}
