# shellcheck shell=bash disable=SC2034 # globals shared between lib files
# hosts.sh - `pathlab compare` on two real hosts: the receivers on a real
# interface of this machine (--iface IF, or --pci ADDR for DPDK), the
# generator on a second machine (--sender HOST over ssh, or --sender-print:
# the exact command to type there).
#
# Without these options nothing here changes what compare does: the lab's
# namespaces, the generator in the tx namespace. With them there is no lab
# topology at all; the receivers run in this network namespace on IF and
# the generator's command line is built once, the same for every sender:
#   --sender HOST     ssh -o BatchMode=yes -o ConnectTimeout=N HOST 'CMD'
#   --sender ns:NAME  ip netns exec NAME sh -c 'CMD'   (the tests' second
#                     host: a namespace; the same code but the prefix)
#   --sender-print    CMD printed, for a person to run on the sender
# The verbs path too: its receiver here on IF's RDMA device, its sender
# (pathlab-tx-verbs) through the same transport; labs/lib/rdma-vm-compare.sh
# --peer runs those rows (hosts_verbs_args hands it the transport).
#
# The safety rules, checked before anything runs (exit 2): never the
# interface of a default route (the one this machine is reached through),
# never loopback, never a PCI device DPDK would have to take from a kernel
# driver (pathlab binds nothing), never a ConnectX (mlx5, bifurcated) on
# vfio-pci. PATHLAB_SYSFS (default /sys) is where the PCI devices are
# looked up, so that the tests can give it a tree of their own.
#
# Needs topo.sh, paths.sh, proc.sh and verbs-host.sh sourced (compare.sh and
# run.sh call in).

# Seconds ssh may take to connect; seconds a printed command may take to be
# run by hand (PATHLAB_SENDER_WAIT) before the run is given up.
HOSTS_SSH_TIMEOUT=10
HOSTS_PRINT_WAIT=${PATHLAB_SENDER_WAIT:-600}
# The MAC a DPDK port without a kernel interface is sent to: it runs
# promiscuous, so any unicast address reaches it.
HOSTS_PCI_MAC=02:70:6c:00:00:02

# Print the usage lines of the two-host options (part of compare's).
hosts_usage() {
	cat <<EOF

Two hosts (labs/06-two-hosts.md): receivers on a real NIC here, the
generator on another machine. No lab namespaces are built.
  --iface IF        receive on IF (its IPv4 address is the destination);
                    refused for loopback and the default route's interface
  --pci ADDR        DPDK only: the port by PCI address (0000:3b:00.0); it
                    must already be usable: on vfio-pci, or a ConnectX on
                    mlx5_core (bifurcated); pathlab binds no driver
  --rx-addr ADDR    with --pci of a port that has no kernel interface: the
                    IPv4 address the sender sends to
  --sender HOST     run pathlab-gen (and the verbs path's sender) there:
                    ssh HOST (BatchMode, keys only)
  --sender-print    print the generator's command for each run, to be run
                    by hand on the sender; wait for it (PATHLAB_SENDER_WAIT
                    s, default $HOSTS_PRINT_WAIT)
  --sender-gen PATH pathlab-gen on the sender (default: pathlab-gen in PATH)
  --sender-verbs PATH  pathlab-tx-verbs on the sender, for the verbs path
                    (default: next to --sender-gen's, BUILD/rdma/, else in
                    PATH); the receiver runs here on the RDMA device whose
                    RoCE v2 GID holds IF's address, the sender picks its own
  --sender-if IF    the sender's interface: its counters, and a static
                    neighbour entry there for the receiver (removed after)
  --sender-cpu N    pin the generator (and pathlab-tx-verbs) to CPU N of
                    the sender
  --check           check the options, the safety rules and the sender;
                    print the plan and run nothing
EOF
}

# Reset the two-host options (compare's parser calls this first).
hosts_reset() {
	HOSTS_IFACE=""
	HOSTS_PCI=""
	HOSTS_RX_ADDR_OPT=""
	HOSTS_SENDER=local
	HOSTS_SENDER_SET=0
	HOSTS_PRINT=0
	HOSTS_GEN=pathlab-gen
	HOSTS_GEN_SET=0
	HOSTS_TXV=""
	HOSTS_SENDER_IF=""
	HOSTS_SENDER_CPU=""
	HOSTS_CHECK_ONLY=0
	HOSTS_NEIGH_SET=0
	HOSTS_RX_ADDR=""
	HOSTS_RX_MAC=""
	HOSTS_RX_NETDEV=""
	HOSTS_HW_STAMPS=0
	HOSTS_SYSFS=${PATHLAB_SYSFS:-/sys}
	HOSTS_TRANSPORT=()
}
hosts_reset

# Take one two-host option OPT with value VAL (empty for the flags).
hosts_opt() {
	case $1 in
	--iface) HOSTS_IFACE=$2 ;;
	--pci) HOSTS_PCI=$2 ;;
	--rx-addr) HOSTS_RX_ADDR_OPT=$2 ;;
	--sender) HOSTS_SENDER=$2; HOSTS_SENDER_SET=1 ;;
	--sender-gen) HOSTS_GEN=$2; HOSTS_GEN_SET=1 ;;
	--sender-verbs) HOSTS_TXV=$2 ;;
	--sender-if) HOSTS_SENDER_IF=$2 ;;
	--sender-cpu) HOSTS_SENDER_CPU=$2 ;;
	--sender-print) HOSTS_PRINT=1 ;;
	--check) HOSTS_CHECK_ONLY=1 ;;
	esac
}

# True when compare runs on the lab topology (no --iface, no --pci).
hosts_lab() {
	[ -z "$HOSTS_IFACE" ] && [ -z "$HOSTS_PCI" ]
}

# Say what is wrong (one line) and return 2: a usage error.
hosts__refuse() {
	echo "pathlab: $*" >&2
	return 2
}

# Print the interfaces that carry a default route, IPv4 or IPv6, in any
# routing table, one per line.
hosts_default_route_ifs() {
	local fam
	for fam in -4 -6; do
		ip -j "$fam" route show default table all 2>/dev/null |
			jq -r '.[]? | (.dev // empty), (.nexthops[]?.dev // empty)'
	done | sort -u
}

# True if interface IF carries a default route.
hosts__is_mgmt() {
	hosts_default_route_ifs | grep -qxF -- "$1"
}

# Check the --iface interface: it exists here, is not loopback, not the
# management interface, is up and has an IPv4 address.
hosts__check_iface() {
	local ifn=$1 j
	if [[ ! $ifn =~ ^[A-Za-z0-9_.:@-]{1,15}$ ]] || [[ $ifn == -* ]]; then
		hosts__refuse "--iface '$ifn': not an interface name"
		return
	fi
	if ! j=$(ip -j -d link show dev "$ifn" 2>/dev/null); then
		hosts__refuse "--iface $ifn: no such interface in this network namespace (ip link)"
		return
	fi
	if jq -e '.[0].link_type == "loopback" or
		any(.[0].flags[]; . == "LOOPBACK")' <<<"$j" >/dev/null; then
		hosts__refuse "--iface $ifn: loopback: nothing on it crosses a wire; give the NIC cabled to the sender"
		return
	fi
	if hosts__is_mgmt "$ifn"; then
		hosts__refuse "--iface $ifn: refused: it carries this machine's default route (the management interface); an XDP program, AF_XDP socket or DPDK port there could cut you off: use a second port"
		return
	fi
	if ! jq -e 'any(.[0].flags[]; . == "UP")' <<<"$j" >/dev/null; then
		hosts__refuse "--iface $ifn: the interface is down (ip link set dev $ifn up)"
		return
	fi
	HOSTS_RX_ADDR=$(ip -j -4 addr show dev "$ifn" |
		jq -r '[.[0].addr_info[]? | select(.family == "inet") | .local][0] // empty')
	if [ -z "$HOSTS_RX_ADDR" ]; then
		hosts__refuse "--iface $ifn: no IPv4 address: the sender needs one to send to (ip addr add 198.18.0.2/30 dev $ifn)"
		return
	fi
	HOSTS_RX_MAC=$(jq -r '.[0].address // empty' <<<"$j")
}

# Print the kernel interfaces of PCI device ADDR (a virtio-net function
# holds them one level down), one per line.
hosts_pci_netdevs() {
	local d=$HOSTS_SYSFS/bus/pci/devices/$1 n
	for n in "$d"/net/* "$d"/virtio*/net/*; do
		[ -e "$n" ] && printf '%s\n' "${n##*/}"
	done
	return 0
}

# Print the kernel driver PCI device ADDR is bound to (empty if none).
hosts_pci_driver() {
	local l
	l=$(readlink "$HOSTS_SYSFS/bus/pci/devices/$1/driver" 2>/dev/null) || return 0
	printf '%s\n' "${l##*/}"
}

# True if DRIVER is one DPDK's PMD runs on top of (labs/doctor/drivers.txt:
# bifurcated), or the device's vendor is Mellanox/NVIDIA (0x15b3).
hosts__bifurcated() {
	local drv=$1 vendor=$2 table=${PATHLAB_ROOT:-}/labs/doctor/drivers.txt
	[ "$vendor" = 0x15b3 ] && return 0
	[ -r "$table" ] && awk -v d="$drv" '$1 == d && $4 == "bifurcated" { f = 1 }
		END { exit !f }' "$table"
}

# Check the --pci device: it exists, none of its interfaces is the
# management interface, and DPDK can use it as it is bound now.
hosts__check_pci() {
	local pci=$1 d drv vendor="" nd
	if [[ ! $pci =~ ^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$ ]]; then
		hosts__refuse "--pci '$pci': give the full PCI address, e.g. 0000:3b:00.0 (lspci -D)"
		return
	fi
	d=$HOSTS_SYSFS/bus/pci/devices/$pci
	[ -e "$d" ] || { hosts__refuse "--pci $pci: no such PCI device (lspci -D)"; return; }
	for nd in $(hosts_pci_netdevs "$pci"); do
		if hosts__is_mgmt "$nd"; then
			hosts__refuse "--pci $pci: refused: it is $nd, the interface of this machine's default route (the management interface); use a second port"
			return
		fi
	done
	drv=$(hosts_pci_driver "$pci")
	[ -r "$d/vendor" ] && read -r vendor <"$d/vendor"
	case $drv in
	"")
		hosts__refuse "--pci $pci: no driver is bound to it; DPDK needs vfio-pci (or, for a ConnectX, mlx5_core); pathlab binds no driver"
		return ;;
	vfio-pci | uio_pci_generic | igb_uio)
		if hosts__bifurcated "" "$vendor"; then
			hosts__refuse "--pci $pci: refused: a ConnectX (mlx5) is bifurcated: DPDK's mlx5 PMD drives it through mlx5_core and cannot on $drv; bind it back to mlx5_core, never to vfio-pci"
			return
		fi
		HOSTS_PCI_KIND=bound ;;
	*)
		if hosts__bifurcated "$drv" "$vendor"; then
			HOSTS_PCI_KIND=bifurcated
		else
			hosts__refuse "--pci $pci: on its kernel driver $drv, DPDK cannot drive it; pathlab binds no driver: if it is not how this machine is reached, bind it yourself (dpdk-devbind.py --bind=vfio-pci $pci), or use --iface on its interface (the af_xdp and af_packet vdevs)"
			return
		fi ;;
	esac
	HOSTS_PCI_DRIVER=$drv
	HOSTS_RX_NETDEV=$(hosts_pci_netdevs "$pci" | head -n 1)
}

# The receiver's address with --pci: its kernel interface's, else --rx-addr.
hosts__pci_addr() {
	local nd=$HOSTS_RX_NETDEV
	if [ -n "$HOSTS_IFACE" ]; then
		if [ "$nd" != "$HOSTS_IFACE" ]; then
			hosts__refuse "--iface $HOSTS_IFACE and --pci $HOSTS_PCI are two ports: the sender sends to one address; give the port's own interface (${nd:-it has none}) or one of the two"
			return
		fi
		[ -z "$HOSTS_RX_ADDR_OPT" ] || hosts__refuse "--rx-addr: the address is $HOSTS_IFACE's ($HOSTS_RX_ADDR)"
		return
	fi
	if [ -n "$nd" ] && ip link show dev "$nd" >/dev/null 2>&1; then
		[ -z "$HOSTS_RX_ADDR_OPT" ] ||
			{ hosts__refuse "--rx-addr: --pci $HOSTS_PCI has interface $nd: its address is used"; return; }
		hosts__check_iface "$nd" || return
		return
	fi
	if [[ ! $HOSTS_RX_ADDR_OPT =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]]; then
		hosts__refuse "--pci $HOSTS_PCI has no kernel interface here: give --rx-addr ADDR, the IPv4 address the sender routes out of its port"
		return
	fi
	HOSTS_RX_ADDR=$HOSTS_RX_ADDR_OPT
	HOSTS_RX_MAC=$HOSTS_PCI_MAC
}

# Check --sender, --sender-print and the sender's options; set the
# transport (the prefix that runs a command line on the sender).
hosts__check_sender() {
	local s=$HOSTS_SENDER ns
	if [ "$HOSTS_PRINT" = 1 ]; then
		[ "$HOSTS_SENDER_SET" = 0 ] || [ "$s" = local ] ||
			{ hosts__refuse "--sender-print and --sender $s: one or the other"; return; }
		HOSTS_SENDER=print
		return 0
	fi
	case $s in
	local)
		hosts__refuse "--iface/--pci need the generator on another machine: --sender HOST or --sender-print (a generator here would reach $HOSTS_RX_ADDR through loopback, never through the wire)"
		return ;;
	ns:*)
		ns=${s#ns:}
		if [[ ! $ns =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ ]] || ! ns_exists "$ns"; then
			hosts__refuse "--sender $s: no network namespace '$ns'"
			return
		fi
		HOSTS_TRANSPORT=(ip netns exec "$ns" sh -c) ;;
	*)
		if [[ ! $s =~ ^[A-Za-z0-9_][A-Za-z0-9_.@%:-]*$ ]]; then
			hosts__refuse "--sender '$s': a host name, user@host or an address (or local)"
			return
		fi
		command -v ssh >/dev/null ||
			{ hosts__refuse "--sender $s: needs ssh (apt-get install openssh-client)"; return; }
		HOSTS_TRANSPORT=(ssh -o BatchMode=yes -o "ConnectTimeout=$HOSTS_SSH_TIMEOUT" -- "$s") ;;
	esac
}

# Keep only the paths that can run on a real interface; refuse an explicit
# one that cannot (the verbs path has its own VM; --pci is DPDK's alone).
hosts__check_paths() {
	local p sel=() why
	# Nothing built yet (a fresh clone): compare checks again after the build.
	[ "$CMP_EXPLICIT" = 1 ] || [ ${#CMP_PATHS[@]} -gt 0 ] || return 0
	for p in "${CMP_PATHS[@]}"; do
		why=""
		if [ "$(path_runner "$p")" != netns ]; then
			if [ -z "$HOSTS_IFACE" ]; then
				why="takes an interface: --pci is for the dpdk path alone (add --iface IF)"
			elif ! vh_netdev_end "$HOSTS_IFACE" "$HOSTS_RX_ADDR"; then
				why="needs an RDMA device on --iface $HOSTS_IFACE: $(vh_looked)"
			fi
		elif [ -z "$HOSTS_IFACE" ] && [ "$p" != dpdk ]; then
			why="takes an interface: --pci is for the dpdk path alone (add --iface IF)"
		fi
		if [ -z "$why" ]; then
			sel+=("$p")
		elif [ "$CMP_EXPLICIT" = 1 ]; then
			hosts__refuse "--paths $p: path $p $why"
			return
		fi
	done
	if [ -n "$HOSTS_PCI" ] && [[ " ${sel[*]} " != *" dpdk "* ]]; then
		hosts__refuse "--pci is for the dpdk path, which is $(path_built dpdk && echo "not in --paths" || echo "not built")"
		return
	fi
	[ ${#sel[@]} -gt 0 ] || { hosts__refuse "no path can run on $HOSTS_IFACE"; return; }
	CMP_PATHS=("${sel[@]}")
}

# In the lab, refuse the options that only mean something on two hosts.
hosts__check_lab_only() {
	local o=""
	[ "$HOSTS_SENDER_SET" = 0 ] || [ "$HOSTS_SENDER" = local ] ||
		o="--sender $HOSTS_SENDER"
	[ "$HOSTS_PRINT" = 0 ] || o=--sender-print
	[ "$HOSTS_GEN_SET" = 0 ] || o=--sender-gen
	[ -z "$HOSTS_SENDER_IF" ] || o=--sender-if
	[ -z "$HOSTS_SENDER_CPU" ] || o=--sender-cpu
	[ -z "$HOSTS_RX_ADDR_OPT" ] || o=--rx-addr
	[ -z "$HOSTS_TXV" ] || o=--sender-verbs
	[ -z "$o" ] || hosts__refuse "$o is for two hosts: give --iface IF or --pci ADDR"
}

# Check the two-host options after compare's own (exit 2 on any error).
# Nothing is changed anywhere before this has passed.
hosts_check() {
	if hosts_lab; then
		hosts__check_lab_only || return
		[ "$HOSTS_CHECK_ONLY" = 0 ] || { hosts_plan; return 3; }
		return 0
	fi
	if [ -n "${PATHLAB_QUEUES:-}" ]; then
		hosts__refuse "PATHLAB_QUEUES shapes the lab's veth; a NIC's queues are its own (ethtool -L)"
		return
	fi
	if [ -n "$HOSTS_SENDER_IF" ] && [[ ! $HOSTS_SENDER_IF =~ ^[A-Za-z0-9_.:@-]{1,15}$ ]]; then
		hosts__refuse "--sender-if '$HOSTS_SENDER_IF': not an interface name"
		return
	fi
	[ -n "$HOSTS_GEN" ] || { hosts__refuse "--sender-gen: empty"; return; }
	if [ -n "$HOSTS_SENDER_CPU" ] && [[ ! $HOSTS_SENDER_CPU =~ ^[0-9]{1,4}$ ]]; then
		hosts__refuse "--sender-cpu '$HOSTS_SENDER_CPU': a CPU number"
		return
	fi
	if [ -n "$HOSTS_IFACE" ]; then
		hosts__check_iface "$HOSTS_IFACE" || return
	fi
	if [ -n "$HOSTS_PCI" ]; then
		hosts__check_pci "$HOSTS_PCI" || return
		hosts__pci_addr || return
	elif [ -n "$HOSTS_RX_ADDR_OPT" ]; then
		hosts__refuse "--rx-addr is for --pci ports without a kernel interface"
		return
	fi
	hosts__check_paths || return
	hosts__check_sender || return
	if [ "$HOSTS_CHECK_ONLY" = 1 ]; then
		hosts_plan
		hosts__probe_sender || return 1
		return 3
	fi
}

# Print what compare will do, from the checked options.
hosts_plan() {
	if hosts_lab; then
		echo "pathlab: the lab: receivers in $(topo_ns rx) on $PL_RX_IF, the generator in $(topo_ns tx)"
		echo "pathlab: paths: ${CMP_PATHS[*]}"
		return
	fi
	echo "pathlab: receiver: ${HOSTS_IFACE:-$HOSTS_PCI} here, address $HOSTS_RX_ADDR (MAC $HOSTS_RX_MAC)"
	[ -z "$HOSTS_PCI" ] || echo "pathlab: DPDK port $HOSTS_PCI on $HOSTS_PCI_DRIVER ($HOSTS_PCI_KIND$([ "$HOSTS_PCI_KIND" = bifurcated ] && echo ": the PMD runs on the kernel driver; it stays bound"))"
	echo "pathlab: paths: ${CMP_PATHS[*]}"
	echo "pathlab: sender: $(hosts_sender_label); generator: $(hosts_gen_cmdline 64 1000 0 x)"
	if hosts__has_verbs && vh_netdev_end "$HOSTS_IFACE" "$HOSTS_RX_ADDR"; then
		echo "pathlab: verbs: receiver here on $(vh_describe "$VH_RX"); sender: $(hosts_txv) there, its own device"
	fi
}

# True if the verbs path is among the paths to run.
hosts__has_verbs() {
	[[ " ${CMP_PATHS[*]} " == *" verbs "* ]]
}

# True if a path other than verbs (one pathlab-gen feeds) is to run.
hosts__has_gen() {
	local p
	for p in "${CMP_PATHS[@]}"; do
		[ "$p" = verbs ] || return 0
	done
	return 1
}

# Print pathlab-tx-verbs on the sender: --sender-verbs, else the one in
# the build directory of --sender-gen (BUILD/common/pathlab-gen), else
# pathlab-tx-verbs in PATH.
hosts_txv() {
	if [ -n "$HOSTS_TXV" ]; then
		echo "$HOSTS_TXV"
	elif [[ $HOSTS_GEN == */common/pathlab-gen ]]; then
		echo "${HOSTS_GEN%/common/pathlab-gen}/rdma/pathlab-tx-verbs"
	else
		echo pathlab-tx-verbs
	fi
}

# Print the options of labs/lib/rdma-vm-compare.sh --peer that run the
# verbs sender where pathlab-gen runs: the transport, or printed.
hosts_verbs_args() {
	local a=(--peer "$HOSTS_IFACE" --tx-bin "$(hosts_txv)"
		--sender-label "$(hosts_sender_label)")
	if [ "$HOSTS_SENDER" = print ]; then
		a+=(--tx-print "$HOSTS_PRINT_WAIT")
	else
		a+=(--tx-via "${HOSTS_TRANSPORT[*]}")
	fi
	printf '%s\n' "${a[@]}"
}

# Print where the generator runs, in words.
hosts_sender_label() {
	case $HOSTS_SENDER in
	print) echo "printed, run by hand on the sender" ;;
	ns:*) echo "network namespace ${HOSTS_SENDER#ns:} (ip netns exec), standing in for a second host" ;;
	*) echo "$HOSTS_SENDER over ssh" ;;
	esac
}

# Print ARG quoted for a POSIX shell (as it is when it needs no quotes).
hosts_q() {
	local s=$1
	if [[ $s =~ ^[A-Za-z0-9_./:=,@+%-]+$ ]]; then
		printf '%s' "$s"
	else
		printf "'%s'" "${s//\'/\'\\\'\'}"
	fi
}

# Print the generator's command line for one run: SIZE COUNT RATE and
# JSON (- for stdout, x for none). The one builder for every sender.
hosts_gen_cmdline() {
	local size=$1 count=$2 rate=$3 json=$4 a out=""
	local args=("$HOSTS_GEN" --dst "$HOSTS_RX_ADDR" --port "$PL_UDP_PORT"
		--size "$size" --count "$count")
	[ "$rate" = 0 ] || args+=(--rate "$rate")
	[ -z "$HOSTS_SENDER_IF" ] || args+=(--iface "$HOSTS_SENDER_IF")
	[ -z "$HOSTS_SENDER_CPU" ] || args+=(--cpu "$HOSTS_SENDER_CPU")
	args+=("${CMP_GEN_EXTRA[@]}") # the workload's and --queues' (run.sh)
	[ "$json" = x ] || args+=(--json "$json" --quiet)
	for a in "${args[@]}"; do
		out+="${out:+ }$(hosts_q "$a")"
	done
	printf '%s\n' "$out"
}

# Run command line CMD on the sender within SECS seconds (stdin closed).
hosts_on_sender() {
	local secs=$1 cmd=$2
	timeout -k 5 "$secs" "${HOSTS_TRANSPORT[@]}" "$cmd" </dev/null
}

# Check the sender before any run: reachable, pathlab-gen runs there, and
# its route to the receiver is not local. Fails (1) with the reason.
hosts__probe_sender() {
	local out gen txv="" oif="" rc=0
	[ "$HOSTS_SENDER" != print ] || return 0
	gen=$(hosts_q "$HOSTS_GEN")
	hosts__has_gen || gen=true
	! hosts__has_verbs || txv=$(hosts_q "$(hosts_txv)")
	# Out of --sender-if: the route the generator takes (it binds there).
	[ -z "$HOSTS_SENDER_IF" ] || oif=" oif $HOSTS_SENDER_IF"
	[ -z "$txv" ] || txv="$txv --help >/dev/null 2>&1 || { echo NOTXV; exit 0; }"
	out=$(hosts_on_sender 30 "$gen --help >/dev/null 2>&1 || { echo NOGEN; exit 0; }
		$txv
		ip -o -4 route get $HOSTS_RX_ADDR$oif 2>&1 || true" 2>&1) || rc=$?
	if [ $rc -ne 0 ]; then
		echo "pathlab: the sender ($(hosts_sender_label)) did not answer (exit $rc): ${out//$'\n'/ }" >&2
		[[ $HOSTS_SENDER == ns:* ]] ||
			echo "pathlab: ssh must log in without a password (BatchMode): ssh-copy-id $HOSTS_SENDER" >&2
		return 1
	fi
	case $out in
	*NOGEN*)
		echo "pathlab: $HOSTS_GEN does not run on the sender: build pathlab there (meson setup build && ninja -C build) and give --sender-gen /path/to/build/common/pathlab-gen" >&2
		return 1 ;;
	*NOTXV*)
		echo "pathlab: $(hosts_txv) does not run on the sender (the verbs path's sender): build pathlab there with -Drdma=enabled and give --sender-gen /path/to/build/common/pathlab-gen or --sender-verbs PATH" >&2
		return 1 ;;
	local\ * | *$'\n'local\ *)
		echo "pathlab: the sender reaches $HOSTS_RX_ADDR through loopback: it is this machine, not a second host" >&2
		return 1 ;;
	*unreachable* | *"No route"*)
		echo "pathlab: the sender has no route to $HOSTS_RX_ADDR: give the cabled port an address in the receiver's subnet" >&2
		return 1 ;;
	esac
	out=$(awk '{ for (i = 1; i < NF; i++) if ($i == "dev" || $i == "src")
		printf " %s %s", $i, $(i + 1); exit }' <<<"$out")
	echo "pathlab: sender: $(hosts__has_gen && echo "pathlab-gen${txv:+ and }")${txv:+pathlab-tx-verbs} runs; its route to $HOSTS_RX_ADDR:${out:- (no ip there)}"
}

# Set the sender's neighbour entry for the receiver (with --sender-if) when
# it has none of its own; remember to remove it at the end.
hosts__neigh_up() {
	local cmd out
	[ -n "$HOSTS_SENDER_IF" ] || return 0
	if [ "$HOSTS_SENDER" = print ]; then
		echo "pathlab: on the sender, once: ip neigh replace $HOSTS_RX_ADDR lladdr $HOSTS_RX_MAC dev $HOSTS_SENDER_IF nud permanent"
		return 0
	fi
	cmd="case \"\$(ip neigh show $HOSTS_RX_ADDR dev $HOSTS_SENDER_IF)\" in
		*'lladdr $HOSTS_RX_MAC PERMANENT'*) echo kept ;;
		*) ip neigh replace $HOSTS_RX_ADDR lladdr $HOSTS_RX_MAC dev $HOSTS_SENDER_IF nud permanent && echo set ;;
		esac"
	out=$(hosts_on_sender 30 "$cmd" 2>&1) || {
		echo "pathlab: could not set the neighbour entry on the sender: $out" >&2
		return 1
	}
	if [ "$out" = set ]; then
		HOSTS_NEIGH_SET=1
		echo "pathlab: sender: neighbour $HOSTS_RX_ADDR lladdr $HOSTS_RX_MAC on $HOSTS_SENDER_IF set for this run (removed at the end)"
	fi
}

# Undo what the two-host mode changed on the sender (the driver's exit).
hosts_cleanup() {
	[ "${HOSTS_NEIGH_SET:-0}" = 1 ] || return 0
	HOSTS_NEIGH_SET=0
	hosts_on_sender 30 "ip neigh del $HOSTS_RX_ADDR dev $HOSTS_SENDER_IF" \
		>/dev/null 2>&1 || echo "pathlab: could not remove the neighbour entry on the sender" >&2
}

# True if IF stamps every received frame in hardware with a clock of its
# own (ethtool -T: hardware-receive, a PTP clock, filter mode all).
hosts_hw_stamps_ok() {
	local t
	t=$(ethtool -T "$1" 2>/dev/null) || return 1
	grep -qw hardware-receive <<<"$t" && grep -qw hardware-raw-clock <<<"$t" &&
		! grep -q 'PTP Hardware Clock: none' <<<"$t" &&
		awk '/Hardware Receive Filter Modes/ { f = 1; next } f && /^\t/ &&
			$1 == "all" { ok = 1 } END { exit !ok }' <<<"$t"
}

# Print the env label of the runs on IF: veth, nic or the driver's name,
# and "-vm" under a hypervisor (as compare's lab label).
hosts__env_label() {
	local ifn=$1 drv="" vm=""
	grep -qw hypervisor /proc/cpuinfo && vm=-vm
	drv=$(ethtool -i "$ifn" 2>/dev/null | awk '/^driver:/ { print $2 }')
	if [ "$drv" = veth ]; then
		echo "veth$vm"
	elif [ -e "/sys/class/net/$ifn/device" ] || [ -n "$HOSTS_PCI" ]; then
		echo "nic$vm"
	else
		echo "${drv:-unknown}$vm"
	fi
}

# Before the first run: point the runs at the real interface, check the
# sender, set its neighbour entry. Lab mode: nothing.
hosts_prepare() {
	local nq
	hosts_lab && return 0
	PL_RX_IF=${HOSTS_IFACE:-$HOSTS_RX_NETDEV}
	PL_RX_ADDR=$HOSTS_RX_ADDR
	if [ -n "$PL_RX_IF" ]; then
		CMP_ENV=$(hosts__env_label "$PL_RX_IF")
		hosts_hw_stamps_ok "$PL_RX_IF" && HOSTS_HW_STAMPS=1
	else
		CMP_ENV=nic
		# No kernel interface: nothing for tcpdump to watch.
		PL_WORKLOADS=(throughput latency rtt)
		echo "pathlab: $HOSTS_PCI has no kernel interface: no visibility runs"
	fi
	hosts_plan
	echo "pathlab: hardware RX stamps: $([ "$HOSTS_HW_STAMPS" = 1 ] &&
		echo "yes, socket latency runs use them" ||
		echo "no (software stamps)")"
	[[ $HOSTS_SENDER == ns:* ]] ||
		echo "pathlab: one-way latency compares two hosts' clocks: meaningless unless they are synchronised (see the guide)"
	nq=$(find "/sys/class/net/${PL_RX_IF:-none}/queues" -maxdepth 1 -name 'rx-*' 2>/dev/null | wc -l)
	if [ "${nq:-0}" -gt 1 ]; then
		echo "pathlab: note: $PL_RX_IF has $nq RX queues; AF_XDP and DPDK's af_xdp vdev use queue 0: ethtool -L $PL_RX_IF combined 1, or ethtool -N $PL_RX_IF flow-type udp4 dst-port $PL_UDP_PORT action 0"
	fi
	hosts__probe_sender || return 1
	hosts__neigh_up
}

# The modes of PATH to run: DPDK on a --pci port has one, "pci".
hosts_modes() {
	if [ -n "$HOSTS_PCI" ] && [ "$1" = dpdk ]; then
		echo pci
	else
		path_modes "$1"
	fi
}

# The receiver arguments of PATH in MODE (mode pci: the PCI port).
hosts_path_args() {
	if [ "$2" = pci ]; then
		echo "--pci $HOSTS_PCI"
	else
		path_args "$1" "$2"
	fi
}

# The extra receiver arguments of latency runs: the table's, and hardware
# RX stamps for the socket path where the interface has them.
hosts_latency_args() {
	local a
	a=$(path_latency_args "$1" "$2")
	if [ "$HOSTS_HW_STAMPS" = 1 ] && [ "$1" = socket ]; then
		a+="${a:+ }--hw-stamps"
	fi
	printf '%s\n' "$a"
}

# Drop "--iface IF" from the receiver arguments (array named by VAR) of a
# --pci run: the DPDK receiver takes one or the other.
hosts_fix_rx_args() {
	local -n hosts_fix_a=$1
	local i out=()
	[ "$2" = pci ] || return 0
	for ((i = 0; i < ${#hosts_fix_a[@]}; i++)); do
		if [ "${hosts_fix_a[i]}" = --iface ]; then
			i=$((i + 1))
			continue
		fi
		out+=("${hosts_fix_a[i]}")
	done
	hosts_fix_a=("${out[@]}")
}

# Start CMD where the receivers run, in the background; PID in VAR. The
# lab: its rx namespace; two hosts: here. Redirections apply to CMD.
hosts_spawn_rx() {
	local var=$1
	shift
	if hosts_lab; then
		ns_spawn "$var" rx "$@"
		return
	fi
	"$@" &
	printf -v "$var" '%s' "$!"
}

# One run's generator on the sender: BASE SIZE COUNT RATE RX_PID. Its JSON
# comes back on stdout into BASE.gen.json; printed: wait for the receiver.
hosts_gen() {
	local base=$1 size=$2 count=$3 rate=$4 rx_pid=$5 cmd limit rc=0
	if [ "$HOSTS_SENDER" = print ]; then
		hosts__gen_printed "$@"
		return
	fi
	cmd=$(hosts_gen_cmdline "$size" "$count" "$rate" -)
	echo "$cmd" >"$base.gen.cmd"
	limit=$((30 + HOSTS_SSH_TIMEOUT + count / (rate > 0 ? rate : 10000)))
	hosts_on_sender "$limit" "$cmd" >"$base.gen.json" 2>"$base.gen.err" || rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "pathlab: the generator on the sender ran longer than ${limit} s" >&2
		pl_show gen "$base.gen.err"
		return 1
	fi
	if [ $rc != 0 ] || ! jq -e 'type == "object"' "$base.gen.json" >/dev/null 2>&1; then
		echo "pathlab: the generator on the sender failed (exit $rc)" >&2
		pl_show gen "$base.gen.err"
		return 1
	fi
}

# --sender-print: print the run's command, wait (bounded) for the receiver
# to see the end of the train; the generator's JSON stays on the sender.
hosts__gen_printed() {
	local base=$1 size=$2 count=$3 rate=$4 rx_pid=$5 cmd
	cmd=$(hosts_gen_cmdline "$size" "$count" "$rate" x)
	echo "$cmd" >"$base.gen.cmd"
	printf '\npathlab: run this on the sender now (waiting up to %s s):\nsender$ %s\n' \
		"$HOSTS_PRINT_WAIT" "$cmd"
	if ! pl_wait_gone "$rx_pid" "$HOSTS_PRINT_WAIT"; then
		echo "pathlab: no end of train from the sender after $HOSTS_PRINT_WAIT s (was the command run there?)" >&2
		return 1
	fi
	jq -n --arg cmd "$cmd" '{tool: "pathlab-gen", printed_command: $cmd}' \
		>"$base.gen.json"
}

# Label the merged run BASE.run.json with where the generator ran. Printed:
# no generator JSON came back, so the receiver's own count of what was sent
# (the end-of-train marker's, else its sequence numbers) and what follows
# from it stand, labelled by sent_source.
hosts_annotate() {
	local base=$1 f=$1.run.json shared=false
	hosts_lab && return 0
	[[ $HOSTS_SENDER != ns:* ]] || shared=true
	if [ "$HOSTS_SENDER" = print ]; then
		jq --slurpfile g "$base.gen.json" --slurpfile r "$base.rx.json" \
			'. + ($r[0] | {sent, sent_source, lost, drops, unattributed})
			+ {gen: $g[0]}' "$f" >"$f.tmp" || return 1
	else
		cp "$f" "$f.tmp" || return 1
	fi
	jq --arg kind "${HOSTS_SENDER%%:*}" --arg where "$HOSTS_SENDER" \
		--arg rx_addr "$HOSTS_RX_ADDR" --arg iface "$PL_RX_IF" \
		--arg pci "$HOSTS_PCI" --arg sif "$HOSTS_SENDER_IF" \
		--argjson shared "$shared" \
		'.sender = {kind: (if $kind == "print" or $kind == "ns" then $kind
				else "ssh" end),
			where: $where, rx_addr: $rx_addr, rx_iface: $iface,
			rx_pci: $pci, sender_iface: $sif, clock_shared: $shared}' \
		"$f.tmp" >"$f" && rm -f "$f.tmp"
}
