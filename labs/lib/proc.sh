# shellcheck shell=bash disable=SC2034 # globals shared between lib files
# proc.sh - the processes the driver starts: track them, wait for them with
# a bound, reap them, stop them. Only PIDs the driver started itself.
#
# A driver killed with SIGKILL runs no trap. So it keeps a journal of what
# it started and set up (/run/pathlab/journal/PID: "pid PID START",
# "topo PREFIX", "nf-here"), and a watchdog child, which ignores the
# signals that end the driver, waits for the driver to die and undoes
# what the journal lists. A driver that ends normally cleans up itself,
# then stops its watchdog and removes the journal.

# PIDs this driver started and must stop if it ends early.
PL_PIDS=()
PL_JOURNAL=""
PL_WATCHDOG=""

# True if PID is alive and not a zombie.
pl_alive() {
	local st
	kill -0 "$1" 2>/dev/null || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "${st:0:1}" != Z ]
}

# Wait up to SECS seconds for PID to end; true if it did.
pl_wait_gone() {
	local pid=$1 n=$(($2 * 10))
	while pl_alive "$pid" && [ $n -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	! pl_alive "$pid"
}

# End PID: TERM, then KILL after 3 s, and wait (2 s more) until it is gone,
# so that what it tears down on exit (an XDP program, a socket) is gone too.
pl_end() {
	kill -TERM "$1" 2>/dev/null
	pl_wait_gone "$1" 3 && return 0
	kill -KILL "$1" 2>/dev/null
	pl_wait_gone "$1" 2
}

# Print PID's start time (clock ticks since boot): with the PID, it names
# one process, never a later one that reuses the number.
pl_start_time() {
	local st f
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	read -r -a f <<<"$st"
	printf '%s\n' "${f[19]}"
}

# Note one thing for the watchdog to undo (see the top of this file).
pl_journal() {
	[ -z "$PL_JOURNAL" ] || printf '%s\n' "$*" >>"$PL_JOURNAL"
}

# Remember PID as ours, to stop it if the driver ends early.
pl_track() {
	PL_PIDS+=("$1")
	pl_journal "pid $1 $(pl_start_time "$1")"
}

# Remove the runtime folders of DPDK receivers that were killed:
# pathlab-PID whose PID is gone. The same rule as eal_sweep_stale() in
# dpdk/eal.c, which the next receiver applies; this is for when none comes.
pl_dpdk_sweep() {
	local d pid
	for d in /var/run/dpdk/pathlab-*; do
		[ -d "$d" ] || continue
		pid=${d##*/pathlab-}
		[[ $pid =~ ^[0-9]+$ ]] || continue
		pl_alive "$pid" || rm -rf -- "$d"
	done
}

# Undo what journal FILE lists: the processes (they tear down their own
# XDP programs and EAL files), the counting rule here, the labs built.
pl__undo() {
	local what a b
	while read -r what a b; do
		if [ "$what" != pid ] || [ -z "$b" ] ||
			[ "$(pl_start_time "$a")" != "$b" ]; then
			continue # not a process, or not the one we started
		fi
		pl_end "$a" || :
	done <"$1"
	! grep -qx nf-here "$1" ||
		"${PATHLAB_PYTHON:-/usr/bin/python3}" "$PATHLAB_ROOT/labs/plab" tradeoffs-undo
	while read -r what a b; do
		[ "$what" != topo ] || PATHLAB_PREFIX=$a topo_down
	done <"$1"
	pl_dpdk_sweep
}

# Start the watchdog of this driver (see the top of this file).
pl_watchdog_start() {
	local driver=$$
	mkdir -p "$PL_STATE/journal" || return 1
	PL_JOURNAL=$PL_STATE/journal/$driver
	: >"$PL_JOURNAL" || return 1
	(
		set +e
		trap '' INT TERM HUP
		while pl_alive "$driver"; do
			sleep 0.2
		done
		[ ! -s "$PL_JOURNAL" ] || pl__undo "$PL_JOURNAL"
		rm -f "$PL_JOURNAL"
		rmdir "$PL_STATE/journal" "$PL_STATE" 2>/dev/null
	) </dev/null >/dev/null 2>&1 &
	PL_WATCHDOG=$!
}

# The driver ends normally: stop its watchdog, remove the journal.
pl_watchdog_stop() {
	[ -n "$PL_WATCHDOG" ] || return 0
	kill -KILL "$PL_WATCHDOG" 2>/dev/null
	wait "$PL_WATCHDOG" 2>/dev/null || : # 137: killed, as it should be
	PL_WATCHDOG=""
	rm -f "$PL_JOURNAL"
	PL_JOURNAL=""
	rmdir "$PL_STATE/journal" "$PL_STATE" 2>/dev/null || : # others' use

}

# Stop every PID we started that is still running: TERM, then KILL.
pl_stop_tracked() {
	local pid
	for pid in "${PL_PIDS[@]}"; do
		pl_alive "$pid" || continue
		pl_end "$pid" || :
	done
	PL_PIDS=()
}

# Reap child PID (which has ended) and put its exit status in PL_RC.
# Not in $(...): a subshell cannot wait for its parent's children.
pl_reap() {
	PL_RC=0
	wait "$1" 2>/dev/null || PL_RC=$?
}

# Print FILE to stderr, each line prefixed with LABEL.
pl_show() {
	local label=$1 file=$2
	[ -s "$file" ] || { echo "  $label: (no output)" >&2; return 0; }
	sed "s/^/  $label: /" "$file" | tail -n 40 >&2
}
