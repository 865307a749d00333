#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# grade_measure.sh ANSWERS [--list]: grade exercise 15, measure and
# explain. The numbers are the student's own: each answer is checked
# against the run files the answers name (a receiver's --json output, or
# a results.json whose first run is taken), and each explanation against
# what those numbers show. Prints one GRADE line per question, like the
# C tests; exit 1 if one failed, 77 if all were skipped, else 0.
# shellcheck source-path=SCRIPTDIR/../..
set -u
ANSWERS=${1:?usage: grade_measure.sh ANSWERS [--list]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
EX=15-measure
# name points what
ITEMS=(
	"runs 2 the three run files: the right path, mode and size"
	"syscalls 3 system calls per packet, both modes, from your runs"
	"per_call 2 packets per recvmmsg() call, and why not a full batch"
	"cheaper 2 which mode costs fewer receiver cycles per packet"
	"gpu_measured 3 copies, PCIe crossings, bytes per packet to the GPU"
	"gpu_batching 2 packets per host-to-device transfer"
	"gpu_direct 2 what GPUDirect RDMA leaves of the bounce path"
)
# shellcheck source=exercises/lib/answers.sh
. "$REPO/exercises/lib/answers.sh"
answers_list "${1:-}"
command -v jq >/dev/null || {
	for item in "${ITEMS[@]}"; do result "${item%% *}" SKIP "needs jq"; done
	answers_exit
}

# The run file answer $1 names: as given, from the repository, or from
# the answers file's folder. A receiver's --json output is one run; of a
# results.json (pathlab compare), the first run that passes jq test $2,
# else its first run. The run object on stdout.
run_of() {
	local f raw
	raw=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\([^#[:space:]]*\).*/\1/p" \
		"$ANSWERS" | head -n 1)
	[ -n "$raw" ] || return 1
	for f in "$raw" "$REPO/$raw" "$(dirname "$ANSWERS")/$raw"; do
		[ -f "$f" ] || continue
		jq -e "if has(\"runs\") then ([.runs[] | select($2)][0] // .runs[0])
		       else . end | select(.tool != null and .path != null)" \
			"$f" 2>/dev/null
		return
	done
	return 1
}

# What each run must be (jq tests), and in words.
RF_TEST='.path == "socket" and .mode == "recvfrom" and .received >= 10000'
RF_WHAT="a socket run with --mode recvfrom of 10,000 datagrams or more"
BT_TEST='.path == "socket" and .mode == "recvmmsg" and (.gpu // "none") == "none" and .socket.batch >= 16 and .received >= 10000'
BT_WHAT="a socket run with --mode recvmmsg --batch 16 or more, no GPU, 10,000 datagrams or more"
GPU_TEST='.path == "socket" and .gpu == "sim" and .gpu_detail.variant == "bounce" and .received >= 10000'
GPU_WHAT="a socket run with --gpu sim of 10,000 datagrams or more"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run_of recvfrom_run "$RF_TEST" >"$TMP/rf" || : >"$TMP/rf"
run_of batch_run "$BT_TEST" >"$TMP/bt" || : >"$TMP/bt"
run_of gpu_run "$GPU_TEST" >"$TMP/gpu" || : >"$TMP/gpu"

# Field $2 (a jq path) of run file $1 ("" when absent).
field() {
	[ -s "$1" ] && jq -r "$2 // empty" "$1"
}

# check_file FILE WHAT TEST: "" when run FILE passes jq TEST, else why.
check_file() {
	if [ ! -s "$1" ]; then
		echo "no readable run file for $2"
	elif ! jq -e "$3" "$1" >/dev/null; then
		echo "$2: $(jq -c '{path, mode, gpu, received, batch: .socket.batch}' "$1") is not $4"
	fi
}

why=$(check_file "$TMP/rf" recvfrom_run "$RF_TEST" "$RF_WHAT")
[ -n "$why" ] || why=$(check_file "$TMP/bt" batch_run "$BT_TEST" "$BT_WHAT")
[ -n "$why" ] || why=$(check_file "$TMP/gpu" gpu_run "$GPU_TEST" "$GPU_WHAT")
if [ -n "$why" ]; then
	result runs FAIL "$why"
else
	result runs PASS
fi

# mine NAME WANT: the answer to NAME is WANT (a number within 1%, or a
# word); prints why not.
mine() {
	local got
	got=$(answer "$1")
	if [ -z "$got" ]; then
		echo "no answer to $1"
	elif [ -z "$2" ]; then
		echo "$1: the run file has no such figure"
	elif [[ $2 =~ ^[a-z_]+$ ]]; then
		[ "$got" = "$2" ] || echo "$1: you said $got"
	elif ! near "$got" "$2" 0.01; then
		echo "$1: you said $got; your run says $2"
	fi
}

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

spp_rf=$(field "$TMP/rf" .syscalls_per_packet)
spp_bt=$(field "$TMP/bt" .syscalls_per_packet)
grade syscalls "$(mine syscalls_per_packet_recvfrom "$spp_rf")" \
	"$(mine syscalls_per_packet_batch "$spp_bt")"

# Packets per call, and whether the calls came back full.
ppc=$(jq -r '.received / .socket.syscalls' "$TMP/bt" 2>/dev/null)
full=$(jq -r 'if .received / .socket.syscalls >= 0.9 * .socket.batch
	then "full" else "arrivals" end' "$TMP/bt" 2>/dev/null)
grade per_call "$(mine packets_per_call_batch "$ppc")" \
	"$(mine why_not_full_batch "$full")"

# Receiver cycles per packet: within 10% is "same".
cheaper=$(jq -rn --slurpfile a "$TMP/rf" --slurpfile b "$TMP/bt" '
	($a[0].cycles_per_packet.receiver) as $x
	| ($b[0].cycles_per_packet.receiver) as $y
	| if ($x - $y) > 0.1 * $x then "batch"
	  elif ($y - $x) > 0.1 * $x then "recvfrom" else "same" end' 2>/dev/null)
grade cheaper "$(mine cheaper_per_packet "$cheaper")"

bpp=$(jq -r '.gpu_detail.bytes.h2d_copy / .received' "$TMP/gpu" 2>/dev/null)
grade gpu_measured \
	"$(mine copies_per_packet_gpu "$(field "$TMP/gpu" .copies_per_packet)")" \
	"$(mine pcie_crossings_per_packet_gpu "$(field "$TMP/gpu" .pcie_crossings_per_packet)")" \
	"$(mine h2d_bytes_per_packet "$bpp")"

ppt=$(jq -r '.gpu_detail.packets.h2d_copy / .gpu_detail.h2d_transfers' \
	"$TMP/gpu" 2>/dev/null)
grade gpu_batching "$(mine packets_per_h2d_transfer "$ppt")"

# With GPUDirect RDMA the NIC writes into device memory: the data crosses
# PCIe once, no CPU copies it, and it never lands in host memory.
grade gpu_direct "$(mine copies_per_packet_direct 0)" \
	"$(mine pcie_crossings_per_packet_direct 1)" \
	"$(mine hop_removed host)"
answers_exit
