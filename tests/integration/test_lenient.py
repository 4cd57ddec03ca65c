#!/usr/bin/env python3
"""Integration tests of read leniency (issue 9): damage must cost only
the reads that need the damaged bytes.

Each case damages two identical copies of a small stock-made repository
the same way and runs the same reads with the stock module and with
ours.  Where stock serves correct output, ours must too; where a read
does need the damaged bytes, ours must fail naming the broken rule (and
the revision).  Damage classes:
  - one line of a packed revprop shard's manifest (RPPACK-1): only that
    revision's line is damaged, and its pack is still found through a
    neighbouring line; verify reports the line;
  - zeroed root node-revision: 'svn log -v' needs only changed-path
    lists, not the root (revision roots read it when first needed);
  - a physically addressed pack file cut short, and a damaged line of its
    manifest (MANIFEST-1/2): the revisions whose bytes are intact stay
    readable, a dump gets as far as stock's.
Repositories of 12 revisions, shards of 4; everything is quick.
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

S = None          # T.Scratch of this run
BASE = {}         # variant -> pristine stock-made repository
REVS = 12
SHARD = 4
# variant -> (--compatible-version, packed?)
SMALL = {"f6": ("1.8", False), "f6p": ("1.8", True), "f7": ("1.9", False),
         "f7p": ("1.9", True)}


def setup():
    global S
    S = T.Scratch("lenient")
    with open(T.gen_dump(revs=REVS, seed=7), "rb") as f:
        dump = f.read()
    for v, (compat, packed) in SMALL.items():
        repo = S.path("base-" + v)
        T.stock_ok("svnadmin", "create", "--compatible-version", compat, repo)
        fmt = os.path.join(repo, "db", "format")
        with open(fmt, "rb") as f:
            text = f.read()
        os.chmod(fmt, 0o644)
        with open(fmt, "wb") as f:
            f.write(text.replace(b"layout sharded 1000",
                                 b"layout sharded %d" % SHARD))
        T.stock_ok("svnadmin", "load", "-q", repo, input=dump)
        if packed:
            T.stock_ok("svnadmin", "pack", "-q", repo)
        subprocess.run(["chmod", "-R", "u+w", repo], check=True)
        BASE[v] = repo


# ---- helpers ----------------------------------------------------------------

def pair(v, tag):
    """Two fresh copies of BASE[V]: (for stock, for ours)."""
    return (S.copy_repo(BASE[v], "%s-%s-stock" % (tag, v)),
            S.copy_repo(BASE[v], "%s-%s-ours" % (tag, v)))


def damage(repos, path, fn):
    """Apply FN (bytes -> bytes) to PATH (relative) in both REPOS."""
    for r in repos:
        full = os.path.join(r, path)
        with open(full, "rb") as f:
            data = f.read()
        os.chmod(full, 0o644)
        with open(full, "wb") as f:
            f.write(fn(data))


def normalised(p, repo):
    return p.stdout.replace(repo.encode(), b"REPO")


def both(repos, *args):
    """Run svn ARGS on each repository (the URL is appended)."""
    return (T.stock("svn", *args, T.url(repos[0])),
            T.ours("svn", *args, T.url(repos[1])))


def pristine(v, *args):
    p = T.stock_ok("svn", *args, T.url(BASE[v]))
    return normalised(p, BASE[v])


def export(repo, rev, dest, ours):
    run = T.ours if ours else T.stock
    return run("svn", "export", "-q", "-r", str(rev), T.url(repo), dest)


def dumped(p):
    return len(re.findall(rb"^\* Dumped revision", p.stderr, re.M))


def change_line(data, index, fn):
    """DATA with its line INDEX (0-based, LF included) replaced by
    FN(line)."""
    lines = data.split(b"\n")
    lines[index] = fn(lines[index])
    return b"\n".join(lines)


def rp_manifest(shard):
    return os.path.join("db", "revprops", "%d.pack" % shard, "manifest")


# ---- tests ------------------------------------------------------------------

class RevpropManifest(unittest.TestCase):
    """A damaged line of a packed revprop shard's manifest (RPPACK-1)."""

    def check(self, v, fn, broken_rev, rule=b"RPPACK-1"):
        repos = pair(v, "rpman")
        damage(repos, rp_manifest(1), fn)
        # Every revision's revprops are still served, also alone.
        for args in (["log", "-v"], ["log", "-r", str(broken_rev)],
                     ["log", "-r", str(broken_rev + 1)],
                     ["propget", "--revprop", "-r", str(broken_rev),
                      "svn:author"]):
            with self.subTest(variant=v, args=args):
                ref, mine = both(repos, *args)
                self.assertEqual(mine.returncode, 0, T.describe(mine))
                self.assertEqual(normalised(mine, repos[1]),
                                 pristine(v, *args))
                if ref.returncode == 0:
                    self.assertEqual(normalised(mine, repos[1]),
                                     normalised(ref, repos[0]))
        # Revisions other than the broken one verify; the broken one is
        # reported, with its rule and revision (both addressing modes).
        p = T.ours("svnadmin", "verify", "-q", "-r", str(broken_rev + 1),
                   repos[1])
        self.assertEqual(p.returncode, 0, T.describe(p))
        p = T.ours("svnadmin", "verify", "-q", repos[1])
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(b"E160064", p.stderr)
        self.assertRegex(p.stderr, rb"r%d[ ,].*%s" % (broken_rev, rule))

    def test_lenient_revprop_manifest_bad_line(self):
        # "4.0" -> "4*0" on r5's line: stock cannot open a pack "4*0".
        for v in ("f6p", "f7p"):
            self.check(v, lambda d: change_line(
                d, 1, lambda l: l.replace(b".", b"*")), 5)

    def test_lenient_revprop_manifest_missing_pack(self):
        # "4.0" -> "4.7" on r5's line: a pack that does not exist.
        for v in ("f6p", "f7p"):
            self.check(v, lambda d: change_line(
                d, 1, lambda l: l.replace(b".0", b".7")), 5, b"RPPACK-2")

    def test_lenient_revprop_manifest_merged_lines(self):
        # The LF ending r5's line damaged: r5's line is malformed, the
        # later lines move up by one and r7 has none.
        def merge(d):
            lines = d.split(b"\n")
            return b"\n".join(lines[:1] + [lines[1] + b"\x0b" + lines[2]]
                              + lines[3:])
        for v in ("f6p", "f7p"):
            self.check(v, merge, 5)

    def test_lenient_revprop_manifest_duplicated_line(self):
        # r5's line twice: every later line moves down by one and the
        # manifest has 5 lines for the 4 revisions of shard 1.  Stock
        # refuses the shard ("has too many entries"); ours still serves
        # each revision from the pack whose header holds it, but verify
        # must report the extra line, with stock's error code (E160004),
        # the rule and the file -- for any revision of the shard.
        def duplicate(d):
            lines = d.split(b"\n")
            return b"\n".join(lines[:2] + lines[1:])
        for v in ("f6p", "f7p"):
            repos = pair(v, "rpdup")
            damage(repos, rp_manifest(1), duplicate)
            for args in (["log", "-v"], ["log", "-r", "6"],
                         ["propget", "--revprop", "-r", "7", "svn:author"]):
                with self.subTest(variant=v, args=args):
                    mine = both(repos, *args)[1]
                    self.assertEqual(mine.returncode, 0, T.describe(mine))
                    self.assertEqual(normalised(mine, repos[1]),
                                     pristine(v, *args))
            ref = T.stock("svnadmin", "verify", "-q", repos[0])
            self.assertIn(b"E160004", ref.stderr, T.describe(ref))
            self.assertIn(b"too many entries", ref.stderr)
            for rng in ([], ["-r", "6"]):
                with self.subTest(variant=v, verify=rng):
                    p = T.ours("svnadmin", "verify", "-q", *rng, repos[1])
                    self.assertNotEqual(p.returncode, 0)
                    self.assertIn(b"E160004", p.stderr)
                    self.assertIn(b"too many entries", p.stderr)
                    self.assertRegex(p.stderr, rb"1\.pack.manifest, rule "
                                     rb"RPPACK-1\)")


class LazyRoot(unittest.TestCase):
    """A revision root reads its root node-rev only when it needs it."""

    def test_lenient_zeroed_root_noderev(self):
        # (Format 6: stock's 'log -v' reads this node-rev too.)
        for v in ("f7",):
            repos = pair(v, "root")
            rel = os.path.join("db", "revs", "0", "2")

            def zero_root(data):
                at = data.find(b"id: 0.0.r2/")
                end = data.find(b"\n\n", at) + 1
                if at < 0 or end <= at:
                    raise T.SetupError("no root node-rev in r2")
                return data[:at] + bytes(end - at) + data[end:]
            damage(repos, rel, zero_root)
            for args in (["log", "-v"], ["log", "-v", "-r", "2"]):
                with self.subTest(variant=v, args=args):
                    ref, mine = both(repos, *args)
                    if ref.returncode != 0:
                        raise T.SetupError("stock: " + T.describe(ref))
                    self.assertEqual(mine.returncode, 0, T.describe(mine))
                    self.assertEqual(normalised(mine, repos[1]),
                                     normalised(ref, repos[0]))
            # A read that needs the root fails, naming the rule.
            with self.subTest(variant=v, args="ls -r2"):
                ref, mine = both(repos, "ls", "-r", "2")
                self.assertNotEqual(ref.returncode, 0)
                self.assertNotEqual(mine.returncode, 0)
                self.assertIn(b"rule NODEREV-1", mine.stderr)


class PhysicalPack(unittest.TestCase):
    """Format 6 pack files: the manifest is checked per revision."""

    def offsets(self, repo, shard):
        with open(os.path.join(repo, "db", "revs", "%d.pack" % shard,
                               "manifest"), "rb") as f:
            return [int(x) for x in f.read().split()]

    def test_lenient_truncated_pack(self):
        repos = pair("f6p", "trunc")
        offs = self.offsets(repos[0], 1)
        cut = (offs[2] + offs[3]) // 2          # inside r6
        pack = os.path.join("db", "revs", "1.pack", "pack")
        damage(repos, pack, lambda d: d[:cut])
        for rev in (4, 5):
            with self.subTest(rev=rev):
                dest = (S.path("tr-s-%d" % rev), S.path("tr-o-%d" % rev))
                ref = export(repos[0], rev, dest[0], False)
                mine = export(repos[1], rev, dest[1], True)
                if ref.returncode != 0:
                    raise T.SetupError("stock: " + T.describe(ref))
                self.assertEqual(mine.returncode, 0, T.describe(mine))
                self.assertIsNone(T.trees_equal(dest[0], dest[1]))
        with self.subTest(rev=6):
            mine = export(repos[1], 6, S.path("tr-o-6"), True)
            self.assertNotEqual(mine.returncode, 0)
            self.assertRegex(mine.stderr, rb"r6 ends at .*MANIFEST-2")
        ref = T.stock("svnadmin", "dump", repos[0])
        mine = T.ours("svnadmin", "dump", repos[1])
        self.assertNotEqual(ref.returncode, 0)
        self.assertNotEqual(mine.returncode, 0)
        self.assertEqual(dumped(mine), dumped(ref))

    def test_lenient_pack_manifest_bad_line(self):
        # r6's line is not a number: r6 and r5 (which ends there) cannot
        # be read; r4 can (stock refuses the whole shard).
        repos = pair("f6p", "pman")
        man = os.path.join("db", "revs", "1.pack", "manifest")
        damage(repos, man, lambda d: change_line(d, 2, lambda l: b"x" + l[1:]))
        dest = S.path("pm-o-4")
        mine = export(repos[1], 4, dest, True)
        self.assertEqual(mine.returncode, 0, T.describe(mine))
        ref = S.path("pm-pristine-4")
        T.stock_ok("svn", "export", "-q", "-r", "4", T.url(BASE["f6p"]), ref)
        self.assertIsNone(T.trees_equal(ref, dest))
        for rev in (5, 6):
            with self.subTest(rev=rev):
                p = T.ours("svn", "log", "-v", "-r", str(rev),
                           T.url(repos[1]))
                self.assertNotEqual(p.returncode, 0)
                self.assertRegex(p.stderr, rb"line 3 \(bounds of r%d\).*"
                                 rb"MANIFEST-1" % rev)
        p = T.ours("svnadmin", "verify", "-q", repos[1])
        self.assertIn(b"MANIFEST-1", p.stderr)


if __name__ == "__main__":
    try:
        T.main("lenient", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
