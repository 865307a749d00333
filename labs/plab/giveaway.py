#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Give what a root command created to the user who ran it through sudo,
through descriptors, never by path.

  python3 -m plab.giveaway DIR TOP UID GID < OLD    (or give()/walk_old())

DIR is the folder the command's output hangs from, named as it was when
the command started: a descriptor it opened then (/proc/PID/fd/N), so
that nothing renamed or linked in its place since changes where this
looks. TOP is the entry of DIR the command created ("." when it wrote
into DIR itself, which existed). OLD, on stdin, NUL-separated: the
entries (paths relative to DIR) that were there before, left alone.

Every folder is opened relative to its parent's descriptor with
O_NOFOLLOW, every file the same way and checked before it is given (it
is still what was listed, belongs to root, has one link), and given with
fchown() on that descriptor. A link is never followed: only the link
itself changes hands. Under an old folder the walk looks three levels
deep (OUT/raw/FILE); under a new one, all of it (to 16 levels).

This is what `pathlab compare` does with --out under sudo (outdir.py):
open DIR when it starts, keep the descriptor, and walk from it at the end.
"""
import os
import stat
import sys

OLD_DEPTH = 3
NEW_DEPTH = 16
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY


def same(a, b):
    """True when two stat results are the same inode."""
    return a.st_dev == b.st_dev and a.st_ino == b.st_ino


def give(dirfd, name, owner, depth):
    """Give entry name of folder dirfd, and all under it, to owner."""
    try:
        st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if st.st_uid != 0:
        return  # not root's: not ours to give
    if stat.S_ISLNK(st.st_mode):
        os.chown(name, *owner, dir_fd=dirfd, follow_symlinks=False)
        return
    if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        return
    flags = FILE_FLAGS | (os.O_DIRECTORY if stat.S_ISDIR(st.st_mode) else 0)
    try:
        fd = os.open(name, flags, dir_fd=dirfd)
    except OSError:
        return  # replaced by a link or a folder since: left alone
    try:
        now = os.fstat(fd)
        if not same(st, now) or (stat.S_ISREG(now.st_mode)
                                 and now.st_nlink != 1):
            return
        os.fchown(fd, *owner)
        if stat.S_ISDIR(now.st_mode) and depth < NEW_DEPTH:
            for child in os.listdir(fd):
                give(fd, child, owner, depth + 1)
    finally:
        os.close(fd)


def walk_old(dirfd, rel, old, owner, depth):
    """In a folder that was there: give what is new, look into the rest."""
    for name in os.listdir(dirfd):
        path = rel + name
        if path not in old:
            give(dirfd, name, owner, depth)
            continue
        if depth + 1 >= OLD_DEPTH:
            continue
        try:
            fd = os.open(name, FILE_FLAGS | os.O_DIRECTORY, dir_fd=dirfd)
        except OSError:
            continue  # not a folder, or a link: nothing to look into
        try:
            walk_old(fd, path + "/", old, owner, depth + 1)
        finally:
            os.close(fd)


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    top, owner = argv[2], (int(argv[3]), int(argv[4]))
    old = set(p for p in sys.stdin.buffer.read().decode().split("\0") if p)
    dirfd = os.open(argv[1], os.O_RDONLY | os.O_DIRECTORY)
    try:
        if top == ".":
            walk_old(dirfd, "", old, owner, 0)
        elif "/" not in top and top not in (".", ".."):
            give(dirfd, top, owner, 0)
    finally:
        os.close(dirfd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
