#!/usr/bin/env python3
"""Integration test: a short, seeded slice of the hostile-bytes campaign
(tools/torture/hostile.py, doc/reliability.md, "Hostile bytes"), and the defects
that campaign found.

The slice damages HOSTILE_DAMAGES stock-made repositories (every format,
packed and not; flipped bytes, half of them in index/footer regions, cut
files, zeroed runs, bent manifests and revprop packs, a bent rep-cache.db,
garbage transactions) and runs verify, dump, log -v, export and a commit
on each with the stock module and with ours.  It fails when our module
crashes, hangs or exits 0 with output that differs from the undamaged
repository's (and from stock's): SILENT-WRONG.  The module is the plain
build here; `make hostile` runs the full campaign under ASan+UBSan.
Tests are named test_hostile_*.
"""

import hashlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

sys.path.insert(0, os.path.join(T.TOP_SRCDIR, "tools", "torture"))
import hostile as H  # noqa: E402

# 8 damaged repositories x 5 operations = 40 trials (~30 s, 12-revision
# repositories); more with
# FSFS7_SLOW.
DAMAGES = int(os.environ.get("HOSTILE_DAMAGES", "40" if T.SLOW else "8"))
SEED = 5
S = None


def setup():
    global S
    S = T.Scratch("hostile")


class Hostile(unittest.TestCase):
    def test_hostile_slice(self):
        args = H.run_args(["--trials", str(DAMAGES * len(H.OPS)),
                           "--seed", str(SEED), "--revs", "12",
                           "--jobs", "2", "--timeout", "120",
                           "--module", T.MODULE_DIR, "--quiet",
                           "--work", S.path("slice")])
        try:
            rows = H.Campaign(args).go()
        except RuntimeError as e:
            raise T.SetupError(str(e))
        T.log("\n" + H.table(rows))
        self.assertEqual(len(rows), DAMAGES * len(H.OPS))
        bad = ["damage %s %s %s %s: %s %s: %s" % (
            r["damage"], r["variant"], r["file"], r["what"], r["op"],
            r["fsfs7"], r["fsfs7_msg"]) for r in rows
            if r["fsfs7"] in ("CRASH", "HANG", "SILENT-WRONG")]
        self.assertEqual(bad, [])

    def test_hostile_classes(self):
        """The classifier tells a wrong answer from an error or a crash."""
        def res(rc, digest, err=b"", hung=False):
            r = H.Result(rc, b"", err, hung)
            r.digest = digest
            return r
        ok, other = res(0, "good"), res(1, None, b"svn: E160004: x")
        self.assertEqual(H.classify(ok, "good", other), "OK")
        self.assertEqual(H.classify(res(0, "bad"), "good", other),
                         "SILENT-WRONG")
        self.assertEqual(H.classify(res(0, "bad"), "good", res(0, "bad")),
                         "UNDETECTED")
        self.assertEqual(H.classify(other, "good", ok), "ERROR")
        self.assertEqual(H.classify(res(-6, None), "good", ok), "CRASH")
        self.assertEqual(H.classify(res(1, None, b"==1==ERROR: "
                                        b"AddressSanitizer: heap"), "good",
                                    ok), "CRASH")
        self.assertEqual(H.classify(res(-9, None, hung=True), "good", ok),
                         "HANG")


class Regressions(unittest.TestCase):
    """Defects the campaign found, each with the damage that showed it."""

    def repo(self, name):
        src = S.path("base-" + name)
        if not os.path.isdir(src):
            T.stock_ok("svnadmin", "create", src)
            with open(T.gen_dump(revs=6, seed=7), "rb") as f:
                T.stock_ok("svnadmin", "load", "-q", src, input=f.read())
        return S.copy_repo(src, name)

    def test_hostile_repcache_garbage_commit(self):
        # rep-cache.db overwritten with text: stock commits (sharing is
        # only a hint, RCACHE-3) and warns after the commit that it could
        # not add the rows; we refused the commit (E200030) before.
        text = b"this is not a database\n" * 10
        f = S.path("newfile")
        with open(f, "wb") as out:
            out.write(b"hostile\n")
        results = {}
        for who in ("stock", "ours"):
            repo = self.repo("rc-" + who)
            with open(os.path.join(repo, "db", "rep-cache.db"), "wb") as out:
                out.write(text)
            p = T.run(["svnmucc", "-m", "x", "-U", T.url(repo), "put", f,
                       "newfile"], ours=(who == "ours"))
            cat = T.run(["svn", "cat", T.url(repo, "newfile")],
                        ours=(who == "ours"))
            results[who] = (p.returncode, cat.stdout,
                            b"post commit FS processing had error"
                            in p.stdout + p.stderr)
        self.assertEqual(results["stock"], (0, b"hostile\n", True),
                         "stock changed: no verdict")
        self.assertEqual(results["ours"], results["stock"])


if __name__ == "__main__":
    try:
        T.main("hostile", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
