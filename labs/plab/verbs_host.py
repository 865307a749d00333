"""verbs_host.py - where the verbs rows run, as labs/lib/verbs-host.sh
decides it (that shell reads sysfs and ibv_devices, and the VM harness
sources it too): directly on this machine's RDMA devices, or in the
Soft-RoCE VM. This module asks it and reads its answer.
"""

import os

from .util import LIB, Usage, cmd, say


def _ask(snippet, *args):
    """Run SNIPPET with verbs-host.sh sourced; {KEY: value} of the KEY=value
    lines it prints, the other lines, and its status."""
    r = cmd(["bash", "-c", '. "$1"; shift; ' + snippet, "plab",
             os.path.join(LIB, "verbs-host.sh")] + list(args), fail=False)
    kv, other = {}, []
    for line in r.stdout.splitlines():
        k, sep, v = line.partition("=")
        if sep and k.isupper() and k.isalpha():
            kv[k] = v
        else:
            other.append(line)
    return kv, other, r


def where(want):
    """(where, note) for --verbs-on WANT: ("host", what it runs on) or
    ("vm", ""); Usage (exit 2) when WANT is host and there is nothing."""
    kv, other, r = _ask(
        'vh_where "$1"; rc=$?; echo "WHERE=$VH_WHERE"; '
        '[ $rc = 0 ] && [ "$VH_WHERE" = host ] && echo "NOTE=$(vh_env_note)"; '
        'exit $rc', want)
    for line in other:
        say(line)
    if r.ret == 2:
        raise Usage(r.stderr.strip().replace("pathlab: ", "", 1))
    return kv.get("WHERE", "vm"), kv.get("NOTE", "")


def netdev_end(ifn, addr):
    """(endpoint line, why not): the RDMA port whose RoCE v2 GID holds
    interface IFN's address ADDR; the line is None when there is none."""
    kv, _, r = _ask('if vh_netdev_end "$1" "$2"; then echo "RX=$VH_RX";'
                    ' else echo "WHY=$(vh_looked)"; exit 1; fi', ifn,
                    addr or "")
    return (kv.get("RX") if r.ret == 0 else None), kv.get("WHY", "")


def describe(end):
    """An endpoint line as 'DEV port P (GID i, ADDR, NETDEV)'."""
    f = end.split()
    return "%s port %s (GID %s, %s, %s)" % tuple(f[:5])
