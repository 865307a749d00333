#!/usr/bin/env python3
"""Every code region a guide or deck names, with the file it names, is in
that file: "region `8< NAME` in `FILE`", "`FILE`, region `8< NAME`" and
"`8< NAME` in `FILE`" must point at a FILE whose text marks 8< NAME (the
regions move when the code does, and a student sent to the wrong file
finds nothing). Exit 0, or 1 with one line per wrong pointer.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
NAME_IN_FILE = re.compile(r"8< ([\w-]+)`\s+in\s+`([\w./-]+\.(?:[ch]|cu|py|sh))`")
FILE_THEN_NAME = re.compile(
    r"`([\w./-]+\.(?:[ch]|cu|py|sh))`,\s+region\s+`8< ([\w-]+)`")
MARK = re.compile(r"(?:/\*|//|#)\s*8< ([\w-]+)")


def regions():
    """{region name: [files that mark it]} over the tree's tracked
    sources (the exercises' copies left out)."""
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "*.c", "*.h",
                            "*.cu", "*.py", "*.sh"], capture_output=True,
                           text=True, check=True).stdout.split()
    out = {}
    for rel in files:
        if rel.startswith("exercises/"):
            continue
        with open(os.path.join(ROOT, rel), errors="replace") as f:
            for name in MARK.findall(f.read()):
                out.setdefault(name, []).append(rel)
    return out


def main():
    where = regions()
    docs = sorted(glob.glob(os.path.join(ROOT, "labs", "*.md"))
                  + glob.glob(os.path.join(ROOT, "slides", "*.md"))
                  + glob.glob(os.path.join(ROOT, "README.md")))
    bad = seen = 0
    for doc in docs:
        with open(doc) as f:
            text = re.sub(r"\s+", " ", f.read())
        pairs = [(n, p) for n, p in NAME_IN_FILE.findall(text)]
        pairs += [(n, p) for p, n in FILE_THEN_NAME.findall(text)]
        for name, path in pairs:
            seen += 1
            files = where.get(name, [])
            if path not in files:
                bad += 1
                print("FAIL: %s: region 8< %s is said to be in %s; it is in %s"
                      % (os.path.relpath(doc, ROOT), name, path,
                         ", ".join(files) or "no file"))
    print("%d region pointers checked, %d wrong" % (seen, bad))
    return 1 if bad or not seen else 0


if __name__ == "__main__":
    sys.exit(main())
