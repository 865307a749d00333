"""hosts.py - `pathlab compare` on two real hosts: the receivers on a real
interface of this machine (--iface IF, or --pci ADDR for DPDK), the
generator on a second machine (--sender HOST over ssh, --sender ns:NAME,
a namespace standing in for one, or --sender-print: the exact command to
type there). Without these options nothing here changes what compare
does. The safety rules, checked before anything runs (exit 2): never the
interface of a default route (the one this machine is reached through),
never loopback, never a PCI device DPDK would have to take from a kernel
driver (pathlab binds nothing), never a ConnectX (mlx5, bifurcated) on
vfio-pci. PATHLAB_SYSFS (default /sys) is where PCI devices are looked
up, so that the tests can give it a tree of their own.
"""

import glob
import json
import os
import re

from . import paths, verbs_host
from .util import ROOT, Usage, cmd

PCI_MAC = "02:70:6c:00:00:02"
IFNAME = re.compile(r"[A-Za-z0-9_.:@-]{1,15}")


def sysfs():
    """Where the PCI devices are looked up."""
    return os.environ.get("PATHLAB_SYSFS") or "/sys"


def default_route_ifs():
    """The interfaces that carry a default route, IPv4 or IPv6, any table."""
    out = set()
    for fam in ("-4", "-6"):
        r = cmd(["ip", "-j", fam, "route", "show", "default", "table", "all"],
                fail=False)
        try:
            for rt in json.loads(r.stdout or "[]"):
                if rt.get("dev"):
                    out.add(rt["dev"])
                for nh in rt.get("nexthops") or []:
                    if nh.get("dev"):
                        out.add(nh["dev"])
        except ValueError:
            pass
    return out


def link(ifn):
    """The `ip -j -d link` object of IFN, or None."""
    r = cmd(["ip", "-j", "-d", "link", "show", "dev", ifn], fail=False)
    try:
        return json.loads(r.stdout)[0] if r.ret == 0 else None
    except (ValueError, IndexError):
        return None


def ipv4_of(ifn):
    """The first IPv4 address of IFN, or ""."""
    r = cmd(["ip", "-j", "-4", "addr", "show", "dev", ifn], fail=False)
    try:
        for a in json.loads(r.stdout or "[]")[0].get("addr_info", []):
            if a.get("family") == "inet":
                return a["local"]
    except (ValueError, IndexError):
        pass
    return ""


def check_iface(h, ifn):
    """Check --iface IFN: it exists, not loopback, not the management
    interface, up, with an IPv4 address; set h.rx_addr and h.rx_mac."""
    if not IFNAME.fullmatch(ifn) or ifn.startswith("-"):
        raise Usage("--iface '%s': not an interface name" % ifn)
    j = link(ifn)
    if j is None:
        raise Usage("--iface %s: no such interface in this network namespace"
                    " (ip link)" % ifn)
    if j.get("link_type") == "loopback" or "LOOPBACK" in j.get("flags", []):
        raise Usage("--iface %s: loopback: nothing on it crosses a wire; give"
                    " the NIC cabled to the sender" % ifn)
    if ifn in default_route_ifs():
        raise Usage("--iface %s: refused: it carries this machine's default"
                    " route (the management interface); an XDP program,"
                    " AF_XDP socket or DPDK port there could cut you off: use"
                    " a second port" % ifn)
    if "UP" not in j.get("flags", []):
        raise Usage("--iface %s: the interface is down (ip link set dev %s"
                    " up)" % (ifn, ifn))
    h.rx_addr = ipv4_of(ifn)
    if not h.rx_addr:
        raise Usage("--iface %s: no IPv4 address: the sender needs one to"
                    " send to (ip addr add 198.18.0.2/30 dev %s)" % (ifn, ifn))
    h.rx_mac = j.get("address", "")


def pci_netdevs(pci):
    """The kernel interfaces of PCI device PCI (virtio one level down)."""
    d = os.path.join(sysfs(), "bus/pci/devices", pci)
    out = []
    for sub in ("net", "virtio*/net"):
        for n in sorted(glob.glob(os.path.join(d, sub, "*"))):
            out.append(os.path.basename(n))
    return out


def pci_driver(pci):
    """The kernel driver PCI is bound to, or ""."""
    link_ = os.path.join(sysfs(), "bus/pci/devices", pci, "driver")
    return os.path.basename(os.readlink(link_)) if os.path.islink(link_) \
        else ""


def bifurcated(drv, vendor):
    """True if DPDK's PMD runs on top of DRV (labs/doctor/drivers.txt), or
    the vendor is Mellanox/NVIDIA (0x15b3)."""
    if vendor == "0x15b3":
        return True
    try:
        with open(os.path.join(ROOT, "labs/doctor/drivers.txt")) as f:
            return any(l.split()[0] == drv and len(l.split()) > 3
                       and l.split()[3] == "bifurcated"
                       for l in f if l.strip() and not l.startswith("#"))
    except OSError:
        return False


def check_pci(h, pci):
    """Check --pci PCI: it exists, is not the management interface, and
    DPDK can use it as it is bound now."""
    if not re.fullmatch(r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\."
                        r"[0-7]", pci):
        raise Usage("--pci '%s': give the full PCI address, e.g."
                    " 0000:3b:00.0 (lspci -D)" % pci)
    d = os.path.join(sysfs(), "bus/pci/devices", pci)
    if not os.path.exists(d):
        raise Usage("--pci %s: no such PCI device (lspci -D)" % pci)
    mgmt = default_route_ifs()
    for nd in pci_netdevs(pci):
        if nd in mgmt:
            raise Usage("--pci %s: refused: it is %s, the interface of this"
                        " machine's default route (the management"
                        " interface); use a second port" % (pci, nd))
    drv = pci_driver(pci)
    try:
        with open(os.path.join(d, "vendor")) as f:
            vendor = f.read().strip()
    except OSError:
        vendor = ""
    if not drv:
        raise Usage("--pci %s: no driver is bound to it; DPDK needs vfio-pci"
                    " (or, for a ConnectX, mlx5_core); pathlab binds no"
                    " driver" % pci)
    if drv in ("vfio-pci", "uio_pci_generic", "igb_uio"):
        if bifurcated("", vendor):
            raise Usage("--pci %s: refused: a ConnectX (mlx5) is bifurcated:"
                        " DPDK's mlx5 PMD drives it through mlx5_core and"
                        " cannot on %s; bind it back to mlx5_core, never to"
                        " vfio-pci" % (pci, drv))
        h.pci_kind = "bound"
    elif bifurcated(drv, vendor):
        h.pci_kind = "bifurcated"
    else:
        raise Usage("--pci %s: on its kernel driver %s, DPDK cannot drive it;"
                    " pathlab binds no driver: if it is not how this machine"
                    " is reached, bind it yourself (dpdk-devbind.py"
                    " --bind=vfio-pci %s), or use --iface on its interface"
                    " (the af_xdp and af_packet vdevs)" % (pci, drv, pci))
    h.pci_driver = drv
    nds = pci_netdevs(pci)
    h.rx_netdev = nds[0] if nds else ""


def pci_addr(h, o):
    """The receiver's address with --pci: its interface's, else --rx-addr."""
    nd = h.rx_netdev
    if o.iface:
        if nd != o.iface:
            raise Usage("--iface %s and --pci %s are two ports: the sender"
                        " sends to one address; give the port's own interface"
                        " (%s) or one of the two"
                        % (o.iface, o.pci, nd or "it has none"))
        if o.rx_addr:
            raise Usage("--rx-addr: the address is %s's (%s)"
                        % (o.iface, h.rx_addr))
        return
    if nd and link(nd) is not None:
        if o.rx_addr:
            raise Usage("--rx-addr: --pci %s has interface %s: its address is"
                        " used" % (o.pci, nd))
        check_iface(h, nd)
        return
    if not re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,3}){3}", o.rx_addr or ""):
        raise Usage("--pci %s has no kernel interface here: give --rx-addr"
                    " ADDR, the IPv4 address the sender routes out of its"
                    " port" % o.pci)
    h.rx_addr = o.rx_addr
    h.rx_mac = PCI_MAC


def check_paths(o, built):
    """Keep only the paths that can run on a real interface; refuse an
    explicit one that cannot (verbs needs an RDMA device on --iface)."""
    if not o.explicit and not o.paths:
        return  # nothing built yet: compare checks again after the build
    sel = []
    for p in o.paths:
        why = ""
        if paths.first(p).runner != "netns":
            if not o.iface:
                why = "takes an interface: --pci is for the dpdk path alone" \
                      " (add --iface IF)"
            else:
                end, why_not = verbs_host.netdev_end(o.iface,
                                                     o.hosts.rx_addr)
                if end is None:
                    why = "needs an RDMA device on --iface %s: %s" % (
                        o.iface, why_not)
        elif not o.iface and p != "dpdk":
            why = "takes an interface: --pci is for the dpdk path alone" \
                  " (add --iface IF)"
        if not why:
            sel.append(p)
        elif o.explicit:
            raise Usage("--paths %s: path %s %s" % (p, p, why))
    if o.pci and "dpdk" not in sel:
        raise Usage("--pci is for the dpdk path, which is %s"
                    % ("not in --paths" if built("dpdk") else "not built"))
    if not sel:
        raise Usage("no path can run on %s" % o.iface)
    o.paths = sel


def check_lab_only(o):
    """In the lab, refuse the options that only mean something on two
    hosts."""
    named = None
    for opt, v in (("--sender %s" % o.sender, o.sender not in (None, "local")),
                   ("--sender-print", o.sender_print),
                   ("--sender-gen", o.sender_gen is not None),
                   ("--sender-if", o.sender_if),
                   ("--sender-cpu", o.sender_cpu),
                   ("--rx-addr", o.rx_addr),
                   ("--sender-verbs", o.sender_verbs)):
        if v:
            named = opt
    if named:
        raise Usage("%s is for two hosts: give --iface IF or --pci ADDR"
                    % named)


def hw_stamps_ok(ifn):
    """True if IFN stamps every received frame in hardware with a clock of
    its own (ethtool -T)."""
    r = cmd(["ethtool", "-T", ifn], fail=False)
    t = r.stdout
    if r.ret != 0 or "hardware-receive" not in t or \
            "hardware-raw-clock" not in t or "PTP Hardware Clock: none" in t:
        return False
    filt = t.split("Hardware Receive Filter Modes", 1)[-1].splitlines()[1:]
    return any(l.startswith("\t") and l.split()[:1] == ["all"]
               for l in filt)


def env_label(o, ifn):
    """The env label of runs on IFN: veth, nic or the driver's name."""
    from . import lab  # lab imports nothing of ours: no cycle
    vm = "-vm" if lab.hypervisor() else ""
    drv = ""
    for line in cmd(["ethtool", "-i", ifn], fail=False).stdout.splitlines():
        if line.startswith("driver:"):
            drv = line.split()[1] if len(line.split()) > 1 else ""
    if drv == "veth":
        return "veth" + vm
    if os.path.exists("/sys/class/net/%s/device" % ifn) or o.pci:
        return "nic" + vm
    return (drv or "unknown") + vm


def check(o, built):
    """Check the two-host options (Usage, exit 2); nothing has changed
    anywhere before this has passed. The Hosts found, or None in the lab."""
    if o.lab():
        check_lab_only(o)
        return None
    if os.environ.get("PATHLAB_QUEUES"):
        raise Usage("PATHLAB_QUEUES shapes the lab's veth; a NIC's queues are"
                    " its own (ethtool -L)")
    if o.sender_if and not IFNAME.fullmatch(o.sender_if):
        raise Usage("--sender-if '%s': not an interface name" % o.sender_if)
    if o.sender_gen == "":
        raise Usage("--sender-gen: empty")
    if o.sender_cpu and not re.fullmatch(r"[0-9]{1,4}", o.sender_cpu):
        raise Usage("--sender-cpu '%s': a CPU number" % o.sender_cpu)
    from .sender import Hosts, check_sender
    h = Hosts()
    o.hosts = h
    if o.iface:
        check_iface(h, o.iface)
    if o.pci:
        check_pci(h, o.pci)
        pci_addr(h, o)
    elif o.rx_addr:
        raise Usage("--rx-addr is for --pci ports without a kernel interface")
    check_paths(o, built)
    check_sender(o, h)
    return h
