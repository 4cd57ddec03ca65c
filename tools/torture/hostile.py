#!/usr/bin/env python3
"""hostile.py: the hostile-bytes campaign (issue 9, doc/reliability.md, "Hostile bytes").

    hostile.py run [--trials N] [--seconds S] [--seed K] [--asan MODDIR]
                   [--variants f6,f7,...] [--jobs J] [--tsv FILE]
    hostile.py summary TSV...

Small repositories are made by the STOCK binaries from a tools/gen_history.py
dump in every format and shape (f6 f7 f8 unpacked, f6p f7p f8p packed with
shards of 8; optionally `--maven` adds maven-small in f7p when
/work/shared/data or $FSFS7_DATA has it).  Each *damage* takes a copy of one
of them and breaks it one seeded way:

  flip-index  1-4 bytes flipped in the L2P/P2L indexes or the footer of a
              revision or pack file (f6: the trailer, or a pack manifest)
  flip-data   1-4 bytes flipped in the item data of a revision/pack file
  zero        a run of 16-512 zero bytes written into a revision/pack file
  truncate    a revision, pack or revprop file cut short
  revprop     a packed revprop shard (pack file or its manifest) or a
              revprop file flipped, truncated, its manifest line bent, or an
              svn:date value made unparsable
  manifest    a line of a pack manifest (revs or revprops) changed
  repcache    rep-cache.db: a row bent (offset, revision, size, expanded
              size, a row for the commit's content), bytes flipped, the file
              cut short or emptied
  txn         garbage in db/transactions (a stray txn directory full of
              junk, the directory the next commit would use, garbage
              proto-revs), or a damaged txn-current

Exactly half of the flips go to index/footer regions (flip-index) and half
to data (flip-data).  The damaged copy is then copied once per module and
both modules run the same five operations on it, in this order:

  verify   svnadmin verify -q
  dump     svnadmin dump -q           (stdout compared)
  log      svn log -v file://...      (stdout compared)
  export   svn export file://...      (tree compared)
  commit   svnmucc: a mkdir, an add whose text equals an existing file's
           (a rep-cache hit), an edit of that file and a propset; when it
           succeeds, the new revision (incremental dump, dates masked) and
           `svn ls -R` of HEAD are compared with the same commit on the
           undamaged repository

One (damage, operation) pair is a *trial*.  Each trial is classified per
module: OK (exit 0 with the undamaged repository's output), ERROR (exit
!= 0 with an svn error), CRASH (killed by a signal, a sanitizer report, or
an svn assertion/malfunction), HANG (the --timeout ran out), SILENT-WRONG
(exit 0 with output that differs from the undamaged repository's and from
the other module's), UNDETECTED (exit 0, output differs from the
undamaged repository's but is byte-identical to the other module's: damage
no checksum covers, such as a flipped byte inside a log message).  Counted
besides: STRICTER (stock gave the undamaged output, fsfs7 an ERROR), WIN
(stock SILENT-WRONG or UNDETECTED, fsfs7 ERROR), RULE (an fsfs7 ERROR
whose message names a doc/format rule: "rule XXX-N").

fsfs7 runs from FSFS7_MODULE_DIR (default: this tree's build); with --asan
MODDIR it runs the module built with -fsanitize=address,undefined in
MODDIR, libasan preloaded (see doc/reliability.md, "Hostile bytes").  The stock
binaries and module are the reference.  Runs are bounded by --trials and
--seconds; seeded.  Only the Python 3 standard library is used.
"""

import argparse
import concurrent.futures
import glob
import hashlib
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
OPS = ("verify", "dump", "log", "export", "commit")
KINDS = ("flip-index", "flip-data", "zero", "truncate", "revprop",
         "manifest", "repcache", "txn")
# How often each kind is drawn; the two flip kinds together about a third.
WEIGHTS = {"flip-index": 4, "flip-data": 4, "zero": 3, "truncate": 3,
           "revprop": 3, "manifest": 2, "repcache": 2, "txn": 2}
CLASSES = ("OK", "ERROR", "CRASH", "HANG", "SILENT-WRONG", "UNDETECTED")
VARIANTS = {"f6": ("1.8", False), "f7": ("1.9", False), "f8": (None, False),
            "f6p": ("1.8", True), "f7p": ("1.9", True), "f8p": (None, True)}
REVS = 45
SHARD = 8
RULE_RE = re.compile(rb"rule [A-Z][A-Z0-9]*-\d+")
SANITIZER_RE = re.compile(rb"ERROR: AddressSanitizer|runtime error:|"
                          rb"ERROR: LeakSanitizer|SUMMARY: UndefinedBehavior")
# An svn assertion or malfunction aborts the process (SIGABRT) in the
# command-line tools; the message is still a crash if it came out first.
MALFUNCTION_RE = re.compile(rb"E235000|In file '.*' line \d+: assertion")
DATE_RE = re.compile(rb"(K 8\nsvn:date\nV 27\n)[^\n]{27}\n")
STOCK_LIBDIR = "/usr/lib/x86_64-linux-gnu"


# ---- processes -------------------------------------------------------------

def clean_env():
    env = dict(os.environ)
    for k in ("LD_PRELOAD", "LD_LIBRARY_PATH", "ASAN_OPTIONS",
              "UBSAN_OPTIONS"):
        env.pop(k, None)
    env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8", TZ="UTC")
    return env


def stock_env():
    return clean_env()


def module_env(moddir, asan_rt=None):
    env = clean_env()
    env["LD_LIBRARY_PATH"] = moddir
    if asan_rt:
        env["LD_PRELOAD"] = asan_rt
        env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1"
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    return env


def check_loader(moddir, env):
    """Refuse to measure the stock module by mistake (as tools/fsfs7-run)."""
    p = subprocess.run(["ldd", os.path.join(STOCK_LIBDIR,
                                            "libsvn_fs-1.so.1")],
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    m = re.search(rb"libsvn_fs_fs-1\.so\.1 => (\S+)", p.stdout)
    want = os.path.realpath(os.path.join(moddir, "libsvn_fs_fs-1.so.1"))
    got = os.path.realpath(m.group(1).decode()) if m else None
    if got != want:
        raise SystemExit("hostile: the loader would use %s, not %s"
                         % (got, want))


class Result:
    def __init__(self, rc, out, err, hung=False):
        self.rc, self.out, self.err, self.hung = rc, out, err, hung


def run(argv, env, timeout, cwd=None):
    try:
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, cwd=cwd)
        return Result(p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired as e:
        # subprocess kills with SIGKILL: svn ignores SIGTERM until it
        # polls for cancellation.
        return Result(-9, e.stdout or b"", e.stderr or b"", hung=True)


def must(argv, env=None, cwd=None):
    r = run(argv, env or stock_env(), 600, cwd)
    if r.rc != 0:
        raise RuntimeError("%s failed (%d): %s" % (
            " ".join(argv), r.rc, r.err.decode(errors="replace")[:500]))
    return r.out


def mask_dates(b):
    return DATE_RE.sub(rb"\1" + b"D" * 27 + b"\n", b)


def tree_digest(root):
    """Paths, kinds, modes (x bit), link targets and contents of ROOT."""
    h = hashlib.sha256()
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files) + [x + "/" for x in dirs]:
            p = os.path.join(d, name.rstrip("/"))
            rel = os.path.relpath(p, root).encode()
            if os.path.islink(p):
                h.update(b"L" + rel + b"\0" + os.readlink(p).encode() + b"\0")
            elif name.endswith("/"):
                h.update(b"D" + rel + b"\0")
            else:
                with open(p, "rb") as f:
                    data = f.read()
                x = b"x" if os.stat(p).st_mode & 0o100 else b"-"
                h.update(b"F" + x + rel + b"\0" +
                         hashlib.sha256(data).digest())
    return h.hexdigest()


# ---- templates -------------------------------------------------------------

class Template:
    """A pristine stock-made repository and what each operation gives on it."""

    def __init__(self, name, path):
        self.name = name
        # Copies are taken with `cp -a`: a symlinked template must not be
        # copied as the link (the commit would then change the template).
        self.path = os.path.realpath(path)
        self.expect = {}         # op -> output digest on the pristine repo

    @property
    def fmt(self):
        with open(os.path.join(self.path, "db", "format")) as f:
            return int(f.readline())

    @property
    def logical(self):
        with open(os.path.join(self.path, "db", "format")) as f:
            return "addressing logical" in f.read()


def build_template(work, name, dump, compat, packed):
    repo = os.path.join(work, "tpl-" + name)
    done = repo + ".done"
    if os.path.exists(done):
        # Kept from an earlier run with the same --work (same dump).
        return Template(name, repo)
    if os.path.isdir(repo):
        shutil.rmtree(repo)
    must(["svnadmin", "create"] +
         (["--compatible-version", compat] if compat else []) + [repo])
    fmt = os.path.join(repo, "db", "format")
    if packed:
        with open(fmt) as f:
            text = f.read()
        os.chmod(fmt, 0o644)
        with open(fmt, "w") as f:
            f.write(text.replace("layout sharded 1000",
                                 "layout sharded %d" % SHARD))
    with open(dump, "rb") as inp:
        p = subprocess.run(["svnadmin", "load", "-q", repo], stdin=inp,
                           env=stock_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("stock load failed: %s" % p.stderr[:500])
    if packed:
        must(["svnadmin", "pack", "-q", repo])
    open(done, "w").close()
    return Template(name, repo)


def pick_commit_file(tpl):
    """A file of HEAD (seeded by name) for the commit: its text is re-added
    (a rep-cache hit) and edited."""
    out = must(["svn", "ls", "-R", "file://" + tpl.path])
    files = sorted(l for l in out.decode().splitlines()
                   if l and not l.endswith("/"))
    if not files:
        raise RuntimeError("no file in HEAD of " + tpl.path)
    rng = random.Random(tpl.name)
    return files[rng.randrange(len(files))]


# ---- operations ------------------------------------------------------------

class Ops:
    """The five operations, run on REPO under ENV; each returns a Result
    whose `digest` is what is compared."""

    def __init__(self, timeout, scratch, commit_file, commit_text):
        self.timeout = timeout
        self.scratch = scratch
        self.commit_file = commit_file
        self.commit_text = commit_text

    def verify(self, repo, env):
        r = run(["svnadmin", "verify", "-q", repo], env, self.timeout)
        r.digest = "" if r.rc == 0 else None
        return r

    def dump(self, repo, env):
        r = run(["svnadmin", "dump", "-q", repo], env, self.timeout)
        r.digest = hashlib.sha256(r.out).hexdigest()
        return r

    def log(self, repo, env):
        r = run(["svn", "log", "-v", "file://" + repo], env, self.timeout)
        r.digest = hashlib.sha256(r.out).hexdigest()
        return r

    def export(self, repo, env):
        dest = tempfile.mkdtemp(prefix="exp-", dir=self.scratch)
        try:
            r = run(["svn", "export", "-q", "--force", "file://" + repo,
                     os.path.join(dest, "t")], env, self.timeout)
            r.digest = (tree_digest(os.path.join(dest, "t"))
                        if r.rc == 0 else None)
        finally:
            shutil.rmtree(dest, ignore_errors=True)
        return r

    def commit(self, repo, env):
        d = tempfile.mkdtemp(prefix="ci-", dir=self.scratch)
        try:
            same = os.path.join(d, "same")
            edited = os.path.join(d, "edited")
            with open(same, "wb") as f:
                f.write(self.commit_text)
            with open(edited, "wb") as f:
                f.write(self.commit_text + b"hostile edit\n")
            url = "file://" + repo
            r = run(["svnmucc", "-U", url, "-m", "hostile commit",
                     "mkdir", "hostile",
                     "put", same, "hostile/same",
                     "put", edited, self.commit_file,
                     "propset", "hostile:p", "v", "hostile"],
                    env, self.timeout)
            r.digest = None
            r.post = None
            if r.rc == 0 and not r.hung:
                # What the commit wrote, read back by the same module.
                dr = run(["svnadmin", "dump", "-q", "--incremental",
                          "-r", "HEAD", repo], env, self.timeout)
                lr = run(["svn", "ls", "-R", url], env, self.timeout)
                r.post = (dr, lr)
                if dr.rc == 0 and lr.rc == 0:
                    r.digest = hashlib.sha256(
                        mask_dates(dr.out) + b"\0" + lr.out).hexdigest()
                else:
                    # Not comparable (the damage breaks reading HEAD).
                    r.digest = "unchecked"
        finally:
            shutil.rmtree(d, ignore_errors=True)
        return r

    def run_all(self, repo, env):
        return {op: getattr(self, op)(repo, env) for op in OPS}


def crashed(r):
    """A signal, a sanitizer report or an svn malfunction, in the command or
    in the commit's read-back."""
    for x in [r] + list(getattr(r, "post", None) or ()):
        if x.hung:
            continue
        if (x.rc < 0 or SANITIZER_RE.search(x.err)
                or MALFUNCTION_RE.search(x.err)):
            return True
    return False


def hung(r):
    return r.hung or (getattr(r, "post", None) is not None
                      and any(p.hung for p in r.post))


def classify(r, expect, other):
    """Class of result R against the pristine digest EXPECT and the other
    module's result OTHER."""
    if hung(r):
        return "HANG"
    if crashed(r):
        return "CRASH"
    if r.rc != 0:
        return "ERROR"
    if r.digest in (expect, "unchecked"):
        return "OK"
    if (other is not None and other.rc == 0 and not hung(other)
            and other.digest == r.digest):
        return "UNDETECTED"
    return "SILENT-WRONG"


def first_error(r):
    """The svn error lines of R (codes and messages), or its stderr."""
    if r.hung:
        return "timeout"
    text = r.err.decode(errors="replace")
    lines = [l.strip() for l in text.splitlines()
             if re.search(r"\bE\d{6}\b|^\* Error", l)]
    return (" / ".join(lines) if lines else text.strip())[:400]


def rule_of(r):
    """The first doc/format rule an error names ("rule XXX-N"), or ""."""
    m = RULE_RE.search(r.err)
    return m.group(0)[5:].decode() if m else ""


# ---- damages ---------------------------------------------------------------

def rev_files(repo):
    db = os.path.join(repo, "db")
    files = sorted(glob.glob(os.path.join(db, "revs", "*", "*")))
    return [f for f in files if os.path.basename(f) != "manifest"
            and os.path.getsize(f) > 0]


def index_region(path, logical):
    """[start, end) of the index and footer part of a revision/pack file."""
    with open(path, "rb") as f:
        data = f.read()
    size = len(data)
    if logical:
        flen = data[-1]
        footer = data[size - 1 - flen:size - 1].split()
        try:
            return int(footer[0]), size
        except (ValueError, IndexError):
            return max(0, size - 64), size
    # Physical addressing: the trailer line "<root> <changes>\n".
    nl = data.rfind(b"\n", 0, size - 1)
    return nl + 1, size


def flip_bytes(path, rng, lo, hi, n=None):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        hi = min(hi, len(data))
        if hi <= lo:
            lo = 0
        spots = []
        for _ in range(n or rng.randint(1, 4)):
            at = rng.randrange(lo, hi)
            data[at] ^= 1 << rng.randrange(8)
            spots.append(at)
        f.seek(0)
        f.write(data)
    return "flipped @" + ",".join(str(s) for s in sorted(spots))


def zero_run(path, rng):
    size = os.path.getsize(path)
    n = min(size, rng.randint(16, 512))
    at = rng.randrange(0, size - n + 1)
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(b"\0" * n)
    return "zeroed %d@%d" % (n, at)


def truncate(path, rng):
    size = os.path.getsize(path)
    to = rng.randrange(0, size) if size else 0
    os.truncate(path, to)
    return "cut %d->%d" % (size, to)


def rel(repo, path):
    return os.path.relpath(path, repo)


def writable(path):
    os.chmod(path, 0o644)


def damage_flip(repo, rng, logical, in_index):
    f = rng.choice(rev_files(repo))
    writable(f)
    lo, hi = index_region(f, logical)
    if not in_index:
        lo, hi = 0, lo
    packed = os.path.basename(f) == "pack"
    man = os.path.join(os.path.dirname(f), "manifest")
    if in_index and packed and not logical and rng.random() < 0.5:
        writable(man)
        return rel(repo, man), "index", flip_bytes(
            man, rng, 0, os.path.getsize(man))
    return rel(repo, f), "index" if in_index else "data", flip_bytes(
        f, rng, lo, hi)


def damage_zero(repo, rng, logical):
    f = rng.choice(rev_files(repo))
    writable(f)
    return rel(repo, f), "rev", zero_run(f, rng)


def revprop_files(repo):
    files = glob.glob(os.path.join(repo, "db", "revprops", "*", "*"))
    return sorted(f for f in files
                  if os.path.basename(f) != "0" or "pack" not in f)


def damage_truncate(repo, rng, logical):
    pool = rev_files(repo)
    if rng.random() < 0.3:
        pool = [f for f in revprop_files(repo) if os.path.getsize(f) > 0] \
            or pool
    f = rng.choice(pool)
    writable(f)
    return rel(repo, f), "file", truncate(f, rng)


def bend_manifest_line(path, rng):
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    idx = [i for i, l in enumerate(lines) if l]
    if not idx:
        return truncate(path, rng)
    i = rng.choice(idx)
    how = rng.randrange(5)
    old = lines[i]
    if how == 0:
        lines[i] = b"x" + old[1:]
    elif how == 1:
        lines[i] = str(int(old) * 1000 + 7 if old.isdigit()
                       else 99999999).encode()
    elif how == 2:
        del lines[i]
    elif how == 3:
        lines.insert(i, lines[i])
    else:
        lines[i] = old + b" junk"
    writable(path)
    with open(path, "wb") as f:
        f.write(b"\n".join(lines))
    return "manifest line %d: %s" % (i + 1, ("letter", "big number",
                                             "removed", "duplicated",
                                             "junk")[how])


def damage_manifest(repo, rng, logical):
    mans = sorted(glob.glob(os.path.join(repo, "db", "revs", "*.pack",
                                         "manifest")) +
                  glob.glob(os.path.join(repo, "db", "revprops", "*.pack",
                                         "manifest")))
    if not mans:
        return damage_revprop(repo, rng, logical)
    m = rng.choice(mans)
    return rel(repo, m), "manifest", bend_manifest_line(m, rng)


def bogus_date(path, rng):
    with open(path, "rb") as f:
        data = f.read()
    m = re.search(rb"svn:date\nV 27\n", data)
    if not m:
        return flip_bytes(path, rng, 0, len(data))
    at = m.end() + rng.randrange(27)
    data = data[:at] + b"Q" + data[at + 1:]
    writable(path)
    with open(path, "wb") as f:
        f.write(data)
    return "svn:date byte %d -> Q" % (at - m.end())


def damage_revprop(repo, rng, logical):
    packs = sorted(glob.glob(os.path.join(repo, "db", "revprops", "*.pack",
                                          "*")))
    packs = [p for p in packs if os.path.basename(p) != "manifest"]
    plain = sorted(f for f in glob.glob(os.path.join(
        repo, "db", "revprops", "[0-9]*", "*"))
        if ".pack" not in f and os.path.basename(f) != "0")
    if packs and (not plain or rng.random() < 0.7):
        f = rng.choice(packs)
        how = rng.randrange(4)
        if how == 0:
            writable(f)
            return rel(repo, f), "revprop-pack", flip_bytes(
                f, rng, 0, os.path.getsize(f))
        if how == 1:
            writable(f)
            return rel(repo, f), "revprop-pack", truncate(f, rng)
        if how == 2:
            m = os.path.join(os.path.dirname(f), "manifest")
            return rel(repo, m), "revprop-manifest", bend_manifest_line(
                m, rng)
        return rel(repo, f), "revprop-pack", bogus_date(f, rng)
    f = rng.choice(plain)
    how = rng.randrange(3)
    writable(f)
    if how == 0:
        return rel(repo, f), "revprop", flip_bytes(
            f, rng, 0, os.path.getsize(f))
    if how == 1:
        return rel(repo, f), "revprop", truncate(f, rng)
    return rel(repo, f), "revprop", bogus_date(f, rng)


def damage_repcache(repo, rng, logical, commit_sha1):
    db = os.path.join(repo, "db", "rep-cache.db")
    how = rng.randrange(7)
    if how <= 3:
        con = sqlite3.connect(db)
        try:
            col = ("offset", "revision", "size", "expanded_size")[how]
            row = con.execute("SELECT revision, offset, size, expanded_size "
                              "FROM rep_cache WHERE hash = ?",
                              (commit_sha1,)).fetchone()
            where, arg = "hash = ?", (commit_sha1,)
            if row is None or rng.random() < 0.3:
                h = con.execute("SELECT hash FROM rep_cache ORDER BY hash "
                                "LIMIT 1 OFFSET ?", (rng.randrange(
                                    con.execute("SELECT COUNT(*) FROM "
                                                "rep_cache").fetchone()[0]
                                    or 1),)).fetchone()
                if h is None:
                    return rel(repo, db), "repcache", "no rows"
                arg = (h[0],)
            value = rng.choice((0, 1, 2, 3, 7, 13, 77, 1 << 20, -1,
                                1 << 40))
            con.execute("UPDATE rep_cache SET %s = ? WHERE %s" % (col, where),
                        (value,) + arg)
            con.commit()
        finally:
            con.close()
        return rel(repo, db), "repcache", "row %s: %s = %d" % (
            arg[0][:8], col, value)
    writable(db)
    if how == 4:
        # Past the 100-byte header, in the pages.
        return rel(repo, db), "repcache", flip_bytes(
            db, rng, 100, os.path.getsize(db))
    if how == 5:
        return rel(repo, db), "repcache", truncate(db, rng)
    with open(db, "wb") as f:
        f.write(b"this is not a database\n" * rng.randint(0, 40))
    return rel(repo, db), "repcache", "garbage file"


def damage_txn(repo, rng, logical):
    db = os.path.join(repo, "db")
    with open(os.path.join(db, "current")) as f:
        youngest = int(f.read().split()[0])
    how = rng.randrange(4)
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    if how in (0, 1):
        if how == 0:
            name = "%d-%s" % (youngest, rng.choice(("zz", "1x", "a")))
        else:
            # The name the next commit would take.
            seq = "0"
            tc = os.path.join(db, "txn-current")
            if os.path.exists(tc):
                with open(tc) as f:
                    seq = f.read().strip()
            name = "%d-%s" % (youngest, seq)
        t = os.path.join(db, "transactions", name + ".txn")
        os.makedirs(t, exist_ok=True)
        for fn in ("props", "changes", "next-ids", "node.0.0",
                   "node.0.0.children", "rev", "item-index", "rev-lock"):
            if rng.random() < 0.7:
                with open(os.path.join(t, fn), "wb") as f:
                    f.write(junk[:rng.randint(0, len(junk))])
        if os.path.isdir(os.path.join(db, "txn-protorevs")) \
                and rng.random() < 0.5:
            with open(os.path.join(db, "txn-protorevs", name + ".rev"),
                      "wb") as f:
                f.write(junk)
        return "db/transactions/" + name + ".txn", "txn", \
            "garbage txn dir (%d bytes of junk)" % len(junk)
    if how == 2:
        tc = os.path.join(db, "txn-current")
        if os.path.exists(tc):
            writable(tc)
            with open(tc, "wb") as f:
                f.write(rng.choice((b"", b"zz\n", b"-1\n", b"\xff\xfe\n",
                                    b"999999999999999999999999\n", junk)))
            return "db/txn-current", "txn", "txn-current garbage"
    d = os.path.join(db, "transactions")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "%d-q.txn" % youngest), "wb") as f:
        f.write(junk)
    return "db/transactions/%d-q.txn" % youngest, "txn", \
        "a file where a txn dir belongs"


def apply_damage(kind, repo, rng, logical, commit_sha1):
    if kind == "flip-index":
        return damage_flip(repo, rng, logical, True)
    if kind == "flip-data":
        return damage_flip(repo, rng, logical, False)
    if kind == "zero":
        return damage_zero(repo, rng, logical)
    if kind == "truncate":
        return damage_truncate(repo, rng, logical)
    if kind == "revprop":
        return damage_revprop(repo, rng, logical)
    if kind == "manifest":
        return damage_manifest(repo, rng, logical)
    if kind == "repcache":
        return damage_repcache(repo, rng, logical, commit_sha1)
    return damage_txn(repo, rng, logical)


# ---- the campaign ----------------------------------------------------------

class Campaign:
    def __init__(self, args):
        self.args = args
        self.work = args.work or tempfile.mkdtemp(prefix="fsfs7-hostile-")
        os.makedirs(self.work, exist_ok=True)
        self.scratch = os.path.join(self.work, "scratch")
        os.makedirs(self.scratch, exist_ok=True)
        if args.asan:
            self.moddir = args.asan
            self.asan_rt = args.asan_runtime or find_asan_runtime()
        else:
            self.moddir = args.module or os.environ.get(
                "FSFS7_MODULE_DIR") or os.path.join(
                    TOP, "subversion", "libsvn_fs_fs", ".libs")
            self.asan_rt = None
        self.envs = {"stock": stock_env(),
                     "fsfs7": module_env(self.moddir, self.asan_rt)}
        check_loader(self.moddir, module_env(self.moddir))
        self.templates = []
        self.lock = threading.Lock()
        self.rows = []

    def log(self, msg):
        if not self.args.quiet:
            print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)

    def prepare(self):
        dump = os.path.join(self.work, "gen.dump")
        if not os.path.exists(dump):
            must([sys.executable, os.path.join(TOP, "tools",
                                               "gen_history.py"),
                  "--revs", str(self.args.revs), "--seed",
                  str(self.args.seed), "-o", dump])
        for v in self.args.variants:
            compat, packed = VARIANTS[v]
            self.templates.append(build_template(self.work, v, dump, compat,
                                                 packed))
        if self.args.maven:
            src = find_maven()
            if src:
                raw = os.path.join(self.work, "maven.dump")
                if not os.path.exists(raw):
                    subprocess.run("gzip -dc '%s' > '%s'" % (src, raw),
                                   shell=True, check=True)
                self.templates.append(build_template(
                    self.work, "maven-f7p", raw, "1.9", True))
            else:
                self.log("maven-small not found: left out")
        for t in self.templates:
            self.baseline(t)

    def baseline(self, t):
        t.commit_file = pick_commit_file(t)
        t.commit_text = must(["svn", "cat", "file://%s/%s" % (
            t.path, t.commit_file)])
        t.commit_sha1 = hashlib.sha1(t.commit_text).hexdigest()
        ops = Ops(600, self.scratch, t.commit_file, t.commit_text)
        for who in ("stock", "fsfs7"):
            copy = os.path.join(self.work, "base-%s-%s" % (t.name, who))
            shutil.rmtree(copy, ignore_errors=True)
            subprocess.run(["cp", "-a", t.path, copy], check=True)
            res = ops.run_all(copy, self.envs[who])
            shutil.rmtree(copy, ignore_errors=True)
            for op, r in res.items():
                if r.rc != 0 or r.digest in (None, "unchecked"):
                    raise RuntimeError("%s %s fails on the undamaged %s: %s"
                                       % (who, op, t.name, first_error(r)))
            if who == "stock":
                t.expect = {op: r.digest for op, r in res.items()}
            else:
                for op, r in res.items():
                    if r.digest != t.expect[op]:
                        raise RuntimeError(
                            "fsfs7 %s differs from stock on the undamaged "
                            "%s: no verdict possible" % (op, t.name))
        self.log("template %s: format %d, %s, commit edits %s" % (
            t.name, t.fmt, "logical" if t.logical else "physical",
            t.commit_file))

    def plan(self):
        """The seeded sequence of (damage number, template, kind)."""
        rng = random.Random(self.args.seed)
        kinds = [k for k in KINDS for _ in range(WEIGHTS[k])]
        n = flips = 0
        while True:
            t = self.templates[n % len(self.templates)]
            kind = rng.choice(kinds)
            if kind == "manifest" and not glob.glob(os.path.join(
                    t.path, "db", "rev*", "*.pack", "manifest")):
                kind = "revprop"     # unpacked: no manifest to bend
            if kind.startswith("flip"):
                # Exactly half of the flips in index/footer regions.
                kind = "flip-index" if flips % 2 == 0 else "flip-data"
                flips += 1
            yield n, t, kind, rng.randrange(1 << 30)
            n += 1

    def one(self, n, t, kind, dseed):
        rng = random.Random(dseed)
        base = os.path.join(self.scratch, "d%d" % n)
        os.makedirs(base)
        try:
            dmg = os.path.join(base, "damaged")
            subprocess.run(["cp", "-a", t.path, dmg], check=True)
            target, where, what = apply_damage(kind, dmg, rng, t.logical,
                                               t.commit_sha1)
            ops = Ops(self.args.timeout, base, t.commit_file, t.commit_text)
            res = {}
            for who in ("stock", "fsfs7"):
                copy = os.path.join(base, who)
                subprocess.run(["cp", "-a", dmg, copy], check=True)
                res[who] = ops.run_all(copy, self.envs[who])
            rows = []
            for op in OPS:
                s, f = res["stock"][op], res["fsfs7"][op]
                sc = classify(s, t.expect[op], f)
                fc = classify(f, t.expect[op], s)
                rule = rule_of(f) if fc == "ERROR" else ""
                rows.append({
                    "seed": self.args.seed, "damage": n, "variant": t.name,
                    "kind": kind, "file": target, "region": where,
                    "what": what, "op": op,
                    "stock": sc, "stock_rc": s.rc,
                    "fsfs7": fc, "fsfs7_rc": f.rc,
                    "rule": rule,
                    "stricter": int(sc == "OK" and fc == "ERROR"
                                    and s.digest == t.expect[op]),
                    "win": int(sc in ("SILENT-WRONG", "UNDETECTED")
                               and fc == "ERROR"),
                    "stock_msg": first_error(s) if sc != "OK" else "",
                    "fsfs7_msg": first_error(f) if fc != "OK" else "",
                    "fsfs7_report": sanitizer_excerpt(f)
                    if fc in ("CRASH", "HANG") else "",
                })
            return rows
        finally:
            if not self.args.keep:
                shutil.rmtree(base, ignore_errors=True)

    def go(self):
        self.prepare()
        t0 = time.time()
        damages = -(-self.args.trials // len(OPS))
        plan = self.plan()
        jobs = max(1, self.args.jobs)
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            pending = set()
            started = 0
            planned = 0         # damage numbers taken from the plan
            while True:
                # With --only, numbers not asked for are skipped but still
                # counted against DAMAGES: counting only those started,
                # the loop spun for ever once the asked ones had run.
                while (len(pending) < jobs and planned < damages
                       and time.time() - t0 < self.args.seconds):
                    n, t, kind, dseed = next(plan)
                    planned += 1
                    if self.args.only is not None and n not in self.args.only:
                        continue
                    pending.add(ex.submit(self.one, n, t, kind, dseed))
                    started += 1
                if not pending:
                    break
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for fut in done:
                    rows = fut.result()
                    with self.lock:
                        self.rows.extend(rows)
                    bad = [r for r in rows if r["fsfs7"] in
                           ("CRASH", "HANG", "SILENT-WRONG")]
                    r0 = rows[0]
                    self.log("damage %d %s %s %s %s: %s" % (
                        r0["damage"], r0["variant"], r0["kind"], r0["file"],
                        r0["what"], " ".join(
                            "%s=%s/%s" % (r["op"], r["stock"], r["fsfs7"])
                            for r in rows)))
                    for r in bad:
                        self.log("  fsfs7 %s on %s: %s %s" % (
                            r["fsfs7"], r["op"], r["fsfs7_msg"],
                            r["fsfs7_report"][:800]))
        self.elapsed = time.time() - t0
        return self.rows


def sanitizer_excerpt(r):
    text = r.err.decode(errors="replace")
    m = re.search(r"(ERROR: AddressSanitizer.*|.*runtime error:.*)", text,
                  re.S)
    return (m.group(1) if m else text)[:2000].replace("\t", " ") \
        .replace("\n", " | ")


def find_asan_runtime():
    for pat in ("/usr/lib/x86_64-linux-gnu/libasan.so.*",
                "/usr/lib/gcc/x86_64-linux-gnu/*/libasan.so"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[0]
    raise SystemExit("hostile: no libasan found (give --asan-runtime)")


def find_maven():
    for d in (os.environ.get("FSFS7_DATA"), "/work/shared/data",
              os.path.join(TOP, "..", "shared", "data")):
        if d:
            p = os.path.join(d, "maven-small.svndump.gz")
            if os.path.exists(p):
                return p
    return None


# ---- figures ---------------------------------------------------------------

COLUMNS = ("seed", "damage", "variant", "kind", "file", "region", "what",
           "op", "stock", "stock_rc", "fsfs7", "fsfs7_rc", "rule",
           "stricter", "win", "stock_msg", "fsfs7_msg", "fsfs7_report")


def write_tsv(path, rows):
    with open(path, "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(str(r[c]).replace("\t", " ").replace("\n", " ")
                              for c in COLUMNS) + "\n")


def read_tsv(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            yield dict(zip(head, line.rstrip("\n").split("\t")))


def tally(rows, key):
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    return groups


def table(rows):
    out = []
    out.append("| by | trials | module | " + " | ".join(CLASSES) +
               " | STRICTER | WIN | RULE |")
    out.append("|---" * (len(CLASSES) + 6) + "|")

    def line(label, rs):
        for who in ("stock", "fsfs7"):
            c = {k: 0 for k in CLASSES}
            for r in rs:
                c[r[who]] += 1
            extra = (["%d" % sum(int(r["stricter"]) for r in rs),
                      "%d" % sum(int(r["win"]) for r in rs),
                      "%d/%d" % (sum(1 for r in rs if r["fsfs7"] == "ERROR"
                                    and r["rule"]), c["ERROR"])]
                     if who == "fsfs7" else ["", "", ""])
            out.append("| %s | %d | %s | %s | %s |" % (
                label, len(rs), who, " | ".join(str(c[k]) for k in CLASSES),
                " | ".join(extra)))

    for op, rs in sorted(tally(rows, lambda r: r["op"]).items(),
                         key=lambda kv: OPS.index(kv[0])):
        line("op " + op, rs)
    for kind, rs in sorted(tally(rows, lambda r: r["kind"]).items()):
        line("damage " + kind, rs)
    for v, rs in sorted(tally(rows, lambda r: r["variant"]).items()):
        line("variant " + v, rs)
    line("**all**", rows)
    return "\n".join(out)


def stricter_classes(rows):
    """STRICTER trials grouped by (kind, region, rule cited)."""
    groups = {}
    for r in rows:
        if int(r["stricter"]):
            key = (r["kind"], r["region"], r["rule"] or "-")
            groups.setdefault(key, []).append(r)
    lines = ["| damage | region | fsfs7 rule | trials | ops |",
             "|---|---|---|---|---|"]
    for key, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        ops = sorted(set(r["op"] for r in rs))
        lines.append("| %s | %s | %s | %d | %s |" % (key + (len(rs),
                                                          ",".join(ops))))
    return "\n".join(lines)


def report(rows, elapsed=None):
    print(table(rows))
    print()
    damages = len(set((r["seed"], r["damage"]) for r in rows))
    bad = [r for r in rows if r["fsfs7"] in ("CRASH", "HANG",
                                             "SILENT-WRONG")]
    print("%d trials (%d damaged repositories x %d operations)%s; fsfs7 "
          "CRASH+HANG+SILENT-WRONG: %d" % (
              len(rows), damages, len(OPS),
              " in %.0f s" % elapsed if elapsed else "", len(bad)))
    print()
    print("STRICTER classes (stock served the undamaged output, fsfs7 "
          "refused):")
    print(stricter_classes(rows))


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--trials", type=int, default=1000,
                   help="trials ((damage, operation) pairs) at most")
    r.add_argument("--seconds", type=float, default=3600,
                   help="start no damage after this many seconds")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--revs", type=int, default=REVS)
    r.add_argument("--variants", default=",".join(VARIANTS))
    r.add_argument("--maven", action="store_true",
                   help="add maven-small in f7p when available")
    r.add_argument("--module", help="fsfs7 module directory")
    r.add_argument("--asan", metavar="MODDIR",
                   help="directory of a module built with ASan+UBSan")
    r.add_argument("--asan-runtime", help="libasan to preload")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--timeout", type=float, default=60,
                   help="seconds per command before it counts as HANG")
    r.add_argument("--tsv")
    r.add_argument("--work", help="work directory (default: a temp dir)")
    r.add_argument("--keep", action="store_true",
                   help="keep the damaged copies")
    r.add_argument("--only", type=lambda s: set(int(x) for x in
                                                s.split(",")),
                   help="rerun only these damage numbers")
    r.add_argument("--quiet", action="store_true")
    s = sub.add_parser("summary")
    s.add_argument("tsv", nargs="+")
    return ap


def run_args(argv):
    """Arguments of `run` (for tests/integration/test_hostile.py)."""
    args = parser().parse_args(["run"] + list(argv))
    args.variants = [v for v in args.variants.split(",") if v]
    return args


def main(argv=None):
    args = parser().parse_args(argv)
    if args.cmd == "summary":
        rows = [row for p in args.tsv for row in read_tsv(p)]
        report(rows)
        return 0
    args = run_args((argv if argv is not None else sys.argv[1:])[1:])
    c = Campaign(args)
    try:
        rows = c.go()
    finally:
        if not args.work and not args.keep:
            shutil.rmtree(c.work, ignore_errors=True)
    if args.tsv:
        write_tsv(args.tsv, rows)
    report(rows, c.elapsed)
    bad = [x for x in rows if x["fsfs7"] in ("CRASH", "HANG",
                                             "SILENT-WRONG")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
