-- pathlab.lua - the pandoc filter of the decks: it replaces the directive
-- comments of slides/NN-name.md with code from the sources, figures from a
-- results.json, the plots drawn from it and the interactive figure.
--
--   <!-- code: FILE MARKER [FROM..TO] --> the region /* 8< MARKER */ ...
--                                   /* >8 MARKER */ of FILE (relative to the
--                                   repository); FROM..TO: only part of it,
--                                   from the first line containing FROM to
--                                   the next containing TO (either may be a
--                                   line number, or empty for the region's
--                                   start or end), the rest noted as left out
--   <!-- results: measured SIZE [all|gpu|nogpu] --> every path's main
--                                   figures, one row each (nogpu: without
--                                   GPU variants; gpu: only paths that have one)
--   <!-- results: label [ID] -->    where, when and how the numbers were made
--                                   (of path ID's runs only, with ID; gpu or
--                                   nogpu as for measured)
--   <!-- results: summary SIZE -->  labs/plab's summary at SIZE-byte frames
--   <!-- results: path ID SIZE -->  one path's rows, more columns
--   <!-- results: budget -->        the cycle budget per frame size measured
--   <!-- results: choose SIZE -->   what each path gives up, with its figures
--   <!-- plot: NAME -->             NAME.svg drawn beside results.json
--   <!-- figure: PATH [K=V...] -->  the interactive figure, opened at PATH
--                                   (#path=PATH&K=V: gpu=1, size=64, step=N)
--   <!-- budget: GHZ -->            line-rate arithmetic at a GHZ clock
--
-- Any other comment whose first word ends in ':' is an error, so a typo
-- never turns into a silently missing slide. A directive that cannot be
-- resolved (a marker that disappeared, a results file without runs) stops
-- the build: pandoc exits non-zero with the reason.
--
-- It reads its settings from the environment (labs/lib/slides.sh sets
-- them): PL_ROOT (the repository), PL_TOOLS (this folder), PL_RESULTS (the
-- results.json the deck shows, with its plots beside it, as a path
-- relative to the deck's folder), PL_OUT (the deck's folder), PL_FIGURE
-- (the figure page relative to the deck, empty when there is none).

local root = os.getenv("PL_ROOT") or "."
local tools = os.getenv("PL_TOOLS") or (root .. "/slides/tools")
local out = os.getenv("PL_OUT") or "."
local results_rel = os.getenv("PL_RESULTS") or ""
local figure_rel = os.getenv("PL_FIGURE") or ""
local deck = PANDOC_STATE and PANDOC_STATE.input_files[1] or "deck"

-- Stop the build with a message that names the deck and the directive.
local function fail(directive, msg)
	error("\n" .. deck .. ": <!-- " .. directive .. " -->: " .. msg, 0)
end

local function read_file(path)
	local f = io.open(path, "r")
	if not f then
		return nil
	end
	local s = f:read("a")
	f:close()
	return s
end

local function exists(path)
	local f = io.open(path, "r")
	if f then
		f:close()
		return true
	end
	return false
end

local function split_words(s)
	local t = {}
	for w in s:gmatch("%S+") do
		t[#t + 1] = w
	end
	return t
end

-- Lua patterns need their magic characters escaped.
local function lit(s)
	return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0"))
end

-- True if line is the open (what "8<") or close (">8") marker of name, in
-- any of the comment styles the sources use.
local function is_marker(line, what, name)
	local w, n = lit(what), lit(name)
	return line:match("^%s*/%*%s*" .. w .. "%s+" .. n .. "%s*%*/%s*$")
		or line:match("^%s*//%s*" .. w .. "%s+" .. n .. "%s*$")
		or line:match("^%s*#%s*" .. w .. "%s+" .. n .. "%s*$")
end

-- True if line is any marker at all (nested regions are left out).
local function any_marker(line)
	return line:match("^%s*/%*%s*8<%s+[%w_.-]+%s*%*/%s*$")
		or line:match("^%s*/%*%s*>8%s+[%w_.-]+%s*%*/%s*$")
		or line:match("^%s*//%s*[8>][<8]%s+[%w_.-]+%s*$")
		or line:match("^%s*#%s*[8>][<8]%s+[%w_.-]+%s*$")
end

-- Remove the indentation all non-empty lines share.
local function dedent(lines)
	local common
	for _, l in ipairs(lines) do
		if l:match("%S") then
			local ind = l:match("^[ \t]*")
			if not common or #ind < #common then
				common = ind
			end
		end
	end
	if not common or #common == 0 then
		return lines
	end
	local r = {}
	for i, l in ipairs(lines) do
		r[i] = l:sub(1, #common) == common and l:sub(#common + 1) or l
	end
	return r
end

local function lang_of(file)
	if file:match("%.cu$") then
		return "cpp"
	elseif file:match("%.[ch]$") then
		return "c"
	elseif file:match("%.sh$") then
		return "bash"
	end
	return ""
end

-- The lines between the markers of region name in file.
local function extract(directive, file, name)
	local text = read_file(root .. "/" .. file)
	if not text then
		fail(directive, "cannot read " .. file)
	end
	local lines, inside, opened, closed = {}, false, 0, 0
	for line in (text .. "\n"):gmatch("([^\n]*)\n") do
		if is_marker(line, "8<", name) then
			opened = opened + 1
			inside = true
		elseif is_marker(line, ">8", name) then
			closed = closed + 1
			if not inside then
				fail(directive, "'>8 " .. name .. "' before its '8<' in " .. file)
			end
			inside = false
		elseif inside and not any_marker(line) then
			lines[#lines + 1] = line
		end
	end
	if opened == 0 then
		fail(directive, "no marker '/* 8< " .. name .. " */' in " .. file)
	end
	if opened > 1 then
		fail(directive, "marker '" .. name .. "' opens " .. opened .. " times in " .. file)
	end
	if closed ~= 1 or inside then
		fail(directive, "marker '" .. name .. "' is not closed once by '/* >8 " .. name .. " */' in " .. file)
	end
	while #lines > 0 and not lines[1]:match("%S") do
		table.remove(lines, 1)
	end
	while #lines > 0 and not lines[#lines]:match("%S") do
		table.remove(lines)
	end
	if #lines == 0 then
		fail(directive, "region '" .. name .. "' in " .. file .. " is empty")
	end
	return table.concat(dedent(lines), "\n")
end

-- The line of lines[] that one end of a range names: a number, or the
-- first line (from start) that contains the text.
local function range_end(directive, lines, spec, start, default)
	if spec == "" then
		return default
	end
	if spec:match("^%d+$") then
		local n = tonumber(spec)
		if n < 1 or n > #lines then
			fail(directive, "line " .. spec .. " is outside the region (" ..
				#lines .. " lines now): check what the slide shows")
		end
		return n
	end
	for i = start, #lines do
		if lines[i]:find(spec, 1, true) then
			return i
		end
	end
	fail(directive, "no line containing '" .. spec .. "' in the region")
end

-- Part of a region: "A..B", where each end is empty (the region's start or
-- end), a line number, or a text the line contains (robust to edits above
-- it). The lines left out are noted in a comment.
local function cut(directive, text, range, lang)
	local from, to = range:match("^(.-)%.%.(.*)$")
	if not from then
		fail(directive, "expected a range FROM..TO (a line number, a text " ..
			"of the line, or empty)")
	end
	from, to = from:match("^%s*(.-)%s*$"), to:match("^%s*(.-)%s*$")
	local lines = {}
	for l in (text .. "\n"):gmatch("([^\n]*)\n") do
		lines[#lines + 1] = l
	end
	local a = range_end(directive, lines, from, 1, 1)
	local b = range_end(directive, lines, to, a, #lines)
	if b < a then
		fail(directive, "the range " .. range .. " ends before it starts")
	end
	local function note(n)
		local t = n .. " more line" .. (n > 1 and "s" or "") .. " in the source"
		return lang == "bash" and ("# ... " .. t) or ("/* ... " .. t .. " */")
	end
	local r = {}
	if a > 1 then
		r[#r + 1] = note(a - 1)
	end
	for i = a, b do
		r[#r + 1] = lines[i]
	end
	if b < #lines then
		r[#r + 1] = note(#lines - b)
	end
	return table.concat(r, "\n")
end

local function code_block(directive, args)
	local file, name, range = args:match("^(%S+)%s+(%S+)%s*(.-)%s*$")
	if not file then
		fail(directive, "expected 'code: FILE MARKER [FROM..TO]'")
	end
	local text = extract(directive, file, name)
	if range ~= "" then
		text = cut(directive, text, range, lang_of(file))
	end
	local n = select(2, text:gsub("\n", "")) + 1
	local cls = { lang_of(file) }
	if n > 22 then
		cls[#cls + 1] = "long"
	end
	return pandoc.Div({
		pandoc.CodeBlock(text, pandoc.Attr("", cls)),
		pandoc.Para({ pandoc.Code(file .. "  8< " .. name) }),
	}, pandoc.Attr("", { "source" }, { ["data-marker"] = file .. "#" .. name }))
end

local results_json = results_rel ~= "" and (out .. "/" .. results_rel) or ""

-- Run jq over the results and return its output (Markdown).
local function jq(directive, args)
	if results_json == "" or not exists(results_json) then
		fail(directive, "no results.json (PL_RESULTS) for this build")
	end
	local ok, res = pcall(pandoc.pipe, "jq", args, "")
	if not ok then
		fail(directive, "jq failed: " .. tostring(res))
	end
	if not res:match("%S") then
		fail(directive, "no runs in " .. results_rel .. " for this")
	end
	return res
end

-- What the results file says reaches a deck as text only. jq escapes it
-- (results.jq and summary.jq: md); here it is read without raw HTML, raw
-- attributes or native divs and spans, and whatever would still make
-- HTML, an image (which --embed-resources would fill from a local file)
-- or a link out of data is turned back into its text.
local data_markdown = "markdown-raw_html-raw_attribute-raw_tex"
	.. "-native_divs-native_spans-markdown_in_html_blocks"
local text_only = {
	RawInline = function(el)
		return pandoc.Str(el.text)
	end,
	RawBlock = function(el)
		return pandoc.Para({ pandoc.Str(el.text) })
	end,
	Image = function(el)
		return el.caption
	end,
	Link = function(el)
		return el.content
	end,
}

local function md_blocks(text)
	local doc = pandoc.read(text, data_markdown)
	return pandoc.walk_block(pandoc.Div(doc.blocks), text_only).content
end

local function results_jq(directive, what, extra)
	local args = { "-r", "--arg", "what", what }
	for _, a in ipairs(extra or {}) do
		args[#args + 1] = a
	end
	args[#args + 1] = "-f"
	args[#args + 1] = tools .. "/results.jq"
	args[#args + 1] = results_json
	return jq(directive, args)
end

local function label_para(directive, path)
	return pandoc.Div(md_blocks(results_jq(directive, "label",
		{ "--arg", "path", path or "" })), pandoc.Attr("", { "label" }))
end

local function size_arg(directive, s)
	if not s or not s:match("^%d+$") then
		fail(directive, "expected a frame size in bytes")
	end
	return s
end

-- labs/plab's summary table (its strings escaped for Markdown); its first
-- paragraph (where and when) is the label.
local function summary_blocks(directive, size)
	if results_json == "" or not exists(results_json) then
		fail(directive, "no results.json (PL_RESULTS) for this build")
	end
	local ok, res = pcall(pandoc.pipe, "/usr/bin/python3",
		{ root .. "/labs/plab", "summary", results_json, size }, "")
	if not ok then
		fail(directive, "labs/plab summary failed: " .. tostring(res))
	end
	local blocks = md_blocks(res)
	if blocks[1] and blocks[1].t == "Para" then
		blocks[1] = pandoc.Div({ blocks[1] }, pandoc.Attr("", { "label" }))
	end
	return pandoc.Div(blocks, pandoc.Attr("", { "table-wide" }))
end

local function results_block(directive, args)
	local w = split_words(args)
	local kind = w[1]
	if kind == "label" then
		return label_para(directive, w[2])
	elseif kind == "summary" then
		local size = size_arg(directive, w[2])
		return summary_blocks(directive, size)
	elseif kind == "path" then
		if not w[2] then
			fail(directive, "expected 'results: path ID SIZE'")
		end
		local size = size_arg(directive, w[3])
		return pandoc.Div(md_blocks(results_jq(directive, "path",
			{ "--arg", "path", w[2], "--argjson", "size", size })),
			pandoc.Attr("", { "table-results" }))
	elseif kind == "budget" then
		return pandoc.Div(md_blocks(results_jq(directive, "budget")),
			pandoc.Attr("", { "table-results" }))
	elseif kind == "measured" then
		local size = size_arg(directive, w[2])
		local which = w[3] or "all"
		if which ~= "all" and which ~= "gpu" and which ~= "nogpu" then
			fail(directive, "expected 'results: measured SIZE [all|gpu|nogpu]'")
		end
		return pandoc.Div(md_blocks(results_jq(directive, "measured",
			{ "--argjson", "size", size, "--arg", "which", which })),
			pandoc.Attr("", { "table-results" }))
	elseif kind == "choose" then
		local size = size_arg(directive, w[2])
		return pandoc.Div(md_blocks(results_jq(directive, "choose",
			{ "--argjson", "size", size })),
			pandoc.Attr("", { "table-wide" }))
	end
	fail(directive, "unknown results kind '" .. tostring(kind) .. "'")
end

local function plot_block(directive, args)
	local name = args:match("^([%w_-]+)$")
	if not name then
		fail(directive, "expected 'plot: NAME'")
	end
	local dir = results_rel:match("^(.*)/[^/]*$") or "."
	local rel = dir .. "/" .. name .. ".svg"
	if exists(out .. "/" .. rel) then
		local cap = md_blocks(results_jq(directive, "label",
			{ "--arg", "path", "" }))[1]
		return pandoc.Div({
			pandoc.Para({ pandoc.Image({}, rel, "") }),
			pandoc.Div({ cap }, pandoc.Attr("", { "label" })),
		}, pandoc.Attr("", { "plot" }, { ["data-plot"] = name }))
	end
	-- No plot (matplotlib missing when the results were made): the numbers
	-- the plot would show, as a table, and why.
	return pandoc.Div({
		pandoc.Para({ pandoc.Emph({ pandoc.Str("The plot '" .. name ..
			"' was not drawn for these results (labs/lib/plots.sh " ..
			"needs matplotlib); the table has the numbers at 64 B.") }) }),
		summary_blocks(directive, "64"),
	})
end

local function figure_block(directive, args)
	local w = split_words(args)
	local path = w[1] and w[1]:match("^([%w_-]+)$")
	if not path then
		fail(directive, "expected 'figure: PATH [KEY=VALUE...]'")
	end
	local frag = "path=" .. path
	for i = 2, #w do
		if not w[i]:match("^[%w_-]+=[%w_.-]+$") then
			fail(directive, "expected KEY=VALUE, not '" .. w[i] .. "'")
		end
		frag = frag .. "&" .. w[i]
	end
	if figure_rel == "" then
		return pandoc.Div({ pandoc.Para({ pandoc.Emph({ pandoc.Str(
			"The interactive figure (slides/figure/) is not part of " ..
			"this build.") }) }) }, pandoc.Attr("", { "figure-missing" }))
	end
	local href = figure_rel .. "#" .. frag
	-- A data-page, not an iframe: pandoc's --self-contained would inline
	-- an iframe's page as a data: URL, which cannot load results.js
	-- beside it. embed.html turns this into the iframe when the deck loads.
	return pandoc.RawBlock("html",
		'<div class="embed" data-page="' .. href .. '">' ..
		'<a class="embed-link" href="' .. href .. '">Open the interactive ' ..
		'figure (' .. path .. ') in its own window</a></div>')
end

-- Frames per second, ns per frame and cycles per frame at line rate.
local function budget_block(directive, args)
	local ghz = tonumber(args)
	if not ghz or ghz <= 0 or ghz > 10 then
		fail(directive, "expected 'budget: GHZ', a clock in GHz")
	end
	local rates = { 10, 25, 100, 400 }
	local sizes = { 64, 512, 1518 }
	local rows = { "| frame | link | frames/s | ns per frame | cycles at " ..
		args .. " GHz |", "|---:|---:|---:|---:|---:|" }
	for _, s in ipairs(sizes) do
		for _, r in ipairs(rates) do
			-- Whole frames per second, as pathlab-budget (RFC 5180).
			local fps = (r * 1000000000) // ((s + 20) * 8)
			local ns = 1e9 / fps
			local function group(n)
				local t = string.format("%d", math.floor(n + 0.5))
				return (t:reverse():gsub("(%d%d%d)", "%1,"):reverse()
					:gsub("^,", ""))
			end
			rows[#rows + 1] = string.format("| %d B | %d GbE | %s | %.1f | %.0f |",
				s, r, group(fps), ns, ns * ghz)
		end
	end
	return pandoc.Div(md_blocks(table.concat(rows, "\n")),
		pandoc.Attr("", { "table-arith" }))
end

local handlers = {
	code = code_block,
	results = results_block,
	plot = plot_block,
	figure = figure_block,
	budget = budget_block,
}

function RawBlock(el)
	if el.format ~= "html" then
		return nil
	end
	local key, args = el.text:match("^<!%-%-%s*([%w_-]+):%s*(.-)%s*%-%->%s*$")
	if not key then
		return nil
	end
	local h = handlers[key]
	if not h then
		fail(key .. ": " .. args, "unknown directive '" .. key .. "'")
	end
	return h(key .. ": " .. args, args)
end
