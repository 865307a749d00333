#!/usr/bin/env bash
# A lab in use stays as it is, and stays the lab's:
# 1. the lab-wide lock is root's own: a user who holds a lock on /run
#    (which once was the lab's lock) and tries the lab's lock file blocks
#    no topology command;
# 2. a receiver leaves the lab's neighbour entries and link flags as they
#    were (the DPDK af_packet vdev's start once flushed the permanent
#    neighbour entry: status then said "partial");
# 3. `pathlab gen`, `exec` and `rx` refuse to rebuild a partial lab with a
#    receiver running in it, say what is missing, and leave the receiver
#    running in the same namespaces (they used to tear the lab down under
#    it, and the receiver reported "received 0 of 0 sent" and exit 0);
# 4. a receiver whose link is deleted under it exits non-zero and says so.
set -u
. "$(dirname "$0")/lib.sh"

RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk
RX_DPDK=$BUILD/dpdk/pathlab-rx-dpdk
PATHLAB=$REPO/labs/pathlab
export PATHLAB_BUILD=$BUILD PATHLAB_NO_DEPS=1
netns_setup
RXNS=$(topo_ns rx)
TXNS=$(topo_ns tx)
pid="" # set by ns_spawn

# The lab's neighbour entry on pl-rx0 and its link flags, as one line.
link_state() {
	echo "$(ip -n "$RXNS" neigh show dev "$PL_RX_IF" nud permanent)" \
		"$(ip -n "$RXNS" -j link show dev "$PL_RX_IF" | jq -c '.[0].flags')"
}

# 1. Someone else's lock on /run, held by nobody (setpriv: one process,
# by PID): `pathlab up` and `status` still run, and nobody cannot even
# open the lab's lock file. timeout only bounds the test: the old lock
# waited 60 s for /run.
if ! id nobody >/dev/null 2>&1; then
	echo "   skip: no user 'nobody' for the lock check"
else
	mkdir -m 0777 "$TMP/nobody" && chmod 0711 "$TMP" # its "held" mark
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		bash -c 'exec 9</run && flock 9 && : >"$1" && exec sleep 300' \
		lock "$TMP/nobody/held" 2>"$TMP/held.err" &
	HOLDER=$!
	NETNS_PIDS="${NETNS_PIDS:-} $HOLDER"
	if wait_file "$TMP/nobody/held" "$HOLDER"; then
		timeout 30 "$PATHLAB" up >/dev/null 2>"$TMP/up.err" &&
			timeout 30 "$PATHLAB" status >/dev/null 2>&1 &&
			ok "lock: a user's flock on /run blocks neither up nor status" ||
			bad "lock: up/status blocked or failed: $(cat "$TMP/up.err")"
		lock=$PL_STATE/lock
		if setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			flock -n "$lock" true 2>/dev/null; then
			bad "lock: nobody could take $lock"
		else
			ok "lock: nobody cannot open or take $lock"
		fi
		[ "$(stat -c '%U %a' "$lock")" = "root 600" ] &&
			[ "$(stat -c '%U %a' "$PL_STATE")" = "root 700" ] &&
			[ ! -L "$lock" ] && [ ! -L "$PL_STATE" ] &&
			ok "lock: $lock is root's, 0600, in a 0700 directory" ||
			bad "lock: $(stat -c '%n %U %a %F' "$PL_STATE" "$lock")"
	else
		bad "lock: the holder did not start: $(cat "$TMP/held.err")"
	fi
	kill "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
fi

# 2. A DPDK receiver on each vdev changes neither the neighbour entry nor
# the link's flags; the lab stays up.
if [ -x "$RX_DPDK" ]; then
	for kind in af_packet af_xdp; do
		before=$(link_state)
		run_pair_exact "keep-$kind" "$RX_DPDK" \
			"--iface $PL_RX_IF --vdev-kind $kind --cpu 1 --count 2000 --idle-timeout 3000" \
			"--iface $PL_TX_IF --cpu 0 --count 2000 --rate 20000"
		check "dpdk $kind: received all 2000" \
			'.received == 2000 and .lost == 0' "$TMP/keep-$kind.json"
		after=$(link_state)
		[ "$after" = "$before" ] && [ -n "$(ip -n "$RXNS" neigh show dev "$PL_RX_IF" nud permanent)" ] &&
			ok "dpdk $kind: neighbour entry and link flags as they were ($after)" ||
			bad "dpdk $kind: before '$before', after '$after'"
		topo_status >"$TMP/status" 2>&1 &&
			ok "dpdk $kind: the lab is still up" ||
			bad "dpdk $kind: status: $(tail -1 "$TMP/status")"
		topo_up >/dev/null 2>&1 # repair what a failure left, for what follows
	done
else
	echo "   skip: $RX_DPDK not built"
fi

# 3. A partial lab (the neighbour entry gone) with a receiver in it: gen,
# exec and rx refuse to rebuild it and say what is missing; the receiver
# runs on, in the same namespaces.
ns_spawn pid rx "$RX_SOCKET" --iface "$PL_RX_IF" --duration 120 --quiet \
	--ready "$TMP/busy.ready" 2>"$TMP/busy.err"
NETNS_PIDS="${NETNS_PIDS:-} $pid"
if wait_file "$TMP/busy.ready" "$pid"; then
	ids="$(topo__ns_id "$TXNS") $(topo__ns_id "$RXNS")"
	ip -n "$RXNS" neigh del "$PL_TX_ADDR" dev "$PL_RX_IF"
	missing="$RXNS: $PL_RX_IF has no permanent neighbour entry $PL_TX_ADDR"
	for cmd in "gen --count 10" "exec tx true" "exec rx true" "rx socket --count 1"; do
		rc=0
		# shellcheck disable=SC2086 # the command's words
		timeout 60 "$PATHLAB" $cmd >"$TMP/cmd.out" 2>&1 || rc=$?
		if [ $rc -ne 0 ] && grep -qF "partly built: $missing" "$TMP/cmd.out" &&
			grep -q "not rebuilding it" "$TMP/cmd.out" &&
			grep -q "$RXNS: *$pid " "$TMP/cmd.out"; then
			ok "pathlab $cmd: refused (exit $rc), says what is missing and what runs"
		else
			bad "pathlab $cmd: exit $rc: $(cat "$TMP/cmd.out")"
		fi
		pl_ids="$(topo__ns_id "$TXNS") $(topo__ns_id "$RXNS")"
		kill -0 "$pid" 2>/dev/null && [ "$pl_ids" = "$ids" ] &&
			ip netns pids "$RXNS" | grep -qx "$pid" &&
			ok "pathlab $cmd: the receiver runs on in the same lab" ||
			bad "pathlab $cmd: receiver gone or lab rebuilt ($ids -> $pl_ids)"
	done
	topo_status >"$TMP/status" 2>&1
	grep -qF "state: partial ($missing" "$TMP/status" &&
		ok "status names what is missing: $(tail -1 "$TMP/status")" ||
		bad "status: $(tail -1 "$TMP/status")"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ $rc -eq 0 ] && ok "the receiver, stopped, exits 0" ||
		bad "the receiver exited $rc: $(cat "$TMP/busy.err")"
	topo_up >/dev/null 2>"$TMP/up.err" && topo_status >/dev/null &&
		ok "with nothing running in it, up repairs the lab" ||
		bad "repair: $(cat "$TMP/up.err")"
else
	bad "busy receiver did not start: $(cat "$TMP/busy.err")"
fi

# 4. Each receiver, its link deleted mid-run: exit non-zero, and says so.
for r in "socket:$RX_SOCKET" "xsk:$RX_XSK" "dpdk:$RX_DPDK"; do
	name=${r%%:*}
	bin=${r#*:}
	[ -x "$bin" ] || { echo "   skip: $bin not built"; continue; }
	topo_up >/dev/null || { bad "$name: lab not up"; continue; }
	ns_spawn pid rx "$bin" --iface "$PL_RX_IF" --duration 120 --quiet \
		--ready "$TMP/gone-$name.ready" >"$TMP/gone-$name.out" 2>&1
	NETNS_PIDS="${NETNS_PIDS:-} $pid"
	if ! wait_file "$TMP/gone-$name.ready" "$pid"; then
		bad "$name: did not start: $(tail -3 "$TMP/gone-$name.out")"
		continue
	fi
	ip -n "$RXNS" link del "$PL_RX_IF"
	for ((i = 0; i < 3000; i++)); do # a bound, not a timing: 30 s
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	timedout=0
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		timedout=1
	fi
	rc=0
	wait "$pid" || rc=$?
	[ $timedout -eq 0 ] || rc=timeout
	want="$PL_RX_IF disappeared during the run"
	if [ "$rc" != 0 ] && [ "$rc" != timeout ] &&
		grep -q "$want" "$TMP/gone-$name.out"; then
		ok "$name: link deleted mid-run: exit $rc, '$want'"
	else
		bad "$name: link deleted mid-run: exit $rc: $(tail -3 "$TMP/gone-$name.out")"
	fi
done

netns_finish
