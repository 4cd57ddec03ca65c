#!/usr/bin/env python3
"""Small stock-vs-ours comparisons that need no reference repositories:

- db/rep-cache.db as the first commit leaves it (RCACHE-1): created even
  by a commit with no rep to record, with the schema and user_version
  stock gives the format (6/7: version 1; 8: version 2, WITHOUT ROWID).
"""

import os
import shutil
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

S = None
COMPAT = {6: "1.8", 7: "1.9", 8: "1.10"}


def setup():
    global S
    S = T.Scratch("svnfsfs")


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


if __name__ == "__main__":
    try:
        T.main("svnfsfs", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
