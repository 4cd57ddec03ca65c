#!/usr/bin/env python3
"""`svnadmin hotcopy --incremental` and db/rep-cache.db (doc/format/
layout.md HOTCOPY-2, HOTCOPY-5): onto an earlier copy whose rowid table
agrees with the source's, our module appends the source's new rows and
leaves the copy's other pages alone; in every other case it copies the
file whole, as stock always does.  Either way the copy must end with
exactly the rows (rowids included) of a full stock copy of the source,
and pass stock's verify.

The repositories are small (a load of 1200 files: a rep-cache.db of
some 35 pages) and made by the stock module; the cases: new rows after
commits (formats 6 and 7, counted: the pages our copy writes), rows
deleted or changed in the copy, rows removed in the source by a recover,
rows of a commit landing after a later commit's (the copy must not keep
the hole the prune leaves), a copy without rep-cache.db, one with a
damaged file (refused, as by stock), and format 8
(WITHOUT ROWID: always the whole file).  Tests are named
test_hotcopy_repcache_<what>.
"""

import os
import re
import shutil
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

S = None
BASE = {}                  # format name -> stock repository, r1 = import
COMPAT = {"f6": "1.8", "f7": "1.9", "f8": "1.10"}
FILES = 1200


def setup():
    global S
    S = T.Scratch("hcrepcache")


def import_dump():
    """A dump stream of r1: /imp holding FILES small files."""
    out = [b"SVN-fs-dump-format-version: 2\n\n",
           b"Revision-number: 1\nProp-content-length: 10\nContent-length: 10\n\n"
           b"PROPS-END\n\n",
           b"Node-path: imp\nNode-kind: dir\nNode-action: add\n"
           b"Prop-content-length: 10\nContent-length: 10\n\nPROPS-END\n\n"]
    for i in range(FILES):
        text = b"file %d of the import\n" % i
        out.append(b"Node-path: imp/f%04d.txt\nNode-kind: file\nNode-action: add\n"
                   b"Prop-content-length: 10\nText-content-length: %d\n"
                   b"Content-length: %d\n\nPROPS-END\n%s\n"
                   % (i, len(text), 10 + len(text), text))
    return b"".join(out)


def base(fmt):
    """The stock repository of format FMT holding r1, an import of FILES
    small files (made once per run)."""
    if fmt not in BASE:
        repo = S.path("base-" + fmt)
        T.stock_ok("svnadmin", "create", "--compatible-version", COMPAT[fmt], repo)
        T.stock_ok("svnadmin", "load", "-q", "--no-flush-to-disk", repo, input=import_dump())
        BASE[fmt] = repo
    return BASE[fmt]


def fresh(fmt, name):
    return S.copy_repo(base(fmt), name)


_SEQ = [0]


def commit(repo, files=3):
    """A stock commit of FILES new small files, each with new content."""
    args = []
    for _ in range(files):
        _SEQ[0] += 1
        path = S.path("put-%d.txt" % _SEQ[0])
        with open(path, "w") as f:
            f.write("new text %d\n" % _SEQ[0])
        args += ["put", path, "new-%d.txt" % _SEQ[0]]
    T.stock_ok("svnmucc", "-m", "commit %d" % _SEQ[0], "-U", T.url(repo), *args)


def db(repo):
    return os.path.join(repo, "db", "rep-cache.db")


def rows(repo):
    """Every row of REPO's rep-cache.db with its rowid, by hash."""
    with sqlite3.connect("file:%s?mode=ro" % db(repo), uri=True) as c:
        return c.execute("SELECT rowid, * FROM rep_cache ORDER BY hash").fetchall()


def sql(repo, statement, *args):
    c = sqlite3.connect(db(repo))
    try:
        with c:
            return c.execute(statement, args).fetchall()
    finally:
        c.close()


def set_current(repo, rev):
    path = os.path.join(repo, "db", "current")
    os.chmod(path, 0o644)
    with open(path, "w") as f:
        f.write("%d\n" % rev)


def youngest(repo):
    return int(T.stock_ok("svnlook", "youngest", repo).stdout)


def strace_or_skip(tc):
    strace = shutil.which("strace")
    if not strace:
        if T.IN_CI:
            tc.fail("strace is needed to count the pages written")
        tc.skipTest("no strace")
    return strace


def hotcopy_ours(tc, src, dst, count=False):
    """Our incremental hot copy of SRC onto DST; with COUNT, the number of
    writes into DST's rep-cache.db (not its journal), else None."""
    if not count:
        b = T.ours("svnadmin", "hotcopy", "--incremental", "-q", src, dst)
        tc.assertEqual(b.returncode, 0, T.describe(b))
        return None
    log = S.path("strace-%d.txt" % _SEQ[0])
    b = T.ours(strace_or_skip(tc), "-f", "-y", "-qq", "-o", log, "-e",
               "trace=write,pwrite64,writev,pwritev", "svnadmin", "hotcopy",
               "--incremental", "-q", src, dst)
    tc.assertEqual(b.returncode, 0, T.describe(b))
    target = "<%s>" % os.path.realpath(db(dst))
    with open(log, errors="replace") as f:
        return sum(1 for line in f if target in line)


def pages(repo):
    return sql(repo, "PRAGMA page_count")[0][0]


def full_stock_copy(tc, src, name):
    """The rows a full stock hot copy of SRC holds."""
    ref = S.path(name)
    shutil.rmtree(ref, ignore_errors=True)
    T.stock_ok("svnadmin", "hotcopy", src, ref)
    return rows(ref)


def same_as_full_copy(tc, src, dst, what):
    tc.assertEqual(rows(dst), full_stock_copy(tc, src, "ref-" + os.path.basename(dst)),
                   "%s: rows differ from a full stock copy's" % what)
    p = T.stock("svnadmin", "verify", "-q", dst)
    tc.assertEqual(p.returncode, 0, "stock verify of %s: %s" % (what, T.describe(p)))


class HotcopyRepCache(unittest.TestCase):

    def test_hotcopy_repcache_appends_new_rows(self):
        """Formats 6 and 7: after commits, the copy gets the new rows with
        the source's rowids and keeps its old ones; of its ~35 pages our
        copy writes a handful (a whole-file copy writes every one), three
        rounds running, and the rows are a full stock copy's."""
        for fmt in ("f6", "f7"):
            with self.subTest(format=fmt):
                src = fresh(fmt, "append-src-" + fmt)
                dst = S.path("append-dst-" + fmt)
                T.stock_ok("svnadmin", "hotcopy", src, dst)
                old = set(rows(dst))
                self.assertGreaterEqual(len(old), FILES)
                for rnd in range(3):
                    commit(src, files=2 + rnd)
                    writes = hotcopy_ours(self, src, dst, count=True)
                    self.assertLessEqual(writes, 12, "round %d: %d writes into the copy's "
                                         "rep-cache.db of %d pages" % (rnd, writes, pages(dst)))
                    now = rows(dst)
                    self.assertLessEqual(old, set(now), "round %d: rows lost" % rnd)
                    self.assertEqual(len(now), len(old) + 2 + rnd, "round %d" % rnd)
                    old = set(now)
                self.assertGreater(pages(dst), 30)
                same_as_full_copy(self, src, dst, "appended copy " + fmt)

    def test_hotcopy_repcache_row_deleted_in_copy(self):
        """A row deleted from the copy below its last one: the counts
        differ, the file is copied whole and the row is back."""
        src = fresh("f7", "del-src")
        dst = S.path("del-dst")
        T.stock_ok("svnadmin", "hotcopy", src, dst)
        commit(src)
        sql(dst, "DELETE FROM rep_cache WHERE rowid = 100")
        hotcopy_ours(self, src, dst)
        self.assertTrue(any(r[0] == 100 for r in rows(dst)), "row 100 not copied back")
        same_as_full_copy(self, src, dst, "copy with a deleted row")

    def test_hotcopy_repcache_last_row_changed_in_copy(self):
        """The copy's last row differs from the source's row of that
        rowid: the file is copied whole."""
        src = fresh("f7", "chg-src")
        dst = S.path("chg-dst")
        T.stock_ok("svnadmin", "hotcopy", src, dst)
        commit(src)
        sql(dst, "UPDATE rep_cache SET expanded_size = expanded_size + 1 "
                 "WHERE rowid = (SELECT max(rowid) FROM rep_cache)")
        hotcopy_ours(self, src, dst)
        same_as_full_copy(self, src, dst, "copy with a changed last row")

    def test_hotcopy_repcache_rows_removed_in_source_by_recover(self):
        """Rows the copy holds and the source no longer does (a revision
        lost in the source, its rows pruned by recover, the revision made
        again by a new commit whose rows take the freed rowids): the
        copy's last row is not the source's, the file is copied whole."""
        src = fresh("f7", "rec-src")
        dst = S.path("rec-dst")
        commit(src, files=4)
        T.stock_ok("svnadmin", "hotcopy", src, dst)
        head = youngest(src)
        os.remove(os.path.join(src, "db", "revs", "0", str(head)))
        os.remove(os.path.join(src, "db", "revprops", "0", str(head)))
        set_current(src, head - 1)
        T.stock_ok("svnadmin", "recover", src)
        self.assertEqual(max(r[2] for r in rows(src)), head - 1)
        commit(src, files=5)
        self.assertEqual(youngest(src), head)
        hotcopy_ours(self, src, dst)
        self.assertEqual(rows(dst), full_stock_copy(self, src, "rec-ref"),
                         "rows differ from a full stock copy's")

    def test_hotcopy_repcache_late_rows_leave_no_hole(self):
        """Rows naming a revision after the youngest followed by rows up
        to it (a commit's rows landing after a later commit's; here made
        with build-repcache while db/current lags): appending would leave
        the pruned rows' rowids as a hole below the copy's last row, which
        no later append fills.  Our copy then copies the whole file, and
        the next copy, finding the counts differ, again, until the rows
        are in."""
        src = fresh("f7", "late-src")
        dst = S.path("late-dst")
        sql(src, "DELETE FROM rep_cache WHERE revision = 1 AND rowid > 1190")
        T.stock_ok("svnadmin", "hotcopy", src, dst)
        commit(src)
        T.stock_ok("svnadmin", "build-repcache", "-q", "-r", "1:1", src)
        head = youngest(src)
        last = sql(src, "SELECT revision FROM rep_cache ORDER BY rowid DESC LIMIT 1")[0][0]
        self.assertEqual(last, 1, "build-repcache did not append")
        set_current(src, head - 1)          # the commit of HEAD "in progress"
        hotcopy_ours(self, src, dst)
        self.assertEqual(rows(dst), full_stock_copy(self, src, "late-ref1"),
                         "while current lags: rows differ from a full stock copy's")
        set_current(src, head)
        hotcopy_ours(self, src, dst)
        self.assertTrue(any(r[2] == head for r in rows(dst)), "the late commit's rows never came")
        same_as_full_copy(self, src, dst, "copy after late rows")

    def test_hotcopy_repcache_copy_without_rep_cache(self):
        """A copy that lost its rep-cache.db gets the whole file."""
        src = fresh("f7", "none-src")
        dst = S.path("none-dst")
        T.stock_ok("svnadmin", "hotcopy", src, dst)
        commit(src)
        os.remove(db(dst))
        hotcopy_ours(self, src, dst)
        same_as_full_copy(self, src, dst, "copy without rep-cache.db")

    def test_hotcopy_repcache_damaged_copy(self):
        """A copy whose rep-cache.db is no database any more: nothing to
        append to; the whole-file copy then fails on it as stock's does
        (E200030, both files named)."""
        src = fresh("f7", "bad-src")
        commit(src)
        runs = {}
        for name, runner in (("stock", T.stock), ("ours", T.ours)):
            dst = S.path("bad-dst-" + name)
            T.stock_ok("svnadmin", "hotcopy", src, dst)
            commit(src)
            with open(db(dst), "r+b") as f:
                f.write(b"this is no SQLite file" * 200)
            runs[name] = runner("svnadmin", "hotcopy", "--incremental", "-q", src, dst)
        self.assertEqual((runs["ours"].returncode, T.errcodes(runs["ours"])),
                         (runs["stock"].returncode, T.errcodes(runs["stock"])),
                         "stock %s / ours %s" % (T.describe(runs["stock"]),
                                                 T.describe(runs["ours"])))
        self.assertIn(db(S.path("bad-dst-ours")).encode(), runs["ours"].stderr)

    def test_hotcopy_repcache_format8(self):
        """Format 8's WITHOUT ROWID table: the file is copied whole, and
        the rows are a full stock copy's."""
        src = fresh("f8", "f8-src")
        dst = S.path("f8-dst")
        T.stock_ok("svnadmin", "hotcopy", src, dst)
        self.assertIn("WITHOUT ROWID", sql(dst, "SELECT sql FROM sqlite_master "
                                                "WHERE name = 'rep_cache'")[0][0])
        for rnd in range(2):
            commit(src)
            hotcopy_ours(self, src, dst)
        with sqlite3.connect("file:%s?mode=ro" % db(dst), uri=True) as c:
            got = c.execute("SELECT * FROM rep_cache ORDER BY hash").fetchall()
        ref = S.path("f8-ref")
        T.stock_ok("svnadmin", "hotcopy", src, ref)
        with sqlite3.connect("file:%s?mode=ro" % db(ref), uri=True) as c:
            want = c.execute("SELECT * FROM rep_cache ORDER BY hash").fetchall()
        self.assertEqual(got, want)
        p = T.stock("svnadmin", "verify", "-q", dst)
        self.assertEqual(p.returncode, 0, T.describe(p))


if __name__ == "__main__":
    try:
        T.main("hotcopy-repcache", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
