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

A second repository exercises the thrifty proofs of texts of 8-64 kB
in pack files: the same generator with a 40 kB file, shards of 8
revisions, packed by stock (fsfs7 proves 26 texts of its dump range,
counted the same way; the module before thrifty proofs none).  Its
trials flip a bit inside a file representation of the range (found
with stock's svnfsfs dump-index): with a module that skips the MD5 of
every text it tries to prove, 4 of its 40 trials are WRONG.

Cases, for each repository:
  - the undamaged dump through fsfs7 equals stock's;
  - seeded trials each flip one bit in the item part of a revision
    file of the dumped range (the first three quarters of the file,
    before the indexes), or in a file representation of a pack file,
    and dump the range with both modules:
    fsfs7's dump may fail, or equal the undamaged dump, or equal
    stock's; it must never be a different dump that exits 0 (a text
    passed on without the check that would have refused it).
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
REPO = None       # stock-made repository, unpacked
PACKED = None     # stock-made repository, shards of 8, packed
RANGE = ("20", "60")
TRIALS = 200 if T.SLOW else 40
GEN = os.path.join(T.TOP_SRCDIR, "tools", "bench", "gen_longchain.py")


def make_repo(name, big_kb, seed, shard=None):
    gen = subprocess.run([sys.executable, GEN, "--revs", "60", "--files",
                          "30", "--big-kb", str(big_kb), "--seed", str(seed)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if gen.returncode != 0:
        raise T.SetupError("gen_longchain.py failed: " + gen.stderr.decode())
    repo = S.path(name)
    T.stock_ok("svnadmin", "create", "--compatible-version", "1.9", repo)
    if shard:
        fmt = os.path.join(repo, "db", "format")
        os.chmod(fmt, 0o644)
        with open(fmt) as f:
            text = f.read().replace("layout sharded 1000",
                                    "layout sharded %d" % shard)
        with open(fmt, "w") as f:
            f.write(text)
    T.stock_ok("svnadmin", "load", "-q", repo, input=gen.stdout)
    if shard:
        T.stock_ok("svnadmin", "pack", "-q", repo)
    subprocess.run(["chmod", "-R", "u+w", repo], check=True)
    return repo


def setup():
    global S, REPO, PACKED
    S = T.Scratch("proof")
    REPO = make_repo("lc", 160, 3)
    PACKED = make_repo("lcp", 40, 4, shard=8)


def dump(ours, repo=None):
    run = T.ours if ours else T.stock
    p = run("svnadmin", "dump", "-q", "--incremental", "-r",
            "%s:%s" % RANGE, repo or REPO)
    return p.returncode, hashlib.sha256(p.stdout).hexdigest(), p


def item_file(repo, rev):
    """The revision or pack file holding REV of REPO (shards of 8 when
    packed)."""
    packed = os.path.join(repo, "db", "revs", "%d.pack" % (rev // 8), "pack")
    if os.path.exists(packed):
        return packed
    return os.path.join(repo, "db", "revs", str(rev // (8 if repo == PACKED
                                                        else 1000)), str(rev))


def file_reps(repo):
    """(path, start, length) of the file representations of the dumped
    range of REPO, from stock's svnfsfs dump-index: the thrifty proofs
    are about those, and a flip anywhere in a pack file rarely lands in
    one of the texts they prove."""
    found = []
    for rev in range(int(RANGE[0]) + 1, int(RANGE[1]) + 1):
        listing = T.stock_ok("svnfsfs", "dump-index", "-r", str(rev),
                             repo).stdout.decode()
        for line in listing.splitlines()[1:]:
            start, length, kind, item_rev = line.split()[:4]
            if kind == "frep" and int(item_rev) == rev:
                found.append((item_file(repo, rev), int(start, 16),
                              int(length, 16)))
    return found


class ProvedTexts(unittest.TestCase):

    def test_proof_undamaged_dump_equals_stock(self):
        for repo in (REPO, PACKED):
            ref, mine = dump(False, repo), dump(True, repo)
            self.assertEqual(ref[0], 0, T.describe(ref[2]))
            self.assertEqual(mine[0], 0, T.describe(mine[2]))
            self.assertEqual(mine[1], ref[1])

    def test_proof_damage_never_passes(self):
        self.damage_trials(REPO, 9)

    @unittest.skipUnless(T.SLOW, "slow check: FSFS7_SLOW=1 (make check-slow); "
                         "the unpacked trials run in make check")
    def test_proof_damage_never_passes_packed(self):
        self.damage_trials(PACKED, 10, file_reps(PACKED))

    def damage_trials(self, repo, seed, targets=None):
        """TARGETS: (path, start, length) of items to flip a bit in; by
        default anywhere in the first three quarters of a file."""
        pristine = dump(False, repo)
        self.assertEqual(pristine[0], 0, T.describe(pristine[2]))
        rng = random.Random(seed)
        counts = {}
        for trial in range(TRIALS):
            if targets:
                path, start, length = rng.choice(targets)
                rev, at = None, start + rng.randrange(length)
            else:
                rev = rng.randint(int(RANGE[0]) + 1, int(RANGE[1]))
                path = item_file(repo, rev)
            with open(path, "rb") as f:
                data = f.read()
            if not targets:
                at = rng.randrange(max(1, len(data) * 3 // 4))
            bad = bytearray(data)
            bad[at] ^= 1 << rng.randrange(8)
            with open(path, "wb") as f:
                f.write(bad)
            try:
                ref, mine = dump(False, repo), dump(True, repo)
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
                                    "%s byte %d: fsfs7 dumped other text "
                                    "(stock exit %d)" % (path, at, ref[0]))
        T.log("damage trials: %r" % counts)
        # The trials must have reached the texts: most flips break them.
        self.assertGreater(counts.get("error", 0), TRIALS // 4)


if __name__ == "__main__":
    try:
        T.main("proof", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
