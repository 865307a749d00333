"""sender.py - the second host of a two-host compare: how a command line
reaches it (ssh HOST, ip netns exec NAME for the tests' stand-in, or
printed for a person), the generator's command line (one builder for
every sender), the checks made on it before any run, its neighbour
entry, and the label each run gets of where its generator ran.
"""

import json
import re
import shlex
import shutil
import subprocess

from . import lab, paths
from .util import Fail, Usage, cmd, say

SSH_TIMEOUT = 10


class Hosts:
    """What the two-host checks found: the receiver's address, MAC and
    interface, the PCI port, the transport to the sender."""

    def __init__(self):
        self.rx_addr = self.rx_mac = self.rx_netdev = ""
        self.pci_kind = self.pci_driver = ""
        self.transport = []
        self.kind = "local"
        self.neigh_set = False
        self.hw_stamps = False
        self.rx_if = ""


def q(s):
    """S quoted for a POSIX shell (as it is when it needs no quotes)."""
    return s if re.fullmatch(r"[A-Za-z0-9_./:=,@+%-]+", s) else shlex.quote(s)


def check_sender(o, h):
    """Check --sender / --sender-print; set the transport."""
    s = o.sender or "local"
    if o.sender_print:
        if o.sender not in (None, "local"):
            raise Usage("--sender-print and --sender %s: one or the other" % s)
        h.kind = "print"
        return
    if s == "local":
        raise Usage("--iface/--pci need the generator on another machine:"
                    " --sender HOST or --sender-print (a generator here would"
                    " reach %s through loopback, never through the wire)"
                    % h.rx_addr)
    if s.startswith("ns:"):
        ns = s[3:]
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", ns) or \
                not lab.ns_exists(ns):
            raise Usage("--sender %s: no network namespace '%s'" % (s, ns))
        h.kind = "ns"
        h.transport = ["ip", "netns", "exec", ns, "sh", "-c"]
        return
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.@%:-]*", s):
        raise Usage("--sender '%s': a host name, user@host or an address (or"
                    " local)" % s)
    if not shutil.which("ssh"):
        raise Usage("--sender %s: needs ssh (apt-get install openssh-client)"
                    % s)
    h.kind = "ssh"
    h.transport = ["ssh", "-o", "BatchMode=yes", "-o",
                   "ConnectTimeout=%d" % SSH_TIMEOUT, "--", s]


def label(o):
    """Where the generator runs, in words."""
    s = o.sender or ""
    if o.sender_print:
        return "printed, run by hand on the sender"
    if s.startswith("ns:"):
        return "network namespace %s (ip netns exec), standing in for a" \
               " second host" % s[3:]
    return "%s over ssh" % s


def gen_bin(o):
    """pathlab-gen on the sender."""
    return o.sender_gen or "pathlab-gen"


def txv(o):
    """pathlab-tx-verbs on the sender: --sender-verbs, else beside
    --sender-gen's build, else in PATH."""
    if o.sender_verbs:
        return o.sender_verbs
    g = gen_bin(o)
    if g.endswith("/common/pathlab-gen"):
        return g[:-len("/common/pathlab-gen")] + "/rdma/pathlab-tx-verbs"
    return "pathlab-tx-verbs"


def gen_cmdline(o, h, size, count, rate, json_to, extra=()):
    """The generator's command line for one run; JSON_TO '-' (stdout) or
    None (none)."""
    a = [gen_bin(o), "--dst", h.rx_addr, "--port", str(lab.UDP_PORT),
         "--size", str(size), "--count", str(count)]
    if rate:
        a += ["--rate", str(rate)]
    if o.sender_if:
        a += ["--iface", o.sender_if]
    if o.sender_cpu:
        a += ["--cpu", o.sender_cpu]
    a += list(extra)
    if json_to is not None:
        a += ["--json", json_to, "--quiet"]
    return " ".join(q(x) for x in a)


def on_sender(h, secs, line):
    """Run command LINE on the sender within SECS s; the cmd object."""
    try:
        return cmd(["timeout", "-k", "5", str(secs)] + h.transport + [line],
                   fail=False)
    except subprocess.SubprocessError as e:
        raise Fail("the sender: %s" % e)


def probe(o, h):
    """Check the sender before any run: reachable, pathlab-gen runs there,
    its route to the receiver is not local. Fail with the reason."""
    if h.kind == "print":
        return
    has_gen = any(p != "verbs" for p in o.paths)
    has_verbs = "verbs" in o.paths
    gen = q(gen_bin(o)) if has_gen else "true"
    tx = ""
    if has_verbs:
        tx = "%s --help >/dev/null 2>&1 || { echo NOTXV; exit 0; }" % q(
            txv(o))
    oif = " oif %s" % o.sender_if if o.sender_if else ""
    r = on_sender(h, 30, "%s --help >/dev/null 2>&1 || { echo NOGEN; exit 0;"
                  " }\n%s\nip -o -4 route get %s%s 2>&1 || true"
                  % (gen, tx, h.rx_addr, oif))
    out = r.stdout + r.stderr
    if r.ret != 0:
        msg = "the sender (%s) did not answer (exit %d): %s" % (
            label(o), r.ret, out.replace("\n", " ").strip())
        if h.kind != "ns":
            msg += "\npathlab: ssh must log in without a password" \
                   " (BatchMode): ssh-copy-id %s" % o.sender
        raise Fail(msg)
    if "NOGEN" in out:
        raise Fail("%s does not run on the sender: build pathlab there (meson"
                   " setup build && ninja -C build) and give --sender-gen"
                   " /path/to/build/common/pathlab-gen" % gen_bin(o))
    if "NOTXV" in out:
        raise Fail("%s does not run on the sender (the verbs path's sender):"
                   " build pathlab there with -Drdma=enabled and give"
                   " --sender-gen /path/to/build/common/pathlab-gen or"
                   " --sender-verbs PATH" % txv(o))
    if re.search(r"(^|\n)local ", out):
        raise Fail("the sender reaches %s through loopback: it is this"
                   " machine, not a second host" % h.rx_addr)
    if "unreachable" in out or "No route" in out:
        raise Fail("the sender has no route to %s: give the cabled port an"
                   " address in the receiver's subnet" % h.rx_addr)
    words = out.split()
    route = "".join(" %s %s" % (w, words[i + 1])
                    for i, w in enumerate(words[:-1]) if w in ("dev", "src"))
    runs = " and ".join((["pathlab-gen"] if has_gen else [])
                        + (["pathlab-tx-verbs"] if has_verbs else []))
    say("pathlab: sender: %s runs; its route to %s:%s"
        % (runs, h.rx_addr, route or " (no ip there)"))


def neigh_up(o, h):
    """The sender's neighbour entry for the receiver (--sender-if), when it
    has none of its own; removed again by cleanup()."""
    if not o.sender_if:
        return
    if h.kind == "print":
        say("pathlab: on the sender, once: ip neigh replace %s lladdr %s dev"
            " %s nud permanent" % (h.rx_addr, h.rx_mac, o.sender_if))
        return
    a, m, i = h.rx_addr, h.rx_mac, o.sender_if
    r = on_sender(h, 30, "case \"$(ip neigh show %s dev %s)\" in\n"
                  "*'lladdr %s PERMANENT'*) echo kept ;;\n"
                  "*) ip neigh replace %s lladdr %s dev %s nud permanent &&"
                  " echo set ;;\nesac" % (a, i, m, a, m, i))
    if r.ret != 0:
        raise Fail("could not set the neighbour entry on the sender: %s"
                   % (r.stdout + r.stderr).strip())
    if r.stdout.strip() == "set":
        h.neigh_set = True
        say("pathlab: sender: neighbour %s lladdr %s on %s set for this run"
            " (removed at the end)" % (a, m, i))


def cleanup(o, h):
    """Undo what the two-host mode changed on the sender."""
    if h is None or not h.neigh_set:
        return
    h.neigh_set = False
    if on_sender(h, 30, "ip neigh del %s dev %s" % (h.rx_addr,
                                                    o.sender_if)).ret != 0:
        say("pathlab: could not remove the neighbour entry on the sender",
            err=True)


def annotate(o, h, run):
    """Label RUN with where its generator ran."""
    run["sender"] = {"kind": h.kind, "where": o.sender or "print",
                     "rx_addr": h.rx_addr, "rx_iface": h.rx_if,
                     "rx_pci": o.pci or "", "sender_iface": o.sender_if or "",
                     "clock_shared": h.kind == "ns"}
    return run


def modes(o, path):
    """The modes of PATH to run: DPDK on a --pci port has one, "pci"."""
    if o.pci and path == "dpdk":
        return ["pci"]
    return [r.mode for r in paths.rows_of(path)]


def plan(o, h, built):
    """Print what compare will do."""
    if o.lab():
        say("pathlab: the lab: receivers in %s on %s, the generator in %s"
            % (lab.ns_name("rx"), lab.RX_IF, lab.ns_name("tx")))
        say("pathlab: paths: %s" % " ".join(o.paths))
        return
    say("pathlab: receiver: %s here, address %s (MAC %s)"
        % (o.iface or o.pci, h.rx_addr, h.rx_mac))
    if o.pci:
        say("pathlab: DPDK port %s on %s (%s%s)" % (
            o.pci, h.pci_driver, h.pci_kind,
            ": the PMD runs on the kernel driver; it stays bound"
            if h.pci_kind == "bifurcated" else ""))
    say("pathlab: paths: %s" % " ".join(o.paths))
    say("pathlab: sender: %s; generator: %s"
        % (label(o), gen_cmdline(o, h, 64, 1000, 0, None)))
    if "verbs" in o.paths and o.iface:
        from . import verbs_host
        end, _ = verbs_host.netdev_end(o.iface, h.rx_addr)
        if end:
            say("pathlab: verbs: receiver here on %s; sender: %s there, its"
                " own device" % (verbs_host.describe(end), txv(o)))


def gen_printed_json(line):
    """The generator object of a run whose command was printed."""
    return {"tool": "pathlab-gen", "printed_command": line}


def parse_json(text):
    """The object of a generator's JSON output, or None."""
    try:
        v = json.loads(text)
    except ValueError:
        return None
    return v if isinstance(v, dict) else None


def print_wait():
    """Seconds a printed command may take to be run by hand."""
    import os
    v = os.environ.get("PATHLAB_SENDER_WAIT", "600")
    return int(v) if v.isdigit() and int(v) > 0 else 600


def gen(o, h, base, size, count, rate, rx, extra):
    """One run's generator on the sender; its JSON into BASE.gen.json.
    Printed: wait (bounded) for the receiver to see the end of the train."""
    from .run import RunFail
    from .util import tail
    line = gen_cmdline(o, h, size, count, rate,
                       None if h.kind == "print" else "-", extra)
    with open(base + ".gen.cmd", "w") as f:
        f.write(line + "\n")
    if h.kind == "print":
        wait = print_wait()
        say("\npathlab: run this on the sender now (waiting up to %d s):\n"
            "sender$ %s" % (wait, line))
        if rx.wait(wait) is None:
            raise RunFail("no end of train from the sender after %d s (was"
                          " the command run there?)" % wait)
        with open(base + ".gen.json", "w") as f:
            json.dump(gen_printed_json(line), f)
        return
    limit = 30 + SSH_TIMEOUT + count // (rate or 10000)
    r = on_sender(h, limit, line)
    with open(base + ".gen.json", "w") as f:
        f.write(r.stdout)
    with open(base + ".gen.err", "w") as f:
        f.write(r.stderr)
    if r.ret in (124, 137):
        raise RunFail("the generator on the sender ran longer than %d s\n%s"
                      % (limit, tail(base + ".gen.err", label="gen")))
    if r.ret != 0 or parse_json(r.stdout) is None:
        raise RunFail("the generator on the sender failed (exit %d)\n%s"
                      % (r.ret, tail(base + ".gen.err", label="gen")))


def finish_run(o, h, run, base):
    """Label a two-host RUN. Printed: no generator JSON came back, so the
    receiver's own count of what was sent (the end marker's, else its
    sequence numbers) and what follows from it stand, by sent_source."""
    if h.kind == "print":
        with open(base + ".rx.json") as f:
            rx = json.load(f)
        for k in ("sent", "sent_source", "lost", "drops", "unattributed"):
            run[k] = rx.get(k)
    annotate(o, h, run)
