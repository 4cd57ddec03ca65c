#!/usr/bin/env python3
"""campaign.py: crash-point and I/O-error campaigns for an FSFS module.

    campaign.py crash  [--op OP ...] [--module fsfs7|stock|both] [options]
    campaign.py errors [--op OP ...] [--module fsfs7|stock|both] [options]
    campaign.py count  [--op OP ...] [--module ...]     # calls per operation
    campaign.py summary TSV...                          # markdown figures
    campaign.py concurrency [options]       # = concurrency.py (servers)

Each operation is run once per point with tools/torture/fault.so preloaded
(see fault.c): `crash` SIGKILLs the process at the Nth file-system call
made from the FSFS module, `errors` fails the Nth call with ENOSPC, EIO or
EDQUOT (rotating with N).  N sweeps 1..total (the count of an uninjected
run) or, when the operation makes more calls than --points, a seeded sample
of --points values.  After every point the repository is checked with the
STOCK binaries and module (the oracle):

  crash:  stock `svnadmin verify` passes; every revision acknowledged before
          the kill is present with its content unchanged (dump compared
          with a reference dump); the repository accepts a next commit and
          re-running the operation completes (both with the module tested).
  errors: the operation fails with an svn error (E######) naming a file,
          and the repository is as before (verify passes, dump unchanged,
          a txn left behind can be removed with `svnadmin rmtxns`) -- or,
          if the operation reports success, its whole effect is there.
  both:   on a copy of what the point left, `svnadmin recover` (the module
          tested), stock verify, every revision's revprops and content
          compared with what was committed, and a further commit that must
          get exactly its own revprops; the files a cut commit leaves
          above db/current are held to doc/format/commit.md (COMMIT-4/5).
          --no-recover leaves these out.

Operations: commit-file, commit-svnserve (svnmucc change sets with adds,
edits, copies and properties, over file:// and through `svnserve -t`),
load (a short generated dump into an empty repository), load3 (issue 30's
three revisions: r3's revprops go through a recycled spare file),
revprop-packed (`svnadmin setrevprop` on a packed shard, packed with stock
first), revprop-packed-own (the same on a shard packed by the module
tested), setlog (`svnadmin setlog`, unpacked), propset-revprop (`svn
propset --revprop` over file:// through a hook), hotcopy-incr (`svnadmin
hotcopy --incremental`), hotcopy (into a new directory), recover, pack,
upgrade (format 4 with packed shards to the newest).  An operation that
the module cannot run uninjected is reported UNAVAILABLE.

Every point writes a TSV row (--tsv); the figures per module and operation
are printed at the end.  Runs are bounded by --points and --seconds (per
operation and module).  Only the Python 3 standard library is used.
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
STOCK_LIBDIR = "/usr/lib/x86_64-linux-gnu"
OPS = ("commit-file", "commit-svnserve", "load", "load3", "revprop-packed",
       "revprop-packed-own", "setlog", "propset-revprop", "hotcopy-incr",
       "hotcopy", "recover", "pack", "upgrade")
ERRNOS = ("enospc", "eio", "edquot")
DATE_RE = re.compile(rb"(K 8\nsvn:date\nV 27\n)[^\n]{27}\n")


# ---- processes -------------------------------------------------------------

def base_env():
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("FAULT_") or k in ("LD_PRELOAD", "TORT_PRELOAD"):
            del env[k]
    env["LC_ALL"] = "C"
    return env


def stock_env():
    """The oracle: the stock module, whatever the caller's environment."""
    env = base_env()
    env.pop("LD_LIBRARY_PATH", None)
    return env


def module_env(moddir):
    env = stock_env()
    if moddir:
        env["LD_LIBRARY_PATH"] = moddir
    return env


def run(argv, env, stdin=None, timeout=300):
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
        p = subprocess.run(argv, env=env, stdin=inp, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def must(argv, env, stdin=None):
    rc, out, err = run(argv, env, stdin)
    if rc != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(argv), rc,
                                                   err.decode(errors="replace")))
    return out


def youngest(repo):
    return int(must(["svnlook", "youngest", repo], stock_env()).strip())


def dump_revs(repo):
    """Stock dump of REPO as {rev: bytes of that revision's section}."""
    data = must(["svnadmin", "dump", "-q", repo], stock_env())
    parts = re.split(rb"(?m)^(?=Revision-number: )", data)
    revs = {}
    for part in parts[1:]:
        m = re.match(rb"Revision-number: (\d+)\n", part)
        revs[int(m.group(1))] = part
    return revs


def mask_dates(b):
    return DATE_RE.sub(rb"\1" + b"D" * 27 + b"\n", b)


def split_section(sec):
    """A dump's revision section as (revprops dict, the rest: its node
    records).  Values are bytes; a section without a property block has
    no revprops."""
    head, _, body = sec.partition(b"\n\n")
    m = re.search(rb"(?m)^Prop-content-length: (\d+)$", head)
    if not m:
        return {}, body
    block, rest = body[:int(m.group(1))], body[int(m.group(1)):]
    props, i = {}, 0
    while not block.startswith(b"PROPS-END\n", i):
        kl = re.match(rb"K (\d+)\n", block[i:])
        if not kl:
            raise ValueError("malformed revprops in the dump")
        i += kl.end()
        key = block[i:i + int(kl.group(1))]
        i += int(kl.group(1)) + 1
        vl = re.match(rb"V (\d+)\n", block[i:])
        i += vl.end()
        props[key.decode()] = block[i:i + int(vl.group(1))]
        i += int(vl.group(1)) + 1
    return props, rest


def parse_date(value):
    """svn:date ("2026-11-24T20:30:01.123456Z") as seconds since the epoch."""
    import calendar
    t = time.strptime(value.decode()[:19], "%Y-%m-%dT%H:%M:%S")
    return calendar.timegm(t) + float("0" + value.decode()[19:-1])


def short(b):
    t = b.decode(errors="replace") if isinstance(b, bytes) else str(b)
    return repr(t if len(t) <= 40 else t[:37] + "...")


def compare_rev(r, got, want, window=None):
    """None if revision R's dump section GOT is the committed WANT, else
    what differs: each revprop by name (svn:log, svn:author, ... -- an
    interrupted commit's revision may be absent, never present with other
    revprops), or its content.  WINDOW (t0, t1): svn:date was set by the
    commit, so it must fall in that time span rather than equal WANT's."""
    gp, grest = split_section(got)
    wp, wrest = split_section(want)
    bad = []
    if window:
        d = gp.pop("svn:date", None)
        wp.pop("svn:date", None)
        if d is None:
            bad.append("svn:date missing")
        elif not window[0] - 2 <= parse_date(d) <= window[1] + 2:
            bad.append("svn:date %s outside the commit's run" % short(d))
    for k in sorted(set(gp) | set(wp)):
        if gp.get(k) != wp.get(k):
            bad.append("%s %s, committed %s" % (
                k, short(gp[k]) if k in gp else "missing",
                short(wp[k]) if k in wp else "none"))
    if not bad and grest != wrest:
        bad.append("content differs from the committed revision")
    return ("r%d: " % r + "; ".join(bad)) if bad else None


def orphans(repo):
    """Revision and revprops files above db/current's revision (a commit
    cut short between COMMIT-4 and COMMIT-6 leaves them), as paths
    relative to db/."""
    db = os.path.join(repo, "db")
    try:
        with open(os.path.join(db, "current")) as f:
            y = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    found = []
    for kind in ("revs", "revprops"):
        top = os.path.join(db, kind)
        for dirpath, _, files in os.walk(top):
            for name in files:
                if name.isdigit() and int(name) > y:
                    found.append(os.path.relpath(os.path.join(dirpath, name),
                                                 db))
    return sorted(found)


def new_rev_revprops(repo, want, window):
    """None if the youngest revision of REPO has exactly the revprops
    WANT plus an svn:date inside WINDOW, else what differs."""
    with open(os.path.join(repo, "db", "current")) as f:
        y = int(f.read().split()[0])
    sec = must(["svnadmin", "dump", "-q", "--incremental", "-r", str(y),
                repo], stock_env())
    props, _ = split_section(sec[sec.index(b"Revision-number: "):])
    bad = []
    d = props.pop("svn:date", None)
    if d is None:
        bad.append("svn:date missing")
    elif not window[0] - 2 <= parse_date(d) <= window[1] + 2:
        bad.append("svn:date %s outside the commit's run" % short(d))
    for k in sorted(set(props) | set(want)):
        if props.get(k) != want.get(k):
            bad.append("%s %s, committed %s" % (
                k, short(props[k]) if k in props else "missing",
                short(want[k]) if k in want else "none"))
    return ("new r%d: " % y + "; ".join(bad)) if bad else None


def is_repo(repo):
    """Has REPO what `svnadmin recover` needs to take it for one?"""
    return os.path.isfile(os.path.join(repo, "format")) and \
        os.path.isfile(os.path.join(repo, "db", "current"))


def verify(repo):
    rc, _, err = run(["svnadmin", "verify", "-q", repo], stock_env())
    return rc == 0, err.decode(errors="replace").strip()


def copytree(src, dst):
    subprocess.run(["cp", "-a", src, dst], check=True)


# ---- the operations -------------------------------------------------------

class Op:
    """One operation: a template built once, run per point in a copy of it.

    Subclasses define setup(tpl) and argv(pt, tag); the default checks
    compare the repository at pt/repo with the template's dump (`before`)
    and with the dump after an uninjected run (`after`).  `commits`: the
    operation commits revisions (a crash may cut a commit, commit.md)."""
    name = None
    commits = False
    copies = False

    def __init__(self, work, seed):
        self.work = work
        self.seed = seed
        self.tpl = os.path.join(work, "tpl-" + self.name)
        self.moddir = None      # the module tested (set by the driver)

    def build(self):
        if os.path.isdir(self.tpl):
            shutil.rmtree(self.tpl)
        os.makedirs(self.tpl)
        self.setup(self.tpl)
        self.before = dump_revs(self.repo(self.tpl))

    def repo(self, pt):
        return os.path.join(pt, "repo")

    def gen_dump(self, path, revs):
        must([sys.executable, os.path.join(TOP, "tools", "gen_history.py"),
              "--revs", str(revs), "--seed", str(self.seed), "-o", path],
             stock_env())

    def create(self, repo, shard=None):
        must(["svnadmin", "create", repo], stock_env())
        if shard:
            fmt = os.path.join(repo, "db", "format")
            with open(fmt) as f:
                text = f.read()
            with open(fmt, "w") as f:
                f.write(text.replace("layout sharded 1000",
                                     "layout sharded %d" % shard))

    def op_env(self, moddir, pt):
        return module_env(moddir)

    def reference(self, moddir):
        """Run uninjected under the module: the expected result."""
        pt = os.path.join(self.work, "ref-" + self.name)
        if os.path.isdir(pt):
            shutil.rmtree(pt)
        copytree(self.tpl, pt)
        rc, out, err = run(self.argv(pt, "t0"), self.op_env(moddir, pt),
                           stdin=getattr(self, "dump", None))
        if rc != 0:
            return "operation fails uninjected: " + \
                err.decode(errors="replace").strip()[:300]
        self.after = dump_revs(self.repo(pt))
        shutil.rmtree(pt)
        return None

    def next_commit(self, repo, moddir):
        """A further commit into REPO must succeed and give its new
        revision exactly the revprops it committed (COMMIT-4/5: the
        orphan files a crash leaves are replaced, never adopted)."""
        url = "file://" + repo
        t0 = time.time()
        rc, _, err = run(["svnmucc", "-m", "next", "--username", "torture",
                          "-U", url, "mkdir", "next-commit"],
                         module_env(moddir))
        if rc != 0:
            return False, err.decode(errors="replace").strip()
        bad = new_rev_revprops(repo, {"svn:log": b"next",
                                      "svn:author": b"torture"},
                               (t0, time.time()))
        return bad is None, bad or ""

    def verify_point(self, pt):
        """Stock verify of what the point left: (passes, message)."""
        return verify(self.repo(pt))

    def check_recovered(self, revs, out):
        """After `svnadmin recover`: every revision there before is, and
        each revision is exactly as before or as the operation made it."""
        for r in sorted(self.before):
            if r not in revs:
                return "r%d, there before the operation, is missing" % r
        for r in sorted(revs):
            if revs[r] in (self.before.get(r), self.after.get(r)):
                continue
            want = self.after.get(r, self.before.get(r))
            if want is None:
                return "r%d: neither before nor after the operation" % r
            return compare_rev(r, revs[r], want)
        return None

    def rerun(self, pt, moddir):
        rc, _, err = run(self.argv(pt, "rerun"), self.op_env(moddir, pt))
        return rc == 0, err.decode(errors="replace").strip()

    # The state must be 'before' or 'after' (operations that change
    # nothing visible or all at once).
    def check_state(self, pt, out, succeeded):
        revs = dump_revs(self.repo(pt))
        if succeeded:
            return None if self.same(revs, self.after) else \
                "reported success but the result differs"
        if self.same(revs, self.before):
            return None
        if self.same(revs, self.after):
            return "AFTER"
        return "repository is neither as before nor as after"

    @staticmethod
    def same(a, b, masked=False):
        if sorted(a) != sorted(b):
            return False
        f = mask_dates if masked else (lambda x: x)
        return all(f(a[r]) == f(b[r]) for r in a)


class CommitFile(Op):
    """svnmucc change set: mkdir, adds, an edit, copies, props."""
    name = "commit-file"
    commits = True

    def setup(self, tpl):
        repo = self.repo(tpl)
        self.create(repo)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 4)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)
        tree = must(["svnlook", "tree", "--full-paths", repo, "trunk"],
                    stock_env()).decode().split("\n")
        files = [p for p in tree if p and not p.endswith("/")]
        dirs = [p.rstrip("/") for p in tree if p.endswith("/")
                and p.count("/") >= 2]
        self.edit = files[0]
        self.cpfile = files[-1]
        self.cpdir = dirs[0] if dirs else "trunk"
        must(["svnmucc", "-m", "t", "-U", "file://" + repo, "mkdir", "t"],
             stock_env())
        rnd = random.Random(self.seed)
        for name, size in (("a.txt", 3000), ("b.bin", 20000), ("c.txt", 50)):
            with open(os.path.join(tpl, name), "wb") as f:
                f.write(bytes(rnd.randrange(32, 127) if name != "b.bin"
                              else rnd.randrange(256) for _ in range(size)))

    def url(self, pt):
        return "file://" + self.repo(pt)

    def argv(self, pt, tag):
        t = "t/" + tag
        return ["svnmucc", "-m", "change set " + tag, "-U", self.url(pt),
                "mkdir", t,
                "put", os.path.join(self.tpl, "a.txt"), t + "/a.txt",
                "put", os.path.join(self.tpl, "b.bin"), t + "/b.bin",
                "cp", "HEAD", self.cpdir, t + "/dircopy",
                "cp", "HEAD", self.cpfile, t + "/filecopy",
                "put", os.path.join(self.tpl, "c.txt"), t + "/dircopy/new.txt",
                "put", os.path.join(self.tpl, "c.txt"), self.edit,
                "propset", "svn:eol-style", "native", t + "/a.txt",
                "propset", "custom:prop", "value " + tag, t + "/dircopy",
                "propdel", "svn:mime-type", t + "/b.bin"]

    def check_state(self, pt, out, succeeded):
        revs = dump_revs(self.repo(pt))
        base = max(self.before)
        old = {r: revs[r] for r in revs if r <= base}
        if not self.same(old, self.before):
            return "an acknowledged revision changed or is missing"
        new = sorted(r for r in revs if r > base)
        if not new:
            return "reported success but no new revision" if succeeded \
                else None
        if new != [base + 1] or not self.same({base + 1: revs[base + 1]},
                                              {base + 1: self.after[base + 1]},
                                              masked=True):
            return "the new revision differs from the reference"
        return None if succeeded else "AFTER"

    def check_recovered(self, revs, out):
        base = max(self.before)
        for r in sorted(revs):
            if r <= base:
                bad = compare_rev(r, revs[r], self.before[r]) \
                    if r in self.before else "r%d is new" % r
            elif r == base + 1:
                bad = compare_rev(r, revs[r], self.after[r], self.window)
            else:
                bad = "r%d: more revisions than the operation made" % r
            if bad:
                return bad
        missing = sorted(set(self.before) - set(revs))
        return "r%d is missing" % missing[0] if missing else None

    def rerun(self, pt, moddir):
        """The change set again (a new tag): it must commit, and its
        revision must carry its own revprops, not an orphan's."""
        t0 = time.time()
        ok, err = Op.rerun(self, pt, moddir)
        if not ok:
            return ok, err
        author = split_section(self.after[max(self.before) + 1])[0].get(
            "svn:author")
        bad = new_rev_revprops(self.repo(pt), {
            "svn:log": b"change set rerun", "svn:author": author},
            (t0, time.time()))
        return bad is None, bad or ""


class CommitSvnserve(CommitFile):
    """The same change set through `svnserve -t` (a tunnel to a local
    server process, which is the one the interposer is loaded into)."""
    name = "commit-svnserve"

    def setup(self, tpl):
        CommitFile.setup(self, tpl)
        script = os.path.join(tpl, "tunnel.sh")
        with open(script, "w") as f:
            f.write('#!/bin/sh\nexec env LD_PRELOAD="$TORT_PRELOAD" '
                    'svnserve -t\n')
        os.chmod(script, 0o755)

    def url(self, pt):
        return "svn+tort://localhost" + self.repo(pt)

    def argv(self, pt, tag):
        a = CommitFile.argv(self, pt, tag)
        tun = "config:tunnels:tort=" + os.path.join(self.tpl, "tunnel.sh")
        return a[:1] + ["--config-option", tun] + a[1:]


class Load(Op):
    name = "load"
    commits = True
    REVS = 6

    def setup(self, tpl):
        self.create(self.repo(tpl))
        self.dump = os.path.join(tpl, "h.dump")
        self.gen_dump(self.dump, self.REVS)

    def argv(self, pt, tag):
        if tag == "rerun":
            y = youngest(self.repo(pt))
            return ["svnadmin", "load", "-q", "-r",
                    "%d:%d" % (y + 1, self.REVS), self.repo(pt)]
        return ["svnadmin", "load", self.repo(pt)]

    def split_reference(self, y, moddir):
        """The repository an uninjected load split at Y gives: 'load -r
        0:Y', then the re-run's 'load -r Y+1:REVS'.  That, not the whole
        load, is what a resumed load must match: svnadmin load -r drops
        mergeinfo ranges that name revisions below the range it loads
        (the stock module's result differs from a whole load too)."""
        cache = self.__dict__.setdefault("_split", {})
        if y not in cache:
            pt = os.path.join(self.work, "split-%s-%d" % (self.name, y))
            if os.path.isdir(pt):
                shutil.rmtree(pt)
            copytree(self.tpl, pt)
            repo = self.repo(pt)
            for lo, hi in ((0, y), (y + 1, self.REVS)):
                must(["svnadmin", "load", "-q", "-r", "%d:%d" % (lo, hi),
                      repo], module_env(moddir), stdin=self.dump)
            cache[y] = dump_revs(repo)
            shutil.rmtree(pt)
        return cache[y]

    def rerun(self, pt, moddir):
        y = youngest(self.repo(pt))
        if y >= self.REVS:
            return True, ""
        rc, _, err = run(self.argv(pt, "rerun"), module_env(moddir),
                         stdin=self.dump)
        if rc == 0:
            # Exact, revprops included (the dump gives every svn:date).
            got = dump_revs(self.repo(pt))
            want = self.split_reference(y, moddir)
            if sorted(got) != sorted(want):
                return False, "re-run load gives revisions %s, not %s" % (
                    sorted(got), sorted(want))
            for r in sorted(got):
                # r0 keeps its own revprops when the kill came before the
                # load gave it the dump's ('load -r Y+1:N' does not).
                if r == 0 and got[0] == self.before[0]:
                    continue
                bad = compare_rev(r, got[r], want[r])
                if bad:
                    return False, "re-run load: " + bad
        return rc == 0, err.decode(errors="replace").strip()

    def check_state(self, pt, out, succeeded):
        acked = [int(x) for x in
                 re.findall(rb"Committed revision (\d+) >>>", out)]
        top = max(acked) if acked else 0
        revs = dump_revs(self.repo(pt))
        # r0 is never acknowledged, but the load gives it the dump's
        # revprops (and the repository the dump's UUID) before r1.
        if revs.get(0) not in ((self.after[0],) if top else
                               (self.after[0], self.before[0])):
            return "r0 is neither as before nor as loaded"
        for r in range(1, top + 1):
            if r not in revs or revs[r] != self.after.get(r):
                return "acknowledged r%d missing or changed" % r
        for r in revs:
            if r > top and (r not in self.after or
                            mask_dates(revs[r]) != mask_dates(self.after[r])):
                return "unacknowledged r%d differs from the dump" % r
        if succeeded and top != self.REVS:
            return "reported success but only r%d acknowledged" % top
        # An error part-way leaves the revisions before it: that is the
        # expected result of a failing load, acknowledged ones intact.
        return None

    def check_recovered(self, revs, out):
        """Every acknowledged revision present; every revision present
        exactly as the dump has it (revprops included: a load keeps the
        dump's svn:date)."""
        acked = [int(x) for x in
                 re.findall(rb"Committed revision (\d+) >>>", out)]
        for r in range(1, max(acked, default=0) + 1):
            if r not in revs:
                return "acknowledged r%d is missing" % r
        for r in sorted(revs):
            if r == 0 and revs[0] == self.before[0]:
                continue
            if r not in self.after:
                return "r%d: more revisions than the dump has" % r
            bad = compare_rev(r, revs[r], self.after[r])
            if bad:
                return bad
        return None


class RevpropPacked(Op):
    name = "revprop-packed"

    def setup(self, tpl):
        repo = self.repo(tpl)
        self.create(repo, shard=4)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 9)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)
        must(["svnadmin", "pack", "-q", repo], stock_env())
        with open(os.path.join(tpl, "log.txt"), "w") as f:
            f.write("a new log message for r2, longer than before\n" * 5)

    def argv(self, pt, tag):
        return ["svnadmin", "setrevprop", self.repo(pt), "-r", "2",
                "svn:log", os.path.join(self.tpl, "log.txt")]


class RevpropPackedOwn(RevpropPacked):
    """The same revprop change on a shard packed by the module tested
    (for fsfs7: the revprop pack it wrote itself)."""
    name = "revprop-packed-own"

    def setup(self, tpl):
        repo = self.repo(tpl)
        self.create(repo, shard=4)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 9)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)
        must(["svnadmin", "pack", "-q", repo], module_env(self.moddir))
        with open(os.path.join(tpl, "log.txt"), "w") as f:
            f.write("a new log message for r2, longer than before\n" * 5)


class HotcopyIncr(Op):
    name = "hotcopy-incr"
    copies = True

    def setup(self, tpl):
        src = os.path.join(tpl, "src")
        self.create(src, shard=4)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 9)
        must(["svnadmin", "load", "-q", "-r", "0:3", src], stock_env(),
             stdin=d)
        must(["svnadmin", "hotcopy", src, self.repo(tpl)], stock_env())
        must(["svnadmin", "load", "-q", "-r", "4:9", src], stock_env(),
             stdin=d)
        must(["svnadmin", "pack", "-q", src], stock_env())

    def argv(self, pt, tag):
        return ["svnadmin", "hotcopy", "--incremental",
                os.path.join(pt, "src"), self.repo(pt)]

    def check_state(self, pt, out, succeeded):
        revs = dump_revs(self.repo(pt))
        for r in self.before:
            if revs.get(r) != self.before[r]:
                return "r%d of the destination changed or is missing" % r
        for r in revs:
            if revs[r] != self.after.get(r):
                return "copied r%d differs from the source" % r
        if succeeded and sorted(revs) != sorted(self.after):
            return "reported success but the copy is incomplete"
        return None

    def rerun(self, pt, moddir):
        ok, err = Op.rerun(self, pt, moddir)
        if ok and not self.same(dump_revs(self.repo(pt)), self.after):
            return False, "re-run hotcopy gives a different copy"
        if ok:
            ok, err = verify(self.repo(pt))
            err = "" if ok else "verify fails after the re-run: " + err
        return ok, err


class Recover(Op):
    name = "recover"

    def setup(self, tpl):
        repo = self.repo(tpl)
        self.create(repo, shard=4)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 6)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)
        # Shard 0 packed: recover must find the youngest revision above
        # the packs, through db/min-unpacked-rev.
        must(["svnadmin", "pack", "-q", repo], stock_env())

    def argv(self, pt, tag):
        return ["svnadmin", "recover", self.repo(pt)]


SHARD_PACK = 4


class Pack(Recover):
    name = "pack"

    def setup(self, tpl):
        repo = self.repo(tpl)
        self.create(repo, shard=SHARD_PACK)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 9)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)

    def argv(self, pt, tag):
        return ["svnadmin", "pack", self.repo(pt)]

    @staticmethod
    def packed_state(repo):
        """min-unpacked-rev and the shard entries of revs/ and revprops/."""
        db = os.path.join(repo, "db")
        with open(os.path.join(db, "min-unpacked-rev")) as f:
            mur = f.read().strip()
        return (mur, sorted(os.listdir(os.path.join(db, "revs"))),
                sorted(os.listdir(os.path.join(db, "revprops"))))

    def reference(self, moddir):
        pt = os.path.join(self.work, "ref-" + self.name)
        if os.path.isdir(pt):
            shutil.rmtree(pt)
        copytree(self.tpl, pt)
        rc, _, err = run(self.argv(pt, "t0"), self.op_env(moddir, pt))
        if rc != 0:
            return "operation fails uninjected: " + \
                err.decode(errors="replace").strip()[:300]
        self.after = dump_revs(self.repo(pt))
        self.layout = self.packed_state(self.repo(pt))
        shutil.rmtree(pt)
        return None

    def rerun(self, pt, moddir):
        """A re-run must finish the packing: the same shards packed, no
        unpacked shard directory left, and stock verify passes."""
        ok, err = Op.rerun(self, pt, moddir)
        if ok:
            ok, err = verify(self.repo(pt))
            err = "" if ok else "verify fails after the re-run: " + err
        state = self.packed_state(self.repo(pt))
        if ok and state != self.layout:
            mur, revs, revprops = state
            extra = ["revs/" + x for x in
                     sorted(set(revs) - set(self.layout[1]))] + \
                ["revprops/" + x for x in
                 sorted(set(revprops) - set(self.layout[2]))]
            if mur == self.layout[0] and \
                    set(self.layout[1]) <= set(revs) and \
                    set(self.layout[2]) <= set(revprops) and \
                    all(x.split("/")[1].isdigit() and
                        int(x.split("/")[1]) * SHARD_PACK < int(mur)
                        for x in extra):
                # Directories of shards already packed (below
                # min-unpacked-rev), which no reader looks at: litter.
                return True, "LITTER: re-run pack leaves shard " \
                    "directories %s (min-unpacked-rev %s)" % (
                        ",".join(extra), mur)
            return False, "re-run pack leaves %r, uninjected %r" % (
                state, self.layout)
        return ok, err


class Load3(Load):
    """The load of issue 30: r1 adds a file, r2 four more, r3 copies one.
    r2's transaction leaves more spare files (TXN-14) than r3's needs, so
    r3's revprops file is a recycled spare of r2's transaction."""
    name = "load3"
    REVS = 3

    def setup(self, tpl):
        self.create(self.repo(tpl))
        src = os.path.join(tpl, "src")
        must(["svnadmin", "create", src], stock_env())
        for i in range(1, 6):
            with open(os.path.join(tpl, "f%d" % i), "w") as f:
                f.write("content %d\n" % i)
        url = "file://" + src
        put = lambda i: ["put", os.path.join(tpl, "f%d" % i), "f%d.txt" % i]
        for user, cmds in (("alice", put(1)),
                           ("bob", put(2) + put(3) + put(4) + put(5)),
                           ("carol", ["cp", "2", "f2.txt", "g.txt"])):
            must(["svnmucc", "-U", url, "--username", user, "-m",
                  "log message of %s" % user] + cmds, stock_env())
        self.dump = os.path.join(tpl, "h.dump")
        with open(self.dump, "wb") as f:
            f.write(must(["svnadmin", "dump", "-q", src], stock_env()))
        shutil.rmtree(src)


class Setlog(Op):
    """`svnadmin setlog` of a revision in an unpacked shard (its revprops
    file is replaced)."""
    name = "setlog"

    def setup(self, tpl):
        repo = self.repo(tpl)
        self.create(repo, shard=4)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 6)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)
        with open(os.path.join(tpl, "log.txt"), "w") as f:
            f.write("the log message of r5, set again\n" * 3)

    def argv(self, pt, tag):
        return ["svnadmin", "setlog", "--bypass-hooks", "-r", "5",
                self.repo(pt), os.path.join(self.tpl, "log.txt")]


class PropsetRevprop(Op):
    """`svn propset --revprop` over file:// (a pre-revprop-change hook
    allows it): a new revprop on an unpacked revision, and svn:log of a
    packed one in turn is revprop-packed's."""
    name = "propset-revprop"

    def setup(self, tpl):
        repo = self.repo(tpl)
        self.create(repo, shard=4)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 6)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)
        hook = os.path.join(repo, "hooks", "pre-revprop-change")
        with open(hook, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(hook, 0o755)
        os.makedirs(os.path.join(tpl, "cfg"))

    def argv(self, pt, tag):
        return ["svn", "propset", "--revprop", "-r", "6", "--config-dir",
                os.path.join(self.tpl, "cfg"), "--non-interactive",
                "custom:note", "a note set on r6 " + tag,
                "file://" + self.repo(pt)]


class Hotcopy(Op):
    """`svnadmin hotcopy` into a new directory.  A killed copy may be
    incomplete; whatever of it passes for a repository must hold exactly
    the source's revisions, and a re-run (--incremental onto it, or
    afresh if it has no `format` yet) completes it."""
    name = "hotcopy"
    copies = True

    def setup(self, tpl):
        src = os.path.join(tpl, "src")
        self.create(src, shard=4)
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 9)
        must(["svnadmin", "load", "-q", src], stock_env(), stdin=d)
        must(["svnadmin", "pack", "-q", src], stock_env())
        self.src_before = dump_revs(src)

    def build(self):
        if os.path.isdir(self.tpl):
            shutil.rmtree(self.tpl)
        os.makedirs(self.tpl)
        self.setup(self.tpl)
        self.before = {}            # the copy does not exist yet

    def repo(self, pt):
        return os.path.join(pt, "copy")

    def argv(self, pt, tag):
        if tag == "rerun" and os.path.exists(self.repo(pt)):
            if os.path.isfile(os.path.join(self.repo(pt), "format")):
                return ["svnadmin", "hotcopy", "--incremental",
                        os.path.join(pt, "src"), self.repo(pt)]
            shutil.rmtree(self.repo(pt))
        return ["svnadmin", "hotcopy", os.path.join(pt, "src"),
                self.repo(pt)]

    def verify_point(self, pt):
        ok, err = verify(os.path.join(pt, "src"))
        if not ok:
            return ok, "the source: " + err
        if is_repo(self.repo(pt)):
            return verify(self.repo(pt))
        return True, ""

    def check_state(self, pt, out, succeeded):
        if dump_revs(os.path.join(pt, "src")) != self.src_before:
            return "the source changed"
        if not is_repo(self.repo(pt)):
            return "reported success but the copy is no repository" \
                if succeeded else None
        bad = self.check_recovered(dump_revs(self.repo(pt)), out)
        if not bad and succeeded and \
                sorted(dump_revs(self.repo(pt))) != sorted(self.after):
            bad = "reported success but the copy is incomplete"
        return bad

    def check_recovered(self, revs, out):
        """Each revision the copy has is the source's; it may lack the
        last ones (the copy was cut short)."""
        for r in sorted(revs):
            bad = compare_rev(r, revs[r], self.after[r]) \
                if r in self.after else "r%d is not in the source" % r
            if bad:
                return bad
        return None

    def rerun(self, pt, moddir):
        ok, err = Op.rerun(self, pt, moddir)
        if ok and dump_revs(self.repo(pt)) != self.after:
            return False, "re-run hotcopy gives a different copy"
        if ok:
            ok, err = verify(self.repo(pt))
            err = "" if ok else "verify fails after the re-run: " + err
        return ok, err


class Upgrade(Op):
    """`svnadmin upgrade` of a format-4 repository (`--compatible-version
    1.6`, OLD-0) with two packed shards: their revprops are packed, the
    format written, then the plain revprop files removed (OLD-9)."""
    name = "upgrade"

    def setup(self, tpl):
        repo = self.repo(tpl)
        must(["svnadmin", "create", "--compatible-version", "1.6", repo],
             stock_env())
        fmt = os.path.join(repo, "db", "format")
        with open(fmt) as f:
            text = f.read()
        if not text.startswith("4\n"):
            raise RuntimeError("--compatible-version 1.6 gave format %r"
                               % text)
        with open(fmt, "w") as f:
            f.write(text.replace("layout sharded 1000", "layout sharded 4"))
        d = os.path.join(tpl, "h.dump")
        self.gen_dump(d, 9)
        must(["svnadmin", "load", "-q", repo], stock_env(), stdin=d)
        must(["svnadmin", "pack", "-q", repo], stock_env())

    def argv(self, pt, tag):
        return ["svnadmin", "upgrade", self.repo(pt)]

    @staticmethod
    def layout_of(repo):
        """db/format and every file name under db/revs and db/revprops."""
        db = os.path.join(repo, "db")
        with open(os.path.join(db, "format")) as f:
            names = [f.read()]
        for kind in ("revs", "revprops"):
            for dirpath, _, files in os.walk(os.path.join(db, kind)):
                names += [os.path.relpath(os.path.join(dirpath, x), db)
                          for x in files]
        return sorted(names)

    def reference(self, moddir):
        why = Op.reference(self, moddir)
        if why:
            return why
        pt = os.path.join(self.work, "ref2-" + self.name)
        if os.path.isdir(pt):
            shutil.rmtree(pt)
        copytree(self.tpl, pt)
        must(self.argv(pt, "t0"), module_env(moddir))
        self.layout = self.layout_of(self.repo(pt))
        shutil.rmtree(pt)
        return None

    def rerun(self, pt, moddir):
        """A re-run must finish the upgrade: the same format and files as
        an uninjected upgrade, and stock verify passes."""
        ok, err = Op.rerun(self, pt, moddir)
        if ok:
            ok, err = verify(self.repo(pt))
            err = "" if ok else "verify fails after the re-run: " + err
        if ok and self.layout_of(self.repo(pt)) != self.layout:
            got = set(self.layout_of(self.repo(pt)))
            extra = sorted(got - set(self.layout))
            lacks = sorted(set(self.layout) - got)
            with open(os.path.join(self.repo(pt), "db",
                                   "min-unpacked-rev")) as f:
                mur = int(f.read())
            if not lacks and all(
                    re.match(r"revprops/\d+/\d+$", x) and
                    int(x.split("/")[2]) < mur for x in extra):
                # Plain revprop files of shards whose revprops are packed
                # (the format says so already): no reader opens them.
                return True, "LITTER: re-run upgrade leaves %d plain " \
                    "revprop files of packed shards (%s...)" % (
                        len(extra), extra[0])
            return False, "re-run upgrade leaves %s, lacks %s" % (
                extra[:6], lacks[:6])
        return ok, err


OP_CLASSES = {c.name: c for c in (CommitFile, CommitSvnserve, Load, Load3,
                                  RevpropPacked, RevpropPackedOwn, Setlog,
                                  PropsetRevprop, HotcopyIncr, Hotcopy,
                                  Recover, Pack, Upgrade)}


# ---- one point ------------------------------------------------------------

FAULT_SO = os.environ.get("FAULT_SO") or os.path.join(HERE, "fault.so")


def fault_env(op, moddir, pt, mode, n, out, match=None):
    env = op.op_env(moddir, pt)
    env.update(FAULT_MODE=mode, FAULT_N=str(n), FAULT_OUT=out)
    if match:
        env["FAULT_MATCH"] = match
    so = FAULT_SO
    if isinstance(op, CommitSvnserve):
        env["TORT_PRELOAD"] = so      # only the server process
    else:
        env["LD_PRELOAD"] = so
    return env


def read_hits(path):
    hit, total = None, 0
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                w = line.rstrip("\n").split(" ", 3)
                if w[0] == "hit":
                    hit = (w[2], w[3] if len(w) > 3 else "-")
                elif w[0] == "count":
                    total += int(line.split()[1])
    return hit, total


def stdin_for(op):
    return getattr(op, "dump", None)


def count_calls(op, moddir, match=None, calls=None):
    pt = tempfile.mkdtemp(prefix="cnt-", dir=op.work)
    copytree(op.tpl, os.path.join(pt, "x"))
    pt = os.path.join(pt, "x")
    out = os.path.join(pt, "fault.out")
    env = fault_env(op, moddir, pt, "count", 0, out, match)
    if calls:
        env["FAULT_CALLS"] = calls
    rc, _, err = run(op.argv(pt, "t0"), env, stdin=stdin_for(op))
    _, total = read_hits(out)
    shutil.rmtree(os.path.dirname(pt))
    if rc != 0:
        raise RuntimeError("count run failed: " + err.decode(errors="replace"))
    return total


def trace_calls(op, moddir):
    """{N: call name} of an uninjected run (fault.c FAULT_TRACE)."""
    pt = tempfile.mkdtemp(prefix="trc-", dir=op.work)
    copytree(op.tpl, os.path.join(pt, "x"))
    x = os.path.join(pt, "x")
    out = os.path.join(x, "fault.out")
    env = fault_env(op, moddir, x, "count", 0, out)
    env["FAULT_TRACE"] = "1"
    rc, _, err = run(op.argv(x, "t0"), env, stdin=stdin_for(op))
    calls = {}
    if os.path.exists(out):
        with open(out) as f:
            for line in f:
                w = line.split(" ", 3)
                if w[0] == "call":
                    calls[int(w[1])] = w[2]
    shutil.rmtree(pt)
    if rc != 0:
        raise RuntimeError("trace run failed: " + err.decode(errors="replace"))
    return calls


def focus_points(calls, limit, seed, name):
    """Every call that is not a data write (opens, fsyncs, renames,
    unlinks, truncations: where an operation changes what a reader sees)
    in seeded order, then a seeded sample of the writes, LIMIT in all."""
    rnd = random.Random("%s-%s-focus" % (seed, name))
    writes = ("write", "writev", "pwrite")
    other = sorted(n for n, c in calls.items() if c not in writes)
    data = sorted(n for n, c in calls.items() if c in writes)
    rnd.shuffle(other)
    rnd.shuffle(data)
    ns = other + data
    return ns if limit is None else ns[:limit]


def point(op, moddir, campaign, n, match=None, calls=None, recover=True):
    """Run one point; returns (call, arg, rc, outcome, detail).  MATCH
    counts only calls on paths containing it (fault.c FAULT_MATCH), CALLS
    only the calls so named (FAULT_CALLS).  RECOVER: also check the
    repository the point left through `svnadmin recover` (on a copy)."""
    pt = os.path.join(op.work, "pt-%s-%d" % (op.name, n))
    if os.path.isdir(pt):
        shutil.rmtree(pt)
    copytree(op.tpl, pt)
    out = os.path.join(pt, "fault.out")
    mode = "kill" if campaign == "crash" else ERRNOS[n % len(ERRNOS)]
    env = fault_env(op, moddir, pt, mode, n, out, match)
    if calls:
        env["FAULT_CALLS"] = calls
    t0 = time.time()
    try:
        rc, so, se = run(op.argv(pt, "t0"), env, stdin=stdin_for(op))
    except subprocess.TimeoutExpired:
        shutil.rmtree(pt)
        return "-", "-", -1, "FAIL", "operation hung (timeout)"
    op.window = (t0, time.time())
    hit, _ = read_hits(out)
    call, arg = hit if hit else ("-", "-")
    se = se.decode(errors="replace").strip()
    try:
        outcome, detail = judge(op, moddir, campaign, pt, rc, so, se, hit,
                                recover)
    except Exception as e:          # a check itself broke: a failure too
        outcome, detail = "FAIL", "check raised: %s" % e
    if outcome == "FAIL" and os.environ.get("TORTURE_KEEP"):
        detail += " (kept %s)" % pt
    else:
        shutil.rmtree(pt)
    return call, arg, rc, outcome, detail.replace("\t", " ").replace("\n", " | ")


def judge(op, moddir, campaign, pt, rc, so, se, hit, recover=True):
    repo = op.repo(pt)
    if hit is None:
        # N beyond this run's calls: the operation ran uninjected.
        return ("NOHIT", "") if rc == 0 else \
            ("FAIL", "no fault injected but the operation failed: " + se[:200])
    # What the point left, before the checks below change it: recover
    # and its checks run on this copy.
    snap = None
    if recover and is_repo(repo):
        snap = os.path.join(pt, "recovered")
        copytree(repo, snap)
        left = orphans(snap)
    cut = None
    if op.copies and is_repo(repo):
        # A copy cut short, used as it is (a backup promoted before its
        # re-run): a commit may be refused, or must be right.
        cut = os.path.join(pt, "used-as-is")
        copytree(repo, cut)
    if campaign == "crash":
        problems, outcome, note = judge_crash(op, moddir, pt, so)
    else:
        problems, outcome, note = judge_errors(op, moddir, pt, rc, so, se)
    if snap:
        more, refused = check_recovery(op, moddir, snap, so, left)
        problems += more
        if refused and outcome == "OK":
            outcome, note = "REFUSED", refused if refused.startswith(
                ("next commit", "recover refused")) \
                else "recover refused: " + refused
        if left and not more:
            note = (note + "; " if note else "") + \
                "left %s above db/current" % ",".join(left)
    if cut:
        ok, err = op.next_commit(cut, moddir)
        if not ok and (err.startswith("new r") or
                       not re.search(r"E\d{6}: ", err)):
            problems.append("commit into the copy as it was left: " +
                            err[:300])
        elif ok:
            ok, verr = verify(cut)
            if not ok:
                problems.append("after a commit into the copy as it was "
                                "left, stock verify fails: " + verr[:200])
    if problems:
        return "FAIL", "; ".join(problems)
    return outcome, note


def judge_crash(op, moddir, pt, so):
    """(problems, outcome, note) of a kill, without recover."""
    problems, note = [], ""
    ok, verr = op.verify_point(pt)
    if not ok:
        problems.append("stock verify fails: " + verr[:300])
    state = op.check_state(pt, so, succeeded=False)
    if state and state != "AFTER":
        problems.append(state)
    # Re-run first: a next commit would renumber what a load re-run
    # or an incremental hotcopy expects.
    if not problems:
        ok, err = op.rerun(pt, moddir)
        if not ok:
            problems.append("re-run fails: " + err[:300])
        elif err.startswith("LITTER"):
            note = err[:200]
    if not problems:
        ok, err = op.next_commit(op.repo(pt), moddir)
        if not ok:
            problems.append("next commit fails: " + err[:300])
    return problems, ("LITTER" if note else "OK"), note


def judge_errors(op, moddir, pt, rc, so, se):
    """(problems, outcome, note) of a failed call."""
    problems, note = [], ""
    repo = op.repo(pt)
    ok, verr = op.verify_point(pt)
    if not ok:
        problems.append("stock verify fails: " + verr[:300])
    if rc == 0:
        state = op.check_state(pt, so, succeeded=True)
        if state:
            problems.append(state)
        return problems, "TOLERATED", note
    outcome = "OK"
    m = re.search(r"E\d{6}: .*", se)
    if not m:
        problems.append("no svn error message: " + se[:200])
    elif not re.search(r"'[^']*/[^']*'", se):
        problems.append("error names no file: " + se[:200])
    note = m.group(0)[:160] if m else ""
    state = op.check_state(pt, so, succeeded=False)
    if state == "AFTER":
        outcome, note = "ERR-AFTER", "failed but the change is in: " + note
    elif state:
        problems.append(state)
    txns = [t for t in must(["svnadmin", "lstxns", repo], stock_env())
            .decode().split() if t] if is_repo(repo) else []
    if txns:
        rc2, _, e2 = run(["svnadmin", "rmtxns", repo] + txns,
                         module_env(moddir))
        if rc2 != 0:
            problems.append("left txn cannot be removed: " +
                            e2.decode(errors="replace")[:200])
    return problems, outcome, note


def cut_commit(left):
    """The commit step a crash stopped at, from the files LEFT above
    db/current (orphans()): "COMMIT-4" (the revision file alone),
    "COMMIT-5" (revision and revprops files), None (neither), or a
    description of a state no step leaves."""
    revs = {x.rsplit("/", 1)[1] for x in left if x.startswith("revs/")}
    props = {x.rsplit("/", 1)[1] for x in left if x.startswith("revprops/")}
    if not left:
        return None
    if len(revs) == 1 and not props:
        return "COMMIT-4"
    if len(revs) == 1 and props == revs:
        return "COMMIT-5"
    return "files no commit step leaves: " + ",".join(left)


def check_recovery(op, moddir, snap, so, left=()):
    """`svnadmin recover` (the module tested) on SNAP, a copy of what the
    point left, then stock verify, every revision's revprops and content
    against what was committed, and a further commit.  Returns (problems,
    the first line of recover's error when it refused).  A refusal is no
    failure when stock's recover refuses the same state too and the
    repository is left sound -- except where fsfs7's commit.md says what
    recover does with the files a cut commit LEFT (orphans()): after
    COMMIT-4 (revision file, no revprops file) it recovers to
    db/current's revision (stock refuses); after COMMIT-5 (both files) it
    adopts the revision, with exactly the revprops it was committed with
    (both modules)."""
    with open(os.path.join(snap, "db", "current")) as f:
        y = int(f.read().split()[0])
    step = cut_commit(left) if op.commits else None
    if step and not step.startswith("COMMIT-"):
        return [step], None
    rc, _, err = run(["svnadmin", "recover", snap], module_env(moddir))
    refused = None
    if rc != 0:
        msg = err.decode(errors="replace").strip()
        m = re.search(r"E\d{6}: .*", msg)
        if not m:
            return ["recover fails without an svn error: " + msg[:200]], None
        refused = m.group(0)[:160]
        if step == "COMMIT-4" and moddir:
            return ["after a cut at COMMIT-4 recover refused (commit.md: "
                    "it keeps r%d): %s" % (y, refused)], refused
        if moddir and run(["svnadmin", "recover", snap], stock_env())[0] == 0:
            return ["recover refused where stock's recovers: " + refused], \
                refused
    ok, verr = verify(snap)
    if not ok:
        return ["after recover, stock verify fails: " + verr[:300]], refused
    revs = dump_revs(snap)
    if not refused and step:
        want = y if step == "COMMIT-4" else y + 1
        if max(revs) != want:
            return ["after a cut at %s recover gives r%d, not r%d" % (
                step, max(revs), want)], refused
    bad = op.check_recovered(revs, so)
    if bad:
        return ["after recover, " + bad], refused
    ok, err = op.next_commit(snap, moddir)
    m = re.search(r"E\d{6}: .*", err)
    if not ok and op.copies and m and not err.startswith("new r"):
        # What a cut copy holds need not take commits before its re-run
        # (stock's commit asserts on a copy whose min-unpacked-rev is
        # ahead of db/current); a commit it accepts must be right.
        why = "next commit refused: " + m.group(0)[:140]
        return [], "recover refused: %s; %s" % (refused, why) if refused \
            else why
    if not ok:
        return ["after recover, next commit: " + err[:300]], refused
    return [], refused


# ---- driver ---------------------------------------------------------------

def module_dirs(which):
    ours = os.environ.get("FSFS7_MODULE_DIR") or \
        os.path.join(TOP, "subversion", "libsvn_fs_fs", ".libs")
    mods = []
    if which in ("fsfs7", "both"):
        if not os.path.exists(os.path.join(ours, "libsvn_fs_fs-1.so.1")):
            sys.exit("campaign: no fsfs7 module in %s (build first)" % ours)
        # Same refusal as tools/fsfs7-run: the loader must pick ours.
        rc, _, err = run([os.path.join(TOP, "tools", "fsfs7-run"), "true"],
                         dict(stock_env(), FSFS7_MODULE_DIR=ours))
        if rc != 0:
            sys.exit(err.decode())
        mods.append(("fsfs7", ours))
    if which in ("stock", "both"):
        mods.append(("stock", None))
    return mods


def build_fault_so():
    """Build the interposer unless make did (FAULT_SO)."""
    so = FAULT_SO
    if os.environ.get("FAULT_SO"):
        if not os.path.exists(so):
            sys.exit("campaign: no interposer at %s" % so)
        return
    src = os.path.join(HERE, "fault.c")
    if not os.path.exists(so) or os.path.getmtime(so) < os.path.getmtime(src):
        subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2",
                        "-Wall", "-o", so, src, "-ldl", "-lpthread"], check=True)


def choose_points(total, limit, seed, name):
    """The N to run, in a seeded random order: a run cut short by
    --seconds still spreads its points over the whole operation instead
    of covering only its first calls."""
    rnd = random.Random("%s-%s" % (seed, name))
    if limit is None or total <= limit:
        ns = list(range(1, total + 1))
        rnd.shuffle(ns)
        return ns
    return rnd.sample(range(1, total + 1), limit)


OUTCOMES = ("OK", "REFUSED", "TOLERATED", "ERR-AFTER", "LITTER", "NOHIT",
            "FAIL")


def summary(paths):
    """A markdown table of the TSVs' figures per campaign, module, op."""
    rows = {}
    for path in paths:
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                r = dict(zip(head, line.rstrip("\n").split("\t")))
                key = (r["campaign"], r["op"], r["module"])
                e = rows.setdefault(key, {"total": r["total"], "n": 0,
                                          "secs": 0.0})
                e["n"] += 1
                e["secs"] += float(r["seconds"])
                e[r["outcome"]] = e.get(r["outcome"], 0) + 1
    print("| campaign | operation | module | calls | points | " +
          " | ".join(OUTCOMES) + " | s/point |")
    print("|" + "---|" * (6 + len(OUTCOMES)))
    for (c, o, m), e in sorted(rows.items(), key=lambda kv: (
            kv[0][0], OPS.index(kv[0][1]), kv[0][2])):
        print("| %s | %s | %s | %s | %d | %s | %.2f |" % (
            c, o, m, e["total"], e["n"],
            " | ".join(str(e.get(x, 0)) for x in OUTCOMES),
            e["secs"] / e["n"]))
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["summary"]:
        return summary(argv[1:])
    if argv[:1] == ["concurrency"]:
        import concurrency
        return concurrency.main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("campaign", choices=("crash", "errors", "count"),
                    help="or: summary TSV... (a table of the figures)")
    ap.add_argument("--op", action="append", choices=OPS + ("all",),
                    help="operation (repeatable; default all)")
    ap.add_argument("--module", default="fsfs7",
                    choices=("fsfs7", "stock", "both"))
    ap.add_argument("--points", type=int, default=None,
                    help="at most this many N per operation (seeded sample; "
                    "default: every N)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="stop an operation's sweep after this long")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--focus", action="store_true",
                    help="every call but data writes first, then sampled "
                    "writes (a trace run names each call)")
    ap.add_argument("--n", help="run just these points (N1,N2,...), e.g. "
                    "to reproduce a failure (with TORTURE_KEEP=1 to keep "
                    "the repository)")
    ap.add_argument("--match", help="count only calls on paths containing "
                    "this (fault.c FAULT_MATCH), e.g. revprops/0/3")
    ap.add_argument("--calls", help="count only these calls (FAULT_CALLS), "
                    "e.g. write,renameat2")
    ap.add_argument("--tsv", help="write one row per point here")
    ap.add_argument("--work", help="scratch directory (default: a temp dir)")
    ap.add_argument("--no-recover", action="store_true",
                    help="skip the checks through `svnadmin recover` "
                    "(the campaigns before issue 30)")
    a = ap.parse_args(argv)
    ops = list(OPS) if not a.op or "all" in a.op else a.op
    build_fault_so()
    work = a.work or tempfile.mkdtemp(prefix="torture-")
    os.makedirs(work, exist_ok=True)
    tsv = open(a.tsv, "w") if a.tsv else None
    if tsv:
        tsv.write("module\tcampaign\top\tn\ttotal\tcall\targ\trc\toutcome\t"
                  "detail\tseconds\n")
    figures = []
    failures = 0
    for modname, moddir in module_dirs(a.module):
        for name in ops:
            op = OP_CLASSES[name](work, a.seed)
            op.moddir = moddir
            op.build()
            why = op.reference(moddir)
            if why:
                print("%-6s %-16s UNAVAILABLE: %s" % (modname, name, why))
                figures.append((modname, name, 0, 0, {}, "UNAVAILABLE"))
                continue
            total = count_calls(op, moddir, a.match, a.calls)
            if a.campaign == "count":
                print("%-6s %-16s %d calls" % (modname, name, total))
                figures.append((modname, name, total, 0, {}, ""))
                continue
            ns = choose_points(total, a.points, a.seed, name)
            if a.focus:
                ns = focus_points(trace_calls(op, moddir), a.points, a.seed,
                                  name)
            if a.n:
                ns = [int(x) for x in a.n.split(",")]
            t0 = time.time()
            tally = {}
            done = 0
            for n in ns:
                if a.seconds and time.time() - t0 > a.seconds:
                    break
                t1 = time.time()
                call, arg, rc, outcome, detail = point(
                    op, moddir, a.campaign, n, match=a.match, calls=a.calls,
                    recover=not a.no_recover)
                done += 1
                tally[outcome] = tally.get(outcome, 0) + 1
                if outcome == "FAIL":
                    failures += 1
                if outcome == "FAIL" and tally["FAIL"] <= 5:
                    print("  FAIL %s %s n=%d %s %s: %s" % (modname, name, n,
                                                          call, arg, detail),
                          flush=True)
                if tsv:
                    tsv.write("\t".join(str(x) for x in (
                        modname, a.campaign, name, n, total, call, arg, rc,
                        outcome, detail, "%.2f" % (time.time() - t1))) + "\n")
                    tsv.flush()
            figures.append((modname, name, total, done, tally,
                            "%.0fs" % (time.time() - t0)))
            print("%-6s %-16s calls=%-5d points=%-5d %s  (%.0fs)" % (
                modname, name, total, done,
                " ".join("%s=%d" % kv for kv in sorted(tally.items())),
                time.time() - t0), flush=True)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    print("campaign %s: %d failing points" % (a.campaign, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
