#!/usr/bin/env python3
"""Tests of tools/copy_repo.py: the copies are valid, identical repositories
and their bulk data was written interleaved, round robin across the copies,
with filler between the pieces."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "tools", "bench"))

import copy_repo  # noqa: E402
import gen_repo as fixture  # noqa: E402


def tree_bytes(root):
    """{relative path: content} of every file under ROOT."""
    out = {}
    for dirpath, _dirs, fnames in os.walk(root):
        for fname in fnames:
            path = os.path.join(dirpath, fname)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


class CopyRepoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="test_copy_repo.")
        base = cls.tmp.name
        # Shards of 5 over 23 revisions: 4 packed shards and a loose one.
        cls.packed = fixture.make_repo(os.path.join(base, "packed"), revs=23,
                                       shard=5, pack=True)
        cls.plain = fixture.make_repo(os.path.join(base, "plain"), revs=23,
                                      compat="1.8", shard=5)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def make_copies(self, src, count=3, sep_kb=16, **kw):
        dst = tempfile.mkdtemp(dir=self.tmp.name)
        copies = copy_repo.copy_repo(src, dst, count, sep_kb, **kw)
        return dst, copies

    def read_log(self, dst):
        with open(os.path.join(dst, "creation.log")) as f:
            return [line.split(" ", 1) for line in f.read().splitlines()]

    def test_copies_verify_and_equal_source(self):
        for src in (self.packed, self.plain):
            dst, copies = self.make_copies(src)
            self.assertEqual([os.path.basename(c) for c in copies],
                             ["copy-1", "copy-2", "copy-3"])
            want = tree_bytes(src)
            for copy in copies:
                self.assertEqual(tree_bytes(copy), want)
                subprocess.run(["svnadmin", "verify", "-q", copy],
                               check=True)

    def test_units_are_shards_in_order(self):
        units = copy_repo.data_units(self.packed)
        # shards 0..3 packed, shard 4 loose (revs 20..23)
        self.assertEqual(len(units), 5)
        self.assertTrue(units[0][0].startswith("db/revs/0.pack"))
        self.assertTrue(any(u.startswith("db/revprops/0.pack")
                            for u in units[0]))
        self.assertEqual(sorted(os.path.basename(p) for p in units[4]
                                if p.startswith("db/revs/")),
                         ["20", "21", "22", "23"])

    def test_round_robin_with_filler(self):
        dst, _copies = self.make_copies(self.packed, count=3, sep_kb=8)
        entries = self.read_log(dst)
        bulk = [e for e in entries if e[1] != "skeleton"]
        # Collapse runs: the sequence of writers must cycle 1,filler,2,...
        runs = []
        for who, _what in bulk:
            if not runs or runs[-1] != who:
                runs.append(who)
        cycle = ["1", "filler", "2", "filler", "3", "filler"]
        self.assertEqual(runs, cycle * 5)
        fillers = os.listdir(os.path.join(dst, "filler"))
        self.assertEqual(len(fillers), 15)
        size = os.path.getsize(os.path.join(dst, "filler", fillers[0]))
        self.assertEqual(size, 8 * 1024)

    def test_files_on_disk_alternate(self):
        # Independent of the log: a file's ctime is set when it is written
        # (copy2 restores only atime/mtime), so the data of shard s of
        # copy 2 must come after shard s of copy 1 and before shard s+1 of
        # copy 1.  Copying one repository after the other fails this.
        dst, copies = self.make_copies(self.plain, count=2, sep_kb=64)
        ctime = lambda c, s: os.stat(os.path.join(
            copies[c], "db", "revs", str(s), str(s * 5 + 1))).st_ctime_ns
        strict = 0
        for shard in range(4):
            self.assertLessEqual(ctime(0, shard), ctime(1, shard))
            self.assertLessEqual(ctime(1, shard), ctime(0, shard + 1))
            strict += ctime(1, shard) < ctime(0, shard + 1)
        # fsync and 64 kB of filler between the pieces take measurable time
        self.assertGreater(strict, 0)

    def test_remove_filler_and_errors(self):
        dst, copies = self.make_copies(self.packed, count=2, sep_kb=1,
                                       remove_filler=True)
        self.assertFalse(os.path.exists(os.path.join(dst, "filler")))
        with self.assertRaises(FileExistsError):
            copy_repo.copy_repo(self.packed, dst, 2, 1)
        with self.assertRaises(ValueError):
            copy_repo.copy_repo(self.tmp.name, dst + "x", 2, 1)
        with self.assertRaises(ValueError):
            copy_repo.copy_repo(self.packed, dst + "y", 0, 1)

    def test_command_line(self):
        dst = os.path.join(self.tmp.name, "cli")
        out = subprocess.run([sys.executable,
                              os.path.join(TOP, "tools", "copy_repo.py"),
                              self.packed, dst, "2", "4"],
                             check=True, capture_output=True, text=True)
        self.assertEqual(out.stdout.split(),
                         [os.path.join(dst, "copy-1"),
                          os.path.join(dst, "copy-2")])
        bad = subprocess.run([sys.executable,
                              os.path.join(TOP, "tools", "copy_repo.py"),
                              self.packed, dst, "2", "4"],
                             capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)


if __name__ == "__main__":
    unittest.main()
