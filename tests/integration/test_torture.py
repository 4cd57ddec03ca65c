#!/usr/bin/env python3
"""Integration test: a short, deterministic slice of the crash-point and
I/O-error campaigns (tools/torture/campaign.py, doc/reliability.md).

For every operation the campaign knows, a seeded sample of POINTS call
indices is run twice through tools/torture/fault.so on our module: once
killed with SIGKILL at that file-system call, once with the call failing
(ENOSPC / EIO / EDQUOT in turn).  A point passes when the campaign's checks
pass (stock verify, acknowledged revisions unchanged, next commit and
re-run work; after an error: a clear svn error naming a file and the
repository as before).  `make torture` runs the full campaigns.
Tests are named test_torture_<campaign>_<operation>.
"""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

sys.path.insert(0, os.path.join(T.TOP_SRCDIR, "tools", "torture"))
os.environ.setdefault("FAULT_SO", os.path.join(T.TOP_BUILDDIR, "tools",
                                               "torture", "fault.so"))
import campaign as C  # noqa: E402

POINTS = int(os.environ.get("TORTURE_CHECK_POINTS",
                            "40" if T.SLOW else "4"))
SEED = 11
WORK = None
OPS = {}


def setup():
    global WORK
    if not os.path.exists(C.FAULT_SO):
        raise T.SetupError("no interposer at %s (make tools/torture/fault.so)"
                           % C.FAULT_SO)
    WORK = tempfile.mkdtemp(prefix="fsfs7-torture-")


def prepared(name):
    """The operation's template and reference run, built once."""
    if name not in OPS:
        op = C.OP_CLASSES[name](WORK, SEED)
        op.moddir = T.MODULE_DIR
        try:
            op.build()
        except RuntimeError as e:
            raise T.SetupError(str(e))
        why = op.reference(T.MODULE_DIR)
        total = 0 if why else C.count_calls(op, T.MODULE_DIR)
        OPS[name] = (op, why, total)
    return OPS[name]


class Torture(unittest.TestCase):
    def sweep(self, campaign, name):
        op, why, total = prepared(name)
        if why:
            if name == "pack" and "does not implement" in why:
                self.skipTest(why)
            self.fail(why)
        self.assertGreater(total, 0, "the interposer counted no call")
        fails = []
        for n in C.choose_points(total, POINTS, SEED, name + campaign):
            call, arg, rc, outcome, detail = C.point(op, T.MODULE_DIR,
                                                     campaign, n)
            T.log("%s %s n=%d/%d %s %s -> %s %s" % (
                campaign, name, n, total, call, arg, outcome, detail))
            if outcome == "FAIL":
                fails.append("n=%d %s %s: %s" % (n, call, arg, detail))
        self.assertEqual(fails, [])


class Regressions(unittest.TestCase):
    """Defects the campaigns found, each pinned to its failing call."""

    def aimed(self, name, mode, match, n=1):
        """Run operation NAME with the Nth call on a path containing MATCH
        killed (MODE "kill") or failed (the errno rotates with N: 1 is
        EIO); returns the point's result as the campaign judges it."""
        op, why, _ = prepared(name)
        if why:
            self.fail(why)
        return C.point(op, T.MODULE_DIR, "crash" if mode == "kill"
                       else "errors", n, match=match)

    def test_torture_hotcopy_repcache_error_names_file(self):
        # Found by the I/O-error campaign: a failed write of the copy's
        # rep-cache.db gave "Cannot copy rep-cache.db: disk I/O error",
        # naming neither the source nor the destination file.
        call, arg, rc, outcome, detail = self.aimed("hotcopy-incr", "eio",
                                                    "rep-cache.db")
        self.assertIn("rep-cache.db", arg)
        self.assertNotEqual(rc, 0)
        self.assertEqual(outcome, "OK", detail)
        self.assertRegex(detail, r"'[^']*/repo/db/rep-cache\.db'")

    def test_torture_hotcopy_kill_in_pack_keeps_repcache_valid(self):
        # Found by the crash campaign: the incremental copy took the
        # source's rep-cache.db (rows up to the source's youngest) before
        # any revision, so a kill while copying a pack shard left a copy
        # whose rep-cache named revisions it did not have: stock verify
        # failed with E160006 "No such revision 9".
        call, arg, rc, outcome, detail = self.aimed("hotcopy-incr", "kill",
                                                    "revs/1.pack/")
        self.assertIn("revs/1.pack/", arg)
        self.assertEqual(outcome, "OK", detail)

    def test_torture_load_repcache_creation_is_atomic(self):
        # Found by the I/O-error campaign: the module created rep-cache.db
        # with two statements (CREATE TABLE, then PRAGMA user_version), so
        # a failure or a kill between them left the table without the
        # version, and stock then failed every verify and commit with
        # "table rep_cache already exists".  Calls 8-12 on rep-cache.db*
        # are the second statement's journal.
        for mode in ("eio", "kill"):
            for n in (8, 9, 12):
                call, arg, rc, outcome, detail = self.aimed(
                    "load", mode, "rep-cache.db", n)
                self.assertIn("rep-cache.db", arg)
                self.assertNotEqual(outcome, "FAIL",
                                    "%s n=%d %s: %s" % (mode, n, call, detail))

    def test_torture_recover_min_unpacked_rev_error_names_file(self):
        # Found while checking run 7's TOLERATED points: recover took an
        # unreadable db/min-unpacked-rev (EIO, not only a missing file) as
        # "nothing packed", looked for r0's file, which the pack removed,
        # and failed with "No revision files found, not even r0", naming
        # no file (stock: "Can't open file '.../db/min-unpacked-rev'").
        # The recover template has shard 0 packed since.
        call, arg, rc, outcome, detail = self.aimed("recover", "eio",
                                                    "min-unpacked-rev")
        self.assertIn("db/min-unpacked-rev", arg)
        self.assertNotEqual(rc, 0)
        self.assertEqual(outcome, "OK", detail)
        self.assertRegex(detail, r"'[^']*/repo/db/min-unpacked-rev'")


def _add(campaign, name):
    def test(self):
        self.sweep(campaign, name)
    setattr(Torture, "test_torture_%s_%s" % (campaign, name.replace("-", "_")),
            test)


for _c in ("crash", "errors"):
    for _n in C.OPS:
        _add(_c, _n)


if __name__ == "__main__":
    try:
        T.main("torture", setup, sys.modules[__name__])
    finally:
        if WORK:
            shutil.rmtree(WORK, ignore_errors=True)
