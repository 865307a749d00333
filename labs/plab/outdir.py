"""outdir.py - where a compare writes: --out DIR, or results/STAMP linked
as results/latest. The deepest folder of OUT that already exists is opened
when compare starts and what lies in it is noted, so that at the end the
results are given to the user who ran compare through sudo through that
descriptor (giveaway.py): only what compare created, never a folder that
was there before (--out /etc stays root's), never through a link, and
never somewhere else that was renamed or linked into OUT's place meanwhile.
"""

import os
import time

from . import giveaway

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY


def listing(dirfd, depth=giveaway.OLD_DEPTH):
    """The entries under folder dirfd (relative paths), DEPTH levels deep,
    through descriptors; links are listed, never followed."""
    out = set()

    def walk(fd, rel, level):
        for name in os.listdir(fd):
            out.add(rel + name)
            if level + 1 >= depth:
                continue
            try:
                sub = os.open(name, DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:
                continue  # a file or a link: nothing to look into
            try:
                walk(sub, rel + name + "/", level + 1)
            finally:
                os.close(sub)

    walk(dirfd, "", 0)
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
        d, self.top = self.path, "."
        while not os.path.lexists(d):
            self.top = os.path.basename(d)
            d = os.path.dirname(d)
        self.anchor = os.open(d, DIR_FLAGS)
        self.old = listing(self.anchor) if self.top == "." else set()

    def create(self):
        """Make OUT/raw; link results/latest when OUT is the default."""
        os.makedirs(self.raw, exist_ok=True)
        if self.stamp:
            link = os.path.join(self.root, "results", "latest")
            tmp = link + ".tmp%d" % os.getpid()
            os.symlink(self.stamp, tmp)
            os.replace(tmp, link)

    def chown(self, uid=None, gid=None):
        """Give what compare created to the user who ran sudo (SUDO_UID),
        walking from the folder opened at the start."""
        if uid is None:
            uid = os.environ.get("SUDO_UID", "")
            gid = os.environ.get("SUDO_GID", "") or uid
            if not uid.isdigit() or int(uid) == 0:
                return
            uid, gid = int(uid), int(gid) if gid.isdigit() else int(uid)
        owner = (uid, gid)
        if self.top == ".":
            giveaway.walk_old(self.anchor, "", self.old, owner, 0)
        else:
            giveaway.give(self.anchor, self.top, owner, 0)

    def close(self):
        """Let go of the folder opened at the start."""
        if self.anchor >= 0:
            os.close(self.anchor)
            self.anchor = -1
