"""lab.py - the lab topology as compare sees it: two network namespaces
and a veth pair, built and torn down by labs/lib/topo.sh (ip, ethtool,
nsenter stay in shell). A Lab object brings the topology up, remembers
whether it built it, and takes it down again when compare ends, as the
selftests' NetNS objects remove themselves. Commands run in a namespace
through nsenter, a private mount namespace and labs/lib/nsrun.sh (a sysfs
of that namespace, bpffs kept), exactly as topo.sh's ns_exec does.
"""

import os
import platform
import subprocess
import time

from . import stats
from .util import JOURNAL, LIB, Fail, cmd, lib_call

TX_IF, RX_IF = "pl-tx0", "pl-rx0"
TX_ADDR, RX_ADDR = "198.18.0.1", "198.18.0.2"
TX_MAC, RX_MAC = "02:70:6c:00:00:01", "02:70:6c:00:00:02"
NETNS_DIR = "/run/netns"
UDP_PORT = 9000


def lib_run(script, func, *args):
    """Call FUNC of shell library SCRIPT with our stdout and stderr (its
    progress shows as it comes); its exit status."""
    return subprocess.run(["bash", "-c", '. "$1" && shift && "$@"', "plab",
                           os.path.join(LIB, script), func] + list(args)
                          ).returncode


def prefix():
    """The lab prefix (PATHLAB_PREFIX, default pathlab)."""
    return os.environ.get("PATHLAB_PREFIX") or "pathlab"


def ns_name(role):
    """The namespace of ROLE (tx or rx) for this lab's prefix."""
    return "%s-%s" % (prefix(), role)


def in_ns(role, argv):
    """ARGV as a command that runs in namespace ROLE (tx, rx or a name)."""
    ns = ns_name(role) if role in ("tx", "rx") else role
    return ["nsenter", "--net=%s/%s" % (NETNS_DIR, ns), "unshare", "--mount",
            "--propagation", "private", "--", "bash",
            os.path.join(LIB, "nsrun.sh")] + list(argv)


def ns_exists(name):
    """True if network namespace NAME exists."""
    return bool(name) and os.path.exists(os.path.join(NETNS_DIR, name))


class Lab:
    """The lab topology; down() undoes what up() built (and only that)."""

    def __init__(self):
        self.built = False

    def up(self):
        """Bring the lab up; remember if this run built it: only a lab
        that was down (status 1) is ours to tear down. A partial one is
        someone else's: topo_up repairs it, or leaves it alone while
        processes run in it."""
        if lib_call("topo.sh", "topo_status", fail=False).ret == 1:
            self.built = True
            JOURNAL.note("topo " + prefix())
        r = lib_call("topo.sh", "topo_up", fail=False)
        if r.ret != 0:
            raise Fail("the lab did not come up: %s"
                       % (r.stderr.strip() or r.stdout.strip()))

    def down(self):
        """Tear the lab down if this run built it."""
        if self.built:
            self.built = False
            r = lib_call("topo.sh", "topo_down", fail=False)
            if r.ret != 0:
                raise Fail("taking the lab down failed: %s" % r.stderr.strip())


def rx_cpu():
    """The receive core (topo.sh's topo_rx_cpu)."""
    return int(lib_call("topo.sh", "topo_rx_cpu").stdout.strip())


def napi_pids():
    """The lab's NAPI thread PIDs (veth's receive work)."""
    out = lib_call("topo.sh", "topo_napi_pids", fail=False).stdout
    return [int(p) for p in out.split()]


def hypervisor():
    """True under a hypervisor (the hypervisor CPU flag)."""
    with open("/proc/cpuinfo") as f:
        return any(l.startswith("flags") and " hypervisor" in l
                   for l in f)


def env_label(queues):
    """The env label of lab runs: veth-napi (one queue: the receive work
    in NAPI threads on the receive core) or veth, '-vm' in a VM."""
    label = "veth-napi" if queues == 1 else "veth"
    return label + "-vm" if hypervisor() else label


def host_info():
    """The host object of results.json (tsc_hz is filled in later)."""
    virt = cmd(["systemd-detect-virt"], fail=False).stdout.strip() \
        if os.path.exists("/usr/bin/systemd-detect-virt") else ""
    if not virt or virt == "none":
        virt = "vm" if hypervisor() else "none"
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"hostname": platform.node(), "kernel": platform.release(),
            "cpu_model": model, "cpus": os.cpu_count(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "virtualization": virt, "tsc_hz": None,
            "loadavg_start": stats.loadavg()}


def dpdk_sweep():
    """Remove the runtime folders of DPDK receivers that were killed."""
    lib_call("proc.sh", "pl_dpdk_sweep", fail=False)
