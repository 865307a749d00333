#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# grade_predict.sh ANSWERS [--list]: grade the predictions of exercise 11.
# 11.1 to 11.4 are checked against the budget calculator (pathlab-budget),
# 11.5 to 11.7 against a real run: 50,000 datagrams to the kernel-stack
# receiver and 2000 to the AF_XDP receiver, in a lab of its own (network
# namespaces: root; skipped without). Prints one GRADE line per question,
# like the C tests; exit 1 if one failed, 77 if all were skipped, else 0.
# shellcheck source-path=SCRIPTDIR/../..
set -u
ANSWERS=${1:?usage: grade_predict.sh ANSWERS [--list]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${MESON_BUILD_ROOT:-$REPO/build}
BUDGET=$BUILD/common/pathlab-budget
EX=11-predict
# name points what
ITEMS=(
	"fps_25g_128 2 frames per second at 25 GbE, 128-byte frames"
	"ns_25g_128 1 nanoseconds between them"
	"cycles_25g_128_2500mhz 2 cycles per frame at 2.5 GHz"
	"fps_40g_1518 1 frames per second at 40 GbE, 1518-byte frames"
	"udp_indatagrams_grows 2 whose Udp InDatagrams grows (a real run)"
	"link_rx_grows 2 whose link receive counter grows (a real run)"
	"socket_fits_100g_64 2 the socket path against the 100G budget (a real run)"
)
# shellcheck source=exercises/lib/answers.sh
. "$REPO/exercises/lib/answers.sh"
answers_list "${1:-}"

# Check numeric answer $1 against the calculator's value $2.
numeric() {
	local got
	got=$(answer "$1")
	if [ -z "$got" ]; then
		result "$1" FAIL "no answer in ${ANSWERS##*/}"
	elif [ -z "$2" ]; then
		result "$1" SKIP "the calculator ($BUDGET) did not run"
	elif near "$got" "$2" 0.005; then
		result "$1" PASS
	else
		result "$1" FAIL "you said $got; pathlab-budget says $2"
	fi
}

# One field of pathlab-budget --json for rate $1, size $2, clock $3.
calc() {
	[ -x "$BUDGET" ] || return 0
	"$BUDGET" --rate "$1" --size "$2" ${3:+--clock "$3"} --json 2>/dev/null |
		jq -r ".$4"
}

numeric fps_25g_128 "$(calc 25G 128 2.5GHz frames_per_second)"
numeric ns_25g_128 "$(calc 25G 128 2.5GHz ns_per_frame)"
numeric cycles_25g_128_2500mhz "$(calc 25G 128 2.5GHz cycles_per_frame)"
numeric fps_40g_1518 "$(calc 40G 1518 2.5GHz frames_per_second)"

# The real-run questions: no answer fails at once; else measure.
RUN_QS=(udp_indatagrams_grows link_rx_grows socket_fits_100g_64)
need_run=0
for q in "${RUN_QS[@]}"; do
	if [ -z "$(answer "$q")" ]; then
		result "$q" FAIL "no answer in ${ANSWERS##*/}"
	else
		need_run=1
	fi
done

# skip_runs REASON: the answered real-run questions are skipped.
skip_runs() {
	local q
	for q in "${RUN_QS[@]}"; do
		[ -n "$(answer "$q")" ] && result "$q" SKIP "$1"
	done
}

# Which paths (socket, afxdp) saw field $1 grow: socket|afxdp|both|neither.
grew() {
	local s x
	s=$(jq -r ".$1 // 0" "$TMP/sock.json")
	x=$(jq -r ".$1 // 0" "$TMP/xsk.json")
	if [ "$s" -gt 0 ] && [ "$x" -gt 0 ]; then echo both
	elif [ "$s" -gt 0 ]; then echo socket
	elif [ "$x" -gt 0 ]; then echo afxdp
	else echo neither
	fi
}

# Compare answer $1 with the measured truth $2 (and what showed it: $3).
measured() {
	local got
	got=$(answer "$1")
	[ -n "$got" ] || return 0
	if [ "$got" = "$2" ]; then
		result "$1" PASS
	else
		result "$1" FAIL "you said $got; the run says $2 ($3)"
	fi
}

# The two runs, in a lab of our own; every question answered from them.
real_runs() {
	local rx_xsk=$BUILD/af-xdp/pathlab-rx-xsk s x cyc all budget fits
	# shellcheck source=tests/netns/lib.sh
	. "$REPO/tests/netns/lib.sh"
	netns_setup >&2
	{
		# As fast as the sender goes: the CPU cost per packet is then
		# the work on packets, not the idle machine between them.
		run_pair sock "$RX_SOCKET" \
			"--iface $PL_RX_IF --count 50000 --idle-timeout 2000" \
			"--iface $PL_TX_IF --count 50000"
		run_pair xsk "$rx_xsk" \
			"--iface $PL_RX_IF --count 2000 --idle-timeout 3000" \
			"--iface $PL_TX_IF --count 2000 --rate 20000"
	} >&2
	if ! jq -e '.received > 0' "$TMP/sock.json" >/dev/null 2>&1 ||
		! jq -e '.received > 0' "$TMP/xsk.json" >/dev/null 2>&1; then
		skip_runs "the lab runs did not complete (see above)"
		return
	fi
	s=$(jq -c '{socket: .kernel_udp_in_datagrams}' "$TMP/sock.json")
	x=$(jq -c '{afxdp: .kernel_udp_in_datagrams}' "$TMP/xsk.json")
	measured udp_indatagrams_grows "$(grew kernel_udp_in_datagrams)" "$s $x"
	s=$(jq -c '{socket: .link_rx_packets}' "$TMP/sock.json")
	x=$(jq -c '{afxdp: .link_rx_packets}' "$TMP/xsk.json")
	measured link_rx_grows "$(grew link_rx_packets)" "$s $x"
	# The receive cost on the receiving core (the lab's NAPI thread plus
	# the receiver's useful time); where a run has none, the receiver's
	# own CPU time, a lower bound. If even that is over the budget, the
	# path cannot keep up, however busy the machine was. All CPUs' busy
	# time (the generator included) is the fuller, noisier figure.
	cyc=$(jq -r '.receive_cycles_per_packet.total // (.cycles_per_packet |
		[.receiver, .system] | map(select(. != null and . > 0)) | min)
		// empty' "$TMP/sock.json")
	all=$(jq -r '.cycles_per_packet.system // "?"' "$TMP/sock.json")
	budget=$(calc 100G 64 "" cycles_per_frame)
	if [ -z "$(answer socket_fits_100g_64)" ]; then
		:
	elif [ -z "$cyc" ] || [ -z "$budget" ]; then
		result socket_fits_100g_64 SKIP "no CPU cost measured in this run"
	else
		fits=$(awk -v c="$cyc" -v b="$budget" 'BEGIN { print c <= b ? "yes" : "no" }')
		measured socket_fits_100g_64 "$fits" \
			"$(printf 'at least %.0f cycles per packet (all CPUs: %.0f), budget %.1f' \
				"$cyc" "$all" "$budget")"
	fi
}

if [ "$need_run" = 1 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		skip_runs "needs root for the lab's network namespaces"
	elif [ ! -x "$BUILD/kernel-stack/pathlab-rx-socket" ] ||
		[ ! -x "$BUILD/af-xdp/pathlab-rx-xsk" ]; then
		skip_runs "the socket and AF_XDP receivers are not both built"
	elif ! command -v jq >/dev/null || ! ip netns list >/dev/null 2>&1; then
		skip_runs "needs jq and ip netns"
	else
		real_runs
	fi
fi

answers_exit
