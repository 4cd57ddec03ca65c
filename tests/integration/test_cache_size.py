#!/usr/bin/env python3
"""Integration test: a larger configured cache costs a short-lived
process no memory it does not use (issue 34).

`svnadmin dump` and `svnadmin verify` of the generated history (300
revisions, format 7, loaded by stock) run through fsfs7 with the default
cache and with `-M 1024`, three times each, alternating; the minor page
faults of each process come from wait4.  With `-M 1024` the fewest must
stay within FAULT_SLACK of the fewest with the default cache: a process
that stores only a few hundred long-term values keeps them in a 16 MB
membuffer and never makes the 1 GB one (caching.h,
svn_fs_fs__cache_membuffer).  Making it costs ~190 faults in libsvn_subr
alone, and filling it ~600 more for the dump and ~5,500 for the verify
of this history.  Counts, not times.  The dumps must be identical.

Tests are named test_cache_size_<what>.
"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

S = None
REPO = None
RUNS = 3
# Faults a run may differ by from another of the same command: the
# environment, ASLR and the page cache move it by ~10.
FAULT_SLACK = 60


def setup():
    global S, REPO
    S = T.Scratch("cache-size")
    REPO = S.path("g7")
    T.stock_ok("svnadmin", "create", "--compatible-version", "1.9", REPO)
    with open(T.gen_dump(), "rb") as dump:
        p = subprocess.run(["svnadmin", "load", "-q", "--no-flush-to-disk",
                            REPO], stdin=dump, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=T.stock_env())
    if p.returncode != 0:
        raise T.SetupError("stock load failed: " + p.stderr.decode()[-2000:])


def faults(args):
    """(minor page faults, stdout) of ARGS run through fsfs7."""
    env = T.ours_env()
    env["LD_LIBRARY_PATH"] = T.MODULE_DIR
    out = S.path("out")
    with open(out, "wb") as f:
        p = subprocess.Popen(args, stdout=f, stderr=subprocess.DEVNULL,
                             env=env)
        _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        raise AssertionError("failed (%d): %s" % (status, " ".join(args)))
    with open(out, "rb") as f:
        return usage.ru_minflt, f.read()


class CacheSizeTest(unittest.TestCase):

    def compare(self, subcommand):
        small, big = [], []
        outputs = set()
        for _ in range(RUNS):
            for cache, runs in (([], small), (["-M", "1024"], big)):
                count, out = faults(["svnadmin", subcommand, "-q"] + cache
                                    + [REPO])
                runs.append(count)
                outputs.add(out)
        T.log("%s: faults default %s, -M 1024 %s" % (subcommand, small, big))
        self.assertEqual(len(outputs), 1, "outputs differ by cache size")
        self.assertLessEqual(min(big), min(small) + FAULT_SLACK,
                             "-M 1024 touched more memory: %s against %s"
                             % (big, small))

    def test_cache_size_dump(self):
        self.compare("dump")

    def test_cache_size_verify(self):
        self.compare("verify")


if __name__ == "__main__":
    try:
        T.main("cache_size", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
