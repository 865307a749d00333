/*
 * figure.js - "Four paths, one figure": draw the steps of a path in bands
 * (user space, kernel, NIC, GPU), step through them, toggle GPUDirect,
 * and annotate the steps with the measured figures of a results.json from
 * `labs/pathlab compare`.
 *
 * Plain JavaScript, no network: results come from a file picked or
 * dropped (FileReader), or from results.js (window.PATHLAB_RESULTS) that
 * compare writes beside its own copy of this page.
 *
 * Keys: left/right step, Home/End first/last, 1-5 choose a path, g
 * toggles GPUDirect. The URL fragment may preselect: #path=dpdk&step=6&
 * gpu=1&size=64 (slides embed the page so, in an iframe, where it drops
 * its header). selftest.js drives everything through window.PathlabFigure.
 */
"use strict";

(function () {
	var F = window.PATHLAB_FIGURE;
	var M = window.PathlabMeasure, METRICS = M.METRICS;
	var num = M.num;
	var state = {
		path: 0, step: 0, gpu: false, size: null, mode: {},
		results: null, index: null, source: ""
	};
	var el = {};

	/* ---- the current path and its steps ---- */

	function path() {
		return F.paths[state.path];
	}

	function gpuView() {
		return state.gpu && path().gpu.steps ? path().gpu.steps : null;
	}

	function steps() {
		return gpuView() || path().steps;
	}

	/* The runs of path p in the chosen mode and frame size. */
	function measured(p) {
		return M.runsFor(state.index, p.id, state.mode[p.id] || p.mode,
			state.size);
	}

	/*
	 * The runs that go with what is on screen: in the GPUDirect view of a
	 * path, its GPU runs (null if there are none), else the CPU runs.
	 */
	function measuredView(p) {
		var m = measured(p);
		if (!m || !(state.gpu && p.gpu.steps))
			return m;
		if (!m.gpu)
			return null;
		return { mode: m.gpu.mode, thr: m.gpu, lat: m.gpuLat, vis: null,
			gpu: m.gpu, sum: m.gpuSum };
	}

	/* Check r is a results.json, take it, redraw; return an error or "". */
	function applyResults(r, source) {
		if (!r || typeof r !== "object" || !Array.isArray(r.runs))
			return "not a pathlab results.json (no \"runs\" array)";
		if (r.pathlab !== 1)
			return "not a pathlab results.json (\"pathlab\": " +
				JSON.stringify(r.pathlab) + ", expected 1)";
		var idx = M.indexResults(r);
		if (!idx.sizes.length)
			return "the file has no runs";
		state.results = r;
		state.index = idx;
		state.source = source;
		if (idx.sizes.indexOf(state.size) < 0)
			state.size = idx.sizes[0];
		render();
		return "";
	}

	function setStatus(text, isError) {
		el.status.textContent = text;
		el.status.className = isError ? "status error" : "status";
	}

	/* Parse text as a results.json from source; show the outcome. */
	function loadText(text, source) {
		var r, err;
		try {
			r = JSON.parse(text);
		} catch (e) {
			err = "not JSON: " + e.message;
		}
		if (!err)
			err = applyResults(r, source);
		if (err) {
			setStatus("Could not load " + source + ": " + err +
				(state.results ? " (keeping " + state.source + ")" : ""),
				true);
			return false;
		}
		setStatus("Loaded " + source + ": " + r.runs.length + " runs.",
			false);
		return true;
	}

	/*
	 * Load the first of files (a FileList or array of File): the file
	 * picker and drag-and-drop both come here. Resolves to true if it
	 * was a results.json.
	 */
	function loadFiles(files) {
		var f = files && files[0];
		if (!f) {
			setStatus("No file.", true);
			return Promise.resolve(false);
		}
		return new Promise(function (resolve) {
			var rd = new FileReader();
			rd.onload = function () {
				resolve(loadText(String(rd.result), f.name));
			};
			rd.onerror = function () {
				setStatus("Could not read " + f.name + ".", true);
				resolve(false);
			};
			rd.readAsText(f);
		});
	}

	function bandName(id) {
		for (var i = 0; i < F.bands.length; i++)
			if (F.bands[i].id === id)
				return F.bands[i].name;
		return id;
	}

	/* Draw the SVG of what is on screen, as wide as its box. */
	function drawFigure() {
		window.PathlabDraw.figure(el.svg, Math.max(300,
			el.wrap.clientWidth || 1000), {
			bands: F.bands, path: path(), steps: steps(),
			step: state.step, gpu: state.gpu, m: measuredView(path()),
			onStep: function (i) {
				state.step = i;
				render();
			}
		});
	}

	/* ---- the HTML around the figure ---- */

	function clear(node) {
		while (node.firstChild)
			node.removeChild(node.firstChild);
	}

	function html(tag, attrs, text, parent) {
		var e = document.createElement(tag), k;
		for (k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text != null)
			e.textContent = text;
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function renderPathButtons() {
		clear(el.pathButtons);
		F.paths.forEach(function (p, i) {
			var b = html("button", { type: "button", "class": "path-button",
				"data-path": p.id, "aria-pressed": String(i === state.path),
				"aria-keyshortcuts": String(i + 1) }, null, el.pathButtons);
			b.style.setProperty("--path-colour", p.colour);
			html("span", { "class": "key" }, String(i + 1), b);
			b.appendChild(window.PathlabDraw.marker(p));
			var nm = html("span", { "class": "name" }, null, b);
			html("span", {}, p.name, nm);
			var m = measured(p);
			if (m && m.thr && m.thr.pps != null)
				html("span", { "class": "button-measure",
					"data-measured": "1" },
					METRICS.pps.short(m), nm);
			b.addEventListener("click", function () {
				selectPath(i);
			});
		});
	}

	function renderDetail() {
		var p = path(), list = steps(), s = list[state.step];
		var m = measuredView(p);
		el.where.textContent = bandName(s.band) + " · " +
			(s.once ? "setup, once" : "per packet") + " · step " +
			(state.step + 1) + " of " + list.length;
		el.where.setAttribute("data-band", s.band);
		el.stepTitle.textContent = s.title;
		el.stepText.textContent = s.text || "";
		clear(el.stepFacts);
		var facts = [];
		if (s.mark === "syscall")
			facts.push(["◆", "a system call"]);
		if (s.mark === "copy")
			facts.push(["⧉", "a CPU copy of the payload"]);
		if (s.stays)
			facts.push(["!", "a hop GPUDirect cannot remove here"]);
		facts.forEach(function (f) {
			var li = html("li", { "class": "fact" }, null, el.stepFacts);
			html("span", { "class": "fact-icon", "aria-hidden": "true" },
				f[0], li);
			li.appendChild(document.createTextNode(" " + f[1]));
		});
		if (s.code) {
			var li = html("li", { "class": "code" }, null, el.stepFacts);
			li.appendChild(document.createTextNode("calls: "));
			html("code", {}, s.code, li);
		}
		if (s.trace) {
			var lt = html("li", { "class": "trace" }, null, el.stepFacts);
			lt.appendChild(document.createTextNode("in --trace: "));
			html("code", {}, s.trace + (s.example ? "  " + s.example : ""),
				lt);
		}
		clear(el.stepMeasured);
		var gpuView = state.gpu && p.gpu.steps;
		(s.measure || []).forEach(function (k) {
			var mt = METRICS[k];
			if (!mt || !m)
				return;
			var v = mt.get(m);
			if (!v)
				return;
			var li = html("li", { "data-measured": "1" }, null,
				el.stepMeasured);
			html("span", { "class": "mlabel" }, mt.label + ": ", li);
			html("strong", {}, v, li);
			var note = mt.note && mt.note(m);
			if (note)
				html("span", { "class": "mnote" }, " — " + note, li);
		});
		if (!el.stepMeasured.firstChild) {
			var why = !state.results ? "Load a results.json to see " +
				"measured figures." : !m && gpuView ? "No GPU runs of " +
				p.name + " in " + state.source + " (labs/pathlab " +
				"compare --gpu sim)." : !m ? "No runs of " + p.name +
				" in " + state.source + "." : "";
			if (why)
				html("li", { "class": "none" }, why, el.stepMeasured);
		}
		el.prev.disabled = state.step === 0;
		el.next.disabled = state.step === list.length - 1;
	}

	function renderPathInfo() {
		var p = path();
		el.blurb.textContent = p.blurb;
		el.lab.textContent = p.lab || "";
		el.lab.hidden = !p.lab;
		el.gpuButton.setAttribute("aria-pressed", String(state.gpu));
		el.gpuState.textContent = state.gpu ? "on" : "off";
		el.gpuVerdict.textContent = state.gpu ? p.gpu.verdict :
			"GPUDirect off: the packet is for code on the CPU. Press g " +
			"to send it to a GPU instead.";
		el.gpuVerdict.setAttribute("data-direct", state.gpu ?
			String(p.gpu.direct) : "off");
	}

	function renderGivesUp() {
		var t = el.givesUp, gu = F.givesUp, col = path().column;
		clear(t);
		html("caption", {}, "What each path gives up", t);
		var head = html("tr", {}, null, html("thead", {}, null, t));
		html("th", { scope: "col" }, "", head);
		gu.columns.forEach(function (c, i) {
			var th = html("th", { scope: "col", "class": i === col ?
				"current" : "other" }, null, head);
			if (i === col)
				th.setAttribute("aria-current", "true");
			th.appendChild(document.createTextNode((i === col ? "▶ " :
				"") + c));
		});
		var body = html("tbody", {}, null, t), m = measured(path());
		gu.rows.forEach(function (r) {
			var tr = html("tr", {}, null, body);
			html("th", { scope: "row" }, r[0], tr);
			for (var i = 1; i < r.length; i++) {
				var td = html("td", { "class": i - 1 === col ? "current" :
					"other" }, r[i], tr);
				var here = i - 1 === col && m && measuredHere(r[0], m);
				if (here)
					html("span", { "class": "here",
						"data-measured": "1" }, here, td);
			}
		});
	}

	/* A measured line for some rows of the table, in the current column. */
	function measuredHere(row, m) {
		var k = /^CPU copies/.test(row) ? "copies" :
			/^tcpdump/.test(row) ? "tcpdump" :
			/^Interrupts/.test(row) ? "wakeups" :
			/^What you give up/.test(row) ? "cycles_rx" : null;
		var v = k && METRICS[k].get(m);
		if (!v)
			return "";
		return "measured here (" + m.mode + ", " + state.size + " B), " +
			METRICS[k].label + ": " + v;
	}

	function renderMeasured() {
		var box = el.measured, p = path();
		clear(box);
		el.sizeChoice.hidden = !state.results;
		el.modeChoice.hidden = true;
		if (!state.results) {
			html("p", { "class": "none" }, "No results loaded. Run " +
				"labs/pathlab compare, then open the index.html it writes " +
				"beside results.json, or pick or drop a results.json here.",
				box);
			el.plots.hidden = true;
			return;
		}
		renderChoices(p);
		var r = state.results, h = r.host || {};
		var envs = {};
		r.runs.forEach(function (x) {
			if (x && x.env)
				envs[M.envName(x.env) + (M.inVm(x) ? " (" +
					M.vmHow(x) + ")" : "")] = 1;
			if (x && x.gpu === "sim")
				envs["emulated GPU"] = 1;
		});
		html("p", { "class": "source" }, "From " + state.source + ": " +
			Object.keys(envs).join(", ") + "; " + (h.cpu_model || "CPU") +
			", " + (h.cpus || "?") + " CPUs; " + (h.date || "") + ".", box);
		var ip = state.index.paths[p.id];
		if (!ip) {
			html("p", { "class": "none" }, "No runs of " + p.name +
				" in these results.", box);
		} else {
			measuredTable(box, p, ip);
		}
		var plots = window.PATHLAB_PLOTS;
		el.plots.hidden = !(state.source === "results.js" &&
			Array.isArray(plots) && plots.length);
		if (!el.plots.hidden) {
			clear(el.plotLinks);
			plots.forEach(function (f) {
				var li = html("li", {}, null, el.plotLinks);
				html("a", { href: f }, f, li);
			});
		}
	}

	function renderChoices(p) {
		var sel = el.size;
		clear(sel);
		state.index.sizes.forEach(function (s) {
			var o = html("option", { value: s }, s + " B", sel);
			if (s === state.size)
				o.selected = true;
		});
		var ip = state.index.paths[p.id];
		if (ip && ip.modes.length > 1) {
			el.modeChoice.hidden = false;
			clear(el.mode);
			var cur = measured(p).mode;
			ip.modes.forEach(function (md) {
				var o = html("option", { value: md }, md, el.mode);
				if (md === cur)
					o.selected = true;
			});
		}
	}

	/* One row per mode and frame size of path p: the headline figures. */
	function measuredTable(box, p, ip) {
		var first = null;
		Object.keys(ip.cpu).some(function (md) {
			return Object.keys(ip.cpu[md]).some(function (sz) {
				var w = ip.cpu[md][sz];
				first = w.throughput || w.latency || w.visibility ||
					null;
				return !!first;
			});
		});
		if (first && M.inVm(first))
			html("p", { "class": M.comparable(first) ? "software" :
				"emulated", "data-measured": "1" },
				M.comparable(first) ? "Software RDMA: Soft-RoCE in a " +
				"VM (" + M.vmHow(first) + "), beside the host rows." :
				"Soft-RoCE VM (" + M.vmHow(first) + "): " + M.EMULATED +
				". Read its figures against perftest in the same VM " +
				"(the ratio in the table of compare), not against " +
				"the other paths.", box);
		var t = html("table", { "class": "measured-table" }, null, box);
		html("caption", {}, "Measured: " + p.name, t);
		var cols = ["mode", "frame", "received", "p99 latency",
			"receive cycles/pkt", "syscalls/pkt", "copies/pkt",
			"tcpdump saw", "where NAPI ran"];
		var hr = html("tr", {}, null, html("thead", {}, null, t));
		cols.forEach(function (c) {
			html("th", { scope: "col" }, c, hr);
		});
		var body = html("tbody", {}, null, t);
		var saveMode = state.mode[p.id], saveSize = state.size;
		var shown = measured(p).mode;
		ip.modes.concat(ip.gpuModes.filter(function (x) {
			return ip.modes.indexOf(x) < 0;
		})).forEach(function (md) {
			state.index.sizes.forEach(function (sz) {
				if (!(ip.cpu[md] || {})[sz])
					return;
				state.mode[p.id] = md;
				state.size = sz;
				var m = measured(p);
				var tr = html("tr", { "data-measured": "1", "class":
					md === shown && sz === saveSize ? "current" :
					"" }, null, body);
				var pps = METRICS.pps.get(m), cyc = m.thr &&
					m.thr.receive_cycles_per_packet;
				[md, sz + " B", pps && pps.replace(M.caveat(m), ""),
				 METRICS.p99.get(m),
				 cyc ? num(cyc.total, 0) + (M.comparable(m.thr) ? "" :
					 " (emulated)") : null,
				 m.thr ? num(m.thr.syscalls_per_packet, 3) : null,
				 m.thr ? num(m.thr.copies_per_packet, 2) : null,
				 METRICS.tcpdump.get(m),
				 METRICS.placement.get(m)].forEach(function (v, i) {
					html(i < 2 ? "th" : "td", i < 2 ? { scope: "row" } :
						{}, v == null ? "-" : v, tr);
				});
			});
		});
		state.mode[p.id] = saveMode;
		state.size = saveSize;
	}

	function render() {
		var list = steps();
		if (state.step >= list.length)
			state.step = list.length - 1;
		if (state.step < 0)
			state.step = 0;
		document.body.setAttribute("data-path", path().id);
		renderPathButtons();
		renderPathInfo();
		drawFigure();
		renderDetail();
		renderGivesUp();
		renderMeasured();
	}

	/* ---- actions ---- */

	function selectPath(i) {
		if (i < 0 || i >= F.paths.length)
			return;
		if (i !== state.path) {
			state.path = i;
			state.step = 0;
		}
		render();
	}

	function step(d) {
		var n = steps().length, s = Math.max(0, Math.min(n - 1,
			state.step + d));
		if (s !== state.step) {
			state.step = s;
			render();
			/* A tall figure (narrow window): keep the step in sight. */
			var cur = el.svg.querySelector(".step.current");
			if (cur && cur.scrollIntoView)
				cur.scrollIntoView({ block: "nearest" });
		}
	}

	function toggleGpu() {
		var before = steps()[state.step], list, i;
		state.gpu = !state.gpu;
		/*
		 * Stay on the same step if both views have it; else go to the
		 * first setup or the first per-packet step, as before.
		 */
		list = steps();
		i = list.indexOf(before);
		if (i < 0) {
			i = 0;
			while (!before.once && i < list.length - 1 && list[i].once)
				i++;
		}
		state.step = i;
		render();
	}

	function onKey(e) {
		var t = e.target && e.target.tagName;
		if (e.ctrlKey || e.altKey || e.metaKey ||
			t === "INPUT" || t === "SELECT" || t === "TEXTAREA")
			return;
		var k = e.key;
		if (k === "ArrowRight")
			step(1);
		else if (k === "ArrowLeft")
			step(-1);
		else if (k === "Home")
			step(-1e3);
		else if (k === "End")
			step(1e3);
		else if (k === "g" || k === "G")
			toggleGpu();
		else if (k >= "1" && k <= String(F.paths.length))
			selectPath(Number(k) - 1);
		else
			return;
		e.preventDefault();
	}

	function parseFragment() {
		var out = {};
		location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
			var p = kv.split("=");
			if (p[0])
				out[decodeURIComponent(p[0])] = p.length > 1 ?
					decodeURIComponent(p[1]) : "1";
		});
		return out;
	}

	function applyFragment(f) {
		F.paths.forEach(function (p, i) {
			if (p.id === f.path)
				state.path = i;
		});
		if (f.gpu === "1" || f.gpu === "on")
			state.gpu = true;
		if (f.size && state.index &&
			state.index.sizes.indexOf(Number(f.size)) >= 0)
			state.size = Number(f.size);
		if (f.step)
			state.step = Math.max(0, Number(f.step) - 1) || 0;
	}

	function wire() {
		["svg", "wrap", "pathButtons", "where", "stepTitle", "stepText",
		 "stepFacts", "stepMeasured", "prev", "next", "gpuButton",
		 "gpuState", "gpuVerdict", "blurb", "lab", "givesUp", "measured",
		 "status", "file", "drop", "size", "sizeChoice", "mode",
		 "modeChoice", "plots", "plotLinks"].forEach(function (id) {
			el[id] = document.getElementById(id.replace(/[A-Z]/g,
				function (c) { return "-" + c.toLowerCase(); }));
		});
		el.prev.addEventListener("click", function () { step(-1); });
		el.next.addEventListener("click", function () { step(1); });
		el.gpuButton.addEventListener("click", toggleGpu);
		document.addEventListener("keydown", onKey);
		el.file.addEventListener("change", function () {
			api.lastLoad = loadFiles(el.file.files);
		});
		el.size.addEventListener("change", function () {
			state.size = Number(el.size.value);
			render();
		});
		el.mode.addEventListener("change", function () {
			state.mode[path().id] = el.mode.value;
			render();
		});
		/* Drop a results.json anywhere on the page. */
		document.addEventListener("dragover", function (e) {
			e.preventDefault();
			document.body.classList.add("dragging");
		});
		document.addEventListener("dragleave", function (e) {
			if (!e.relatedTarget)
				document.body.classList.remove("dragging");
		});
		document.addEventListener("drop", function (e) {
			e.preventDefault();
			document.body.classList.remove("dragging");
			api.lastLoad = loadFiles(e.dataTransfer && e.dataTransfer.files);
		});
		var pending = 0;
		var redraw = function () {
			if (pending)
				return;
			pending = requestAnimationFrame(function () {
				pending = 0;
				drawFigure();
			});
		};
		if (window.ResizeObserver)
			new ResizeObserver(redraw).observe(el.wrap);
		else
			window.addEventListener("resize", redraw);
	}

	/* What the self-test (and anyone curious) may drive. */
	var api = {
		state: state, paths: F.paths, steps: steps, render: render,
		selectPath: selectPath, step: step, toggleGpu: toggleGpu,
		loadFiles: loadFiles, loadText: loadText, lastLoad: null,
		snapshot: function () {
			return new XMLSerializer().serializeToString(el.svg);
		}
	};
	window.PathlabFigure = api;

	function start() {
		/* Inside a slide (an iframe): no page header, the figure first. */
		if (window.self !== window.top)
			document.body.classList.add("framed");
		wire();
		var f = parseFragment();
		if (window.PATHLAB_RESULTS) {
			var err = applyResults(window.PATHLAB_RESULTS, "results.js");
			setStatus(err ? "results.js beside this page: " + err :
				"Loaded results.js beside this page: " +
				window.PATHLAB_RESULTS.runs.length + " runs.", !!err);
		}
		applyFragment(f);
		render();
		document.body.setAttribute("data-ready", "1");
		if ((f.selftest || /[?&]selftest=1/.test(location.search)) &&
			window.PathlabSelftest)
			window.PathlabSelftest.run(api);
	}

	if (document.readyState === "loading")
		document.addEventListener("DOMContentLoaded", start);
	else
		start();
})();
