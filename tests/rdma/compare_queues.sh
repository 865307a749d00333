#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `pathlab compare --queues 2` on the verbs round-trip rows, as compare runs
# them (--paths verbs --workloads rtt --sizes 64: one boot of the Soft-RoCE
# VM, or this host's verbs device), with the real receiver and sender; the
# RC sender's exit status alone is replaced by a wrapper (exit 3, a line
# on stderr), so that one boot checks both ends of the story:
# - the round trips over two QPs go through: every ping reflected, half on
#   each QP, none unanswered; where the receiver's two busy pollers and
#   the sender's do not each get a CPU of their own (the VM's 2 vCPUs),
#   the receiver waits on CQ events, and its note says so (two pollers on
#   one vCPU took turns by scheduler slices: milliseconds a ping, and the
#   harness's timeout under load, "FAILED (exit 224)" with no reason);
# - a failed run says why on screen and in its .error file (each end's
#   exit status, what it did, its stderr), and compare counts the failed
#   runs as the harness does.
set -u

# shellcheck source-path=SCRIPTDIR source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
driver_env plcq$$

[ "$(id -u)" -eq 0 ] || skip "needs root (labs/pathlab compare)"
need_tools jq
need_built rdma/pathlab-rx-verbs rdma/pathlab-tx-verbs common/pathlab-gen
if ! ls /sys/class/infiniband/*/ports/1/gids >/dev/null 2>&1; then
	why=$("$ROOT/labs/rdma-vm" check 2>&1)
	case $? in
	0) ;;
	77) skip "no RDMA device on this host and no Soft-RoCE VM: $why" ;;
	*) echo "FAIL: cannot prepare the VM: $why"; exit 1 ;;
	esac
fi

# True if jq filter F holds on FILE; if not, print what the run says.
holds() {
	jq -e "$1" "$2" >/dev/null 2>&1 && return 0
	jq -c '{sent, received, lost, queue_count, env_note,
		queues: [.queues[]? | {queue, cpu, received}],
		verbs: (.verbs | {cq, cq_events, qps: [.qps[]? | .reflected]}),
		rtt: .gen.rtt, tx: .gen.count_requested}' "$2" 2>&1 | sed 's/^/     | /'
	return 1
}

scratch_dir
OUT=$SCRATCH/out
# The build compare runs (PATHLAB_NO_BUILD: as it is): copies of the two
# verbs tools, the sender behind a wrapper that fails the RC run once the
# real sender has ended; the generator, which compare looks for.
FAKE=$SCRATCH/build
mkdir -p "$FAKE/rdma" "$FAKE/common"
ln -s "$BUILD/common/pathlab-gen" "$FAKE/common/"
cp "$BUILD/rdma/pathlab-rx-verbs" "$FAKE/rdma/"
cp "$BUILD/rdma/pathlab-tx-verbs" "$FAKE/rdma/pathlab-tx-verbs.real"
cat >"$FAKE/rdma/pathlab-tx-verbs" <<'EOF'
#!/usr/bin/env bash
"$0.real" "$@"
rc=$?
case " $* " in
*" --mode rc "*)
	echo "injected: the test's wrapper fails the RC sender, which exited $rc" >&2
	exit 3
	;;
esac
exit $rc
EOF
chmod +x "$FAKE/rdma/pathlab-tx-verbs"

echo "# pathlab compare --paths verbs --queues 2 --workloads rtt --sizes 64"
PATHLAB_BUILD=$FAKE PATHLAB_NO_BUILD=1 "$PATHLAB" compare --paths verbs --queues 2 --workloads rtt \
	--sizes 64 --out "$OUT" >"$SCRATCH/screen" 2>&1
rc=$?
sed 's/^/     /' "$SCRATCH/screen" | grep -E '^ +(\[|pathlab: (compare|verbs)|  FAILED)'
R=$OUT/results.json
RAW=$OUT/raw
log=$(ls "$RAW"/verbs-*.log 2>/dev/null | head -n 1)

# The runs: UD from results.json, RC (failed by the wrapper) from its raw
# JSON, merged here as compare would have.
jq '.runs[] | select(.path == "verbs" and .workload == "rtt" and .mode == "ud"
	and (.reference // null) == null)' "$R" >"$SCRATCH/ud.json" 2>/dev/null
/usr/bin/python3 "$ROOT/labs/plab" merge "$RAW/verbs-rc-64-rtt.rx.json" \
	"$RAW/verbs-rc-64-rtt.gen.json" >"$SCRATCH/rc.json" 2>/dev/null
jq -s '.[0].vm.cpus // empty' "$SCRATCH/ud.json" >"$SCRATCH/cpus"
cpus=$(cat "$SCRATCH/cpus")

for m in ud rc; do
	f=$SCRATCH/$m.json
	check "rtt $m over 2 QPs: every ping received, reflected and back, half on each QP" \
		holds '.gen.count_requested as $n | .sent == $n and .received == $n and
		.lost == 0 and .queue_count == 2 and
		[.verbs.qps[].reflected] == [$n / 2, $n / 2] and .reflect.errors == 0 and
		.gen.rtt.timeouts == 0 and .gen.rtt.mismatched == 0 and
		.gen.rtt.samples == $n - .gen.rtt.warmup' "$f"
	if [ -n "$cpus" ] && [ "$cpus" -lt 3 ]; then
		check "rtt $m: on $cpus vCPUs the receiver waits on CQ events, not 3 busy pollers on $cpus CPUs" \
			holds '.verbs.cq == "event" and .verbs.cq_events > 0' "$f"
	else
		check "rtt $m: each receiver queue polls on a CPU of its own" \
			holds '[.queues[].cpu] | unique | length == 2' "$f"
	fi
done
if [ -n "$cpus" ] && [ "$cpus" -lt 3 ]; then
	check "rtt ud: the run's note says why the receiver waits on events" \
		holds '.env_note | test("wait on CQ events \\(--cq event\\)")' "$SCRATCH/ud.json"
fi

check "compare exits 1: the RC run failed" test "$rc" = 1
check "results.json names that one failure, and no other" \
	holds '[.failures[].name] == ["verbs-rc-64-rtt"]' "$R"
check "compare and the harness count the same failed runs (1)" \
	bash -c 'grep -q "compare: 1 of [0-9]* runs failed" "$1" &&
		grep -q "^rdma-vm-compare: 1 runs failed" "$2"' _ "$SCRATCH/screen" "$log"
err=$RAW/verbs-rc-64-rtt.error
echo "     $(cat "$err" 2>/dev/null)"
check "the failed run's .error names each end's exit, counts and stderr" \
	grep -qE '^sender exit 3: sent [0-9]+ of [0-9]+, [0-9]+ round trips timed, 0 pings unanswered; its stderr: injected: the test.s wrapper fails the RC sender, which exited 0 \| receiver exit 0: received [0-9]+ \(QPs [0-9]+\+[0-9]+\); its stderr: nothing$' "$err"
check "the failure is on screen with its reason" \
	grep -qF "FAILED: sender exit 3: sent" "$SCRATCH/screen"
finish rdma-compare-queues
