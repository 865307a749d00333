/*
 * selftest.js - the figure tests itself when opened as index.html#selftest
 * (or ?selftest=1): it drives the page the way a person would (keys,
 * buttons, the file picker, a drop), checks what it drew, and writes a
 * verdict into #selftest (data-verdict="pass" or "fail") and the title.
 * tests/figure/figure.sh runs it in headless chromium.
 *
 * SAMPLE is a results.json cut down from a `labs/pathlab compare --quick`
 * run on veth in a VM, to the fields the figure reads.
 */
"use strict";

(function () {
	var SAMPLE = {
		pathlab: 1,
		host: { hostname: "vm", kernel: "6.1.0", cpu_model: "AMD EPYC",
			cpus: 2, date: "2026-11-29T20:20:13Z",
			virtualization: "vm", tsc_hz: 2596122178 },
		runs: []
	};
	/* path, mode, frame, pps, cycles rx, cycles sys, syscalls, copies */
	[["socket", "recvmmsg", 64, 89277, 4553, 91120, 0.139, 1],
	 ["socket", "recvmmsg", 1024, 38776, 13254, 357932, 0.415, 1],
	 ["xdp", "drop", 64, 165489, 491, 69742, 0, 0],
	 ["afxdp", "copy", 64, 60301, 17998, 107076, 0, 1],
	 ["dpdk", "af_xdp", 64, 48788, 28342, 130544, 0, 1],
	 ["dpdk", "af_packet", 64, 78842, 13140, 98591, 0, 2]
	].forEach(function (r) {
		var base = { path: r[0], mode: r[1], gpu: "none", env: "veth-vm",
			frame_bytes: r[2], sent: 20000, received: 20000, lost: 0,
			budget: { clock_hz: 2596122178,
				cycles_10g: (r[2] + 20) * 8 * 2.596122178 / 10,
				cycles_100g: (r[2] + 20) * 8 * 2.596122178 / 100 } };
		function run(workload, extra) {
			var o = {}, k;
			for (k in base)
				o[k] = base[k];
			o.workload = workload;
			for (k in extra)
				o[k] = extra[k];
			return o;
		}
		SAMPLE.runs.push(run("throughput", { pps: r[3],
			cycles_per_packet: { receiver: r[4], system: r[5] },
			syscalls_per_packet: r[6], copies_per_packet: r[7],
			copies_source: "by_design", wakeups_per_packet: 0.1,
			softirqs_per_packet: 1, kernel_udp_no_ports:
				r[1] === "af_packet" ? 20000 : 0 }));
		SAMPLE.runs.push(run("latency", { pps: 10000, sent: 2000,
			received: 2000, latency_ns: r[0] === "xdp" ?
			{ kind: "one-way", count: 0, p50: 0, p90: 0, p99: 0,
			  p999: 0, max: 0 } :
			{ kind: "one-way", count: 2000, p50: 16511, p90: 45311,
			  p99: 1662975, p999: 2539519, p9999: 2736127,
			  max: 2749382 } }));
		SAMPLE.runs.push(run("visibility", { sent: 1000, received: 1000,
			tcpdump_seen: r[0] === "socket" ||
				r[1] === "af_packet" ? 1000 : 0 }));
	});

	var checks = 0, failures = [], auto = false;

	function check(ok, what) {
		checks++;
		if (!ok)
			failures.push(what);
		return ok;
	}

	function key(k) {
		document.dispatchEvent(new KeyboardEvent("keydown", { key: k,
			bubbles: true, cancelable: true }));
	}

	function $(sel) {
		return document.querySelector(sel);
	}

	function current() {
		return $("#svg .step.current");
	}

	function measuredCount() {
		return document.querySelectorAll("[data-measured]").length;
	}

	function asFile(text, name) {
		return new File([text], name, { type: "application/json" });
	}

	/* Every path: choose it by key, step to its end by key and button. */
	function stepThrough(api, gpu) {
		api.paths.forEach(function (p, i) {
			key(String(i + 1));
			var n = api.steps().length;
			check(api.state.path === i && $("#svg").getAttribute(
				"data-path") === p.id, "key " + (i + 1) + " selects " +
				p.id);
			check($('.path-button[data-path="' + p.id + '"]')
				.getAttribute("aria-pressed") === "true",
				p.id + ": its button is pressed");
			key("Home");
			check(api.state.step === 0 && $("#prev").disabled,
				p.id + ": Home goes to step 1");
			for (var s = 1; s < n; s++)
				key("ArrowRight");
			var cur = current();
			check(api.state.step === n - 1 && cur &&
				Number(cur.getAttribute("data-step")) === n - 1,
				p.id + (gpu ? " (GPU)" : "") + ": stepped to the last " +
				"step " + n);
			check($("#next").disabled, p.id + ": Next is off at the end");
			key("ArrowRight");
			check(api.state.step === n - 1, p.id + ": stays at the end");
			$("#prev").click();
			check(api.state.step === n - 2, p.id + ": Back goes back");
			check($("#step-title").textContent ===
				api.steps()[n - 2].title, p.id + ": the detail follows");
			check(document.querySelectorAll("#svg .step").length === n,
				p.id + ": one box per step");
		});
	}

	/* g changes the drawing of every path, and g again restores it. */
	function gpuToggle(api) {
		api.paths.forEach(function (p, i) {
			key(String(i + 1));
			var before = api.snapshot();
			key("g");
			var on = api.snapshot();
			check(api.state.gpu && $("#gpu-button").getAttribute(
				"aria-pressed") === "true", p.id + ": g turns GPUDirect on");
			check(on !== before, p.id + ": GPUDirect changes the drawing");
			if (p.gpu.direct === true)
				check(on.indexOf("removed by GPUDirect") >= 0 &&
					$("#svg .removed"), p.id + ": the removed hop is drawn");
			if (p.gpu.direct === false)
				check($("#svg .step.stays") !== null, p.id +
					": the hop that stays is marked");
			key("g");
			check(!api.state.gpu && api.snapshot() === before,
				p.id + ": g again restores the drawing");
		});
	}

	/* Load results the way a person does: the picker, then a drop. */
	function loadResults(api) {
		var before = measuredCount();
		var input = $("#file"), dt = new DataTransfer();
		dt.items.add(asFile(JSON.stringify(SAMPLE), "sample-results.json"));
		input.files = dt.files;
		input.dispatchEvent(new Event("change", { bubbles: true }));
		return api.lastLoad.then(function (ok) {
			check(ok && api.state.source === "sample-results.json",
				"the file picker loads a results.json");
			key("1");
			check(measuredCount() > (auto ? 0 : before) &&
				$("#svg [data-measured]") !== null,
				"the results annotate the figure");
			check(/kpps/.test($('.path-button[data-path="socket"]')
				.textContent), "the path buttons show the rate");
			check($(".measured-table") !== null,
				"the measured table is drawn");
			var bad = new DataTransfer();
			bad.items.add(asFile("{not json", "broken.json"));
			document.body.dispatchEvent(new DragEvent("drop", {
				dataTransfer: bad, bubbles: true, cancelable: true }));
			return api.lastLoad;
		}).then(function (ok) {
			check(!ok && /broken\.json/.test($("#status").textContent) &&
				api.state.source === "sample-results.json",
				"a broken drop is refused and the results kept");
			var good = new DataTransfer();
			var other = JSON.parse(JSON.stringify(SAMPLE));
			other.runs = other.runs.filter(function (r) {
				return r.path === "dpdk";
			});
			good.items.add(asFile(JSON.stringify(other), "dropped.json"));
			document.body.dispatchEvent(new DragEvent("drop", {
				dataTransfer: good, bubbles: true, cancelable: true }));
			return api.lastLoad;
		}).then(function (ok) {
			check(ok && api.state.source === "dropped.json",
				"a dropped results.json loads");
			key("4");
			check(/af_packet/.test($(".measured-table").textContent),
				"DPDK shows both of its modes");
			key("1");
			check(/No runs of Kernel stack/.test($("#measured")
				.textContent), "a path without runs says so");
		});
	}

	/*
	 * Results with trials: the figure shows each figure's median with its
	 * min-max and the rows it cannot be told apart from; a reference
	 * tool's run (sockperf, path socket) is never taken for the path's.
	 */
	function trials(api) {
		var r = JSON.parse(JSON.stringify(SAMPLE));
		r.runs.forEach(function (x) {
			x.trial = 0;
		});
		var extra = JSON.parse(JSON.stringify(r.runs[0]));
		extra.trial = 1;
		extra.pps = 95000;
		r.runs.push(extra);
		r.runs.push({ path: "socket", mode: "recvmmsg", gpu: "none",
			reference: "sockperf", tool: "sockperf", env: "veth-vm",
			workload: "throughput", frame_bytes: 64, pps: 1,
			sent: 10, received: 1, lost: 9, trial: 0 });
		r.summary = [{ path: "socket", mode: "recvmmsg", gpu: "none",
			workload: "throughput", frame_bytes: 64, trials: 2,
			row: "socket recvmmsg",
			figures: { kpps: { median: 92.1385, min: 89.277, max: 95,
				n: 2 } },
			not_distinguishable: { kpps: ["dpdk af_packet"] } }];
		check(api.loadText(JSON.stringify(r), "trials.json") === true,
			"results with trials load");
		key("1");
		var text = $(".measured-table").textContent;
		check(/92\.1 kpps \(median of 2 trials, 89\.3 kpps.95\.0 kpps\)/
			.test(text), "the rate is the median, with its min-max");
		check(/not distinguishable from dpdk af_packet/.test(text),
			"rows whose ranges overlap are said to be");
		check(!/0\.0 kpps/.test(text),
			"a reference tool's run is not the path's");
		gpuTrials(api);
	}

	/* The GPUDirect view shows the GPU rows' medians, not a trial's. */
	function gpuTrials(api) {
		var r = JSON.parse(JSON.stringify(SAMPLE)), g, text;
		[[0, 30000], [1, 35000], [2, 33000]].forEach(function (t) {
			g = JSON.parse(JSON.stringify(r.runs[0]));
			g.gpu = "sim";
			g.trial = t[0];
			g.pps = t[1];
			g.gpu_verified = g.received;
			r.runs.push(g);
		});
		r.summary = [{ path: "socket", mode: "recvmmsg", gpu: "sim",
			workload: "throughput", frame_bytes: 64, trials: 3,
			row: "socket recvmmsg +gpu sim",
			figures: { kpps: { median: 33.0, min: 30.0, max: 35.0,
				n: 3 } } }];
		check(api.loadText(JSON.stringify(r), "gpu.json") === true,
			"results with GPU trials load");
		key("1");
		key("g");
		key("Home");
		text = "";
		api.steps().forEach(function () {
			text += $("#step-measured").textContent + "\n";
			key("ArrowRight");
		});
		check(/received: 33\.0 kpps \(median of 3 trials/.test(text),
			"the GPU view's rate is the GPU rows' median");
		key("g");
	}

	/*
	 * Verbs rows from the Soft-RoCE VM under TCG: said to be emulated,
	 * beside the figures and above the table; under KVM: software RDMA.
	 */
	function emulatedRows(api) {
		var r = JSON.parse(JSON.stringify(SAMPLE)), k = null;
		function verbs(vm, comparable) {
			return { path: "verbs", mode: "rc", gpu: "none",
				env: "vm-softroce", workload: "throughput",
				frame_bytes: 64, pps: 10800, sent: 5000, received: 5000,
				lost: 0, vm: vm, comparable_with_host: comparable,
				receive_cycles_per_packet: { total: 30000,
					kernel: 9000, app: 21000 },
				cycles_per_packet: { system: 300000 } };
		}
		r.runs.push(verbs({ accel: "tcg", cpus: 2 }, false));
		check(api.loadText(JSON.stringify(r), "tcg.json") === true,
			"results with a TCG VM's verbs rows load");
		key("5");
		k = $("#measured p.emulated");
		check(k !== null && /emulated CPU: not comparable with the host rows/
			.test(k.textContent) && /tcg, 2 vCPUs/.test(k.textContent),
			"verbs from a TCG VM: marked emulated, with how the VM ran");
		check(/30,000 \(emulated\)/.test($(".measured-table").textContent),
			"verbs from a TCG VM: the cycles say emulated");
		key("1");
		check($("#measured p.emulated") === null,
			"the host's paths carry no such mark");
		r.runs.pop();
		r.runs.push(verbs({ accel: "kvm", cpus: 2 }, true));
		api.loadText(JSON.stringify(r), "kvm.json");
		key("5");
		check($("#measured p.emulated") === null &&
			/Software RDMA/.test($("#measured p.software").textContent),
			"verbs from a KVM VM: software RDMA, beside the others");
		key("1");
	}

	function verdict() {
		var out = $("#selftest"), pass = failures.length === 0;
		out.hidden = false;
		out.setAttribute("data-verdict", pass ? "pass" : "fail");
		out.setAttribute("data-checks", String(checks));
		out.setAttribute("data-results-js", auto ? "1" : "0");
		out.textContent = "selftest: " + (pass ? "pass" : "FAIL") + ", " +
			checks + " checks" + (pass ? "" : ": " + failures.join("; "));
		document.title = out.textContent;
	}

	function run(api) {
		auto = api.state.source === "results.js";
		var start = Promise.resolve();
		try {
			check(document.querySelectorAll("#svg .band").length === 4,
				"four bands are drawn");
			if (auto)
				check(measuredCount() > 0, "results.js beside the page " +
					"annotates it");
			stepThrough(api, false);
			gpuToggle(api);
			key("g");
			stepThrough(api, true);
			key("g");
			start = loadResults(api).then(function () {
				trials(api);
				emulatedRows(api);
			});
		} catch (e) {
			check(false, "exception: " + e.message);
		}
		return start.catch(function (e) {
			check(false, "exception: " + e.message);
		}).then(function () {
			/* Leave a useful picture: path 1, a per-packet step. */
			key("1");
			if (auto) {
				api.loadText(JSON.stringify(window.PATHLAB_RESULTS),
					"results.js");
			}
			api.state.step = 7;
			api.render();
			verdict();
		});
	}

	window.PathlabSelftest = { run: run, sample: SAMPLE };
})();
