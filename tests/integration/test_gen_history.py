#!/usr/bin/env python3
"""Unit tests of tools/gen_history.py: same seed -> same bytes, the stream
loads into stock svnadmin and verifies, and it contains every shape the
integration tests rely on."""

import hashlib
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

REVS = 120
S = None
DUMP = None
REPO = None


def gen(revs, seed, out=None):
    args = [sys.executable, T.GEN_HISTORY, "--revs", str(revs), "--seed", str(seed)]
    if out:
        args += ["-o", out]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        raise AssertionError("gen_history.py failed: " + p.stderr.decode())
    return p.stdout


def setup():
    global S, DUMP, REPO
    S = T.Scratch("genhist")


def parse(dump):
    """[(rev, revprops, [node header dicts with 'props'])] of a format-2 dump."""
    revs, pos = [], 0
    hdr_re = re.compile(rb"([A-Za-z0-9-]+): (.*)")
    while pos < len(dump):
        if dump[pos:pos + 1] == b"\n":
            pos += 1
            continue
        end = dump.index(b"\n\n", pos)
        hdr = dict(hdr_re.match(l).groups() for l in dump[pos:end].split(b"\n"))
        pos = end + 2
        clen = int(hdr.get(b"Content-length", 0))
        plen = int(hdr.get(b"Prop-content-length", 0))
        props = dump[pos:pos + plen] if plen else None
        body = dump[pos + plen:pos + clen]
        pos += clen
        hdr[b"props"] = props
        hdr[b"text"] = body
        if b"Revision-number" in hdr:
            revs.append((int(hdr[b"Revision-number"]), props, []))
        elif b"Node-path" in hdr:
            revs[-1][2].append(hdr)
    return revs


class GenHistory(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.path = S.path("a.dump")
        cls.dump = gen(REVS, 11, cls.path) or open(cls.path, "rb").read()
        cls.revs = parse(cls.dump)

    def test_deterministic_same_seed(self):
        again = gen(REVS, 11)
        self.assertEqual(hashlib.sha256(again).hexdigest(),
                         hashlib.sha256(self.dump).hexdigest())

    def test_different_seed_differs(self):
        self.assertNotEqual(gen(REVS, 12), self.dump)

    def test_many_seeds_generate(self):
        for seed in range(1, 13):
            self.assertTrue(gen(250, seed).startswith(b"SVN-fs-dump-format-version: 2\n"))

    def test_short_histories_load_with_stock(self):
        # The short histories of the hostile-bytes campaign (45
        # revisions): seeds 31 and 35 once branched from r1 with the
        # mergeinfo range "1-1", which svnadmin load refuses.
        for seed in (31, 35):
            repo = S.path("short-%d" % seed)
            T.stock_ok("svnadmin", "create", repo)
            p = subprocess.run(["svnadmin", "load", "-q", repo],
                               input=gen(45, seed), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=T.stock_env())
            self.assertEqual(p.returncode, 0, p.stderr.decode())

    def test_revision_count(self):
        self.assertEqual([r for r, _, _ in self.revs], list(range(REVS + 1)))

    def test_loads_and_verifies_with_stock(self):
        for compat in ("1.8", "1.9", None):
            repo = S.path("repo-%s" % compat)
            T.stock_ok("svnadmin", "create",
                       *(["--compatible-version", compat] if compat else []), repo)
            p = subprocess.run(["svnadmin", "load", "-q", repo], stdin=open(self.path, "rb"),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=T.stock_env())
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            self.assertEqual(T.stock_ok("svnlook", "youngest", repo).stdout.strip(),
                             str(REVS).encode())
            v = T.stock("svnadmin", "verify", "-q", repo)
            self.assertEqual(v.returncode, 0, v.stderr.decode())
        # Shapes only visible in the loaded tree: an empty directory and a
        # branch root carrying svn:mergeinfo.
        tree = T.stock_ok("svnlook", "tree", "--full-paths", repo).stdout.decode().split("\n")
        dirs = [l for l in tree if l.endswith("/")]
        self.assertTrue(any(not any(o != d and o.startswith(d) for o in tree) for d in dirs),
                        "no empty directory at HEAD")
        branches = [d for d in dirs if re.match(r"^branches/[^/]+/$", d)]
        self.assertTrue(branches, "no branch at HEAD")
        mi = T.stock("svnlook", "propget", repo, "svn:mergeinfo", branches[0])
        self.assertEqual(mi.returncode, 0, mi.stderr.decode())
        self.assertRegex(mi.stdout.decode(), r"^/trunk:\d+")

    def nodes(self):
        for rev, _, nodes in self.revs:
            for n in nodes:
                yield rev, n

    def test_node_actions(self):
        acts = {n[b"Node-action"] for _, n in self.nodes()}
        self.assertEqual(acts, {b"add", b"change", b"delete", b"replace"})
        self.assertTrue(any(n[b"Node-action"] == b"replace" and b"Node-copyfrom-path" in n
                            for _, n in self.nodes()), "no replace with history")

    def test_copies_branches_tags_renames(self):
        copies = [(r, n) for r, n in self.nodes() if b"Node-copyfrom-path" in n]
        self.assertTrue(any(n[b"Node-path"].startswith(b"branches/") for _, n in copies))
        self.assertTrue(any(n[b"Node-path"].startswith(b"tags/") for _, n in copies))
        self.assertTrue(any(int(n[b"Node-copyfrom-rev"]) < r - 1 for r, n in copies),
                        "no copy from an older revision")
        renames = 0
        for rev, _, nodes in self.revs:
            deleted = {n[b"Node-path"] for n in nodes if n[b"Node-action"] == b"delete"}
            renames += sum(1 for n in nodes if n.get(b"Node-copyfrom-path") in deleted)
        self.assertGreater(renames, 0, "no rename (copy + delete)")

    def test_node_properties(self):
        blob = b"".join(n[b"props"] or b"" for _, n in self.nodes())
        for name in (b"svn:eol-style", b"svn:mime-type", b"svn:executable",
                     b"svn:mergeinfo", b"svn:ignore", b"fsfs7:"):
            self.assertIn(b"\n" + name, blob, name)
        self.assertTrue(any(n[b"Node-action"] == b"change" and n[b"props"] is not None
                            and b"Text-content-length" not in n for _, n in self.nodes()),
                        "no property-only change")

    def test_revision_properties(self):
        blob = b"".join(p for _, p, _ in self.revs)
        for name in (b"svn:log", b"svn:author", b"svn:date", b"fsfs7:ticket"):
            self.assertIn(b"\n" + name + b"\n", blob, name)
        self.assertTrue(any(not nodes for r, _, nodes in self.revs if r > 0),
                        "no revision without changes")

    def test_file_shapes(self):
        sizes = [int(n[b"Text-content-length"]) for _, n in self.nodes()
                 if b"Text-content-length" in n]
        self.assertIn(0, sizes, "no empty file")
        self.assertTrue(any(1 << 20 <= s <= 5 << 20 for s in sizes), "no 1-5 MB file")
        texts = [n[b"text"] for _, n in self.nodes() if b"Text-content-length" in n]
        self.assertTrue(any(b"\0" in t for t in texts), "no binary file")
        for _, n in self.nodes():
            if b"Text-content-md5" in n:
                self.assertEqual(hashlib.md5(n[b"text"]).hexdigest().encode(),
                                 n[b"Text-content-md5"])

    def test_paths(self):
        paths = [n[b"Node-path"] for _, n in self.nodes()]
        self.assertTrue(any(p.count(b"/") >= 12 for p in paths), "no deep path")
        self.assertTrue(any(b" " in p for p in paths), "no path with a space")
        self.assertTrue(any(max(p) > 127 for p in paths), "no non-ASCII path")
        dirs = [n for _, n in self.nodes() if n.get(b"Node-kind") == b"dir"
                and n[b"Node-action"] == b"add" and b"Node-copyfrom-path" not in n]
        self.assertTrue(dirs)


if __name__ == "__main__":
    try:
        T.main("gen_history", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
