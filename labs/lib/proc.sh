# shellcheck shell=bash disable=SC2034 # globals shared between lib files
# proc.sh - the processes the driver starts: track them, wait for them with
# a bound, reap them, stop them. Only PIDs the driver started itself.

# PIDs this driver started and must stop if it ends early.
PL_PIDS=()

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

# Remember PID as ours, to stop it if the driver ends early.
pl_track() {
	PL_PIDS+=("$1")
}

# Stop every PID we started that is still running: TERM, then KILL.
pl_stop_tracked() {
	local pid
	for pid in "${PL_PIDS[@]}"; do
		pl_alive "$pid" || continue
		kill -TERM "$pid" 2>/dev/null
		pl_wait_gone "$pid" 3 || kill -KILL "$pid" 2>/dev/null
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
