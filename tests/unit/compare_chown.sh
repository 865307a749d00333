#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `sudo pathlab compare --out DIR` gives the user who ran sudo what compare
# created, and nothing else: an existing DIR (--out /etc), the files and
# folders already in it, and links stay as they were, also when a folder
# is swapped for a link while compare runs (it is given through the
# descriptor opened at the start). $1: labs/plab.
set -u
PLAB=${1:?usage: compare_chown.sh labs/plab}
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root to give files away (chown)"
	exit 77
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
export SUDO_UID=4242 SUDO_GID=4343

# owner WHAT PATH: PATH belongs to WHAT (uid:gid), the link itself if one.
owner() {
	local got
	got=$(stat -c %u:%g -- "$2")
	if [ "$got" = "$1" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL: $2 belongs to $got, wanted $1"
		fail=$((fail + 1))
	fi
}

# compare_into DIR [SWAP]: what compare does to its output folder (labs/plab's
# OutDir: noted before, made, written into, given away); SWAP, a shell
# command, runs after the writing and before the giving away.
compare_into() {
	/usr/bin/python3 - "$PLAB" "$1" "${2:-}" <<'PY' || { echo "FAIL: OutDir $1"; fail=$((fail + 1)); }
import os, subprocess, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from plab.outdir import OutDir
d = OutDir(sys.argv[2], "/nonexistent")
d.create()
for f in ("results.json", "raw/socket.run.json"):
    with open(os.path.join(d.path, f), "w") as fh:
        fh.write("{}\n")
os.makedirs(os.path.join(d.raw, "vm", "deeper"))
with open(os.path.join(d.raw, "vm", "deeper", "guest.log"), "w") as fh:
    fh.write("log\n")
if sys.argv[3]:
    subprocess.run(["bash", "-c", sys.argv[3]], check=True)
d.chown()
d.close()
PY
}
# An existing folder, with files, a raw/ and a link of its own.
old=$tmp/existing
mkdir -p "$old/raw" "$tmp/target"
echo keep >"$old/notes.txt"
echo keep >"$old/raw/earlier.json"
ln -s "$tmp/target" "$old/link"
compare_into "$old"
owner 0:0 "$old"
owner 0:0 "$old/notes.txt"
owner 0:0 "$old/raw"
owner 0:0 "$old/raw/earlier.json"
owner 0:0 "$old/link"
owner 0:0 "$tmp/target"
owner 4242:4343 "$old/results.json"
owner 4242:4343 "$old/raw/socket.run.json"
owner 4242:4343 "$old/raw/vm/deeper/guest.log"

# A new folder two levels below an existing one: all of it is the user's,
# the existing parent is not.
compare_into "$tmp/new/a/out"
owner 0:0 "$tmp"
owner 4242:4343 "$tmp/new"
owner 4242:4343 "$tmp/new/a/out/raw"
owner 4242:4343 "$tmp/new/a/out/results.json"
owner 4242:4343 "$tmp/new/a/out/raw/vm/deeper/guest.log"

# A user who owns the folder above swaps it for a link to a tree of root's
# between the start and the end (the old find-then-chown by path gave
# that tree away): what compare made is given, through the descriptor
# opened at the start, wherever it is now; root's tree stays root's.
user=$tmp/user
mkdir -p "$user" "$tmp/victim/made/out/raw"
echo keep >"$tmp/victim/made/out/results.json"
echo keep >"$tmp/victim/made/out/raw/socket.run.json"
chown 4242:4343 "$user"
compare_into "$user/made/out" \
	"mv '$user' '$tmp/user-moved' && ln -s '$tmp/victim' '$user'"
owner 0:0 "$tmp/victim/made"
owner 0:0 "$tmp/victim/made/out/results.json"
owner 0:0 "$tmp/victim/made/out/raw/socket.run.json"
owner 4242:4343 "$tmp/user-moved/made/out/results.json"
owner 4242:4343 "$tmp/user-moved/made/out/raw/socket.run.json"
# An existing folder of the user's, its new raw/ swapped for a link to
# root's tree: the link is given, not what it points to.
mine=$tmp/mine
mkdir -p "$mine" "$tmp/victim2"
echo keep >"$tmp/victim2/x.json"
chown 4242:4343 "$mine"
compare_into "$mine" "mv '$mine/raw' '$mine/raw-moved' && ln -s '$tmp/victim2' '$mine/raw'"
owner 0:0 "$tmp/victim2"
owner 0:0 "$tmp/victim2/x.json"
owner 4242:4343 "$mine/raw"
# Without sudo (or sudo from root) nothing changes hands.
SUDO_UID=0 compare_into "$tmp/root-only"
owner 0:0 "$tmp/root-only/results.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
