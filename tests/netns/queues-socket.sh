#!/usr/bin/env bash
# The socket path on many queues and as the far end of the rtt workload:
# --queues N binds N SO_REUSEPORT sockets, one thread each; the kernel
# picks a socket per datagram by its 4-tuple hash, or with --steer cpu by
# the CPU that ran the receive softirq (on veth: the sending thread's).
# --reflect sends every datagram back for pathlab-gen --pingpong.
set -u
. "$(dirname "$0")/lib.sh"
export PATHLAB_QUEUES=2
netns_setup

RX="--iface $PL_RX_IF --cpu 0 --idle-timeout 3000 --rcvbuf 8388608"
TX="--iface $PL_TX_IF"
NCPU=$(getconf _NPROCESSORS_ONLN)

# 1. Two queues by hash: 16 flows from two sender threads, 100,000 in all.
run_pair_exact hash "$RX_SOCKET" "$RX --queues 2 --count 100000" \
	"$TX --threads 2 --flows 16 --count 100000 --rate 50000"
f=$TMP/hash.json
check "hash: 100000 received of 100000, none lost" \
	'.sent == 100000 and .received == 100000 and .lost == 0' "$f"
check "hash: two queues whose counts add up to the total" \
	'.queue_count == 2 and (.queues | length) == 2 and
	 ([.queues[].received] | add) == .received and
	 ([.queues[].packets] | add) == .received' "$f" '.queues'
check "hash: every flow on exactly one queue, both queues used" \
	'([.queues[].flows] | add) == 16 and all(.queues[]; .received > 0)' \
	"$f" '.queues'
check "hash: queue 0 on CPU 0, queue 1 on CPU $((1 % NCPU))" \
	"[.queues[] | [.queue, .cpu]] == [[0, 0], [1, $((1 % NCPU))]]" "$f" '.queues'

# 2. Steered by CPU: thread t of the sender runs on CPU t, and on veth the
# receive softirq runs there too, so socket t gets exactly thread t's half.
if [ "$NCPU" -ge 2 ]; then
	run_pair_exact steer "$RX_SOCKET" \
		"$RX --queues 2 --steer cpu --count 100000" \
		"$TX --threads 2 --flows 4 --count 100000 --rate 50000"
	f=$TMP/steer.json
	check "steer cpu: 100000 received, 50000 on each queue" \
		'.received == 100000 and [.queues[].received] == [50000, 50000]' \
		"$f" '.queues'
else
	echo "skip: one CPU online: steering by CPU puts everything on one queue"
fi

# 3. The rtt workload: --reflect answers pathlab-gen --pingpong.
run_pair reflect "$RX_SOCKET" "$RX --reflect --workload rtt" \
	"$TX --pingpong --count 2000 --warmup 100"
f=$TMP/reflect.json
check "reflect: every ping received and sent back" \
	'.received == 2000 and .reflect.reflected >= 2000 and
	 .reflect.errors == 0 and .workload == "rtt"' "$f" '{received, reflect}'
check "reflect: 1900 round trips measured, none timed out" \
	'.gen.rtt.samples == 1900 and .gen.rtt.timeouts == 0' "$f" '.gen.rtt'
check "reflect: round-trip percentiles ordered, min > 0" \
	'.gen.rtt as $r | $r.min_ns > 0 and $r.min_ns <= $r.p50_ns and
	 $r.p50_ns <= $r.p99_ns and $r.p99_ns <= $r.p999_ns and
	 $r.p999_ns <= $r.max_ns' "$f" '.gen.rtt'

# 3b. SIGINT with no traffic: every queue's thread is blocked in
# recvmmsg(); the run must still end at once and write its report (a
# signal taken by one thread has to wake the others).
rm -f "$TMP/idle.ready" "$TMP/idle.json"
ns_spawn IDLE rx "$RX_SOCKET" --iface "$PL_RX_IF" --cpu 0 --queues 2 --quiet \
	--ready "$TMP/idle.ready" --json "$TMP/idle.json" 2>"$TMP/idle.err"
wait_file "$TMP/idle.ready" "$IDLE" || bad "idle: receiver not ready"
sleep 1 # let both queue threads block in recvmmsg()
kill -INT "$IDLE"
for _ in $(seq 50); do kill -0 "$IDLE" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$IDLE" 2>/dev/null; then
	bad "idle: two queues still running 5 s after SIGINT"
	kill -KILL "$IDLE"
else
	check "idle: SIGINT ends a two-queue run with a report of 0 received" \
		'.received == 0 and .queue_count == 2' "$TMP/idle.json"
fi
wait "$IDLE" 2>/dev/null

# 4. What one queue only can do is refused as a usage error.
for args in "--steer cpu" "--queues 2 --trace 5" "--reflect --mode recvfrom" \
	"--queues 17"; do
	# shellcheck disable=SC2086 # the options are words
	ns_exec rx "$RX_SOCKET" $args --count 1 >/dev/null 2>"$TMP/usage.err"
	rc=$?
	if [ $rc -eq 2 ] && [ -s "$TMP/usage.err" ]; then
		ok "usage: $args: exit 2, '$(head -n 1 "$TMP/usage.err")'"
	else
		bad "usage: $args: exit $rc"
	fi
done

netns_finish
