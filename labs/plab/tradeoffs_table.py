"""tradeoffs_table.py - the trade-off table of the receive paths, every
cell from what that path's visibility run measured: results.json's runs
and the evidence `compare --tradeoffs` added to them (tradeoffs.py). A
(path, mode) without a visibility run is "not run", with the reason. Only
the plain rows (gpu "none", no reference tool) are read.

  python3 labs/plab tradeoffs --modes JSON --format json RESULTS|-
  python3 labs/plab tradeoffs --format text TRADEOFFS_JSON|-
"""

import json
import sys

from .text import safe

TRANSPORT = {"socket": "kernel UDP/IP",
             "xdp": "the XDP program: it drops, no transport",
             "afxdp": "user space: our parser on the UMEM frame",
             "dpdk": "user space: our parser on the mbuf",
             "verbs": "the NIC"}
NOTES = {
    "tcpdump": "packets tcpdump captured on the receiving interface (plus"
    " what its ring dropped) / datagrams sent; end-of-train markers excluded",
    "netfilter": "an nftables (else iptables) counter in the rx namespace,"
    " prerouting hook at raw priority, UDP to the lab's port, data only /"
    " datagrams sent",
    "ss": "`ss -u -a -n -m` on the lab's port in the rx namespace, once when"
    " the receiver is ready and then every 50 ms while it runs; Recv-Q and"
    " drops (skmem d) are the socket's",
    "copies": "the receiver's copies_per_packet and copies_source",
    "interrupts": "deltas over the run of /proc/interrupts (the lines naming"
    " the receiving interface) and of NET_RX in /proc/softirqs, all CPUs,"
    " machine-wide: other traffic adds to them. veth has no hardware IRQs:"
    " with one queue the lab runs its receive work in a NAPI thread on the"
    " receive core (no NET_RX softirq for it); with several queues, in NET_RX"
    " softirqs on the sending CPUs; the same for every path",
    "transport": "by design; Udp InDatagrams (and NoPorts) of the receiver's"
    " namespace say whether the kernel's UDP ran",
}


def f2(v):
    """A number with two decimals ('-' for none)."""
    return "-" if v is None else "%.2f" % v


def verdict(n, sent):
    """yes / no / partly for a count N of SENT datagrams."""
    return "no" if n == 0 else "yes" if n >= sent else "partly"


def no_evidence(r):
    """Why a run has no evidence of its own."""
    if (r.get("env") or "").startswith("vm"):
        return "not measured (run in the VM)"
    if r.get("path") == "verbs":
        return "not measured (verbs runs apart)"
    return "not measured (run without --tradeoffs)"


def tcpdump_cell(r):
    """Did tcpdump see them? Its ring's drops count as seen."""
    seen, drop, sent = r.get("tcpdump_seen"), r.get("tcpdump_dropped") or 0, \
        r.get("sent")
    if seen is None:
        return {"verdict": "not measured", "text": "not measured"}
    v = verdict(seen + drop, sent)
    return {"verdict": v, "seen": seen, "ring_dropped": drop, "sent": sent,
            "text": "%s (%d/%d%s)" % (v, seen, sent, " + %d ring drops" % drop
                                      if drop > 0 else "")}


def netfilter_cell(r):
    """Did the counting rule count them?"""
    nf = (r.get("tradeoffs") or {}).get("netfilter")
    if nf is None:
        return {"verdict": "not measured", "text": no_evidence(r)}
    if nf.get("packets") is None:
        return {"verdict": "not measured", "tool": nf.get("tool"),
                "note": nf.get("note"), "text": "not measured (%s)" % (
                    nf.get("note") or "no counter")}
    v = verdict(nf["packets"], r.get("sent"))
    return {"verdict": v, "packets": nf["packets"], "sent": r.get("sent"),
            "tool": nf.get("tool"), "hook": nf.get("hook"),
            "rule": nf.get("rule"),
            "text": "%s (%d/%d)" % (v, nf["packets"], r.get("sent"))}


def ss_cell(r):
    """Did ss show a socket (and its queue) on the port?"""
    ss = (r.get("tradeoffs") or {}).get("ss")
    if ss is None:
        return {"verdict": "not measured", "text": no_evidence(r)}
    y = ss.get("with_socket", 0) > 0
    pk = ss.get("packet_sockets") or []
    if y:
        text = "yes (%d/%d samples, Recv-Q max %d, drops %d)" % (
            ss["with_socket"], ss["samples"], ss.get("recv_q_max", 0),
            ss.get("drops_max", 0))
    else:
        text = "no (0/%d samples%s)" % (ss.get("samples", 0),
                                        "; packet socket: " + ", ".join(pk)
                                        if pk else "")
    return {"verdict": "yes" if y else "no", "samples": ss.get("samples"),
            "with_socket": ss.get("with_socket"),
            "recv_q_max": ss.get("recv_q_max"), "drops": ss.get("drops_max"),
            "local": ss.get("local"), "packet_sockets": pk,
            "command": ss.get("command"), "text": text}


def copies_cell(r):
    """CPU copies to the application, as the receiver reports them."""
    c = r.get("copies_per_packet")
    return {"verdict": c, "per_packet": c, "source": r.get("copies_source"),
            "note": r.get("copies_note"),
            "text": "%s (%s)" % (json.dumps(c), (r.get("copies_source") or
                                                 "?").replace("_", " "))}


def irq_cell(r):
    """Interrupts on the data path: the harness's deltas where it took
    them; the receiver's own (over its window) for the VM's rows."""
    sent = r.get("sent") or 1
    ev = (r.get("tradeoffs") or {}).get("interrupts")
    if ev is not None:
        c = {"source": ev.get("source"), "ifname": ev.get("ifname"),
             "hw_irqs": ev.get("link"), "irq_lines": ev.get("link_lines"),
             "net_rx_softirqs": ev.get("net_rx_softirqs"),
             "all_interrupts": ev.get("all")}
    else:
        src = r.get("hw_irqs_source") or ""
        c = {"source": "the receiver's deltas (%s)" % (src or "?"),
             "ifname": r.get("ifname"),
             "hw_irqs": round((r.get("hw_irqs_per_packet") or 0)
                              * (r.get("received") or 0)),
             "irq_lines": 0 if src.startswith(("no irq line", "none"))
             else None,
             "net_rx_softirqs": r.get("kernel_net_rx_softirqs"),
             "all_interrupts": r.get("kernel_interrupts")}
    hw = c["hw_irqs"] or 0
    c["verdict"] = "hardware IRQs" if hw > 0 else "softirqs only" \
        if (c["net_rx_softirqs"] or 0) > 0 else "none"
    nrx = "-" if c["net_rx_softirqs"] is None else \
        f2(c["net_rx_softirqs"] / sent)
    tail = "IRQs %s/pkt)" % f2(hw / sent) if hw > 0 else \
        "no IRQ line)" if c["irq_lines"] == 0 else "IRQs 0)"
    c["text"] = "%s (NET_RX %s/pkt, %s" % (c["verdict"], nrx, tail)
    return c


def transport_cell(r):
    """Who does the transport, by design, with the kernel's UDP counters
    of the receiver's namespace as the evidence."""
    vm = (r.get("env") or "").startswith("vm")
    label = TRANSPORT.get(r.get("path"), "not known")
    if label == "the NIC" and vm:
        label += "; here Soft-RoCE, rxe in the guest kernel"
    n_in = r.get("kernel_udp_in_datagrams") or 0
    n_np = r.get("kernel_udp_no_ports") or 0
    return {"verdict": label, "by_design": True, "udp_in_datagrams": n_in,
            "udp_no_ports": n_np, "kernel_udp_ran": n_in > 0,
            "text": "%s (by design; Udp InDatagrams +%d%s)" % (
                label, n_in, ", NoPorts +%d" % n_np if n_np > 0 else "")}


def build(results, modes):
    """results.json and the path table's MODES to tradeoffs.json."""
    vis = [r for r in results.get("runs", [])
           if r.get("workload") == "visibility"
           and (r.get("gpu") or "none") == "none" and not r.get("reference")]
    rows = []
    for m in modes:
        rs = sorted([r for r in vis if r.get("path") == m["path"]
                     and r.get("mode") == m["mode"]],
                    key=lambda r: (r.get("frame_bytes") or 0,
                                   r.get("trial") or 0))
        if not rs:
            why = ("not built" if not m["built"] else "not selected"
                   if not m["selected"] else "no visibility run in"
                   " results.json: failed or skipped, see raw/")
            rows.append({"path": m["path"], "mode": m["mode"],
                         "runner": m["runner"], "status": "not run",
                         "reason": why})
            continue
        for r in rs:
            rows.append({k: r.get(k) for k in ("path", "mode", "frame_bytes",
                                               "env", "sent", "received")})
            rows[-1].update(runner=m["runner"], status="measured",
                            tcpdump=tcpdump_cell(r),
                            netfilter=netfilter_cell(r), ss=ss_cell(r),
                            copies=copies_cell(r), interrupts=irq_cell(r),
                            transport=transport_cell(r))
    return {"pathlab_tradeoffs": 1, "host": results.get("host"),
            "workload": "visibility", "rows": rows, "notes": NOTES}


def render(t):
    """tradeoffs.json to the text table and its footnotes (lines)."""
    head = ["path", "mode", "frame", "tcpdump", "netfilter", "ss",
            "copies/pkt", "interrupts", "transport"]
    cells = []
    for r in t["rows"]:
        if r["status"] == "measured":
            cells.append([safe(r["path"], 0), safe(r["mode"], 0),
                          "%s B" % r["frame_bytes"]] + [
                safe(r[k]["text"], 0) for k in ("tcpdump", "netfilter", "ss",
                                                "copies", "interrupts",
                                                "transport")])
        else:
            cells.append([safe(r["path"], 0), safe(r["mode"], 0),
                          "not run (%s)" % r["reason"]])
    w = [max([len(head[i])] + [len(c[i]) for c in cells
                               if len(c) > i and (len(c) > 3 or i < 2)])
         for i in range(len(head))]

    def line(c):
        return "  ".join(x.ljust(w[i]) for i, x in enumerate(c)).rstrip()
    h = t.get("host") or {}
    return (["Trade-offs, measured: the visibility workload of each path"
             " (kernel %s, %s CPUs, %s)" % (safe(h.get("kernel", "?")),
                                           safe(h.get("cpus", "?")),
                                           safe(h.get("virtualization", "?"))),
             "", line(head)] + [line(c) for c in cells] + [""]
            + ["%s: %s." % kv for kv in t["notes"].items()])


def main(argv):
    """The command (see the top of the file)."""
    import argparse
    ap = argparse.ArgumentParser(prog="plab tradeoffs")
    ap.add_argument("--modes", default="[]")
    ap.add_argument("--format", choices=("json", "text"), default="json")
    ap.add_argument("file")
    a = ap.parse_args(argv)
    src = sys.stdin if a.file == "-" else open(a.file)
    with src:
        obj = json.load(src)
    if a.format == "json":
        print(json.dumps(build(obj, json.loads(a.modes)), indent=2))
    else:
        print("\n".join(render(obj)))
    return 0
