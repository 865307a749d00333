"""emulated.py - which rows ran on an emulated CPU, and what that means.

The verbs rows of the lab run in the Soft-RoCE VM (labs/rdma-vm). Where
the host has no vmx/svm, qemu runs that VM under TCG: every guest
instruction is emulated, so the guest's cycles are neither the host's
nor a NIC's. Such runs carry comparable_with_host false (and vm: accel,
cpus, kernel); tables, plots, the figure and the decks show them apart
from the host rows and leave them out of any cheapest or fastest
reading. Under KVM the guest's code runs on the host's CPU: those rows
stand beside the others, labelled software RDMA.

Results made before the VM said how it ran have env vm-softroce and no
vm object: they came from TCG (the only accelerator the lab's machines
had), so they read as not comparable, accelerator not recorded.
"""

from .text import safe

MARK = "emulated CPU: not comparable with the host rows"
SOFTWARE = "software RDMA"


def vm_of(x):
    """The vm object of a run or summary entry, or None."""
    v = x.get("vm")
    return v if isinstance(v, dict) else None


def in_vm(x):
    """True for a run (or entry) made in the Soft-RoCE VM."""
    return vm_of(x) is not None or str(x.get("env") or "").startswith(
        "vm-softroce")


def comparable(x):
    """Can the CPU figures of run (or entry) X stand beside the host's?"""
    c = x.get("comparable_with_host")
    if isinstance(c, bool):
        return c
    return not in_vm(x)


def accel(x):
    """'tcg', 'kvm', or None when not recorded (or not in a VM)."""
    v = vm_of(x) or {}
    return v.get("accel") if v.get("accel") in ("tcg", "kvm") else None


def how(x):
    """How the VM of X ran, in a few words: 'tcg, 2 vCPUs'; '' outside
    the VM."""
    if not in_vm(x):
        return ""
    v = vm_of(x) or {}
    a = accel(x) or "accel not recorded"
    cpus = v.get("cpus")
    return a + (", %s vCPUs" % safe(cpus, 4) if cpus else "")


def env_text(x, width=40):
    """The env cell of a run or entry: 'vm-softroce (tcg, 2 vCPUs)'."""
    env = safe(x.get("env"), width)
    h = how(x)
    return "%s (%s)" % (env, h) if h else env


def run_fields(run, vm):
    """Give a verbs run made in the VM its vm object (VM: how the VM ran,
    merged under what the run measured itself) and comparable_with_host."""
    own = vm_of(run) or {}
    run["vm"] = dict(vm or {}, **own)
    run["comparable_with_host"] = run["vm"].get("accel") == "kvm"
    return run


def meaning(vm):
    """The one line compare prints before the verbs rows: what the way
    the VM ran means for their figures."""
    a = (vm or {}).get("accel")
    cpus = (vm or {}).get("cpus")
    n = " with %s vCPUs" % safe(cpus, 4) if cpus else ""
    if a == "kvm":
        return ("verbs rows: Soft-RoCE in a KVM guest%s: %s, its transport"
                " (rdma_rxe) run by the guest's kernel on the host's CPU,"
                " beside the host rows; a hardware RNIC runs the transport"
                " on the NIC" % (n, SOFTWARE))
    under = "under TCG" if a == "tcg" else \
        "(accelerator not recorded: TCG on the lab's machines)"
    return ("verbs rows: Soft-RoCE in a qemu guest %s%s, every guest"
            " instruction emulated: their cycles and rates are the"
            " emulator's, %s; read each against its perftest row in the"
            " same VM (the ratio), not against the other paths"
            % (under, n, MARK))


def split(items, key=lambda x: x):
    """(host-comparable items, emulated items) of ITEMS, order kept."""
    a = [i for i in items if comparable(key(i))]
    return a, [i for i in items if not comparable(key(i))]
