#!/usr/bin/env python3
"""Tests of tools/gen_scale.py: each shape loads with the stock svnadmin
and verifies; the stream is the same on every run; a range of revisions
(--first/--last) loaded after the revisions before it gives the very
repository the whole stream gives (the "next 1000 revisions" of
tools/bench/scale.py rely on it)."""
import hashlib
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(TOP, "tools", "gen_scale.py")
ENV = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}


def gen(*args):
    return subprocess.run([sys.executable, GEN] + list(args), check=True,
                          stdout=subprocess.PIPE).stdout


def load(repo, data):
    if not os.path.exists(repo):
        subprocess.run(["svnadmin", "create", "--compatible-version", "1.9",
                        repo], check=True, env=ENV)
    subprocess.run(["svnadmin", "load", "-q", "--no-flush-to-disk", repo],
                   input=data, check=True, env=ENV,
                   stdout=subprocess.DEVNULL)


def dump_sha(repo):
    out = subprocess.run(["svnadmin", "dump", "-q", repo], check=True,
                         env=ENV, stdout=subprocess.PIPE).stdout
    return hashlib.sha256(out).hexdigest()


class GenScaleTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="test_gen_scale.")

    def tearDown(self):
        self.tmp.cleanup()

    def repo(self, name):
        return os.path.join(self.tmp.name, name)

    def test_shapes_load_and_verify(self):
        # Small sizes: make check runs this on a busy machine; the
        # shapes' code paths are all reached at these sizes.  width's
        # smallest size is one revision of 5000 entries, a minute of
        # stock load on such a machine: loaded in check-slow only, its
        # stream counted here.
        shapes = [("length", 60, 60), ("depth", 15, 15), ("wide", 50, 3)]
        if os.environ.get("FSFS7_SLOW", "") not in ("", "0"):
            shapes.append(("width", 5000, 2))
        else:
            data = gen("width", "--size", "5000")
            self.assertEqual(data.count(b"Revision-number: "), 3)
            self.assertEqual(data.count(b"Node-path: big/"), 5000)
        for shape, size, youngest in shapes:
            with self.subTest(shape=shape):
                data = gen(shape, "--size", str(size))
                self.assertEqual(data, gen(shape, "--size", str(size)))
                repo = self.repo(shape)
                load(repo, data)
                head = subprocess.run(["svnlook", "youngest", repo],
                                      check=True, env=ENV,
                                      stdout=subprocess.PIPE).stdout
                self.assertEqual(int(head), youngest)
                subprocess.run(["svnadmin", "verify", "-q", repo],
                               check=True, env=ENV)

    def test_length_has_copies_and_mergeinfo(self):
        data = gen("length", "--size", "180")
        self.assertIn(b"Node-copyfrom-path: trunk/m01", data)
        self.assertIn(b"svn:mergeinfo", data)
        self.assertIn(b"Node-path: branches/b150/d", data)

    def test_range_continues_the_stream(self):
        # (depth: the cheapest shape to load; the range logic is the
        # same for every shape)
        whole, parts = self.repo("whole"), self.repo("parts")
        load(whole, gen("depth", "--size", "30"))
        load(parts, gen("depth", "--size", "30", "--last", "20"))
        load(parts, gen("depth", "--size", "30", "--first", "21"))
        self.assertEqual(dump_sha(parts), dump_sha(whole))


if __name__ == "__main__":
    unittest.main(verbosity=2)
