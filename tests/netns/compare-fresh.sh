#!/usr/bin/env bash
# compare-fresh.sh - `pathlab compare` as on a fresh clone: PATHLAB_BUILD
# names an empty folder, so compare must configure and build before it
# checks which paths it can run (it once refused at once: "path socket is
# not built"). Packages are installed already (PATHLAB_NO_DEPS=1): the
# build, the path check and one quick run are what is tested.
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`).
set -u

# shellcheck source-path=SCRIPTDIR source=../driver-lib.sh
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../driver-lib.sh"
driver_env plfr$$

need_netns
need_tools jq meson ninja
scratch_dir
on_exit lab_down
FRESH=$SCRATCH/build
OUT=$SCRATCH/out
mkdir "$FRESH"
export PATHLAB_BUILD=$FRESH

echo "# PATHLAB_BUILD=<empty folder> pathlab compare --paths socket --quick --sizes 64 --workloads latency"
if "$PATHLAB" compare --paths socket --quick --sizes 64 --workloads latency \
	--out "$OUT" >"$SCRATCH/log" 2>&1; then
	echo "ok   compare configured, built and ran"
else
	echo "FAIL compare exited $?:"
	tail -20 "$SCRATCH/log" | sed 's/^/     | /'
	FAILED=1
fi
check "the empty folder is now a build" test -f "$FRESH/build.ninja"
check "it built the socket receiver and the generator" \
	test -x "$FRESH/kernel-stack/pathlab-rx-socket" -a \
	-x "$FRESH/common/pathlab-gen"
check "results.json: one socket latency run that received datagrams" \
	res '[.runs[] | select(.path == "socket" and .workload == "latency")
		| .received > 0] == [true]'
check "lab torn down after compare" no_lab_left
finish compare-fresh
