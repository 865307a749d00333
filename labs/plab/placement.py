"""placement.py - where the kernel's receive work runs in a run: the lab's
choice, made per run (compare --napi, pathlab rx --napi) and reported by
the receiver itself (run.placement, run.run_delay, run.contended).

  rx-core     veth's NAPI thread on the receive core, beside the receiver:
              what a NIC's softirq on the interrupted core is to a
              receiver that sleeps (the socket path's default)
  other-core  the NAPI thread on another CPU (the sender's, on two CPUs):
              for a poller that never sleeps, so the two do not take turns
              on one core (AF_XDP and DPDK here: see busy-poll)
  busy-poll   preferred busy polling: the link defers to the receiver's
              own calls, which run NAPI on its core. Linux 6.13 and later
              give an AF_XDP socket the NAPI id it polls only in zero-copy
              mode, which veth cannot do: here the receiver reports its
              busy polls as idle, a measured lesson rather than a default

labs/lib/paths.tsv lists what each path supports, its default first;
labs/lib/topo.sh topo_napi_place makes the change.
"""

from .util import Usage, lib_call

ALL = ("rx-core", "other-core", "busy-poll")


def parse(text):
    """--napi's comma list, checked: the placements in the order given."""
    out = []
    for p in text.split(","):
        if p not in ALL:
            raise Usage("--napi '%s': unknown placement '%s' (known: %s)"
                        % (text, p, ", ".join(ALL)))
        if p not in out:
            out.append(p)
    return out


def of(spec):
    """The placement SPEC runs in: its variant's, else its row's default;
    None for a row off the lab's veth (the VM's)."""
    v = spec.variant
    if v is not None and getattr(v, "placement", None):
        return v.placement
    return spec.row.placements[0] if spec.row.placements else None


def rx_args(p):
    """The receiver flags placement P needs."""
    return ["--busy-poll"] if p == "busy-poll" else []


class Placer:
    """Moves the lab's receive work between runs, only when it changes,
    and puts it back where the topology keeps it (rx-core) at the end."""

    def __init__(self):
        self.now = None

    def ensure(self, p):
        """Place the lab's receive work as P (a no-op if it is so)."""
        if p is None or p == self.now:
            return
        lib_call("topo.sh", "topo_napi_place", p)
        self.now = p

    def restore(self):
        """Back to the topology's own placement, if it was changed."""
        if self.now not in (None, "rx-core"):
            lib_call("topo.sh", "topo_napi_place", "rx-core", fail=False)
        self.now = None
