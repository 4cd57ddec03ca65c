#!/usr/bin/env python3
"""Integration tests, issue 2 (foundation): creating repositories, reading
and writing revision properties, fsfs7-run itself.

Every test is named test_issue2_<what>[_<dataset>_<variant>] so that the
log shows at a glance which parts of the foundation work.  Our module is
only ever reached through tools/fsfs7-run; the stock module is the oracle.
"""

import os
import re
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

MAVEN, LOOKED = T.find_maven_small()
DATASETS = ["gen"] + (["maven"] if MAVEN else [])
DS = {}
S = None          # T.Scratch of this run
REPOS = T.RepoCopies()        # (dataset, variant) -> per-run copy of the reference repo


def setup():
    global S
    DS["gen"] = T.reference_repos(T.Dataset("gen", T.gen_dump()))
    if MAVEN:
        DS["maven"] = T.reference_repos(T.Dataset("maven", MAVEN))
    S = T.Scratch("foundation")
    REPOS.bind(S, DS)     # copies made on first use


# ---- creating repositories ------------------------------------------------

CREATE = {"f6": ["--compatible-version", "1.8"],
          "f7": ["--compatible-version", "1.9"],
          "f8": []}

# Files under db/ whose bytes do not depend on time or randomness; they must
# match what the stock module writes.  (fsfs.conf is prose, uuid and r0's
# revprops carry a random id and the time.)
FIXED_FILES = ["format", "current", "txn-current", "min-unpacked-rev",
               "fs-type", "revs/0/0"]


def db_listing(repo):
    out = []
    for root, dirs, files in os.walk(os.path.join(repo, "db")):
        dirs.sort()
        rel = os.path.relpath(root, os.path.join(repo, "db"))
        out += [os.path.normpath(os.path.join(rel, n)) + ("/" if n in dirs else "")
                for n in sorted(dirs + files)]
    # rep-cache.db appears lazily with the first commit that stores a rep.
    return sorted(x for x in out if not x.startswith("rep-cache.db"))


class Create(unittest.TestCase):
    def create_pair(self, fmt):
        mine = S.path("create-ours-" + fmt)
        ref = S.path("create-stock-" + fmt)
        for d in (mine, ref):
            subprocess.run(["rm", "-rf", d])
        p = T.ours("svnadmin", "create", *CREATE[fmt], mine)
        self.assertEqual(p.returncode, 0, "fsfs7 svnadmin create: " + T.describe(p))
        T.stock_ok("svnadmin", "create", *CREATE[fmt], ref)
        return mine, ref

    def check_create(self, fmt):
        mine, ref = self.create_pair(fmt)
        p = T.stock("svnadmin", "verify", "-q", mine)
        self.assertEqual(p.returncode, 0, "stock verify of ours-created repo: " + T.describe(p))
        info = T.stock("svnadmin", "info", mine)
        self.assertEqual(info.returncode, 0, T.describe(info))
        self.assertIn(b"Filesystem Format: %d\n" % int(fmt[1]), info.stdout,
                      info.stdout.decode())
        self.assertIn(b"Filesystem Type: fsfs\n", info.stdout)
        self.assertEqual(db_listing(mine), db_listing(ref), "db/ layout differs from stock")
        for f in FIXED_FILES:
            with open(os.path.join(mine, "db", f), "rb") as a, \
                 open(os.path.join(ref, "db", f), "rb") as b:
                self.assertEqual(a.read(), b.read(), "db/%s differs from stock" % f)
        uuid = T.stock("svnlook", "uuid", mine)
        self.assertEqual(uuid.returncode, 0, T.describe(uuid))
        self.assertRegex(uuid.stdout.decode(), r"^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}\n$")
        date = T.stock("svnlook", "date", "-r", "0", mine)
        self.assertEqual(date.returncode, 0, T.describe(date))
        self.assertRegex(date.stdout.decode(), r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ")
        # The repository must be fully usable by stock: commit, then verify.
        p = T.stock("svn", "mkdir", "-q", "-m", "first", "--parents",
                    T.url(mine, "trunk/a/b"))
        self.assertEqual(p.returncode, 0, "stock commit into ours-created repo: " + T.describe(p))
        p = T.stock("svnadmin", "verify", "-q", mine)
        self.assertEqual(p.returncode, 0, "stock verify after commit: " + T.describe(p))

    def test_issue2_create_f6(self):
        self.check_create("f6")

    def test_issue2_create_f7(self):
        self.check_create("f7")

    def test_issue2_create_f8(self):
        self.check_create("f8")

    def test_issue2_create_then_ours_reads_info(self):
        mine, _ = self.create_pair("f7")
        for cmd in (["svnlook", "youngest", mine], ["svnlook", "uuid", mine],
                    ["svnlook", "info", "-r", "0", mine], ["svnadmin", "info", mine]):
            a, b = T.stock(*cmd), T.ours(*cmd)
            self.assertEqual((a.returncode, a.stdout), (b.returncode, b.stdout),
                             "%s: ours %s" % (" ".join(cmd[:2]), T.describe(b)))


# ---- reading revision properties of the reference repositories -------------

def log_xml(repo, ours=False):
    """`svn log --xml --with-all-revprops -r 0:HEAD` of REPO: every
    revision's revprops in one process (svn sorts them by name)."""
    return T.run(["svn", "log", "--xml", "--with-all-revprops", "-r", "0:HEAD",
                  T.url(repo)], ours=ours)


def logs_by_rev(xml_bytes):
    """{revision: svn:log text or None} from log_xml() output."""
    out = {}
    for e in ET.fromstring(xml_bytes).iter("logentry"):
        msg = e.find("msg")
        out[int(e.get("revision"))] = None if msg is None else (msg.text or "")
    return out


def check_revprops_read(tc, ds, v):
    repo = REPOS[ds, v]
    youngest = DS[ds].youngest
    bad = []
    # Every revision's revprops through the FS API, one process per side.
    a, b = log_xml(repo), log_xml(repo, ours=True)
    if a.returncode != 0:
        raise T.SetupError("stock svn log --xml: " + T.describe(a))
    if (b.returncode, b.stdout) != (a.returncode, a.stdout):
        bad.append("svn log --xml --with-all-revprops -r 0:HEAD: %s\n%s"
                   % (T.describe(b), T.first_diff(a.stdout, b.stdout)))

    def one(rev):
        out = []
        for cmd in (["svnlook", "info", "-r", str(rev), repo],
                    ["svnlook", "propget", "--revprop", "-r", str(rev), repo, "svn:log"]):
            a, b = T.stock(*cmd), T.ours(*cmd)
            if a.returncode != 0 and cmd[1] == "info":
                raise T.SetupError("stock %s -r %d failed: %s" % (cmd[1], rev, T.describe(a)))
            # A missing svn:log is an error (E200017) for both.
            if (b.returncode, b.stdout, T.errcodes(b)) != \
               (a.returncode, a.stdout, T.errcodes(a)):
                out.append("r%d %s: %s\n%s" % (rev, cmd[1], T.describe(b),
                                               T.first_diff(a.stdout, b.stdout)))
        return out

    # svnlook per revision: a sample (every revision under FSFS7_SLOW).
    # Stop early when everything fails: the first revisions tell the story.
    revs = T.revs_to_check(youngest)
    for chunk in range(0, len(revs), 100):
        for r in T.parallel(one, revs[chunk:chunk + 100]):
            bad += r
        if len(bad) > 20:
            break
    for cmd in (["svnlook", "youngest", repo], ["svnlook", "uuid", repo],
                ["svnlook", "proplist", "--revprop", "-r", str(youngest), repo]):
        # (proplist prints in hash order, which differs between processes)
        a, b = T.stock(*cmd), T.ours(*cmd)
        if (b.returncode, sorted(b.stdout.splitlines())) != \
           (a.returncode, sorted(a.stdout.splitlines())):
            bad.append("%s: %s" % (cmd[1], T.describe(b)))
    tc.assertFalse(bad, "%d mismatches (all %d revisions by svn log, %d by svnlook); "
                   "first ones:\n%s" % (len(bad), youngest + 1, len(revs), "\n".join(bad[:5])))


class RevpropsRead(unittest.TestCase):
    pass


# ---- writing revision properties through ours, reading back with stock -----

def logs_of(repo):
    """{revision: svn:log} of every revision of REPO, read by stock."""
    p = log_xml(repo)
    if p.returncode != 0:
        raise T.SetupError("stock svn log --xml of %s: %s" % (repo, T.describe(p)))
    return logs_by_rev(p.stdout)


def check_revprops_write(tc, ds, v):
    pristine = REPOS[ds, v]
    repo = S.copy_repo(pristine, "write-%s-%s" % (ds, v))
    T.allow_revprop_changes(repo)
    youngest = DS[ds].youngest
    before = logs_of(pristine)
    # A packed shard (rev 5, 150), the last packed revision, the unpacked
    # tail (youngest) and r0.
    targets = sorted({0, 5, min(150, youngest), (youngest // 100) * 100 - 1, youngest} - {-1})
    expect = {}
    msgfile = S.path("msg-%s-%s" % (ds, v))
    for i, rev in enumerate(targets):
        msg = ("fsfs7 setlog r%d\nline two \u00e9\u00e8\n" % rev).encode()
        if i == 1:
            msg += b"x" * 70000 + b"\n"      # larger than a revprop pack
        with open(msgfile, "wb") as f:
            f.write(msg)
        p = T.ours("svnadmin", "setlog", "--bypass-hooks", "-r", str(rev), repo, msgfile)
        tc.assertEqual(p.returncode, 0, "fsfs7 svnadmin setlog r%d: %s" % (rev, T.describe(p)))
        expect[rev] = msg
    for i, rev in enumerate(targets):
        val = "custom value %d for r%d" % (i, rev)
        p = T.ours("svn", "propset", "-q", "--revprop", "-r", str(rev), "fsfs7:custom",
                   val, T.url(repo))
        tc.assertEqual(p.returncode, 0, "fsfs7 svn propset --revprop r%d: %s"
                       % (rev, T.describe(p)))
        got = T.stock("svnlook", "propget", "--revprop", "-r", str(rev), repo, "fsfs7:custom")
        tc.assertEqual((got.returncode, got.stdout), (0, val.encode()),
                       "stock reads back fsfs7:custom of r%d: %s" % (rev, T.describe(got)))
    # The targets byte for byte; all the others unchanged (one svn log).
    for rev in targets:
        got = T.stock("svnlook", "propget", "--revprop", "-r", str(rev), repo, "svn:log")
        tc.assertEqual((got.returncode, got.stdout), (0, expect[rev]),
                       "stock reads back svn:log of r%d: %s" % (rev, T.describe(got)))
    after = logs_of(repo)
    wrong = [r for r in range(youngest + 1)
             if r not in expect and after.get(r) != before.get(r)]
    tc.assertEqual(len(after), youngest + 1, "svn log lists %d revisions" % len(after))
    tc.assertFalse(wrong, "svn:log read back by stock differs at revisions %s" % wrong[:10])
    p = T.ours("svn", "propdel", "-q", "--revprop", "-r", str(targets[1]),
               "fsfs7:custom", T.url(repo))
    tc.assertEqual(p.returncode, 0, "fsfs7 svn propdel --revprop: " + T.describe(p))
    got = T.stock("svnlook", "proplist", "--revprop", "-r", str(targets[1]), repo)
    tc.assertNotIn(b"fsfs7:custom", got.stdout)
    p = T.stock("svnadmin", "verify", "-q", repo)
    tc.assertEqual(p.returncode, 0, "stock verify after revprop writes: " + T.describe(p))


class RevpropsWrite(unittest.TestCase):
    pass


def _add(cls, name, fn, *args):
    setattr(cls, name, lambda self: fn(self, *args))


# Quick: reads on three shapes in a row of T.rotating() and writes on
# three others (both addressing modes, packed and not, each); FSFS7_SLOW:
# reads on every variant of both datasets, writes on every variant of
# the generated history and maven-small's f7 and f7p.
for _ds, _v in T.rotating(0, DATASETS):
    _add(RevpropsRead, "test_issue2_svnlook_info_log_%s_%s" % (_ds, _v),
         check_revprops_read, _ds, _v)
_WRITES = ([("gen", v) for v in T.VARIANTS] + [("maven", v) for v in ("f7", "f7p")]
           if T.SLOW else T.rotating(3, DATASETS))
for _ds, _v in _WRITES:
    if _ds in DATASETS:
        _add(RevpropsWrite, "test_issue2_revprop_write_%s_%s" % (_ds, _v),
             check_revprops_write, _ds, _v)
if not MAVEN:
    def test_issue2_maven_dataset(self):
        self.skipTest("maven-small.svndump.gz not found (looked in $FSFS7_DATA, %s)"
                      % ", ".join(LOOKED))
    RevpropsRead.test_issue2_maven_dataset = test_issue2_maven_dataset


# ---- fsfs7-run and the module's identity ------------------------------------

class Runner(unittest.TestCase):
    def test_issue2_version_names_fsfs7(self):
        p = T.run(["svnadmin", "--version"], ours=True, env=T.ours_env())  # via fsfs7-run
        self.assertEqual(p.returncode, 0, T.describe(p))
        fsline = [l for l in p.stdout.decode().splitlines() if l.startswith("* fs_fs")]
        self.assertTrue(fsline and "fsfs7" in fsline[0], p.stdout.decode())
        q = T.stock("svnadmin", "--version")
        self.assertNotIn(b"fsfs7", q.stdout, "stock run must not load fsfs7")

    def test_issue2_fsfs7run_refuses_missing_module(self):
        env = T.stock_env()
        env["FSFS7_MODULE_DIR"] = S.path("no-such-dir")
        p = T.run(["true"], ours=True, env=env)
        self.assertEqual(p.returncode, 125, T.describe(p))
        self.assertIn(b"no module", p.stderr)

    def test_issue2_fsfs7run_refuses_unloadable_module(self):
        d = S.path("bogus-module")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "libsvn_fs_fs-1.so.1"), "wb") as f:
            f.write(b"not an ELF file\n")
        env = T.stock_env()
        env["FSFS7_MODULE_DIR"] = d
        p = T.run(["true"], ours=True, env=env)
        self.assertEqual(p.returncode, 125, T.describe(p))
        self.assertIn(b"would use", p.stderr)

    def test_issue2_fsfs7run_maps_our_module(self):
        p = T.ours("bash", "-c", "ldd /usr/bin/svnadmin")
        self.assertEqual(p.returncode, 0, T.describe(p))
        line = [l for l in p.stdout.decode().splitlines() if "libsvn_fs_fs-1.so.1" in l]
        self.assertTrue(line, p.stdout.decode())
        self.assertEqual(os.path.realpath(line[0].split()[2]),
                         os.path.realpath(os.path.join(T.MODULE_DIR, "libsvn_fs_fs-1.so.1")))
        self.assertTrue(re.search(r"fsfs7", T.ours("svnadmin", "--version").stdout.decode()))


if __name__ == "__main__":
    try:
        T.main("issue2-foundation", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
