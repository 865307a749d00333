"""The guide runner: blocks run as written, claims checked, and every way
a guide can go wrong (a failed command, a false claim, a receiver that
never ends, a malformed directive) fails the guide."""

import contextlib
import io
import os
import unittest

from plabtest import ROOT, Scratch

from plab import guidetest
from plab.util import Fail


def run_guide(text):
    """Run GUIDE TEXT; (passed, failed, printed)."""
    with Scratch() as d:
        path = os.path.join(d, "guide.md")
        with open(path, "w") as f:
            f.write(text)
        r = guidetest.Runner(path, ROOT, os.path.join(ROOT, "build"))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            r.run(guidetest.parse(path), d)
        return r.passed, r.failed, out.getvalue()


class Guide(unittest.TestCase):
    def test_claims_true_and_false(self):
        p, f, out = run_guide(
            "```\necho 'rate 12.5 kpps'\necho '{\"n\": 3}'\n```\n"
            "<!-- see: num(r'rate ([\\d.]+) kpps') == 12.5 -->\n"
            "<!-- see: j['n'] == 3 -->\n"
            "<!-- see: num(r'rate ([\\d.]+) kpps') > 20 -->\n"
            "<!-- see: num(r'nothing (\\d+)') == 1 -->\n")
        self.assertEqual((p, f), (3, 2), out)
        self.assertIn("guide.md:7: num(r'rate ([\\d.]+) kpps') > 20 (false)",
                      out)
        self.assertIn("no match for", out)
        self.assertIn("    | rate 12.5 kpps", out)

    def test_colours_left_out(self):
        # jq on a terminal (the Soft-RoCE VM's console) colours its JSON.
        p, f, out = run_guide(
            "```\nprintf '\\033[1;39m{\\033[0m\\n  \\033[34;1m\"n\"'\n"
            "printf '\\033[0m: \\033[0;39m3\\033[0m\\n}\\n'\n```\n"
            "<!-- see: j['n'] == 3 and has(r'^  \"n\": 3$') -->\n")
        self.assertEqual((p, f), (2, 0), out)

    def test_shown_blocks_not_run(self):
        p, f, out = run_guide("```text\nexit 3\n```\n```c\nint x;\n```\n")
        self.assertEqual((p, f), (0, 0), out)

    def test_failed_command_fails(self):
        p, f, out = run_guide("```\ntrue\nfalse\necho never\n```\n"
                              "<!-- run: exit=3 -->\n```\nexit 3\n```\n")
        self.assertEqual((p, f), (1, 1), out)
        self.assertIn("ended with status 1, not 0", out)
        self.assertNotIn("| never", out)

    def test_background_and_named(self):
        p, f, out = run_guide(
            "<!-- run: bg name=rx wait=^up -->\n"
            "```\necho up; read -t 5 x < /dev/zero || true; sleep 0.3\n"
            "echo got it\n```\n"
            "```\necho sent\n```\n"
            "<!-- see rx: has(r'^got it$') -->\n"
            "<!-- see: has(r'^sent$') and b['rx'].has('up') -->\n")
        self.assertEqual((p, f), (4, 0), out)

    def test_background_that_never_ends(self):
        p, f, out = run_guide(
            "<!-- run: bg timeout=1 wait=^up -->\n```\necho up; sleep 60\n"
            "```\n```\ntrue\n```\n")
        self.assertEqual(f, 1, out)
        self.assertIn("did not end by itself within 1 s", out)

    def test_skip_says_why(self):
        p, f, out = run_guide("<!-- run: skip needs a GPU -->\n```\nfalse\n"
                              "```\n")
        self.assertEqual((p, f), (0, 0), out)
        self.assertIn("needs a GPU", out)

    def test_claim_before_any_block(self):
        p, f, out = run_guide("<!-- see: True -->\n")
        self.assertEqual(f, 1, out)

    def test_malformed(self):
        for text in ("<!-- run: bogus -->\n```\ntrue\n```\n",
                     "<!-- run: bg -->\ntext\n```\ntrue\n```\n",
                     "```\ntrue\n"):
            with Scratch() as d:
                path = os.path.join(d, "g.md")
                with open(path, "w") as f:
                    f.write(text)
                with self.assertRaises(Fail):
                    guidetest.parse(path)


if __name__ == "__main__":
    unittest.main()
