#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad option values end a program at once with a one-line error and exit
# status 2, before it touches the network: $1 pathlab-gen,
# $2 pathlab-rx-socket, $3 pathlab-rx-dpdk (or "none" without DPDK).
set -u
gen=$1 rx=$2 dpdk=${3:-none}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# usage NAME CMD...: CMD exits 2 with a message on stderr.
usage() {
	name=$1
	shift
	timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL: $name: exit $rc, want 2: $(head -c 300 "$tmp/err")"
		fail=$((fail + 1))
	fi
}

# A duration must be a plain finite decimal small enough for the
# nanosecond clocks: "inf", 1e20 and hex used to end the run at once, exit 0.
for d in inf -inf nan 1e20 0x10 0x1p3 1e7 -1 '' 5s; do
	usage "gen --duration '$d'" "$gen" --dst 127.0.0.1 --count 0 \
		--duration "$d" --quiet
	usage "rx-socket --duration '$d'" "$rx" --bind 127.0.0.1 --iface lo \
		--duration "$d" --quiet
done

# Flow i sends from --src-port + i: past 65535 it wrapped to port 0.
usage "gen --src-port 65535 --flows 2" "$gen" --dst 127.0.0.1 --count 2 \
	--src-port 65535 --flows 2 --quiet
usage "gen --src-port 65500 --threads 2 --flows 60" "$gen" --dst 127.0.0.1 \
	--count 2 --src-port 65500 --threads 2 --flows 60 --quiet

# Values that used to pass: an interface that is not there (exit 0, env
# "unknown"), a name no interface can have, a --dst that is no address or
# has no neighbour entry for --tx packet (exit 1).
usage "rx-socket --iface NO-SUCH-IF" "$rx" --bind 127.0.0.1 --iface NO-SUCH-IF \
	--duration 0.1 --quiet
usage "rx-socket --iface lo,iface=x" "$rx" --bind 127.0.0.1 \
	--iface lo,iface=x --duration 0.1 --quiet
usage "gen --iface NO-SUCH-IF" "$gen" --dst 127.0.0.1 --iface NO-SUCH-IF \
	--count 1 --quiet
for dst in bad 999.1.1.1 127.0.0.1x ''; do
	usage "gen --dst '$dst'" "$gen" --dst "$dst" --count 1 --quiet
	usage "gen --tx packet --dst '$dst'" "$gen" --tx packet --iface lo \
		--dst "$dst" --count 1 --quiet
done
usage "gen --tx packet without --iface" "$gen" --tx packet \
	--dst 127.0.0.1 --count 1 --quiet
usage "gen --tx packet --dst without a neighbour" "$gen" --tx packet \
	--iface lo --dst 127.0.0.9 --count 1 --quiet

# A PCI device that is not there is a usage error too (it exited 1).
if [ "$dpdk" != none ]; then
	usage "rx-dpdk --pci missing" "$dpdk" --pci 0000:ff:1f.7 --count 1
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
