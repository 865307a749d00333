"""tradeoffs.py - `pathlab compare --tradeoffs`: the evidence around each
visibility run (a netfilter counting rule, /proc/interrupts and
/proc/softirqs, ss samples) and, after the runs, the trade-off table of
the receive paths, every cell from what that path's visibility run
measured (tradeoffs_table.py). On two hosts the receivers run in this
machine's own namespace, and so do the rule and ss; the rule is our own
nftables table (pathlab_tradeoffs), removed after each run, and the
watchdog removes it (plab tradeoffs-undo) if compare is killed.
"""

import json
import os
import re
import shutil

from . import lab
from .util import JOURNAL, LIB, bkg, cmd, say

NFT_TABLE = "pathlab_tradeoffs"
IPT_CHAIN = "PATHLAB_TRADEOFFS"
SS_PERIOD = "0.05"


def nft_script():
    """The counting rule: the earliest IP hook (prerouting, raw priority),
    UDP to the lab's port, data only (byte 10 of the datagram is the
    pathlab flags byte; 0x20 marks the end-of-train markers)."""
    return ("table inet {t}\ndelete table inet {t}\ntable inet {t} {{\n"
            "\tchain prerouting {{\n\t\ttype filter hook prerouting priority"
            " raw; policy accept;\n\t\tudp dport {p} @th,80,8 & 0x20 == 0"
            " counter\n\t}}\n}}\n").format(t=NFT_TABLE, p=lab.UDP_PORT)


class Evidence:
    """The evidence of the visibility runs of one compare."""

    def __init__(self, here, rx_if):
        self.here = here  # two hosts: this namespace, not the lab's
        self.rx_if = rx_if
        self.tool = self.note = ""
        self.ss = None

    def rx(self, argv, **kw):
        """Run ARGV where the receivers run."""
        return cmd(argv if self.here else lab.in_ns("rx", argv), fail=False,
                   **kw)

    def nf_add(self, base):
        """Add the rule with nft, else iptables; unmeasured (with a note)
        if neither can: that does not fail the run."""
        self.tool = self.note = ""
        if self.here:
            JOURNAL.note("nf-here")
        if shutil.which("nft"):
            r = self.rx(["nft", "-f", "-"], stdin=nft_script())
            if r.ret == 0:
                self.tool = "nft"
            else:
                self.note = "nft could not add the rule: %s" % (
                    r.stderr.strip().splitlines() or [""])[0]
        elif shutil.which("iptables"):
            self.ipt_remove()
            ipt = ["iptables", "-t", "raw"]
            ok = all(self.rx(a).ret == 0 for a in (
                ipt + ["-N", IPT_CHAIN],
                ipt + ["-A", IPT_CHAIN, "-p", "udp", "--dport",
                       str(lab.UDP_PORT), "-m", "u32", "--u32",
                       "0>>22&0x3C@10>>24&0x20=0"],
                ipt + ["-I", "PREROUTING", "-j", IPT_CHAIN]))
            if ok:
                self.tool = "iptables"
            else:
                self.note = "iptables could not add the rule"
        else:
            self.note = "neither nft nor iptables is installed (package" \
                        " nftables)"
        if self.note:
            say("pathlab: tradeoffs: " + self.note, err=True)

    def nf_read(self):
        """The packet count of the rule, or None."""
        if self.tool == "nft":
            r = self.rx(["nft", "-j", "list", "table", "inet", NFT_TABLE])
            try:
                return sum(c["counter"]["packets"] for c in walk(
                    json.loads(r.stdout)) if "counter" in c)
            except (ValueError, KeyError, TypeError):
                return None
        if self.tool == "iptables":
            r = self.rx(["iptables", "-t", "raw", "-L", IPT_CHAIN, "-v", "-x",
                         "-n"])
            lines = r.stdout.splitlines()
            return int(lines[2].split()[0]) if len(lines) > 2 else None
        return None

    def ipt_remove(self):
        """Remove the iptables chain, if it is there."""
        ipt = ["iptables", "-t", "raw"]
        for a in (["-D", "PREROUTING", "-j", IPT_CHAIN], ["-F", IPT_CHAIN],
                  ["-X", IPT_CHAIN]):
            self.rx(ipt + a)

    def nf_remove(self):
        """Remove the rule (either tool), wherever it is."""
        if not self.here and not lab.ns_exists(lab.ns_name("rx")):
            return
        if shutil.which("nft"):
            self.rx(["nft", "delete", "table", "inet", NFT_TABLE])
        if shutil.which("iptables"):
            self.ipt_remove()

    def start(self, base, rx_pid):
        """Before the traffic: the rule, the counters, an ss sample and
        the ss sampler for as long as the receiver RX_PID lives."""
        self.nf_add(base)
        self.irq0 = irq_read(self.rx_if)
        ss = ["ss", "-H", "-u", "-a", "-n", "-m", "sport = :%d" % lab.UDP_PORT]
        with open(base + ".ss.txt", "w") as f:
            f.write("# sample (receiver ready)\n" + self.rx(ss).stdout)
        with open(base + ".ss-packet.txt", "w") as f:
            f.write(self.rx(["ss", "-H", "-0", "-a", "-n", "-p"]).stdout)
        argv = ["bash", os.path.join(LIB, "tradeoffs-ss.sh"),
                str(lab.UDP_PORT), SS_PERIOD, str(rx_pid)]
        self.ss = bkg(argv if self.here else lab.in_ns("rx", argv),
                      stdout=base + ".ss.more", stderr=base + ".ss.err")

    def stop(self, base):
        """After the run: the evidence object (also BASE.tradeoffs.json)."""
        if self.ss is not None:
            if self.ss.wait(1) is None:
                self.ss.stop()
            self.ss.__exit__()
            self.ss = None
        irq1 = irq_read(self.rx_if)
        n = self.nf_read() if self.tool else None
        nf = {"tool": self.tool or None,
              "hook": "prerouting, raw priority, rx namespace",
              "rule": "udp dport %d, data only (end markers excluded)"
                      % lab.UDP_PORT, "packets": n}
        if self.tool and n is None:
            self.note = "could not read the counter"
        if self.note:
            nf["note"] = self.note
        self.nf_remove()
        with open(base + ".ss.txt", "a") as f, \
                open(base + ".ss.more", errors="replace") as more:
            f.write(more.read())
        ss = ss_summary(base + ".ss.txt")
        ss.update(command="ss -H -u -a -n -m 'sport = :%d'" % lab.UDP_PORT,
                  packet_sockets=packet_owners(base + ".ss-packet.txt",
                                               self.rx_if))
        ev = {"netfilter": nf, "ss": ss,
              "interrupts": irq_json(self.rx_if, self.irq0, irq1)}
        with open(base + ".tradeoffs.json", "w") as f:
            json.dump(ev, f, indent=2)
        return ev


def walk(v):
    """Every object inside JSON value V."""
    if isinstance(v, dict):
        yield v
        for w in v.values():
            yield from walk(w)
    elif isinstance(v, list):
        for w in v:
            yield from walk(w)


def irq_read(ifn):
    """(all interrupts, those of lines naming IFN, such lines, NET_RX
    softirqs), summed over all CPUs, machine-wide."""
    total = link = lines = net_rx = 0
    with open("/proc/interrupts") as f:
        ncpu = len(f.readline().split())
        for line in f:
            w = line.split()
            n = sum(int(x) for x in w[1:ncpu + 1] if x.isdigit())
            total += n
            if ifn and ifn in line:
                link += n
                lines += 1
    with open("/proc/softirqs") as f:
        for line in f:
            if line.split()[:1] == ["NET_RX:"]:
                net_rx = sum(int(x) for x in line.split()[1:])
    return total, link, lines, net_rx


def irq_json(ifn, a, b):
    """The interrupt deltas between readings A and B."""
    return {"source": "/proc/interrupts and /proc/softirqs, all CPUs, before"
                      " and after the run", "ifname": ifn,
            "all": b[0] - a[0], "link": b[1] - a[1], "link_lines": b[2],
            "net_rx_softirqs": b[3] - a[3]}


def ss_summary(path):
    """How many ss samples, how many showed a socket on the port, its
    largest Recv-Q, the socket's drop count (skmem d), its address."""
    n = with_sock = q = drops = 0
    local, last = "", -1
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("# sample"):
                n += 1
            elif re.match(r"[A-Z-]+[ \t]", line):
                if last != n:
                    with_sock += 1
                    last = n
                w = line.split()
                q = max(q, int(w[1]) if len(w) > 1 and w[1].isdigit() else 0)
                local = local or (w[3] if len(w) > 3 else "")
            else:
                m = re.search(r",d(\d+)\)", line)
                if "skmem:" in line and m:
                    drops = max(drops, int(m.group(1)))
    return {"samples": n, "with_socket": with_sock, "recv_q_max": q,
            "drops_max": drops, "local": local}


def packet_owners(path, ifn):
    """The processes holding a packet socket bound to IFN (tcpdump's own,
    which the visibility run starts, left out)."""
    out = set()
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) > 4 and w[4] == "*:" + ifn:
                out.update(re.findall(r'users:\(\("([^"]*)"', line))
    return sorted(out - {"tcpdump"})


def undo_here():
    """Remove a rule left in this namespace (the watchdog's undo)."""
    Evidence(True, "").nf_remove()
    return 0


def modes(selected, build):
    """The path table's rows, each with how it runs, whether it is built
    and selected for this compare."""
    from . import paths
    return [{"path": r.id, "mode": r.mode, "runner": r.runner,
             "built": paths.built(r.id, build), "selected": r.id in selected}
            for r in paths.TABLE]


def report(o, build, results, out):
    """OUT/tradeoffs.json and tradeoffs.txt, and the table on screen."""
    from . import tradeoffs_table
    t = tradeoffs_table.build(results, modes(o.paths, build))
    with open(os.path.join(out, "tradeoffs.json"), "w") as f:
        json.dump(t, f, indent=2)
    lines = tradeoffs_table.render(t)
    with open(os.path.join(out, "tradeoffs.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    say("\n" + "\n".join(lines))
    say("pathlab: trade-offs in %s and tradeoffs.txt"
        % os.path.join(out, "tradeoffs.json"))
