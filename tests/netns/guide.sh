#!/usr/bin/env bash
# guide.sh GUIDE.md - a lab guide as a student follows it: every command
# block runs as written, in order, under this test's own lab prefix, and
# every claim the guide marks (<!-- see: ... -->) is checked against what
# the run printed (labs/plab/guidetest.py says how a guide marks them).
# The lab the guide builds is taken down on exit, whatever happened.
. "$(dirname "$0")/lib.sh"

guide=${1:?usage: guide.sh GUIDE.md}
netns_require_root
export PATHLAB_PREFIX=${PATHLAB_PREFIX:-plg$$}
export PATHLAB_BUILD=$BUILD PATHLAB_NO_DEPS=1 PATHLAB_NO_BUILD=1
TMP=$(mktemp -d)
cleanup() {
	PATHLAB_QUEUES=1 topo_down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
/usr/bin/python3 "$REPO/labs/plab" guide-test "$REPO/$guide" "$TMP"
