#!/usr/bin/env python3
"""Integration tests, issue 3 (read path): everything a reader of an
existing repository sees must equal what the stock module shows, and
`svnadmin verify` must catch damage cleanly.

Tests are named test_issue3_<command>_<dataset>_<variant> (or
test_issue3_verify_damaged_<what>); until the read path is complete many
of them fail, and the SUMMARY line at the end of the log shows progress.
Expensive commands run on a sample of repositories or revisions; `make
check` runs each per-repository check on three of the seven variants
(both addressing modes, packed and not, rotating over the two datasets)
and svn export and svnlook props of maven-small on one variant;
FSFS7_SLOW=1 runs every check on every variant of both.
"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

MAVEN, LOOKED = T.find_maven_small()
DATASETS = ["gen"] + (["maven"] if MAVEN else [])
DS = {}
S = None
REPOS = T.RepoCopies()
ALL = list(T.VARIANTS)
SOME = ["f6", "f7p", "f8p"]      # for the expensive checks


def some_for(ds, check):
    """The variants of SOME an expensive CHECK runs on at this depth: the
    quick set keeps maven-small on one variant (its other variants repeat
    the generated history's shapes), the generated history on the others
    (packed logical addressing is maven-small's f7p), svnlook props and
    --deltas dumps on the two addressing modes; FSFS7_SLOW=1 runs all of
    SOME (--deltas: f6 and f7p of the generated history, maven-small's
    f7p)."""
    if check == "deltas" and (T.SLOW or not MAVEN):
        return ["f6", "f7p"] if ds == "gen" else ["f7p"]
    if T.SLOW or check == "blame":
        return SOME
    if ds != "gen":
        return ["f7p"]
    if check in ("props", "deltas"):
        return ["f6"] if MAVEN else ["f6", "f7p"]
    return ["f6", "f8p"] if MAVEN else SOME
COMPAT = {"f6": "1.8", "f7": "1.9", "f8": None}


def setup():
    global S
    DS["gen"] = T.reference_repos(T.Dataset("gen", T.gen_dump()))
    if MAVEN:
        DS["maven"] = T.reference_repos(T.Dataset("maven", MAVEN))
    S = T.Scratch("readpath")
    REPOS.bind(S, DS)     # copies made on first use


def sample_revs(youngest, n=10):
    revs = {youngest, 0, 1}
    revs |= {youngest * i // n for i in range(1, n)}
    return sorted(revs)


def compare(tc, cmds, what, limit=20):
    """Run every command of CMDS with stock and with ours; outputs, exit
    codes and error codes must match.  Stops after LIMIT mismatches."""
    bad = []

    def one(cmd):
        a, b = T.stock(*cmd), T.ours(*cmd)
        if a.returncode < 0:
            raise T.SetupError("stock crashed: %s: %s" % (" ".join(cmd), T.describe(a)))
        if (a.returncode, a.stdout, T.errcodes(a)) != (b.returncode, b.stdout, T.errcodes(b)):
            return "%s\n  ours: %s\n  %s" % (" ".join(cmd), T.describe(b),
                                            T.first_diff(a.stdout, b.stdout))
        return None

    for i in range(0, len(cmds), 64):
        bad += [r for r in T.parallel(one, cmds[i:i + 64]) if r]
        if len(bad) >= limit:
            break
    tc.assertFalse(bad, "%s: %d of %d commands differ from stock; first ones:\n%s"
                   % (what, len(bad), len(cmds), "\n".join(bad[:4])))


def paths_at(ds, v, rev, kind=None):
    """Paths (relative, no trailing slash) at REV, listed by stock."""
    p = T.stock_ok("svn", "list", "-R", "-r", str(rev), T.url(REPOS[ds, v]))
    out = []
    for line in p.stdout.decode().splitlines():
        isdir = line.endswith("/")
        if kind == "file" and isdir or kind == "dir" and not isdir:
            continue
        out.append(line.rstrip("/"))
    return out


def spread(items, n):
    if len(items) <= n:
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


# ---- dumps ------------------------------------------------------------------

def dump_to(path, repo, args, ours):
    with open(path, "wb") as f:
        return T.run(["svnadmin", "dump", "-q"] + args + [repo], ours=ours, stdout=f)


def files_equal(tc, a, b, what):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        da, db = fa.read(), fb.read()
    if da != db:
        tc.fail("%s differs from stock: %s" % (what, T.first_diff(da, db)))


def check_dump_full(tc, ds, v):
    repo = REPOS[ds, v]
    a, b = S.path("dump-%s-%s.stock" % (ds, v)), S.path("dump-%s-%s.ours" % (ds, v))
    p = dump_to(a, repo, [], False)
    if p.returncode:
        raise T.SetupError("stock dump: " + T.describe(p))
    q = dump_to(b, repo, [], True)
    tc.assertEqual(q.returncode, 0, "fsfs7 svnadmin dump: " + T.describe(q))
    files_equal(tc, a, b, "full dump")
    os.unlink(b)


def check_dump_incremental(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    for lo, hi in ((1, min(10, y)), (y // 2, min(y, y // 2 + 25)), (max(1, y - 5), y)):
        rng = "%d:%d" % (lo, hi)
        a, b = S.path("inc-%s-%s.stock" % (ds, v)), S.path("inc-%s-%s.ours" % (ds, v))
        p = dump_to(a, repo, ["-r", rng, "--incremental"], False)
        if p.returncode:
            raise T.SetupError("stock dump -r %s: %s" % (rng, T.describe(p)))
        q = dump_to(b, repo, ["-r", rng, "--incremental"], True)
        tc.assertEqual(q.returncode, 0, "fsfs7 dump -r %s --incremental: %s"
                       % (rng, T.describe(q)))
        files_equal(tc, a, b, "dump -r %s --incremental" % rng)


def check_dump_deltas(tc, ds, v):
    """A --deltas dump by ours, loaded by stock, must give the same repo.
    Quick checks dump r0:120 (a packed shard of 100 and unpacked
    revisions after it): stock's load is the slowest step of the suite.
    FSFS7_SLOW=1 dumps everything."""
    repo = REPOS[ds, v]
    hi = DS[ds].youngest if T.SLOW else min(DS[ds].youngest, 120)
    rng = ["-r", "0:%d" % hi]
    d = S.path("deltas-%s-%s.dump" % (ds, v))
    q = dump_to(d, repo, ["--deltas"] + rng, True)
    tc.assertEqual(q.returncode, 0, "fsfs7 svnadmin dump --deltas: " + T.describe(q))
    new = S.path("deltas-%s-%s.repo" % (ds, v))
    compat = COMPAT[v[:2]]
    T.stock_ok("svnadmin", "create", *(["--compatible-version", compat] if compat else []), new)
    with open(d, "rb") as f:
        p = T.run(["svnadmin", "load", "-q", "--no-flush-to-disk", new],
                  stdout=subprocess.DEVNULL, input=f.read())
    os.unlink(d)
    tc.assertEqual(p.returncode, 0, "stock load of fsfs7's --deltas dump: " + T.describe(p))
    a, b = S.path("deltas-ref.stock"), S.path("deltas-new.stock")
    for path, r in ((a, repo), (b, new)):
        p = dump_to(path, r, rng, False)
        if p.returncode:
            raise T.SetupError("stock dump: " + T.describe(p))
    files_equal(tc, a, b, "stock dump of the repo loaded from fsfs7's --deltas dump")
    subprocess.run(["rm", "-rf", new])


# ---- client and svnlook views ------------------------------------------------

def subpaths_with_copies(ds, v):
    y = DS[ds].youngest
    dirs = paths_at(ds, v, y, "dir")
    out = [p for p in dirs if p.startswith("branches/") and p.count("/") == 1][:2]
    out += [p for p in dirs if p.count("/") == 1 and p.startswith("trunk/")][:2]
    return out or dirs[:2]


def check_log(tc, ds, v):
    repo = REPOS[ds, v]
    cmds = [["svn", "log", "-v", T.url(repo)],
            ["svn", "log", "-q", "-r", "0:HEAD", T.url(repo)]]
    for sp in subpaths_with_copies(ds, v):
        cmds.append(["svn", "log", "-v", T.url(repo, sp)])
    if ds == "gen":
        cmds.append(["svn", "log", "-g", "-v", "-l", "40", T.url(repo, "trunk")])
    compare(tc, cmds, "svn log")


def check_list(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    compare(tc, [["svn", "list", "-R", "-v", "-r", str(r), T.url(repo)]
                 for r in (y, y // 2, y // 4)], "svn list -R -v")


def check_export(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    for rev in ((y, y // 2) if T.SLOW else (y,)):
        a = S.path("exp-%s-%s-%d.stock" % (ds, v, rev))
        b = S.path("exp-%s-%s-%d.ours" % (ds, v, rev))
        T.stock_ok("svn", "export", "-q", "-r", str(rev), T.url(repo), a)
        q = T.ours("svn", "export", "-q", "-r", str(rev), T.url(repo), b)
        tc.assertEqual(q.returncode, 0, "fsfs7 svn export -r %d: %s" % (rev, T.describe(q)))
        diff = T.trees_equal(a, b) or T.trees_equal(b, a)
        tc.assertIsNone(diff, "svn export -r %d: %s" % (rev, diff))
        subprocess.run(["rm", "-rf", a, b])


TEXT_EXT = (".c", ".h", ".java", ".py", ".txt", ".xml", ".md", ".properties", ".apt")


def check_blame(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    files = [f for f in paths_at(ds, v, y, "file") if f.endswith(TEXT_EXT)
             and f.startswith("trunk/")]
    cmds = [["svn", "blame", "-v", T.url(repo, f)] for f in spread(files, 4)]
    compare(tc, cmds, "svn blame")


def check_svnlook_tree(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    compare(tc, [["svnlook", "tree", "--show-ids", "-r", str(r), repo]
                 for r in sample_revs(y, 8)], "svnlook tree --show-ids")


def check_svnlook_changed(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    # `svn log -v` of the root (check_log) covers every revision's list in
    # one process; here svnlook on a sample.  FSFS7_SLOW=1: every
    # revision on f7/f7p, every 7th elsewhere.
    if T.SLOW:
        revs = range(0, y + 1, 1 if v in ("f7", "f7p") else 7)
    else:
        revs = sample_revs(y, 12 if v in ("f7", "f7p") else 5)
    cmds = [["svnlook", "changed", "--copy-info", "-r", str(r), repo] for r in revs]
    cmds += [["svnlook", "dirs-changed", "-r", str(r), repo]
             for r in sample_revs(y, 20 if T.SLOW else 4)]
    compare(tc, cmds, "svnlook changed")


def check_svnlook_diff(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    n, m = (12, 6) if T.SLOW else (5, 3)
    compare(tc, [["svnlook", "diff", "-r", str(r), repo] for r in sample_revs(y, n)]
            + [["svn", "diff", "-c", str(r), T.url(repo)] for r in sample_revs(y, m)],
            "svnlook diff / svn diff -c")


def check_svnlook_history(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    files = paths_at(ds, v, y, "file")
    paths = ["/", "trunk"] + spread(files, 3) + subpaths_with_copies(ds, v)
    compare(tc, [["svnlook", "history", "--show-ids", repo, p] for p in paths],
            "svnlook history --show-ids")


def check_svnlook_props(tc, ds, v):
    repo, y = REPOS[ds, v], DS[ds].youngest
    # Quick: 4 revisions x 10 paths, 5 paths per property name for the
    # values; FSFS7_SLOW=1: 6 x 27 and 15.
    npaths, nrevs, nvals = (25, 4, 15) if T.SLOW else (8, 2, 5)
    head = ["", "trunk"] + spread(paths_at(ds, v, y), npaths)
    cmds = [["svnlook", "proplist", "-r", str(r), repo, p or "/"]
            for r in sample_revs(y, nrevs) for p in head]
    names = {}

    def one(cmd):
        a, b = T.stock(*cmd), T.ours(*cmd)
        # (proplist prints in hash order: compare the sorted words)
        if (a.returncode, sorted(a.stdout.split()), T.errcodes(a)) != \
           (b.returncode, sorted(b.stdout.split()), T.errcodes(b)):
            return None, "%s: ours %s" % (" ".join(cmd), T.describe(b))
        return (a.stdout.decode().split() if a.returncode == 0 else []), None
    results = T.parallel(one, cmds)
    bad = [err for _, err in results if err]
    tc.assertFalse(bad, "svnlook proplist: %d of %d differ; first:\n%s"
                   % (len(bad), len(cmds), "\n".join(bad[:4])))
    # Values through propget (proplist -v prints in hash order).
    for cmd, (found, _) in zip(cmds, results):
        for n in found:
            names.setdefault(n, []).append(cmd[3:])
    vals = [["svnlook", "propget", "-r", c[0], c[1], n, c[2]]
            for n in sorted(names) for c in names[n][:nvals]]
    vals += [["svnlook", "propget", "-r", str(r), repo, "svn:mergeinfo", "trunk"]
             for r in sample_revs(y, nrevs + 1)]
    compare(tc, vals, "svnlook propget")


def check_verify_good(tc, ds, v):
    p = T.ours("svnadmin", "verify", "-q", REPOS[ds, v])
    tc.assertEqual(p.returncode, 0, "fsfs7 svnadmin verify of a good repo: " + T.describe(p))


class Dumps(unittest.TestCase):
    pass


class Views(unittest.TestCase):
    pass


class Verify(unittest.TestCase):
    pass


def _add(cls, name, fn, *args):
    setattr(cls, name, lambda self: fn(self, *args))


# Each check on three shapes in a row of T.rotating() (both addressing
# modes, packed and not); every variant of both datasets under FSFS7_SLOW.
PER_SHAPE = [(Dumps, "dump_full", check_dump_full),
             (Dumps, "dump_incremental", check_dump_incremental),
             (Views, "svn_log", check_log),
             (Views, "svn_list", check_list),
             (Views, "svnlook_tree", check_svnlook_tree),
             (Views, "svnlook_changed", check_svnlook_changed),
             (Views, "svnlook_diff", check_svnlook_diff),
             (Views, "svnlook_history", check_svnlook_history),
             (Verify, "verify_good", check_verify_good)]
for _k, (_cls, _name, _fn) in enumerate(PER_SHAPE):
    for _ds, _v in T.rotating(_k, DATASETS):
        _add(_cls, "test_issue3_%s_%s_%s" % (_name, _ds, _v), _fn, _ds, _v)
for _ds in DATASETS:
    for _v in some_for(_ds, "export"):
        _add(Views, "test_issue3_svn_export_%s_%s" % (_ds, _v), check_export, _ds, _v)
    for _v in some_for(_ds, "blame"):
        _add(Views, "test_issue3_svn_blame_%s_%s" % (_ds, _v), check_blame, _ds, _v)
    for _v in some_for(_ds, "props"):
        _add(Views, "test_issue3_svnlook_props_%s_%s" % (_ds, _v), check_svnlook_props, _ds, _v)
    for _v in some_for(_ds, "deltas"):
        _add(Dumps, "test_issue3_dump_deltas_%s_%s" % (_ds, _v), check_dump_deltas, _ds, _v)
if not MAVEN:
    def test_issue3_maven_dataset(self):
        self.skipTest("maven-small.svndump.gz not found (looked in $FSFS7_DATA, %s)"
                      % ", ".join(LOOKED))
    Views.test_issue3_maven_dataset = test_issue3_maven_dataset


# ---- damaged repositories ------------------------------------------------------

def footer(data):
    """(l2p_offset, p2l_offset, footer_start) of a logical-addressing rev file."""
    n = data[-1]
    fields = data[-1 - n:-1].split(b" ")
    return int(fields[0]), int(fields[2]), len(data) - 1 - n


def pick_rev_file(repo):
    """The unpacked revision file (path, data) with the most DELTA reps."""
    best = None
    d = os.path.join(repo, "db", "revs", "0")
    for name in sorted(os.listdir(d), key=int)[1:120]:
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        score = data.count(b"DELTA ")
        if best is None or score > best[0]:
            best = (score, os.path.join(d, name), data)
    return best[1], best[2]


def flip(data, at):
    b = bytearray(data)
    c = b[at]
    b[at] = (c - 48 + 1) % 10 + 48 if 48 <= c <= 57 else c ^ 0x20 if c > 64 else c ^ 0x01
    return bytes(b)


def damage(kind, data):
    # Format 6 (physical addressing) has no indexes, footers or item
    # checksums: there the noderev and svndiff parsers themselves must
    # notice.
    physical = kind.endswith("_f6")
    kind = kind[:-3] if physical else kind
    l2p, p2l, foot = (len(data),) * 3 if physical else footer(data)
    if kind == "noderev":
        at = data.index(b"type: file\n")
        return flip(data, at + 7)
    if kind == "l2p_page":
        return flip(data, p2l - 1)
    if kind == "p2l_page":
        return flip(data, foot - 1)
    if kind == "delta_window":
        # Middle of the biggest DELTA representation's svndiff data.
        best, pos = (0, 0), 0
        while True:
            s = data.find(b"DELTA", pos)
            if s < 0 or s >= l2p:
                break
            e = data.find(b"ENDREP\n", s)
            body = data.index(b"\n", s) + 1
            if e - body > best[1] - best[0]:
                best = (body, e)
            pos = e + 1
        return flip(data, best[0] + (best[1] - best[0]) // 2)
    if kind == "footer":
        return flip(data, foot + 1)
    raise ValueError(kind)


def check_damaged(tc, kind, packed=False, v=None):
    v = v or ("f7p" if packed else "f7")
    repo = S.copy_repo(REPOS["gen", v], "damaged-%s" % kind)
    if packed:
        path = os.path.join(repo, "db", "revs", "1.pack", "pack")
        with open(path, "rb") as f:
            data = f.read()
        at = data.index(b"type: file\n", len(data) // 2)
        new = flip(data, at + 7)
    else:
        path, data = pick_rev_file(repo)
        new = damage(kind, data)
    if new == data:
        raise T.SetupError("damage %s changed nothing" % kind)
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(new)
    st = T.stock("svnadmin", "verify", "-q", repo)
    if st.returncode == 0:
        raise T.SetupError("stock verify does not notice the %s damage in %s" % (kind, path))
    p = T.ours("svnadmin", "verify", "-q", repo)
    msg = p.stderr.decode(errors="replace").strip()
    print("\n    %s damage: stock says: %s\n    fsfs7 says: %s"
          % (kind, st.stderr.decode(errors="replace").strip().splitlines()[-1][:200],
             msg[:400]), flush=True)
    tc.assertNotEqual(p.returncode, 0, "fsfs7 verify passes a repo with %s damage" % kind)
    tc.assertGreater(p.returncode, 0, "fsfs7 verify crashed: " + T.describe(p))
    tc.assertTrue(T.errcodes(p), "no Subversion error code in: " + msg)
    tc.assertNotIn(b"E200007", p.stderr, "fsfs7 reports 'not implemented', not the damage")
    # Other readers must fail cleanly too, never crash.
    for cmd in (["svnadmin", "dump", "-q", repo], ["svnlook", "tree", repo],
                ["svn", "log", "-v", T.url(repo)]):
        q = T.ours(*cmd, stdout=subprocess.DEVNULL)
        tc.assertGreaterEqual(q.returncode, 0, "fsfs7 %s crashed on %s damage: %s"
                              % (" ".join(cmd[:2]), kind, T.describe(q)))


def check_dump_restored_text(tc):
    """A text change that restores the predecessor's text: with
    rep-sharing the new node-rev shares the old rep under another
    uniquifier.  Stock's dump (loose contents_changed) writes the text;
    ours once dropped it."""
    text = b"same text\n"
    props = b"PROPS-END\n"

    def node(action, with_props):
        head = b"Node-path: a.txt\nNode-kind: file\nNode-action: %s\n" % action
        if with_props:
            return head + (b"Prop-content-length: %d\nText-content-length: %d\n"
                           b"Content-length: %d\n\n" % (len(props), len(text),
                                                         len(props) + len(text))
                           + props + text + b"\n\n")
        return head + (b"Text-content-length: %d\nContent-length: %d\n\n"
                       % (len(text), len(text)) + text + b"\n\n")

    def rev(n):
        return b"Revision-number: %d\nProp-content-length: 10\nContent-length: 10\n\nPROPS-END\n\n" % n

    stream = (b"SVN-fs-dump-format-version: 2\n\n" + rev(1) + node(b"add", True)
              + rev(2) + node(b"change", False))
    repo = S.path("restored-text")
    T.stock_ok("svnadmin", "create", "--compatible-version", "1.9", repo)
    T.stock_ok("svnadmin", "load", "-q", repo, input=stream)
    a = T.stock_ok("svnadmin", "dump", "-q", "-r", "2", "--incremental", repo)
    tc.assertIn(text, a.stdout, "stock no longer writes the restored text")
    b = T.ours("svnadmin", "dump", "-q", "-r", "2", "--incremental", repo)
    tc.assertEqual(b.returncode, 0, T.describe(b))
    tc.assertEqual(a.stdout, b.stdout, T.first_diff(a.stdout, b.stdout))


_add(Dumps, "test_issue3_dump_restored_text", check_dump_restored_text)

for _k in ("noderev", "l2p_page", "p2l_page", "delta_window", "footer"):
    _add(Verify, "test_issue3_verify_damaged_%s" % _k, check_damaged, _k)
_add(Verify, "test_issue3_verify_damaged_noderev_in_pack", check_damaged, "pack", True)
for _k in ("noderev", "delta_window"):
    _add(Verify, "test_issue3_verify_damaged_%s_f6" % _k, check_damaged, _k + "_f6", False, "f6")


if __name__ == "__main__":
    try:
        T.main("issue3-readpath", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
