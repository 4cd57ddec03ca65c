#!/usr/bin/env python3
"""Integration test: a short, seeded slice of the power-cut simulator
(tools/torture/powercut.py, doc/powercut.md).

The simulator must not pass vacuously, so the slice starts with its own
checks: a fake operation that renames a file into place without any
fsync, and one that syncs the file but not the directory, must both give
LOST states under model a and model b, and the correct construction
(fsync the file, rename, fsync the directory) none; a run that writes
through stdio, which the recorder cannot see, must be refused rather
than judged.

Then a few crash states of fsfs7's operations, under both models.  An
operation with a defect doc/powercut.md lists (PC-n) must still show
that defect: when a fix lands, its test fails and says so, and the
operation moves to CLEAN, where it must give no LOST, TORN or FAIL
state.  `make powercut` runs the full campaign, both modules.
Tests are named test_powercut_<what>.
"""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

sys.path.insert(0, os.path.join(T.TOP_SRCDIR, "tools", "torture"))
os.environ.setdefault("RECORD_SO", os.path.join(T.TOP_BUILDDIR, "tools",
                                                "torture", "record.so"))
import powercut as P  # noqa: E402

SEED = 11
STATES = int(os.environ.get("POWERCUT_CHECK_STATES",
                            "12" if T.SLOW else "3"))
# Operations with an open defect (doc/powercut.md, "Defects found"): the
# slice must still find a LOST, TORN or FAIL state.
KNOWN = {}
# Operations that must come through every state of the slice.
CLEAN = ("revprop-packed", "load", "commit-file", "pack-f7")
WORK = None


def setup():
    global WORK
    if not os.path.exists(P.RECORD_SO):
        raise T.SetupError("no recorder at %s (make tools/torture/record.so)"
                           % P.RECORD_SO)
    WORK = tempfile.mkdtemp(prefix="fsfs7-powercut-")


STDIO_SCRIPT = r"""
import ctypes, sys
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
f = libc.fopen(sys.argv[1].encode() + b"/by-stdio", b"w")
libc.fwrite(b"unseen", 1, 6, ctypes.c_void_p(f))
libc.fclose(ctypes.c_void_p(f))
"""


class StdioOp(P.FakeOp):
    """Writes a file through glibc's stdio (fopen/fwrite: glibc's own
    open and write, which no LD_PRELOAD hook sees)."""

    def __init__(self, work, seed):
        P.FakeOp.__init__(self, work, seed, "stdio")

    def setup(self, tpl):
        P.FakeOp.setup(self, tpl)
        with open(self.script, "w") as f:
            f.write(STDIO_SCRIPT)

    def commands(self, pt):
        return [([sys.executable, self.script, os.path.join(pt, "repo")],
                 None)]


class SelfTest(unittest.TestCase):
    def test_powercut_selftest_missing_fsyncs_are_lost(self):
        # 200 draws per model: the fake operation is judged in memory,
        # and model b needs draws at the end of the run (after the
        # acknowledgement) where the rename did not persist.
        res = P.selftest(os.path.join(WORK, "self"), SEED, 200, log=T.log)
        for mode in ("nosync", "nodirsync"):
            for model in ("a", "b"):
                self.assertGreater(res[mode][model].v["LOST"], 0,
                                   "%s model %s: no LOST state" % (mode, model))
        for model in ("a", "b"):
            t = res["good"][model]
            self.assertEqual(t.bad(), 0, "good construction, model %s: %s"
                             % (model, t.examples))
            self.assertGreater(t.n, 1)

    def test_powercut_selftest_unseen_writes_refuse_the_run(self):
        work = os.path.join(WORK, "stdio")
        op = StdioOp(work, SEED)
        os.makedirs(work)
        op.build()
        pt = os.path.join(work, "pt")
        shutil.copytree(op.tpl, pt, symlinks=True)
        with self.assertRaisesRegex(P.Unsupported, "by-stdio"):
            P.record(op, None, pt)


BUILT = {}


def built(name):
    """Operation NAME with its template built (once per test run)."""
    if name not in BUILT:
        op = P.OP_CLASSES[name](os.path.join(WORK, name), SEED)
        os.makedirs(op.work)
        op.moddir = T.MODULE_DIR
        try:
            op.build()
        except RuntimeError as e:
            raise T.SetupError(str(e))
        BUILT[name] = op
    return BUILT[name]


JOURNAL = "db/rep-cache.db-journal"


class RepCacheJournal(unittest.TestCase):
    def test_powercut_rep_cache_journal_synced_in_order(self):
        """PC-7: SQLite's rollback journal of rep-cache.db is safe from a
        power cut only when its records are durable before the header
        that counts them, and its truncation (the commit of the SQLite
        transaction) before the operation ends.  With synchronous =
        NORMAL neither holds, and model b finds rep-cache.db "not a
        database" after the cut."""
        op = built("commit-file")
        pt = os.path.join(WORK, "journal-pt")
        shutil.copytree(op.tpl, pt, symlinks=True)
        rec = P.record(op, T.MODULE_DIR, pt)
        shutil.rmtree(pt)
        ops = [(i, o) for i, o in enumerate(rec.ops)
               if rec.where[i] == JOURNAL and o[0] in ("write", "trunc")]
        self.assertTrue(any(o[0] == "trunc" for _, o in ops),
                        "the commit never truncated the rep-cache journal")
        since = []          # journal writes since its last truncation
        for i, o in ops:
            if o[0] == "trunc":
                self.assertTrue(rec.durable(i, len(rec.ops)),
                                "#%d: the journal's truncation is never "
                                "synced" % i)
                since = []
                continue
            if o[2] == 0 and since:     # the header, after the records
                late = [j for j in since if not rec.durable(j, i)]
                self.assertEqual(late, [], "#%d: the journal header is "
                                 "written before records %s are durable"
                                 % (i, late))
            since.append(i)


class Slice(unittest.TestCase):
    def slice(self, name):
        op = built(name)
        tallies = P.run_op(op, "fsfs7", T.MODULE_DIR, ("a", "b"), STATES,
                           SEED, None, None, T.log)
        for model in ("a", "b"):
            T.log(tallies[model].line(name, model, "fsfs7"))
        bad = sum(t.bad() for t in tallies.values())
        examples = {m: {v: d for v, (s, d) in t.examples.items()}
                    for m, t in tallies.items()}
        if name in KNOWN:
            self.assertGreater(bad, 0, "%s no longer shows %s in this slice: "
                               "if it is fixed, move %s to CLEAN here and "
                               "update doc/powercut.md" % (name, KNOWN[name],
                                                           name))
        else:
            self.assertEqual(bad, 0, "%s: %s" % (name, examples))


def _add(name):
    def test(self):
        self.slice(name)
    setattr(Slice, "test_powercut_fsfs7_%s" % name.replace("-", "_"), test)


for _n in list(KNOWN) + list(CLEAN):
    _add(_n)


if __name__ == "__main__":
    try:
        T.main("powercut", setup, sys.modules[__name__])
    finally:
        if WORK:
            shutil.rmtree(WORK, ignore_errors=True)
