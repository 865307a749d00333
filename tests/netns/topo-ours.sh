#!/usr/bin/env bash
# The lab tears down only namespaces it created. A namespace of someone
# else's whose name collides with the lab's (PREFIX-rx) is refused by
# topo_up and topo_down alike: it stays, and so does the process in it
# (teardown used to kill its processes and delete it). The lab's own
# namespaces still come and go, and leave no mark behind, even when the
# caller shadows a command the lab uses.
set -u
. "$(dirname "$0")/lib.sh"
netns_require_root
export PATHLAB_PREFIX=plo$$
TMP=$(mktemp -d)
FOREIGN=$PATHLAB_PREFIX-rx
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null
	ip netns del "$FOREIGN" 2>/dev/null
	topo_down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

# The lab's own: up, down, nothing left (no namespace, no mark).
if topo_up >/dev/null && topo_down; then
	ok "own lab up and down"
else
	bad "own lab up and down failed"
fi
if ! ns_exists "$PATHLAB_PREFIX-tx" && ! ns_exists "$PATHLAB_PREFIX-rx" &&
	[ ! -e "$PL_STATE/ns/$PATHLAB_PREFIX-tx" ]; then
	ok "own lab: no namespace or mark left"
else
	bad "own lab left a namespace or its mark"
fi

# A script that sources the lab and defines a function of a command's name
# (a benchmark's stat() once did): the lab still knows its own namespaces.
# Up before it is defined, down after, as in that script.
if topo_up >/dev/null && (stat() { echo "0 0 0"; } && topo_down) &&
	! ns_exists "$PATHLAB_PREFIX-rx"; then
	ok "own lab up and down under a caller's stat() function"
else
	bad "a caller's stat() function left the lab up (or failed it)"
	topo_down >/dev/null 2>&1
fi

# Someone else's namespace with the lab's name, and a process in it.
ip netns add "$FOREIGN" || { echo "FAIL: ip netns add"; exit 1; }
ip netns exec "$FOREIGN" sleep 300 &
pid=$!
sleep 0.5
if topo_down 2>"$TMP/err"; then
	bad "topo_down of a foreign namespace succeeded"
else
	grep -q "refusing namespace $FOREIGN" "$TMP/err" &&
		ok "topo_down refuses: $(head -c 80 "$TMP/err")..." ||
		bad "topo_down failed without saying why: $(cat "$TMP/err")"
fi
if topo_up >/dev/null 2>"$TMP/err"; then
	bad "topo_up built a lab in a foreign namespace"
else
	grep -q "refusing namespace $FOREIGN" "$TMP/err" &&
		ok "topo_up refuses" ||
		bad "topo_up failed without saying why: $(cat "$TMP/err")"
fi
ns_exists "$FOREIGN" && ok "foreign namespace still there" ||
	bad "foreign namespace deleted"
kill -0 "$pid" 2>/dev/null && ok "its process still runs" ||
	bad "its process was killed"
ns_exists "$PATHLAB_PREFIX-tx" && bad "topo_up left $PATHLAB_PREFIX-tx" ||
	ok "no half lab left"
netns_finish
