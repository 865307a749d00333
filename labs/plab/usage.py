"""usage.py - the text of `pathlab compare --help`."""

from . import options, paths

TEXT = """\
usage: pathlab compare [--paths LIST] [--sizes LIST] [--count N]
                       [--trials N|WL=N,...] [--references]
                       [--gpu none|sim|cuda] [--out DIR] [--quick]
                       [--workloads LIST] [--queues N] [--tradeoffs]
                       [--verbs-on host|vm|auto] [--napi LIST]

  --paths LIST   comma-separated, from: {ids}
                 (default: every path that is built)
  --sizes LIST   Ethernet frame sizes incl. FCS, 64..1518 (default 64,1024)
  --count N      packets of the throughput workload (default {n_thr})
  --trials N     trials of the throughput and latency workloads (default
                 {t_thr}; visibility and rtt once); WL=N,... sets one
                 workload's (rtt=3). Each round runs every path in turn
                 (A B C, A B C ...); every trial is kept in results.json
                 and each figure is summarized as median (min-max). Rows
                 whose ranges overlap on a figure are marked not
                 distinguishable on it; a run made while the machine was
                 busy (load above the CPU count, steal above 10 %) says so
  --references   add the reference tools as rows, fed by the same
                 generator in the same trials: sockperf (socket),
                 dpdk-testpmd rxonly on net_af_xdp and net_af_packet (DPDK,
                 AF_XDP), the kernel's later drop points beside xdp drop
                 (XDP in skb mode, a tc clsact BPF drop, nft's prerouting
                 raw drop), ib_send_bw / ib_send_lat in the VM (verbs);
                 each with the ratio ours/reference and whether ranges
                 separate. The VM's verbs rows have theirs without it: on
                 software RDMA (emulated under TCG) the ratio is the figure
                 to read
  --napi LIST    where veth's NAPI (the kernel's receive work) runs, each
                 placement a row of its own in every round: rx-core (a
                 thread on the receiver's core), other-core (on the
                 sender's), busy-poll (the receiver's own calls run it;
                 AF_XDP and DPDK af_xdp, where the kernel lets them).
                 Default: each path's own (socket, xdp: rx-core; afxdp,
                 dpdk: other-core). Every run reports where it ran and how
                 long the receiver and NAPI waited for a CPU; above 10 %
                 of the run it is marked contended
  --gpu KIND     none (default), sim or cuda
  --out DIR      where results.json and raw/ go
                 (default results/YYYYmmdd-HHMMSS, linked as results/latest)
  --quick        small counts ({quick}) and one trial, for tests
  --queues N     receive on N queues, one pinned thread (lcore, QP) each,
                 fed by N sender threads (1..16, default 1); the lab's veth
                 gets N queues. Paths that cannot are skipped, saying so
  --workloads L  comma-separated, from: {wls}
                 (default: all; rtt: the receiver reflects, pathlab-gen
                 --pingpong times whole round trips)
  --tradeoffs    the visibility workload only, measured for the trade-off
                 table (tcpdump, netfilter, ss, copies, interrupts,
                 transport): OUT/tradeoffs.json and tradeoffs.txt
  --verbs-on W   where the verbs rows run: host (this machine's RDMA devices,
                 direct), vm (the Soft-RoCE VM, software RDMA) or auto
                 (default: host when /sys/class/infiniband has a device with
                 an active RoCE port and an IPv4 RoCE v2 GID, else vm).
                 On the host: one port serves both ends (the NIC loops the
                 traffic back, env nic-loopback), two ports carry receiver
                 and sender (env nic); PATHLAB_VERBS_RX / PATHLAB_VERBS_TX
                 (DEV or DEV:PORT) choose. VM rows: env vm-softroce.
                 With --iface (two hosts) none of this: see --sender-verbs

Two hosts (labs/06-two-hosts.md): receivers on a real NIC here, the
generator on another machine. No lab namespaces are built.
  --iface IF        receive on IF (its IPv4 address is the destination);
                    refused for loopback and the default route's interface
  --pci ADDR        DPDK only: the port by PCI address (0000:3b:00.0); it
                    must already be usable: on vfio-pci, or a ConnectX on
                    mlx5_core (bifurcated); pathlab binds no driver
  --rx-addr ADDR    with --pci of a port that has no kernel interface: the
                    IPv4 address the sender sends to
  --sender HOST     run pathlab-gen (and the verbs path's sender) there:
                    ssh HOST (BatchMode, keys only)
  --sender-print    print the generator's command for each run, to be run
                    by hand on the sender; wait for it (PATHLAB_SENDER_WAIT
                    s, default 600)
  --sender-gen PATH pathlab-gen on the sender (default: pathlab-gen in PATH)
  --sender-verbs PATH  pathlab-tx-verbs on the sender, for the verbs path
                    (default: next to --sender-gen's, BUILD/rdma/, else in
                    PATH); the receiver runs here on the RDMA device whose
                    RoCE v2 GID holds IF's address, the sender picks its own
  --sender-if IF    the sender's interface: its counters, and a static
                    neighbour entry there for the receiver (removed after)
  --sender-cpu N    pin the generator (and pathlab-tx-verbs) to CPU N of
                    the sender
  --check           check the options, the safety rules and the sender;
                    print the plan and run nothing"""


def text():
    """The usage text."""
    q = options.QUICK
    return TEXT.format(
        ids=",".join(paths.ids()), n_thr=options.COUNTS["throughput"],
        t_thr=options.TRIALS["throughput"],
        quick="/".join(str(q[w]) for w in paths.WORKLOADS),
        wls=",".join(paths.WORKLOADS))
