#!/usr/bin/env python3
"""`svnadmin rev-size` (ioctl fsfs:1003, doc/ioctls.md) through our
module and through the stock one, on the same repositories: every
revision of every shape of tests/integration/small_history.py (formats 1
to 8, logical and physical addressing, f7 created physical, f8 upgraded
from f6, packed and not), after revprop changes in packed shards, on
shards packed by our module, and the errors: revisions past HEAD, a rev
file past db/current, missing or damaged revprop files, manifests and
packs.  Read-only cases run both modules on one copy.

For unpacked revisions the number is also checked against the files
themselves (rev file size, or the start of the L2P index, plus the
revprop file), so that the test says what is counted, not only that
both modules agree.  Tests are named test_rev_size_<what>.
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402
import small_history as H  # noqa: E402

S = None
REPOS = {}


def setup():
    global S
    REPOS.update(H.repositories())
    S = T.Scratch("revsize")


def rev_size(runner, repo, rev, *extra):
    return runner("svnadmin", "rev-size", *extra, "-r", str(rev), repo)


def both(repo, rev, *extra):
    return T.parallel(lambda r: rev_size(r, repo, rev, *extra), [T.stock, T.ours], jobs=2)


def same(tc, a, b, what, exact_stderr=True):
    """Stock's run A and ours B: the same exit status and output, and
    with EXACT_STDERR the same error text; else the same first error code
    (for damage, where our messages say more, in our own words)."""
    codes = (lambda p: T.errcodes(p)) if exact_stderr else (lambda p: T.errcodes(p)[:1])
    tc.assertEqual((b.returncode, b.stdout, codes(b)), (a.returncode, a.stdout, codes(a)),
                   "%s: stock %s / ours %s" % (what, T.describe(a), T.describe(b)))
    if exact_stderr:
        tc.assertEqual(b.stderr, a.stderr, what)


def at_depth(revs):
    """All of REVS under FSFS7_SLOW, else those in QUICK_REVS."""
    return list(revs) if T.SLOW else [r for r in revs if r in QUICK_REVS]


# Quick depth: r0, the first two revisions of a pack file, the last one
# (its end is the pack's), the first unpacked one and the first past HEAD.
QUICK_REVS = {0, 4, 5, 11, 12, H.HEAD + 1}


def rev_path(repo, kind, rev):
    return os.path.join(repo, "db", kind, str(rev // H.SHARD), str(rev))


def expected_unpacked(repo, shape, rev):
    """What is counted, from the files: the rev file up to its indexes
    (logical: the L2P offset in the footer, whose length is its last
    byte) or whole (physical), plus the revprop file."""
    linear = H.format_of(shape) < 3
    rf = os.path.join(repo, "db", "revs", str(rev)) if linear else rev_path(repo, "revs", rev)
    pf = os.path.join(repo, "db", "revprops", str(rev)) if linear \
        else rev_path(repo, "revprops", rev)
    with open(rf, "rb") as f:
        data = f.read()
    if H.logical(shape):
        footer = data[-1 - data[-1]:-1]
        size = int(footer.split(b" ")[0])
    else:
        size = len(data)
    return size + os.path.getsize(pf)


class RevSize(unittest.TestCase):
    def test_rev_size_every_shape(self):
        """Every revision (and the first two past HEAD) of every shape:
        stock's and our output equal; unpacked ones as the files say."""
        for shape in H.SHAPES:
            repo = REPOS[shape]
            with self.subTest(shape=shape):
                for rev in at_depth(range(H.HEAD + 2)):
                    a, b = both(repo, rev)
                    same(self, a, b, "%s r%d" % (shape, rev))
                    unpacked = not H.packed(shape) or rev >= 3 * H.SHARD
                    if rev <= H.HEAD and unpacked:
                        want = expected_unpacked(repo, shape, rev)
                        self.assertEqual(b.stdout, b"%12d bytes in revision %d\n" % (want, rev))
                a, b = both(repo, H.HEAD, "-q")
                same(self, a, b, "%s -q" % shape)
                self.assertRegex(b.stdout, rb"^\d+\n$")

    def test_rev_size_logical_pack_padding(self):
        """In a logical pack file the padding counts for the file's first
        revision (stock's quirk, doc/ioctls.md): r4 of f7p is larger than
        r4 of f7, r5 the same."""
        sizes = {}
        for shape in ("f7", "f7p"):
            for rev in (4, 5):
                p = rev_size(T.ours, REPOS[shape], rev, "-q")
                self.assertEqual(p.returncode, 0, T.describe(p))
                sizes[shape, rev] = int(p.stdout)
        self.assertGreater(sizes["f7p", 4], sizes["f7", 4])
        self.assertEqual(sizes["f7p", 5], sizes["f7", 5])

    def test_rev_size_after_revprop_changes(self):
        """Revprops changed in packed shards (a pack rewritten, one split
        by a big value, a property removed) and in an unpacked one."""
        big = S.path("big-log")
        with open(big, "wb") as f:
            f.write(b"x" * 5000 + b"\n")
        for shape in ("f4p", "f6p", "f7p", "f8p"):
            with self.subTest(shape=shape):
                repo = S.copy_repo(REPOS[shape], "rp-" + shape)
                T.stock_ok("svnadmin", "setlog", "--bypass-hooks", "-r", "5", repo, big)
                T.stock_ok("svnadmin", "setrevprop", "-r", "2", repo, "extra", big)
                T.stock_ok("svnadmin", "delrevprop", "-r", "9", repo, "svn:author")
                T.stock_ok("svnadmin", "setrevprop", "-r", "13", repo, "extra", big)
                for rev in at_depth(list(range(H.HEAD + 1)) + [2, 9, 13]):
                    a, b = both(repo, rev)
                    same(self, a, b, "%s r%d after revprop changes" % (shape, rev))

    def test_rev_size_packed_by_ours(self):
        """Shards packed by our module read alike by both."""
        for shape in ("f6", "f7", "f8", "f7phys"):
            with self.subTest(shape=shape):
                repo = S.copy_repo(REPOS[shape], "op-" + shape)
                p = T.ours("svnadmin", "pack", "-q", repo)
                self.assertEqual(p.returncode, 0, T.describe(p))
                for rev in at_depth(range(H.HEAD + 1)):
                    a, b = both(repo, rev)
                    same(self, a, b, "%s packed by ours, r%d" % (shape, rev))

    def test_rev_size_command_line_refusals(self):
        """svnadmin's own refusals come before the module is asked."""
        repo = REPOS["f7"]
        for args in ([], ["-r", "HEAD"], ["-r", "-1"], ["-r", "1:2"], ["-r", "1", "-r", "2"]):
            a = T.stock("svnadmin", "rev-size", *args, repo)
            b = T.ours("svnadmin", "rev-size", *args, repo)
            self.assertNotEqual(a.returncode, 0)
            same(self, a, b, "rev-size %s" % " ".join(args))

    def test_rev_size_errors(self):
        """Damaged or incomplete repositories: the same exit status and
        error codes, and for the errors that name a revision or a file
        the same text."""
        def rm(*parts):
            return lambda repo: os.remove(os.path.join(repo, "db", *parts))

        def write(parts, data):
            def go(repo):
                path = os.path.join(repo, "db", *parts)
                if os.path.exists(path):
                    os.chmod(path, 0o644)
                with open(path, "wb") as f:
                    f.write(data)
            return go

        def flip_index(repo):
            """One byte in the middle of r13's P2L index."""
            path = rev_path(repo, "revs", 13)
            with open(path, "rb") as f:
                data = bytearray(f.read())
            footer = data[-1 - data[-1]:-1].split(b" ")
            p2l = int(footer[2])
            data[p2l + 12] ^= 0x55
            os.chmod(path, 0o644)
            with open(path, "wb") as f:
                f.write(bytes(data))

        def bad_manifest_line(repo):
            """The last line of the manifest of r4-r7 not a number."""
            path = os.path.join(repo, "db", "revs", "1.pack", "manifest")
            with open(path, "rb") as f:
                lines = f.read().split(b"\n")
            write(("revs", "1.pack", "manifest"), b"\n".join(lines[:3] + [b"x", b""]))(repo)

        def current_behind(repo):
            write(("current",), b"13\n")(repo)

        cases = [
            # (shape, revision, damage, exact stderr?)
            ("f7", 1000, None, True),
            ("f6p", H.HEAD + 1, None, True),
            ("f7", 14, current_behind, True),
            ("f6", 14, current_behind, True),
            ("f7", 13, rm("revs", "3", "13"), True),
            ("f6p", 6, rm("revs", "1.pack", "pack"), True),
            ("f7p", 6, rm("revs", "1.pack", "pack"), True),
            ("f4", 5, rm("revprops", "1", "5"), True),
            ("f6", 13, rm("revprops", "3", "13"), True),
            ("f7", 13, rm("revprops", "3", "13"), True),
            ("f2", 5, rm("revprops", "5"), True),
            ("f7p", 5, rm("revprops", "1.pack", "manifest"), True),
            ("f7p", 5, rm("revprops", "1.pack", "4.0"), True),
            ("f7p", 5, write(("revprops", "1.pack", "4.0"), b"garbage\n"), False),
            ("f6p", 5, write(("revprops", "1.pack", "4.0"), b"\x05\x00abc"), False),
            ("f7", 13, flip_index, False),
            ("f6p", 6, bad_manifest_line, False),
        ]
        for n, (shape, rev, damage, exact) in enumerate(cases):
            what = "case %d: %s r%d %s" % (n, shape, rev, damage.__name__ if damage else "")
            with self.subTest(case=what):
                repo = S.copy_repo(REPOS[shape], "err-%d" % n)
                if damage:
                    damage(repo)
                a, b = both(repo, rev)
                self.assertNotEqual(a.returncode, 0, "stock accepted " + what)
                same(self, a, b, what, exact_stderr=exact)

    def test_rev_size_short_pack_manifest(self):
        """A physical pack manifest with too few lines: stock reports
        sizes computed from whatever it finds there; ours refuses every
        revision of the shard (MANIFEST-1, doc/format/addressing.md)."""
        repo = S.copy_repo(REPOS["f6p"], "short-manifest")
        path = os.path.join(repo, "db", "revs", "1.pack", "manifest")
        os.chmod(path, 0o644)
        with open(path, "wb") as f:
            f.write(b"0\n10\n")
        for rev in (4, 5, 7):
            b = rev_size(T.ours, repo, rev)
            self.assertEqual((b.returncode, T.errcodes(b)), (1, [b"E160004"]), T.describe(b))
            self.assertIn(b"rule MANIFEST-1", b.stderr)


if __name__ == "__main__":
    try:
        T.main("rev-size", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
