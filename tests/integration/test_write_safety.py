#!/usr/bin/env python3
"""Integration tests: where a commit puts its files, and what a crash or
a second file system leaves (issue 30, defects 2 and 4).

- Crash + recover: a load of three revisions through our module is
  killed (tools/torture/fault.so) at every file-system call that touches
  a revision-properties file (`revprops/...`; in check-slow also the
  transaction's `props` and `props-final`); our `svnadmin recover` runs; then every revision
  that exists must carry exactly the revision properties it was loaded
  with, stock `svnadmin verify` passes, the rest of the dump loads on top
  and the repository dumps byte-identical to the reference.  The defect
  this pins: a recycled file of an earlier transaction was renamed to
  `revprops/0/3` before r3's bytes were written into it, so a kill there
  followed by recover gave r3 the log message of r2, and verify passed.
- A new shard directory's name is synced (its parent directory) before a
  revision moves into it; a lock and an unlock sync the lock directories
  they change; rep-cache.db is synced by SQLite.
- Another file system: `db/revs`, then `db/txn-protorevs` and
  `db/transactions`, are symlinks to a directory on /dev/shm (tmpfs) while
  the repository lies under /tmp; loads, commits, pack, setlog and
  recover through our module work (a rename across file systems fails
  with EXDEV: the module copies and syncs instead), stock verifies and the
  dump equals the reference.
"""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

FAULT_SO = os.environ.get("FAULT_SO") or os.path.join(
    T.TOP_BUILDDIR, "tools", "torture", "fault.so")
WORK = None
# The calls swept: on revprops files only (~12), or in check-slow also on
# the transaction's props and props-final files (~60).
KILL_MATCH = "props" if T.SLOW else "revprops/"
REF = {}          # "repo", "dump", "props": {rev: bytes}
LOGS = [b"first: add the tree", b"second: change a file",
        b"third: a longer message for the third revision\n" * 3]


def setup():
    global WORK
    if not os.path.exists(FAULT_SO):
        raise T.SetupError("no interposer at %s" % FAULT_SO)
    WORK = tempfile.mkdtemp(prefix="fsfs7-wsafe-")
    repo = os.path.join(WORK, "ref")
    T.stock_ok("svnadmin", "create", "--compatible-version", "1.9", repo)
    src = os.path.join(WORK, "src")
    os.makedirs(os.path.join(src, "trunk", "sub"))
    for i in range(4):
        with open(os.path.join(src, "trunk", "sub", "f%d" % i), "w") as f:
            f.write("file %d\n" % i * (i + 1))
    T.stock_ok("svn", "import", "-q", "-m", LOGS[0].decode(),
               src, "file://" + repo + "/proj")
    T.stock_ok("svnmucc", "-U", "file://" + repo, "-m", LOGS[1].decode(),
               "put", "/etc/hostname", "proj/trunk/sub/f1",
               "propset", "color", "blue", "proj/trunk")
    T.stock_ok("svnmucc", "-U", "file://" + repo, "-m", LOGS[2].decode(),
               "mkdir", "proj/branches", "cp", "2", "proj/trunk",
               "proj/branches/b1")
    REF["repo"] = repo
    REF["dump"] = T.stock_ok("svnadmin", "dump", "-q", repo).stdout
    # r0 carries only svn:date, which a load killed before r1 leaves at
    # the creation time: the checks after a kill compare from r1 on.
    REF["dump1"] = T.stock_ok("svnadmin", "dump", "-q", "-r1:3",
                              repo).stdout
    REF["props"] = {r: revprops(repo, r, ours=False) for r in range(4)}


def revprops(repo, rev, ours=True):
    """Every revision property of REV, names and values, as one text."""
    p = T.run(["svn", "proplist", "--revprop", "-v", "--xml", "-r", str(rev),
               "file://" + repo], ours=ours)
    if p.returncode != 0:
        return b"ERROR " + p.stderr
    return p.stdout


def youngest(repo):
    p = T.ours("svnlook", "youngest", repo)
    return int(p.stdout) if p.returncode == 0 else None


def fresh_repo(name):
    repo = os.path.join(WORK, name)
    T.remove_tree(repo)
    T.stock_ok("svnadmin", "create", "--compatible-version", "1.9", repo)
    return repo


def load_env(mode, n=None):
    env = T.ours_env()
    env["LD_LIBRARY_PATH"] = T.MODULE_DIR
    env["LD_PRELOAD"] = FAULT_SO
    env["FAULT_MODE"] = mode
    env["FAULT_MATCH"] = KILL_MATCH
    env["FAULT_OUT"] = os.path.join(WORK, "fault.out")
    if n is not None:
        env["FAULT_N"] = str(n)
    if os.path.exists(env["FAULT_OUT"]):
        os.remove(env["FAULT_OUT"])
    return env


def counted_calls():
    total = 0
    with open(os.path.join(WORK, "fault.out")) as f:
        for line in f:
            if line.startswith("count "):
                total = max(total, int(line.split()[1]))
    return total


class CrashRecover(unittest.TestCase):
    def check_state(self, repo, where):
        """After recover: revisions 1..youngest are exactly the loaded
        ones, stock verifies, the rest loads and the dump is the
        reference's."""
        y = youngest(repo)
        self.assertIsNotNone(y, "%s: svnlook youngest failed" % where)
        for r in range(1, y + 1):
            self.assertEqual(revprops(repo, r), REF["props"][r],
                             "%s: r%d has other revision properties" % (where, r))
        p = T.stock("svnadmin", "verify", "-q", repo)
        self.assertEqual(p.returncode, 0, "%s: stock verify: %s"
                         % (where, T.describe(p)))
        if y < 3:
            rest = T.stock_ok("svnadmin", "dump", "-q", "--incremental",
                              "-r", "%d:3" % (y + 1), REF["repo"]).stdout
            p = T.ours("svnadmin", "load", "-q", repo, input=rest)
            self.assertEqual(p.returncode, 0, "%s: load of the rest: %s"
                             % (where, T.describe(p)))
        p = T.stock("svnadmin", "dump", "-q", "-r1:3", repo)
        self.assertEqual(p.stdout, REF["dump1"], "%s: dump differs" % where)

    def test_write_safety_kill_at_revprops_then_recover(self):
        repo = fresh_repo("count")
        p = T.run(["svnadmin", "load", "-q", repo], input=REF["dump"],
                  env=load_env("count"))
        self.assertEqual(p.returncode, 0, T.describe(p))
        total = counted_calls()
        self.assertGreater(total, 6 if T.SLOW else 3,
                           "the interposer counted too few calls")
        for n in range(1, total + 1):
            repo = fresh_repo("kill")
            p = T.run(["svnadmin", "load", "-q", repo], input=REF["dump"],
                      env=load_env("kill", n))
            with open(os.path.join(WORK, "fault.out")) as f:
                hit = [l.strip() for l in f if l.startswith("hit ")]
            where = "kill at %d/%d %s" % (n, total, hit[0] if hit else "-")
            T.log(where)
            p = T.ours("svnadmin", "recover", repo)
            self.assertEqual(p.returncode, 0, "%s: recover: %s"
                             % (where, T.describe(p)))
            self.check_state(repo, where)


def traced(args, repo, input=None):
    """Run ARGS through our module with fault.so tracing every counted
    call; the calls as (name, real path of the argument) pairs."""
    env = load_env("count")
    del env["FAULT_MATCH"]
    env["FAULT_TRACE"] = "1"
    p = T.run(args, input=input, env=env)
    if p.returncode != 0:
        raise AssertionError("%s: %s" % (args[:2], T.describe(p)))
    calls = []
    with open(env["FAULT_OUT"]) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 3)
            if parts[0] != "call" or len(parts) < 4:
                continue
            # "FROM -> TO" for renames and links: the name given is TO.
            arg = parts[3].rsplit(" -> ", 1)[-1]
            calls.append((parts[2], os.path.realpath(arg)))
    return calls


class NewShard(unittest.TestCase):
    def test_write_safety_new_shard_dir_synced(self):
        """A commit that starts a shard makes revs/<S> and revprops/<S>;
        their names live in db/revs and db/revprops, which must be synced
        before the revision moves into them (else a power cut after the
        commit reported success can drop the shard with the revision)."""
        repo = fresh_repo("shard")
        with open(os.path.join(repo, "db", "format"), "r+") as f:
            text = f.read().replace("layout sharded 1000", "layout sharded 2")
            f.seek(0)
            f.write(text)
            f.truncate()
        calls = traced(["svnadmin", "load", "-q", repo], repo,
                       input=REF["dump"])
        real = os.path.realpath(repo)
        for kind in ("revs", "revprops"):
            parent = os.path.join(real, "db", kind)
            moved = [i for i, (name, arg) in enumerate(calls)
                     if name.startswith("rename")
                     and arg == os.path.join(parent, "1", "2")]
            self.assertTrue(moved, "no rename into %s/1/2 seen" % kind)
            synced = [i for i, (name, arg) in enumerate(calls[:moved[0]])
                      if name in ("fsync", "fdatasync") and arg == parent]
            self.assertTrue(synced, "db/%s not synced before r2 moved into "
                            "its new shard" % kind)


class Durable(unittest.TestCase):
    """What an operation reports done survives a power cut: the directory
    entries it changed are synced before it returns (doc/powercut.md)."""

    def test_write_safety_lock_and_unlock_synced(self):
        repo = fresh_repo("locks")
        p = T.ours("svnadmin", "load", "-q", repo, input=REF["dump"])
        self.assertEqual(p.returncode, 0, T.describe(p))
        url = "file://" + repo + "/proj/trunk/sub/f1"
        for verb in ("lock", "unlock"):
            calls = traced(["svn", verb, "-q", url], repo)
            changes = [(i, os.path.dirname(arg))
                       for i, (name, arg) in enumerate(calls)
                       if name.startswith(("rename", "unlink"))
                       and "/db/locks/" in arg]
            self.assertTrue(changes, "%s changed no digest file" % verb)
            unsynced = {d for i, d in changes
                        if ("fsync", d) not in calls[i + 1:]}
            self.assertEqual(unsynced, set(),
                             "svn %s left these lock directories unsynced "
                             "after changing them" % verb)

    def test_write_safety_rep_cache_synced(self):
        """A commit's rep-cache.db rows are written with SQLite syncing
        its journal and database: without any sync a power cut can leave
        a database that is "not a database" and blocks every commit."""
        repo = fresh_repo("repcache")
        calls = traced(["svnadmin", "load", "-q", repo], repo,
                       input=REF["dump"])
        db = os.path.join(os.path.realpath(repo), "db", "rep-cache.db")
        synced = {a for n, a in calls if n in ("fsync", "fdatasync")}
        self.assertIn(db, synced, "rep-cache.db never synced during a load")

    def test_write_safety_no_flush_load_syncs_nothing(self):
        """`svnadmin load --no-flush-to-disk` waives every sync, as with
        stock: no fsync or fdatasync of revision files, revision
        properties, db/txn-current, db/uuid or rep-cache.db (a load of a
        long history was making two per revision).  The same load without
        the option syncs them and their directories; both repositories verify with
        stock and dump as the reference."""
        for waived in (True, False):
            repo = fresh_repo("noflush-%s" % waived)
            argv = ["svnadmin", "load", "-q"]
            argv += ["--no-flush-to-disk"] if waived else []
            calls = traced(argv + [repo], repo, input=REF["dump"])
            synced = sorted({a for n, a in calls
                             if n in ("fsync", "fdatasync")})
            if waived:
                self.assertEqual(synced, [], "synced despite the option")
            else:
                # (files are synced under their temporary names, then
                # the directories that received them)
                real = os.path.realpath(repo)
                for want in ("db", "db/revs/0", "db/revprops/0",
                             "db/rep-cache.db"):
                    self.assertIn(os.path.join(real, want), synced)
                self.assertTrue([a for a in synced
                                 if os.path.dirname(a) == real + "/db"
                                 and "/svn-" in a],
                                "no temp file of db/ synced: %s" % synced)
            T.stock_ok("svnadmin", "verify", "-q", repo)
            self.assertEqual(T.stock_ok("svnadmin", "dump", "-q",
                                        repo).stdout, REF["dump"])


def other_fs_dir(name):
    """A fresh directory on a file system other than WORK's, or None."""
    base = "/dev/shm"
    if not os.path.isdir(base) or not os.access(base, os.W_OK):
        return None
    if os.stat(base).st_dev == os.stat(WORK).st_dev:
        return None
    path = tempfile.mkdtemp(prefix="fsfs7-xdev-%s-" % name, dir=base)
    return path


def move_to(repo, sub, target):
    """Replace REPO/db/SUB by a symlink to TARGET holding its entries."""
    src = os.path.join(repo, "db", sub)
    for e in os.listdir(src):
        shutil.move(os.path.join(src, e), os.path.join(target, e))
    os.rmdir(src)
    os.symlink(target, src)


class OtherFileSystem(unittest.TestCase):
    def setUp(self):
        self.dirs = []

    def tearDown(self):
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)

    def elsewhere(self, name):
        d = other_fs_dir(name)
        if d is None:
            # No second file system here: the test cannot say anything.
            if os.environ.get("CI") == "true":
                self.fail("/dev/shm is not a separate writable file system")
            self.skipTest("/dev/shm is not a separate writable file system")
        self.dirs.append(d)
        return d

    def exercise(self, repo, where):
        with open(os.path.join(repo, "db", "format"), "r+") as f:
            text = f.read().replace("layout sharded 1000", "layout sharded 2")
            f.seek(0)
            f.write(text)
            f.truncate()
        p = T.ours("svnadmin", "load", "-q", repo, input=REF["dump"])
        self.assertEqual(p.returncode, 0, "%s: load: %s" % (where, T.describe(p)))
        p = T.stock("svnadmin", "verify", "-q", repo)
        self.assertEqual(p.returncode, 0, "%s: verify: %s" % (where, T.describe(p)))
        self.assertEqual(T.stock("svnadmin", "dump", "-q", repo).stdout,
                         REF["dump"], "%s: dump differs" % where)
        for args in (["svnmucc", "-U", "file://" + repo, "-m", "more",
                      "put", "/etc/hostname", "proj/trunk/new"],
                     ["svnadmin", "pack", "-q", repo],
                     ["svnmucc", "-U", "file://" + repo, "-m", "after pack",
                      "rm", "proj/trunk/new"],
                     ["svnadmin", "setlog", "--bypass-hooks", "-r", "1", repo,
                      "/etc/hostname"],
                     ["svnadmin", "recover", repo]):
            p = T.ours(*args)
            self.assertEqual(p.returncode, 0, "%s: %s: %s"
                             % (where, args[:2], T.describe(p)))
        p = T.stock("svnadmin", "verify", "-q", repo)
        self.assertEqual(p.returncode, 0, "%s: verify at the end: %s"
                         % (where, T.describe(p)))
        self.assertEqual(youngest(repo), 5)

    def test_write_safety_revs_on_another_fs(self):
        repo = fresh_repo("xdev-revs")
        move_to(repo, "revs", self.elsewhere("revs"))
        self.exercise(repo, "db/revs elsewhere")

    def test_write_safety_transactions_on_another_fs(self):
        repo = fresh_repo("xdev-txns")
        move_to(repo, "txn-protorevs", self.elsewhere("protorevs"))
        move_to(repo, "transactions", self.elsewhere("txns"))
        self.exercise(repo, "transactions elsewhere")


if __name__ == "__main__":
    try:
        T.main("write safety", setup, sys.modules[__name__])
    finally:
        if WORK:
            shutil.rmtree(WORK, ignore_errors=True)
