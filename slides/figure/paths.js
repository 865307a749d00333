/*
 * paths.js - the data of the figure "Four paths, one figure": the bands,
 * the steps of each path (with and without GPUDirect) and what each path
 * gives up. figure.js draws it; nothing here draws.
 *
 * A step:
 *   band    where it runs: "user", "kernel", "nic" or "gpu"
 *   once    true: setup done once (a dashed box); else per packet (solid)
 *   label   the box text, at most two short lines ("\n")
 *   title   the full name; text: what happens and why it matters
 *   code    the calls that do it, where there are some
 *   trace   the step's name in `pathlab-rx-<path> --trace N` output, with
 *           example: values from one traced run on veth
 *   mark    "syscall" or "copy": a badge on the box (a system call made
 *           here, a CPU copy of the payload made here)
 *   into    the arrow from the previous step: "dma" (a device writes
 *           memory), "pcie" (bytes cross PCIe to the GPU), "copy" (the
 *           CPU copied the bytes), "syscall" (user enters the kernel),
 *           "wake" (the kernel wakes the thread), "ring" (a descriptor on
 *           a shared ring), "flow" (then, same bytes), "ctl" (control
 *           only, the payload does not move); intoLabel overrides its text
 *   stays   a hop to the GPU that GPUDirect cannot remove on this path
 *   measure measured figures shown with the step, keys of figure.js's
 *           METRICS (pps, p99, cycles_rx, cycles_sys, syscalls, copies,
 *           wakeups, softirqs, tcpdump, noports, pcie)
 *
 * A path: id (as in results.json), mode (the mode its steps show, and the
 * measured runs shown first), name, shape and colour (its marker), column
 * (of the table below), blurb, lab (how this lab differs), steps, gpu.
 *
 * A path's gpu object is the GPUDirect view: direct (true: the NIC writes
 * GPU memory; false: it cannot on this path; null: nothing to deliver),
 * verdict (one honest sentence), steps, and removedAt: the index of the
 * step where the NIC writes GPU memory, beside which the figure draws the
 * host-memory hop that GPUDirect removes.
 */
"use strict";

(function () {
	/* A copy of step s with some fields changed. */
	function alt(s, changes) {
		var r = {}, k;
		for (k in s)
			r[k] = s[k];
		for (k in changes)
			r[k] = changes[k];
		return r;
	}

	var ring = {
		band: "kernel", once: true, label: "driver fills\nRX ring",
		title: "The driver fills the NIC's RX ring",
		text: "When the interface comes up, the driver allocates packet " +
			"buffers in kernel memory and writes their DMA addresses " +
			"into the NIC's receive descriptor ring. Setup the kernel " +
			"does once; it refills the ring as packets are consumed."
	};
	var wireDma = {
		band: "nic", label: "DMA frame\ninto RX ring",
		title: "The NIC writes the frame into a ring buffer (DMA)",
		text: "The NIC DMAs the frame into the next buffer of its RX " +
			"ring in host memory, then raises an interrupt. NAPI turns " +
			"further interrupts off while the kernel polls the ring.",
		measure: ["pps"]
	};
	var gpuCheck = {
		band: "gpu", label: "GPU kernel\nchecks", into: "ctl",
		title: "A GPU kernel checks the packets",
		text: "The consumer runs on the GPU and checks each packet where " +
			"it is (pathlab's check: header, sequence, pattern).",
		code: "one kernel launch per batch",
		measure: ["gpu_verified"]
	};

	/* 1. The kernel socket stack. */
	var sock = {};
	sock.setup = [
		ring,
		{ band: "user", once: true, mark: "syscall", label: "socket()",
		  title: "socket(AF_INET, SOCK_DGRAM)",
		  trace: "socket(AF_INET, DGRAM)", example: "fd=3",
		  text: "The process asks the kernel for a UDP socket: a " +
			"receive queue in the kernel and a file descriptor." },
		{ band: "kernel", once: true, into: "syscall",
		  label: "SO_RCVBUF,\nRX stamps",
		  title: "Receive queue size and software RX stamps",
		  trace: "SO_RCVBUF granted", example: "bytes=212992",
		  text: "The kernel grants the socket's receive queue (bytes " +
			"of packets it may hold before it drops) and turns on " +
			"software RX timestamps (SO_TIMESTAMPING)." },
		{ band: "user", once: true, mark: "syscall", into: "flow",
		  label: "bind()", title: "bind() to the UDP port",
		  trace: "bind()", example: "port=9000",
		  text: "From now on the stack queues datagrams for this port " +
			"on this socket." },
		{ band: "user", once: true, into: "flow",
		  label: "buffers\nfor a batch", title: "User buffers for a batch",
		  trace: "buffers for a batch", example: "batch=64 bytes=131072",
		  text: "recvmmsg() fills up to 64 user buffers per call: one " +
			"system call can return many datagrams." }
	];
	sock.packet = [
		wireDma,
		{ band: "kernel", into: "dma", label: "IRQ, NAPI:\nbuild skb",
		  title: "Interrupt, NAPI poll: build an skb",
		  text: "The driver's NAPI poll runs in softirq context and " +
			"wraps the buffer in an skb, the kernel's packet " +
			"descriptor.",
		  measure: ["softirqs"] },
		{ band: "kernel", into: "flow", label: "softirq: IP,\nUDP, queue",
		  title: "softirq: IP, UDP, socket queue",
		  trace: "softirq: IP, UDP, socket queue",
		  example: "after_tx_ns=2214",
		  text: "IP and UDP checks, the port lookup, then the skb is " +
			"appended to the socket's receive queue and the waiting " +
			"thread is woken. On veth this work runs on the sender's " +
			"CPU: only the all-CPU figures see it.",
		  measure: ["cycles_sys"] },
		{ band: "user", into: "wake", mark: "syscall",
		  label: "recvmmsg()", title: "recvmmsg(): a system call",
		  trace: "recvmmsg()", example: "call=5 returned=1",
		  text: "The woken thread enters the kernel: one user/kernel " +
			"crossing per call, shared by the datagrams it returns.",
		  measure: ["syscalls", "wakeups"] },
		{ band: "kernel", into: "syscall", mark: "copy",
		  label: "copy skb to\nuser buffer",
		  title: "copy skb -> user buffer",
		  trace: "copy skb -> user buffer", example: "len=18",
		  text: "Inside the call the kernel copies each payload from " +
			"its skb into the user's buffer and frees the skb: the " +
			"path's one CPU copy.",
		  measure: ["copies"] },
		{ band: "user", into: "copy", label: "parse\nheader",
		  title: "parse pathlab header",
		  trace: "parse pathlab header", example: "one_way_ns=7522",
		  text: "Back in user space, the application reads the " +
			"datagram in its own buffer.",
		  measure: ["p99", "cycles_rx"] }
	];

	/* 2. XDP: a program in the driver decides; here it drops. */
	var xdp = {};
	xdp.setup = [
		{ band: "user", once: true, mark: "syscall",
		  label: "load program:\nverifier",
		  title: "Load the XDP program: the verifier checks it",
		  code: "bpf(BPF_PROG_LOAD), through the libbpf skeleton",
		  text: "The kernel's verifier proves the program safe (bounded " +
			"loops, every packet access checked) before it is " +
			"compiled. Only programs it accepts can run." },
		{ band: "kernel", once: true, into: "syscall",
		  label: "attach to\ndriver hook",
		  title: "Attach the program to the interface",
		  code: "bpf_link_create(BPF_XDP)",
		  text: "From now on the driver runs the program on every " +
			"received frame, before any skb exists." },
		ring
	];
	xdp.packet = [
		wireDma,
		{ band: "kernel", into: "dma", label: "XDP program\nparses frame",
		  title: "The XDP program runs in the driver",
		  text: "In the driver's NAPI poll, on the raw buffer: no skb, " +
			"no socket, no copy. It parses Ethernet, IPv4, UDP and " +
			"the pathlab header, checking every bound.",
		  measure: ["cycles_sys"] },
		{ band: "kernel", into: "flow", label: "count in a\nBPF map",
		  title: "Count the packet in a BPF map",
		  text: "Per-CPU counters in a map are how user space learns " +
			"what happened; the receiver reads them about once a " +
			"second, not per packet.",
		  measure: ["pps"] },
		{ band: "kernel", into: "flow", label: "XDP_DROP",
		  title: "Verdict XDP_DROP: the buffer goes back to the ring",
		  text: "The frame ends in place. XDP_PASS would hand it on " +
			"to the stack (path 1), XDP_REDIRECT to an AF_XDP " +
			"socket (path 3). tcpdump never sees a dropped frame.",
		  measure: ["copies", "tcpdump"] }
	];

	/* 3. AF_XDP: XDP redirects into memory shared with the process. */
	var xsk = {};
	xsk.setup = [
		{ band: "user", once: true, mark: "syscall",
		  label: "UMEM:\npacket memory",
		  title: "Allocate the UMEM and register it",
		  code: "mmap; setsockopt(XDP_UMEM_REG)",
		  text: "One area of fixed-size frames, shared by the process " +
			"and the kernel (in zero-copy mode, the NIC)." },
		{ band: "user", once: true, mark: "syscall", into: "flow",
		  label: "AF_XDP socket,\nrings",
		  title: "An AF_XDP socket, its rings, bound to a queue",
		  code: "socket(AF_XDP); mmap the fill, completion, RX and " +
			"TX rings; bind()",
		  text: "Single-producer, single-consumer rings in shared " +
			"memory: from here on descriptors move without system " +
			"calls." },
		{ band: "kernel", once: true, into: "syscall",
		  label: "XDP program,\nxsks map",
		  title: "The XDP program and the socket in its map",
		  code: "bpf_link_create; bpf_map_update_elem(xsks_map)",
		  text: "The program redirects our UDP port to the socket; " +
			"everything else goes on to the stack (XDP_PASS)." },
		{ band: "user", once: true, into: "ring",
		  label: "fill ring:\nfree frames",
		  title: "Give free UMEM frames to the kernel",
		  code: "xsk_ring_prod__reserve; xsk_ring_prod__submit",
		  text: "The fill ring says which UMEM frames the kernel may " +
			"write into." },
		ring
	];
	xsk.packet = [
		wireDma,
		{ band: "kernel", into: "dma", label: "XDP: redirect\nto socket",
		  title: "The XDP program redirects the frame to our socket",
		  code: "bpf_redirect_map(&xsks_map, queue, XDP_PASS)",
		  text: "Same driver hook as path 2; the verdict is " +
			"XDP_REDIRECT into the socket of this queue.",
		  measure: ["cycles_sys"] },
		{ band: "kernel", into: "flow", mark: "copy",
		  label: "copy frame\ninto UMEM",
		  title: "Copy mode: the kernel copies the frame into the UMEM",
		  text: "With veth (and in this lab) AF_XDP runs in copy mode: " +
			"the kernel copies the frame into a frame from the fill " +
			"ring. A zero-copy driver has the NIC DMA straight into " +
			"the UMEM and this step disappears.",
		  measure: ["copies"] },
		{ band: "kernel", into: "flow", label: "RX ring:\ndescriptor",
		  title: "A descriptor {addr, len} on the RX ring",
		  text: "Written into the shared ring: no system call, and no " +
			"wake-up while the process is spinning." },
		{ band: "user", into: "ring", label: "peek the\nRX ring",
		  title: "The process reads the RX ring (busy poll)",
		  code: "xsk_ring_cons__peek",
		  text: "It spins on the ring in user space. A recvfrom() kick " +
			"is needed only when the kernel sets needs_wakeup.",
		  measure: ["syscalls"] },
		{ band: "user", into: "flow", label: "parse\nin place",
		  title: "Parse the frame in the UMEM, in place",
		  code: "xsk_umem__get_data",
		  text: "The application reads the frame where the kernel put " +
			"it: no copy to the application.",
		  measure: ["p99", "cycles_rx"] },
		{ band: "user", into: "flow", label: "fill ring:\nframe back",
		  title: "Give the frame back on the fill ring",
		  code: "xsk_ring_prod__submit; xsk_ring_cons__release",
		  text: "Recycling a frame is a ring write too." }
	];

	/* 4. DPDK: a poll-mode driver in the process owns the NIC. */
	var dpdk = {};
	var eal = { band: "user", once: true, label: "rte_eal_init:\nhugepages",
		title: "EAL init: hugepages, take over the NIC",
		code: "rte_eal_init",
		text: "DPDK maps hugepages and takes the NIC from the kernel " +
			"(vfio-pci): the kernel's driver leaves the data path." };
	var vfio = { band: "kernel", once: true, into: "syscall",
		label: "vfio: IOMMU\nmaps memory",
		title: "vfio sets up the IOMMU for the NIC",
		text: "The kernel's last part: let the NIC DMA into the " +
			"process's hugepages, and only those. Setup the kernel " +
			"does once." };
	dpdk.setup = [
		eal, vfio,
		{ band: "user", once: true, into: "flow",
		  label: "mbuf pool in\nhugepages", title: "Create the mbuf pool",
		  code: "rte_pktmbuf_pool_create",
		  text: "Packet buffers (mbufs) in hugepages, which the NIC " +
			"may write." },
		{ band: "user", once: true, into: "flow",
		  label: "RX queue,\nstart port",
		  title: "Set up the RX ring and start the port",
		  code: "rte_eth_dev_configure; rte_eth_rx_queue_setup; " +
			"rte_eth_dev_start",
		  text: "The poll-mode driver writes mbuf addresses into the " +
			"NIC's RX descriptors." }
	];
	var burst = { band: "user", into: "dma", label: "rte_eth_rx_burst\n(poll)",
		title: "rte_eth_rx_burst: the PMD polls the ring",
		code: "rte_eth_rx_burst(port, 0, bufs, burst)",
		text: "A plain function call: read the descriptors' done bits, " +
			"return a burst of mbufs, refill the ring. It spins " +
			"whether or not packets come: the dedicated core at 100% " +
			"is what DPDK gives up.",
		measure: ["syscalls", "cycles_rx"] };
	var mbufFree = { band: "user", into: "flow", label: "free mbufs\nto the pool",
		title: "Return the mbufs to the pool",
		code: "rte_pktmbuf_free_bulk",
		text: "The buffers go back to the pool and, from there, to " +
			"the RX ring." };
	dpdk.packet = [
		{ band: "nic", label: "DMA frame\ninto an mbuf",
		  title: "The NIC DMAs the frame straight into an mbuf",
		  text: "The buffer is the process's memory: the kernel never " +
			"sees the packet, and no interrupt is raised.",
		  measure: ["pps"] },
		burst,
		{ band: "user", into: "flow", label: "parse\n(mtod)",
		  title: "Parse the frame in the mbuf",
		  code: "rte_pktmbuf_mtod",
		  text: "The application reads the frame where the NIC wrote " +
			"it.",
		  measure: ["p99", "copies", "noports"] },
		mbufFree
	];

	/* 5. RDMA verbs: the NIC runs the transport and places the data. */
	var verbs = {};
	var openDev = { band: "user", once: true, mark: "syscall",
		label: "open device,\nalloc PD",
		title: "Open the RDMA device, allocate a protection domain",
		code: "ibv_open_device; ibv_alloc_pd",
		text: "Control operations go through the kernel (uverbs); the " +
			"data path will not." };
	var qp = { band: "user", once: true, into: "flow",
		label: "CQ and QP,\nto RTS",
		title: "A completion queue and a queue pair, made ready",
		code: "ibv_create_cq; ibv_create_qp (UD); ibv_modify_qp",
		text: "The queue pair is the NIC-side endpoint; it moves " +
			"INIT, RTR, RTS." };
	var postRecv = { band: "user", once: true, into: "flow",
		label: "post receive\nrequests",
		title: "Post receive work requests",
		code: "ibv_post_recv",
		text: "Each request names a registered buffer. Posting is a " +
			"write to the NIC's doorbell register, not a system call." };
	var transport = { band: "nic", label: "transport\nin the NIC",
		title: "The NIC runs the transport",
		text: "It matches the queue pair and takes the next posted " +
			"receive request. On a reliable connection it also " +
			"acknowledges and retransmits, in hardware.",
		measure: ["pps"] };
	var cqe = { band: "nic", into: "ctl", label: "write a\ncompletion",
		title: "The NIC writes a completion (CQE)",
		text: "A small record in the completion queue, in host " +
			"memory: which request, how many bytes." };
	var pollCq = { band: "user", into: "dma", intoLabel: "CQE",
		label: "ibv_poll_cq()",
		title: "ibv_poll_cq: read the completion",
		code: "ibv_poll_cq",
		text: "A read of host memory from user space: no system call " +
			"and no interrupt (with --cq event it sleeps on a " +
			"completion channel instead).",
		measure: ["syscalls", "cycles_rx"] };
	var repost = { band: "user", into: "flow", label: "repost the\nbuffer",
		title: "Post the buffer again",
		code: "ibv_post_recv (a doorbell write)",
		text: "The buffer goes back to the NIC as a new receive " +
			"request." };
	verbs.setup = [
		openDev,
		{ band: "kernel", once: true, into: "syscall",
		  label: "register:\npin, NIC map",
		  title: "Memory registration: pin the buffers",
		  code: "ibv_reg_mr",
		  text: "The kernel pins the pages and gives the NIC their " +
			"addresses and a key. Registration is the cost paid up " +
			"front, once." },
		qp, postRecv
	];
	verbs.packet = [
		transport,
		{ band: "nic", into: "flow", label: "DMA into the\nposted buffer",
		  title: "The NIC DMAs the message into the posted buffer",
		  text: "Straight into the application's registered buffer " +
			"(UD puts a 40-byte GRH in front of it)." },
		cqe, pollCq,
		{ band: "user", into: "flow", label: "parse\nin place",
		  title: "Parse the message in place",
		  text: "The payload is where the NIC put it: no copy, on " +
			"either host's CPU.",
		  measure: ["p99", "copies"] },
		repost
	];

	/* The GPUDirect views. */
	var sockGpu = [sock.setup[0],
		{ band: "user", once: true, mark: "syscall", label: "socket(),\nbind()",
		  title: "socket(), SO_RCVBUF, bind(): the socket as before",
		  code: "socket; setsockopt; bind",
		  text: "The same socket as without a GPU (steps 2 to 4 of " +
			"the CPU view)." }].concat([
		alt(sock.setup[4], { into: "flow",
			label: "pinned buffers\nfor a batch",
			title: "Pinned host buffers for a batch",
			code: "cudaHostAlloc",
			text: "Page-locked host memory, so that the GPU's copy " +
				"engine can read it by DMA." }),
		{ band: "gpu", once: true, into: "ctl",
		  label: "cudaMalloc:\ndevice buffers",
		  title: "Device buffers in GPU memory", code: "cudaMalloc",
		  text: "Where the packets must end up." }
	], sock.packet.slice(0, 5), [
		alt(sock.packet[5], { measure: ["p99"] }),
		{ band: "gpu", into: "pcie", stays: true,
		  intoLabel: "PCIe: copy",
		  label: "copy to the\nGPU (PCIe)",
		  title: "Copy host → GPU: the bytes cross PCIe again",
		  code: "cudaMemcpyAsync(HostToDevice)",
		  text: "The copy engine reads the pinned user buffer and " +
			"writes GPU memory. GPUDirect cannot remove this hop: " +
			"the socket API delivers into host memory only.",
		  measure: ["pcie"] },
		alt(gpuCheck, { into: "flow" })
	]);
	var xskGpu = [xsk.setup[0],
		alt(xsk.setup[1], { label: "socket, rings,\nfill ring",
			title: "The AF_XDP socket and its rings; free frames on " +
				"the fill ring",
			code: xsk.setup[1].code + "; xsk_ring_prod__submit" }),
		xsk.setup[2]].concat([
		{ band: "gpu", once: true, into: "ctl",
		  label: "map the UMEM\nfor the GPU",
		  title: "Register the UMEM for the GPU (pinned, mapped)",
		  code: "cuMemHostRegister(umem, len, CU_MEMHOSTREGISTER_DEVICEMAP)",
		  text: "The GPU gets an address for the UMEM: host memory it " +
			"reads across PCIe." },
		ring
	], xsk.packet.slice(0, 5), [
		{ band: "gpu", into: "pcie", stays: true,
		  intoLabel: "PCIe: read",
		  label: "GPU reads the\nUMEM (PCIe)",
		  title: "The GPU reads the frame from host memory",
		  text: "The frame is in the UMEM, host memory: AF_XDP can " +
			"deliver nowhere else. The GPU reads it in place across " +
			"PCIe (or it is copied to GPU memory first). No GPUDirect " +
			"on this path: the hop through host memory stays.",
		  measure: ["pcie"] },
		alt(gpuCheck, { into: "flow" }),
		alt(xsk.packet[6], { into: "ctl" })
	]);
	var dpdkGpu = [eal, vfio,
		{ band: "gpu", once: true, into: "ctl",
		  label: "rte_gpu_\nmem_alloc",
		  title: "Allocate GPU memory for packet buffers",
		  code: "rte_gpu_mem_alloc",
		  text: "Device memory a NIC may write (the CUDA driver sets " +
			"the sync flag peer-to-peer writes need)." },
		{ band: "user", once: true, into: "ctl",
		  label: "register and\nDMA-map it",
		  title: "Register the GPU memory and map it for the NIC",
		  code: "rte_extmem_register; rte_dev_dma_map",
		  text: "DPDK learns the memory; the IOMMU lets the NIC reach " +
			"it." },
		{ band: "user", once: true, into: "flow",
		  label: "mbuf pool on\nGPU memory",
		  title: "An mbuf pool whose buffers are in GPU memory",
		  code: "rte_pktmbuf_pool_create_extbuf; rte_eth_rx_queue_setup",
		  text: "mbuf headers stay in host memory; their data buffers " +
			"point into the GPU." },
		{ band: "nic", label: "DMA frame\nto the GPU",
		  title: "The NIC DMAs the frame into GPU memory",
		  text: "Peer to peer over PCIe: the NIC writes device memory " +
			"directly. Host memory and the host CPU never hold the " +
			"payload.",
		  measure: ["pps"] },
		{ band: "gpu", into: "pcie", intoLabel: "PCIe: P2P DMA",
		  label: "frame in\nGPU memory",
		  title: "The payload lands in GPU memory",
		  text: "One crossing of PCIe, the one that cannot be avoided.",
		  measure: ["pcie"] },
		alt(burst, { into: "ctl", label: "rx_burst:\ndescriptors",
			title: "rte_eth_rx_burst: the CPU sees descriptors only",
			text: "The mbuf headers in host memory say where each " +
				"frame is; the CPU does not touch the payload." }),
		alt(gpuCheck, { code: "a kernel per burst, or a persistent " +
			"kernel polling a flag" }),
		alt(mbufFree, { into: "ctl" })
	];
	var verbsGpu = [openDev,
		{ band: "gpu", once: true, into: "ctl",
		  label: "cudaMalloc:\nbuffer ring",
		  title: "The receive buffers in GPU memory", code: "cudaMalloc",
		  text: "The ring the NIC will write." },
		{ band: "kernel", once: true, into: "syscall",
		  label: "register\nGPU memory",
		  title: "Register GPU memory with the NIC",
		  code: "ibv_reg_dmabuf_mr, or ibv_reg_mr with nvidia-peermem",
		  text: "The NIC gets the bus addresses of GPU memory." },
		qp, alt(postRecv, { text: "Each request names a buffer in GPU " +
			"memory." }),
		transport,
		{ band: "gpu", into: "pcie", intoLabel: "PCIe: P2P DMA",
		  label: "message in\nGPU memory",
		  title: "The NIC DMAs the message into GPU memory",
		  text: "GPUDirect RDMA: no bounce through host memory, no " +
			"CPU on either side touching the payload.",
		  measure: ["pcie"] },
		cqe, pollCq,
		alt(gpuCheck, { code: "a kernel per batch, or a persistent " +
			"kernel" }),
		alt(repost, { into: "ctl" })
	];

	window.PATHLAB_FIGURE = {
		title: "Four paths, one figure",
		bands: [
			{ id: "user", name: "User space", note: "your process" },
			{ id: "kernel", name: "Kernel", note: "driver, stack" },
			{ id: "nic", name: "NIC", note: "hardware" },
			{ id: "gpu", name: "GPU", note: "device memory" }
		],
		paths: [
			{ id: "socket", mode: "recvmmsg",
			  name: "Kernel stack", shape: "circle",
			  colour: "#0072B2", column: 0,
			  blurb: "The general-purpose path: the kernel does the " +
				"per-packet work in softirq, and a system call " +
				"copies each datagram to the application.",
			  steps: sock.setup.concat(sock.packet),
			  gpu: { direct: false, steps: sockGpu,
				verdict: "No GPUDirect on the kernel stack: the " +
				"data lands in host memory, the CPU copies it to " +
				"the user buffer, and it crosses PCIe again to " +
				"the GPU. The hop stays." } },
			{ id: "xdp", mode: "drop",
			  name: "XDP", shape: "triangle",
			  colour: "#E69F00", column: 1,
			  blurb: "A verified program runs in the driver on the " +
				"raw frame, before the stack; here it counts and " +
				"drops.",
			  steps: xdp.setup.concat(xdp.packet),
			  gpu: { direct: null, steps: null,
				verdict: "Nothing to deliver: XDP_DROP ends the " +
				"packet in the driver. To bring data to a GPU, " +
				"redirect it to AF_XDP (3) or pass it to the " +
				"stack (1)." } },
			{ id: "afxdp", mode: "copy",
			  name: "AF_XDP", shape: "square",
			  colour: "#009E73", column: 1,
			  blurb: "XDP redirects frames into memory the process " +
				"shares with the kernel; rings, not system calls, " +
				"carry the descriptors.",
			  steps: xsk.setup.concat(xsk.packet),
			  gpu: { direct: false, steps: xskGpu,
				verdict: "No GPUDirect with AF_XDP: frames land in " +
				"the UMEM, host memory; the GPU reads them across " +
				"PCIe. The hop through host memory stays." } },
			{ id: "dpdk", mode: "af_xdp",
			  name: "DPDK", shape: "diamond",
			  colour: "#CC79A7", column: 2,
			  blurb: "A poll-mode driver in the process owns the NIC; " +
				"one core spins on its ring. The kernel only set " +
				"things up.",
			  lab: "In this lab DPDK drives a veth through a virtual " +
				"PMD: net_af_xdp (the kernel copies into the UMEM " +
				"that is the mbuf pool) or net_af_packet (two copies, " +
				"and the stack still sees every frame). The figure " +
				"shows a real NIC.",
			  steps: dpdk.setup.concat(dpdk.packet),
			  gpu: { direct: true, steps: dpdkGpu, removedAt: 6,
				verdict: "GPUDirect: the NIC writes the frame into " +
				"GPU memory over PCIe. The hop through host memory " +
				"and the copy to the GPU are gone." } },
			{ id: "verbs", mode: "ud",
			  name: "RDMA verbs", shape: "hexagon",
			  colour: "#D55E00", column: 3,
			  blurb: "The NIC runs the transport and places each " +
				"message in memory the application registered; the " +
				"application polls for completions.",
			  lab: "In this lab the NIC is rxe (Soft-RoCE) in a VM: " +
				"the guest kernel runs the transport in software. " +
				"The figure shows an RDMA NIC receiving UD sends; rc " +
				"adds acknowledgements and retransmission in the NIC, " +
				"and rc_write_imm writes the data into the ring with no " +
				"receive request: only the immediate consumes one.",
			  steps: verbs.setup.concat(verbs.packet),
			  gpu: { direct: true, steps: verbsGpu, removedAt: 6,
				verdict: "GPUDirect RDMA: the NIC writes the " +
				"message into GPU memory. No bounce through host " +
				"memory, no copy by any CPU." } }
		],
		/* The seed's table "What each path gives up". */
		givesUp: {
			columns: ["Kernel stack", "XDP / AF_XDP", "DPDK", "RDMA"],
			rows: [
				["Per-packet work runs in", "kernel (softirq)",
				 "driver hook, then kernel or user",
				 "user-space poll loop", "NIC hardware"],
				["CPU copies to the app", "1 (socket → user buffer)",
				 "0 with AF_XDP zero-copy", "0 (app reads the mbuf)",
				 "0, and none on the remote CPU"],
				["Interrupts on the data path", "yes, mitigated by NAPI",
				 "same as kernel (NAPI)", "none (busy polling)",
				 "none needed (poll the CQ)"],
				["Transport (TCP, retransmit)", "kernel",
				 "kernel on XDP_PASS, else yours",
				 "yours (or a user-space stack)",
				 "NIC: reliable connection in hardware"],
				["tcpdump, iptables, ss…", "all work",
				 "partly (before the stack)",
				 "no: the kernel never sees the packets",
				 "no: needs NIC-side counters"],
				["What you give up", "per-packet efficiency",
				 "verifier limits, per-packet programs",
				 "dedicated cores at 100%, your own stack",
				 "verbs API, memory registration, a fabric that " +
				 "tolerates RDMA"]
			]
		}
	};
})();
