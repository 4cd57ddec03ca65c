#!/usr/bin/env python3
"""Stock-vs-ours comparisons of svnfsfs and of rep-cache.db details:

- db/rep-cache.db as the first commit leaves it (RCACHE-1): created even
  by a commit with no rep to record, with the schema and user_version
  stock gives the format (6/7: version 1; 8: version 2, WITHOUT ROWID).
- `svnfsfs stats` (doc/ioctls.md): the same report from both modules on
  the stock-made reference repositories of the generated history (all
  seven variants) and of maven-small (when present), on a small history
  made for the report's corner cases in formats 6, 7 and 8, physically
  and logically addressed, packed and not (and in the old formats 2 and
  4; 1 and 3 under FSFS7_SLOW), on empty repositories and on a
  repository our module wrote.

Stock's report is not quite deterministic: extensions that tie in a
ranking come in the order of a hash with a random seed, so which of them
make the top 16 and in which order their histograms follow varies from
run to run.  stats_diff() compares everything else exactly and the tied
extensions by their numbers.
"""

import difflib
import os
import re
import shutil
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

S = None
COMPAT = {6: "1.8", 7: "1.9", 8: "1.10"}
DATASETS = {}            # name -> T.Dataset with its reference repos


def setup():
    global S
    S = T.Scratch("svnfsfs")
    for name, path, _ in T.datasets():
        if path:
            DATASETS[name] = T.reference_repos(T.Dataset(name, path))


def make_repo(name, fmt, ours, commands=()):
    """A format-FMT repository made (and committed to) by ours or stock;
    COMMANDS: svn argument lists, a leading "URL" standing for its root
    URL."""
    path = S.path(name)
    shutil.rmtree(path, ignore_errors=True)
    p = T.run(["svnadmin", "create", "--compatible-version", COMPAT[fmt],
               path], ours=ours)
    if p.returncode != 0:
        raise AssertionError("create: " + T.describe(p))
    for args in commands:
        args = [T.url(path) + a[3:] if a.startswith("URL") else a
                for a in args]
        p = T.run(["svn", "-q"] + args, ours=ours)
        if p.returncode != 0:
            raise AssertionError("svn %s: %s" % (args, T.describe(p)))
    return path


def rep_cache_schema(repo):
    """(schema SQL, user_version) of REPO's rep-cache.db, or None."""
    path = os.path.join(repo, "db", "rep-cache.db")
    if not os.path.exists(path):
        return None
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        sql = [r[0] for r in db.execute("SELECT sql FROM sqlite_master")]
        version = db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()
    return sql, version


class SvnfsfsTests(unittest.TestCase):

    def rep_cache_as_stock(self, fmt):
        mkdir = [["mkdir", "-m", "dir only", "URL/d"]]
        got = {}
        for ours in (False, True):
            tag = "ours" if ours else "stock"
            fresh = make_repo("rc-fresh-%s-f%d" % (tag, fmt), fmt, ours)
            self.assertIsNone(rep_cache_schema(fresh),
                              "%s: rep-cache.db before any commit" % tag)
            repo = make_repo("rc-%s-f%d" % (tag, fmt), fmt, ours, mkdir)
            got[tag] = rep_cache_schema(repo)
        self.assertIsNotNone(got["stock"])
        self.assertEqual(got["stock"], got["ours"])
        self.assertEqual(got["ours"][1], 2 if fmt >= 8 else 1)

    def test_rep_cache_schema_f6(self):
        self.rep_cache_as_stock(6)

    def test_rep_cache_schema_f7(self):
        self.rep_cache_as_stock(7)

    def test_rep_cache_schema_f8(self):
        self.rep_cache_as_stock(8)


# ---- svnfsfs stats ----------------------------------------------------------

RANKING = re.compile(r"^(.*?) +([\d,]+) \(([ \d]+)%\) (representations|bytes)$")
HISTOGRAM = re.compile(r"^Histogram of '(.*)' file (?:representation )?sizes:$")


def stats_sections(text):
    """[(header, [lines])] of an `svnfsfs stats` report (str)."""
    out = []
    for line in text.split("\n"):
        if not line:
            continue
        if line[0] != " " and line.endswith(":") or not out:
            out.append((line, []))
        else:
            out[-1][1].append(line)
    return out


def stats_diff(stock, ours):
    """None if the two reports agree, else what differs.  Sections are
    compared exactly, except where stock's order is random (see the
    module docstring): in an extension ranking the numbers must be the
    same in the same order, an extension both list must have the same
    number, and one only a side lists must tie with the ranking's last
    (the cut-off); per-extension histograms must be equal for extensions
    both show, and the others must be such cut-off ties."""
    a, b = stats_sections(stock), stats_sections(ours)
    cutoff = set()
    plain_a = [s for s in a if not HISTOGRAM.match(s[0])]
    plain_b = [s for s in b if not HISTOGRAM.match(s[0])]
    if [h for h, _ in plain_a] != [h for h, _ in plain_b]:
        return "sections differ: %r / %r" % ([h for h, _ in plain_a],
                                             [h for h, _ in plain_b])
    for (head, la), (_, lb) in zip(plain_a, plain_b):
        if not head.startswith("Extensions by"):
            if la != lb:
                return "section %r differs:\n%s" % (
                    head, "\n".join(difflib.unified_diff(la, lb, "stock",
                                                          "ours", lineterm="")))
            continue
        ra = [RANKING.match(l).groups() for l in la]
        rb = [RANKING.match(l).groups() for l in lb]
        if [r[1:] for r in ra] != [r[1:] for r in rb]:
            return "ranking %r differs in its numbers:\n%s\n--\n%s" % (
                head, "\n".join(la), "\n".join(lb))
        ta = {r[0].strip(): r[1] for r in ra if r[0].strip() != "(others)"}
        tb = {r[0].strip(): r[1] for r in rb if r[0].strip() != "(others)"}
        last = [r[1] for r in ra if r[0].strip() != "(others)"][-1:]
        for ext in set(ta) | set(tb):
            if ext in ta and ext in tb:
                if ta[ext] != tb[ext]:
                    return "%r: %s %s / %s" % (head, ext, ta[ext], tb[ext])
            elif (ta.get(ext) or tb.get(ext)) not in last or len(ta) < 16:
                return "%r: %s listed by one side only, not a cut-off tie" \
                       % (head, ext)
            else:
                cutoff.add(ext)
    ha = {h: l for h, l in a if HISTOGRAM.match(h)}
    hb = {h: l for h, l in b if HISTOGRAM.match(h)}
    if len(ha) != len(hb):
        return "%d / %d per-extension histograms" % (len(ha), len(hb))
    for h in set(ha) | set(hb):
        if h in ha and h in hb:
            if ha[h] != hb[h]:
                return "%r differs: %r / %r" % (h, ha[h], hb[h])
        elif HISTOGRAM.match(h).group(1) not in cutoff:
            return "%r shown by one side only" % h
    return None


def gen_quirks_dump():
    """A small dump for the report's corner cases: file names whose only
    dot leads ("(none)" extension), trailing dots, dots in directory
    names; a revision of 238 changed paths and one of 100 (stock counts
    them differently per addressing mode); identical contents at several
    paths in one revision and across revisions (rep sharing: the path a
    rep is reported under is the first in the file); property-only and
    text-only changes, an empty file (among non-empty ones of its
    extension: a histogram of only zero sizes makes the tool divide by
    zero), a directory with properties."""
    out = [b"SVN-fs-dump-format-version: 2\n\n"]

    def rev(num, nodes):
        out.append(b"Revision-number: %d\nProp-content-length: 10\n"
                   b"Content-length: 10\n\nPROPS-END\n\n" % num)
        for path, kind, action, props, text in nodes:
            head = ("Node-path: %s\nNode-kind: %s\nNode-action: %s\n"
                    % (path, kind, action)).encode()
            body = b""
            if props is not None:
                block = b"".join(b"K %d\n%s\nV %d\n%s\n"
                                 % (len(k), k, len(v), v)
                                 for k, v in props) + b"PROPS-END\n"
                head += b"Prop-content-length: %d\n" % len(block)
                body += block
            if text is not None:
                head += b"Text-content-length: %d\n" % len(text)
                body += text
            if action == "delete":
                out.append(("Node-path: %s\nNode-action: delete\n\n\n"
                            % path).encode())
                continue
            head += b"Content-length: %d\n\n" % len(body)
            out.append(head + body + b"\n\n")

    big = b"".join(b"shared line %d\n" % i for i in range(2000))
    names = [".cvsignore", "a.", ".a.b", "README", "c..d", "x.Long_Ext",
             "sp ace.t xt", "dir.d/file", "dir.d/.hidden"]
    rev(1, [("dir.d", "dir", "add", [(b"svn:ignore", b"*.o\n")], None),
            ("zz", "dir", "add", None, None)]
        + [(n, "file", "add", [], b"text of %s\n" % n.encode())
           for n in names]
        + [("zz/z.one", "file", "add", [], big),
           ("a.two", "file", "add", [], big),
           ("empty.c", "file", "add", [], b"")])
    rev(2, [("many", "dir", "add", None, None)]
        + [("many/f%03d.c" % i, "file", "add", [], b"file %d\n" % i)
           for i in range(237)])
    rev(3, [("many/f%03d.c" % i, "file", "change", None,
             b"file %d changed\n" % i) for i in range(100)])
    rev(4, [("b.three", "file", "add", [], big),
            ("README", "file", "change", [(b"k", b"v")], None),
            ("dir.d", "dir", "change", [(b"svn:ignore", b"*.a\n")], None)])
    rev(5, [("q.four", "file", "add", [], big + b"more\n"),
            ("c.five", "file", "add", [], big + b"more\n"),
            ("a.two", "file", "change", None, big + b"edit\n")])
    rev(6, [("many/f%03d.c" % i, "file", "delete", None, None)
            for i in range(0, 237, 3)])
    return b"".join(out)


def make_quirks_repo(name, fmt, physical):
    """A stock-made repository of the quirks dump: FMT 6, 7 or 8, shards
    of 2 revisions; PHYSICAL addressing for formats 7 and 8 by creating a
    format 6 repository and raising its db/format before the first commit
    (7: by hand, as svnadmin offers no way; 8: by svnadmin upgrade)."""
    path = S.path(name)
    T.stock_ok("svnadmin", "create", "--compatible-version",
               COMPAT[6] if physical else COMPAT[fmt], path)
    fmt_file = os.path.join(path, "db", "format")
    with open(fmt_file) as f:
        text = f.read().replace("layout sharded 1000", "layout sharded 2")
    with open(fmt_file, "w") as f:
        f.write(text)
    if physical and fmt == 7:
        with open(fmt_file, "w") as f:
            f.write("7\nlayout sharded 2\naddressing physical\n")
        # Format 7 keeps an instance id in the second line of db/uuid.
        with open(os.path.join(path, "db", "uuid"), "a") as f:
            f.write("6f2d1c9e-8a4b-4c1e-9d3f-0a1b2c3d4e5f\n")
    elif physical and fmt == 8:
        T.stock_ok("svnadmin", "upgrade", path)
    p = T.run(["svnadmin", "load", "-q", "--no-flush-to-disk", path],
              input=QUIRKS)
    if p.returncode != 0:
        raise T.SetupError("stock load of the quirks dump: " + T.describe(p))
    with open(fmt_file) as f:
        head = f.read()
    logical = "addressing logical" in head
    if not head.startswith("%d\n" % fmt) or logical == physical:
        raise T.SetupError("unexpected db/format %r for %s" % (head, name))
    return path


QUIRKS = None
OLD_COMPAT = {1: "1.3", 2: "1.4", 3: "1.5", 4: "1.6"}


class SvnfsfsStats(unittest.TestCase):

    def assertSameStats(self, repo):
        p = T.stock("svnfsfs", "stats", repo)
        if p.returncode != 0:
            raise T.SetupError("stock svnfsfs stats %s: %s"
                               % (repo, T.describe(p)))
        q = T.ours("svnfsfs", "stats", repo)
        self.assertEqual(q.returncode, 0, T.describe(q))
        self.assertEqual(q.stderr, p.stderr)
        diff = stats_diff(p.stdout.decode(), q.stdout.decode())
        self.assertIsNone(diff, "svnfsfs stats %s: %s" % (repo, diff))

    def check_dataset(self, name):
        ds = DATASETS.get(name)
        if not ds:
            self.skipTest("dataset %s not available" % name)
        for variant in T.variants_for(name):
            with self.subTest(variant=variant):
                self.assertSameStats(ds.repos[variant])

    def test_stats_gen(self):
        self.check_dataset("gen")

    def test_stats_maven(self):
        self.check_dataset("maven")

    def check_quirks(self, fmt, physical):
        global QUIRKS
        if QUIRKS is None:
            QUIRKS = gen_quirks_dump()
        name = "quirks-f%d%s" % (fmt, "-phys" if physical else "")
        repo = make_quirks_repo(name, fmt, physical)
        with self.subTest(packed=False):
            self.assertSameStats(repo)
        packed = S.copy_repo(repo, name + "-packed")
        T.stock_ok("svnadmin", "pack", "-q", packed)
        with self.subTest(packed=True):
            self.assertSameStats(packed)

    def test_stats_quirks_f6(self):
        self.check_quirks(6, True)

    def test_stats_quirks_f7(self):
        self.check_quirks(7, False)

    def test_stats_quirks_f7_physical(self):
        self.check_quirks(7, True)

    def test_stats_quirks_f8(self):
        self.check_quirks(8, False)

    def test_stats_quirks_f8_physical(self):
        self.check_quirks(8, True)

    def test_stats_quirks_old_formats(self):
        """Formats 2 (linear layout) and 4 (sharded, packs revisions
        only); FSFS7_SLOW adds 1 and 3.  Stock packs none of 1-3."""
        global QUIRKS
        if QUIRKS is None:
            QUIRKS = gen_quirks_dump()
        for fmt in (1, 2, 3, 4) if T.SLOW else (2, 4):
            with self.subTest(fmt=fmt):
                path = S.path("quirks-old-f%d" % fmt)
                T.stock_ok("svnadmin", "create", "--compatible-version",
                           OLD_COMPAT[fmt], path)
                p = T.run(["svnadmin", "load", "-q", path], input=QUIRKS)
                if p.returncode != 0:
                    raise T.SetupError("stock load: " + T.describe(p))
                self.assertSameStats(path)
                if fmt == 4:
                    packed = S.copy_repo(path, "quirks-old-f4-packed")
                    T.stock_ok("svnadmin", "pack", "-q", packed)
                    self.assertSameStats(packed)

    def test_stats_empty(self):
        for fmt in (6, 7, 8):
            with self.subTest(fmt=fmt):
                self.assertSameStats(make_repo("empty-f%d" % fmt, fmt, False))

    def test_stats_repo_written_by_ours(self):
        """Item order in files our module wrote decides as in stock's."""
        path = S.path("ours-loaded")
        p = T.ours("svnadmin", "create", path)
        self.assertEqual(p.returncode, 0, T.describe(p))
        with open(T.gen_dump(revs=40), "rb") as f:
            p = T.ours("svnadmin", "load", "-q", "--no-flush-to-disk", path,
                       input=f.read())
        self.assertEqual(p.returncode, 0, T.describe(p))
        self.assertSameStats(path)

    def test_stats_diff_catches(self):
        """The comparison itself: tie order passes, numbers do not."""
        base = ("Reading revisions\n       0\n\n\nGlobal statistics:\n"
                "  1 bytes\n\nExtensions by number of representations:\n"
                "         .c                    2 (50%) representations\n"
                "         .h                    1 (25%) representations\n"
                "         .x                    1 (25%) representations\n"
                "   (others)                    0 ( 0%) representations\n")
        swapped = base.replace(".h ", ".y ").replace(".x ", ".h ") \
                      .replace(".y ", ".x ")
        self.assertIsNone(stats_diff(base, swapped))
        self.assertIsNotNone(stats_diff(base, base.replace("  1 bytes",
                                                           "  2 bytes")))
        self.assertIsNotNone(stats_diff(base, base.replace(".c ", ".d ")))
        self.assertIsNotNone(stats_diff(base, base.replace("2 (50%)",
                                                           "3 (50%)")))

if __name__ == "__main__":
    try:
        T.main("svnfsfs", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
