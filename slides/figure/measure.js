/*
 * measure.js - the measured figures of a results.json from `labs/pathlab
 * compare`, for the figure: how to index the runs, pick the ones that go
 * with a path, and say each figure in words. No DOM here.
 */
"use strict";

(function () {
	/*
	 * The measured figures a step can show: a label, the figure in words
	 * (get; null when the runs lack it) and a short form for the drawing.
	 * m holds the runs on screen: thr, lat, vis (throughput, latency and
	 * visibility workloads) and gpu; sum.thr and sum.lat their rows of
	 * results.json's summary when it has one (compare --trials): then a
	 * figure is the median of the trials, with its min-max and the rows
	 * it cannot be told apart from.
	 */
	var METRICS = {
		pps: { label: "received", get: function (m) {
			var t = m.thr, f = fig(m, "thr", "kpps");
			if (!t || t.pps == null)
				return null;
			var s = rate(f ? f.median * 1000 : t.pps);
			if (t.sent > 0 && t.lost / t.sent >= 0.005)
				s += " (" + pct(t.lost / t.sent) + " lost)";
			return s + spread(m, "thr", "kpps", function (v) {
				return rate(v * 1000);
			}) + caveat(m);
		}, short: function (m) {
			var f = fig(m, "thr", "kpps");
			return rate(f ? f.median * 1000 : m.thr.pps);
		} },
		p99: { label: "latency p99", get: function (m) {
			var l = m.lat && m.lat.latency_ns;
			var f = fig(m, "lat", "latency_p99_ns");
			if (!l || !(l.count > 0))
				return m.lat ? "no samples: nothing reaches user space" :
					null;
			return us(f ? f.median : l.p99) + " " +
				(l.kind || "one-way") + " (p50 " + us(l.p50) + ")" +
				spread(m, "lat", "latency_p99_ns", us);
		}, short: function (m) {
			var l = m.lat.latency_ns, f = fig(m, "lat", "latency_p99_ns");
			return l && l.count > 0 ? "p99 " + us(f ? f.median : l.p99) :
				"no latency";
		} },
		cycles_rx: { label: "receive cycles", get: function (m) {
			var t = m.thr, r = t && t.receive_cycles_per_packet;
			if (!r)
				return null;
			var f = fig(m, "thr", "receive_cycles");
			var s = num(f ? f.median : r.total, 0) + " per packet on " +
				"the receiving cores (kernel " + num(r.kernel, 0) +
				" + app " + num(r.app, 0) + ")" +
				spread(m, "thr", "receive_cycles", function (v) {
					return num(v, 0);
				});
			if (!comparable(t))
				return s + caveat(m);
			if (t.budget)
				s += "; budget " + num(t.budget.cycles_10g, 0) +
					" at 10 GbE, " + num(t.budget.cycles_100g, 0) +
					" at 100 GbE";
			return s + caveat(m);
		}, short: function (m) {
			var r = m.thr.receive_cycles_per_packet;
			return r ? kilo(r.total) + " cyc/pkt" + (comparable(m.thr) ?
				"" : " (emulated)") : "cost: not measured";
		} },
		cycles_sys: { label: "all-CPU cycles", get: function (m) {
			var t = m.thr, f = fig(m, "thr", "system_cycles");
			if (!t || !t.cycles_per_packet)
				return null;
			return num(f ? f.median : t.cycles_per_packet.system, 0) +
				" per packet (whole machine, generator included)" +
				spread(m, "thr", "system_cycles", function (v) {
					return num(v, 0);
				}) + caveat(m);
		}, short: function (m) {
			return "all " + kilo(m.thr.cycles_per_packet.system) + " cyc";
		} },
		syscalls: { label: "system calls", get: function (m) {
			var t = m.thr;
			return t && t.syscalls_per_packet != null ?
				num(t.syscalls_per_packet, 3) + " per packet" : null;
		}, short: function (m) {
			return "syscalls " + num(m.thr.syscalls_per_packet, 2);
		} },
		copies: { label: "CPU copies", get: function (m) {
			var t = m.thr;
			if (!t || t.copies_per_packet == null)
				return null;
			var s = num(t.copies_per_packet, 2) + " per packet";
			if (t.copies_source)
				s += " (" + t.copies_source.replace("_", " ") + ")";
			return s;
		}, note: function (m) {
			return m.thr && m.thr.copies_note;
		}, short: function (m) {
			return "copies " + num(m.thr.copies_per_packet, 0);
		} },
		wakeups: { label: "wake-ups", get: function (m) {
			var t = m.thr;
			return t && t.wakeups_per_packet != null ?
				num(t.wakeups_per_packet, 3) + " per packet" : null;
		}, short: function (m) {
			return "wake-ups " + num(m.thr.wakeups_per_packet, 2);
		} },
		softirqs: { label: "NET_RX softirqs", get: function (m) {
			var t = m.thr;
			return t && t.softirqs_per_packet != null ?
				num(t.softirqs_per_packet, 3) + " per packet" : null;
		}, short: function (m) {
			return "softirqs " + num(m.thr.softirqs_per_packet, 2);
		} },
		tcpdump: { label: "tcpdump saw", get: function (m) {
			var v = m.vis;
			return v && v.tcpdump_seen != null ?
				num(v.tcpdump_seen, 0) + " of " + num(v.sent, 0) +
				" packets" : null;
		}, short: function (m) {
			return "tcpdump " + kilo(m.vis.tcpdump_seen) + "/" +
				kilo(m.vis.sent);
		} },
		noports: { label: "the stack saw it too", get: function (m) {
			var t = m.thr;
			return t && t.kernel_udp_no_ports > 0 ?
				"UDP NoPorts grew by " + num(t.kernel_udp_no_ports, 0) :
				null;
		}, short: function (m) {
			return "NoPorts +" + kilo(m.thr.kernel_udp_no_ports);
		} },
		pcie: { label: "PCIe crossings", get: function (m) {
			var g = m.gpu;
			if (!g || g.pcie_crossings_per_packet == null)
				return null;
			return num(g.pcie_crossings_per_packet, 2) + " per packet (" +
				(g.pcie_source || "").replace("_", " ") + ", " +
				gpuName(g) + ")";
		}, short: function (m) {
			return "PCIe " + num(m.gpu.pcie_crossings_per_packet, 1) +
				"/pkt";
		} },
		gpu_verified: { label: "GPU checked", get: function (m) {
			var g = m.gpu;
			return g && g.gpu_verified != null ?
				num(g.gpu_verified, 0) + " of " + num(g.received, 0) +
				" good (" + gpuName(g) + ")" : null;
		}, short: function (m) {
			return "GPU ok " + kilo(m.gpu.gpu_verified);
		} },
		placement: { label: "where NAPI ran", get: function (m) {
			var r = m.lat || m.thr, p = r && r.placement;
			if (!p || typeof p.label !== "string")
				return null;
			var d = r.run_delay, s = p.label;
			if (d && d.receiver_share != null && d.napi_share != null)
				s += "; waited for a CPU: receiver " +
					pct(d.receiver_share) + ", NAPI " +
					pct(d.napi_share);
			if ((m.thr && m.thr.contended) || (m.lat && m.lat.contended))
				s += " (contended: they took turns on a core)";
			return s;
		}, short: function (m) {
			var r = m.lat || m.thr;
			return r && r.placement ? String(r.placement.label) : "";
		} }
	};

	/* A run's placement label, "" without one (the summary's key). */
	function placeOf(run) {
		return run && run.placement && typeof run.placement.label ===
			"string" ? run.placement.label : "";
	}

	/* The summary figure NAME of the runs m[WL] (thr, lat), or null. */
	function fig(m, wl, name) {
		var e = m && m.sum && m.sum[wl];
		return e && e.figures && e.figures[name] || null;
	}

	/*
	 * Words after a figure measured over trials: the median's spread and
	 * the rows it cannot be told apart from (ranges that overlap).
	 */
	function spread(m, wl, name, fmt) {
		var f = fig(m, wl, name), e = m && m.sum && m.sum[wl];
		if (!f || !(f.n > 1))
			return "";
		var s = " (median of " + f.n + " trials, " + fmt(f.min) + "\u2013" +
			fmt(f.max) + ")";
		var nd = e.not_distinguishable && e.not_distinguishable[name];
		if (Array.isArray(nd) && nd.length)
			s += "; not distinguishable from " + nd.join(", ");
		return s;
	}

	/* ---- formatting ---- */

	function num(v, d) {
		if (v == null || isNaN(v))
			return "-";
		return Number(v).toLocaleString("en-US", {
			minimumFractionDigits: d, maximumFractionDigits: d });
	}

	function rate(pps) {
		return pps >= 1e6 ? num(pps / 1e6, 2) + " Mpps" :
			num(pps / 1e3, 1) + " kpps";
	}

	function us(ns) {
		if (ns == null)
			return "-";
		return ns >= 1e7 ? num(ns / 1e6, 1) + " ms" :
			num(ns / 1e3, ns >= 1e5 ? 0 : 1) + " µs";
	}

	/* 4.6k, 91k, 1.2M: a count in three characters or so. */
	function kilo(v) {
		if (v == null || isNaN(v))
			return "-";
		if (v >= 1e6)
			return num(v / 1e6, v >= 1e7 ? 0 : 1) + "M";
		if (v >= 1e3)
			return num(v / 1e3, v >= 1e4 ? 0 : 1) + "k";
		return num(v, v >= 10 ? 0 : 1);
	}

	function pct(f) {
		return num(f * 100, f < 0.1 ? 1 : 0) + "%";
	}

	function gpuName(run) {
		var d = run.gpu_detail && run.gpu_detail.device;
		return d || (run.gpu === "sim" ? "emulated GPU" : "GPU");
	}

	/*
	 * Runs on an emulated CPU (the Soft-RoCE VM under TCG) cannot stand
	 * beside the host's: labs/plab/emulated.py says the same. Results
	 * made before runs said how the VM ran: env vm-softroce, no vm.
	 */
	var EMULATED = "emulated CPU: not comparable with the host rows";

	function inVm(run) {
		return !!(run && (run.vm && typeof run.vm === "object" ||
			/^vm-softroce/.test(run.env || "")));
	}

	function comparable(run) {
		if (!run)
			return true;
		if (typeof run.comparable_with_host === "boolean")
			return run.comparable_with_host;
		return !inVm(run);
	}

	/* How the VM of run ran: "tcg, 2 vCPUs"; "" outside it. */
	function vmHow(run) {
		if (!inVm(run))
			return "";
		var v = run.vm && typeof run.vm === "object" ? run.vm : {};
		var a = v.accel === "tcg" || v.accel === "kvm" ? v.accel :
			"accel not recorded";
		return a + (v.cpus ? ", " + num(v.cpus, 0) + " vCPUs" : "");
	}

	/* What a figure of the runs m needs said beside it, or "". */
	function caveat(m) {
		var t = m && (m.thr || m.lat || m.vis);
		if (!t || !inVm(t))
			return "";
		return comparable(t) ? " (software RDMA: Soft-RoCE VM, " +
			vmHow(t) + ")" : " — " + EMULATED + " (Soft-RoCE VM, " +
			vmHow(t) + ")";
	}

	function envName(env) {
		var names = { veth: "veth pair, no NIC",
			"veth-vm": "veth in a VM",
			"veth-napi": "veth pair, receive work on the receiving core",
			"veth-napi-vm": "veth in a VM, receive work on the " +
				"receiving core",
			nic: "a real NIC",
			"vm-softroce": "Soft-RoCE in a VM" };
		return names[env] || env;
	}

	/* ---- results ---- */

	/*
	 * Index the runs: path -> gpu|cpu -> mode -> frame size -> workload,
	 * our own receivers' (a reference tool's row is not the path's), the
	 * first trial's; and the summary's rows by the same keys.
	 */
	function indexResults(r) {
		var idx = { sizes: [], paths: {}, summary: {} }, seen = {};
		(Array.isArray(r.summary) ? r.summary : []).forEach(function (e) {
			if (e && !e.reference)
				idx.summary[[e.path, e.mode, e.gpu || "none",
					e.frame_bytes, e.workload,
					e.placement || ""].join("|")] = e;
		});
		r.runs.forEach(function (run) {
			if (!run || typeof run.path !== "string" || run.reference)
				return;
			var p = idx.paths[run.path] || (idx.paths[run.path] =
				{ cpu: {}, gpu: {}, modes: [], gpuModes: [] });
			var g = run.gpu && run.gpu !== "none";
			var byMode = g ? p.gpu : p.cpu;
			var modes = g ? p.gpuModes : p.modes;
			if (!byMode[run.mode]) {
				byMode[run.mode] = {};
				modes.push(run.mode);
			}
			var bySize = byMode[run.mode][run.frame_bytes] ||
				(byMode[run.mode][run.frame_bytes] = {});
			/* A real GPU before the emulated one; the first trial. */
			var had = bySize[run.workload];
			if (!had || run.gpu === "cuda" && had.gpu !== "cuda" ||
				had.gpu === run.gpu && (had.trial || 0) > (run.trial || 0))
				bySize[run.workload] = run;
			if (!seen[run.frame_bytes]) {
				seen[run.frame_bytes] = 1;
				idx.sizes.push(run.frame_bytes);
			}
		});
		idx.sizes.sort(function (a, b) { return a - b; });
		return idx;
	}

	/* The runs of path p in the chosen mode and frame size. */
	/*
	 * The runs of path id in mode (default: its first) at frame size:
	 * thr, lat, vis (throughput, latency and visibility workloads), and
	 * gpu, gpuLat (a GPU variant's runs); sum and gpuSum their summary
	 * rows (the medians over trials). null if the path has none.
	 */
	function runsFor(index, id, mode, size) {
		var ip = index && index.paths[id];
		if (!ip || !ip.modes.length && !ip.gpuModes.length)
			return null;
		if (ip.modes.indexOf(mode) < 0)
			mode = ip.modes[0] || ip.gpuModes[0];
		var cpu = (ip.cpu[mode] || {})[size] || {};
		var gmode = ip.gpuModes.indexOf(mode) >= 0 ? mode : ip.gpuModes[0];
		var gpu = gmode ? (ip.gpu[gmode] || {})[size] || {} : {};
		function sum(run) {
			return run ? index.summary[[id, run.mode, run.gpu || "none",
				size, run.workload, placeOf(run)].join("|")] || null :
				null;
		}
		return { mode: mode, thr: cpu.throughput, lat: cpu.latency,
			vis: cpu.visibility, gpu: gpu.throughput || gpu.latency,
			gpuLat: gpu.latency,
			sum: { thr: sum(cpu.throughput), lat: sum(cpu.latency) },
			gpuSum: { thr: sum(gpu.throughput), lat: sum(gpu.latency) } };
	}

	window.PathlabMeasure = {
		METRICS: METRICS, num: num, rate: rate, us: us, kilo: kilo,
		envName: envName, indexResults: indexResults, runsFor: runsFor,
		EMULATED: EMULATED, inVm: inVm, comparable: comparable,
		vmHow: vmHow, caveat: caveat
	};
})();
