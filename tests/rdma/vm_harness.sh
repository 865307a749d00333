#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# labs/rdma-vm as root can be trusted with its cache and its qemu:
# - `clean` removes a folder only when it carries the cache's marker, and
#   `build` refuses a PATHLAB_CACHE that holds anything a build did not make
#   (it used to rm -rf whatever PATHLAB_CACHE named);
# - a `run` stopped by SIGHUP (a closed terminal) or killed with SIGKILL
#   leaves no qemu running (only INT and TERM were trapped).
# The qemu checks boot the VM twice (about a minute under TCG).
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
VM=$REPO/labs/rdma-vm
tmp=$(mktemp -d) || exit 99
pid=""
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() {
	echo "ok: $*"
	pass=$((pass + 1))
}

bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# A folder that is not a cache: clean and build leave it alone.
mkdir "$tmp/mine"
echo precious >"$tmp/mine/notes.txt"
PATHLAB_CACHE=$tmp/mine "$VM" clean >"$tmp/out" 2>&1
rc=$?
if [ $rc = 2 ] && [ -e "$tmp/mine/notes.txt" ] && grep -q refusing "$tmp/out"; then
	ok "clean refuses a folder without the marker"
else
	bad "clean of a foreign folder: exit $rc, notes.txt there: $([ -e "$tmp/mine/notes.txt" ] && echo yes || echo no): $(cat "$tmp/out")"
fi
PATHLAB_CACHE=$tmp/mine "$VM" build >"$tmp/out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "   skip: build check: $(cat "$tmp/out")"
elif [ $rc = 2 ] && [ ! -e "$tmp/mine/.pathlab-rdma-vm-cache" ] &&
	[ "$(ls -A "$tmp/mine")" = notes.txt ]; then
	ok "build refuses a folder with files of its own"
else
	bad "build into a foreign folder: exit $rc: $(tail -2 "$tmp/out")"
fi
# A cache of ours goes; so does a missing one (nothing to do).
mkdir -p "$tmp/ours/kroot"
echo x >"$tmp/ours/.pathlab-rdma-vm-cache"
if PATHLAB_CACHE=$tmp/ours "$VM" clean && [ ! -e "$tmp/ours" ] &&
	PATHLAB_CACHE=$tmp/none "$VM" clean; then
	ok "clean removes a marked cache"
else
	bad "clean of a marked cache: $(ls -A "$tmp/ours" 2>&1)"
fi

why=$("$VM" check 2>&1)
rc=$?
if [ $rc != 0 ]; then
	echo "   skip: the qemu checks: no VM here ($why)"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ] || exit 1
	[ $rc = 77 ] && exit 77
	exit 99
fi

# The qemu under PID (its descendants), or nothing.
qemu_of() {
	ps -e -o pid=,ppid=,comm= | awk -v root="$1" '
		{ parent[$1] = $2; name[$1] = $3 }
		END { for (p in parent) { q = p
			while (q in parent && q != root && q > 1) q = parent[q]
			if (q == root && name[p] ~ /^qemu-system/) print p } }'
}

# stop SIGNAL: start a run that would last, then stop it with SIGNAL.
stop() {
	local sig=$1 q="" i
	"$VM" run --timeout 300 -- sleep 240 >"$tmp/run.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		q=$(qemu_of "$pid")
		[ -z "$q" ] || break
		sleep 0.1
	done
	if [ -z "$q" ]; then
		bad "$sig: no qemu started: $(tail -3 "$tmp/run.out")"
		return
	fi
	sleep 2 # inside the boot
	kill "-$sig" "$pid"
	wait "$pid" 2>/dev/null
	pid=""
	for ((i = 0; i < 100; i++)); do
		kill -0 "$q" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$q" 2>/dev/null; then
		bad "$sig: qemu $q still runs after the run was stopped"
		kill -9 "$q"
	else
		ok "$sig: qemu $q gone with the run"
	fi
}
stop HUP
stop KILL

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
