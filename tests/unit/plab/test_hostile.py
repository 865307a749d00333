"""Strings from a results.json reach the tables, the Markdown, the plots
and the figure's script only as text: backquotes, $(...), quotes,
newlines, terminal escapes, HTML and very long strings are never run,
parsed as markup or mathtext, and never break a table's layout."""

import json
import os
import unittest
import xml.etree.ElementTree as ET

from plabtest import Scratch, results, run

from plab import figure, markdown, plots, table


def hostile(d):
    """The hostile strings, the shell ones aimed at files in folder D."""
    return {
        "backquote": "recv`touch %s/bq`mmsg" % d,
        "dollar": "$(touch %s/dollar)" % d,
        "quotes": "\"dq\" 'sq' \\\" \\'",
        "newline": "one\ntwo\r\nthree",
        "html": "<script>alert(1)</script><img src=x onerror=alert(2)>",
        "escape": "\x1b[31mred\x1b[0m\x07",
        "math": "$\\alpha^{2}$ \\n",
        "long": "L" * 5000,
    }


def hostile_results(d):
    """A results object whose strings are all hostile."""
    h = hostile(d)
    runs = []
    for n, (name, s) in enumerate(h.items()):
        for wl in ("throughput", "latency"):
            for t in range(2):
                runs.append(run(mode=s, env=h["html"], workload=wl, trial=t,
                                pps=1000.0 * (n + 1) + t,
                                latency_ns={"kind": h["dollar"], "count": 9,
                                            "p50": 1000 + n, "p90": 2000,
                                            "p99": 3000, "p999": 4000,
                                            "p9999": 5000, "max": 6000}))
    return results(runs, host={"cpu_model": h["backquote"] + " " + h["math"],
                               "kernel": h["html"], "cpus": 2,
                               "date": h["newline"],
                               "virtualization": h["quotes"]})


class Hostile(unittest.TestCase):
    def no_files(self, d):
        self.assertEqual(sorted(f for f in os.listdir(d)
                                if f in ("bq", "dollar")), [])

    def test_tables(self):
        with Scratch() as d:
            r = hostile_results(d)
            for lines in (table.comparison(r), table.runs_table(r)):
                text = "\n".join(lines)
                self.assertNotIn("\x1b", text)
                self.assertNotIn("\x07", text)
                self.assertNotIn("\r", text)
                for line in lines:
                    self.assertLess(len(line), 700)
                self.assertIn("recv`touch", text)
                self.assertIn("one\\ntwo\\x0d\\nthree", text)
                self.assertIn("\u2026", text)
            rows = table.runs_table(r)
            self.assertEqual(len(rows), 1 + len(r["runs"]))
            self.no_files(d)

    def test_markdown(self):
        with Scratch() as d:
            r = hostile_results(d)
            text = markdown.summary(r, 64)
            self.assertNotIn("<script", text)
            self.assertNotIn("<img", text)
            self.assertIn("&lt;script&gt;", text)
            self.assertIn("\\`touch", text)
            for line in text.splitlines():
                if line.startswith("| socket"):
                    # 11 columns: 12 unescaped bars
                    bars = line.replace("\\|", "").count("|")
                    self.assertEqual(bars, 13, line)
            self.no_files(d)

    def test_plots_as_text(self):
        with Scratch() as d:
            r = hostile_results(d)
            out = os.path.join(d, "plots")
            self.assertEqual(plots.write(r, out), 0)
            for name in ("rate", "latency", "cpu"):
                root = ET.parse(os.path.join(out, name + ".svg")).getroot()
                tags = {e.tag.split("}")[-1] for e in root.iter()}
                self.assertNotIn("script", tags)
                self.assertNotIn("img", tags)
                self.assertNotIn("foreignObject", tags)
                for e in root.iter():
                    for k, v in e.attrib.items():
                        self.assertFalse(k.startswith("on"), k)
                texts = "\n".join("".join(e.itertext())
                                  for e in root.iter()
                                  if e.tag.endswith("text"))
                # The footer: the CPU model, backquotes and mathtext as
                # they are; the kernel's HTML as characters.
                self.assertIn("recv`touch %s/bq`mmsg" % d, texts)
                self.assertIn("$\\alpha^{2}$", texts)
                self.assertIn("<script>", texts)
                self.assertTrue(os.path.getsize(
                    os.path.join(out, name + ".png")) > 1000)
            self.no_files(d)

    def test_figure_script(self):
        with Scratch() as d:
            r = hostile_results(d)
            js = figure.script(r, ["rate.svg"])
            self.assertNotIn("<", js)
            self.assertNotIn("\u2028", js)
            head = "window.PATHLAB_RESULTS = "
            body = js.splitlines()[0]
            self.assertTrue(body.startswith(head) and body.endswith(";"))
            self.assertEqual(json.loads(body[len(head):-1]), r)


if __name__ == "__main__":
    unittest.main()
