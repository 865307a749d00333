#!/usr/bin/env bash
# A SIGTERM before a receiver is ready still ends in its teardown and its
# report (of an empty run), never in a silent death that leaves its setup
# behind. The receiver's --ready file is a FIFO here: opening it blocks
# until someone reads it, which holds the receiver at the end of its setup,
# with everything set up, for as long as we like; the signal lands there.
set -u
. "$(dirname "$0")/lib.sh"
netns_setup

RX_XSK=$BUILD/af-xdp/pathlab-rx-xsk

# held NAME RXBIN ARGS...: start the receiver, hold it at its ready FIFO,
# SIGTERM it there, and check its exit status and its report.
held() {
	local name=$1 rxbin=$2 pid rc i
	shift 2
	mkfifo "$TMP/$name.ready"
	ns_spawn pid rx "$rxbin" "$@" --ready "$TMP/$name.ready" \
		--json "$TMP/$name.json" --quiet 2>"$TMP/$name.err"
	NETNS_PIDS="${NETNS_PIDS:-} $pid"
	# Held once its setup is done: blocked opening the FIFO.
	for ((i = 0; i < 500; i++)); do
		grep -qE "fifo|partner" "/proc/$pid/wchan" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	if ! grep -qE "fifo|partner" "/proc/$pid/wchan" 2>/dev/null; then
		bad "$name: receiver never reached its ready FIFO: $(cat "$TMP/$name.err")"
		return 1
	fi
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$name: SIGTERM in setup: exit 0"
	else
		bad "$name: SIGTERM in setup: exit $rc (143: killed, no teardown): $(cat "$TMP/$name.err")"
		return 1
	fi
	check "$name: SIGTERM in setup: an empty run reported" \
		'.received == 0 and .lost == 0' "$TMP/$name.json"
}

held socket "$RX_SOCKET" --iface "$PL_RX_IF"

if [ -x "$RX_XSK" ]; then
	held afxdp "$RX_XSK" --iface "$PL_RX_IF" --action redirect --bind copy
	# The teardown ran: the program left the interface.
	if ns_exec rx ip link show dev "$PL_RX_IF" | grep -q 'xdp'; then
		bad "afxdp: an XDP program is still attached to $PL_RX_IF"
	else
		ok "afxdp: SIGTERM in setup: the XDP program was detached"
	fi
else
	echo "skip: $RX_XSK not built, its part not run"
fi

netns_finish
