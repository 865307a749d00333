#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# grade_measure.sh ANSWERS [--list]: grade exercise 15, measure and
# explain. The student measures in the lab; the grader does not take
# their run files on trust (a results.json handed in, hand-written or
# borrowed, is not evidence): it makes the same three runs itself, in a
# lab of its own (root), and checks each answer against them within the
# tolerances stated below, which are wide where the figure moves from
# run to run on a busy machine. Prints one GRADE line per question, like
# the C tests; exit 1 if one failed, 77 if all were skipped, else 0.
#
# Tolerances (the grader's run against the student's answer):
#   system calls per packet, recvfrom          within 2%
#   system calls per packet and packets per call with a batch: within a
#     factor of 10 (they follow the machine's load: 3 to 25 packets per
#     call were seen in three runs in a row), on the right side of 1,
#     and no more packets per call than the batch
#   which mode is cheaper per packet: the grader's runs decide (the
#     median of three each, interleaved) when the two differ by more
#     than 50% (at this rate a call brings a few
#     datagrams, and the two were seen 7% to 38% apart either way);
#     closer than that, "same" or the mode the run leans to
#   copies and PCIe crossings per packet      exactly (they are by design)
#   bytes host-to-device per packet            within a factor of 6 of the
#     median of three runs (it follows packets per transfer: 495 to
#     8,750 bytes were seen, quiet machine to loaded)
#   packets per host-to-device transfer        within a factor of 6 of
#     the median of three runs (1.1 on a quiet machine, 18 on a loaded
#     one: a transfer takes what has arrived)
# shellcheck source-path=SCRIPTDIR/../..
set -u
ANSWERS=${1:?usage: grade_measure.sh ANSWERS [--list]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
EX=15-measure
# name points what
ITEMS=(
	"syscalls 4 system calls per packet, both modes, against the grader's runs"
	"per_call 3 packets per recvmmsg() call, and why not a full batch"
	"cheaper 2 which mode costs fewer receiver cycles per packet"
	"gpu_measured 3 copies, PCIe crossings, bytes per packet to the GPU"
	"gpu_batching 2 packets per host-to-device transfer"
	"gpu_direct 2 what GPUDirect RDMA leaves of the bounce path"
)
# shellcheck source=exercises/lib/answers.sh
. "$REPO/exercises/lib/answers.sh"
answers_list "${1:-}"

# grade NAME CHECK...: PASS when every check ("" = fine) is fine.
grade() {
	local name=$1 c
	shift
	for c in "$@"; do
		[ -z "$c" ] && continue
		result "$name" FAIL "$c"
		return
	done
	result "$name" PASS
}

# mine NAME WANT [REL [WHO]]: the answer to NAME is WANT (a word, or a
# number within REL, default 1%), as WHO says (the grader's run); prints
# why not.
mine() {
	local got who=${4:-"the grader's run"}
	got=$(answer "$1")
	if [ -z "$got" ]; then
		echo "no answer to $1"
	elif [ -z "$2" ]; then
		echo "$1: $who has no such figure"
	elif [[ $2 =~ ^[a-z_|]+$ ]]; then
		[[ "|$2|" == *"|$got|"* ]] || echo "$1: you said $got; $who says ${2//|/ or }"
	elif ! near "$got" "$2" "${3:-0.01}"; then
		echo "$1: you said $got; $who says $2 (within $(awk -v r="${3:-0.01}" 'BEGIN { print r * 100 }')%)"
	fi
}

# factor NAME WANT F [MIN MAX]: the answer to NAME is within a factor F of
# WANT, and inside [MIN, MAX] where given; prints why not.
factor() {
	local got
	got=$(answer "$1")
	if [ -z "$got" ]; then
		echo "no answer to $1"
	elif [ -z "$2" ]; then
		echo "$1: the grader's run has no such figure"
	elif ! awk -v g="$got" -v w="$2" -v f="$3" -v lo="${4:-0}" -v hi="${5:-1e18}" 'BEGIN {
		if (g !~ /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ || g <= 0) exit 1
		exit !(g >= w / f && g <= w * f && g >= lo && g <= hi) }'; then
		echo "$1: you said $got; the grader's run says $(printf '%.3g' "$2") (within a factor of $3${4:+, between $4 and $5})"
	fi
}

# The design questions need no run: GPUDirect RDMA writes into device
# memory, so no CPU copy, one PCIe crossing, no stop in host memory.
design() {
	local d="the design"
	grade gpu_direct "$(mine copies_per_packet_direct 0 0 "$d")" \
		"$(mine pcie_crossings_per_packet_direct 1 0 "$d")" \
		"$(mine hop_removed host 0 "$d")"
}

# skip_runs REASON: the measured questions are skipped.
skip_runs() {
	local q
	for q in syscalls per_call cheaper gpu_measured gpu_batching; do
		result "$q" SKIP "$1"
	done
}

# The three runs of the README, in a lab of our own; every measured
# question answered from them.
real_runs() {
	local w="--count 20000 --rate 20000 --size 256 --cpu 0" rx spp ppc r t cheaper
	# shellcheck source=tests/netns/lib.sh
	. "$REPO/tests/netns/lib.sh"
	netns_setup >&2
	rx="--iface $PL_RX_IF --cpu 1 --count 20000 --idle-timeout 2000"
	# Three rounds, interleaved: the figures that follow the machine's
	# load are judged on their median (one run on a shared machine
	# proves nothing); the by-design ones on the first round.
	for t in 1 2 3; do
		run_pair "rf$t" "$RX_SOCKET" "$rx --mode recvfrom" \
			"--iface $PL_TX_IF $w"
		run_pair "bt$t" "$RX_SOCKET" "$rx --mode recvmmsg --batch 64" \
			"--iface $PL_TX_IF $w"
		run_pair "gpu$t" "$RX_SOCKET" \
			"$rx --mode recvmmsg --batch 64 --gpu sim" \
			"--iface $PL_TX_IF $w"
	done >&2
	for r in rf bt gpu; do
		for t in 1 2 3; do
			if ! jq -e '.received > 10000' "$TMP/$r$t.json" >/dev/null 2>&1; then
				skip_runs "the grader's runs did not complete (see above)"
				return
			fi
		done
		cp "$TMP/${r}1.json" "$TMP/$r.json"
	done
	local sc
	sc=$(mine syscalls_per_packet_recvfrom "$(jq -r .syscalls_per_packet "$TMP/rf.json")" 0.02)
	[ -n "$sc" ] || sc=$(factor syscalls_per_packet_batch "$(jq -r .syscalls_per_packet "$TMP/bt.json")" 10 0.015625 1)
	grade syscalls "$sc"
	spp=$(jq -r '.received / .socket.syscalls' "$TMP/bt.json")
	ppc=$(jq -r 'if .received / .socket.syscalls >= 0.9 * .socket.batch
		then "full" else "arrivals" end' "$TMP/bt.json")
	grade per_call "$(factor packets_per_call_batch "$spp" 10 1 64)" \
		"$(mine why_not_full_batch "$ppc")"
	# Receiver cycles per packet: the run decides beyond 50%.
	cheaper=$(jq -rn --slurpfile a <(jq -s . "$TMP"/rf[123].json) \
		--slurpfile b <(jq -s . "$TMP"/bt[123].json) '
		def median: sort | .[length / 2 | floor];
		([$a[0][].cycles_per_packet.receiver] | median) as $x
		| ([$b[0][].cycles_per_packet.receiver] | median) as $y
		| if $x > 1.5 * $y then "batch"
		  elif $y > 1.5 * $x then "recvfrom"
		  elif $x > $y then "same|batch"
		  else "same|recvfrom" end')
	# A word out of three can be guessed: it counts only beside the
	# measured system calls that explain it.
	grade cheaper "${sc:+the system calls per packet first (15.2): $sc}" \
		"$(mine cheaper_per_packet "$cheaper")"
	grade gpu_measured \
		"$(mine copies_per_packet_gpu "$(jq -r .copies_per_packet "$TMP/gpu.json")" 0)" \
		"$(mine pcie_crossings_per_packet_gpu "$(jq -r .pcie_crossings_per_packet "$TMP/gpu.json")" 0)" \
		"$(factor h2d_bytes_per_packet "$(jq -s '[.[] | .gpu_detail.bytes.h2d_copy / .received] | sort | .[1]' "$TMP"/gpu[123].json)" 6)"
	grade gpu_batching "$(factor packets_per_h2d_transfer \
		"$(jq -s '[.[] | .gpu_detail.packets.h2d_copy /
			.gpu_detail.h2d_transfers] | sort | .[1]' "$TMP"/gpu[123].json)" 6)"
}

# The measured questions: no answer to any, no run needed.
MEASURED=(syscalls_per_packet_recvfrom syscalls_per_packet_batch
	packets_per_call_batch why_not_full_batch cheaper_per_packet
	copies_per_packet_gpu pcie_crossings_per_packet_gpu
	h2d_bytes_per_packet packets_per_h2d_transfer)
answered=0
for q in "${MEASURED[@]}"; do
	[ -n "$(answer "$q")" ] && answered=1
done

design
if [ "$answered" = 0 ]; then
	for q in syscalls per_call cheaper gpu_measured gpu_batching; do
		result "$q" FAIL "no answer to its questions in ${ANSWERS##*/}"
	done
elif ! command -v jq >/dev/null; then
	skip_runs "needs jq"
elif [ "$(id -u)" -ne 0 ]; then
	skip_runs "needs root for the grader's own runs in the lab (network namespaces)"
elif ! ip netns list >/dev/null 2>&1; then
	skip_runs "needs ip netns"
else
	real_runs
fi
answers_exit
