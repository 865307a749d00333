"""docs.py - the measured numbers in README.md, labs/*.md and slides/*.md.

Every figure the documents show comes from a checked-in results file:
slides/results/default.json (one labelled `pathlab compare` run, the same
file the decks and plots are drawn from) and the benchmark logs under
docs/results/bench/ (what labs/bench/*.sh printed, verbatim). Two kinds of
generated block keep the Markdown tied to them:

  <!-- results: summary SIZE -->     markdown.py's summary at SIZE-byte frames
  <!-- results: path ID SIZE -->     one path's rows (slides/tools/results.jq)
  <!-- results: label [ID] -->       where, when and how the run was made
  <!-- results: budget -->           the cycle budget per frame size
  <!-- results: choose SIZE -->      what each path gives up, measured
  <!-- results: table PATHS WLS SIZE --> compare's table for those paths
                                     (comma lists; reference rows too)
  ...generated Markdown...
  <!-- /results -->

  <!-- bench: NAME -->               docs/results/bench/NAME.txt, verbatim
  ...
  <!-- /bench -->

  plab docs render [--check] [FILE...]   rewrite the blocks (--check: only
                                       say which are stale, exit 1)
  plab docs numbers [--results F] [FILE...]
                                       list figure-like numbers found in
                                       no results file and not in
                                       docs/results/constants.txt, and
                                       checked-in runs with unattributed
                                       losses other than 0; exit 1
  plab docs refresh RUN_DIR            make RUN_DIR (a compare --out) the
                                       checked-in run: its results.json,
                                       plots, README images, then render

A "figure-like" number is one with a decimal point, or a whole number of
100 or more that is neither a multiple of 100 nor a power of two (those are
parameters: counts, sizes, ports). Code, inline code, links, comments and
timestamps are not read.
"""

import glob
import json
import os
import re
import subprocess
import sys

from .util import ROOT

RESULTS = os.path.join(ROOT, "slides", "results", "default.json")
BENCH = os.path.join(ROOT, "docs", "results", "bench")
CONSTANTS = os.path.join(ROOT, "docs", "results", "constants.txt")
DOCS = ["README.md", "labs/*.md", "slides/*.md"]

BLOCK = re.compile(
    r"(<!-- (results|bench): ([^>]*?) -->\n)(.*?)(<!-- /\2 -->)", re.S)
NUMBER = re.compile(
    r"(?<![\w.:/-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d{3,})"
    r"(?![\w.]*\d)(?![\w/])")


def die(msg, code=2):
    print("docs: " + msg, file=sys.stderr)
    sys.exit(code)


def doc_files(args):
    if args:
        return args
    out = []
    for pat in DOCS:
        out += sorted(glob.glob(os.path.join(ROOT, pat)))
    return out


def jq(args):
    r = subprocess.run(["jq", "-r"] + args + [RESULTS],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        die("jq %s: %s" % (" ".join(args), r.stderr.strip() or "no output"))
    return r.stdout


def render_results(words):
    tools = os.path.join(ROOT, "slides", "tools", "results.jq")
    kind = words[0] if words else ""
    if kind == "summary" and len(words) == 2 and words[1].isdigit():
        from . import markdown
        with open(RESULTS) as f:
            return markdown.summary(json.load(f), int(words[1])) + "\n"
    if kind == "path" and len(words) == 3 and words[2].isdigit():
        return jq(["--arg", "what", "path", "--arg", "path", words[1],
                   "--argjson", "size", words[2], "-f", tools])
    if kind == "label" and len(words) <= 2:
        return jq(["--arg", "what", "label", "--arg", "path",
                   words[1] if len(words) == 2 else "", "-f", tools])
    if kind == "budget" and len(words) == 1:
        return jq(["--arg", "what", "budget", "-f", tools])
    if kind == "choose" and len(words) == 2 and words[1].isdigit():
        return jq(["--arg", "what", "choose", "--argjson", "size", words[1],
                   "-f", tools])
    if kind == "table" and len(words) == 4 and words[3].isdigit():
        return table_block(words[1].split(","), words[2].split(","),
                           int(words[3]))
    die("unknown block 'results: %s'" % " ".join(words))


def table_block(paths, workloads, size):
    """compare's comparison table for PATHS (their reference rows too) on
    WORKLOADS at SIZE-byte frames, from the checked-in run."""
    from . import table
    from .summary import summarize
    with open(RESULTS) as f:
        res = json.load(f)
    runs = [r for r in res.get("runs", []) if r.get("path") in paths
            and r.get("workload") in workloads
            and r.get("frame_bytes") == size
            and (r.get("gpu") or "none") == "none"]
    if not runs:
        die("results: table %s %s %d: no such runs in %s" % (
            ",".join(paths), ",".join(workloads), size,
            os.path.relpath(RESULTS, ROOT)))
    lines = table.comparison(dict(res, runs=runs, summary=summarize(runs)))
    return "```text\n" + "\n".join(lines).rstrip("\n") + "\n```\n"


def render_bench(words):
    if len(words) != 1 or not re.fullmatch(r"[\w.-]+", words[0]):
        die("expected 'bench: NAME', got 'bench: %s'" % " ".join(words))
    path = os.path.join(BENCH, words[0] + ".txt")
    if not os.path.exists(path):
        die("no %s" % os.path.relpath(path, ROOT))
    with open(path) as f:
        text = f.read()
    return "```text\n" + text.rstrip("\n") + "\n```\n"


def render(check, files):
    stale = 0
    for path in doc_files(files):
        with open(path) as f:
            old = f.read()

        def sub(m):
            words = m.group(3).split()
            body = (render_results(words) if m.group(2) == "results"
                    else render_bench(words))
            body = body.rstrip("\n") + "\n"
            return m.group(1) + body + m.group(5)

        new = BLOCK.sub(sub, old)
        if new != old:
            stale += 1
            rel = os.path.relpath(path, ROOT)
            if check:
                print("docs: %s: a generated block differs from its results "
                      "file (run labs/pathlab docs)" % rel)
            else:
                with open(path, "w") as f:
                    f.write(new)
                print("docs: rewrote %s" % rel)
    return 1 if check and stale else 0


def variants(x, out):
    """Every way a table or a sentence could print the value x."""
    for scale in (1, 1e-3, 1e-6, 1e-9, 100):
        y = x * scale
        for d in range(4):
            out.add(norm("%.*f" % (d, y)))


def known_numbers(results=RESULTS):
    known = set()

    def walk(v):
        if isinstance(v, bool):
            return
        if isinstance(v, (int, float)):
            variants(v, known)
        elif isinstance(v, dict):
            for w in v.values():
                walk(w)
        elif isinstance(v, list):
            for w in v:
                walk(w)

    with open(results) as f:
        walk(json.load(f))
    texts = []
    if os.path.isdir(BENCH):
        for name in sorted(os.listdir(BENCH)):
            with open(os.path.join(BENCH, name)) as f:
                texts.append(f.read())
    with open(CONSTANTS) as f:
        texts.append("\n".join(l.split("#", 1)[0] for l in f))
    for text in texts:
        for tok in re.findall(r"\d[\d,]*(?:\.\d+)?", text):
            known.add(norm(tok))
    return known


def norm(tok):
    t = tok.replace(",", "")
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return t or "0"


def figure_like(tok):
    if "." in tok:
        return True
    v = int(tok.replace(",", ""))
    return v >= 100 and v % 100 != 0 and v & (v - 1) != 0


def prose_lines(text):
    """(line number, text) of what a reader reads as prose or table."""
    code = False
    text = BLOCK.sub(lambda m: m.group(1) + "\n" * m.group(4).count("\n")
                     + m.group(5), text)
    for i, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith(("```", "~~~")):
            code = not code
            continue
        if code:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        line = re.sub(r"\]\([^)]*\)", "]", line)
        line = re.sub(r"<!--.*?-->", "", line)
        line = re.sub(r"https?://\S+", "", line)
        line = re.sub(r"\d{4}-\d\d-\d\d(?:[T ][\d:]+Z?(?: UTC)?)?", "", line)
        yield i, line


def unattributed(results):
    """Runs of the checked-in results whose losses no counter explains
    (unattributed other than 0): a figure from such a run is not one to
    teach from. Prints each; their count."""
    with open(results) as f:
        runs = json.load(f).get("runs", [])
    bad = 0
    for r in runs:
        u = r.get("unattributed")
        if isinstance(u, (int, float)) and u != 0:
            name = ("%s: %s %s%s %s B %s%s: unattributed %s"
                  % (os.path.relpath(results, ROOT), r.get("path"),
                     r.get("mode"), "" if r.get("gpu", "none") == "none"
                     else " +gpu " + str(r.get("gpu")), r.get("frame_bytes"),
                     r.get("workload"), "" if not r.get("trial") else
                     " trial %s" % r["trial"], u))
            print(name + " (a loss no counter explains, or a counter that"
                  " counted what was not lost)")
            bad += 1
    return bad


def numbers(files, results=RESULTS):
    known = known_numbers(results)
    bad = 0
    for path in doc_files(files):
        with open(path) as f:
            text = f.read()
        rel = os.path.relpath(path, ROOT)
        for i, line in prose_lines(text):
            for m in NUMBER.finditer(line):
                tok = m.group(1)
                if figure_like(tok) and norm(tok) not in known:
                    print("%s:%d: %s is in no results file" % (rel, i, tok))
                    bad += 1
    if bad:
        print("docs: %d hand-typed figure(s): take them from a results file "
              "(a generated block, or a number a results file holds), or add "
              "a constant with its reason to docs/results/constants.txt" % bad)
    # The runs the project's documents rest on (all of them when no file
    # is named), or the --results file given.
    checked = [results] if results != RESULTS else [] if files else \
        sorted(glob.glob(os.path.join(os.path.dirname(RESULTS), "*.json")))
    u = sum(unattributed(f) for f in checked)
    if u:
        print("docs: %d checked-in run(s) with unattributed losses: make the"
              " checked-in results from a run that accounts for every loss"
              " (labs/pathlab compare, then labs/pathlab docs refresh DIR)" % u)
    return 1 if bad or u else 0


def refresh(run_dir):
    """RUN_DIR's results become the documents' (plots and images too)."""
    import shutil
    import tempfile
    src = os.path.join(run_dir, "results.json")
    if not os.path.isfile(src):
        die("no results.json in %s" % run_dir)
    with open(src) as f:
        if not json.load(f).get("runs"):
            die("%s has no runs" % src)
    from . import figure, plots
    slides_results = os.path.dirname(RESULTS)
    shutil.copyfile(src, RESULTS)
    with open(RESULTS) as f:
        results = json.load(f)
    if plots.write(results, slides_results) != 0:
        die("the plots could not be drawn")
    img = os.path.join(ROOT, "docs", "img")
    shutil.copyfile(os.path.join(slides_results, "cpu.png"),
                    os.path.join(img, "compare-cpu.png"))
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if chrome:
        with tempfile.TemporaryDirectory() as tmp:
            figure.write(results, tmp)
            # Sandboxed, as root too (labs/lib/chromium.sh).
            subprocess.run(
                ["bash", os.path.join(ROOT, "labs", "lib", "chromium.sh"),
                 "run",
                 "file://" + tmp + "/index.html#path=dpdk&step=7&gpu=1",
                 "--virtual-time-budget=5000", "--window-size=1280,800",
                 "--screenshot=" + os.path.join(img, "figure.png")],
                check=True, capture_output=True)
    else:
        print("docs: no chromium: docs/img/figure.png left as it was")
    return render(False, [])


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "render":
        check = "--check" in rest
        return render(check, [a for a in rest if a != "--check"])
    if cmd == "numbers":
        if rest[:1] == ["--results"] and len(rest) >= 2:
            return numbers(rest[2:], rest[1])
        return numbers(rest)
    if cmd == "refresh" and len(rest) == 1:
        return refresh(rest[0])
    die("unknown command '%s' (render, numbers, refresh DIR)" % cmd)


