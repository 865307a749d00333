#!/usr/bin/env bash
# kill -9, path by path: a receiver killed with SIGKILL in the middle of
# `pathlab compare`, and `pathlab compare` itself killed with SIGKILL while
# its receiver runs. Neither can run a trap; afterwards there must be no
# namespace of the lab, no receiver or generator still running, no XDP
# program on an interface here, no DPDK runtime folder of a dead receiver
# and no counting rule (--tradeoffs on two hosts puts one in the
# namespace compare runs in). The driver's watchdog (labs/lib/proc.sh)
# does it for a killed compare; the driver itself for a killed receiver.
# The verbs path is left to tests/rdma/vm_harness.sh (qemu after SIGKILL).
set -u

# shellcheck source-path=SCRIPTDIR source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
driver_env plk$$
need_compare jq nsenter unshare
scratch_dir
BG=""
stop_bg() {
	[ -z "$BG" ] || kill -9 "$BG" 2>/dev/null
	lab_down
}
on_exit stop_bg
# The paths of the lab that are built (xdp is afxdp's XDP-alone mode).
PATHS=$(built_paths | tr , '\n' | grep -vx xdp)

# Print the PIDs of the processes under PID whose name starts with NAME.
under() {
	ps -e -o pid=,ppid=,comm= | awk -v root="$1" -v name="$2" '
		{ parent[$1] = $2; comm[$1] = $3 }
		END { for (p in parent) { q = p
			while (q in parent && q != root && q > 1) q = parent[q]
			if (q == root && index(comm[p], name) == 1) print p } }'
}

# Wait (30 s at most) for the first receiver under PID; print its PID.
receiver_of() {
	local i r
	for ((i = 0; i < 600; i++)); do
		r=$(under "$1" pathlab-rx | head -n 1)
		[ -z "$r" ] || { echo "$r"; return 0; }
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# XDP programs on this namespace's interfaces, one "IF" a line.
xdp_here() {
	ip -o link show 2>/dev/null | awk '/ xdp/ { sub(":", "", $2); print $2 }'
}
XDP_BEFORE=$(xdp_here)

# True when nothing of the run is left (after up to 30 s): no lab
# namespace, none of PIDS alive, no DPDK folder of theirs, no journal.
nothing_left() {
	local pids=$1 i p alive
	for ((i = 0; i < 150; i++)); do
		alive=""
		for p in $pids; do
			kill -0 "$p" 2>/dev/null && alive+=" $p"
		done
		if no_lab_left && [ -z "$alive" ]; then
			break
		fi
		sleep 0.2
	done
	no_lab_left || { echo "     namespaces left: $(ip netns list | grep "^$PATHLAB_PREFIX-")"; return 1; }
	[ -z "$alive" ] || { echo "     still running:$alive"; return 1; }
	for p in $pids; do
		[ ! -e "/var/run/dpdk/pathlab-$p" ] ||
			{ echo "     /var/run/dpdk/pathlab-$p left"; return 1; }
	done
	[ "$(xdp_here)" = "$XDP_BEFORE" ] ||
		{ echo "     XDP left on $(xdp_here)"; return 1; }
	[ ! -e "/run/pathlab/journal/$2" ] ||
		{ echo "     journal of $2 left"; return 1; }
}

# compare_bg PATH OUT: compare one path in the background (BG), long
# enough (300000 frames) to be killed while its receiver runs.
compare_bg() {
	"$PATHLAB" compare --paths "$1" --sizes 64 --workloads throughput \
		--count 300000 --out "$2" >"$2.log" 2>&1 &
	BG=$!
}

for p in $PATHS; do
	echo "# $p: the receiver killed with SIGKILL"
	mkdir -p "$SCRATCH/$p-rx"
	compare_bg "$p" "$SCRATCH/$p-rx"
	if rx=$(receiver_of "$BG"); then
		gen=$(under "$BG" pathlab-gen)
		kill -9 "$rx"
		wait "$BG"
		echo "     compare exited $? after receiver $rx was killed"
		check "$p: nothing left after the receiver's SIGKILL" \
			nothing_left "$rx $gen" "$BG"
		BG=""
	else
		check "$p: a receiver ran: $(tail -3 "$SCRATCH/$p-rx.log")" false
	fi

	echo "# $p: compare killed with SIGKILL"
	mkdir -p "$SCRATCH/$p-cmp"
	compare_bg "$p" "$SCRATCH/$p-cmp"
	if rx=$(receiver_of "$BG"); then
		sleep 0.5 # the generator is on its way
		procs="$rx $(under "$BG" pathlab-gen | tr '\n' ' ')"
		kill -9 "$BG"
		wait "$BG" 2>/dev/null
		check "$p: nothing left after compare's SIGKILL" \
			nothing_left "$procs" "$BG"
		BG=""
	else
		check "$p: a receiver ran: $(tail -3 "$SCRATCH/$p-cmp.log")" false
	fi
	lab_down
done

# Two hosts, with the lab standing in (as tests/netns/hosts.sh does): the
# whole compare --tradeoffs inside the rx namespace on pl-rx0, the sender
# in the tx namespace. The counting rule is then in the namespace compare
# runs in; Ctrl-C (SIGINT) and SIGKILL, each while the rule is there,
# must leave none (it survived Ctrl-C).
rule_here() {
	ip netns exec "$(topo_ns rx)" nft list table inet pathlab_tradeoffs \
		>/dev/null 2>&1
}

# Wait (60 s at most) for the counting rule while PID lives.
wait_rule() {
	local i
	for ((i = 0; i < 1200; i++)); do
		rule_here && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# No rule (after up to 30 s), none of PIDS alive, no journal of DRIVER.
no_rule_left() {
	local i p alive
	for ((i = 0; i < 150; i++)); do
		alive=""
		for p in $1; do
			kill -0 "$p" 2>/dev/null && alive+=" $p"
		done
		if [ -z "$alive" ] && ! rule_here; then
			break
		fi
		sleep 0.2
	done
	! rule_here || { echo "     the counting rule is still there"; return 1; }
	[ -z "$alive" ] || { echo "     still running:$alive"; return 1; }
	[ ! -e "/run/pathlab/journal/$2" ] ||
		{ echo "     journal of $2 left"; return 1; }
}

if ! command -v nft >/dev/null; then
	echo "   skip: two hosts --tradeoffs: nft is not installed"
else
	. "$ROOT/labs/lib/topo.sh"
	topo_up >/dev/null || { echo "FAIL: topo_up"; exit 1; }
	for sig in INT KILL; do
		echo "# two hosts, --tradeoffs: compare stopped with SIG$sig"
		out=$SCRATCH/hosts-$sig
		# ip netns exec and env exec (BG is compare's PID); env: a
		# background job starts with SIGINT ignored, Ctrl-C reaches a
		# foreground one.
		ip netns exec "$(topo_ns rx)" env --default-signal=INT \
			"$PATHLAB" compare \
			--iface "$PL_RX_IF" --sender "ns:$(topo_ns tx)" \
			--sender-gen "$BUILD/common/pathlab-gen" \
			--sender-if "$PL_TX_IF" --sender-cpu 0 --tradeoffs \
			--paths socket --sizes 64,128,256,512,1024,1518 \
			--out "$out" >"$out.log" 2>&1 &
		BG=$!
		if wait_rule "$BG"; then
			procs="$(under "$BG" pathlab- | tr '\n' ' ')"
			kill "-$sig" "$BG"
			wait "$BG"
			echo "     compare exited $?"
			check "SIG$sig: no rule, no receiver or sender left" \
				no_rule_left "$procs" "$BG"
		else
			check "the counting rule appeared: $(tail -3 "$out.log")" false
		fi
		BG=""
	done
fi
finish kill9
