#!/usr/bin/env python3
"""Parity of every subcommand of the installed Subversion's repository
tools (svnadmin, svnlook, svnfsfs, svnsync, svnrdump, svndumpfilter)
through our module and through the stock one.

The subcommands come from each tool's `help`, so one that a newer
Subversion adds makes test_parity_every_subcommand_covered fail until a
case for it is written here or it is listed in NOT_COVERED with the
reason.

A case is a short script of commands with typical options, and some
that must fail.  It runs twice on copies of the same stock-made
repository (small_history.py; formats 6, 7 and 8, packed and not, and
under FSFS7_SLOW also physical f7, f6 upgraded to 8 and format 4): once
through each module, each in a directory of its own.  Compared: the exit
status, stdout and error codes of every command, then every file left in
the directory (the repository and whatever the commands wrote beside it:
hot copies, mirrors, loaded targets), names, modes and contents.
Normalised first, because they are made at random or now: the
directory's path, UUIDs other than the history's and the test's own,
lock tokens, dates after 2020 (the history's are all from 2020), and
rep-cache.db (compared by its rows).  Known, deliberate differences are
normalised too and listed in KNOWN_DIFFERENCES.  The text of error
messages is compared where it names a fact (no such revision, path not
found); elsewhere ours may say more in its own words, and the text is
logged, not compared (error codes always are).

Every repository starts with a lock (/trunk/bin.dat, token
opaquelocktoken:parity-base) and an open transaction (made by
tests/integration/txn_tool through the stock module) beside the 14
revisions.  The read-only cases of a shape share one pair of copies; each
writing case gets a fresh pair.

Revision, pack and transaction files that a module writes (load, svnsync,
svnrdump load, pack, a failed load's transaction) may differ in bytes:
the two modules choose deltas and item order each in their own way.  For
those the test demands the same file names, that a stock `svnadmin dump`
of both repositories gives the same stream and that stock verifies ours,
and logs how many files differ.  A file the stock run left as it was must
stay byte-identical in ours.

Differences found in our module and not fixed yet are listed in
KNOWN_DEFECTS, with the output of both: the test logs them, passes, and
fails once one no longer reproduces (so that its entry gets removed).

Depth: under FSFS7_SLOW every case runs on every shape, and the shapes
include f4, physical f7 and f6 upgraded to 8, packed and not.  `make
check` runs each case on one of the six shapes f6 f6p f7 f7p f8 f8p,
rotating so that every shape runs about a sixth of the read-only and of
the writing cases.  Tests are named
test_parity_<shape> and test_parity_<what>.
"""

import os
import re
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402
import small_history as H  # noqa: E402
from test_svnfsfs import stats_diff  # noqa: E402

TOOLS = ("svnadmin", "svnlook", "svnfsfs", "svnsync", "svnrdump", "svndumpfilter")
QUICK_SHAPES = ("f6", "f6p", "f7", "f7p", "f8", "f8p")
SLOW_SHAPES = QUICK_SHAPES + ("f4", "f4p", "f7phys", "f7physp", "f8u", "f8up")
SHAPES = SLOW_SHAPES if T.SLOW else QUICK_SHAPES
TXN_TOOL = os.path.join(T.TOP_BUILDDIR, "tests", "integration", "txn_tool")
BASE_TOKEN = "opaquelocktoken:parity-base"
NEW_UUID = "11111111-2222-4333-8444-555555555555"
MIRROR_UUID = "22222222-3333-4444-8555-666666666666"
KNOWN_UUIDS = {H.UUID.encode(), NEW_UUID.encode(), MIRROR_UUID.encode()}

S = None
PRISTINE = {}      # shape -> the cached stock-made repository
BASE = {}          # shape -> this run's base (pristine + lock + txn)
INPUTS = None      # directory of the input files, shared by both sides
TXN = {}           # shape -> name of the base's open transaction
NOTES = []         # error texts that differ, logged at the end
KNOWN = []         # KNOWN_DEFECTS met, logged at the end
BYTES = []         # storage files written in other bytes, logged at the end
BASE_SNAPSHOT = {}  # shape -> snapshot of BASE[shape], paths as "repo/..."


# ---- known differences -----------------------------------------------------------

# Deliberate: (pattern in our output, replacement giving stock's, why).
KNOWN_DIFFERENCES = [
    (rb"(\* fs_fs : Module for working with a plain file \(FSFS\) repository)"
     rb" \(fsfs7 [^)]*\)\.",
     rb"\1.",
     "`--version` lists our module with a description that names fsfs7"),
]

# Defects of our module this test found, not fixed yet: (case name,
# command prefix -- or the path of a file in the trees left behind --,
# shapes, what stock does and ours not).  A step or file that differs
# and matches an entry is logged, not failed; an entry whose case runs
# on a listed shape and no longer differs fails the test, so that the
# entry goes once the defect is fixed.
KNOWN_DEFECTS = [
    ("svnadmin_pack_twice", ("svnadmin", "rev-size", "-r", "8"), {"f7", "f8"},
     "a logical pack file has its items in another order and other padding than "
     "stock's (pack.c, pack_order.c), which rev-size shows: r8 counts a pack's padding"),
    ("svnadmin_pack_twice", ("svnadmin", "rev-size", "-r", "4"), {"f7"},
     "the same, for the pack of r4-r7"),
    ("svnadmin_pack_twice", ("svnfsfs", "stats"), {"f7", "f8"},
     "the same, in stats: the revisions' total bytes and which path a shared "
     "representation is listed under"),
    ("svnadmin_hotcopy_full_and_incremental", os.path.join("repo", "db", "pack-lock"),
     {"f7", "f7phys", "f8", "f8u"},
     "hotcopy of a format 7+ repository without db/pack-lock creates an empty one in "
     "the source; stock leaves the source as it was (repo_hotcopy.c)"),
]


# ---- normalising ------------------------------------------------------------------

UUID_RE = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ISO_DATE = re.compile(rb"\b(\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
HUMAN_DATE = re.compile(rb"\b(\d{4})-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4} \([^)]*\)")
CHILDREN = re.compile(rb"(K 8\nchildren\nV \d+\n)((?:[0-9a-f]{32}\n)+)")


def normalise(data, d):
    """DATA (output or file contents) with what is random or made now
    replaced, D (a side's directory) as <DIR>."""
    data = data.replace(d.encode(), b"<DIR>")
    for pattern, repl, _ in KNOWN_DIFFERENCES:
        data = re.sub(pattern, repl, data)
    data = UUID_RE.sub(lambda m: m.group(0) if m.group(0) in KNOWN_UUIDS else b"<UUID>", data)
    for date in (ISO_DATE, HUMAN_DATE):
        data = date.sub(lambda m: m.group(0) if m.group(1) == b"2020" else b"<DATE>", data)
    # Lock digest files list their children in hash order.
    return CHILDREN.sub(lambda m: m.group(1) + b"".join(sorted(m.group(2).splitlines(True))),
                        data)


def rep_cache_rows(path):
    with sqlite3.connect("file:%s?mode=ro" % path, uri=True) as db:
        return repr(db.execute("SELECT * FROM rep_cache ORDER BY hash").fetchall()).encode()


def conf_settings(data):
    """The settings of a config file, without its comments."""
    return b"\n".join(l for l in data.split(b"\n") if l.strip() and not l.startswith(b"#"))


def written_storage(rel):
    """Is REL a revision, pack or transaction file, whose bytes a module
    may choose?"""
    parts = rel.split(os.sep)
    return "db" in parts and parts[parts.index("db") + 1:][:1] in (
        ["revs"], ["transactions"], ["txn-protorevs"])


def snapshot(d):
    """{relative path: (kind, mode, normalised contents)} of the tree D."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, d)
            st = os.lstat(p)
            if os.path.islink(p):
                out[rel] = ("link", 0, os.readlink(p).encode())
            elif name in dirs:
                out[rel] = ("dir", st.st_mode & 0o7777, b"")
            elif name == "rep-cache.db":
                out[rel] = ("file", st.st_mode & 0o7777, rep_cache_rows(p))
            else:
                with open(p, "rb") as f:
                    data = f.read()
                if not written_storage(rel):
                    data = normalise(data, d)
                if name == "fsfs.conf":
                    data = conf_settings(data)
                out[rel] = ("file", st.st_mode & 0o7777, data)
    return out


def snapshot_diff(a, b, base):
    """Differences of the snapshots A (stock's run) and B (ours): a list
    of lines, and the repositories (relative paths) whose revision, pack
    or transaction files differ where the stock run wrote them (BASE: the
    snapshot of the repository both started from, as "repo/...")."""
    out, rewritten = [], {}
    for rel in sorted(set(a) | set(b)):
        if rel not in b:
            out.append("%s: only stock's run left it" % rel)
        elif rel not in a:
            out.append("%s: only ours left it" % rel)
        elif a[rel][:2] != b[rel][:2]:
            out.append("%s: kind/mode stock %s %o, ours %s %o" % ((rel,) + a[rel][:2] + b[rel][:2]))
        elif a[rel][2] != b[rel][2]:
            if written_storage(rel) and base.get(rel) != a[rel]:
                repo = rel.split(os.sep + "db" + os.sep)[0]
                rewritten[repo] = rewritten.get(repo, 0) + 1
            else:
                out.append("%s: contents differ; %s" % (rel, T.first_diff(a[rel][2], b[rel][2], 60)))
    return out, rewritten


def blocks_sorted(text, start):
    """TEXT with its blocks (each from a line matching START to the next
    such line) sorted."""
    head, blocks = [], []
    for line in text.splitlines(True):
        if re.match(start, line):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
        else:
            head.append(line)
    return b"".join(head + sorted(b"".join(b) for b in blocks))


def unordered(start):
    """A COMPARE for output that lists blocks (starting at lines that
    match START) in hash order."""
    def compare(a, b):
        x, y = blocks_sorted(a, start), blocks_sorted(b, start)
        return None if x == y else T.first_diff(x, y)
    return compare


PROPS = unordered(rb"^  \S|^<property ")
LOCKS = unordered(rb"^Path: ")
HEADER_LINE = re.compile(rb"^[A-Z][A-Za-z0-9-]*: ")


def headers_sorted(text):
    """TEXT with each run of header lines ("Name: value") sorted."""
    out, run = [], []
    for line in text.split(b"\n"):
        if HEADER_LINE.match(line):
            run.append(line)
            continue
        out += sorted(run) + [line]
        run = []
    return b"\n".join(out + sorted(run))


def dump_headers(a, b):
    """A COMPARE for svndumpfilter, which writes the headers of a record
    in hash order."""
    x, y = headers_sorted(a), headers_sorted(b)
    return None if x == y else T.first_diff(x, y)


# ---- cases -------------------------------------------------------------------------

def cmd(*argv, stdin=None, compare=None, text=False):
    """A command of a case: ARGV with {repo} {url} (the side's copy of
    the repository), {dir} (the side's directory), {in} (the inputs) and
    {txn} (the base's transaction) filled in; STDIN a file of the inputs
    ("index-N": that of the shape) or None; COMPARE(stock_stdout, our_stdout) -> None or a difference, for
    output that is not fully deterministic; TEXT: compare the error text
    too (it states a fact both modules must word alike)."""
    return ("cmd", argv, stdin, compare, text)


def act(fn):
    """A step done alike on both sides (outside the module), FN(dir)."""
    return ("act", fn)


def stats_compare(a, b):
    """svnfsfs stats: ties in its rankings come in hash order."""
    return stats_diff(a.decode(errors="replace"), b.decode(errors="replace"))


def remove(*parts):
    """Remove D/PARTS if it exists."""
    def go(d):
        path = os.path.join(d, *parts)
        if os.path.exists(path):
            os.remove(path)
    return go


def copy_in(name, to):
    """Copy input tree NAME (INPUTS/NAME) to D/TO."""
    def go(d):
        T.run(["cp", "-a", os.path.join(INPUTS, name), os.path.join(d, to)])
    return go


class Case:
    """Subcommand SUB of TOOL (and the subcommands in ALSO, which its
    steps run too), WHAT it shows; READONLY: leaves the repository as it
    was; ONCE: needs no repository."""

    def __init__(self, tool, sub, what, steps, readonly=False, once=False, also=()):
        self.tool, self.sub, self.what = tool, sub, what
        self.steps, self.readonly, self.once, self.also = steps, readonly, once, also

    @property
    def name(self):
        return "%s_%s_%s" % (self.tool, self.sub.replace("-", "_"), self.what)


R = "{repo}"
U = "{url}"
CFG = ("--config-dir", "{dir}/cfg")
CASES = [
    # -- svnadmin -----------------------------------------------------------------
    Case("svnadmin", "build-repcache", "rebuild", [
        act(remove("repo", "db", "rep-cache.db")),
        cmd("svnadmin", "build-repcache", "-r", "1:5", R),
        cmd("svnadmin", "build-repcache", R),
        cmd("svnadmin", "build-repcache", "-q", "-r", "99", R),
    ]),
    Case("svnadmin", "crashtest", "abort", [cmd("svnadmin", "crashtest", R)], readonly=True),
    Case("svnadmin", "create", "formats", [
        cmd("svnadmin", "create", "{dir}/new8"),
        cmd("svnadmin", "create", "--compatible-version", "1.8", "{dir}/new6"),
        cmd("svnadmin", "create", "--compatible-version", "1.9", "{dir}/new7"),
        cmd("svnadmin", "create", "--compatible-version", "1.3", "--fs-type", "fsfs",
            "{dir}/new1"),
        cmd("svnadmin", "create", "--pre-1.6-compatible", "{dir}/new3"),
        cmd("svnadmin", "create", "{dir}/new8"),
        cmd("svnadmin", "create", "--fs-type", "nope", "{dir}/bad"),
    ], once=True),
    Case("svnadmin", "delrevprop", "props", [
        cmd("svnadmin", "delrevprop", "-r", "3", R, "svn:log"),
        cmd("svnadmin", "delrevprop", "-r", "12", R, "svn:author"),
        cmd("svnadmin", "delrevprop", "--use-pre-revprop-change-hook",
            "--use-post-revprop-change-hook", "-r", "6", R, "svn:log"),
        cmd("svnadmin", "delrevprop", "-r", "5", R, "no-such-prop"),
        cmd("svnadmin", "delrevprop", "-r", "99", R, "svn:log", text=True),
    ]),
    Case("svnadmin", "deltify", "range", [
        cmd("svnadmin", "deltify", "-r", "1:4", R),
        cmd("svnadmin", "deltify", "-q", R),
        cmd("svnadmin", "deltify", "-r", "99", R, text=True),
    ]),
    Case("svnadmin", "dump", "variants", [
        cmd("svnadmin", "dump", R),
        cmd("svnadmin", "dump", "-q", "--incremental", "-r", "5:9", R),
        cmd("svnadmin", "dump", "-q", "--deltas", "-r", "3:HEAD", R),
        cmd("svnadmin", "dump", "-q", "--exclude", "/branches", "--exclude", "/tags", R),
        cmd("svnadmin", "dump", "-q", "--include", "*.c", "--pattern", R),
        cmd("svnadmin", "dump", "-q", "-r", "20", R, text=True),
    ], readonly=True),
    Case("svnadmin", "dump-revprops", "all", [
        cmd("svnadmin", "dump-revprops", R),
        cmd("svnadmin", "dump-revprops", "-q", "-r", "3:7", R),
    ], readonly=True),
    Case("svnadmin", "freeze", "commands", [
        cmd("svnadmin", "freeze", R, "--", "svnlook", "youngest", R),
        cmd("svnadmin", "freeze", R, "--", "sh", "-c", "exit 3"),
    ], readonly=True),
    Case("svnadmin", "help", "text", [
        cmd("svnadmin", "help"), cmd("svnadmin", "help", "rev-size", "pack"),
        cmd("svnadmin", "--version"), cmd("svnadmin", "--version", "--quiet"),
    ], once=True),
    Case("svnadmin", "hotcopy", "full_and_incremental", [
        cmd("svnadmin", "hotcopy", R, "{dir}/hc"),
        cmd("svnadmin", "hotcopy", "--incremental", R, "{dir}/hc"),
        cmd("svnadmin", "hotcopy", "--incremental", "-q", R, "{dir}/hc2"),
        cmd("svnadmin", "hotcopy", R, "{dir}/hc"),
    ]),
    Case("svnadmin", "info", "plain", [cmd("svnadmin", "info", R)], readonly=True),
    Case("svnadmin", "list-dblogs", "fsfs", [cmd("svnadmin", "list-dblogs", R)], readonly=True),
    Case("svnadmin", "list-unused-dblogs", "fsfs", [cmd("svnadmin", "list-unused-dblogs", R)],
         readonly=True),
    Case("svnadmin", "load", "more_revisions", [
        cmd("svnadmin", "load", R, stdin="extra.dump"),
        cmd("svnadmin", "load", "-q", R, stdin="history.dump"),
        cmd("svnadmin", "load", "-q", "--parent-dir", "/branches/b1", "-r", "2:3",
            "--ignore-uuid", R, stdin="history.dump"),
    ]),
    Case("svnadmin", "load-revprops", "revprops", [
        cmd("svnadmin", "load-revprops", R, stdin="revprops.dump"),
        cmd("svnadmin", "load-revprops", "-q", "--force-uuid", R, stdin="revprops.dump"),
    ]),
    Case("svnadmin", "lock", "admin_locks", [
        cmd("svnadmin", "lock", R, "/trunk/README", "carol", "{in}/comment",
            "opaquelocktoken:parity-1"),
        cmd("svnadmin", "lock", R, "/trunk/README", "dave", "{in}/comment"),
        cmd("svnadmin", "lock", R, "/tags/v1/README", "erin", "{in}/comment"),
        cmd("svnadmin", "lock", R, "/trunk/nope", "erin", "{in}/comment"),
        cmd("svnadmin", "lslocks", R, compare=LOCKS),
    ]),
    Case("svnadmin", "lslocks", "paths", [
        cmd("svnadmin", "lslocks", R, compare=LOCKS),
        cmd("svnadmin", "lslocks", R, "/trunk", compare=LOCKS),
        cmd("svnadmin", "lslocks", R, "/branches"),
    ], readonly=True),
    Case("svnadmin", "lstxns", "plain", [cmd("svnadmin", "lstxns", R)], readonly=True),
    Case("svnadmin", "pack", "twice", [
        cmd("svnadmin", "pack", R), cmd("svnadmin", "pack", "-q", R),
        cmd("svnadmin", "rev-size", "-r", "4", R), cmd("svnadmin", "rev-size", "-r", "8", R),
        cmd("svnfsfs", "stats", R, compare=stats_compare),
    ]),
    Case("svnadmin", "recover", "healthy", [cmd("svnadmin", "recover", R)]),
    Case("svnadmin", "rev-size", "revisions", [
        cmd("svnadmin", "rev-size", "-r", "0", R), cmd("svnadmin", "rev-size", "-r", "4", R),
        cmd("svnadmin", "rev-size", "-q", "-r", "14", R),
        cmd("svnadmin", "rev-size", "-r", "15", R, text=True),
    ], readonly=True),
    Case("svnadmin", "rmlocks", "base_lock", [
        cmd("svnadmin", "rmlocks", R, "/trunk/bin.dat", "/trunk/README"),
        cmd("svnadmin", "lslocks", R, compare=LOCKS),
    ]),
    Case("svnadmin", "rmtxns", "base_txn", [
        cmd("svnadmin", "rmtxns", "-q", R, "{txn}"),
        cmd("svnadmin", "rmtxns", R, "no-such-txn"),
        cmd("svnadmin", "lstxns", R),
    ]),
    Case("svnadmin", "setlog", "messages", [
        cmd("svnadmin", "setlog", "--bypass-hooks", "-r", "5", R, "{in}/msg"),
        cmd("svnadmin", "setlog", "-r", "13", R, "{in}/msg"),
        cmd("svnadmin", "setlog", "-r", "99", R, "{in}/msg", text=True),
    ]),
    Case("svnadmin", "setrevprop", "props", [
        cmd("svnadmin", "setrevprop", "-r", "2", R, "custom", "{in}/msg"),
        cmd("svnadmin", "setrevprop", "--use-pre-revprop-change-hook", "-r", "0", R,
            "svn:log", "{in}/msg"),
        cmd("svnadmin", "setrevprop", "-r", "6", R, "big", "{in}/big"),
        cmd("svnadmin", "setrevprop", "-r", "99", R, "custom", "{in}/msg", text=True),
    ]),
    Case("svnadmin", "setuuid", "values", [
        cmd("svnadmin", "setuuid", R, NEW_UUID),
        cmd("svnadmin", "setuuid", R, "not-a-uuid", text=True),
        cmd("svnadmin", "setuuid", R),
    ]),
    Case("svnadmin", "unlock", "base_lock", [
        cmd("svnadmin", "unlock", R, "/trunk/bin.dat", "alice", "opaquelocktoken:wrong"),
        cmd("svnadmin", "unlock", R, "/trunk/bin.dat", "alice", BASE_TOKEN),
        cmd("svnadmin", "unlock", R, "/trunk/bin.dat", "alice", BASE_TOKEN),
    ]),
    Case("svnadmin", "upgrade", "twice", [
        cmd("svnadmin", "upgrade", R), cmd("svnadmin", "upgrade", R),
        cmd("svnadmin", "info", R),
    ]),
    Case("svnadmin", "verify", "options", [
        cmd("svnadmin", "verify", R),
        cmd("svnadmin", "verify", "-q", "--keep-going", "-r", "3:7", R),
        cmd("svnadmin", "verify", "-q", "--check-normalization", "-M", "4", R),
        cmd("svnadmin", "verify", "-q", "--metadata-only", R),
        cmd("svnadmin", "verify", "-t", "{txn}", R),
    ], readonly=True),
    # -- svnlook ------------------------------------------------------------------
    Case("svnlook", "author", "revs", [
        cmd("svnlook", "author", R), cmd("svnlook", "author", "-r", "2", R),
        cmd("svnlook", "author", "-t", "{txn}", R),
        cmd("svnlook", "author", "-r", "99", R, text=True),
    ], readonly=True),
    Case("svnlook", "cat", "files", [
        cmd("svnlook", "cat", R, "/trunk/README"),
        cmd("svnlook", "cat", "-r", "2", R, "/trunk/doc/big.txt"),
        cmd("svnlook", "cat", "-r", "12", R, "trunk/bin.dat"),
        cmd("svnlook", "cat", "-t", "{txn}", R, "/trunk/doc/\u00e9t\u00e9.txt"),
        cmd("svnlook", "cat", R, "/trunk/nope", text=True),
        cmd("svnlook", "cat", R, "/trunk", text=True),
    ], readonly=True),
    Case("svnlook", "changed", "revs", [
        cmd("svnlook", "changed", "-r", "13", "--copy-info", R),
        cmd("svnlook", "changed", "-r", "7", R), cmd("svnlook", "changed", "-r", "9", R),
        cmd("svnlook", "changed", "-t", "{txn}", R),
    ], readonly=True),
    Case("svnlook", "date", "revs", [
        cmd("svnlook", "date", R), cmd("svnlook", "date", "-r", "0", R),
    ], readonly=True),
    Case("svnlook", "diff", "revs", [
        cmd("svnlook", "diff", "-r", "5", R),
        cmd("svnlook", "diff", "-r", "7", "--diff-copy-from", R),
        cmd("svnlook", "diff", "-r", "3", "--diff-copy-from", R),
        cmd("svnlook", "diff", "-r", "4", "--no-diff-added", "--ignore-properties", R),
        cmd("svnlook", "diff", "-r", "9", "--properties-only", R),
        cmd("svnlook", "diff", "-r", "12", "-x", "-w", R),
        cmd("svnlook", "diff", "-t", "{txn}", R),
    ], readonly=True),
    Case("svnlook", "dirs-changed", "revs", [
        cmd("svnlook", "dirs-changed", "-r", "13", R),
        cmd("svnlook", "dirs-changed", "-r", "4", R),
    ], readonly=True),
    Case("svnlook", "filesize", "files", [
        cmd("svnlook", "filesize", "-r", "2", R, "/trunk/doc/big.txt"),
        cmd("svnlook", "filesize", R, "/trunk/bin.dat"),
        cmd("svnlook", "filesize", R, "/trunk", text=True),
    ], readonly=True),
    Case("svnlook", "help", "text", [
        cmd("svnlook", "help"), cmd("svnlook", "help", "tree"), cmd("svnlook", "--version"),
    ], once=True),
    Case("svnlook", "history", "paths", [
        cmd("svnlook", "history", "--show-ids", R, "/trunk/source/main.c"),
        cmd("svnlook", "history", "-r", "10", R, "/trunk"),
        cmd("svnlook", "history", "--limit", "3", R),
        cmd("svnlook", "history", R, "/trunk/nope", text=True),
    ], readonly=True),
    Case("svnlook", "info", "revs", [
        cmd("svnlook", "info", R), cmd("svnlook", "info", "-r", "9", R),
        cmd("svnlook", "info", "-t", "{txn}", R),
    ], readonly=True),
    Case("svnlook", "lock", "paths", [
        cmd("svnlook", "lock", R, "/trunk/bin.dat"), cmd("svnlook", "lock", R, "/trunk/README"),
    ], readonly=True),
    Case("svnlook", "log", "revs", [
        cmd("svnlook", "log", "-r", "2", R), cmd("svnlook", "log", "-r", "9", R),
        cmd("svnlook", "log", "-t", "{txn}", R),
    ], readonly=True),
    Case("svnlook", "propget", "props", [
        cmd("svnlook", "propget", R, "svn:eol-style", "/trunk/source/main.c"),
        cmd("svnlook", "propget", "-r", "7", R, "svn:mergeinfo", "/branches/b1"),
        cmd("svnlook", "propget", "--revprop", "-r", "2", R, "svn:log"),
        cmd("svnlook", "propget", "-v", "--show-inherited-props", R, "custom:prop",
            "/trunk/source/main.c", compare=PROPS),
        cmd("svnlook", "propget", R, "nope", "/trunk", text=True),
    ], readonly=True),
    Case("svnlook", "proplist", "props", [
        cmd("svnlook", "proplist", "-v", R, "/trunk/source/main.c", compare=PROPS),
        cmd("svnlook", "proplist", "--revprop", "-r", "0", R, compare=PROPS),
        cmd("svnlook", "proplist", "--revprop", "-t", "{txn}", R, compare=PROPS),
        cmd("svnlook", "proplist", "-v", "--xml", "-r", "4", R, "/trunk", compare=PROPS),
    ], readonly=True),
    Case("svnlook", "tree", "shapes", [
        cmd("svnlook", "tree", "--show-ids", R),
        cmd("svnlook", "tree", "-r", "6", "--full-paths", R, "/tags"),
        cmd("svnlook", "tree", "-N", R, "/trunk"),
        cmd("svnlook", "tree", "-t", "{txn}", R, "/"),
    ], readonly=True),
    Case("svnlook", "uuid", "plain", [cmd("svnlook", "uuid", R)], readonly=True),
    Case("svnlook", "youngest", "plain", [
        cmd("svnlook", "youngest", R), cmd("svnlook", "youngest", "--no-newline", R),
    ], readonly=True),
    # -- svnfsfs --------------------------------------------------------------------
    Case("svnfsfs", "dump-index", "revs", [
        cmd("svnfsfs", "dump-index", "-r", "5", R),
        cmd("svnfsfs", "dump-index", "-r", "13", R),
        cmd("svnfsfs", "dump-index", "-r", "99", R),
    ], readonly=True),
    Case("svnfsfs", "help", "text", [
        cmd("svnfsfs", "help"), cmd("svnfsfs", "help", "stats"), cmd("svnfsfs", "--version"),
    ], once=True),
    Case("svnfsfs", "load-index", "same_index", [
        cmd("svnfsfs", "load-index", R, stdin="index-13"),
        cmd("svnfsfs", "load-index", R, stdin="index-5"),
        cmd("svnadmin", "verify", "-q", R),
    ]),
    Case("svnfsfs", "stats", "report", [
        cmd("svnfsfs", "stats", R, compare=stats_compare),
        cmd("svnfsfs", "stats", "-q", "-M", "4", R, compare=stats_compare),
    ], readonly=True),
    # -- svnsync --------------------------------------------------------------------
    Case("svnsync", "initialize", "twice", [
        act(copy_in("mirror", "mirror")),
        cmd("svnsync", "initialize", *CFG, "file://{dir}/mirror", U),
        cmd("svnsync", "initialize", *CFG, "file://{dir}/mirror", U),
        cmd("svnsync", "initialize", *CFG, "--allow-non-empty", "file://{dir}/mirror", U),
    ]),
    # One sync serves copy-revprops too: each costs seconds.
    Case("svnsync", "synchronize", "and_copy_revprops", [
        act(copy_in("mirror", "mirror")),
        cmd("svnsync", "init", *CFG, "-q", "file://{dir}/mirror", U),
        cmd("svnsync", "synchronize", *CFG, "file://{dir}/mirror"),
        cmd("svnsync", "sync", *CFG, "-q", "file://{dir}/mirror", U),
        cmd("svnadmin", "setlog", "--bypass-hooks", "-r", "3", R, "{in}/msg"),
        cmd("svnadmin", "setrevprop", "-r", "9", R, "custom", "{in}/msg"),
        cmd("svnsync", "copy-revprops", *CFG, "file://{dir}/mirror", "3"),
        cmd("svnsync", "copy-revprops", *CFG, "-q", "file://{dir}/mirror", U, "5:HEAD"),
        cmd("svnsync", "info", *CFG, "file://{dir}/mirror"),
        cmd("svnlook", "proplist", "-v", "--revprop", "-r", "9", "{dir}/mirror", compare=PROPS),
        cmd("svnadmin", "dump", "-q", "{dir}/mirror"),
    ], also=("copy-revprops",)),
    Case("svnsync", "info", "mirror", [
        act(copy_in("mirror", "mirror")),
        cmd("svnsync", "info", *CFG, "file://{dir}/mirror"),
        cmd("svnsync", "init", *CFG, "-q", "file://{dir}/mirror", U),
        cmd("svnsync", "info", *CFG, "file://{dir}/mirror"),
        cmd("svnsync", "info", *CFG, U),
    ]),
    Case("svnsync", "help", "text", [
        cmd("svnsync", "help"), cmd("svnsync", "help", "sync"), cmd("svnsync", "--version"),
    ], once=True),
    # -- svnrdump -------------------------------------------------------------------
    Case("svnrdump", "dump", "urls", [
        cmd("svnrdump", "dump", *CFG, "-q", U),
        cmd("svnrdump", "dump", *CFG, "-r", "3:6", "--incremental", U),
        cmd("svnrdump", "dump", *CFG, "-q", "-r", "13", U + "/trunk"),
        cmd("svnrdump", "dump", *CFG, "-q", "-r", "99", U),
    ], readonly=True),
    Case("svnrdump", "load", "into_empty", [
        act(copy_in("mirror", "target")),
        cmd("svnrdump", "load", *CFG, "file://{dir}/target", stdin="history.dump"),
        cmd("svnrdump", "load", *CFG, "-q", "file://{dir}/target", stdin="extra.dump"),
        cmd("svnadmin", "dump", "-q", "{dir}/target"),
    ]),
    Case("svnrdump", "help", "text", [
        cmd("svnrdump", "help"), cmd("svnrdump", "--version"),
    ], once=True),
    # -- svndumpfilter (reads a dump stream; opens no repository) --------------
    Case("svndumpfilter", "include", "paths", [
        cmd("svndumpfilter", "include", "/trunk", stdin="history.dump", compare=dump_headers),
        cmd("svndumpfilter", "include", "--pattern", "*.c", "--drop-empty-revs",
            "--renumber-revs", "--quiet", stdin="history.dump", compare=dump_headers),
    ], once=True),
    Case("svndumpfilter", "exclude", "paths", [
        cmd("svndumpfilter", "exclude", "/tags", "--drop-all-empty-revs", stdin="history.dump",
            compare=dump_headers),
        cmd("svndumpfilter", "exclude", "/trunk", stdin="history.dump", compare=dump_headers),
    ], once=True),
    Case("svndumpfilter", "help", "text", [
        cmd("svndumpfilter", "help"), cmd("svndumpfilter", "--version"),
    ], once=True),
]

# Subcommands without a case, with the reason.  (None at present: even
# the Berkeley DB ones run, and print nothing, on FSFS.)
NOT_COVERED = {}


# ---- setup -------------------------------------------------------------------------

def help_subcommands(tool):
    """The subcommand names `TOOL help` lists (first name of each line)."""
    text = T.stock_ok(tool, "help").stdout.decode()
    part = text.split("Available subcommands:", 1)[1]
    names = []
    for line in part.split("\n")[1:]:
        if not line.strip():
            break
        names.append(line.split()[0])
    return names


def extra_dump():
    """Revisions 15 and 16 on top of the history, for loads."""
    return (b"SVN-fs-dump-format-version: 2\n\n" + H.revision_record(15, [
        H.node_record(b"trunk/new.txt", b"file", b"add", props=[], text=b"new\n"),
        H.node_record(b"trunk/README", b"file", b"change", text=b"Changed again.\n"),
    ], log=b"Loaded on top.") + H.revision_record(16, [
        H.node_record(b"branches/b2", b"dir", b"add", copy=(15, b"trunk")),
    ], author=b"erin", log=b"Branch b2."))


def revprops_dump():
    """Revprop records for r2, r5 and r13 (a dump-revprops stream)."""
    return (b"SVN-fs-dump-format-version: 3\n\nUUID: %s\n\n" % H.UUID.encode()
            + H.revision_record(2, [], author=b"zed", log=b"Rewritten log.")
            + H.revision_record(5, [], log=None)
            + H.revision_record(13, [], author=b"yan", log=b"x" * 3000))


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def make_inputs():
    global INPUTS
    INPUTS = S.path("inputs")
    os.makedirs(INPUTS)
    write(os.path.join(INPUTS, "msg"), b"A log message set by the parity test.\n")
    write(os.path.join(INPUTS, "big"), b"y" * 20000)
    write(os.path.join(INPUTS, "comment"), b"locked by the parity test\n")
    write(os.path.join(INPUTS, "history.dump"), H.dump())
    write(os.path.join(INPUTS, "extra.dump"), extra_dump())
    write(os.path.join(INPUTS, "revprops.dump"), revprops_dump())
    mirror = os.path.join(INPUTS, "mirror")
    T.stock_ok("svnadmin", "create", mirror)
    T.stock_ok("svnadmin", "setuuid", mirror, MIRROR_UUID)
    T.allow_revprop_changes(mirror)


def make_base(shape):
    """BASE[shape]: the pristine repository plus a lock and an open
    transaction, both made through the stock module; the index dumps of
    r5 and r13 (logical addressing) in the inputs."""
    base = S.copy_repo(PRISTINE[shape], "base-" + shape)
    T.stock_ok("svnadmin", "lock", base, "/trunk/bin.dat", "alice",
               os.path.join(INPUTS, "comment"), BASE_TOKEN)
    if not os.path.exists(TXN_TOOL):
        raise T.SetupError("%s is not built (make check builds it)" % TXN_TOOL)
    txn = T.stock_ok(TXN_TOOL, "begin", base).stdout.decode().strip()
    T.stock_ok(TXN_TOOL, "mkdir", base, txn, "txn-dir")
    T.stock_ok(TXN_TOOL, "edit", base, txn, "trunk/doc/\u00e9t\u00e9.txt", "changed in a txn\n")
    TXN[shape] = txn
    for rev in (5, 13):
        p = T.stock("svnfsfs", "dump-index", "-r", str(rev), base)
        write(os.path.join(INPUTS, "index-%d-%s" % (rev, shape)), p.stdout)
    BASE[shape] = base
    BASE_SNAPSHOT[shape] = {os.path.join("repo", rel): v
                            for rel, v in snapshot(base).items()}


class MemoryScratch(T.Scratch):
    """A T.Scratch in /dev/shm where there is one: the cases copy and
    commit a lot (svnsync and svnrdump load commit revision by revision),
    and on a busy disk that took ~15 % more time in /tmp."""

    def __init__(self, tag):
        shm = "/dev/shm"
        where = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else "/tmp"
        self.dir = tempfile.mkdtemp(prefix="fsfs7-%s-" % tag, dir=where)


def setup():
    global S
    PRISTINE.update(H.repositories())
    S = MemoryScratch("parity")
    make_inputs()
    for shape in SHAPES:
        make_base(shape)


# ---- running a case ------------------------------------------------------------------

def run_side(runner, case, shape, d):
    """Run CASE's steps through RUNNER in directory D (holding a copy of
    the base as D/repo, unless the case runs once): [(argv, process)]."""
    fill = {"repo": os.path.join(d, "repo"), "dir": d, "in": INPUTS,
            "url": T.url(os.path.join(d, "repo")), "txn": TXN.get(shape, "")}
    out = []
    for step in case.steps:
        if step[0] == "act":
            step[1](d)
            continue
        _, argv, stdin, _, _ = step
        args = [a.format(**fill) for a in argv]
        data = b""
        if stdin:
            name = stdin if not stdin.startswith("index-") else "%s-%s" % (stdin, shape)
            with open(os.path.join(INPUTS, name), "rb") as f:
                data = f.read()
        out.append((argv, runner(*args, input=data, cwd=d)))
    return out


def known_defect(case, shape, argv=None, path=None):
    """The KNOWN_DEFECTS entry for step ARGV or file PATH of CASE on
    SHAPE, or None."""
    for name, where, shapes, why in KNOWN_DEFECTS:
        if name != case.name or shape not in shapes:
            continue
        if argv is not None and tuple(argv[:len(where)]) == where:
            return why
        if path is not None and where == path:
            return why
    return None


def known_files(case, shape):
    """{path: why} of the KNOWN_DEFECTS in the trees CASE leaves on SHAPE."""
    return {where: why for name, where, shapes, why in KNOWN_DEFECTS
            if name == case.name and shape in shapes and isinstance(where, str)}


def step_difference(step, a, b, dirs):
    """What differs between stock's run A and our run B of STEP, or None;
    error texts that differ where STEP does not ask for them go to
    NOTES."""
    out_a, out_b = normalise(a.stdout, dirs[0]), normalise(b.stdout, dirs[1])
    err_a, err_b = normalise(a.stderr, dirs[0]), normalise(b.stderr, dirs[1])
    if (b.returncode, T.errcodes(b)) != (a.returncode, T.errcodes(a)):
        return "exit status / error codes:\n  stock: %s\n  ours:  %s" % (
            T.describe(a), T.describe(b))
    diff = step[3](out_a, out_b) if step[3] else (
        None if out_a == out_b else T.first_diff(out_a, out_b))
    if diff:
        return "output differs: " + diff
    if step[4] and err_a != err_b:
        return "error text differs:\n  stock: %r\n  ours:  %r" % (err_a, err_b)
    if err_a != err_b:
        NOTES.append("%s\n    stock: %s\n    ours:  %s" % (
            " ".join(step[1]),
            err_a.decode(errors="replace").strip().replace("\n", "\n           "),
            err_b.decode(errors="replace").strip().replace("\n", "\n           ")))
    return None


def logically_equal(tc, what, dirs, repo):
    """REPO (relative) of both sides: stock dumps equal, stock verifies
    ours."""
    a, b = (T.stock("svnadmin", "dump", "-q", os.path.join(d, repo)) for d in dirs)
    tc.assertEqual((a.returncode, b.returncode), (0, 0), "%s: stock dump of %s: %s / %s"
                   % (what, repo, T.describe(a), T.describe(b)))
    da, db = normalise(a.stdout, dirs[0]), normalise(b.stdout, dirs[1])
    tc.assertTrue(da == db, "%s: %s holds other data than stock's: %s"
                  % (what, repo, T.first_diff(da, db)))
    v = T.stock("svnadmin", "verify", "-q", os.path.join(dirs[1], repo))
    tc.assertEqual(v.returncode, 0, "%s: stock verify of ours' %s: %s"
                   % (what, repo, T.describe(v)))


def compare_runs(tc, case, shape, dirs, runs, base):
    """Step by step: exit status, error codes, stdout (and error text
    where the step asks); then the trees left behind."""
    what = "%s on %s" % (case.name, shape)
    cmds = [s for s in case.steps if s[0] == "cmd"]
    for step, (argv, a), (_, b) in zip(cmds, runs[0], runs[1]):
        diff = step_difference(step, a, b, dirs)
        why = known_defect(case, shape, argv=argv)
        line = "%s: %s" % (what, " ".join(argv))
        if why:
            tc.assertTrue(diff, "%s: the known defect no longer shows (%s): remove it from "
                          "KNOWN_DEFECTS" % (line, why))
            KNOWN.append("%s\n    %s\n    %s" % (line, why, diff.replace("\n", "\n    ")))
            continue
        tc.assertIsNone(diff, "%s: %s" % (line, diff))
    lines, rewritten = snapshot_diff(snapshot(dirs[0]), snapshot(dirs[1]), base)
    for path, why in known_files(case, shape).items():
        shown = [l for l in lines if l.startswith(path + ":")]
        tc.assertTrue(shown, "%s: the known defect no longer shows (%s): remove it from "
                      "KNOWN_DEFECTS" % (what, why))
        KNOWN.append("%s: %s\n    %s\n    %s" % (what, path, why, "\n    ".join(shown)))
        lines = [l for l in lines if l not in shown]
    tc.assertFalse(lines, "%s: the trees left behind differ:\n  %s"
                   % (what, "\n  ".join(lines[:12])))
    for repo, n in sorted(rewritten.items()):
        if os.path.isfile(os.path.join(dirs[0], repo, "format")):
            logically_equal(tc, what, dirs, repo)
        BYTES.append("%s: %d revision/pack/transaction files of %s differ in bytes"
                     % (what, n, repo))


def run_cases(tc, cases, shape, tag):
    """Run CASES on a fresh pair of copies of BASE[shape] (a pair without
    repository for cases that run once) and compare them."""
    dirs = []
    for side in "AB":        # names of one length: paths end up in files
        d = S.path("%s-%s-%s" % (tag, shape, side))
        os.makedirs(d)
        if shape in BASE:
            T.run(["cp", "-a", BASE[shape], os.path.join(d, "repo")])
        dirs.append(d)

    def go(side):
        runner = T.stock if side == 0 else T.ours
        return [run_side(runner, c, shape, dirs[side]) for c in cases]
    runs = T.parallel(go, [0, 1], jobs=2)
    base = BASE_SNAPSHOT.get(shape, {})
    for k, case in enumerate(cases):
        with tc.subTest(case=case.name, shape=shape):
            compare_runs(tc, case, shape, dirs, (runs[0][k], runs[1][k]), base)
    for d in dirs:
        T.remove_tree(d)


def shapes_of(case, k):
    """The shapes case number K (of the read-only or the writing ones)
    runs on at this depth: all under FSFS7_SLOW; else one of the six
    quick shapes, rotating (read-only and writing cases each start at
    f6)."""
    if T.SLOW:
        return list(SHAPES)
    return [SHAPES[k % 6]]


def schedule():
    """{shape: ([read-only cases], [writing cases])} at this depth."""
    out = {shape: ([], []) for shape in SHAPES}
    ro = [c for c in CASES if c.readonly]
    wr = [c for c in CASES if not (c.readonly or c.once)]
    for k, case in enumerate(ro):
        for shape in shapes_of(case, k):
            out[shape][0].append(case)
    for k, case in enumerate(wr):
        for shape in shapes_of(case, k):
            out[shape][1].append(case)
    return out


class Parity(unittest.TestCase):
    def test_parity_every_subcommand_covered(self):
        """Each subcommand `help` lists has a case or a reason; each case
        names a subcommand that exists."""
        listed = {(t, s) for t in TOOLS for s in help_subcommands(t)}
        cased = {(c.tool, s) for c in CASES for s in (c.sub,) + c.also}
        missing = sorted(listed - cased - set(NOT_COVERED))
        self.assertFalse(missing, "subcommands without a parity case or a reason in "
                         "NOT_COVERED: %s" % ", ".join("%s %s" % m for m in missing))
        stale = sorted((cased | set(NOT_COVERED)) - listed)
        self.assertFalse(stale, "cases for subcommands the tools do not list: %s" % stale)

    def test_parity_every_case_scheduled(self):
        """At this depth every case runs somewhere."""
        ran = {c.name for ro, wr in schedule().values() for c in ro + wr}
        ran |= {c.name for c in CASES if c.once}
        self.assertEqual(sorted({c.name for c in CASES} - ran), [])

    def test_parity_once(self):
        """Cases that need no repository (help, create, svndumpfilter)."""
        run_cases(self, [c for c in CASES if c.once], "none", "once")


def _add_shape(shape):
    def test(self):
        ro, wr = schedule()[shape]
        if ro:
            run_cases(self, ro, shape, "ro")
        for case in wr:
            run_cases(self, [case], shape, case.name)
    test.__doc__ = "The read-only cases (on one pair of copies) and the writing ones " \
                   "that run on %s at this depth." % shape
    setattr(Parity, "test_parity_%s" % shape, test)


for _shape in SHAPES:
    _add_shape(_shape)


def report():
    for title, lines in (("known defects of ours, shown again", KNOWN),
                         ("error texts that differ (codes equal; not compared)", NOTES),
                         ("files written in other bytes than stock's (same data)", BYTES)):
        if lines:
            print("%d %s:" % (len(lines), title), flush=True)
            for line in lines:
                print("  " + line, flush=True)


if __name__ == "__main__":
    try:
        T.main("parity", setup, sys.modules[__name__])
    finally:
        report()
        if S:
            S.cleanup()
