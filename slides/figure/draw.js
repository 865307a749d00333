/*
 * draw.js - the SVG of the figure: bands (user space, kernel, NIC, GPU),
 * one box per step, arrows for the packet's movement marked with what
 * moves it, and the measured figures in the boxes. PathlabDraw.figure()
 * draws a view; figure.js owns the state and calls it on every change.
 *
 * A view: bands, path, steps, step (the current index), gpu (GPUDirect
 * view on), m (the runs on screen, or null), onStep(i) (a box clicked).
 */
"use strict";

(function () {
	var SVG = "http://www.w3.org/2000/svg";
	var METRICS = window.PathlabMeasure.METRICS;
	var V;

	/* ---- SVG helpers ---- */

	function svgEl(name, attrs, parent) {
		var e = document.createElementNS(SVG, name), k;
		for (k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function svgText(parent, x, y, text, attrs) {
		var a = attrs || {}, lines = String(text).split("\n");
		var size = a.size || 15, t, i;
		t = svgEl("text", { x: x, "font-size": size,
			"text-anchor": a.anchor || "middle",
			"class": a.cls || "" }, parent);
		var first = y - (lines.length - 1) * size * 0.6;
		for (i = 0; i < lines.length; i++) {
			var sp = svgEl("tspan", { x: x,
				y: first + i * size * 1.2 }, t);
			sp.textContent = lines[i];
		}
		return t;
	}

	/* The outline of a path's marker shape, centred on (x, y). */
	function shapePath(shape, x, y, r) {
		var pts, i, a;
		switch (shape) {
		case "triangle":
			pts = [[x, y - r], [x + r, y + r * 0.8], [x - r, y + r * 0.8]];
			break;
		case "square":
			pts = [[x - r * 0.85, y - r * 0.85], [x + r * 0.85, y - r * 0.85],
				[x + r * 0.85, y + r * 0.85], [x - r * 0.85, y + r * 0.85]];
			break;
		case "diamond":
			pts = [[x, y - r], [x + r, y], [x, y + r], [x - r, y]];
			break;
		case "hexagon":
			pts = [];
			for (i = 0; i < 6; i++) {
				a = Math.PI / 3 * i;
				pts.push([x + r * Math.cos(a), y + r * Math.sin(a)]);
			}
			break;
		default:
			return "M" + (x - r) + "," + y + "a" + r + "," + r +
				" 0 1,0 " + 2 * r + ",0a" + r + "," + r + " 0 1,0 " +
				-2 * r + ",0Z";
		}
		return "M" + pts.map(function (p) {
			return p[0].toFixed(1) + "," + p[1].toFixed(1);
		}).join("L") + "Z";
	}

	/* A path's marker as a small inline SVG (buttons, tables). */
	function marker(p, size) {
		var s = size || 22, m = svgEl("svg", { width: s, height: s,
			viewBox: "0 0 24 24", "aria-hidden": "true",
			"class": "marker" });
		svgEl("path", { d: shapePath(p.shape, 12, 12, 9), fill: p.colour,
			stroke: "#111", "stroke-width": 1.5 }, m);
		return m;
	}

	/* ---- layout ---- */

	var BAND_FILL = { user: "#eaf2fb", kernel: "#f7f0e1", nic: "#e9f5ee",
		gpu: "#f3ecf6" };

	/*
	 * Place n steps: wide windows put bands in rows and steps left to
	 * right; narrow ones put bands in columns and steps top to bottom.
	 */
	function layout(width, list) {
		var n = list.length, bands = V.bands.length, L = { boxes: [] };
		var label = 108, pad = 10, colW = (width - label - 2 * pad) / n;
		L.vertical = colW < 76;
		L.width = width;
		if (!L.vertical) {
			/* Bands as rows; the GPU's is thin while it has no steps. */
			L.bandH = 100;
			L.top = 36;
			L.rowY = [];
			L.rowH = [];
			var y = L.top;
			V.bands.forEach(function (b) {
				var used = b.id !== "gpu" || list.some(function (s) {
					return s.band === "gpu";
				});
				L.rowY.push(y);
				L.rowH.push(used ? L.bandH : 56);
				y += L.rowH[L.rowH.length - 1];
			});
			L.height = y + 4;
			L.font = Math.max(12, Math.min(17, colW / 7.4));
			L.colW = colW;
			L.x0 = label + pad;
			list.forEach(function (s, i) {
				var b = bandIndex(s.band), w = Math.min(colW - 14, 190);
				L.boxes.push({ x: L.x0 + i * colW + (colW - w) / 2,
					y: L.rowY[b] + 12, w: w, h: 74 });
			});
		} else {
			var cw = (width - 2 * pad) / bands;
			L.head = 52;
			L.stepH = 98;
			L.top = L.head + 34;
			L.height = L.top + n * L.stepH + 8;
			L.font = Math.max(12, Math.min(15, cw / 7.2));
			L.colW = cw;
			list.forEach(function (s, i) {
				var b = bandIndex(s.band), w = cw - 16;
				L.boxes.push({ x: pad + b * cw + 6,
					y: L.top + i * L.stepH + 6, w: w, h: 74 });
			});
		}
		return L;
	}

	function bandIndex(id) {
		for (var i = 0; i < V.bands.length; i++)
			if (V.bands[i].id === id)
				return i;
		return 0;
	}

	/* ---- drawing ---- */

	function drawBands(svg, L, list) {
		var g = svgEl("g", { "class": "bands" }, svg), pad = 10;
		V.bands.forEach(function (b, i) {
			var rect, text;
			if (!L.vertical) {
				rect = { x: 0, y: L.rowY[i], width: L.width,
					height: L.rowH[i] - 4 };
				text = [8, L.rowY[i] + 28];
			} else {
				rect = { x: pad + i * L.colW, y: 0, width: L.colW - 4,
					height: L.height };
				text = [pad + i * L.colW + L.colW / 2, 22];
			}
			rect.fill = BAND_FILL[b.id];
			rect["class"] = "band band-" + b.id;
			svgEl("rect", rect, g);
			svgText(g, text[0], text[1], b.name, { size: L.vertical ?
				15 : 17, anchor: L.vertical ? "middle" : "start",
				cls: "band-name" });
			svgText(g, text[0], text[1] + 20, b.note, { size: 13,
				anchor: L.vertical ? "middle" : "start",
				cls: "band-note" });
		});
		/* Setup, then per packet: a divider between the phases. */
		var k = 0;
		while (k < list.length && list[k].once)
			k++;
		var phases = svgEl("g", { "class": "phases" }, svg);
		if (!L.vertical) {
			var xd = L.x0 + k * L.colW;
			if (k > 0)
				svgText(phases, (L.x0 + xd) / 2, 26, "setup, once",
					{ size: 16, cls: "phase" });
			svgText(phases, (xd + L.x0 + list.length * L.colW) / 2, 26,
				"per packet", { size: 16, cls: "phase" });
			if (k > 0)
				svgEl("line", { x1: xd, y1: 8, x2: xd, y2: L.height,
					"class": "divider" }, phases);
		} else {
			var yd = L.top + k * L.stepH;
			if (k > 0)
				svgText(phases, 14, L.top - 10, "setup, once",
					{ size: 14, anchor: "start", cls: "phase" });
			svgText(phases, 14, yd + 4 - (k > 0 ? 0 : 10), "per packet",
				{ size: 14, anchor: "start", cls: "phase" });
			if (k > 0)
				svgEl("line", { x1: 0, y1: yd - 12, x2: L.width,
					y2: yd - 12, "class": "divider" }, phases);
		}
	}

	/*
	 * The route of an arrow from box a to box b, and where its label
	 * goes. Within a band: straight. Across bands: leave a along the
	 * direction of the steps, turn in b's column (row, with bands as
	 * columns) and enter b from its near edge. b's column has nothing
	 * else in a's band, so neither the line nor its label hides a box.
	 */
	function route(L, a, b) {
		var acx = a.x + a.w / 2, acy = a.y + a.h / 2;
		var bcx = b.x + b.w / 2, bcy = b.y + b.h / 2, e;
		if (!L.vertical) {
			if (a.y === b.y)
				return { pts: [[a.x + a.w, acy], [b.x, bcy]],
					label: [(a.x + a.w + b.x) / 2, acy - 16] };
			e = b.y > a.y ? b.y : b.y + b.h;
			return { pts: [[a.x + a.w, acy], [bcx, acy], [bcx, e]],
				label: [bcx, (acy + e) / 2] };
		}
		if (a.x === b.x)
			return { pts: [[acx, a.y + a.h], [bcx, b.y]],
				label: [acx + a.w / 4, (a.y + a.h + b.y) / 2] };
		e = b.x > a.x ? b.x : b.x + b.w;
		return { pts: [[acx, a.y + a.h], [acx, bcy], [e, bcy]],
			label: [acx, (a.y + a.h + bcy) / 2] };
	}

	/* Fit a text element into width w by squeezing it if it is wider. */
	function fit(t, w) {
		var spans = t.childNodes, i;
		for (i = 0; i < spans.length; i++) {
			if (spans[i].getComputedTextLength &&
				spans[i].getComputedTextLength() > w) {
				spans[i].setAttribute("textLength", w);
				spans[i].setAttribute("lengthAdjust", "spacingAndGlyphs");
			}
		}
		return t;
	}

	var ARROW = {
		dma: { label: "DMA", width: 4 },
		pcie: { label: "PCIe", width: 4, dash: "12 5" },
		copy: { label: "CPU copy", width: 4, badge: true },
		syscall: { label: "syscall", width: 2.5 },
		wake: { label: "wake-up", width: 2, dash: "7 5" },
		ring: { label: "ring", width: 2 },
		flow: { label: "", width: 2 },
		ctl: { label: "", width: 1.5, dash: "3 5" }
	};

	function drawArrow(g, L, a, b, kind, label, cls, r) {
		var st = ARROW[kind] || ARROW.flow, rt = r || route(L, a, b);
		var pts = rt.pts.slice(), n = pts.length;
		/* Stop short of the box so the head does not hide in its border. */
		var dx = pts[n - 1][0] - pts[n - 2][0];
		var dy = pts[n - 1][1] - pts[n - 2][1], d = Math.sqrt(dx * dx +
			dy * dy) || 1;
		pts[n - 1] = [pts[n - 1][0] - 3 * dx / d, pts[n - 1][1] -
			3 * dy / d];
		var line = svgEl("polyline", { points: pts.map(function (p) {
			return p[0].toFixed(1) + "," + p[1].toFixed(1);
		}).join(" "), fill: "none", "stroke-width": st.width,
			"stroke-linejoin": "round",
			"class": "arrow arrow-" + kind + (cls ? " " + cls : ""),
			"marker-end": "url(#" + (/ghost/.test(cls || "") ?
				"head-ghost" : "head") + ")" }, g);
		if (st.dash)
			line.setAttribute("stroke-dasharray", st.dash);
		if (/ghost/.test(cls || "")) {
			line.setAttribute("stroke-width", 2.5);
			line.setAttribute("stroke-dasharray", "6 5");
		}
		var text = label != null ? label : st.label;
		if (!text)
			return;
		var mx = rt.label[0], my = rt.label[1];
		var size = Math.max(12, L.font - 2);
		var w = Math.min(text.length * size * 0.62 + 10, L.colW - 4);
		svgEl("rect", { x: mx - w / 2, y: my - size * 0.8, width: w,
			height: size * 1.5, rx: 4, "class": "arrow-label-bg" +
			(st.badge ? " badge" : "") + (cls ? " " + cls : "") }, g);
		fit(svgText(g, mx, my + size * 0.35, text, { size: size,
			cls: "arrow-label" + (st.badge ? " badge" : "") +
			(cls ? " " + cls : "") }), w - 6);
	}

	/* A badge on a box: a diamond for a system call, two squares for a copy. */
	function drawMark(g, box, mark) {
		var x = box.x + box.w - 13, y = box.y + 13;
		if (mark === "syscall") {
			svgEl("path", { d: shapePath("diamond", x, y, 8),
				"class": "mark mark-syscall" }, g);
		} else if (mark === "copy") {
			svgEl("rect", { x: x - 8, y: y - 8, width: 10, height: 10,
				"class": "mark mark-copy" }, g);
			svgEl("rect", { x: x - 3, y: y - 3, width: 10, height: 10,
				"class": "mark mark-copy" }, g);
		}
	}

	/* The short measured figure under a box, if results are loaded. */
	function stepAnnotation(s, m) {
		if (!m || !s.measure)
			return "";
		for (var i = 0; i < s.measure.length; i++) {
			var mt = METRICS[s.measure[i]];
			if (mt && mt.get(m))
				return mt.short(m);
		}
		return "";
	}

	function drawSteps(svg, L, list, p) {
		var g = svgEl("g", { "class": "steps" }, svg);
		var m = V.m, firstPacket = -1, i;
		for (i = 0; i < list.length; i++)
			if (!list[i].once) {
				firstPacket = i;
				break;
			}
		/* Arrows first, under the boxes. */
		var ag = svgEl("g", { "class": "arrows" }, g);
		list.forEach(function (s, i) {
			if (i === 0 || !s.into)
				return;
			var cls = i > V.step ? "future" : "";
			drawArrow(ag, L, L.boxes[i - 1], L.boxes[i], s.into,
				s.intoLabel, cls);
		});
		if (firstPacket >= 0)
			drawWire(ag, L, L.boxes[firstPacket], firstPacket > V.step);
		var gv = V.gpu && p.gpu.steps && p.gpu.removedAt;
		if (gv)
			drawRemoved(ag, L, gv);
		list.forEach(function (s, i) {
			var b = L.boxes[i], cls = "step " + (s.once ? "once" : "packet");
			if (i === V.step)
				cls += " current";
			else if (i > V.step)
				cls += " future";
			if (s.stays)
				cls += " stays";
			var sg = svgEl("g", { "class": cls, "data-step": i,
				"data-band": s.band }, g);
			var r = svgEl("rect", { x: b.x, y: b.y, width: b.w, height: b.h,
				rx: 7, "class": "box" }, sg);
			if (i === V.step)
				r.setAttribute("style", "stroke:" + p.colour);
			svgText(sg, b.x + 6, b.y + 15, String(i + 1), { size: 12,
				anchor: "start", cls: "step-no" });
			fit(svgText(sg, b.x + b.w / 2, b.y + 40, s.label,
				{ size: L.font, cls: "step-label" }), b.w - 10);
			drawMark(sg, b, s.mark);
			var a = stepAnnotation(s, m);
			if (a) {
				var t = fit(svgText(sg, b.x + b.w / 2, b.y + b.h - 7, a,
					{ size: Math.max(12, L.font - 3), cls: "annot" }),
					b.w - 8);
				t.setAttribute("data-measured", "1");
			}
			sg.addEventListener("click", function () {
				V.onStep(i);
			});
		});
	}

	/* The packet arrives from the wire into the first per-packet step. */
	function drawWire(g, L, b, future) {
		var x1, y1, x2, y2, tx, ty;
		if (!L.vertical) {
			x1 = b.x - Math.min(56, L.colW * 0.6);
			x2 = b.x;
			y1 = y2 = b.y + b.h / 2 + 12;
			tx = x1;
			ty = y1 + 18;
		} else {
			x1 = x2 = b.x + b.w / 2;
			y1 = b.y - 30;
			y2 = b.y;
			tx = x1 + 6;
			ty = y1 + 12;
		}
		svgEl("line", { x1: x1, y1: y1, x2: x2 - (L.vertical ? 0 : 3),
			y2: y2 - (L.vertical ? 3 : 0), "stroke-width": 3,
			"class": "arrow arrow-wire" + (future ? " future" : ""),
			"marker-end": "url(#head)" }, g);
		svgText(g, tx, ty, "wire", { size: 13, anchor: "start",
			cls: "arrow-label wire" + (future ? " future" : "") });
	}

	/*
	 * GPUDirect view: step k is where the payload lands in GPU memory,
	 * step k - 1 the NIC's DMA. Above the NIC, in host memory, draw the
	 * hop GPUDirect removed (a host buffer, then a copy to the GPU),
	 * crossed out.
	 */
	function drawRemoved(g, L, k) {
		var to = L.boxes[k], from = L.boxes[k - 1], gh, r1, r2;
		var ub = bandIndex("user"), f = Math.max(12, L.font - 2);
		if (!L.vertical) {
			gh = { x: from.x, y: L.rowY[ub] + 12, w: from.w, h: from.h };
			var gx = to.x + to.w * 0.25;
			r1 = { pts: [[from.x + from.w / 2, from.y],
				[gh.x + gh.w / 2, gh.y + gh.h]], label: [0, 0] };
			r2 = { pts: [[gh.x + gh.w, gh.y + gh.h / 2],
				[gx, gh.y + gh.h / 2], [gx, to.y]], label: [0, 0] };
		} else {
			gh = { x: 10 + ub * L.colW + 6, y: from.y, w: from.w,
				h: from.h };
			var gy = to.y + to.h * 0.75;
			r1 = { pts: [[from.x, from.y + from.h / 2],
				[gh.x + gh.w, gh.y + gh.h / 2]], label: [0, 0] };
			r2 = { pts: [[gh.x + gh.w / 2, gh.y + gh.h],
				[gh.x + gh.w / 2, gy], [to.x, gy]], label: [0, 0] };
		}
		var gg = svgEl("g", { "class": "removed" }, g);
		svgEl("title", {}, gg).textContent = "The hop through host " +
			"memory (a host buffer, then a copy to the GPU): removed by " +
			"GPUDirect";
		drawArrow(gg, L, null, null, "dma", "", "ghost", r1);
		drawArrow(gg, L, null, null, "pcie", "", "ghost", r2);
		svgEl("rect", { x: gh.x, y: gh.y, width: gh.w, height: gh.h,
			rx: 7, "class": "ghost-box" }, gg);
		fit(svgText(gg, gh.x + gh.w / 2, gh.y + 36,
			"host buffer,\ncopy to GPU", { size: f, cls: "ghost-label" }),
			gh.w - 10);
		var cx = gh.x + gh.w - 12, cy = gh.y + 12;
		svgEl("path", { d: "M" + (cx - 7) + "," + (cy - 7) + "l14,14m0,-14" +
			"l-14,14", "class": "ghost-cross" }, gg);
		fit(svgText(gg, gh.x + gh.w / 2, gh.y + gh.h - 7,
			"removed", { size: Math.max(12, L.font - 3),
			cls: "ghost-note" }), gh.w - 8);
	}

	/* The GPU band's message when the GPU has nothing on screen. */
	function drawGpuNote(svg, L, p) {
		var text;
		if (!V.gpu)
			text = "GPUDirect off: the packet is for the CPU. Press g.";
		else if (!p.gpu.steps)
			text = "Not applicable: " + p.gpu.verdict.split(": ")[1];
		else
			return;
		var b = bandIndex("gpu");
		if (!L.vertical)
			fit(svgText(svg, L.x0 + 8, L.rowY[b] + 32, text,
				{ size: 16, anchor: "start", cls: "gpu-note" }),
				L.width - L.x0 - 16);
		else
			svgText(svg, 10 + b * L.colW + L.colW / 2, L.top - 8,
				V.gpu ? "n/a" : "off", { size: 14, cls: "gpu-note" });
	}

	function drawDefs(svg) {
		var d = svgEl("defs", {}, svg);
		[["head", "arrow-head"], ["head-ghost", "arrow-head ghost"]]
			.forEach(function (h) {
				var mk = svgEl("marker", { id: h[0], viewBox: "0 0 10 10",
					refX: 8, refY: 5, markerWidth: 5, markerHeight: 5,
					orient: "auto-start-reverse" }, d);
				svgEl("path", { d: "M0,0L10,5L0,10Z", "class": h[1] }, mk);
			});
	}

	/* Draw view v into svg, width pixels wide. */
	function drawFigure(svg, width, v) {
		V = v;
		var p = v.path, list = v.steps;
		var L = layout(width, list);
		while (svg.firstChild)
			svg.removeChild(svg.firstChild);
		svg.setAttribute("viewBox", "0 0 " + L.width + " " + L.height);
		svg.setAttribute("width", L.width);
		svg.setAttribute("height", L.height);
		svg.setAttribute("class", "paths " + (L.vertical ? "vertical" :
			"horizontal") + (v.gpu ? " gpu-on" : ""));
		svg.setAttribute("data-path", p.id);
		svg.setAttribute("data-gpu", v.gpu ? "on" : "off");
		var s = list[v.step];
		svg.setAttribute("aria-label", p.name + ", " + (v.gpu ?
			"GPUDirect on" : "GPUDirect off") + ": step " +
			(v.step + 1) + " of " + list.length + ", " + s.title +
			" (" + bandName(s.band) + ")");
		var title = svgEl("title", {}, svg);
		title.textContent = svg.getAttribute("aria-label");
		drawDefs(svg);
		drawBands(svg, L, list);
		drawGpuNote(svg, L, p);
		drawSteps(svg, L, list, p);
	}

	function bandName(id) {
		return V.bands[bandIndex(id)].name;
	}

	window.PathlabDraw = { figure: drawFigure, marker: marker };
})();
