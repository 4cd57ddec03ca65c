#!/usr/bin/env python3
"""Integration tests of REP-9 (doc/format/representations.md): a long
text whose items' FNV-1a checksums match the P2L index is read without
its MD5.  The rule must never let damage through that the MD5 would
have caught.

The repository is a small long-chain history made by the stock
binaries (tools/bench/gen_longchain.py: one 160 kB file edited by most
of its 60 revisions, 30 small files), format 7, unpacked.  In
`svnadmin dump --incremental -r 20:60` of it fsfs7 proves 27 of the
texts (counted with svn_fs_fs__rep_md5_proofs() when the test was
written; test_rep_read's test_md5_proof checks that proofs happen).

Cases:
  - the undamaged dump through fsfs7 equals stock's;
  - seeded trials each flip one bit in the item part of a revision file
    of the dumped range (the first three quarters of the file, before
    the indexes) and dump the range with both modules: fsfs7's dump may
    fail, or equal the undamaged dump, or equal stock's; it must never
    be a different dump that exits 0 (a text passed on without the
    check that would have refused it).
"""

import hashlib
import os
import random
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

S = None          # T.Scratch of this run
REPO = None       # stock-made repository
RANGE = ("20", "60")
TRIALS = 200 if T.SLOW else 40
GEN = os.path.join(T.TOP_SRCDIR, "tools", "bench", "gen_longchain.py")


def setup():
    global S, REPO
    S = T.Scratch("proof")
    gen = subprocess.run([sys.executable, GEN, "--revs", "60", "--files",
                          "30", "--big-kb", "160", "--seed", "3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if gen.returncode != 0:
        raise T.SetupError("gen_longchain.py failed: " + gen.stderr.decode())
    REPO = S.path("lc")
    T.stock_ok("svnadmin", "create", "--compatible-version", "1.9", REPO)
    T.stock_ok("svnadmin", "load", "-q", REPO, input=gen.stdout)
    subprocess.run(["chmod", "-R", "u+w", REPO], check=True)


def dump(ours):
    run = T.ours if ours else T.stock
    p = run("svnadmin", "dump", "-q", "--incremental", "-r",
            "%s:%s" % RANGE, REPO)
    return p.returncode, hashlib.sha256(p.stdout).hexdigest(), p


class ProvedTexts(unittest.TestCase):

    def test_proof_undamaged_dump_equals_stock(self):
        ref, mine = dump(False), dump(True)
        self.assertEqual(ref[0], 0, T.describe(ref[2]))
        self.assertEqual(mine[0], 0, T.describe(mine[2]))
        self.assertEqual(mine[1], ref[1])

    def test_proof_damage_never_passes(self):
        pristine = dump(False)
        self.assertEqual(pristine[0], 0, T.describe(pristine[2]))
        rng = random.Random(9)
        counts = {}
        for trial in range(TRIALS):
            rev = rng.randint(int(RANGE[0]) + 1, int(RANGE[1]))
            path = os.path.join(REPO, "db", "revs", "0", str(rev))
            with open(path, "rb") as f:
                data = f.read()
            at = rng.randrange(max(1, len(data) * 3 // 4))
            bad = bytearray(data)
            bad[at] ^= 1 << rng.randrange(8)
            with open(path, "wb") as f:
                f.write(bad)
            try:
                ref, mine = dump(False), dump(True)
            finally:
                with open(path, "wb") as f:
                    f.write(data)
            kind = ("error" if mine[0] else
                    "pristine" if mine[1] == pristine[1] else
                    "as stock" if ref[0] == 0 and mine[1] == ref[1] else
                    "WRONG")
            counts[kind] = counts.get(kind, 0) + 1
            with self.subTest(rev=rev, offset=at):
                self.assertNotEqual(kind, "WRONG",
                                    "r%d byte %d: fsfs7 dumped other text "
                                    "(stock exit %d)" % (rev, at, ref[0]))
        T.log("damage trials: %r" % counts)
        # The trials must have reached the texts: most flips break them.
        self.assertGreater(counts.get("error", 0), TRIALS // 4)


if __name__ == "__main__":
    try:
        T.main("proof", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
