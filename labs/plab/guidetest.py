"""guidetest.py - run a lab guide's commands as written and check what it
says the student will see.

A guide is Markdown. Every fenced block without a language tag is a block of
commands: it runs, as written, through bash from the repository's root, in
the order of the guide; a block tagged (```text, ```c) is shown, not run.
HTML comments, which a reader of the rendered guide never sees, say more:

  <!-- run: [bg] [name=NAME] [exit=N] [timeout=S] [wait=REGEX] -->
      on the line before a block. bg: the block is the guide's "in one
      terminal" (a receiver): it starts, the runner waits until its output
      matches wait (default: a receiver's "ready on" line), and it must end
      by itself within timeout seconds of the next block's end, as it would
      for a student. exit: the status the block must end with (default 0).
  <!-- run: skip REASON -->
      the block is not run here; the reason is printed.
  <!-- see[ NAME]: EXPRESSION -->
      after the sentence that makes the claim: a Python expression that must
      be true of the last block run before it (or of block NAME). It sees
      out (the block's output, stdout and stderr), status, num(REGEX) (the
      number in REGEX's first group, thousands commas allowed), nums(REGEX),
      has(REGEX), j (the last JSON object in out, as --json - prints it;
      J: all of them, in order),
      b (the named blocks, each with the same names as attributes) and
      abs, min, max, len, all, any, sum, round.

A failing check names the guide's line, the expression, and the tail of the
output it was checked on. The runner needs the lab's privileges (root):
tests/netns/guide.sh runs it under its own PATHLAB_PREFIX and takes the lab
down afterwards.
"""

import builtins
import json
import os
import re
import signal
import subprocess
import sys
import time

from .util import Fail

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*(run|see)(\s+[\w-]+)?:\s*(.*?)\s*-->\s*$")
READY = r": ready on "
ANSI = re.compile(r"\x1b\[[0-9;]*m")
SAFE = {k: getattr(builtins, k)
        for k in ("abs", "min", "max", "len", "all", "any", "sum", "round",
                  "float", "int", "sorted")}


class Block:
    """One block of commands and, once run, what it printed."""

    def __init__(self, line, text, opts):
        self.line, self.text, self.opts = line, text, opts
        self.name = opts.get("name")
        self.out, self.status = "", None
        self.proc = self.log = None

    # What a check sees.
    def has(self, rx):
        return re.search(rx, self.out, re.M) is not None

    def nums(self, rx):
        return [_number(m.group(1)) for m in re.finditer(rx, self.out, re.M)]

    def num(self, rx):
        m = re.search(rx, self.out, re.M)
        if not m:
            raise CheckError("no match for %r in the output" % rx)
        return _number(m.group(1))

    @property
    def j(self):
        docs = _json_docs(self.out)
        if not docs:
            raise CheckError("no JSON object in the output")
        return docs[-1]


class CheckError(Exception):
    """A check that could not be evaluated: it fails, saying why."""


def _number(s):
    return float(s.replace(",", ""))


def _json_docs(text):
    """The JSON objects that start a line of text, in order."""
    dec, docs, i = json.JSONDecoder(), [], 0
    for m in re.finditer(r"^\{", text, re.M):
        if m.start() < i:
            continue
        try:
            obj, end = dec.raw_decode(text, m.start())
        except ValueError:
            continue
        docs.append(obj)
        i = end
    return docs


def _options(text):
    """The words of a run: directive as a dict (skip keeps its reason)."""
    if text.startswith("skip"):
        return {"skip": text[4:].strip() or "no reason given"}
    opts = {}
    for word in text.split():
        key, _, val = word.partition("=")
        if key not in ("bg", "name", "exit", "timeout", "wait"):
            raise Fail("unknown run: option '%s'" % key)
        opts[key] = val if val else True
    return opts


def parse(path):
    """The guide's steps in order: ('block', Block) and ('see', ...)."""
    with open(path) as f:
        lines = f.read().split("\n")
    steps, pending, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        d = DIRECTIVE.match(line)
        f = FENCE.match(line)
        if d and d.group(1) == "run":
            pending = (i + 1, _options(d.group(3)))
        elif d:
            steps.append(("see", i + 1, (d.group(2) or "").strip(),
                          d.group(3)))
        elif f:
            indent, tag, start = f.group(1), f.group(2), i
            body = []
            i += 1
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i][len(indent):]
                            if lines[i].startswith(indent) else lines[i])
                i += 1
            if i == len(lines):
                raise Fail("%s:%d: a code block that never ends"
                           % (path, start + 1))
            opts = {}
            if pending and pending[0] == start:
                opts = pending[1]
            elif pending:
                raise Fail("%s:%d: a run: line that is not right before a "
                           "code block" % (path, pending[0]))
            pending = None
            if not tag:
                steps.append(("block", Block(start + 1, "\n".join(body),
                                             opts)))
        elif pending and line.strip():
            raise Fail("%s:%d: a run: line that is not right before a code "
                       "block" % (path, pending[0]))
        i += 1
    return steps


class Runner:
    """Runs the steps of one guide; counts checks passed and failed."""

    def __init__(self, guide, root, build):
        self.guide = os.path.relpath(guide, root)
        self.root, self.build = root, build
        self.passed = self.failed = 0
        self.last = None
        self.named = {}
        self.bg = []

    def say(self, msg):
        print(msg, flush=True)

    def bad(self, msg):
        self.failed += 1
        self.say("FAIL: %s" % msg)

    def script(self, block):
        """The block as a bash script: build/ is the build folder in use."""
        text = block.text
        if os.path.realpath(self.build) != os.path.realpath(
                os.path.join(self.root, "build")):
            text = re.sub(r"(?<![\w./-])build/", self.build.rstrip("/") + "/",
                          text)
        return "set -e\n" + text + "\n"

    def start(self, block):
        log = open(os.path.join(self.tmp, "block%d.out" % block.line), "w+")
        block.log = log
        block.proc = subprocess.Popen(
            ["bash", "-c", self.script(block)], cwd=self.root,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        block.started = time.monotonic()

    def read(self, block):
        block.log.flush()
        block.log.seek(0)
        # Without colours: a program that writes to a terminal (jq on the
        # Soft-RoCE VM's console) colours its output; checks read text.
        block.out = ANSI.sub("", block.log.read())
        return block.out

    def finish(self, block, timeout):
        """Wait for a block; past timeout, interrupt it and fail it."""
        try:
            block.status = block.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop(block)
            block.status = None
        self.read(block)
        block.log.close()
        where = "%s:%d" % (self.guide, block.line)
        took = time.monotonic() - block.started
        want = int(block.opts.get("exit", 0))
        if block.status is None:
            self.bad("%s did not end by itself within %d s; a student would "
                     "be left waiting\n%s" % (where, timeout, tail(block.out)))
        elif block.status != want:
            self.bad("%s ended with status %d, not %d\n%s"
                     % (where, block.status, want, tail(block.out)))
        else:
            self.passed += 1
            self.say("ok: %s ran in %.1f s (status %d)" % (where, took,
                                                          block.status))

    def stop(self, block):
        """SIGINT to the block's process group, then SIGKILL."""
        for sig, wait in ((signal.SIGINT, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(block.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                block.proc.wait(timeout=wait)
                return
            except subprocess.TimeoutExpired:
                pass

    def wait_ready(self, block):
        rx = block.opts.get("wait")
        rx = READY if rx in (None, True) else rx
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if re.search(rx, self.read(block), re.M):
                return
            if block.proc.poll() is not None:
                return
            time.sleep(0.1)
        self.bad("%s:%d never printed %r within 90 s"
                 % (self.guide, block.line, rx))

    def run_block(self, block):
        where = "%s:%d" % (self.guide, block.line)
        first = block.text.strip().split("\n")[0]
        if "skip" in block.opts:
            self.say("skip: %s (%s): %s" % (where, first, block.opts["skip"]))
            return
        self.say("run: %s%s: %s" % (where, " (in the background)"
                                    if "bg" in block.opts else "", first))
        timeout = int(block.opts.get("timeout", 180))
        self.start(block)
        if block.name:
            self.named[block.name] = block
        if "bg" in block.opts:
            self.wait_ready(block)
            self.bg.append(block)
            return
        self.finish(block, timeout)
        for b in self.bg:
            self.finish(b, int(b.opts.get("timeout", 60)))
        self.bg = []
        self.last = block

    def check(self, line, name, expr):
        where = "%s:%d" % (self.guide, line)
        block = self.named.get(name) if name else self.last
        if block is None or block.status is None:
            self.bad("%s: see%s: %s: no such block has run"
                     % (where, " " + name if name else "", expr))
            return
        ns = dict(SAFE, out=block.out, status=block.status, num=block.num,
                  nums=block.nums, has=block.has, b=self.named)
        ns["J"] = _json_docs(block.out)
        ns["j"] = ns["J"][-1] if ns["J"] else None
        try:
            ok = eval(expr, dict(ns, __builtins__={}))
        except Exception as e:  # a check that cannot be evaluated fails
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        else:
            why = "false" + _false_parts(expr, ns)
        if ok:
            self.passed += 1
            self.say("ok: %s: %s" % (where, expr))
        else:
            self.bad("%s: %s (%s), on the output of line %d:\n%s"
                     % (where, expr, why, block.line, tail(block.out)))

    def run(self, steps, tmp):
        self.tmp = tmp
        try:
            for kind, *rest in steps:
                if kind == "block":
                    self.run_block(rest[0])
                else:
                    self.check(*rest)
        finally:
            for b in self.bg:
                self.stop(b)
        return self.failed


def _false_parts(expr, ns):
    """Which operands of a top-level "and" are false, to say so."""
    parts = expr.split(" and ")
    bad = []
    for p in parts if len(parts) > 1 else []:
        try:
            if not eval(p, dict(ns, __builtins__={})):
                bad.append(p.strip())
        except Exception:  # not a whole expression: say nothing of it
            return ""
    return ": " + "; ".join(bad) if bad else ""


def tail(text, n=25):
    lines = text.rstrip("\n").split("\n")
    return "\n".join("    | " + x for x in lines[-n:])


def main(args):
    """guide-test GUIDE.md [TMPDIR]: 0 when every block and check passed."""
    if len(args) not in (1, 2):
        raise Fail("usage: plab guide-test GUIDE.md [TMPDIR]", 2)
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    build = os.environ.get("PATHLAB_BUILD", os.path.join(root, "build"))
    tmp = args[1] if len(args) == 2 else "/tmp"
    steps = parse(args[0])
    r = Runner(os.path.abspath(args[0]), root, build)
    failed = r.run(steps, tmp)
    r.say("%s: %d passed, %d failed" % (r.guide, r.passed, r.failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
