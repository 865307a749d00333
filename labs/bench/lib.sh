# shellcheck shell=bash
# lib.sh - what the pathlab benchmarks share: setup and teardown of their own
# lab, system-wide CPU busy time from /proc/stat, one measured trial of a
# receiver/sender pair, medians and min-max, and the comparison table.
#
# A benchmark (socket.sh, afxdp.sh, dpdk.sh ...) sources this file, calls
# bench_setup, and for each tool T defines five hooks that bench_pair calls:
#   T_rx_start DIR  start the receiver in the background in the rx namespace
#                   (ns_spawn BENCH_RX_PID rx ...; then bench_track it)
#   T_rx_ready DIR  true once the receiver can take packets (polled)
#   T_tx DIR        run the sender in the tx namespace and return when it
#                   has ended (bench_pair itself runs this hook in the
#                   background, to watch the traffic meanwhile)
#   T_rx_stop DIR   make the receiver end (signal, or it saw the end) and
#                   wait for it
#   T_count DIR     print "RECEIVED SENT TX_S": packets the receiver got,
#                   packets the sender sent ("-" if unknown), the sender's
#                   own sending time in seconds (the rate's time base)
# DIR is a fresh directory for the trial's raw files. bench_pair starts T_tx
# in the background and, every BENCH_POLL_S, reads /proc/stat and the rx
# link's packet counter (through a `sleep infinity` watcher in the rx
# namespace, whatever the receiver is): CPU busy time is taken from the last poll before the
# traffic starts to the end of BENCH_QUIET_POLLS quiet polls after it stops,
# so senders that sleep before or after sending (sockperf's client waits
# 2 s before it sends) are not charged for the background load meanwhile, and
# every tool is measured the same way. The whole trial's busy time is kept
# too, as a cross-check. Results go to $BENCH_WORK/T.tsv, one line a trial;
# bench_table compares two tools. Pin senders to $BENCH_TX_CPU and receivers
# to $BENCH_RX_CPU (taskset -c), and use BENCH_PORT.
#
# Needs: bash 5 (EPOCHREALTIME), awk, jq, taskset, iproute2 (ip, ss).

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH_REPO=$(cd "$BENCH_DIR/../.." && pwd)
BENCH_BUILD=${PATHLAB_BUILD:-$BENCH_REPO/build}
PATHLAB_LIB=$BENCH_REPO/labs/lib
# shellcheck source=../lib/topo.sh
. "$PATHLAB_LIB/topo.sh"

BENCH_NAME=${BENCH_NAME:-bench}
BENCH_TX_CPU=0
BENCH_RX_CPU=1
# shellcheck disable=SC2034 # used by the benchmarks that source this file
BENCH_PORT=9000
BENCH_DRAIN_S=0.2
# Traffic window: poll period, packets per poll that mean "traffic started",
# quiet polls that mean "it ended", and the link whose counter is watched.
BENCH_POLL_S=0.01
BENCH_ACTIVE_PKTS=100
BENCH_QUIET_POLLS=5
BENCH_TAIL_MAX_S=2
BENCH_RX_IF=$PL_RX_IF
BENCH_NAP_FD=""
BENCH_WATCH_PID=""
BENCH_BG_WARN=0.1
BENCH_IDLE_CHECK_S=0.3
BENCH_READY_S=10
BENCH_WORK=""
BENCH_KEEP=0
BENCH_PIDS=()
BENCH_RX_PID=""
BENCH_TSC_HZ=""
BENCH_NCPUS=""
BENCH_CLK_TCK=""

# Print "NAME: MESSAGE" on stderr and exit 1.
bench_die() {
	echo "$BENCH_NAME: $*" >&2
	exit 1
}

# Print "NAME: MESSAGE" on stderr (a warning; the run goes on).
bench_warn() {
	echo "$BENCH_NAME: warning: $*" >&2
}

# Exit with a clear message unless we run as root (namespaces, veth, pinning).
bench_require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		bench_die "must run as root: it creates network namespaces and a veth pair and pins processes (try: sudo $0 ...)"
	fi
}

# Exit unless every named command is on PATH, naming the missing ones.
bench_require_cmd() {
	local c missing=()
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing+=("$c")
	done
	[ ${#missing[@]} -eq 0 ] || bench_die "missing command(s): ${missing[*]}"
}

# Exit unless each named file (a build output) exists and is executable.
bench_require_bin() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || bench_die "$f is not built (run: ninja -C ${BENCH_BUILD})"
	done
}

# True if $1 is a positive integer.
bench_is_uint() {
	[[ $1 =~ ^[1-9][0-9]*$ ]]
}

# Root check, own lab prefix, work dir (KEEP_DIR if given), topology up, CPU facts.
bench_setup() {
	local keep_dir=${1:-}
	bench_require_root
	bench_require_cmd awk jq taskset ip ss nsenter unshare flock
	[ -n "${EPOCHREALTIME:-}" ] || bench_die "needs bash 5 (EPOCHREALTIME)"
	BENCH_NCPUS=$(grep -c '^cpu[0-9]' /proc/stat)
	[ "$BENCH_NCPUS" -ge 2 ] ||
		bench_die "needs 2 CPUs (sender on $BENCH_TX_CPU, receiver on $BENCH_RX_CPU); this machine has $BENCH_NCPUS online"
	BENCH_CLK_TCK=$(getconf CLK_TCK)
	export PATHLAB_PREFIX=${PATHLAB_PREFIX:-bench$$}
	if [ -n "$keep_dir" ]; then
		mkdir -p "$keep_dir" || bench_die "cannot create $keep_dir"
		BENCH_WORK=$(cd "$keep_dir" && pwd)
		BENCH_KEEP=1
	else
		BENCH_WORK=$(mktemp -d "${TMPDIR:-/tmp}/pathlab-bench.XXXXXX")
	fi
	topo_up >/dev/null || bench_die "could not bring the lab topology up (prefix $PATHLAB_PREFIX)"
	bench_watch_start
}

# Stop our receivers (by PID), take our lab down, remove the work dir unless kept.
bench_cleanup() {
	bench_stop_all
	if [ -n "$BENCH_NAP_FD" ]; then
		exec {BENCH_NAP_FD}<&-
		BENCH_NAP_FD=""
	fi
	topo_down >/dev/null 2>&1 || true
	if [ -n "$BENCH_WORK" ] && [ "$BENCH_KEEP" -eq 0 ]; then
		rm -rf "$BENCH_WORK"
	fi
}

# TSC rate in Hz, as pathlab measures it (pathlab-budget --json .clock_hz).
bench_tsc_hz() {
	local hz
	hz=$("$BENCH_BUILD/common/pathlab-budget" --json --rate 10G --size 64 | jq -r .clock_hz) ||
		bench_die "pathlab-budget failed: cannot get the TSC rate"
	[[ $hz =~ ^[0-9]+(\.[0-9]+)?$ ]] || bench_die "pathlab-budget gave no clock_hz"
	printf '%s\n' "$hz"
}

# Store "WALL_S IDLE IOWAIT STEAL" (now; /proc/stat "cpu" ticks) in variable $1.
bench_cpu_snap() {
	local _cpu _user _nice _sys _idle _iowait _irq _softirq _steal _rest _t
	_t=$EPOCHREALTIME
	read -r _cpu _user _nice _sys _idle _iowait _irq _softirq _steal _rest </proc/stat
	printf -v "$1" '%s %s %s %s' "${_t/,/.}" "$_idle" "$_iowait" "${_steal:-0}"
}

# Print "BUSY_S STEAL_S WALL_S" between snapshots A and B, over all CPUs:
# busy = sum over CPUs of (elapsed - idle - iowait - steal), never below 0.
bench_busy() {
	awk -v a="$1" -v b="$2" -v n="$BENCH_NCPUS" -v hz="$BENCH_CLK_TCK" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		wall = y[1] - x[1]
		off = ((y[2] - x[2]) + (y[3] - x[3]) + (y[4] - x[4])) / hz
		busy = wall * n - off
		if (busy < 0) busy = 0
		printf "%.4f %.4f %.4f\n", busy, (y[4] - x[4]) / hz, wall
	}'
}

# Print the background load, busy CPUs (CPU-s per s), over SECS with no traffic.
bench_background() {
	local a b
	bench_cpu_snap a
	sleep "$1"
	bench_cpu_snap b
	bench_busy "$a" "$b" | awk '{ printf "%.3f\n", ($3 > 0 ? $1 / $3 : 0) }'
}

# Warn (stderr) if background load $1 (busy CPUs) exceeds BENCH_BG_WARN.
bench_check_background() {
	if awk -v b="$1" -v w="$BENCH_BG_WARN" 'BEGIN { exit !(b > w) }'; then
		bench_warn "background load $1 busy CPUs with no traffic (> $BENCH_BG_WARN): other work is running; busy times and rates include it"
	fi
}

# Print "MEDIAN MIN MAX" of the numbers given as arguments ("- - -" if none).
bench_stats() {
	[ $# -gt 0 ] || { echo "- - -"; return 0; }
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END {
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.6g %.6g %.6g\n", m, v[1], v[NR]
		}'
}

# Print the CPU seconds all threads of PID have run so far (schedstat, ns;
# 0 once it is gone).
bench_pid_cpu_s() {
	local f t sum=0
	for f in /proc/"$1"/task/*/schedstat; do
		{ read -r t _ <"$f"; } 2>/dev/null || continue
		sum=$((sum + t))
	done
	awk -v n="$sum" 'BEGIN { printf "%.4f\n", n / 1e9 }'
}

# Print the CPU seconds the lab's NAPI threads (topo_napi_pids: veth's
# receive work, on the receive core) have run so far.
bench_napi_cpu_s() {
	local pid t sum=0
	for pid in $(topo_napi_pids); do
		{ read -r t _ <"/proc/$pid/schedstat"; } 2>/dev/null || continue
		sum=$((sum + t))
	done
	awk -v n="$sum" 'BEGIN { printf "%.4f\n", n / 1e9 }'
}

# True if PID is alive and not a zombie (no fork: it runs in the poll loop).
bench_alive() {
	local st
	kill -0 "$1" 2>/dev/null || return 1
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*) }
	[ "${st:0:1}" != Z ]
}

# Remember PID as one we started, to stop it if the run ends early.
bench_track() {
	BENCH_PIDS+=("$1")
}

# Forget PID (it has ended and been reaped): its number may be reused.
bench_untrack() {
	local p keep=()
	for p in "${BENCH_PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	BENCH_PIDS=("${keep[@]}")
}

# Wait up to SECS for PID to end; true if it did. Reaps it if it is our child.
bench_wait_gone() {
	local pid=$1 n
	n=$(awk -v s="$2" 'BEGIN { printf "%d", s * 50 }')
	while bench_alive "$pid" && [ "$n" -gt 0 ]; do
		sleep 0.02
		n=$((n - 1))
	done
	bench_alive "$pid" && return 1
	wait "$pid" 2>/dev/null || true
	bench_untrack "$pid"
	return 0
}

# Stop PID (one we started): SIG (default TERM), KILL after 3 s; then reap it.
bench_stop() {
	local pid=$1 sig=${2:-TERM}
	bench_alive "$pid" || { wait "$pid" 2>/dev/null || true; bench_untrack "$pid"; return 0; }
	kill "-$sig" "$pid" 2>/dev/null || true
	bench_wait_gone "$pid" 3 && return 0
	bench_warn "PID $pid ignored SIG$sig; killing it"
	kill -KILL "$pid" 2>/dev/null || true
	bench_wait_gone "$pid" 3 || true
}

# Stop every PID we tracked that still runs.
bench_stop_all() {
	local pid
	for pid in "${BENCH_PIDS[@]}"; do
		bench_stop "$pid"
	done
	BENCH_PIDS=()
}

# Poll CMD... every 20 ms for up to SECS while PID lives; true once CMD is true.
bench_wait_until() {
	local secs=$1 pid=$2 n
	shift 2
	n=$((secs * 50))
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		bench_alive "$pid" || return 1
		sleep 0.02
		n=$((n - 1))
	done
	return 1
}

# True if a UDP socket is bound to PORT in namespace NS (tx, rx or a full name).
bench_udp_bound() {
	local ns
	ns=$(ns_name "$1") || return 1
	[ -n "$(ss -N "$ns" -Hunl "sport = :$2" 2>/dev/null)" ]
}

# Store in variable $1 the rx_packets of interface $3 in the namespace of PID $2.
bench_link_rx() {
	local _line _f
	while IFS= read -r _line; do
		_line=${_line#"${_line%%[! ]*}"}
		if [[ $_line == "$3:"* ]]; then
			read -r _f _f _ <<<"${_line#*:}"
			printf -v "$1" '%s' "$_f"
			return 0
		fi
	done 2>/dev/null <"/proc/$2/net/dev"
	return 1
}

# Sleep BENCH_POLL_S without forking (read with a timeout on an idle pipe).
bench_nap() {
	if [ -z "${BENCH_NAP_FD:-}" ]; then
		exec {BENCH_NAP_FD}<> <(:)
	fi
	read -r -t "$BENCH_POLL_S" -u "$BENCH_NAP_FD" _ || true
}

# Start a process that idles in the rx namespace, for its /proc/PID/net/dev:
# the rx link's counters, readable without forking, whatever the receiver is.
bench_watch_start() {
	local ns _n
	ns=$(ns_name rx) || return 1
	nsenter --net="$PL_NETNS_DIR/$ns" sleep infinity &
	BENCH_WATCH_PID=$!
	bench_track "$BENCH_WATCH_PID"
	# Until nsenter has switched namespaces, /proc/PID/net is the old one's.
	bench_wait_until 5 "$BENCH_WATCH_PID" bench_link_rx _n "$BENCH_WATCH_PID" "$BENCH_RX_IF" ||
		bench_die "cannot watch $BENCH_RX_IF in $ns"
}

# Run TOOL_tx for DIR in the background and bracket its traffic: every
# BENCH_POLL_S read /proc/stat and the rx link's packet counter (through the
# watcher). BENCH_WIN_A: the snapshot of the last poll before the counter rose
# by BENCH_ACTIVE_PKTS or more in one poll; BENCH_WIN_B: the one
# BENCH_QUIET_POLLS polls after the last packet, once the sender has ended (at
# most BENCH_TAIL_MAX_S after it ended); BENCH_WIN_PKTS: link packets in
# between. Returns the sender's status.
bench_traffic_window() {
	local tool=$1 dir=$2 txpid cnt last prev snap started=0 quiet=0 gone=0 rc=0 first tail_polls quiet_snap=""
	tail_polls=$(awk -v a="$BENCH_TAIL_MAX_S" -v p="$BENCH_POLL_S" 'BEGIN { printf "%d", a / p }')
	BENCH_WIN_A=""
	BENCH_WIN_B=""
	BENCH_WIN_PKTS=0
	if [ -z "$BENCH_WATCH_PID" ] || ! bench_alive "$BENCH_WATCH_PID"; then
		bench_watch_start
	fi
	bench_link_rx last "$BENCH_WATCH_PID" "$BENCH_RX_IF" || last=0
	first=$last
	bench_cpu_snap prev
	"${tool}_tx" "$dir" &
	txpid=$!
	bench_track "$txpid"
	while :; do
		bench_nap
		bench_cpu_snap snap
		bench_link_rx cnt "$BENCH_WATCH_PID" "$BENCH_RX_IF" || cnt=$last
		bench_alive "$txpid" || gone=$((gone + 1))
		if [ "$started" -eq 0 ]; then
			if [ $((cnt - last)) -ge "$BENCH_ACTIVE_PKTS" ]; then
				BENCH_WIN_A=$prev
				first=$last
				started=1
			elif [ "$gone" -gt 0 ]; then
				break # the sender ended and no traffic was seen
			fi
		elif [ "$cnt" -eq "$last" ]; then
			quiet=$((quiet + 1))
			[ "$quiet" -ne "$BENCH_QUIET_POLLS" ] || quiet_snap=$snap
		else
			quiet=0
			quiet_snap=""
		fi
		last=$cnt
		prev=$snap
		[ "$started" -eq 1 ] || continue
		# The end: the sender has ended and the link has been quiet for
		# BENCH_QUIET_POLLS polls: B is the snapshot that many polls after
		# the last packet, however long the sender lingered (sockperf's
		# client sleeps 0.1 s after its test). A sender that stalls
		# (preempted) does not end the window while it still runs.
		if [ "$gone" -gt 0 ] && [ -n "$quiet_snap" ]; then
			BENCH_WIN_B=$quiet_snap
			break
		fi
		if [ "$gone" -gt "$tail_polls" ]; then
			bench_warn "$tool: rx link still busy ${BENCH_TAIL_MAX_S} s after the sender ended"
			BENCH_WIN_B=$snap
			break
		fi
	done
	BENCH_WIN_PKTS=$((last - first))
	wait "$txpid" || rc=$?
	bench_untrack "$txpid"
	return $rc
}

# Run one trial of TOOL in DIR through its hooks; append it to
# $BENCH_WORK/TOOL.tsv and set BENCH_LAST to the same fields: received sent
# tx_s pps busy_s steal_s window_s cycles/pkt trial_busy_s trial_wall_s link_pkts
# background rx_core_cycles/pkt (the receive core: the lab's NAPI threads +
# the receiver process, from the traffic's start to the drain's end, x TSC /
# received; a busy poller's idle spinning in that span is in it) (busy CPUs in BENCH_IDLE_CHECK_S idle checks before and after, the larger;
# the one before leaves out the receiver's own CPU time: a busy poller spins).
# busy/window: the traffic window (bench_traffic_window); trial_*: from just
# before the sender starts to BENCH_DRAIN_S after it ends (a cross-check, and
# the fallback when no traffic window was seen).
bench_pair() {
	local tool=$1 dir=$2 a b p0 p2 p3 r0 r1 r2 n1 n2 rxs received sent tx_s busy steal wall tbusy tsteal twall bg line
	rm -rf "$dir"
	mkdir -p "$dir"
	BENCH_RX_PID=""
	"${tool}_rx_start" "$dir" || { bench_warn "$tool: receiver did not start"; return 1; }
	if ! bench_wait_until "$BENCH_READY_S" "$BENCH_RX_PID" "${tool}_rx_ready" "$dir"; then
		bench_warn "$tool: receiver not ready within ${BENCH_READY_S} s (see $dir)"
		bench_stop "$BENCH_RX_PID"
		return 1
	fi
	r0=$(bench_pid_cpu_s "$BENCH_RX_PID")
	bench_cpu_snap p0
	sleep "$BENCH_IDLE_CHECK_S"
	bench_cpu_snap a
	r1=$(bench_pid_cpu_s "$BENCH_RX_PID")
	n1=$(bench_napi_cpu_s)
	if ! bench_traffic_window "$tool" "$dir"; then
		bench_warn "$tool: sender failed (see $dir)"
		bench_stop "$BENCH_RX_PID"
		return 1
	fi
	sleep "$BENCH_DRAIN_S"
	bench_cpu_snap b
	r2=$(bench_pid_cpu_s "$BENCH_RX_PID")
	n2=$(bench_napi_cpu_s)
	# A receiver that ended before this reading took its CPU time with it:
	# no receive-core figure for this trial (-1), rather than a wrong one.
	bench_alive "$BENCH_RX_PID" || r2=-1
	"${tool}_rx_stop" "$dir" || { bench_warn "$tool: receiver failed (see $dir)"; return 1; }
	bench_cpu_snap p2
	sleep "$BENCH_IDLE_CHECK_S"
	bench_cpu_snap p3
	read -r received sent tx_s < <("${tool}_count" "$dir") || true
	if ! [[ ${received:-} =~ ^[0-9]+$ ]] || ! [[ ${tx_s:-} =~ ^[0-9.]+$ ]]; then
		bench_warn "$tool: could not read the counts (see $dir)"
		return 1
	fi
	read -r tbusy tsteal twall < <(bench_busy "$a" "$b")
	if [ -n "$BENCH_WIN_A" ] && [ -n "$BENCH_WIN_B" ]; then
		read -r busy steal wall < <(bench_busy "$BENCH_WIN_A" "$BENCH_WIN_B")
	else
		bench_warn "$tool: no traffic window seen on $BENCH_RX_IF; using the whole trial"
		busy=$tbusy steal=$tsteal wall=$twall
	fi
	# Background: the larger of the idle checks just before (less what the
	# waiting receiver itself ran) and just after.
	rxs=$(awk -v a="$r0" -v b="$r1" 'BEGIN { print b - a }')
	bg=$({ bench_busy "$p0" "$a" | awk -v r="$rxs" '{ print $1 - r, $2, $3 }'
		bench_busy "$p2" "$p3"; } |
		awk '{ b = ($3 > 0 ? $1 / $3 : 0); if (b > m) m = b } END { printf "%.3f", m }')
	line=$(awk -v r="$received" -v s="${sent:--}" -v t="$tx_s" -v bu="$busy" \
		-v st="$steal" -v w="$wall" -v hz="$BENCH_TSC_HZ" -v tb="$tbusy" \
		-v tw="$twall" -v lp="$BENCH_WIN_PKTS" -v bg="$bg" \
		-v rc="$(awk -v a="$r1" -v b="$r2" -v c="$n1" -v d="$n2" \
			'BEGIN { print b < 0 ? -1 : (b - a) + (d - c) }')" 'BEGIN {
		pps = t > 0 ? r / t : 0
		cpp = r > 0 ? bu * hz / r : 0
		rcpp = r > 0 && rc >= 0 ? rc * hz / r : -1
		printf "%d %s %.4f %.1f %.4f %.4f %.4f %.1f %.4f %.4f %d %.3f %.1f\n",
			r, s, t, pps, bu, st, w, cpp, tb, tw, lp, bg, rcpp
	}')
	echo "$line" >>"$BENCH_WORK/$tool.tsv"
	BENCH_LAST=$line
}

# Print a one-line account of BENCH_LAST for the progress output.
bench_last_line() {
	echo "$BENCH_LAST" | awk -v w="$BENCH_BG_WARN" '{
		printf "received %d of %s sent, %.1f kpps, busy %.2f CPU-s (steal %.2f) in %.2f s of traffic, %.0f cycles/pkt (whole trial: %.2f CPU-s in %.2f s); background %.2f CPUs%s\n",
			$1, $2, $4 / 1000, $5, $6, $7, $8, $9, $10, $12,
			($12 > w ? " -- OTHER LOAD: this trial is suspect" : "") }'
}

# Print "PPS_MED PPS_MIN PPS_MAX CPP_MED CPP_MIN CPP_MAX STEAL_MED WALL_MED N SUSPECT"
# for TOOL (SUSPECT: trials whose background load exceeded BENCH_BG_WARN).
bench_summary() {
	local f=$BENCH_WORK/$1.tsv pps cpp steal wall n bad rcpp
	[ -s "$f" ] || { echo "- - - - - - - - 0 0 - - -"; return 0; }
	# shellcheck disable=SC2046
	pps=$(bench_stats $(awk '{ print $4 }' "$f"))
	# shellcheck disable=SC2046
	cpp=$(bench_stats $(awk '{ print $8 }' "$f"))
	# shellcheck disable=SC2046
	steal=$(bench_stats $(awk '{ print $6 }' "$f"))
	# shellcheck disable=SC2046
	wall=$(bench_stats $(awk '{ print $7 }' "$f"))
	# shellcheck disable=SC2046
	rcpp=$(bench_stats $(awk '$13 >= 0 { print $13 }' "$f"))
	n=$(wc -l <"$f")
	bad=$(awk -v w="$BENCH_BG_WARN" '$12 > w { k++ } END { print k + 0 }' "$f")
	echo "$pps $cpp ${steal%% *} ${wall%% *} $n $bad $rcpp"
}

# Print the table: LABEL_A TOOL_A LABEL_B TOOL_B; ratios are A/B on the medians.
bench_table() {
	local la=$1 ta=$2 lb=$3 tb=$4 sa sb
	sa=$(bench_summary "$ta")
	sb=$(bench_summary "$tb")
	awk -v la="$la" -v lb="$lb" -v sa="$sa" -v sb="$sb" -v w="$BENCH_BG_WARN" 'BEGIN {
		na = split(sa, a, " "); nb = split(sb, b, " ")
		hdr = "%-24s %3s  %9s  %-17s  %10s  %-15s  %8s  %8s\n"
		row = "%-24s %3s  %9.1f  %-17s  %10.0f  %-15s  %8.2f  %8.2f\n"
		printf hdr, "", "n", "rate kpps", "  min - max", "cycles/pkt", "  min - max", "steal s", "traffic s"
		printf hdr, "", "", "median", "", "median", "", "median", "median"
		r(la, a); r(lb, b)
		if (a[9] == 0 || b[9] == 0) { print "ratio: not enough trials"; exit }
		pr = a[1] / b[1]; cr = b[4] > 0 ? a[4] / b[4] : 0
		printf "%-24s      %9.2f  %-17s  %10.2f  %s\n", "ratio " la "/" lb, pr,
			"(>1: " la " faster)", cr, "(<1: " la " cheaper)"
		printf "%-24s      %9s  %-17s  %10s\n", "  ranges overlap?",
			ov(a[2], a[3], b[2], b[3]), "", ov(a[5], a[6], b[5], b[6])
		print "  (overlapping min-max ranges: the difference is inside run-to-run noise)"
		print ""
		print "receive core: the lab NAPI threads + the receiver process, x TSC / received"
		printf "%-24s %10s  %-17s\n", "", "cycles/pkt", "  min - max"
		rc(la, a); rc(lb, b)
		if (a[11] == "-" || b[11] == "-") print "ratio: not measured for both"
		else printf "%-24s %10.2f  %s  ranges overlap? %s\n", "ratio " la "/" lb,
			(b[11] > 0 ? a[11] / b[11] : 0), "(<1: " la " cheaper)",
			ov(a[12], a[13], b[12], b[13])
		if (a[10] + b[10] > 0)
			printf "WARNING: other load (> %s busy CPUs idle) around %d of %d %s and %d of %d %s trials: those figures include it\n",
				w, a[10], a[9], la, b[10], b[9], lb
	}
	function r(l, v) {
		if (v[9] == 0) { printf "%-24s %3d  (no successful trials)\n", l, 0; return }
		printf row, l, v[9], v[1] / 1000, sprintf("  %.1f - %.1f", v[2] / 1000, v[3] / 1000),
			v[4], sprintf("  %.0f - %.0f", v[5], v[6]), v[7], v[8]
	}
	function rc(l, v) {
		if (v[11] == "-") { printf "%-24s %10s  (the receiver ended before its CPU time was read)\n", l, "-"; return }
		printf "%-24s %10.0f  %-17s\n", l, v[11], sprintf("  %.0f - %.0f", v[12], v[13])
	}
	function ov(lo1, hi1, lo2, hi2) { return (lo1 <= hi2 && lo2 <= hi1) ? "yes" : "no" }'
}

# Print the labels every bench table carries; extra lines given are appended.
bench_labels() {
	local ghz l
	ghz=$(awk -v h="$BENCH_TSC_HZ" 'BEGIN { printf "%.3f", h / 1e9 }')
	cat <<EOF
Where: veth between two network namespaces, in a VM ($BENCH_NCPUS CPUs). Not a NIC:
  the figures describe this setup only and do not transfer to hardware.
Cycles: TSC-equivalent = system-wide CPU busy time x TSC rate ($ghz GHz);
  no hardware cycle counters here. Busy time is from /proc/stat, summed over
  all CPUs as (elapsed - idle - iowait - steal), over the traffic window: from
  the last ${BENCH_POLL_S} s poll before the rx link counter starts rising to
  ${BENCH_QUIET_POLLS} quiet polls after it stops, the same way for every tool. It counts
  everything that ran in that window: sender, receiver, kernel, this
  script's poller, and any background load.
Receive core: the lab runs veth's receive work (NAPI: XDP, GRO, IP/UDP,
  socket enqueue) in a kernel thread pinned to the receiver's CPU ($BENCH_RX_CPU), as
  a NIC queue's IRQ would be; that thread plus the receiver process is the
  receive cost, measured the same way (schedstat) for both tools. A busy
  poller's idle spinning (before traffic ends, and in the drain) is in it.
Rate: packets the receiver got / the sender's own sending time.
Other load: busy CPUs are checked for ${BENCH_IDLE_CHECK_S} s with no traffic just before and
  just after each trial (the waiting receiver's own CPU time left out); above
  ${BENCH_BG_WARN} the trial is marked suspect (the machine is shared: its figures
  then include other people's work).
Noise: runs here move 15-25% run to run; trials alternate A B A B; a
  difference inside the min-max ranges is no difference.
EOF
	for l in "$@"; do
		printf '%s\n' "$l"
	done
}
