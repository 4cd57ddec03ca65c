#!/usr/bin/env python3
"""gen_scale.py: dump streams (format 2, full texts) of large histories for
the scale benchmark (tools/bench/scale.py), written as they are generated.

    gen_scale.py SHAPE --size N [--first R] [--last R] [--seed S] [-o FILE]

SHAPE is one of:

  length  N revisions of small commits after r1's skeleton: each edits 1-5
          files of /trunk, every second revision adds a file, every 100th
          copies a module to /branches/bR and another sets svn:mergeinfo on
          a module, another edits a file on a branch, every 1000th tags
          /trunk.  Files live in /trunk/mXX/dYY/ (100 x 50 leaf
          directories), so no directory of trunk grows large.
  width   one directory /big growing by 5000 entries per revision to N
          entries (N/5000 revisions after r1), beside a small /other.
  wide    r1 makes /w with 100 subdirectories, r2 adds N files spread
          over them, r3 changes every one of the N files in one commit.
  depth   one file, /deep.txt, with N revisions of a one-line edit each.

Revisions are numbered from 0 (the stream's r0 carries no changes); a
shape of --size N has youngest revision N (length, depth) or the number
its shape gives.  --first/--last write only that range of revisions (for
`svnadmin load` into a repository that already holds the revisions
before it): `gen_scale.py length --size 10000 --first 10001 --last 11000`
is the "next 1000 revisions" of the 10k history.  The stream is the same
whatever the range: every revision's content is a function of (seed,
shape, revision) alone, computed without replaying the ones before it, so
the generator holds one revision in memory and writes 100k revisions of
`length` in seconds.

Only the Python 3 standard library is used; equal arguments give
byte-identical output.
"""

import argparse
import random
import sys

DATE0 = 1577836800          # 2020-01-01T00:00:00Z
MODULES = 100               # /trunk/mXX
LEAVES = 50                 # /trunk/mXX/dYY
WIDTH_STEP = 5000           # entries /big gains per revision
WIDE_DIRS = 100             # /w/sXX
DEEP_LINES = 120            # lines of /deep.txt
WORDS = ("alpha beta gamma delta epsilon zeta theta kappa lambda sigma "
         "omega window offset index cache parser merge branch revision "
         "node change build test fix update release").split()


class Dump:
    """Writes dump records to a binary stream."""

    def __init__(self, out):
        self.out = out

    def w(self, data):
        self.out.write(data)

    @staticmethod
    def props(pairs):
        body = b"".join(b"K %d\n%s\nV %d\n%s\n" % (len(k), k, len(v), v)
                        for k, v in pairs)
        return body + b"PROPS-END\n"

    def header(self):
        self.w(b"SVN-fs-dump-format-version: 2\n\n"
               b"UUID: 5ca1e000-0000-4000-8000-00000000%04d\n\n" % 0)

    def revision(self, rev, log):
        if rev == 0:
            pairs = [(b"svn:date", date(0))]
        else:
            pairs = [(b"svn:author", b"gen%d" % (rev % 7)),
                     (b"svn:date", date(rev)), (b"svn:log", log)]
        p = self.props(pairs)
        self.w(b"Revision-number: %d\nProp-content-length: %d\n"
               b"Content-length: %d\n\n%s\n" % (rev, len(p), len(p), p))

    def mkdir(self, path, copy=None):
        if copy:
            self.w(b"Node-path: %s\nNode-kind: dir\nNode-action: add\n"
                   b"Node-copyfrom-rev: %d\nNode-copyfrom-path: %s\n\n\n"
                   % (path, copy[0], copy[1]))
            return
        p = self.props([])
        self.w(b"Node-path: %s\nNode-kind: dir\nNode-action: add\n"
               b"Prop-content-length: %d\nContent-length: %d\n\n%s\n\n"
               % (path, len(p), len(p), p))

    def dirprops(self, path, pairs):
        p = self.props(pairs)
        self.w(b"Node-path: %s\nNode-kind: dir\nNode-action: change\n"
               b"Prop-content-length: %d\nContent-length: %d\n\n%s\n\n"
               % (path, len(p), len(p), p))

    def add(self, path, text):
        p = self.props([])
        self.w(b"Node-path: %s\nNode-kind: file\nNode-action: add\n"
               b"Prop-content-length: %d\nText-content-length: %d\n"
               b"Content-length: %d\n\n%s%s\n\n"
               % (path, len(p), len(text), len(p) + len(text), p, text))

    def change(self, path, text):
        self.w(b"Node-path: %s\nNode-kind: file\nNode-action: change\n"
               b"Text-content-length: %d\nContent-length: %d\n\n%s\n\n"
               % (path, len(text), len(text), text))


def date(rev):
    """svn:date of REV: one minute per revision."""
    t = DATE0 + 60 * rev
    days, secs = divmod(t, 86400)
    # civil-from-days (proleptic Gregorian), to stay off time.gmtime's
    # per-call cost and locale
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y = yoe + era * 400 + (1 if m <= 2 else 0)
    return b"%04d-%02d-%02dT%02d:%02d:%02d.000000Z" % (
        y, m, d, secs // 3600, secs // 60 % 60, secs % 60)


# -- length ----------------------------------------------------------------

def file_path(i):
    """/trunk path of file number I (files are never deleted)."""
    return b"trunk/m%02d/d%02d/f%d.txt" % (i % MODULES,
                                         i // MODULES % LEAVES, i)


def files_before(rev):
    """Number of files in /trunk when REV begins: revision 2k adds file
    k-1, so files 0..n-1 exist after revision 2n."""
    return max(0, (rev - 1) // 2)


def file_text(i, rev):
    """Content of file I as written in REV: 8-31 lines fixed by I, one of
    which names REV, so consecutive versions differ by a line or two."""
    rng = random.Random(i * 7919 + 17)
    n = 8 + i % 24
    lines = [b"%d %s" % (i, " ".join(rng.choice(WORDS)
                                    for _ in range(6)).encode())
             for _ in range(n)]
    lines[rev % n] = b"edited in r%d" % rev
    return b"\n".join(lines) + b"\n"


def length_rev(d, rev, seed):
    rng = random.Random(seed * 1000003 + rev)
    if rev == 1:
        d.revision(1, b"skeleton")
        for top in (b"trunk", b"branches", b"tags"):
            d.mkdir(top)
        for m in range(MODULES):
            d.mkdir(b"trunk/m%02d" % m)
            for leaf in range(LEAVES):
                d.mkdir(b"trunk/m%02d/d%02d" % (m, leaf))
        return
    n = files_before(rev)
    d.revision(rev, b"r%d: %s" % (rev, " ".join(
        rng.choice(WORDS) for _ in range(rng.randint(2, 12))).encode()))
    touched = set()
    if rev % 2 == 0:
        d.add(file_path(n), file_text(n, rev))
        touched.add(n)
    for _ in range(rng.randint(1, 5) - len(touched)):
        if n == 0:
            break
        i = rng.randrange(n)
        if i not in touched:
            touched.add(i)
            d.change(file_path(i), file_text(i, rev))
    phase = rev % 100
    if phase == 50:                       # branch a module
        d.mkdir(b"branches/b%d" % rev,
                copy=(rev - 1, b"trunk/m%02d" % (rev // 100 % MODULES)))
    elif phase == 60 and rev > 100:       # edit a file on the branch
        b = rev - 10
        m = b // 100 % MODULES
        i = m + MODULES * rng.randrange(max(1, files_before(b) // MODULES))
        if i < files_before(b):
            d.change(b"branches/b%d/d%02d/f%d.txt"
                     % (b, i // MODULES % LEAVES, i), file_text(i, rev))
    elif phase == 75 and rev > 100:       # record a merge from it
        b = rev - 25
        d.dirprops(b"trunk/m%02d" % (b // 100 % MODULES),
                   [(b"svn:mergeinfo",
                     b"/branches/b%d:%d-%d" % (b, b + 1, rev - 1))])
    if rev % 1000 == 999:
        d.mkdir(b"tags/t%d" % rev, copy=(rev - 1, b"trunk"))


# -- width, wide, depth ------------------------------------------------------

def small_text(i, rev):
    return b"file %d written in r%d\n" % (i, rev)


def width_rev(d, rev, seed):
    if rev == 1:
        d.revision(1, b"skeleton")
        d.mkdir(b"big")
        d.mkdir(b"other")
        d.add(b"other/readme.txt", small_text(0, 1))
        return
    d.revision(rev, b"grow /big in r%d" % rev)
    base = (rev - 2) * WIDTH_STEP
    for i in range(base, base + WIDTH_STEP):
        d.add(b"big/e%07d.txt" % i, small_text(i, rev))


def wide_path(i):
    return b"w/s%02d/f%07d.txt" % (i % WIDE_DIRS, i)


def wide_rev(d, rev, size):
    if rev == 1:
        d.revision(1, b"skeleton")
        d.mkdir(b"w")
        for s in range(WIDE_DIRS):
            d.mkdir(b"w/s%02d" % s)
        return
    d.revision(rev, b"%s %d files" % (b"add" if rev == 2 else b"change",
                                      size))
    for i in range(size):
        if rev == 2:
            d.add(wide_path(i), small_text(i, rev))
        else:
            d.change(wide_path(i), small_text(i, rev))


def deep_text(rev):
    """Content of /deep.txt in REV: line j names the last revision <= REV
    that edited it (revision k edits line k mod DEEP_LINES)."""
    lines = []
    for j in range(DEEP_LINES):
        last = rev - ((rev - j) % DEEP_LINES)
        lines.append(b"line %d: last edited in r%d %s" % (
            j, max(last, 1), WORDS[j % len(WORDS)].encode()))
    return b"\n".join(lines) + b"\n"


def depth_rev(d, rev, seed):
    if rev == 1:
        d.revision(1, b"skeleton")
        d.mkdir(b"other")
        d.add(b"deep.txt", deep_text(1))
        return
    d.revision(rev, b"edit line %d" % (rev % DEEP_LINES))
    d.change(b"deep.txt", deep_text(rev))


def youngest(shape, size):
    """Youngest revision of SHAPE at SIZE."""
    if shape == "width":
        return 1 + size // WIDTH_STEP
    if shape == "wide":
        return 3
    return size


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shape", choices=("length", "width", "wide", "depth"))
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--last", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    last = youngest(a.shape, a.size) if a.last is None else a.last
    out = open(a.output, "wb") if a.output else sys.stdout.buffer
    d = Dump(out)
    d.header()
    for rev in range(a.first, last + 1):
        if rev == 0:
            d.revision(0, b"")
        elif a.shape == "length":
            length_rev(d, rev, a.seed)
        elif a.shape == "width":
            width_rev(d, rev, a.seed)
        elif a.shape == "wide":
            wide_rev(d, rev, a.size)
        else:
            depth_rev(d, rev, a.seed)
    out.flush()


if __name__ == "__main__":
    main()
