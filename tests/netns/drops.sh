#!/usr/bin/env bash
# drops.sh - the kernel's later drop points as reference rows of xdp drop
# (`pathlab compare --paths xdp --references`, labs/plab/drops.py): each
# row runs in every round, counts only the lab's datagrams (never more
# than were sent, and some), is measured by the harness (tc and nft: no
# receiving process, the NAPI threads only), stands beside xdp drop in the
# summary, and leaves nothing on the lab's link: no clsact qdisc, no
# nftables table, no XDP program.
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`, XDP not built).
set -u

# shellcheck source-path=SCRIPTDIR source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
driver_env pldrp$$

need_compare jq
need_built af-xdp/pathlab-rx-xsk
scratch_dir
on_exit lab_down
OUT=$SCRATCH/out
COUNT=2000
RXNS=$PATHLAB_PREFIX-rx

# The reference rows this machine can run.
refs=(xdp-skb)
[ -e "$BUILD/af-xdp/tc_drop.bpf.o" ] && command -v tc >/dev/null &&
	refs+=(tc-drop)
command -v nft >/dev/null && refs+=(nft-raw)

# The lab is the test's own, up before compare, so that what compare
# changes on its link can be looked at after it.
"$PATHLAB" up >/dev/null || { echo "FAIL the lab did not come up"; exit 1; }
echo "# pathlab compare --paths xdp --references (${refs[*]})"
if "$PATHLAB" compare --paths xdp --references --workloads throughput \
	--sizes 64 --quick --trials 2 --count "$COUNT" --out "$OUT"; then
	echo "ok   compare succeeded"
else
	echo "FAIL compare exited $?"
	FAILED=1
fi

RES_SHOW="reference, received, sent, harness"
for r in "${refs[@]}"; do
	q='[.runs[] | select(.reference == "'$r'")]'
	check "$r: a run in each of 2 rounds" res "$q | map(.round) == [0, 1]"
	check "$r: beside xdp drop, the lab's datagrams only" res "$q | all(
		.path == \"xdp\" and .mode == \"drop\" and .sent == $COUNT
		and .received > 0 and .received <= .sent)"
	check "$r: measured by the harness" res "$q | all(
		.core_cycles_per_packet > 0 and .cycles_per_packet.system > 0)"
	check "$r: compared with xdp drop" res '[.summary[]
		| select(.reference == "'$r'") | .ours
		| startswith("xdp drop")] == [true]'
done
for r in tc-drop nft-raw; do
	case " ${refs[*]} " in *" $r "*) ;; *) continue ;; esac
	check "$r: no receiving process" \
		res '[.runs[] | select(.reference == "'$r'") | .harness.rx_s] |
			all(. == 0)'
done
check "no clsact qdisc left on the link" \
	bash -c "! ip netns exec $RXNS tc qdisc show dev pl-rx0 | grep -q clsact"
if command -v nft >/dev/null; then
	check "no nftables table left" \
		bash -c "! ip netns exec $RXNS nft list tables | grep -q pathlab_drop"
fi
check "no XDP program left on the link" \
	bash -c "! ip -n $RXNS link show pl-rx0 | grep -q 'prog/xdp'"
finish drops.sh
