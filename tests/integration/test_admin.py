#!/usr/bin/env python3
"""Integration tests of the admin operations: svnadmin hotcopy (full and
--incremental), upgrade, recover, freeze, info, setuuid, setlog /
setrevprop / delrevprop, create, and locks (svn lock / unlock, svnadmin
lock / unlock / lslocks / rmlocks over file://).

Every behaviour is run once through our module (tools/fsfs7-run) and once
with the stock module on an identical copy, and the two results are
compared: output, error codes and the files left on disk.  Whatever ours
writes must then be accepted by stock (`svnadmin verify`, `svnadmin dump`).
Commits through our module are not supported yet, so repositories only
grow through stock.  Tests are named test_admin_<operation>[_<what>].

`make check` runs the quick set: every operation and every refusal or
error case, each on one or two representative variants (physical and
packed logical addressing, format 6 and format 8).  FSFS7_SLOW=1 (`make
check-slow`) repeats the per-variant checks on all variants and datasets.
"""

import os
import re
import shutil
import sqlite3
import sys
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

MAVEN, LOOKED = T.find_maven_small()
DS = {}
S = None          # T.Scratch of this run
REPOS = T.RepoCopies()   # (dataset, variant) -> per-run copy, made on first use
UUID_RE = re.compile(rb"^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$")
slow = unittest.skipUnless(T.SLOW, "slow check: FSFS7_SLOW=1 (make check-slow)")


def at_depth(everything, quick):
    """EVERYTHING under FSFS7_SLOW, else its QUICK representatives."""
    return list(everything) if T.SLOW else list(quick)


def setup():
    global S
    DS["gen"] = T.reference_repos(T.Dataset("gen", T.gen_dump()))
    if MAVEN:
        DS["maven"] = T.reference_repos(T.Dataset("maven", MAVEN))
    S = T.Scratch("admin")
    REPOS.bind(S, DS)


# ---- helpers ----------------------------------------------------------------

def fresh(ds, v, tag):
    """A new per-test copy of reference repository (DS, V)."""
    return S.copy_repo(REPOS[ds, v], "%s-%s-%s" % (tag, ds, v))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    if os.path.exists(path):
        os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(data)


def uuid_lines(repo):
    return read(os.path.join(repo, "db", "uuid")).splitlines()


def tree_diff(a, b, skip=()):
    """Differences between directory trees A (stock) and B (ours): entry
    names, kinds, contents and permission bits; relative paths in SKIP
    are not compared.  Returns a list of descriptions (empty if equal)."""
    out = []
    for root, dirs, files in os.walk(a):
        dirs.sort()
        rel = os.path.relpath(root, a)
        other = os.path.join(b, rel)
        if not os.path.isdir(other):
            out.append("directory %s missing in ours" % rel)
            continue
        mine, theirs = set(dirs + files), set(os.listdir(other))
        if mine != theirs:
            out.append("entries of %s: only stock %s, only ours %s"
                       % (rel, sorted(mine - theirs)[:5], sorted(theirs - mine)[:5]))
        for name in sorted(mine & theirs):
            r = os.path.normpath(os.path.join(rel, name))
            pa, pb = os.path.join(root, name), os.path.join(other, name)
            if r in skip:
                continue
            ma, mb = os.lstat(pa).st_mode, os.lstat(pb).st_mode
            if (ma & 0o170777) != (mb & 0o170777):
                out.append("mode of %s: stock %o, ours %o" % (r, ma, mb))
            elif os.path.isfile(pa) and read(pa) != read(pb):
                out.append("content of %s differs" % r)
        if len(out) > 10:
            break
    return out


def dump_sha(repo):
    p = T.stock("svnadmin", "dump", "-q", repo)
    return p.returncode, T.hashlib.sha256(p.stdout).hexdigest()


def rep_cache_rows(repo):
    path = os.path.join(repo, "db", "rep-cache.db")
    if not os.path.exists(path):
        return None
    with sqlite3.connect("file:%s?mode=ro" % path, uri=True) as db:
        return db.execute("SELECT * FROM rep_cache ORDER BY hash").fetchall()


def same_rep_cache(tc, ref, copy, what):
    """COPY's rep-cache.db has the mode of REF's and its rows, rowids
    included where the table has them.  Incremental copies are compared
    this way, not byte for byte: ours appends the new rows to the copy's
    file (HOTCOPY-5), whose pages then differ from a whole-file copy's
    where no reader looks."""
    files = [os.path.join(c, "db", "rep-cache.db") for c in (ref, copy)]
    modes = [os.stat(f).st_mode if os.path.exists(f) else None for f in files]
    tc.assertEqual(modes[1], modes[0], "%s: mode of db/rep-cache.db" % what)
    got = []
    for f in files:
        if not os.path.exists(f):
            got.append(None)
            continue
        with sqlite3.connect("file:%s?mode=ro" % f, uri=True) as db:
            ddl = db.execute("SELECT sql FROM sqlite_master WHERE name = 'rep_cache'").fetchone()
            cols = "*" if ddl is None or "WITHOUT ROWID" in ddl[0] else "rowid, *"
            got.append(db.execute("SELECT %s FROM rep_cache ORDER BY hash" % cols).fetchall()
                       if ddl else ddl)
    tc.assertEqual(got[1], got[0], "%s: rows of db/rep-cache.db differ" % what)


def same_result(tc, a, b, what):
    """Stock run A and our run B ended alike: exit status, stdout and the
    error codes in stderr."""
    tc.assertEqual((b.returncode, T.errcodes(b)), (a.returncode, T.errcodes(a)),
                   "%s: stock %s / ours %s" % (what, T.describe(a), T.describe(b)))
    tc.assertEqual(b.stdout, a.stdout, "%s: output differs\n%s"
                   % (what, T.first_diff(a.stdout, b.stdout)))


def verify_ok(tc, repo, what):
    p = T.stock("svnadmin", "verify", "-q", repo)
    tc.assertEqual(p.returncode, 0, "stock verify of %s: %s" % (what, T.describe(p)))


def check_copy(tc, stock_copy, our_copy, src, what, skip=()):
    """OUR_COPY of SRC equals STOCK_COPY but for the instance id of
    db/uuid, which both must have made new (format 7+)."""
    diff = tree_diff(stock_copy, our_copy, skip=set(skip) | {"db/uuid"})
    tc.assertFalse(diff, "%s: ours differs from stock's copy:\n  %s"
                   % (what, "\n  ".join(diff)))
    ours, theirs, orig = uuid_lines(our_copy), uuid_lines(stock_copy), uuid_lines(src)
    tc.assertEqual(len(ours), len(theirs), "%s: db/uuid lines" % what)
    tc.assertEqual(ours[0], orig[0], "%s: repository uuid changed" % what)
    if len(orig) > 1:
        tc.assertRegex(ours[1], UUID_RE, "%s: instance id" % what)
        tc.assertNotEqual(ours[1], orig[1], "%s: instance id not renewed" % what)


def load_range(repo, lo, hi):
    """Stock-load revisions LO..HI of the generated dump into REPO."""
    with open(T.gen_dump(), "rb") as f:
        p = T.stock("svnadmin", "load", "-q", "-r", "%d:%d" % (lo, hi), repo, input=f.read())
    if p.returncode != 0:
        raise T.SetupError("stock load -r %d:%d: %s" % (lo, hi, T.describe(p)))


def small_repo(name, compat, shard, revs, packed):
    """A stock repository of SHARD revisions per shard holding r0..REVS of
    the generated dump (packed if PACKED)."""
    repo = S.path(name)
    shutil.rmtree(repo, ignore_errors=True)
    T.stock_ok("svnadmin", "create", *(["--compatible-version", compat] if compat else []), repo)
    fmt = os.path.join(repo, "db", "format")
    write(fmt, read(fmt).replace(b"layout sharded 1000", b"layout sharded %d" % shard))
    os.chmod(fmt, 0o444)
    load_range(repo, 0, revs)
    if packed:
        T.stock_ok("svnadmin", "pack", "-q", repo)
    return repo


# ---- hotcopy of the reference repositories --------------------------------

def check_hotcopy(tc, ds, v):
    src = REPOS[ds, v]
    mine, ref = S.path("hc-ours-%s-%s" % (ds, v)), S.path("hc-stock-%s-%s" % (ds, v))
    b = T.ours("svnadmin", "hotcopy", src, mine)
    a = T.stock("svnadmin", "hotcopy", src, ref)
    if a.returncode != 0:
        raise T.SetupError("stock hotcopy: " + T.describe(a))
    same_result(tc, a, b, "hotcopy")
    tc.assertTrue(b.stdout.startswith(b"* Copied revision"), b.stdout[:200])
    check_copy(tc, ref, mine, src, "hotcopy %s %s" % (ds, v))
    verify_ok(tc, mine, "ours' hotcopy")
    d_src, d_mine = T.parallel(dump_sha, [src, mine], jobs=2)
    tc.assertEqual(d_mine, d_src, "dump of ours' hotcopy differs from the source's")
    a, b = T.stock("svnadmin", "info", mine), T.ours("svnadmin", "info", mine)
    same_result(tc, a, b, "svnadmin info of ours' hotcopy")


def check_hotcopy_incremental(tc, ds, v):
    """Full copies by both modules; the source gains a revprop change (in a
    packed shard where there is one) and two revisions; then incremental
    copies by both, and once more with nothing to do."""
    src = fresh(ds, v, "inc-src")
    mine, ref = S.path("inc-ours-%s-%s" % (ds, v)), S.path("inc-stock-%s-%s" % (ds, v))
    T.stock_ok("svnadmin", "hotcopy", src, ref)
    b = T.ours("svnadmin", "hotcopy", src, mine)
    tc.assertEqual(b.returncode, 0, "full hotcopy: " + T.describe(b))
    uuids = {c: uuid_lines(c) for c in (mine, ref)}
    msg = S.path("inc-msg-%s-%s" % (ds, v))
    write(msg, b"changed by test_admin\n")
    T.stock_ok("svnadmin", "setlog", "--bypass-hooks", "-r", "5", src, msg)
    for i in (1, 2):
        T.stock_ok("svn", "mkdir", "-q", "-m", "admin %d" % i, T.url(src, "admin-test-%d" % i))
    for round in ("after changes", "with nothing new"):
        a = T.stock("svnadmin", "hotcopy", "--incremental", src, ref)
        if a.returncode != 0:
            raise T.SetupError("stock incremental hotcopy: " + T.describe(a))
        b = T.ours("svnadmin", "hotcopy", "--incremental", src, mine)
        same_result(tc, a, b, "incremental hotcopy " + round)
        diff = tree_diff(ref, mine, skip={"db/uuid", "db/rep-cache.db"})
        tc.assertFalse(diff, "incremental hotcopy %s:\n  %s" % (round, "\n  ".join(diff)))
        same_rep_cache(tc, ref, mine, "incremental hotcopy " + round)
        for c in (mine, ref):
            tc.assertEqual(uuid_lines(c), uuids[c], "incremental copy changed db/uuid")
    p = T.stock("svnlook", "propget", "--revprop", "-r", "5", mine, "svn:log")
    tc.assertEqual(p.stdout, b"changed by test_admin\n", "revprop change not copied")
    verify_ok(tc, mine, "ours' incremental hotcopy")
    d_src, d_mine = T.parallel(dump_sha, [src, mine], jobs=2)
    tc.assertEqual(d_mine, d_src, "dump of ours' incremental hotcopy differs")


class Hotcopy(unittest.TestCase):
    def test_admin_hotcopy_small_shards_incremental(self):
        """Shard size 4: the source is loaded in two steps and packed in
        between, so incremental copies meet newly packed shards (whose
        unpacked directories must go) and split revprop packs.  A third
        copy is made by stock and then brought up to date by ours."""
        shapes = (("f6p", "1.8", True), ("f7p", "1.9", True),
                  ("f8p", None, True), ("f8", None, False))
        for name, compat, packed in at_depth(shapes, (shapes[0], shapes[3])):
            with self.subTest(variant=name):
                src = small_repo("small-" + name, compat, 4, 10, packed)
                ref, mine, mixed = (S.path("small-%s-%s" % (w, name))
                                    for w in ("stock", "ours", "mixed"))
                a = T.stock_ok("svnadmin", "hotcopy", src, ref)
                b = T.ours("svnadmin", "hotcopy", src, mine)
                same_result(self, a, b, "full hotcopy")
                check_copy(self, ref, mine, src, "full hotcopy " + name)
                T.stock_ok("svnadmin", "hotcopy", src, mixed)
                uuids = {c: uuid_lines(c) for c in (ref, mine, mixed)}
                load_range(src, 11, 21)
                if packed:
                    T.stock_ok("svnadmin", "pack", "-q", src)
                msg = S.path("small-msg")
                write(msg, b"x" * 3000 + b"\n")
                for rev in ("2", "21"):
                    T.stock_ok("svnadmin", "setlog", "--bypass-hooks", "-r", rev, src, msg)
                for step in ("new revisions and revprops", "nothing new"):
                    a = T.stock_ok("svnadmin", "hotcopy", "--incremental", src, ref)
                    b = T.ours("svnadmin", "hotcopy", "--incremental", src, mine)
                    c = T.ours("svnadmin", "hotcopy", "--incremental", src, mixed)
                    same_result(self, a, b, "incremental hotcopy, " + step)
                    same_result(self, a, c, "incremental onto stock's copy, " + step)
                    for copy in (mine, mixed):
                        diff = tree_diff(ref, copy, skip={"db/uuid", "db/rep-cache.db"})
                        self.assertFalse(diff, "%s, %s:\n  %s"
                                         % (copy, step, "\n  ".join(diff)))
                        same_rep_cache(self, ref, copy, "%s, %s" % (copy, step))
                    for c, lines in uuids.items():
                        self.assertEqual(uuid_lines(c), lines, "%s: db/uuid changed" % c)
                verify_ok(self, mine, "ours' incremental copy")
                self.assertEqual(dump_sha(mine), dump_sha(src))

    def test_admin_hotcopy_incremental_looks_at_new_revisions_only(self):
        """An incremental copy looks up the revision files of the new
        revisions only: the ones the copy holds never change (HOTCOPY-3),
        so its cost must not grow with the history.  Counted with strace:
        the revision files looked up in source and copy are those of the
        two new revisions (and one per shard), on an unpacked source of
        shard size 4 (r0..r20) and on a packed one, whose revision packs
        the copy already has are not looked at either."""
        strace = shutil.which("strace")
        if not strace:
            if T.IN_CI:
                self.fail("strace is needed to count the lookups")
            self.skipTest("no strace")
        for name, packed in (("f7", False), ("f7p", True)):
            with self.subTest(variant=name):
                src = small_repo("look-" + name, "1.9", 4, 20, packed)
                mine = S.path("look-ours-" + name)
                T.stock_ok("svnadmin", "hotcopy", src, mine)
                load_range(src, 21, 22)
                log = S.path("look-strace-" + name)
                b = T.ours(strace, "-f", "-qq", "-o", log, "-e",
                           "trace=openat,newfstatat,statx,stat,lstat",
                           "svnadmin", "hotcopy",
                           "--incremental", src, mine)
                self.assertEqual(b.returncode, 0, T.describe(b))
                looked = set()
                for line in open(log, errors="replace"):
                    # (libsvn_repos lists and stats every directory of
                    # the source whichever module runs: not lookups of ours)
                    m = re.search(r'"[^"]*/db/revs/([^"]*)"', line)
                    if m and "O_DIRECTORY" not in line \
                       and "S_IFDIR" not in line \
                       and not m.group(1).endswith("-tmp"):
                        looked.add(m.group(1))
                # r21 and r22 (in shard 5), and each shard's directory
                # and first revision once
                want = {"5/21", "5/22", ""}
                for shard in range(0 if not packed else 5, 6):
                    want |= {"%d" % shard, "%d/%d" % (shard, 4 * shard)}
                self.assertLessEqual(looked, want,
                                     "looked up: %s" % sorted(looked))
                self.assertTrue({"5/21", "5/22"} <= looked, sorted(looked))
                self.assertEqual(dump_sha(mine), dump_sha(src))

    def test_admin_hotcopy_refusals(self):
        """Destinations both modules must refuse, with the same error."""
        # (All reference repositories share one UUID: the dump's.)
        src = REPOS["gen", "f7"]
        copy = S.path("refuse-copy")
        T.stock_ok("svnadmin", "hotcopy", src, copy)
        other_uuid = S.path("refuse-uuid")
        T.stock_ok("svnadmin", "hotcopy", src, other_uuid)
        T.stock_ok("svnadmin", "setuuid", other_uuid)
        nonempty = S.path("refuse-nonempty")
        os.makedirs(nonempty)
        write(os.path.join(nonempty, "x"), b"x")
        cases = [("non-empty destination", [src, nonempty]),
                 ("existing repository", [src, copy]),
                 ("incremental, other format", ["--incremental", REPOS["gen", "f8"], copy]),
                 ("incremental, other shard size", ["--incremental", REPOS["gen", "f7p"], copy]),
                 ("incremental, other uuid", ["--incremental", src, other_uuid]),
                 ("incremental, other format and uuid",
                  ["--incremental", REPOS["gen", "f6"], other_uuid])]
        for what, args in cases:
            a = T.stock("svnadmin", "hotcopy", *args)
            b = T.ours("svnadmin", "hotcopy", *args)
            self.assertNotEqual(a.returncode, 0, "stock accepted: " + what)
            same_result(self, a, b, what)
            self.assertEqual(os.listdir(nonempty), ["x"], what)

    def test_admin_hotcopy_incremental_to_new_destination(self):
        """--incremental without an earlier copy makes a full one."""
        src = REPOS["gen", "f8p"]
        ref, mine = S.path("newinc-stock"), S.path("newinc-ours")
        a = T.stock_ok("svnadmin", "hotcopy", "--incremental", src, ref)
        b = T.ours("svnadmin", "hotcopy", "--incremental", src, mine)
        same_result(self, a, b, "incremental to a new destination")
        check_copy(self, ref, mine, src, "incremental to a new destination")

    def test_admin_hotcopy_read_only_source(self):
        """A backup user may only read the source: stock copies it without
        writing there, and so must ours (no pack-lock to create or lock)."""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv to run as another user")
        os.chmod(S.dir, 0o711)
        src = fresh("gen", "f8p", "ro-src")
        if os.path.exists(os.path.join(src, "db", "pack-lock")):
            os.remove(os.path.join(src, "db", "pack-lock"))
        T.run(["chmod", "-R", "a+rX,go-w", src])
        out = S.path("ro-out")
        os.makedirs(out)
        os.chmod(out, 0o777)
        as_nobody = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]
        a = T.stock(*as_nobody, "svnadmin", "hotcopy", src, os.path.join(out, "stock"))
        if a.returncode != 0:
            raise T.SetupError("stock hotcopy as nobody: " + T.describe(a))
        b = T.ours(*as_nobody, "svnadmin", "hotcopy", src, os.path.join(out, "ours"))
        same_result(self, a, b, "hotcopy of a read-only source")
        self.assertFalse(os.path.exists(os.path.join(src, "db", "pack-lock")),
                         "ours wrote into the source")
        check_copy(self, os.path.join(out, "stock"), os.path.join(out, "ours"), src,
                   "hotcopy of a read-only source")

    def test_admin_hotcopy_write_protected_source(self):
        """Every write bit of the source removed (upstream svnadmin_tests
        51): the copy's own files (fs-type, which libsvn_fs rewrites after
        the copy, the lock files, the rep-cache journal) must still be
        writable, with the modes stock gives them."""
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            self.skipTest("needs root and setpriv to run as another user")
        os.chmod(S.dir, 0o711)
        src = fresh("gen", "f8", "wp-src")
        T.run(["chmod", "-R", "a+rX,a-w", src])
        out = S.path("wp-out")
        os.makedirs(out)
        os.chmod(out, 0o777)
        as_nobody = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]
        try:
            a = T.stock(*as_nobody, "svnadmin", "hotcopy", src, os.path.join(out, "stock"))
            b = T.ours(*as_nobody, "svnadmin", "hotcopy", src, os.path.join(out, "ours"))
        finally:
            T.run(["chmod", "-R", "u+w", src])
        if a.returncode != 0:
            raise T.SetupError("stock hotcopy as nobody: " + T.describe(a))
        same_result(self, a, b, "hotcopy of a write-protected source")
        check_copy(self, os.path.join(out, "stock"), os.path.join(out, "ours"), src,
                   "hotcopy of a write-protected source")

    def test_admin_hotcopy_prunes_rep_cache(self):
        """db/current behind the revision files (as while commits go on):
        the copy ends at db/current's revision and its rep-cache.db holds
        no rows after it."""
        src = fresh("gen", "f7", "hc-behind")
        write(os.path.join(src, "db", "current"), b"250\n")
        ref, mine = S.path("hc-behind-stock"), S.path("hc-behind-ours")
        a = T.stock_ok("svnadmin", "hotcopy", src, ref)
        b = T.ours("svnadmin", "hotcopy", src, mine)
        same_result(self, a, b, "hotcopy of a source with current behind")
        check_copy(self, ref, mine, src, "hotcopy, current behind", skip={"db/rep-cache.db"})
        rows = rep_cache_rows(mine)
        self.assertTrue(rows, "ours' copy has no rep-cache rows")
        self.assertEqual(rows, rep_cache_rows(ref), "rep-cache rows differ from stock's copy")
        self.assertLessEqual(max(r[1] for r in rows), 250)
        verify_ok(self, mine, "ours' copy of a source with current behind")


# ---- upgrade ------------------------------------------------------------------

def check_upgrade(tc, ds, v):
    src = REPOS[ds, v]
    ref, mine = fresh(ds, v, "up-stock"), fresh(ds, v, "up-ours")
    a = T.stock("svnadmin", "upgrade", ref)
    if a.returncode != 0:
        raise T.SetupError("stock upgrade: " + T.describe(a))
    b = T.ours("svnadmin", "upgrade", mine)
    same_result(tc, a, b, "upgrade")
    fmt = os.path.join("db", "format")
    tc.assertEqual(read(os.path.join(mine, fmt)), read(os.path.join(ref, fmt)))
    tc.assertTrue(read(os.path.join(mine, fmt)).startswith(b"8\n"))
    diff = tree_diff(ref, mine, skip={"db/uuid"})
    tc.assertFalse(diff, "upgraded repository differs from stock's:\n  " + "\n  ".join(diff))
    before, after, theirs = uuid_lines(src), uuid_lines(mine), uuid_lines(ref)
    tc.assertEqual(len(after), len(theirs), "db/uuid lines")
    tc.assertEqual(after[0], before[0], "repository uuid changed")
    if T.FORMAT_OF[v] < 8:
        tc.assertNotEqual(after[1:], before[1:], "upgrade kept the instance id")
    else:
        tc.assertEqual(after, before, "a format 8 repository was changed")
    verify_ok(tc, mine, "ours' upgraded repository")
    for cmd in (["svnadmin", "info", mine], ["svnlook", "youngest", mine]):
        same_result(tc, T.stock(*cmd), T.ours(*cmd), " ".join(cmd[:2]) + " after upgrade")
    b = T.ours("svnadmin", "upgrade", mine)
    a = T.stock("svnadmin", "upgrade", ref)
    same_result(tc, a, b, "second upgrade")


class Upgrade(unittest.TestCase):
    pass


# ---- recover ------------------------------------------------------------------

def recover_pair(tc, ref, mine, what):
    a, b = T.stock("svnadmin", "recover", ref), T.ours("svnadmin", "recover", mine)
    same_result(tc, a, b, "recover, " + what)
    cur = os.path.join("db", "current")
    tc.assertEqual(read(os.path.join(mine, cur)), read(os.path.join(ref, cur)),
                   "db/current after recover, " + what)
    return a, b


def check_recover(tc, ds, v):
    """One pair of copies goes through: a healthy recover, db/current
    behind, db/current ahead (error), the youngest revision lost (its
    rep-cache rows must go), the youngest revision's revprops lost
    (error when db/current names it; below an unfinished commit ours
    recovers and stock refuses)."""
    ref, mine = fresh(ds, v, "rec-stock"), fresh(ds, v, "rec-ours")
    y = DS[ds].youngest
    both = (ref, mine)

    def set_current(rev):
        for r in both:
            write(os.path.join(r, "db", "current"), b"%d\n" % rev)

    def rev_path(r, kind, rev):
        shard = 100 if v.endswith("p") else 1000
        return os.path.join(r, "db", kind, str(rev // shard), str(rev))

    a, _ = recover_pair(tc, ref, mine, "healthy")
    tc.assertEqual(a.returncode, 0, T.describe(a))
    set_current(y - 50)
    recover_pair(tc, ref, mine, "current behind")
    tc.assertEqual(read(os.path.join(mine, "db", "current")), b"%d\n" % y)
    set_current(y + 100)
    a, _ = recover_pair(tc, ref, mine, "current ahead")
    tc.assertNotEqual(a.returncode, 0)
    for r in both:
        os.remove(rev_path(r, "revs", y))
        os.remove(rev_path(r, "revprops", y))
    set_current(y - 1)
    recover_pair(tc, ref, mine, "youngest revision lost")
    tc.assertEqual(rep_cache_rows(mine), rep_cache_rows(ref), "rep-cache after recover")
    verify_ok(tc, mine, "ours' recovered repository")
    if v.endswith("p"):
        return              # r(y-1) is packed: its revprops are in a pack
    for r in both:
        os.remove(rev_path(r, "revprops", y - 1))
    # db/current names the revision that lost its revprops: damage, both
    # refuse.
    set_current(y - 1)
    a, _ = recover_pair(tc, ref, mine, "youngest revprops lost")
    tc.assertNotEqual(a.returncode, 0)
    # db/current names the one below: a commit cut between moving the
    # rev file and writing its revprops (doc/format/commit.md COMMIT-4).
    # Stock refuses; ours keeps db/current's revision (CURRENT-2).
    set_current(y - 2)
    a = T.stock("svnadmin", "recover", ref)
    tc.assertNotEqual(a.returncode, 0)
    b = T.ours("svnadmin", "recover", mine)
    tc.assertEqual(b.returncode, 0, T.describe(b))
    tc.assertEqual(read(os.path.join(mine, "db", "current")), b"%d\n" % (y - 2))
    verify_ok(tc, mine, "ours' repository recovered below an unfinished commit")


class Recover(unittest.TestCase):
    def test_admin_recover_garbage_txn_current(self):
        """A db/txn-current that does not parse (TXN-2).  Stock reads the
        base-36 digits it finds ("zz!!" as zz, an empty file as 0) and
        commits on; ours refuses every new transaction, naming the file
        and the rule, rather than guess a number that may be a live
        transaction's, and says that `svnadmin recover` repairs it:
        recover writes the number after every transaction still on disk
        (and leaves a readable file alone)."""
        ref, mine = fresh("gen", "f8p", "tc-stock"), fresh("gen", "f8p", "tc-ours")
        tc = os.path.join(mine, "db", "txn-current")
        before = read(tc)
        recover_pair(self, ref, mine, "healthy, before the damage")
        self.assertEqual(read(tc), before, "recover rewrote a sound txn-current")
        y = T.stock("svnlook", "youngest", mine).stdout
        for r in (ref, mine):
            write(os.path.join(r, "db", "txn-current"), b"zz!!\n")
        commit = ("svnmucc", "-m", "m", "mkdir", "tc-dir", "-U")
        a = T.stock(*commit, T.url(ref))
        self.assertEqual(a.returncode, 0, T.describe(a))      # stock guesses
        self.assertEqual(read(os.path.join(ref, "db", "txn-current")), b"100\n")
        b = T.ours(*commit, T.url(mine))
        self.assertNotEqual(b.returncode, 0)
        self.assertIn(b"E160004", b.stderr)
        self.assertRegex(b.stderr, rb"db/txn-current, rule TXN-2\)")
        self.assertIn(b"'svnadmin recover' repairs db/txn-current", b.stderr)
        self.assertEqual(read(tc), b"zz!!\n")
        self.assertEqual(T.stock("svnlook", "youngest", mine).stdout, y)
        self.assertEqual(T.stock("svnadmin", "lstxns", mine).stdout, b"")
        # Transactions still on disk: the repaired number comes after them.
        rev = y.strip().decode()
        os.mkdir(os.path.join(mine, "db", "transactions", rev + "-2s.txn"))
        write(os.path.join(mine, "db", "txn-protorevs", rev + "-3b.rev"), b"")
        b = T.ours("svnadmin", "recover", mine)
        self.assertEqual(b.returncode, 0, T.describe(b))
        self.assertEqual(read(tc), b"3c\n")
        b = T.ours(*commit, T.url(mine))
        self.assertEqual(b.returncode, 0, T.describe(b))
        self.assertEqual(read(tc), b"3d\n")
        verify_ok(self, mine, "ours after the repaired txn-current")


# ---- info, setuuid, freeze, create ----------------------------------------------

class Small(unittest.TestCase):
    def test_admin_info_all_variants(self):
        for ds, v in sorted((d, v) for d in DS for v in DS[d].repos):
            repo = REPOS[ds, v]
            with self.subTest(repo="%s-%s" % (ds, v)):
                a, b = T.stock("svnadmin", "info", repo), T.ours("svnadmin", "info", repo)
                same_result(self, a, b, "svnadmin info")
                self.assertIn(b"Filesystem Format: %d\n" % T.FORMAT_OF[v], b.stdout)

    def test_admin_setuuid(self):
        new = b"11111111-2222-4333-8444-555555555555"
        for v in at_depth(("f6", "f7", "f8p"), ("f6", "f8p")):
            with self.subTest(variant=v):
                before = uuid_lines(REPOS["gen", v])
                ref, mine = fresh("gen", v, "uuid-stock"), fresh("gen", v, "uuid-ours")
                a = T.stock("svnadmin", "setuuid", ref, new.decode())
                b = T.ours("svnadmin", "setuuid", mine, new.decode())
                same_result(self, a, b, "setuuid")
                self.assertEqual(T.stock("svnlook", "uuid", mine).stdout, new + b"\n")
                check = tree_diff(ref, mine, skip={"db/uuid"})
                self.assertFalse(check, "\n".join(check))
                ours, theirs = uuid_lines(mine), uuid_lines(ref)
                self.assertEqual((ours[0], len(ours)), (theirs[0], len(theirs)))
                self.assertEqual(os.stat(os.path.join(mine, "db", "uuid")).st_mode,
                                 os.stat(os.path.join(ref, "db", "uuid")).st_mode)
                if len(before) > 1:
                    self.assertNotEqual(ours[1], before[1], "instance id kept")
                b = T.ours("svnadmin", "setuuid", mine)
                self.assertEqual(b.returncode, 0, T.describe(b))
                fresh_uuid = uuid_lines(mine)[0]
                self.assertRegex(fresh_uuid, UUID_RE)
                self.assertNotIn(fresh_uuid, (new, before[0]))
                a = T.stock("svnadmin", "setuuid", ref, "not-a-uuid")
                b = T.ours("svnadmin", "setuuid", mine, "not-a-uuid")
                self.assertNotEqual(a.returncode, 0)
                same_result(self, a, b, "setuuid with a bad uuid")
                self.assertEqual(uuid_lines(mine)[0], fresh_uuid)

    def test_admin_freeze(self):
        """While frozen, the command cannot take the write lock nor (format
        7+) the pack lock, but may take txn-current-lock, as with stock;
        its exit status is passed on; pack-lock is created as by stock."""
        probe = S.path("probe.py")
        # APR locks files with flock(2) here, so the probe does too.
        write(probe, b"""import fcntl, os, sys
for repo in sys.argv[1:]:
    for name in ("db/write-lock", "db/pack-lock", "db/txn-current-lock", "locks/db.lock"):
        p = os.path.join(repo, name)
        if not os.path.exists(p):
            print(name, "absent"); continue
        with open(p, "r+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                print(name, "free")
            except OSError:
                print(name, "held")
""")
        for v in at_depth(("f6", "f7", "f8p"), ("f6", "f8p")):
            with self.subTest(variant=v):
                ref, mine = fresh("gen", v, "frz-stock"), fresh("gen", v, "frz-ours")
                for r in (ref, mine):
                    if os.path.exists(os.path.join(r, "db", "pack-lock")):
                        os.remove(os.path.join(r, "db", "pack-lock"))
                a = T.stock("svnadmin", "freeze", ref, "--", sys.executable, probe, ref)
                b = T.ours("svnadmin", "freeze", mine, "--", sys.executable, probe, mine)
                same_result(self, a, b, "freeze")
                self.assertIn(b"db/write-lock held", b.stdout)
                self.assertFalse(tree_diff(ref, mine))
                a = T.stock("svnadmin", "freeze", ref, "--", "sh", "-c", "exit 3")
                b = T.ours("svnadmin", "freeze", mine, "--", "sh", "-c", "exit 3")
                same_result(self, a, b, "freeze of a failing command")
                self.assertEqual(b.returncode, 3)
        # -F: several repositories frozen at once.
        repos = [fresh("gen", v, "frzF") for v in ("f7", "f8")]
        lst = S.path("freeze-list")
        write(lst, "\n".join(repos).encode() + b"\n")
        b = T.ours("svnadmin", "freeze", "-F", lst, "--", sys.executable, probe, *repos)
        self.assertEqual(b.returncode, 0, T.describe(b))
        for lock in (b"write-lock", b"pack-lock"):
            self.assertEqual(b.stdout.count(lock + b" held"), 2, b.stdout.decode())

    def test_admin_create_files_and_modes(self):
        """db/ of a new repository: names, sizes and modes as stock's
        (fsfs.conf excepted: prose we write in our own words)."""
        def listing(repo):
            out = []
            for root, dirs, files in os.walk(os.path.join(repo, "db")):
                for n in dirs + files:
                    p = os.path.join(root, n)
                    st = os.lstat(p)
                    rel = os.path.relpath(p, repo)
                    if rel != "db/fsfs.conf":
                        out.append((rel, oct(st.st_mode), st.st_size if n in files else 0))
            return sorted(out)
        # 1.3 .. 1.7 give the old formats 1 to 4 (doc/format/old-formats.md).
        for compat in ("1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.14"):
            ref, mine = S.path("create-stock-" + compat), S.path("create-ours-" + compat)
            a = T.stock("svnadmin", "create", "--compatible-version", compat, ref)
            b = T.ours("svnadmin", "create", "--compatible-version", compat, mine)
            same_result(self, a, b, "create " + compat)
            self.assertEqual(listing(mine), listing(ref), "db/ listing for " + compat)


# ---- revision properties: setlog, setrevprop, delrevprop, propset ------------

def revprops_of(repo, runner, youngest):
    """{rev: {name: value}} of every revision, read through RUNNER."""
    out = {}
    for rev in range(youngest + 1):
        p = runner("svn", "proplist", "--revprop", "-v", "--xml", "-r", str(rev), T.url(repo))
        if p.returncode != 0:
            return "r%d: %s" % (rev, T.describe(p))
        out[rev] = {e.get("name"): e.text or ""
                    for e in ET.fromstring(p.stdout).iter("property")}
    return out


def revprop_changes(runner, repo, files):
    url = T.url(repo)
    steps = [
        ["svn", "propset", "-q", "--revprop", "-r", "0", "custom", "on r0", url],
        ["svn", "propset", "-q", "--revprop", "-r", "2", "svn:log", "changed\ntwo lines", url],
        ["svnadmin", "setlog", "--bypass-hooks", "-r", "5", repo, files["msg"]],
        ["svn", "propdel", "-q", "--revprop", "-r", "6", "svn:author", url],
        ["svn", "propset", "-q", "--revprop", "-r", "10", "big", "-F", files["big"], url],
        ["svn", "propset", "-q", "--revprop", "-r", "10", "small", "y", url],
        ["svnadmin", "setrevprop", "-r", "3", repo, "admin:prop", files["msg"]],
        ["svnadmin", "setrevprop", "-r", "13", repo, "svn:log", files["msg"]],
        ["svnadmin", "delrevprop", "-r", "7", repo, "svn:log"],
        ["svnadmin", "delrevprop", "-r", "7", repo, "no-such-prop"],
        ["svnadmin", "setlog", "-r", "99", repo, files["msg"]],
        ["svn", "propset", "-q", "--revprop", "-r", "13", "last", "z", url],
    ]
    return [runner(*s) for s in steps]


class Revprops(unittest.TestCase):
    def test_admin_revprop_changes(self):
        """The same revprop changes through stock and through ours on small
        packed repositories (shard size 4): db/revprops byte-identical, and
        each module reads the other's result alike."""
        files = {"msg": S.path("rp-msg"), "big": S.path("rp-big")}
        write(files["msg"], b"message from setlog\n")
        write(files["big"], b"x" * 20000)
        for compat in at_depth(("1.8", "1.9", "1.14"), ("1.8", "1.14")):
            with self.subTest(compat=compat):
                base = S.path("rp-base-" + compat)
                T.stock_ok("svnadmin", "create", "--compatible-version", compat, base)
                fmt = os.path.join(base, "db", "format")
                write(fmt, read(fmt).replace(b"layout sharded 1000", b"layout sharded 4"))
                os.chmod(fmt, 0o444)
                urls = [T.url(base, "d%d" % i) for i in range(1, 14)]
                for i, u in enumerate(urls):
                    T.stock_ok("svn", "mkdir", "-q", "-m", "commit %d" % i, u)
                T.stock_ok("svnadmin", "pack", "-q", base)
                T.allow_revprop_changes(base)
                ref = S.copy_repo(base, "rp-stock-" + compat)
                mine = S.copy_repo(base, "rp-ours-" + compat)
                ra = revprop_changes(T.stock, ref, files)
                rb = revprop_changes(T.ours, mine, files)
                for i, (a, b) in enumerate(zip(ra, rb)):
                    same_result(self, a, b, "revprop change step %d" % i)
                diff = tree_diff(os.path.join(ref, "db", "revprops"),
                                 os.path.join(mine, "db", "revprops"))
                self.assertFalse(diff, "db/revprops differ:\n  " + "\n  ".join(diff))
                mine_by_stock = revprops_of(mine, T.stock, 13)
                ref_by_ours = revprops_of(ref, T.ours, 13)
                self.assertIsInstance(mine_by_stock, dict, mine_by_stock)
                self.assertEqual(ref_by_ours, mine_by_stock, "cross-reading revprops")
                self.assertEqual(mine_by_stock[7].get("svn:log"), None)
                self.assertEqual(mine_by_stock[3].get("admin:prop"), "message from setlog\n")
                self.assertEqual(len(mine_by_stock[10].get("big", "")), 20000)


# ---- locks ------------------------------------------------------------------------

def hashdump_parse(data):
    """{key: value} of a hash dump (K len / key / V len / value ... END)."""
    out, lines, i = {}, data.split(b"\n"), 0
    while i < len(lines) and lines[i] != b"END":
        klen = int(lines[i][2:])
        key = b"\n".join(lines[i + 1:])[:klen]
        i += 1 + key.count(b"\n") + 1
        vlen = int(lines[i][2:])
        val = b"\n".join(lines[i + 1:])[:vlen]
        i += 1 + val.count(b"\n") + 1
        out[key.decode()] = val
    return out


def lock_files(repo):
    """{digest path: {key: value}} of db/locks, with the per-lock random
    and time fields blanked."""
    out = {}
    base = os.path.join(repo, "db", "locks")
    for root, _, files in os.walk(base):
        for n in files:
            p = os.path.join(root, n)
            h = hashdump_parse(read(p))
            for k in ("token", "creation_date"):
                if k in h:
                    h[k] = b"*"
            if "children" in h:
                h["children"] = b"\n".join(sorted(h["children"].split(b"\n")))
            out[os.path.relpath(p, base)] = (h, oct(os.stat(p).st_mode))
    return out


def lslocks_sorted(text):
    """svnadmin lslocks output with its entries (each starting with a
    "Path: " line) sorted: they come in hash order."""
    entries = re.split(rb"(?m)^(?=Path: )", text)
    return b"".join([entries[0]] + sorted(e.rstrip(b"\n") + b"\n" for e in entries[1:]))


def lock_session(runner, name):
    """A scripted lock session through RUNNER on a new stock-made
    repository; returns (repo, normalised transcript)."""
    d, wc = S.path("lk-" + name), S.path("lk-%s-wc" % name)
    T.stock_ok("svnadmin", "create", d)
    T.stock_ok("svn", "co", "-q", T.url(d), wc)
    os.makedirs(os.path.join(wc, "a", "b"))
    for p, c in (("a/f", b"1\n"), ("a/b/g", b"2\n"), ("top", b"3\n"), ("gone", b"4\n")):
        write(os.path.join(wc, p), c)
    T.stock_ok("svn", "add", "-q", os.path.join(wc, "a"), os.path.join(wc, "top"),
               os.path.join(wc, "gone"))
    T.stock_ok("svn", "ci", "-q", "-m", "init", wc)
    # r2 deletes /gone; the working copy still has it at r1.
    T.stock_ok("svnmucc", "-m", "rm", "rm", T.url(d, "gone"))
    uuid = T.stock_ok("svnlook", "uuid", d).stdout.strip()
    comment = S.path("lk-comment")
    write(comment, b"admin lock comment\n")
    w = lambda p: os.path.join(wc, p)   # noqa: E731
    steps = [
        ["svn", "lock", "-q", "-m", "file f", w("a/f")],
        ["svn", "lock", "-q", w("a/b/g")],
        ["svn", "lock", "-q", "-m", "multi\nline", w("top")],
        ["svn", "lock", T.url(d, "a/f")],
        ["svn", "lock", T.url(d, "a")],
        ["svn", "lock", T.url(d, "nope")],
        ["svn", "lock", w("gone")],
        ["svnadmin", "lslocks", d],
        ["svn", "unlock", "-q", w("a/f")],
        ["svn", "unlock", "--username", "alice", w("a/b/g")],
        ["svn", "unlock", "--force", T.url(d, "a/b")],
        ["svn", "lock", "--username", "other", "--force", T.url(d, "top")],
        ["svn", "info", T.url(d, "top")],
        ["svnadmin", "rmlocks", d, "/a/b/g"],
        ["svnadmin", "lock", d, "/a/f", "admin", comment, "opaquelocktoken:fsfs7-test"],
        ["svnadmin", "lock", d, "/a/f", "admin2", comment],
        ["svnadmin", "lslocks", d, "/a"],
        ["svnadmin", "unlock", d, "/a/f", "admin", "opaquelocktoken:wrong"],
        ["svnadmin", "unlock", d, "/a/f", "admin", "opaquelocktoken:fsfs7-test"],
        ["svnadmin", "lslocks", d],
    ]
    out = []
    for s in steps:
        p = runner(*s)
        text = p.stdout + b"".join(re.findall(rb"[EW]\d{6}[^\n]*\n?", p.stderr))
        text = b"\n".join(l for l in text.split(b"\n")
                          if not re.search(rb"Created|Token|Lock Created|Date", l)
                          and not l.startswith(b"Last Changed"))
        text = text.replace(uuid, b"UUID").replace(d.encode(), b"REPO").replace(wc.encode(), b"WC")
        if s[1] == "lslocks":
            text = lslocks_sorted(text)
        out.append((" ".join(s[:2]), p.returncode, text))
    return d, out


class Locks(unittest.TestCase):
    def test_admin_lock_session(self):
        """The same lock session through stock and through ours: outputs,
        exit statuses and db/locks (but for tokens and dates) equal."""
        ref, a = lock_session(T.stock, "stock")
        mine, b = lock_session(T.ours, "ours")
        for x, y in zip(a, b):
            self.assertEqual(y, x, "step %s" % x[0])
        self.assertEqual(lock_files(mine), lock_files(ref), "db/locks differ")
        self.assertTrue(lock_files(mine), "no locks left to compare")

    def test_admin_locks_cross_read(self):
        """Each module reads, lists, breaks and removes the other's locks."""
        def base(tag):
            d = S.path("lkx-" + tag)
            T.stock_ok("svnadmin", "create", d)
            T.stock_ok("svnmucc", "-m", "files", "mkdir", T.url(d, "x"),
                       "put", "/dev/null", T.url(d, "x/y"), "put", "/dev/null", T.url(d, "z"))
            return d
        for maker, reader, tag in ((T.stock, T.ours, "by-stock"), (T.ours, T.stock, "by-ours")):
            with self.subTest(locks=tag):
                d = base(tag)
                for path, msg in (("x/y", "deep"), ("z", "top"), ("x", "a directory")):
                    maker("svn", "lock", "-q", "-m", msg, T.url(d, path))
                listed = [r("svnadmin", "lslocks", d) for r in (T.stock, T.ours)]
                for p in listed:
                    p.stdout = lslocks_sorted(p.stdout)
                same_result(self, listed[0], listed[1], "lslocks of locks made " + tag)
                self.assertEqual(listed[0].stdout.count(b"Path: "), 2)
                p = reader("svn", "unlock", "-q", "--force", T.url(d, "z"))
                self.assertEqual(p.returncode, 0, T.describe(p))
                p = reader("svnadmin", "rmlocks", d, "/x/y")
                self.assertEqual(p.returncode, 0, T.describe(p))
                self.assertEqual(p.stdout, b"Removed lock on '/x/y'.\n")
                left = [os.path.join(r, f) for r, _, fs in os.walk(os.path.join(d, "db", "locks"))
                        for f in fs]
                self.assertEqual(left, [], "digest files left behind")
                p = maker("svnadmin", "lslocks", d)
                self.assertEqual((p.returncode, p.stdout), (0, b""), T.describe(p))


class LockGoneFromHead(unittest.TestCase):
    def test_admin_lock_path_gone_from_head(self):
        """Locking a file deleted in HEAD (upstream lock_tests 37): from a
        working copy that still has it (the client names its revision)
        the warning is out-of-date (W160042), through a URL not-found
        (W160013)."""
        def run(runner, tag):
            d, wc = S.path("lkg-" + tag), S.path("lkg-%s-wc" % tag)
            T.stock_ok("svnadmin", "create", d)
            T.stock_ok("svnmucc", "-m", "files", "put", "/dev/null", T.url(d, "f"),
                       "put", "/dev/null", T.url(d, "g"))
            T.stock_ok("svn", "co", "-q", T.url(d), wc)
            T.stock_ok("svn", "rm", "-q", "-m", "gone", T.url(d, "f"))
            got = []
            for target in (os.path.join(wc, "f"), T.url(d, "f"), T.url(d, "nope")):
                p = runner("svn", "lock", target)
                got.append((p.returncode, re.findall(rb"\b[EW]\d{6}\b", p.stderr)))
            return got
        a, b = run(T.stock, "stock"), run(T.ours, "ours")
        self.assertEqual(a[0][1][:1], [b"W160042"], "stock's own answer changed: %r" % a)
        self.assertEqual(b, a)


# ---- build-repcache -----------------------------------------------------------

def check_build_repcache(tc, ds, v):
    """rep-cache.db removed, then rebuilt by stock and by ours: the same
    output and rows, equal to the rows the commits had made; a range
    only adds the rows of reps stored inside it."""
    orig = rep_cache_rows(REPOS[ds, v])
    tc.assertTrue(orig, "reference repository has no rep-cache rows")
    youngest = int(T.stock_ok("svnlook", "youngest", REPOS[ds, v]).stdout)
    mid = youngest // 2
    for args, what in (([], "all"), (["-r", "%d:%d" % (mid, youngest)], "a range"),
                       (["-r", "0"], "r0 only")):
        ref, mine = fresh(ds, v, "brc-stock"), fresh(ds, v, "brc-ours")
        for r in (ref, mine):
            os.remove(os.path.join(r, "db", "rep-cache.db"))
        a = T.stock("svnadmin", "build-repcache", *args, ref)
        b = T.ours("svnadmin", "build-repcache", *args, mine)
        if a.returncode != 0:
            raise T.SetupError("stock build-repcache: " + T.describe(a))
        same_result(tc, a, b, "build-repcache %s" % what)
        rows = rep_cache_rows(mine)
        tc.assertEqual(rows, rep_cache_rows(ref), "rows of build-repcache %s" % what)
        if not args:
            tc.assertEqual(rows, orig, "rows of build-repcache differ from the commits'")
        elif what == "a range":
            tc.assertTrue(rows and min(r[1] for r in rows) >= mid, "rows before the range")
        T.remove_tree(ref)
        T.remove_tree(mine)


class BuildRepcache(unittest.TestCase):
    def test_admin_build_repcache_refusals(self):
        """Rep-sharing disabled: svnadmin's warning (from the ioctl's
        SVN_ERR_FS_REP_SHARING_NOT_ALLOWED), nothing written; revisions
        past HEAD: svnadmin's own error."""
        for name, args in (("off", []), ("past", ["-r", "5"])):
            outs = []
            for runner, tag in ((T.stock, "stock"), (T.ours, "ours")):
                d = S.path("brc-%s-%s" % (name, tag))
                T.stock_ok("svnadmin", "create", d)
                if name == "off":
                    conf = os.path.join(d, "db", "fsfs.conf")
                    write(conf, read(conf) + b"\n[rep-sharing]\nenable-rep-sharing = false\n")
                p = runner("svnadmin", "build-repcache", *args, d)
                outs.append((p, os.path.exists(os.path.join(d, "db", "rep-cache.db"))))
            same_result(self, outs[0][0], outs[1][0], "build-repcache " + name)
            self.assertEqual(outs[1][0].stderr, outs[0][0].stderr)
            self.assertEqual(outs[1][1], outs[0][1], "rep-cache.db created? (%s)" % name)


# ---- test registration ------------------------------------------------------------

def _add(cls, name, fn, ds, v, quick):
    """Register test NAME running FN on (DS, V); only QUICK ones run
    outside FSFS7_SLOW (the others repeat a behaviour on another shape)."""
    def test(self):
        fn(self, ds, v)
    setattr(cls, name, test if quick else slow(test))


# Quick representatives: full hotcopy of physical format 6, packed logical
# format 8 and (maven) an upgraded format 8; incremental hotcopy with a
# revprop change inside a packed shard (test_admin_hotcopy_small_shards_
# incremental covers unpacked ones); recover unpacked (incl. lost revprops)
# and packed; upgrade from 6, from packed 7, and the no-op on format 8.
for _v in T.VARIANTS:
    _add(Hotcopy, "test_admin_hotcopy_gen_%s" % _v, check_hotcopy, "gen", _v,
         _v in ("f6", "f8p"))
    _add(Hotcopy, "test_admin_hotcopy_incremental_gen_%s" % _v,
         check_hotcopy_incremental, "gen", _v, _v == "f7p")
    _add(Recover, "test_admin_recover_gen_%s" % _v, check_recover, "gen", _v,
         _v in ("f6", "f8p"))
for _v in ("f6", "f6p", "f7", "f7p", "f8"):
    _add(Upgrade, "test_admin_upgrade_gen_%s" % _v, check_upgrade, "gen", _v,
         _v in ("f6", "f7p", "f8"))
for _v in T.VARIANTS:
    _add(BuildRepcache, "test_admin_build_repcache_gen_%s" % _v, check_build_repcache,
         "gen", _v, _v in ("f6", "f8p"))
if MAVEN:
    for _v in ("f6", "f7p", "f8u"):
        _add(Hotcopy, "test_admin_hotcopy_maven_%s" % _v, check_hotcopy, "maven", _v,
             _v == "f8u")
    _add(Upgrade, "test_admin_upgrade_maven_f6p", check_upgrade, "maven", "f6p", False)
    _add(Recover, "test_admin_recover_maven_f7p", check_recover, "maven", "f7p", False)
    _add(BuildRepcache, "test_admin_build_repcache_maven_f8", check_build_repcache,
         "maven", "f8", False)
else:
    def test_admin_maven_dataset(self):
        self.skipTest("maven-small.svndump.gz not found (looked in $FSFS7_DATA, %s)"
                      % ", ".join(LOOKED))
    Hotcopy.test_admin_maven_dataset = test_admin_maven_dataset


if __name__ == "__main__":
    try:
        T.main("admin", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
