#!/usr/bin/env python3
"""Integration tests of the old FSFS formats 1 to 4 (doc/format/old-formats.md):
repositories made with --compatible-version 1.3 / 1.4 / 1.5 / 1.6.

For each format the same operations run through our module and through the
stock one, and the results are compared:
  - load (commits through svn_fs_commit_txn): stock verify accepts ours,
    stock dumps of both are equal, and db/current and every revision file
    are byte-identical (the formats leave no freedom our writer could use
    differently: old-style ids, no kind in changed paths, PLAIN listings);
  - commits from a working copy (copies, moves, deletes, properties);
  - reading a stock-made repository: dump and `svn log -v --xml` as stock;
  - recover with db/current lost (formats 1 and 2 must rebuild the id
    counters), hotcopy (full and --incremental, with progress lines) and
    upgrade to format 8 followed by more commits.
Quick by design: 40 revisions of the generated history per format, and a
format-4 repository packed by stock (revisions packed, revprops not).
`make check` loads every format; the other operations run on two of
them each (one of formats 1-2, one of 3-4); FSFS7_SLOW=1 runs every
operation on every format.
Tests are named test_old_<operation>.
"""

import os
import re
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402
from test_pack import modes_under, share_with_group, with_umask  # noqa: E402

FORMATS = {"1.3": 1, "1.4": 2, "1.5": 3, "1.6": 4}


def formats(*quick):
    """(compat, format) of every old format under FSFS7_SLOW, else of the
    QUICK formats only: one of 1-2 (id counters in db/current) and one
    of 3-4, chosen per test so that each format runs in some of them."""
    return [(c, f) for c, f in FORMATS.items() if T.SLOW or f in quick]
REVS = 40
S = None
DUMP = None


def setup():
    global S, DUMP
    S = T.Scratch("oldfmt")
    with open(T.gen_dump(), "rb") as f:
        DUMP = f.read()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def db(repo, *parts):
    return os.path.join(repo, "db", *parts)


def create(runner, compat, name):
    path = S.path(name)
    shutil.rmtree(path, ignore_errors=True)
    p = runner("svnadmin", "create", "--compatible-version", compat, path)
    if p.returncode != 0:
        raise AssertionError("create %s: %s" % (name, T.describe(p)))
    return path


def load(runner, repo, lo, hi):
    p = runner("svnadmin", "load", "-q", "-r", "%d:%d" % (lo, hi), repo, input=DUMP)
    if p.returncode != 0:
        raise AssertionError("load into %s: %s" % (repo, T.describe(p)))


def format4_shards_of_4(name):
    """A stock-made format-4 repository with shards of 4, holding r0..10."""
    repo = create(T.stock, "1.6", name)
    fmt = db(repo, "format")
    text = read(fmt).replace(b"sharded 1000", b"sharded 4")
    os.chmod(fmt, 0o644)
    with open(fmt, "wb") as f:
        f.write(text)
    load(T.stock, repo, 0, 10)
    return repo


FAULT_SO = os.environ.get("FAULT_SO") or os.path.join(
    T.TOP_BUILDDIR, "tools", "torture", "fault.so")


def traced_upgrade(repo, trace):
    """`svnadmin upgrade REPO` through our module under tools/torture/
    fault.so in count mode, which appends "call N NAME PATH" to TRACE for
    every file-system call made from the module (fsync and fdatasync name
    the file behind the descriptor).  Returns the process and the calls
    as (name, path relative to REPO) in order."""
    if not os.path.exists(FAULT_SO):
        raise T.SetupError("no interposer at %s (make tools/torture/fault.so)"
                           % FAULT_SO)
    env = T.ours_env()
    env.update(LD_LIBRARY_PATH=T.MODULE_DIR, LD_PRELOAD=FAULT_SO,
               FAULT_MODE="count", FAULT_TRACE="1", FAULT_OUT=trace)
    p = T.run(["svnadmin", "upgrade", repo], env=env)
    calls = []
    with open(trace) as f:
        for line in f:
            words = line.split(None, 3)
            if words[0] == "call" and len(words) == 4:
                # Renames and links log "FROM -> TO": the name given.
                path = words[3].rstrip("\n").rsplit(" -> ", 1)[-1]
                if path.startswith(repo + "/"):
                    path = path[len(repo) + 1:]
                calls.append((words[2], path))
    return p, calls


def stock_pair(compat, tag, revs=REVS):
    """A stock-made repository holding r0..REVS and a copy of it."""
    a = create(T.stock, compat, "%s-stock-%s" % (tag, compat))
    load(T.stock, a, 0, revs)
    b = S.path("%s-ours-%s" % (tag, compat))
    shutil.rmtree(b, ignore_errors=True)
    shutil.copytree(a, b, symlinks=True)
    return a, b


def dump(runner, repo):
    p = runner("svnadmin", "dump", "-q", repo)
    if p.returncode != 0:
        raise AssertionError("dump of %s: %s" % (repo, T.describe(p)))
    return p.stdout


def verify_ok(tc, repo, what):
    p = T.stock("svnadmin", "verify", "-q", repo)
    tc.assertEqual(p.returncode, 0, "stock verify of %s: %s" % (what, T.describe(p)))


def files_of(repo, skip=("db/uuid", "db/fsfs.conf", "db/rep-cache.db",
                         "db/rep-cache.db-journal")):
    """{relative path: bytes} of db/ (the files a format defines)."""
    out = {}
    for root, dirs, files in os.walk(os.path.join(repo, "db")):
        for n in dirs:
            out[os.path.relpath(os.path.join(root, n), repo) + "/"] = None
        for n in files:
            rel = os.path.relpath(os.path.join(root, n), repo)
            if rel not in skip and not rel.startswith("db/revprops"):
                out[rel] = read(os.path.join(root, n))
    return out


def same_files(tc, stock_repo, our_repo, what, revs_too=True):
    """Same db/ entries; same contents too, but for revision files when
    not REVS_TOO (deltas: our delta finder is not stock's, see svndiff.md)."""
    a, b = files_of(stock_repo), files_of(our_repo)
    tc.assertEqual(sorted(b), sorted(a), "%s: db/ entries differ" % what)
    bad = [k for k in a if a[k] != b[k]
           and (revs_too or not k.startswith("db/revs/"))]
    tc.assertFalse(bad, "%s: files differ from stock's: %s" % (what, bad[:5]))


def same_ids(tc, stock_repo, our_repo, youngest, what):
    """Node-revision ids (node, copy and revision parts; OLD-3) as seen by
    stock's svnlook in every fifth revision and the youngest."""
    for rev in sorted(set(range(0, youngest + 1, 5)) | {youngest}):
        a = T.stock("svnlook", "tree", "--show-ids", "-r", str(rev), stock_repo)
        b = T.stock("svnlook", "tree", "--show-ids", "-r", str(rev), our_repo)
        tc.assertEqual(b.returncode, 0, T.describe(b))
        # Offsets inside the revision files may differ with the deltas.
        tc.assertEqual(re.sub(rb"/\d+>", b">", b.stdout),
                       re.sub(rb"/\d+>", b">", a.stdout),
                       "%s: ids in r%d differ" % (what, rev))


def norm_xml(data, dates=True):
    def walk(e):
        return [e.tag, sorted(e.attrib.items()), (e.text or "").strip(),
                [walk(c) for c in e if dates or c.tag != "date"]]
    return walk(ET.fromstring(data))


class OldFormats(unittest.TestCase):

    def test_old_load(self):
        """Loading through ours writes what stock writes, format by format:
        same files, same db/current (id counters), same node ids."""
        for compat, fmt in FORMATS.items():
            ref = create(T.stock, compat, "load-stock-" + compat)
            mine = create(T.ours, compat, "load-ours-" + compat)
            self.assertEqual(read(db(mine, "format")), read(db(ref, "format")))
            load(T.stock, ref, 0, REVS)
            load(T.ours, mine, 0, REVS)
            verify_ok(self, mine, "format %d load" % fmt)
            self.assertEqual(dump(T.stock, mine), dump(T.stock, ref),
                             "format %d: stock dumps differ" % fmt)
            same_files(self, ref, mine, "format %d load" % fmt, revs_too=False)
            same_ids(self, ref, mine, REVS, "format %d load" % fmt)

    def test_old_wc_commits(self):
        """Commits from a working copy (add, copy, move, delete, props)."""
        script = ("set -e; svn co -q {u} wc; cd wc; mkdir -p a/b; echo x > a/f;"
                  " svn add -q a; svn ps -q p v a/f; svn ci -q -m 1;"
                  " echo y >> a/f; svn cp -q a c; svn ci -q -m 2;"
                  " svn up -q; svn mv -q c d; svn rm -q a/b; svn ci -q -m 3;"
                  " svn up -q; svn ps -q q w d; svn ci -q -m 4")
        for compat, fmt in formats(2, 3):
            repos = {}
            for side, runner in (("stock", T.stock), ("ours", T.ours)):
                repo = create(runner, compat, "wc-%s-%s" % (side, compat))
                work = tempfile.mkdtemp(dir=S.path())
                p = runner("bash", "-c", script.format(u=T.url(repo)), cwd=work)
                self.assertEqual(p.returncode, 0, "%s commits, format %d: %s"
                                 % (side, fmt, T.describe(p)))
                repos[side] = repo
            verify_ok(self, repos["ours"], "format %d wc commits" % fmt)
            self.assertEqual(read(db(repos["ours"], "current")),
                             read(db(repos["stock"], "current")),
                             "format %d: db/current" % fmt)
            a = T.stock("svn", "log", "-v", "--xml", T.url(repos["stock"]))
            b = T.stock("svn", "log", "-v", "--xml", T.url(repos["ours"]))
            self.assertEqual(norm_xml(b.stdout, False), norm_xml(a.stdout, False),
                             "format %d: log of ours read by stock" % fmt)

    def test_old_read_stock_made(self):
        """Ours reads stock-made old repositories as stock does."""
        for compat, fmt in formats(1, 4):
            ref, _ = stock_pair(compat, "read")
            self.assertEqual(dump(T.ours, ref), dump(T.stock, ref),
                             "format %d: dump through ours" % fmt)
            a = T.stock("svn", "log", "-v", "--xml", T.url(ref))
            b = T.ours("svn", "log", "-v", "--xml", T.url(ref))
            self.assertEqual(b.returncode, 0, T.describe(b))
            self.assertEqual(norm_xml(b.stdout), norm_xml(a.stdout),
                             "format %d: svn log -v --xml through ours" % fmt)
            a = T.stock("svnadmin", "info", ref)
            b = T.ours("svnadmin", "info", ref)
            self.assertEqual(b.stdout, a.stdout, "format %d: svnadmin info" % fmt)

    def test_old_recover(self):
        """Recover rebuilds db/current, ids included for formats 1 and 2."""
        for compat, fmt in formats(1, 3):
            ref, mine = stock_pair(compat, "recover")
            want = read(db(ref, "current"))
            for broken in (None, b"0 1 1\n" if fmt < 3 else b"0\n"):
                os.remove(db(mine, "current"))
                if broken:
                    with open(db(mine, "current"), "wb") as f:
                        f.write(broken)
                p = T.ours("svnadmin", "recover", mine)
                self.assertEqual(p.returncode, 0, T.describe(p))
                self.assertEqual(read(db(mine, "current")), want,
                                 "format %d: recovered db/current (from %r)"
                                 % (fmt, broken))
            verify_ok(self, mine, "format %d recovered" % fmt)

    def test_old_hotcopy(self):
        """Full and incremental hotcopy: same files and progress as stock."""
        for compat, fmt in formats(2, 4):
            src, _ = stock_pair(compat, "hcsrc", revs=REVS // 2)
            copies = {}
            for side, runner in (("stock", T.stock), ("ours", T.ours)):
                dst = S.path("hc-%s-%s" % (side, compat))
                shutil.rmtree(dst, ignore_errors=True)
                copies[side] = (runner("svnadmin", "hotcopy", src, dst), dst)
            self.assertEqual(copies["ours"][0].stdout, copies["stock"][0].stdout,
                             "format %d: hotcopy progress" % fmt)
            same_files(self, copies["stock"][1], copies["ours"][1],
                       "format %d hotcopy" % fmt)
            load(T.stock, src, REVS // 2 + 1, REVS)
            a = T.stock("svnadmin", "hotcopy", "--incremental", src, copies["stock"][1])
            b = T.ours("svnadmin", "hotcopy", "--incremental", src, copies["ours"][1])
            self.assertEqual(b.stdout, a.stdout, "format %d: incremental progress" % fmt)
            same_files(self, copies["stock"][1], copies["ours"][1],
                       "format %d incremental hotcopy" % fmt)
            verify_ok(self, copies["ours"][1], "format %d hotcopy" % fmt)

    def test_old_upgrade(self):
        """Upgrade to format 8 as stock does; then both commit alike."""
        for compat, fmt in formats(1, 3):
            ref, mine = stock_pair(compat, "upgrade", revs=REVS // 2)
            a = T.stock("svnadmin", "upgrade", ref)
            b = T.ours("svnadmin", "upgrade", mine)
            self.assertEqual((b.returncode, b.stdout), (a.returncode, a.stdout),
                             "format %d: upgrade output" % fmt)
            same_files(self, ref, mine, "format %d upgraded" % fmt)
            load(T.stock, ref, REVS // 2 + 1, REVS)
            load(T.ours, mine, REVS // 2 + 1, REVS)
            verify_ok(self, mine, "format %d upgraded, then loaded" % fmt)
            self.assertEqual(dump(T.stock, mine), dump(T.stock, ref),
                             "format %d upgraded: dumps differ" % fmt)
            self.assertEqual(read(db(mine, "current")), read(db(ref, "current")))

    def test_old_packed_format4(self):
        """Format 4 packs revisions but not their properties (OLD-8):
        read, hotcopy, upgrade and setlog on a stock-packed repository."""
        ref = format4_shards_of_4("packed4")
        T.stock_ok("svnadmin", "pack", "-q", ref)
        self.assertTrue(os.path.exists(db(ref, "revprops", "1", "5")))
        self.assertEqual(dump(T.ours, ref), dump(T.stock, ref), "dump via ours")
        copies = {}
        for side, runner in (("stock", T.stock), ("ours", T.ours)):
            dst = S.path("packed4-hc-" + side)
            shutil.rmtree(dst, ignore_errors=True)
            copies[side] = (runner("svnadmin", "hotcopy", ref, dst), dst)
        self.assertEqual(copies["ours"][0].stdout, copies["stock"][0].stdout)
        same_files(self, copies["stock"][1], copies["ours"][1], "packed hotcopy")
        self.assertEqual(sorted(os.listdir(db(copies["ours"][1], "revprops", "1"))),
                         sorted(os.listdir(db(ref, "revprops", "1"))))
        # Upgrading packs the revprops of packed shards (OLD-9).
        ups = {}
        for side, runner in (("stock", T.stock), ("ours", T.ours)):
            dst = S.path("packed4-up-" + side)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(ref, dst, symlinks=True)
            ups[side] = (runner("svnadmin", "upgrade", dst), dst)
        self.assertEqual(ups["ours"][0].stdout, ups["stock"][0].stdout, "upgrade output")
        for sub in ("", "0", "1.pack"):
            self.assertEqual(sorted(os.listdir(db(ups["ours"][1], "revprops", sub))),
                             sorted(os.listdir(db(ups["stock"][1], "revprops", sub))),
                             "revprops/%s after upgrade" % sub)
        verify_ok(self, ups["ours"][1], "upgraded packed format 4")
        self.assertEqual(dump(T.ours, ups["ours"][1]), dump(T.stock, ups["stock"][1]))
        msg = S.path("packed4-log")
        with open(msg, "wb") as f:
            f.write(b"new log\n")
        p = T.ours("svnadmin", "setlog", "--bypass-hooks", "-r", "5", ref, msg)
        self.assertEqual(p.returncode, 0, T.describe(p))
        p = T.stock("svnlook", "log", "-r", "5", ref)
        self.assertEqual(p.stdout, b"new log\n\n")

    def test_old_upgrade_durable_revprops(self):
        """Upgrading a packed format 4 repository packs the revprops of
        its packed shards (OLD-9); no plain revprop file is unlinked
        before its pack file and the manifest were fsynced after their
        last write, the pack directory and db/revprops (its entry) were
        fsynced, and the new db/format was renamed into place from a
        synced temp file and db/ fsynced.  Otherwise a power cut after
        the unlinks could lose the properties of every packed revision."""
        ref = format4_shards_of_4("durable4")
        T.stock_ok("svnadmin", "pack", "-q", ref)
        repo = S.path("durable4-up")
        shutil.rmtree(repo, ignore_errors=True)
        shutil.copytree(ref, repo, symlinks=True)
        p, calls = traced_upgrade(repo, S.path("durable4.trace"))
        self.assertEqual(p.returncode, 0, T.describe(p))
        unlinks = [i for i, (name, path) in enumerate(calls)
                   if name in ("unlink", "unlinkat")
                   and re.match(r"db/revprops/\d+/\d+$", path)]
        self.assertEqual(len(unlinks), 7, "r1..r7 of shards 0 and 1: %r"
                         % [calls[i] for i in unlinks])
        before = calls[:unlinks[0]]

        def last(names, path, upto=len(before)):
            hits = [i for i, c in enumerate(before[:upto])
                    if c[0] in names and c[1] == path]
            return hits[-1] if hits else -1

        syncs = ("fsync", "fdatasync")
        writes = ("write", "writev", "pwrite")
        needed = set()
        for i in unlinks:
            shard, rev = calls[i][1].split("/")[2:]
            pack_dir = "db/revprops/%s.pack" % shard
            with open(os.path.join(repo, pack_dir, "manifest")) as f:
                lines = f.read().split()
            first = max(1, int(shard) * 4)
            needed |= {pack_dir + "/manifest",
                       pack_dir + "/" + lines[int(rev) - first]}
            for d in (pack_dir, "db/revprops"):
                self.assertGreaterEqual(last(syncs, d), 0,
                                        "%s not fsynced before the first "
                                        "unlink" % d)
        for f in sorted(needed):
            self.assertGreater(last(syncs, f), last(writes, f),
                               "%s not fsynced after its last write, "
                               "before the first unlink" % f)
        bump = last(("rename", "renameat"), "db/format")
        self.assertGreaterEqual(bump, 0, "db/format not replaced before "
                                "the first unlink")
        self.assertGreater(last(syncs, "db"), bump,
                           "db/ not fsynced after db/format's rename")
        temp = [c for c in before[:bump] if c[0] in syncs + ("rename",)][-1]
        self.assertTrue(temp[0] in syncs and temp[1].startswith("db/svn-"),
                        "db/format's temp file not fsynced before the "
                        "rename: %r" % (temp,))
        verify_ok(self, repo, "upgraded packed format 4")

    def test_old_upgrade_modes_group_shared(self):
        """Upgrading a packed format 4 repository shared by a group (g+w,
        set-gid directories) gives every new file and directory the mode
        stock gives it: revprops/<S>.pack that of revprops/<S>, db/uuid
        that of db/current."""
        ref = format4_shards_of_4("modes4")
        T.stock_ok("svnadmin", "pack", "-q", ref)
        modes = {}
        for side, runner in (("stock", T.stock), ("ours", T.ours)):
            dst = S.path("modes4-up-" + side)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(ref, dst, symlinks=True)
            share_with_group(dst)
            p = with_umask(0o022, runner, "svnadmin", "upgrade", dst)
            self.assertEqual(p.returncode, 0, T.describe(p))
            modes[side] = modes_under(dst)
        self.assertIn("db/revprops/1.pack", modes["ours"])
        self.assertEqual(sorted(modes["ours"]), sorted(modes["stock"]))
        diff = ["%s: stock %o, ours %o" % (k, v, modes["ours"][k])
                for k, v in sorted(modes["stock"].items())
                if modes["ours"][k] != v]
        self.assertEqual(diff, [], "modes differ from stock's")

    def test_old_pack(self):
        """Formats 1-3 cannot be packed (stock's error, word for word);
        format 4 packs revisions and leaves revprops plain (OLD-8)."""
        for compat in ("1.3", "1.4", "1.5"):
            ref, mine = stock_pair(compat, "pack", revs=3)
            a = T.stock("svnadmin", "pack", ref)
            b = T.ours("svnadmin", "pack", mine)
            self.assertNotEqual(b.returncode, 0, "%s: ours packed" % compat)
            self.assertEqual(b.stderr, a.stderr.replace(ref.encode(), mine.encode()),
                             "%s: pack errors differ" % compat)
        pair = {}
        for side, runner in (("stock", T.stock), ("ours", T.ours)):
            repo = format4_shards_of_4("pack4-" + side)
            p = runner("svnadmin", "pack", repo)
            self.assertEqual(p.returncode, 0, "%s pack: %s" % (side, T.describe(p)))
            pair[side] = (p.stdout, repo)
        self.assertEqual(pair["ours"][0], pair["stock"][0], "pack notifications")
        ours, stock = pair["ours"][1], pair["stock"][1]
        same_files(self, stock, ours, "packed format 4")
        self.assertEqual(sorted(os.listdir(db(ours, "revprops", "1"))),
                         sorted(os.listdir(db(stock, "revprops", "1"))),
                         "format 4 keeps plain revprops")
        verify_ok(self, ours, "format 4 packed by ours")
        self.assertEqual(dump(T.stock, ours), dump(T.stock, stock))

    def test_old_mergeinfo_refused(self):
        """Formats 1 and 2 cannot answer mergeinfo queries (stock neither)."""
        for compat in ("1.3", "1.4", "1.5"):
            ref, _ = stock_pair(compat, "minfo", revs=3)
            a = T.stock("svn", "mergeinfo", T.url(ref), T.url(ref))
            b = T.ours("svn", "mergeinfo", T.url(ref), T.url(ref))
            self.assertEqual((b.returncode, T.errcodes(b)), (a.returncode, T.errcodes(a)),
                             "%s: stock %s / ours %s" % (compat, T.describe(a), T.describe(b)))


if __name__ == "__main__":
    try:
        T.main("oldformats", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
