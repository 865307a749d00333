# shellcheck shell=bash
# topo.sh - the lab topology: two network namespaces joined by one veth pair.
#
#   PREFIX-tx                                         PREFIX-rx
#   pl-tx0 198.18.0.1/30  <======== veth ========>  pl-rx0 198.18.0.2/30
#   02:70:6c:00:00:01                                02:70:6c:00:00:02
#
# Sourced by labs/pathlab and by the tests. PREFIX comes from PATHLAB_PREFIX
# (default "pathlab"), so parallel runs with their own prefix never collide:
# the interface names only have to be unique inside their namespace, and the
# pair is created inside the tx namespace with its peer put straight into the
# rx namespace, so no lab interface ever appears in the root namespace.
# The addresses are from 198.18.0.0/15, the RFC 2544 benchmarking range.
# Static neighbour entries both ways: no ARP on the link; IPv6 is off on it
# so no router solicitations or MLD reports show up in the link counters.
#
# The receive core: a NIC queue raises its interrupt on the core that
# serves it, and NAPI polls the queue there. veth has no interrupt; by
# default it does the receiving end's work on the SENDER's CPU, so a
# receiver would look almost free. The lab makes veth poll with NAPI (GRO
# on pl-rx0, no TSO on pl-tx0, so locally sent UDP qualifies too), runs
# each RX queue's NAPI in a kernel thread (threaded NAPI) and pins RX queue
# q's thread to the receive core + q (topo_rx_cpu: CPU 1 by default, the
# generator is on CPU 0). XDP, AF_XDP's copy, GRO, the packet taps, IP and
# UDP then run where the receiver runs, and the receivers charge that
# thread's CPU time to the path (common/napi.h). env says "veth-napi".
# With more than one queue (PATHLAB_QUEUES) the lab leaves NAPI as veth
# has it: on two CPUs, N queue threads and N NAPI threads would share the
# cores and veth's 256-slot rings overflow; env then says "veth".
#
# Queues: PATHLAB_QUEUES gives both ends that many TX and RX queues. With
# more than one, XPS on the tx side ties TX queue q of pl-tx0 to CPU
# q mod (online CPUs), so a sender pinned to CPU q (pathlab-gen --threads:
# thread t runs on CPU t) sends on TX queue q, and veth hands it to RX
# queue q of pl-rx0, whose NAPI thread runs on the receive core + q.
#
# Public: topo_up, topo_down, topo_status, topo_ns, ns_name, ns_exists,
# ns_exec, ns_spawn. Everything named topo__* is internal.
# Functions return non-zero on failure and never exit: callers decide.

PATHLAB_LIB=${PATHLAB_LIB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}

PL_TX_IF=pl-tx0
PL_RX_IF=pl-rx0
PL_TX_ADDR=198.18.0.1
PL_RX_ADDR=198.18.0.2
PL_PLEN=30
PL_TX_MAC=02:70:6c:00:00:01
PL_RX_MAC=02:70:6c:00:00:02
PL_BPFFS=/sys/fs/bpf
PL_NETNS_DIR=/run/netns
# Lab-wide state: which prefixes are up, and what the first of them set up
# on the host (bpffs mount, /run/netns) so that the last one can undo it;
# ns/NAME marks a namespace the lab created (topo__ns_mark); lock is the
# lab-wide lock (topo__lock_file). Root's alone: mode 0700.
PL_STATE=/run/pathlab

# Print the lab prefix, or fail if PATHLAB_PREFIX is not a usable name.
topo_prefix() {
	local p=${PATHLAB_PREFIX:-pathlab}
	if [[ ! $p =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$ ]]; then
		echo "pathlab: bad PATHLAB_PREFIX '$p' (letters, digits, _ . -; 32 at most)" >&2
		return 1
	fi
	printf '%s\n' "$p"
}

# Print the namespace name of ROLE (tx or rx) for the current prefix.
topo_ns() {
	local p
	p=$(topo_prefix) || return 1
	printf '%s-%s\n' "$p" "$1"
}

# Map "tx"/"rx" to the namespace name; anything else is taken as a full name.
ns_name() {
	case $1 in
	tx | rx) topo_ns "$1" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# True if the named network namespace exists.
ns_exists() {
	[ -n "$1" ] && [ -e "$PL_NETNS_DIR/$1" ]
}

# Print the number of queues each veth end gets (PATHLAB_QUEUES, default 1).
topo_queues() {
	local q=${PATHLAB_QUEUES:-1}
	if [[ ! $q =~ ^[1-9][0-9]*$ ]]; then
		echo "pathlab: bad PATHLAB_QUEUES '$q' (a positive integer)" >&2
		return 1
	fi
	printf '%s\n' "$q"
}

# Print the queue count a healthy lab must have: PATHLAB_QUEUES if set, else
# empty (any: a lab built with other queues is still the lab the user made).
topo__want_queues() {
	[ -z "${PATHLAB_QUEUES:-}" ] || topo_queues
}

# Run CMD in namespace NS (tx, rx or a full name) in the foreground.
# nsenter --net keeps our mounts (bpffs) but not a matching sysfs, and the
# receivers read /sys/class/net/IF/statistics; nsrun.sh, in a private mount
# namespace, mounts a sysfs of the right namespace and binds bpffs back.
# `ip netns exec` would give the right sysfs but hide /sys/fs/bpf.
# nsenter, unshare and bash all exec, so the command keeps the PID.
ns_exec() {
	local ns
	ns=$(ns_name "$1") || return 1
	shift
	if ! ns_exists "$ns"; then
		echo "pathlab: no network namespace '$ns'" >&2
		return 1
	fi
	nsenter --net="$PL_NETNS_DIR/$ns" \
		unshare --mount --propagation private -- \
		bash "$PATHLAB_LIB/nsrun.sh" "$@"
}

# Start CMD in namespace NS in the background; store its PID in variable VAR.
# Redirections given to ns_spawn apply to the command.
ns_spawn() {
	local pid_var=$1 ns
	ns=$(ns_name "$2") || return 1
	shift 2
	if ! ns_exists "$ns"; then
		echo "pathlab: no network namespace '$ns'" >&2
		return 1
	fi
	nsenter --net="$PL_NETNS_DIR/$ns" \
		unshare --mount --propagation private -- \
		bash "$PATHLAB_LIB/nsrun.sh" "$@" &
	printf -v "$pid_var" '%s' "$!"
}

# Print the lab-wide lock file, $PL_STATE/lock, making it if need be. Any
# user can open /run and flock it, so a lock on /run (as once) let any local
# user stall every lab command. This file is ours, mode 0600, in a directory
# of ours, mode 0700, that nobody else can write: checked to be a real
# directory, not a link, so no other user can open the file, hold its lock
# or plant a link in its place. The file stays once made (a lock file
# removed while another process waits on it locks nothing); /run is a tmpfs.
topo__lock_file() {
	local d=$PL_STATE f=$PL_STATE/lock
	[ -e "$d" ] || [ -L "$d" ] || mkdir -m 0700 "$d" 2>/dev/null
	if [ -L "$d" ] || [ ! -d "$d" ] || [ ! -O "$d" ] ||
		[ -n "$(find "$d" -maxdepth 0 -perm /022)" ]; then
		echo "pathlab: refusing $d for the lab lock: not a directory" \
			"of ours that only we can write" >&2
		return 1
	fi
	chmod 0700 "$d" || return 1
	if [ -L "$f" ] || { [ -e "$f" ] && { [ ! -f "$f" ] || [ ! -O "$f" ]; }; }; then
		echo "pathlab: refusing $f: not a plain file of ours" >&2
		return 1
	fi
	(umask 077 && : >>"$f") && chmod 0600 "$f" && printf '%s\n' "$f"
}

# Take the lab-wide lock (topo__lock_file).
topo__lock() {
	local f
	f=$(topo__lock_file) || return 1
	exec {topo__lock_fd}<"$f" || return 1
	if ! flock -w 60 "$topo__lock_fd"; then
		echo "pathlab: timed out waiting for the lab lock ($f)" >&2
		exec {topo__lock_fd}<&-
		return 1
	fi
}

# Release the lab-wide lock.
topo__unlock() {
	exec {topo__lock_fd}<&-
}

# Register PREFIX as a user of the lab; mount bpffs if nobody has.
topo__share_acquire() {
	local prefix=$1
	mkdir -p "$PL_STATE/users" || return 1
	if [ ! -d "$PL_NETNS_DIR" ] && [ ! -e "$PL_STATE/netns-dir" ]; then
		# ip netns add will create it (and bind-mount it onto itself).
		: >"$PL_STATE/netns-dir"
	fi
	if ! mountpoint -q "$PL_BPFFS" 2>/dev/null; then
		if mount -t bpf bpf "$PL_BPFFS" 2>/dev/null; then
			: >"$PL_STATE/bpffs"
		else
			echo "pathlab: warning: could not mount bpffs on $PL_BPFFS" >&2
		fi
	fi
	# The file also holds the lab's NAPI thread PIDs (topo__napi): keep them.
	touch "$PL_STATE/users/$prefix"
}

# True if the bpffs holds nothing but what the kernel preloads in it.
topo__bpffs_empty() {
	local f
	for f in "$PL_BPFFS"/* "$PL_BPFFS"/.[!.]*; do
		[ -e "$f" ] || continue
		case ${f##*/} in
		maps.debug | progs.debug) ;;
		*) return 1 ;;
		esac
	done
}

# Unregister PREFIX; the last user undoes what the first one set up.
topo__share_release() {
	local prefix=$1 f
	rm -f "$PL_STATE/users/$prefix"
	[ -d "$PL_STATE" ] || return 0
	if [ -n "$(ls -A "$PL_STATE/users" 2>/dev/null)" ]; then
		return 0
	fi
	if [ -e "$PL_STATE/bpffs" ] && topo__bpffs_empty; then
		umount "$PL_BPFFS" 2>/dev/null && rm -f "$PL_STATE/bpffs"
	fi
	if [ -e "$PL_STATE/netns-dir" ]; then
		if [ -z "$(ls -A "$PL_NETNS_DIR" 2>/dev/null)" ]; then
			while mountpoint -q "$PL_NETNS_DIR" 2>/dev/null; do
				umount "$PL_NETNS_DIR" || break
			done
			rmdir "$PL_NETNS_DIR" 2>/dev/null
		fi
		[ -d "$PL_NETNS_DIR" ] || rm -f "$PL_STATE/netns-dir"
	fi
	for f in "$PL_STATE"/ns/*; do # marks of namespaces deleted by hand
		[ -e "$f" ] && ! ns_exists "${f##*/}" && rm -f "$f"
	done
	rmdir "$PL_STATE/users" "$PL_STATE/ns" 2>/dev/null
	return 0 # $PL_STATE stays: it holds the lock (topo__lock_file)
}

# Print what is missing on one side (NS IF ADDR PEER_ADDR PEER_MAC QUEUES)
# and fail; nothing if it is fully set up. An empty QUEUES accepts any
# queue count.
topo__side_problem() {
	local ns=$1 ifn=$2 addr=$3 peer=$4 pmac=$5 q=$6 what
	what=$(ip -n "$ns" -d -j link show dev "$ifn" 2>/dev/null |
		jq -er --arg q "$q" '.[0] |
			if .linkinfo.info_kind != "veth" then "is no veth"
			elif .operstate != "UP" then "is \(.operstate)"
			elif $q != "" and (.num_rx_queues != ($q | tonumber)
				or .num_tx_queues != ($q | tonumber))
			then "has \(.num_rx_queues)/\(.num_tx_queues) queues, not \($q)"
			else "" end' 2>/dev/null) || what="is missing"
	[ -z "$what" ] || { echo "$ns: $ifn $what"; return 1; }
	ip -n "$ns" -j addr show dev "$ifn" 2>/dev/null |
		jq -e --arg a "$addr" --argjson l "$PL_PLEN" \
			'any(.[0].addr_info[]; .family == "inet"
				and .local == $a and .prefixlen == $l)' \
			>/dev/null 2>&1 ||
		{ echo "$ns: $ifn has no address $addr/$PL_PLEN"; return 1; }
	ip -n "$ns" -j neigh show dev "$ifn" 2>/dev/null |
		jq -e --arg p "$peer" --arg m "$pmac" \
			'any(.[]; .dst == $p and .lladdr == $m
				and any(.state[]?; . == "PERMANENT"))' \
			>/dev/null 2>&1 || {
		echo "$ns: $ifn has no permanent neighbour entry $peer $pmac"
		return 1
	}
	ip -n "$ns" -j link show dev lo 2>/dev/null |
		jq -e 'any(.[0].flags[]; . == "UP")' >/dev/null 2>&1 ||
		{ echo "$ns: lo is down"; return 1; }
}

# Print what is missing in the topology of namespaces TX and RX with Q
# queues and fail; nothing if it is healthy.
topo__problem() {
	local tx=$1 rx=$2 q=$3 ns
	for ns in "$tx" "$rx"; do
		ns_exists "$ns" || { echo "namespace $ns is missing"; return 1; }
	done
	topo__side_problem "$tx" "$PL_TX_IF" "$PL_TX_ADDR" "$PL_RX_ADDR" \
		"$PL_RX_MAC" "$q" || return 1
	topo__side_problem "$rx" "$PL_RX_IF" "$PL_RX_ADDR" "$PL_TX_ADDR" \
		"$PL_TX_MAC" "$q" || return 1
	# One RX queue: its NAPI must be threaded (topo__napi). Q may be
	# empty (any count), so ask the link itself.
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$rx" bash -c 'd=/sys/class/net/$1
		set -- "$d"/queues/rx-*
		[ $# -gt 1 ] || [ "$(cat "$d/threaded")" = 1 ]' \
		healthy "$PL_RX_IF" 2>/dev/null || {
		echo "$rx: $PL_RX_IF runs its NAPI in no thread"
		return 1
	}
}

# True if the topology of namespaces TX and RX with Q queues is healthy.
topo__healthy() {
	topo__problem "$@" >/dev/null
}

# Print the processes in namespaces NS..., "NS: PID ARGS" a line; fail if
# there are none.
topo__procs() {
	local ns pids found=1
	for ns in "$@"; do
		ns_exists "$ns" || continue
		pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ',')
		[ -n "${pids%,}" ] || continue
		ps -o pid=,args= -p "${pids%,}" | sed "s/^ */$ns: /"
		found=0
	done
	return $found
}

# Configure one side: NS IF ADDR PEER_ADDR PEER_MAC.
topo__side_up() {
	local ns=$1 ifn=$2 addr=$3 peer=$4 pmac=$5
	# No IPv6 on the lab link: its chatter would show in the counters.
	if [ -d /proc/sys/net/ipv6 ]; then
		nsenter --net="$PL_NETNS_DIR/$ns" sysctl -q -w \
			net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 >/dev/null || return 1
	fi
	ip -n "$ns" link set dev lo up || return 1
	ip -n "$ns" addr add "$addr/$PL_PLEN" dev "$ifn" || return 1
	ip -n "$ns" neigh replace "$peer" lladdr "$pmac" dev "$ifn" \
		nud permanent || return 1
	ip -n "$ns" link set dev "$ifn" up
}

# Print the XPS mask (hex, 32-bit groups split by commas) of CPU N alone.
topo__cpu_mask() {
	local cpu=$1 mask i
	mask=$(printf '%x' $((1 << (cpu % 32))))
	for ((i = 0; i < cpu / 32; i++)); do
		mask+=,00000000
	done
	printf '%s\n' "$mask"
}

# XPS on the tx side of namespace NS with Q queues: TX queue q of pl-tx0
# is used by CPU q mod (online CPUs). `ip netns exec` mounts the
# namespace's own sysfs, so this touches only the lab's device.
topo__xps() {
	local ns=$1 q=$2 ncpu i masks=()
	[ "$q" -gt 1 ] || return 0
	ncpu=$(getconf _NPROCESSORS_ONLN) || return 1
	for ((i = 0; i < q; i++)); do
		masks+=("$(topo__cpu_mask $((i % ncpu)))")
	done
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$ns" bash -c '
		dir=/sys/class/net/$1/queues
		shift
		q=0
		for m in "$@"; do
			echo "$m" >"$dir/tx-$q/xps_cpus" || exit 1
			q=$((q + 1))
		done' xps "$PL_TX_IF" "${masks[@]}"
}

# Print the receive core: the CPU the lab runs receivers and their NAPI
# threads on. PATHLAB_RX_CPU, else CPU 1 (CPU 0 is the sender's), else 0
# on a one-CPU machine.
topo_rx_cpu() {
	local c=${PATHLAB_RX_CPU:-} n
	n=$(getconf _NPROCESSORS_ONLN) || return 1
	if [ -z "$c" ]; then
		[ "$n" -ge 2 ] && c=1 || c=0
	fi
	if [[ ! $c =~ ^[0-9]+$ ]] || [ "$c" -ge "$n" ]; then
		echo "pathlab: bad PATHLAB_RX_CPU '$c' (0..$((n - 1)))" >&2
		return 1
	fi
	printf '%s\n' "$c"
}

# Print the PIDs of the kernel's NAPI threads (any link), one per line.
topo__napi_pids() {
	local d comm
	for d in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$d/comm" || continue
		case $comm in napi/*) echo "${d#/proc/}" ;; esac
	done | sort
}

# Put veth's receive work on the receive core, as a NIC queue whose IRQ and
# NAPI run there would. veth only polls with NAPI when the receiving end
# asks for it (GRO on, or an XDP program) and, for locally sent UDP, when
# the sending end does no TSO; threaded NAPI then gives each RX queue a
# kernel thread (napi/pl-rx0-ID) that we pin: RX queue q's to the receive
# core + q. Without this the receive work runs on the sender's CPU. The
# new threads are told apart from other links' by what appears when we
# switch threading on, under the lab lock.
topo__napi() {
	local tx=$1 rx=$2 q=$3 cpu ncpu before pids=() pid i=0
	cpu=$(topo_rx_cpu) || return 1
	ncpu=$(getconf _NPROCESSORS_ONLN) || return 1
	ip netns exec "$tx" ethtool -K "$PL_TX_IF" tso off >/dev/null || return 1
	ip netns exec "$rx" ethtool -K "$PL_RX_IF" gro on >/dev/null || return 1
	before=$(topo__napi_pids)
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$rx" bash -c 'echo 1 >"/sys/class/net/$1/threaded"' \
		napi "$PL_RX_IF" || return 1
	mapfile -t pids < <(comm -13 <(echo "$before") <(topo__napi_pids) |
		sort -n)
	if [ ${#pids[@]} -ne "$q" ]; then
		echo "pathlab: expected $q NAPI threads on $PL_RX_IF, found ${#pids[@]}" >&2
		return 1
	fi
	for pid in "${pids[@]}"; do
		taskset -p -c $(((cpu + i) % ncpu)) "$pid" >/dev/null || return 1
		i=$((i + 1))
	done
	printf '%s\n' "${pids[@]}" >"$PL_STATE/users/$(topo_prefix)"
}

# Place the kernel's receive work for the next runs (PLACEMENT):
#   rx-core     the NAPI thread on the receive core, beside the receiver:
#               a NIC's softirq on the core that took the interrupt; right
#               for a receiver that sleeps, a fight for one that spins
#   other-core  the NAPI thread on another CPU (on two CPUs, the sender's):
#               for a poller that cannot drive NAPI itself (af_packet)
#   busy-poll   the NAPI thread stays on the receive core but rarely runs:
#               the link defers to a preferred busy poller
#               (napi_defer_hard_irqs 2, gro_flush_timeout 200 us, the
#               values DPDK's af_xdp guide gives), whose own calls run NAPI
#               on its core; the receiver must busy poll (--busy-poll)
# The receiver reports what it found (run.placement). With many queues
# the lab's NAPI is not threaded (topo__napi): only busy-poll's deferral
# applies then.
topo_napi_place() {
	local p=$1 rx cpu ncpu target defer=0 flush=0 pid pids
	rx=$(topo_ns rx) || return 1
	cpu=$(topo_rx_cpu) || return 1
	ncpu=$(getconf _NPROCESSORS_ONLN) || return 1
	case $p in
	rx-core) target=$cpu ;;
	other-core)
		if [ "$ncpu" -lt 2 ]; then
			echo "pathlab: placement other-core needs two CPUs" >&2
			return 1
		fi
		target=$(((cpu + ncpu - 1) % ncpu))
		;;
	busy-poll) target=$cpu defer=2 flush=200000 ;;
	*)
		echo "pathlab: unknown placement '$p' (rx-core, other-core, busy-poll)" >&2
		return 2
		;;
	esac
	pids=$(topo_napi_pids) || return 1
	if [ -z "$pids" ] && [ "$p" = other-core ]; then
		echo "pathlab: placement other-core: the lab has no NAPI thread to move (many queues?)" >&2
		return 1
	fi
	for pid in $pids; do
		taskset -p -c "$target" "$pid" >/dev/null || return 1
	done
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$rx" bash -c 'd=/sys/class/net/$1
		echo "$2" >"$d/napi_defer_hard_irqs" &&
		echo "$3" >"$d/gro_flush_timeout"' place "$PL_RX_IF" "$defer" \
		"$flush"
}

# Print the PIDs of this lab's NAPI threads (none with many queues), one
# per line: what a benchmark charges to the receive core besides the
# receiver.
topo_napi_pids() {
	local prefix
	prefix=$(topo_prefix) || return 1
	cat "$PL_STATE/users/$prefix" 2>/dev/null || true
}

# Print the identity of namespace NS: the device and inode of its nsfs file,
# unique while it lives (a namespace of the same name made later differs).
topo__ns_id() {
	command stat -L -c %d:%i "$PL_NETNS_DIR/$1" 2>/dev/null
}

# Create namespace NS and mark it ours.
topo__ns_add() {
	ip netns add "$1" || return 1
	mkdir -p "$PL_STATE/ns" && topo__ns_id "$1" >"$PL_STATE/ns/$1"
}

# True if namespace NS is one the lab created: the mark matches it. Another
# tool's namespace whose name collides with a prefix's is never touched.
topo__ns_ours() {
	local id
	id=$(topo__ns_id "$1") || return 1
	[ "$(cat "$PL_STATE/ns/$1" 2>/dev/null)" = "$id" ]
}

# Refuse (1, and say why) if namespace NS exists and is not ours.
topo__ns_check() {
	ns_exists "$1" || return 0
	topo__ns_ours "$1" && return 0
	echo "pathlab: refusing namespace $1: the lab did not create it (its" \
		"name collides with PATHLAB_PREFIX=$(topo_prefix)); choose" \
		"another PATHLAB_PREFIX, or remove it yourself if it is a lab" \
		"from before this check (ip netns delete $1)" >&2
	return 1
}

# Build the topology from nothing: namespaces TX and RX, Q queues.
topo__build() {
	local tx=$1 rx=$2 q=$3
	topo__ns_add "$tx" || return 1
	topo__ns_add "$rx" || return 1
	ip -n "$tx" link add "$PL_TX_IF" address "$PL_TX_MAC" \
		numtxqueues "$q" numrxqueues "$q" type veth \
		peer name "$PL_RX_IF" address "$PL_RX_MAC" \
		numtxqueues "$q" numrxqueues "$q" netns "$rx" || return 1
	topo__side_up "$tx" "$PL_TX_IF" "$PL_TX_ADDR" "$PL_RX_ADDR" \
		"$PL_RX_MAC" || return 1
	topo__side_up "$rx" "$PL_RX_IF" "$PL_RX_ADDR" "$PL_TX_ADDR" \
		"$PL_TX_MAC" || return 1
	topo__xps "$tx" "$q" || return 1
	if [ "$q" = 1 ]; then
		topo__napi "$tx" "$rx" "$q" || return 1
	fi
	topo__healthy "$tx" "$rx" "$q"
}

# End the processes inside namespace NS: TERM, then KILL after 3 s.
topo__kill_ns_procs() {
	local ns=$1 pids=() pid i
	for i in 1 2; do
		pids=()
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			[ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] ||
				pids+=("$pid")
		done
		[ ${#pids[@]} -gt 0 ] || return 0
		if [ "$i" -eq 1 ]; then
			kill -TERM "${pids[@]}" 2>/dev/null
		else
			echo "pathlab: killing ${pids[*]} in $ns" >&2
			kill -KILL "${pids[@]}" 2>/dev/null
		fi
		for _ in $(seq 30); do
			kill -0 "${pids[@]}" 2>/dev/null || break
			sleep 0.1
		done
	done
}

# Tear down namespaces TX and RX of PREFIX (no lock taken).
topo__down_locked() {
	local prefix=$1 tx=$2 rx=$3 ns rc=0
	for ns in "$rx" "$tx"; do
		ns_exists "$ns" || continue
		topo__ns_check "$ns" || { rc=1; continue; }
		topo__kill_ns_procs "$ns"
		ip netns delete "$ns" || rc=1
		rm -f "$PL_STATE/ns/$ns"
	done
	topo__share_release "$prefix"
	return $rc
}

# Refuse (1) to rebuild the partial lab PREFIX (namespaces TX, RX; what is
# missing: PROBLEM) while processes run in it: a rebuild ends them, and a
# receiver in a lab torn down under it reports nothing. Say what is
# missing and what runs; the lab cannot tell which of them (or what else)
# removed it. 0 if nothing runs there.
topo__refuse_in_use() {
	local prefix=$1 tx=$2 rx=$3 problem=$4 procs
	procs=$(topo__procs "$tx" "$rx") || return 0
	{
		echo "pathlab: lab $prefix is partly built: $problem"
		echo "pathlab: not rebuilding it: a rebuild would end what runs in it:"
		printf '%s\n' "$procs" | sed 's/^/  /'
		echo "pathlab: end those (or 'pathlab down', which ends them) and try again"
	} >&2
	return 1
}

# Bring the lab up: a no-op if healthy, else (re)build; clean up on failure.
# A partial lab with processes in it is left as it is (topo__refuse_in_use).
topo_up() {
	local prefix tx rx q want problem rc=0
	prefix=$(topo_prefix) || return 1
	q=$(topo_queues) || return 1
	want=$(topo__want_queues) || return 1
	tx=$prefix-tx
	rx=$prefix-rx
	topo__lock || return 1
	if ! topo__ns_check "$tx" || ! topo__ns_check "$rx"; then
		topo__unlock
		return 1
	fi
	topo__share_acquire "$prefix" || rc=1
	if [ $rc -eq 0 ] && ! problem=$(topo__problem "$tx" "$rx" "$want"); then
		if ns_exists "$tx" || ns_exists "$rx"; then
			if ! topo__refuse_in_use "$prefix" "$tx" "$rx" "$problem"; then
				topo__unlock
				return 1
			fi
			echo "pathlab: $prefix is partly built ($problem); rebuilding" >&2
			topo__down_locked "$prefix" "$tx" "$rx"
			topo__share_acquire "$prefix" || rc=1
		fi
		if [ $rc -eq 0 ] && ! topo__build "$tx" "$rx" "$q"; then
			echo "pathlab: setting up $prefix failed; cleaning up" >&2
			rc=1
		fi
	fi
	[ $rc -eq 0 ] || topo__down_locked "$prefix" "$tx" "$rx"
	topo__unlock
	return $rc
}

# Tear the lab down: end its processes, delete both namespaces (and so the
# veth). Safe to call when nothing exists.
topo_down() {
	local prefix rc
	prefix=$(topo_prefix) || return 1
	topo__lock || return 1
	topo__down_locked "$prefix" "$prefix-tx" "$prefix-rx"
	rc=$?
	topo__unlock
	return $rc
}

# Print one side's link, addresses, XDP and neighbour state.
topo__status_side() {
	local ns=$1 ifn=$2
	if ! ip -n "$ns" -d -j link show dev "$ifn" >/dev/null 2>&1; then
		printf '  %s: %s missing\n' "$ns" "$ifn"
		return 1
	fi
	ip -n "$ns" -d -j addr show dev "$ifn" | jq -r --arg ns "$ns" '.[0] |
		"  \($ns): \(.ifname) \(.operstate) \(.address)" +
		" queues rx \(.num_rx_queues) tx \(.num_tx_queues)" +
		" addr \([.addr_info[] | select(.family == "inet") |
			"\(.local)/\(.prefixlen)"] | join(",") |
			if . == "" then "none" else . end)" +
		" xdp " + (if .xdp then "\(.xdp.mode // "?") prog " +
			"\(.xdp.prog.id // .xdp.prog_id // "?")" else "none" end)'
	ip -n "$ns" -j neigh show dev "$ifn" | jq -r --arg ns "$ns" '.[] |
		"  \($ns): neigh \(.dst) \(.lladdr // "-") \(.state | join(","))"'
}

# Print what exists of the lab; return 0 if up, 1 if down, 2 if partial.
topo_status() {
	local prefix tx rx q ns n=0 procs problem
	prefix=$(topo_prefix) || return 1
	q=$(topo__want_queues) || return 1
	tx=$prefix-tx
	rx=$prefix-rx
	echo "pathlab lab '$prefix':"
	for ns in "$tx" "$rx"; do
		if ns_exists "$ns"; then
			echo "  namespace $ns: present"
			n=$((n + 1))
		else
			echo "  namespace $ns: absent"
		fi
	done
	if [ $n -eq 0 ]; then
		echo "  state: down"
		return 1
	fi
	ns_exists "$tx" && topo__status_side "$tx" "$PL_TX_IF"
	ns_exists "$rx" && topo__status_side "$rx" "$PL_RX_IF"
	for ns in "$tx" "$rx"; do
		ns_exists "$ns" || continue
		if procs=$(topo__procs "$ns"); then
			echo "  processes in $ns:"
			printf '%s\n' "$procs" | sed "s/^$ns: /    /"
		else
			echo "  processes in $ns: none"
		fi
	done
	if mountpoint -q "$PL_BPFFS" 2>/dev/null; then
		echo "  bpffs: mounted on $PL_BPFFS"
	else
		echo "  bpffs: not mounted"
	fi
	if problem=$(topo__problem "$tx" "$rx" "$q"); then
		echo "  state: up"
		return 0
	fi
	echo "  state: partial ($problem)"
	return 2
}
