"""figure.py - the interactive figure beside a compare run: a copy of
slides/figure (index.html and its files) and results.js, the results as a
script. A page opened from a file may load a script beside it but may not
read a JSON file, so the copied page shows these results as soon as it is
opened. The results are written as JSON (ASCII only, so no line separator
or other character can end the script's string); the page puts every
string it shows in the DOM as text.
"""

import json
import os
import shutil

from .util import ROOT, say

FIGURE = os.path.join(ROOT, "slides", "figure")
FILES = ("index.html", "figure.css", "figure.js", "draw.js", "measure.js",
         "paths.js", "selftest.js")


def js_json(v):
    """V as JSON that is also safe inside an HTML script element: ASCII
    only, and <, > and & as escapes (a deck that inlines the script
    cannot have it closed by a string)."""
    s = json.dumps(v, separators=(",", ":"), ensure_ascii=True)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace(
        "&", "\\u0026")


def script(results, plots):
    """The text of results.js for RESULTS and the plot files PLOTS."""
    return "window.PATHLAB_RESULTS = %s;\nwindow.PATHLAB_PLOTS = %s;\n" % (
        js_json(results), js_json(plots))


def write(results, out, names=("rate", "latency", "cpu")):
    """Copy the figure into OUT with results.js; 0, or 1 with a warning."""
    try:
        os.makedirs(out, exist_ok=True)
        for f in FILES:
            shutil.copyfile(os.path.join(FIGURE, f), os.path.join(out, f))
        plots = [n + ".svg" for n in names
                 if os.path.isfile(os.path.join(out, n + ".svg"))
                 and os.path.getsize(os.path.join(out, n + ".svg")) > 0]
        tmp = os.path.join(out, "results.js.tmp")
        with open(tmp, "w") as f:
            f.write(script(results, plots))
        os.replace(tmp, os.path.join(out, "results.js"))
    except OSError as e:
        say("pathlab: plots: could not write the figure into %s: %s"
            % (out, e), err=True)
        return 1
    say("pathlab: figure: %s" % os.path.join(out, "index.html"))
    return 0
