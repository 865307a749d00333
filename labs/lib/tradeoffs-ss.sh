#!/usr/bin/env bash
# tradeoffs-ss.sh - sample the lab's UDP port with ss while a receiver runs:
# what `ss -u -a -n -m` shows of a socket on PORT, every PERIOD seconds, for
# as long as process PID lives (a zombie counts as ended). Each sample
# starts with a "# sample" line; an empty one taken as PID ended is left
# out. labs/plab/tradeoffs.py runs it in the rx namespace (nsenter);
# SIGTERM ends it after the current sample.
#
#   tradeoffs-ss.sh PORT PERIOD PID
set -u

# True if PID is alive and not a zombie (its receiver has not ended).
alive() {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) }
	[ "${st:0:1}" != Z ]
}

if [ $# -ne 3 ]; then
	echo "usage: tradeoffs-ss.sh PORT PERIOD PID" >&2
	exit 2
fi
port=$1 period=$2 pid=$3
trap 'exit 0' TERM INT
while alive "$pid"; do
	out=$(ss -H -u -a -n -m "sport = :$port")
	# An empty sample taken as the receiver ended says nothing: drop it.
	if [ -n "$out" ] || alive "$pid"; then
		echo "# sample"
		[ -z "$out" ] || printf '%s\n' "$out"
	fi
	sleep "$period"
done
