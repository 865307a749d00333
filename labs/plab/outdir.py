"""outdir.py - where a compare writes: --out DIR, or results/STAMP linked
as results/latest. What was there before is noted, so that the results
are given to the user who ran compare through sudo without giving away
anything compare did not create (--out /etc stays root's). Ownership is
changed link by link (lchown, never following one), walking only what
compare made.
"""

import os
import time

DEPTH = 3  # OUT/raw/FILE: what compare creates below its first new folder


def tree(top):
    """The paths under TOP, TOP included, down to DEPTH levels; links are
    listed, never followed."""
    out = set()
    if not os.path.lexists(top):
        return out
    out.add(top)
    base = top.rstrip("/").count("/")
    for d, dirs, files in os.walk(top, followlinks=False):
        if d.count("/") - base >= DEPTH:
            dirs[:] = []
            continue
        for n in dirs + files:
            out.add(os.path.join(d, n))
    return out


class OutDir:
    """The output folder of one compare."""

    def __init__(self, out, root):
        self.stamp = None
        if not out:
            self.stamp = time.strftime("%Y%m%d-%H%M%S")
            out = os.path.join(root, "results", self.stamp)
        self.root = root
        self.path = os.path.realpath(out)
        self.raw = os.path.join(self.path, "raw")
        d = top = self.path
        while not os.path.lexists(d):
            top = d
            d = os.path.dirname(d)
        self.top = top
        self.old = tree(top)

    def create(self):
        """Make OUT/raw; link results/latest when OUT is the default."""
        os.makedirs(self.raw, exist_ok=True)
        if self.stamp:
            link = os.path.join(self.root, "results", "latest")
            tmp = link + ".tmp%d" % os.getpid()
            os.symlink(self.stamp, tmp)
            os.replace(tmp, link)

    def chown(self, uid=None, gid=None):
        """Give what compare created to the user who ran sudo (SUDO_UID):
        a new folder holds only new things, so all of it."""
        if uid is None:
            uid = os.environ.get("SUDO_UID", "")
            gid = os.environ.get("SUDO_GID", "") or uid
            if not uid.isdigit() or int(uid) == 0:
                return
            uid, gid = int(uid), int(gid) if gid.isdigit() else int(uid)
        for p in sorted(tree(self.top) - self.old):
            give(p, uid, gid)


def give(path, uid, gid):
    """lchown PATH and, if it is a real folder, all below it."""
    try:
        os.lchown(path, uid, gid)
    except OSError:
        return
    if os.path.isdir(path) and not os.path.islink(path):
        for d, dirs, files in os.walk(path, followlinks=False):
            for n in dirs + files:
                try:
                    os.lchown(os.path.join(d, n), uid, gid)
                except OSError:
                    pass
