#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The exercises' copies of the lab's code, kept in step with it.

The lab's sources mark regions as the slides and guides quote them:

    /* 8< NAME */ ... /* >8 NAME */

A region name is unique across the sources; regions may nest.

Generated copies. An exercise file holds a region of the lab between

    /* 8< NAME from FILE */ ... /* >8 NAME */

and those lines are the region's own, nested markers included, except
where the exercise takes code out: a region nested in NAME, say HOLE,
is replaced by the exercise's stub between

    /* 8< hole HOLE */ ... /* >8 hole HOLE */

which stays as the exercise wrote it. Words OLD=NEW after FILE rename
what the exercise names otherwise: every identifier that begins with OLD
begins with NEW in the copy (pl_seq_=ex_seq_). --write regenerates the
copies (FILE, stubs and everything outside the markers are kept);
--check fails on a copy that differs from what --write would make.

Hand-written copies. An exercise that reshapes the lab's code (other
names, a trimmed struct) copies it by hand. REGISTER lists each region
such an exercise follows, with a hash of the region's code as the
exercise last followed it: --check fails when the region changed since,
naming the exercise to update; --write records the new hash (after the
exercise was updated). Regions are found by name, wherever they live.

    exercises/lib/regions.py --check     exit 1 on drift (a unit test)
    exercises/lib/regions.py --write     regenerate copies, record hashes
    exercises/lib/regions.py --list      every copy and what it follows
"""
import argparse
import difflib
import hashlib
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCES = ("af-xdp", "common", "dpdk", "gpudirect", "kernel-stack", "rdma")
EXTS = (".c", ".h", ".cu")
REGISTER = "exercises/lib/regions.txt"

NAME = r"[\w.-]+"
OPEN = re.compile(r"^\s*/\*\s*8<\s+(" + NAME + r")\s*\*/\s*$")
CLOSE = re.compile(r"^\s*/\*\s*>8\s+(" + NAME + r")\s*\*/\s*$")
COPY_OPEN = re.compile(r"^\s*/\*\s*8<\s+(" + NAME + r")\s+from\s+(\S+)"
                       r"((?:\s+\w+=\w+)*)\s*\*/\s*$")
HOLE_OPEN = re.compile(r"^\s*/\*\s*8<\s+hole\s+(" + NAME + r")\s*\*/\s*$")
HOLE_CLOSE = re.compile(r"^\s*/\*\s*>8\s+hole\s+(" + NAME + r")\s*\*/\s*$")


class Problem(Exception):
    pass


def read_lines(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read().split("\n")


def source_files():
    for top in SOURCES:
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(EXTS):
                    yield os.path.relpath(os.path.join(d, f), ROOT)


def regions_of(path, lines):
    """{name: (first, last)}: the lines of each region, markers excluded."""
    found, opened = {}, {}
    for i, line in enumerate(lines):
        m = OPEN.match(line)
        if m:
            if m.group(1) in opened or m.group(1) in found:
                raise Problem(f"{path}:{i + 1}: region {m.group(1)} "
                              "opens twice")
            opened[m.group(1)] = i + 1
            continue
        m = CLOSE.match(line)
        if m:
            if m.group(1) not in opened:
                raise Problem(f"{path}:{i + 1}: '>8 {m.group(1)}' "
                              "without its '8<'")
            found[m.group(1)] = (opened.pop(m.group(1)), i)
    for name, first in opened.items():
        raise Problem(f"{path}:{first}: region {name} is not closed")
    return found


class Sources:
    """Every marked region of the lab's sources, by name."""

    def __init__(self):
        self.where = {}
        for path in source_files():
            lines = read_lines(path)
            for name, (a, b) in regions_of(path, lines).items():
                if name in self.where:
                    raise Problem(f"region {name} is in both "
                                  f"{self.where[name][0]} and {path}")
                self.where[name] = (path, lines[a:b])

    def get(self, name, who):
        if name not in self.where:
            raise Problem(f"{who}: no region '/* 8< {name} */' in the "
                          f"lab's sources ({', '.join(SOURCES)})")
        return self.where[name]


def fingerprint(lines):
    """The hash of a region's code: markers, blank lines and indentation
    left out, so that a region moved or re-indented keeps its hash."""
    code = [" ".join(l.split()) for l in lines
            if l.strip() and not OPEN.match(l) and not CLOSE.match(l)]
    return hashlib.sha256("\n".join(code).encode()).hexdigest()[:16]


def fill(name, body, holes, who):
    """body (a region's lines) with each of its nested regions named in
    holes replaced by that stub."""
    nested = regions_of(name, body)
    for hole in holes:
        if hole not in nested:
            raise Problem(f"{who}: hole {hole} is not a region inside "
                          f"{name}")
    out, skip = [], None
    for line in body:
        m = OPEN.match(line)
        if skip is None and m and m.group(1) in holes:
            skip = m.group(1)
            out.extend(holes[skip])
            continue
        if skip is not None:
            m = CLOSE.match(line)
            if m and m.group(1) == skip:
                skip = None
            continue
        out.append(line)
    return out


def renamed(lines, renames):
    """lines with every identifier that begins with OLD beginning with NEW,
    for each "OLD=NEW" of renames."""
    for pair in renames:
        old, new = pair.split("=")
        lines = [re.sub(r"\b" + old, new, l) for l in lines]
    return lines


def copies_in(path, lines):
    """[(name, renames, first, last, holes)]: the generated copies of a
    file, first..last the lines between its markers, holes {name: stub
    lines, markers included}."""
    found, i = [], 0
    while i < len(lines):
        m = COPY_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        name, renames, first = m.group(1), m.group(3).split(), i + 1
        holes, hole, j = {}, None, first
        while j < len(lines):
            c = CLOSE.match(lines[j])
            if hole is None and c and c.group(1) == name:
                break
            h = HOLE_OPEN.match(lines[j])
            if h:
                hole = h.group(1)
                holes[hole] = [lines[j]]
            elif hole is not None:
                holes[hole].append(lines[j])
                h = HOLE_CLOSE.match(lines[j])
                if h and h.group(1) == hole:
                    hole = None
            j += 1
        else:
            raise Problem(f"{path}:{i + 1}: copy of {name} is not closed "
                          f"by '/* >8 {name} */'")
        found.append((name, renames, first, j, holes))
        i = j + 1
    return found


def exercise_files():
    top = os.path.join(ROOT, "exercises")
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(EXTS):
                yield os.path.relpath(os.path.join(d, f), ROOT)


def exercise_of(path):
    parts = path.split("/")
    return parts[2] if parts[1] == "solutions" else parts[1]


def generated(src, write, listing):
    """Check or rewrite the generated copies; the number that differ."""
    bad = 0
    for path in exercise_files():
        lines = read_lines(path)
        copies = copies_in(path, lines)
        if not copies:
            continue
        new = list(lines)
        for name, renames, first, last, holes in reversed(copies):
            where, body = src.get(name, path)
            want = fill(name, renamed(body, renames), holes, path)
            head = re.sub(r"from\s+\S+", lambda m: "from " + where,
                          lines[first - 1])
            if listing:
                print(f"{path}: generated from {where} region {name}" +
                      (f", holes {', '.join(holes)}" if holes else ""))
            if lines[first:last] == want and head == lines[first - 1]:
                continue
            if not write:
                bad += 1
                ex = exercise_of(path)
                sys.stdout.writelines(difflib.unified_diff(
                    [l + "\n" for l in lines[first:last]],
                    [l + "\n" for l in want],
                    path, f"{where} region {name}", n=2))
                print(f"{path}: its copy of region {name} ({where}) is not "
                      "what the lab has now. Run exercises/lib/regions.py "
                      "--write, check that the exercise's text and stubs "
                      "still fit, and regrade it: MESON_BUILD_ROOT=build "
                      f"bash exercises/lib/meta.sh {ex[:2]}\n")
            new[first - 1:last] = [head] + want
        if write and new != lines:
            with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
                f.write("\n".join(new))
            print(f"wrote {path}")
    return bad


def read_register():
    """[(region, hash, [files])] from REGISTER, in order."""
    rows = []
    for n, line in enumerate(read_lines(REGISTER), 1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) < 3:
            raise Problem(f"{REGISTER}:{n}: want REGION HASH FILE...")
        rows.append((line[0], line[1], line[2:]))
    return rows


def registered(src, write, listing):
    """Check or record the hand-written copies; the number out of date."""
    bad, rows, out = 0, read_register(), []
    have_solutions = os.path.isdir(os.path.join(ROOT, "exercises",
                                                "solutions"))
    for name, recorded, files in rows:
        where, body = src.get(name, REGISTER)
        now = fingerprint(body)
        for f in files:
            # A student kit has no solutions; anything else must exist.
            if f.startswith("solutions/") and not have_solutions:
                continue
            if not os.path.isfile(os.path.join(ROOT, "exercises", f)):
                raise Problem(f"{REGISTER}: {name}: no file exercises/{f}")
        if listing:
            print(f"{where} region {name}: copied by hand in " +
                  ", ".join("exercises/" + f for f in files))
        if now != recorded and not write:
            bad += 1
            exs = sorted({exercise_of("exercises/" + f) for f in files})
            print(f"{where}: region {name} changed since "
                  f"{', '.join('exercises/' + e for e in exs)} followed it "
                  f"(hash {recorded}, now {now}). Bring "
                  f"{', '.join('exercises/' + f for f in files)} in step "
                  "with it (git log -p -- " + where + " shows what "
                  "changed), regrade (MESON_BUILD_ROOT=build bash "
                  "exercises/lib/meta.sh " +
                  " ".join(e[:2] for e in exs) + ") and record it: "
                  "exercises/lib/regions.py --write\n")
        out.append((name, now, files))
    if write and [(n, h) for n, h, _ in out] != [(n, h) for n, h, _ in rows]:
        text = read_lines(REGISTER)
        for name, now, _ in out:
            text = [re.sub(r"^(" + re.escape(name) + r"\s+)[0-9a-f]+",
                           lambda m: m.group(1) + now, l) for l in text]
        with open(os.path.join(ROOT, REGISTER), "w", encoding="utf-8") as f:
            f.write("\n".join(text))
        print(f"wrote {REGISTER}")
    return bad


def main():
    ap = argparse.ArgumentParser(
        description="Keep the exercises' copies of the lab's code in step "
        "with its marked regions.")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true",
                   help="exit 1 when a copy is out of step")
    g.add_argument("--write", action="store_true",
                   help="regenerate the copies, record the hashes")
    g.add_argument("--list", action="store_true",
                   help="every copy and the region it follows")
    a = ap.parse_args()
    try:
        src = Sources()
        bad = generated(src, a.write, a.list)
        bad += registered(src, a.write, a.list)
    except (Problem, OSError) as e:
        print(f"regions.py: {e}", file=sys.stderr)
        return 2
    if bad:
        print(f"{bad} cop{'y' if bad == 1 else 'ies'} out of step")
        return 1
    if a.check:
        print("every exercise copy is in step with the lab's regions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
