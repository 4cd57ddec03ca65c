#!/usr/bin/env python3
"""powercut.py: a power-cut simulator for an FSFS module (record and replay
in the manner of ALICE, OSDI 2014); doc/powercut.md.

    powercut.py run [--op OP ...] [--module stock|fsfs7|both]
                    [--model a|b|both] [--states N] [--seed S]
                    [--keep DIR] [--tsv FILE]
    powercut.py selftest         # known-bad constructions must be caught
    powercut.py trace --op OP [--module M]   # print one resolved trace
    powercut.py summary TSV...   # a markdown table of `run --tsv` rows

A SIGKILL keeps the page cache, so the crash campaigns (campaign.py) never
see a missing fsync.  Here an operation runs once, uninjected, with
tools/torture/record.so preloaded (record.c): every mutation and sync it
makes under the repository is written to a trace, with the bytes.  From a
copy of the repository taken before the run and that trace, the crash
states a power cut can leave are rebuilt, at cut points along the trace,
under two persistence models:

  a  lost unsynced data: a file's bytes (writes, truncations, modes) are
     durable as of the last fsync/fdatasync of that inode before the cut;
     a change of a directory entry (create, rename in or out, unlink,
     mkdir, link) is durable once that directory was fsynced after it (a
     rename across directories is two changes, one per directory); sync()
     and syncfs() make everything before them durable; the rest is lost.
     The state at a cut depends only on the syncs and acknowledgements
     before it, so every cut point is covered by one state per interval
     between them: model a is exhaustive.
  b  reordered and torn: the durable part of model a, plus any subset of
     the rest, applied in trace order: each unsynced write is split at
     4 KiB file blocks and every block persists or not on its own (torn
     writes, holes); an entry change persists without the data of the
     file it names unless that file was fsynced first; a rename within
     one directory is atomic.  Cut points and subsets are drawn from a
     seeded random stream, one persistence probability per state.

Each state is materialised in a scratch directory and judged by the
oracle: the repository opens (stock `svnlook`); every revision present
and every revision acknowledged before the cut ("Committed revision N",
"rN committed by", the end of the command for admin operations) reads,
in a stock dump, exactly as the run committed it; stock `svnadmin verify`
passes; the interrupted operation re-run completes; a next commit
succeeds and verify still passes (the last three through the module
tested).  A state that fails is given `svnadmin recover` (module tested)
and judged again from a fresh copy: recovery is the documented step after
a crash, and the figures count the states that needed it.  Verdicts:

  OK      every check passes (as is, or after recover)
  LITTER  OK, but the state holds paths neither the repository before nor
          after the run has (stray transactions, temp files)
  LOST    an acknowledged revision, revprop change, lock or unlock is gone
  TORN    a revision present reads differently from what was committed,
          or cannot be read
  FAIL    anything else (does not open, verify fails, the re-run or the
          next commit fails)

Every recording is first replayed in full and compared with the real
directory after the run, so a mutation the recorder missed (stdio, mmap)
stops the run instead of passing silently.  Only the Python 3 standard
library is used.
"""

import argparse
import bisect
import collections
import concurrent.futures
import hashlib
import os
import queue
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
RECORD_SO = os.environ.get("RECORD_SO") or os.path.join(HERE, "record.so")
BLOCK = 4096
VERDICTS = ("OK", "LITTER", "LOST", "TORN", "FAIL")
SEVERITY = {"OK": 0, "LITTER": 1, "FAIL": 2, "TORN": 3, "LOST": 4}


class Unsupported(Exception):
    """A trace this simulator cannot model (mmap writes, a directory moved
    in from outside the root) or a recording that misses mutations."""


# ---- processes --------------------------------------------------------------

def base_env():
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("RECORD_", "FAULT_", "POWERCUT_")) or \
                k in ("LD_PRELOAD", "LD_LIBRARY_PATH"):
            del env[k]
    env["LC_ALL"] = "C"
    return env


def module_env(moddir):
    """The stock binaries with the module MODDIR (None: the stock one)."""
    env = base_env()
    if moddir:
        env["LD_LIBRARY_PATH"] = moddir
    return env


STOCK = module_env(None)      # the oracle's environment


def run(argv, env, stdin=None, timeout=300):
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
        p = subprocess.run(argv, env=env, stdin=inp, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def must(argv, env, stdin=None):
    rc, out, err = run(argv, env, stdin)
    if rc != 0:
        raise RuntimeError("%s failed (%d): %s" % (
            " ".join(argv), rc, err.decode(errors="replace").strip()))
    return out


def text(b, n=300):
    return b.decode(errors="replace").strip().replace("\n", " | ")[:n]


# ---- the trace --------------------------------------------------------------

def unesc(s):
    return re.sub(rb"%([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  s.encode()).decode("utf-8", "surrogateescape")


def read_trace(path):
    """[(seq, pid, who, kind, [fields])] in order, and the blob's bytes;
    WHO is "m" for a call the FSFS module made (record.c)."""
    events = []
    with open(path) as f:
        for line in f:
            w = line.rstrip("\n").split(" ")
            events.append((int(w[0]), int(w[1]), w[2], w[3], w[4:]))
    blob_path = path + ".blob"
    blob = b""
    if os.path.exists(blob_path):
        with open(blob_path, "rb") as f:
            blob = f.read()
    return events, blob


# ---- the file-system model ----------------------------------------------------

class Node:
    """One inode: KIND f|d|l, MODE, DATA (bytes or, once owned by a state,
    bytearray), ENTRIES (dirs: name -> node id), TARGET (symlinks)."""
    __slots__ = ("kind", "mode", "data", "entries", "target")

    def __init__(self, kind, mode, data=b"", entries=None, target=None):
        self.kind, self.mode, self.data = kind, mode, data
        self.entries = {} if entries is None and kind == "d" else entries
        self.target = target

    def clone(self):
        return Node(self.kind, self.mode, bytearray(self.data),
                    dict(self.entries) if self.entries is not None else None,
                    self.target)


class FS:
    """A file system: node id -> Node, the root's id.  Copies share nodes
    until one is written (copy on write)."""

    def __init__(self, nodes, root):
        self.nodes, self.root, self.owned = nodes, root, set()
        self.memo = None        # digest(), once the FS is complete

    def copy(self):
        return FS(dict(self.nodes), self.root)

    def own(self, nid):
        if nid not in self.owned:
            self.nodes[nid] = self.nodes[nid].clone()
            self.owned.add(nid)
        return self.nodes[nid]

    def lookup(self, path):
        nid = self.root
        for part in path.split("/"):
            if part in ("", "."):
                continue
            nid = self.nodes[nid].entries[part]
        return nid

    def parent(self, path):
        """(id of the directory holding PATH, PATH's last component)."""
        head, _, name = path.rpartition("/")
        return self.lookup(head), name

    def walk(self):
        """(path, node id) of every reachable node, parents first."""
        out, seen, stack = [], set(), [("", self.root)]
        while stack:
            path, nid = stack.pop()
            out.append((path, nid))
            node = self.nodes[nid]
            if node.kind == "d" and nid not in seen:
                seen.add(nid)
                for name in sorted(node.entries, reverse=True):
                    stack.append((path + "/" + name if path else name,
                                  node.entries[name]))
        return out

    def digest(self):
        """A hash of every name, kind, mode and byte.  Computed once: a
        state's FS is not changed after it is built."""
        if self.memo is None:
            self.memo = self._digest()
        return self.memo

    def _digest(self):
        h = hashlib.sha256()
        for path, nid in self.walk():
            n = self.nodes[nid]
            h.update(("%s\0%s\0%o\0%d\0" % (path, n.kind, n.mode,
                                             len(n.data or b""))).encode(
                "utf-8", "surrogateescape"))
            h.update(bytes(n.data or b"") if n.kind == "f" else
                     (n.target or "").encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    def names(self):
        return {p for p, _ in self.walk() if p}


def snapshot(root):
    """The model of the directory ROOT as it is now, and {st_ino: node id}."""
    nodes, ino2id = {}, {}

    def node_of(path):
        st = os.lstat(path)
        if st.st_ino in ino2id:                 # a hard link
            return ino2id[st.st_ino]
        nid = len(nodes)
        ino2id[st.st_ino] = nid
        mode = st.st_mode & 0o7777
        if os.path.islink(path):
            nodes[nid] = Node("l", mode, target=os.readlink(path))
        elif os.path.isdir(path):
            nodes[nid] = Node("d", mode)
            for name in sorted(os.listdir(path)):
                nodes[nid].entries[name] = node_of(os.path.join(path, name))
        else:
            with open(path, "rb") as f:
                nodes[nid] = Node("f", mode, f.read())
        return nid

    root_id = node_of(root)
    return FS(nodes, root_id), ino2id


def materialise(fs, dest):
    """Write FS as the directory DEST (which must not exist)."""
    first = {}
    dirs = []
    for path, nid in fs.walk():
        full = os.path.join(dest, path) if path else dest
        n = fs.nodes[nid]
        if nid in first and n.kind != "d":
            os.link(first[nid], full)
            continue
        first[nid] = full
        if n.kind == "d":
            os.mkdir(full)
            dirs.append((full, n.mode))
        elif n.kind == "l":
            os.symlink(n.target, full)
        else:
            with open(full, "wb") as f:
                f.write(n.data)
            os.chmod(full, n.mode)
    for full, mode in reversed(dirs):
        os.chmod(full, mode | 0o700)


def compare_trees(fs, root):
    """Differences between the model FS and the real directory ROOT."""
    real, _ = snapshot(root)
    a = {p: fs.nodes[i] for p, i in fs.walk()}
    b = {p: real.nodes[i] for p, i in real.walk()}
    diffs = []
    for p in sorted(set(a) | set(b)):
        x, y = a.get(p), b.get(p)
        if x is None or y is None:
            diffs.append("%s: %s" % (p or ".", "missing from the replay"
                                     if x is None else "not in the real tree"))
        elif (x.kind, x.mode, x.target) != (y.kind, y.mode, y.target):
            diffs.append("%s: %s %o vs real %s %o" % (p, x.kind, x.mode,
                                                       y.kind, y.mode))
        elif x.kind == "f" and bytes(x.data) != bytes(y.data):
            diffs.append("%s: content differs (%d vs real %d bytes)" % (
                p, len(x.data), len(y.data)))
    return diffs


# ---- resolving a trace into operations on the model ----------------------------
#
# An operation is a tuple:
#   ("write", nid, off, bytes)  ("trunc", nid, len)  ("chmod", nid, mode)
#   ("ent", dir_nid, ((name, nid or None), ...))     an atomic entry change
#   ("fsync", nid)  ("sync",)
# Data operations belong to the object ("i", nid), entry changes to
# ("d", dir_nid); fsync of nid covers both of nid's objects.

class Recording:
    """A resolved trace: BASE (the snapshot plus every inode the run made,
    unnamed), OPS, ACKS [(number of ops before it, text)], COVER[i] (the
    index of the first sync after op i that makes it durable, or None),
    PATHS {nid: a path it had} for reports, FINAL (all ops applied)."""

    def __init__(self, snap, ino2id, events, blob):
        self.base = snap.copy()
        self.ops, self.acks, self.where, self.by_module = [], [], [], []
        self.up = {}            # nid -> (dir nid, name): its latest name
        for p, nid in snap.walk():
            if p:
                self.up[nid] = (snap.parent(p)[0], p.rpartition("/")[2])
        self._resolve(ino2id, events, blob)
        self._cover()

    def _new(self, kind, mode, target=None, data=b""):
        nid = max(self.base.nodes) + 1
        self.base.nodes[nid] = Node(kind, mode, data, target=target)
        self.live.nodes[nid] = self.base.nodes[nid]
        return nid

    def _op(self, op):
        self.ops.append(op)
        self.by_module.append(self.who_now)
        self.where.append(self.path_of(op[1]) if len(op) > 1 else "")
        apply_op(self.live, op)
        if op[0] == "ent":
            for name, target in op[2]:
                if target is not None:
                    self.up[target] = (op[1], name)

    def path_of(self, nid):
        """NID's path when the op was issued (its latest name), "." for
        the root, "?" for an inode with no name yet."""
        parts, seen = [], set()
        while nid != self.base.root and nid not in seen:
            seen.add(nid)
            if nid not in self.up:
                return "?"
            nid, name = self.up[nid]
            parts.append(name)
        return "/".join(reversed(parts)) or "."

    def _id(self, ino2id, ino):
        if int(ino) not in ino2id:
            raise Unsupported("the trace names inode %s, which the snapshot "
                              "and the trace never made" % ino)
        return ino2id[int(ino)]

    def _resolve(self, ino2id, events, blob):
        self.live = self.base.copy()
        for seq, pid, who, kind, f in events:
            self.who_now = who == "m"
            try:
                self._event(ino2id, blob, kind, f)
            except (KeyError, ValueError) as e:
                raise Unsupported("trace line %d (%s %s) does not fit the "
                                  "model: %r" % (seq, kind, " ".join(f), e))
        self.final = self.live
        del self.live

    def _event(self, ino2id, blob, kind, f):
        live = self.live
        if kind == "creat" or kind == "tmpfile":
            path = unesc(f[0]) if kind == "creat" else None
            ino, typ, mode = (f[1], f[2], f[3]) if path else (f[0], "f", f[1])
            target = unesc(f[4]) if path and len(f) > 4 else None
            nid = self._new(typ, int(mode, 8), target)
            ino2id[int(ino)] = nid
            if path:
                d, name = live.parent(path)
                self._op(("ent", d, ((name, nid),)))
        elif kind == "import":
            path, ino, size, off = unesc(f[0]), f[1], int(f[2]), int(f[3])
            # Bytes written outside the root: taken as durable content.
            nid = self._new("f", 0o644, data=blob[off:off + size])
            ino2id[int(ino)] = nid
            d, name = live.parent(path)
            self._op(("ent", d, ((name, nid),)))
        elif kind == "write":
            nid, off, n, b = self._id(ino2id, f[0]), int(f[1]), int(f[2]), \
                int(f[3])
            self._op(("write", nid, off, blob[b:b + n]))
        elif kind == "trunc":
            self._op(("trunc", self._id(ino2id, f[0]), int(f[1])))
        elif kind == "falloc":
            self._falloc(self._id(ino2id, f[0]), int(f[1]), int(f[2]),
                         int(f[3]))
        elif kind == "chmod":
            self._op(("chmod", self._id(ino2id, f[0]), int(f[1], 8)))
        elif kind in ("fsync", "fdatasync"):
            self._op(("fsync", self._id(ino2id, f[0])))
        elif kind in ("sync", "syncfs"):
            self._op(("sync",))
        elif kind == "rename":
            self._rename(ino2id, unesc(f[0]), unesc(f[1]), int(f[2]), f[3])
        elif kind in ("unlink", "rmdir"):
            d, name = live.parent(unesc(f[0]))
            if live.nodes[d].entries[name] != ino2id.get(int(f[1])):
                raise Unsupported("unlink of %s: the model has another "
                                  "inode there" % unesc(f[0]))
            self._op(("ent", d, ((name, None),)))
        elif kind == "link":
            nid = live.lookup(unesc(f[0]))
            d, name = live.parent(unesc(f[1]))
            self._op(("ent", d, ((name, nid),)))
        elif kind == "out":
            self.acks.append((len(self.ops), unesc(f[0]) if f else ""))
        elif kind in ("importdir", "mmapw", "msync"):
            raise Unsupported("the run used %s (%s): not modelled" % (
                kind, " ".join(f)))
        # proc, close, sfr (sync_file_range makes nothing durable): no op

    def _falloc(self, nid, mode, off, length):
        keep, punch, zero = mode & 1, mode & 2, mode & 0x10
        if mode & ~0x13:
            raise Unsupported("fallocate mode %#x" % mode)
        size = len(self.live.nodes[nid].data)
        if punch or zero:
            end = off + length if zero and not keep else \
                min(off + length, size)
            if end > off:
                self._op(("write", nid, off, bytes(end - off)))
        elif not keep and off + length > size:
            self._op(("trunc", nid, off + length))

    def _rename(self, ino2id, src, dst, flags, sino):
        live = self.live
        sd, sn = live.parent(src)
        dd, dn = live.parent(dst)
        nid = live.nodes[sd].entries[sn]
        if nid != ino2id.get(int(sino)):
            raise Unsupported("rename of %s: the model has another inode "
                              "there" % src)
        if (sd, sn) == (dd, dn):
            return
        if flags & 2:                                   # RENAME_EXCHANGE
            other = live.nodes[dd].entries[dn]
            changes = {sd: [(sn, other)], dd: [(dn, nid)]}
        else:
            changes = {dd: [(dn, nid)]}
            changes.setdefault(sd, []).append((sn, None))
        if sd == dd:
            self._op(("ent", sd, tuple(changes[sd])))
        else:
            self._op(("ent", dd, tuple(changes[dd])))
            self._op(("ent", sd, tuple(changes[sd])))

    def _cover(self):
        """COVER[i]: the first sync after op i that covers op i's object."""
        nxt, gsync = {}, None
        self.cover = [None] * len(self.ops)
        for i in range(len(self.ops) - 1, -1, -1):
            op = self.ops[i]
            if op[0] == "fsync":
                nxt[("i", op[1])] = nxt[("d", op[1])] = i
            elif op[0] == "sync":
                gsync = i
            else:
                j = nxt.get(obj_of(op))
                self.cover[i] = j if gsync is None or (j is not None and
                                                       j < gsync) else gsync

    def is_sync(self, i):
        return self.ops[i][0] in ("fsync", "sync")

    def durable(self, i, k):
        return self.cover[i] is not None and self.cover[i] < k

    def describe(self, i):
        """Op I in words, with the paths it had when it was issued."""
        op, where = self.ops[i], self.where[i]
        kind = op[0]
        if kind == "ent":
            return "; ".join(
                "%s %s" % ("unlink" if t is None else "name",
                           n if where == "." else where + "/" + n)
                for n, t in op[2])
        if kind == "write":
            return "write %s [%d, +%d)" % (where, op[2], len(op[3]))
        if kind == "trunc":
            return "truncate %s to %d" % (where, op[2])
        if kind == "chmod":
            return "chmod %s %o" % (where, op[2])
        if kind == "fsync":
            return "fsync %s" % where
        return kind


def obj_of(op):
    return ("d", op[1]) if op[0] == "ent" else ("i", op[1])


def apply_op(fs, op):
    kind = op[0]
    if kind == "write":
        n = fs.own(op[1])
        off, data = op[2], op[3]
        if len(n.data) < off:
            n.data.extend(bytes(off - len(n.data)))
        n.data[off:off + len(data)] = data
    elif kind == "trunc":
        n = fs.own(op[1])
        if len(n.data) > op[2]:
            del n.data[op[2]:]
        else:
            n.data.extend(bytes(op[2] - len(n.data)))
    elif kind == "chmod":
        fs.own(op[1]).mode = op[2]
    elif kind == "ent":
        d = fs.own(op[1])
        for name, target in op[2]:
            if target is None:
                d.entries.pop(name, None)
            else:
                d.entries[name] = target


def pieces(op):
    """A write split at 4 KiB file blocks (model b's unit of persistence)."""
    if op[0] != "write":
        return [op]
    nid, off, data = op[1], op[2], op[3]
    out, pos = [], off
    while pos < off + len(data) or not out:
        end = min((pos // BLOCK + 1) * BLOCK, off + len(data))
        out.append(("write", nid, pos, data[pos - off:end - off]))
        if end <= pos:
            break
        pos = end
    return out


# ---- crash states ---------------------------------------------------------------

class State:
    """One crash state: the cut K (ops issued), the model, the FS, the ops
    issued but not (wholly) persisted, and for those of them that persisted
    in part (model b's torn writes) the pieces that did (PARTIAL)."""

    def __init__(self, k, model, fs, dropped, tag, partial=None):
        self.k, self.model, self.fs, self.dropped, self.tag = \
            k, model, fs, dropped, tag
        self.partial = partial or {}


def state_a(rec, k):
    fs = rec.base.copy()
    dropped = []
    for i in range(k):
        if rec.durable(i, k):
            apply_op(fs, rec.ops[i])
        elif not rec.is_sync(i):
            dropped.append(i)
    return State(k, "a", fs, dropped, "a k=%d" % k)


def state_b(rec, k, rng, p):
    fs = rec.base.copy()
    dropped, partial = [], {}
    for i in range(k):
        op = rec.ops[i]
        if rec.durable(i, k):
            apply_op(fs, op)
            continue
        if rec.is_sync(i):
            continue
        kept = []
        parts = pieces(op)
        for j, piece in enumerate(parts):
            if rng.random() < p:
                apply_op(fs, piece)
                kept.append(j)
        if len(kept) < len(parts):
            dropped.append(i)
            if kept:
                partial[i] = kept
    return State(k, "b", fs, dropped, "b k=%d p=%.2f" % (k, p), partial)


def outside_made_durable(rec, state):
    """STATE as it would be had everything issued outside the FSFS module
    (libsvn_repos, libsvn_fs, the client: record.c's WHO "-") been durable:
    if that state passes, the failure is not the module's to fix."""
    return _outside(rec, state, True, " outside-durable")


def outside_undone(rec, state):
    """STATE as it would be had nothing issued outside the module and not
    yet synced persisted: a cut inside a non-atomic rewrite made outside
    the module (libsvn_fs truncates `db/fs-type` and writes it again) is
    that rewrite's failure, whatever the module did."""
    return _outside(rec, state, False, " outside-undone")


def _outside(rec, state, persist, tag):
    fs = rec.base.copy()
    dropped = set(state.dropped)
    for i in range(state.k):
        op = rec.ops[i]
        if rec.is_sync(i):
            continue
        if not rec.by_module[i] and not rec.durable(i, state.k):
            if persist:
                apply_op(fs, op)
        elif i not in dropped:
            apply_op(fs, op)
        elif i in state.partial:
            parts = pieces(op)
            for j in state.partial[i]:
                apply_op(fs, parts[j])
    return State(state.k, state.model, fs,
                 [i for i in state.dropped if rec.by_module[i]],
                 state.tag + tag)


def classes_a(rec):
    """One cut per interval between syncs and acknowledgements: the model-a
    state is constant in between.  [(k, cuts covered)] with k the last cut
    of its interval (the most ops issued, the same durable set).  A sync
    at index j takes effect from cut j+1 on; an acknowledgement made after
    A ops from cut A on."""
    n = len(rec.ops)
    starts = sorted({0} | {j + 1 for j in range(n) if rec.is_sync(j)} |
                    {a for a, _ in rec.acks if a <= n})
    out = []
    for i, s in enumerate(starts):
        e = starts[i + 1] - 1 if i + 1 < len(starts) else n
        out.append((e, e - s + 1))
    return out


def cuts_b(rec, count, rng):
    """COUNT cut points: half just before a sync or at the end (the most
    unsynced work pending), half anywhere."""
    n = len(rec.ops)
    presync = [j for j in range(1, n) if rec.is_sync(j)] + [n]
    out = []
    for s in range(count):
        out.append(rng.choice(presync) if s % 2 == 0 or n < 2
                   else rng.randint(1, n))
    return out


# ---- stock reads ------------------------------------------------------------------

def dump_sections(repo):
    """{rev: bytes of its dump section}, the first revision the stock dump
    could not read (or None) and the error."""
    rc, out, err = run(["svnadmin", "dump", repo], STOCK)
    parts = re.split(rb"(?m)^(?=Revision-number: )", out)
    revs = {}
    for part in parts[1:]:
        m = re.match(rb"Revision-number: (\d+)\n", part)
        revs[int(m.group(1))] = part
    if rc == 0:
        return revs, None, ""
    done = [int(x) for x in re.findall(rb"\* Dumped revision (\d+)\.", err)]
    bad = max(done) + 1 if done else 0
    revs.pop(bad, None)
    return revs, bad, text(err)


def verify(repo):
    rc, _, err = run(["svnadmin", "verify", "-q", repo], STOCK)
    return rc == 0, err


def verify_verdict(repo):
    """None when stock verify passes REPO, else TORN (a revision fails)
    or FAIL."""
    ok, verr = verify(repo)
    if ok:
        return None
    m = re.search(rb"Error verifying revision (\d+)", verr)
    return ("TORN" if m else "FAIL"), "stock verify fails: " + text(verr)


def opened_dump(repo):
    """(youngest, {rev: dump section}, first unreadable rev or None, error)
    from one stock dump; youngest is None when the repository does not
    open (svnlook asked only when the dump fails)."""
    revs, bad, err = dump_sections(repo)
    if bad is None and revs:
        return max(revs), revs, None, ""
    y, yerr = youngest(repo)
    if y is None:
        return None, revs, bad, yerr
    return y, revs, bad, err


def youngest(repo):
    rc, out, err = run(["svnlook", "youngest", repo], STOCK)
    if rc != 0:
        return None, text(err)
    return int(out.strip()), ""


# ---- operations -------------------------------------------------------------------

def gen_dump(path, revs, seed, limit=400000):
    """tools/gen_history.py's stream, the first seed from SEED on whose
    stream stays under LIMIT bytes (some seeds add a multi-MB file)."""
    for s in range(seed, seed + 50):
        out = must([sys.executable, os.path.join(TOP, "tools",
                                                  "gen_history.py"),
                    "--revs", str(revs), "--seed", str(s)], STOCK)
        if len(out) <= limit:
            with open(path, "wb") as f:
                f.write(out)
            return
    raise RuntimeError("no small history near seed %d" % seed)


def history(repo, tpl, revs, seed):
    """Fill the empty REPO with REVS revisions: gen_history.py's first six
    (its later revisions add multi-MB files), then small svnmucc commits
    (a file, a property, a copy) up to REVS."""
    d = os.path.join(tpl, "h.dump")
    gen_dump(d, min(revs, 6), seed)
    must(["svnadmin", "load", "-q", repo], STOCK, stdin=d)
    grow(repo, tpl, revs)


def grow(repo, tpl, revs):
    y = int(must(["svnlook", "youngest", repo], STOCK))
    url = "file://" + repo
    for r in range(y + 1, revs + 1):
        f = os.path.join(tpl, "grow-%d.txt" % r)
        with open(f, "w") as out:
            out.write("".join("line %d of r%d\n" % (i, r)
                              for i in range(40 * r)))
        must(["svnmucc", "-m", "small r%d" % r, "-U", url,
              "put", f, "trunk/grown-%d.txt" % r,
              "propset", "grown", str(r), "trunk/grown-%d.txt" % r] +
             (["cp", str(r - 1), "trunk/grown-%d.txt" % (r - 1),
               "trunk/copy-%d.txt" % r] if r > y + 1 else []), STOCK)


def create(repo, compat=None, shard=None):
    must(["svnadmin", "create"] + (["--compatible-version", compat]
                                   if compat else []) + [repo], STOCK)
    if shard:
        fmt = os.path.join(repo, "db", "format")
        with open(fmt) as f:
            t = f.read()
        with open(fmt, "w") as f:
            f.write(t.replace("layout sharded 1000",
                              "layout sharded %d" % shard))


class Op:
    """One operation.  setup(tpl) builds its template repository (stock
    binaries) in TPL; commands(pt) are the argv lists (and stdin) run in a
    copy PT of it; ROOT is the directory recorded (relative to PT).
    Acknowledgements: expect(texts, done) turns what the run printed
    before a cut (and whether it had finished) into the expectation the
    oracle checks: {"revs": revisions acknowledged, "done": bool, ...}."""
    name = None
    root = "repo"
    changed = ()        # pre-existing revisions the operation may change
    # True when neither the re-run nor the next commit rewrites a file
    # that holds an existing revision (they only add revisions or locks),
    # so a verify after them passes only if the state itself passes.
    rerun_keeps_revisions = False

    def __init__(self, work, seed):
        self.work, self.seed = work, seed
        self.moddir = None      # the module tested (for setups that use it)
        self.tpl = os.path.join(work, "tpl-" + self.name)
        self.cfg = os.path.join(work, "svn-config")

    def build(self):
        if os.path.isdir(self.tpl):
            shutil.rmtree(self.tpl)
        os.makedirs(self.tpl)
        os.makedirs(self.cfg, exist_ok=True)
        self.setup(self.tpl)

    def expect(self, texts, done):
        revs = set()
        for t in texts:
            revs |= {int(x) for x in re.findall(r"Committed revision (\d+)",
                                                t)}
            revs |= {int(x) for x in re.findall(r"\br(\d+) committed by", t)}
        return {"revs": revs, "done": done}

    def acked_change(self, r, exp):
        """Must revision R read as after the run (an acknowledged change)?"""
        return r in exp["revs"] or (exp["done"] and r in self.changed)

    def extra_check(self, repo, exp, moddir):
        return None

    def rerun(self, repo, y, moddir):
        """Re-run the interrupted operation; (ok, detail)."""
        return True, ""

    def execute(self, pt, env):
        """Run the commands under ENV (the recorder's); their outputs."""
        outputs = []
        for argv, stdin in self.commands(pt):
            rc, out, err = run(argv, env, stdin)
            outputs.append(out)
            if rc != 0:
                raise RuntimeError("%s fails under the recorder: %s" % (
                    argv[0], text(err)))
        return outputs

    def client(self, *args):
        return ["--config-dir", self.cfg] + list(args)


class Load(Op):
    name = "load"
    rerun_keeps_revisions = True
    REVS = 6

    def setup(self, tpl):
        create(os.path.join(tpl, "repo"), shard=4)
        self.dump = os.path.join(tpl, "h.dump")
        gen_dump(self.dump, self.REVS, self.seed)
        self.changed = (0,)       # the dump's r0 revprops

    def commands(self, pt):
        return [(["svnadmin", "load", os.path.join(pt, "repo")], self.dump)]

    def acked_change(self, r, exp):
        if r == 0:
            return bool(exp["revs"]) or exp["done"]
        return Op.acked_change(self, r, exp)

    def rerun(self, repo, y, moddir):
        if y >= self.REVS:
            return True, ""
        rc, _, err = run(["svnadmin", "load", "-q", "-r",
                          "%d:%d" % (y + 1, self.REVS), repo],
                         module_env(moddir), stdin=self.dump)
        return rc == 0, text(err)


class CommitFile(Op):
    """svnmucc change set (mkdir, adds, an edit, copies, properties) that
    starts a new shard (shards of 4, r8)."""
    name = "commit-file"
    rerun_keeps_revisions = True

    def setup(self, tpl):
        repo = os.path.join(tpl, "repo")
        create(repo, shard=4)
        history(repo, tpl, 7, self.seed)
        tree = must(["svnlook", "tree", "--full-paths", repo], STOCK) \
            .decode().split("\n")
        files = [p for p in tree if p and not p.endswith("/")]
        dirs = [p.rstrip("/") for p in tree if p.endswith("/") and
                p.count("/") >= 2]
        self.edit, self.cpfile = files[0], files[-1]
        self.cpdir = dirs[0] if dirs else "trunk"
        # A file whose bytes an earlier revision already holds: its rep
        # is found through rep-cache.db and shared, not written again.
        with open(os.path.join(tpl, "shared.txt"), "wb") as f:
            f.write(must(["svnlook", "cat", repo, self.cpfile], STOCK))
        rnd = random.Random(self.seed)
        for name, size in (("a.txt", 3000), ("b.bin", 20000), ("c.txt", 50)):
            with open(os.path.join(tpl, name), "wb") as f:
                f.write(bytes(rnd.randrange(32, 127) if name != "b.bin"
                              else rnd.randrange(256) for _ in range(size)))

    def url(self, pt):
        return "file://" + os.path.join(pt, "repo")

    def mucc(self, pt, tag):
        t = "pc-" + tag
        return ["svnmucc"] + self.client(
            "-m", "change set " + tag, "-U", self.url(pt),
            "mkdir", t,
            "put", os.path.join(self.tpl, "a.txt"), t + "/a.txt",
            "put", os.path.join(self.tpl, "b.bin"), t + "/b.bin",
            "cp", "HEAD", self.cpdir, t + "/dircopy",
            "cp", "HEAD", self.cpfile, t + "/filecopy",
            "put", os.path.join(self.tpl, "c.txt"), t + "/dircopy/new.txt",
            "put", os.path.join(self.tpl, "c.txt"), self.edit,
            "put", os.path.join(self.tpl, "shared.txt"), t + "/shared.txt",
            "propset", "svn:eol-style", "native", t + "/a.txt",
            "propset", "custom:prop", "value " + tag, t + "/dircopy")

    def commands(self, pt):
        return [(self.mucc(pt, "t0"), None)]


class CommitSvnserve(CommitFile):
    """The same change set through `svnserve -t` (the tunnel process
    inherits the recorder; both share one trace)."""
    name = "commit-svnserve"

    def setup(self, tpl):
        CommitFile.setup(self, tpl)
        self.tunnel = os.path.join(tpl, "tunnel.sh")
        with open(self.tunnel, "w") as f:
            f.write("#!/bin/sh\nexec svnserve -t\n")
        os.chmod(self.tunnel, 0o755)

    def url(self, pt):
        return "svn+pc://localhost" + os.path.join(pt, "repo")

    def mucc(self, pt, tag):
        a = CommitFile.mucc(self, pt, tag)
        return a[:1] + ["--config-option",
                        "config:tunnels:pc=" + self.tunnel] + a[1:]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quiet_for(path, seconds, timeout=30):
    """Wait until the file PATH has not grown for SECONDS."""
    t0, last, since = time.time(), -1, time.time()
    while time.time() - t0 < timeout:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        if size != last:
            last, since = size, time.time()
        elif time.time() - since >= seconds:
            return
        time.sleep(0.05)


class CommitSvnserveDaemon(CommitFile):
    """The same change set through a threaded daemon, `svnserve -d
    --threads --foreground` on a free loopback port, started under the
    recorder (the server's threads and svnmucc share one trace) and
    stopped once the commit is acknowledged and the server is idle."""
    name = "commit-svnserve-daemon"

    def setup(self, tpl):
        CommitFile.setup(self, tpl)
        self.conf = os.path.join(tpl, "svnserve.conf")
        with open(self.conf, "w") as f:
            f.write("[general]\nanon-access = write\n"
                    "auth-access = write\n")

    def url(self, pt):
        return "svn://127.0.0.1:%d/repo" % self.port

    def execute(self, pt, env):
        self.port = free_port()
        srv = subprocess.Popen(
            ["svnserve", "-d", "--threads", "--foreground", "-r", pt,
             "--listen-host", "127.0.0.1", "--listen-port", str(self.port),
             "--config-file", self.conf], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
        try:
            wait_listening(self.port, srv)
            rc, out, err = run(self.mucc(pt, "t0"), env)
            if rc != 0:
                raise RuntimeError("svnmucc over svn:// fails under the "
                                   "recorder: %s" % text(err))
            # The reply may precede the thread's last calls: stop the
            # server only once the trace has been quiet for a while.
            quiet_for(env["RECORD_OUT"], 1.0)
        finally:
            srv.terminate()
            try:
                srv.wait(20)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
        return [out]


def wait_listening(port, proc):
    for _ in range(200):
        if proc.poll() is not None:
            raise RuntimeError("svnserve exited (%d): %s" % (
                proc.returncode, text(proc.stderr.read())))
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("svnserve does not listen on port %d" % port)


class Pack(Op):
    """svnadmin pack of two shards (9 revisions, shards of 4)."""
    name = "pack-f7"
    compat = "1.9"

    def setup(self, tpl):
        repo = os.path.join(tpl, "repo")
        create(repo, self.compat, shard=4)
        history(repo, tpl, 9, self.seed)

    def commands(self, pt):
        return [(["svnadmin", "pack", os.path.join(pt, "repo")], None)]

    def rerun(self, repo, y, moddir):
        rc, _, err = run(["svnadmin", "pack", "-q", repo], module_env(moddir))
        if rc != 0:
            return False, text(err)
        mur = os.path.join(repo, "db", "min-unpacked-rev")
        with open(mur) as f:
            if int(f.read().strip() or 0) != 8:
                return False, "re-run pack leaves min-unpacked-rev at %s" % \
                    open(mur).read().strip()
        return True, ""


class PackF6(Pack):
    name = "pack-f6"
    compat = "1.8"


class RevpropPacked(Op):
    """svnadmin setrevprop on r2 of a shard stock packed."""
    name = "revprop-packed"
    changed = (2,)

    def setup(self, tpl):
        repo = os.path.join(tpl, "repo")
        create(repo, shard=4)
        history(repo, tpl, 9, self.seed)
        must(["svnadmin", "pack", "-q", repo], STOCK)
        self.log = os.path.join(tpl, "log.txt")
        with open(self.log, "w") as f:
            f.write("a new log message for r2, longer than before\n" * 5)

    def commands(self, pt):
        return [(["svnadmin", "setrevprop", os.path.join(pt, "repo"), "-r",
                  "2", "svn:log", self.log], None)]

    def rerun(self, repo, y, moddir):
        rc, _, err = run(["svnadmin", "setrevprop", repo, "-r", "2",
                          "svn:log", self.log], module_env(moddir))
        return rc == 0, text(err)


class RevpropPackedOwn(RevpropPacked):
    """The same on a shard packed by the module tested (for fsfs7: a
    revprop pack it wrote itself)."""
    name = "revprop-packed-own"

    def setup(self, tpl):
        repo = os.path.join(tpl, "repo")
        create(repo, shard=4)
        history(repo, tpl, 9, self.seed)
        must(["svnadmin", "pack", "-q", repo], module_env(self.moddir))
        self.log = os.path.join(tpl, "log.txt")
        with open(self.log, "w") as f:
            f.write("a new log message for r2, longer than before\n" * 5)


class LockUnlock(Op):
    """svn lock, then svn unlock, of one file over file://."""
    name = "lock"
    rerun_keeps_revisions = True

    def setup(self, tpl):
        repo = os.path.join(tpl, "repo")
        create(repo, shard=4)
        d = os.path.join(tpl, "h.dump")
        gen_dump(d, 3, self.seed)
        must(["svnadmin", "load", "-q", repo], STOCK, stdin=d)
        tree = must(["svnlook", "tree", "--full-paths", repo], STOCK) \
            .decode().split("\n")
        self.path = [p for p in tree if p and not p.endswith("/")][0]

    def cmd(self, pt, verb, *extra):
        return ["svn"] + self.client("--username", "pc", verb, *extra) + \
            ["file://" + os.path.join(pt, "repo", self.path)]

    def commands(self, pt):
        return [(self.cmd(pt, "lock", "-m", "power cut"), None),
                (self.cmd(pt, "unlock"), None)]

    def expect(self, texts, done):
        exp = Op.expect(self, texts, done)
        exp["lock"] = None
        for t in texts:
            if "locked by user" in t:
                exp["lock"] = "locked"
            if re.search(r"' unlocked\.", t):
                exp["lock"] = "unlocked"
        return exp

    def extra_check(self, repo, exp, moddir):
        rc, out, err = run(["svnlook", "lock", repo, self.path], STOCK)
        if rc != 0:
            return "FAIL", "svnlook lock fails: " + text(err)
        held = bool(out.strip())
        if exp["lock"] == "locked" and not held and not exp.get("in_flight"):
            return "LOST", "acknowledged lock of %s is gone" % self.path
        if exp["lock"] == "unlocked" and held:
            return "LOST", "acknowledged unlock of %s is gone (the lock " \
                "is back)" % self.path
        return None

    def rerun(self, repo, y, moddir):
        pt = os.path.dirname(repo)
        for verb in ("lock", "unlock"):
            rc, _, err = run(self.cmd(pt, verb, "--force"),
                             module_env(moddir))
            if rc != 0:
                return False, "re-run %s: %s" % (verb, text(err))
        return True, ""


class HotcopyIncr(Op):
    """svnadmin hotcopy --incremental of 6 new revisions (one shard packed
    in the source) into a copy taken at r3."""
    name = "hotcopy-incr"

    def setup(self, tpl):
        self.src = os.path.join(tpl, "src")
        create(self.src, shard=4)
        d = os.path.join(tpl, "h.dump")
        gen_dump(d, 6, self.seed)
        must(["svnadmin", "load", "-q", "-r", "0:3", self.src], STOCK,
             stdin=d)
        must(["svnadmin", "hotcopy", self.src, os.path.join(tpl, "repo")],
             STOCK)
        must(["svnadmin", "load", "-q", "-r", "4:6", self.src], STOCK,
             stdin=d)
        grow(self.src, tpl, 9)
        must(["svnadmin", "pack", "-q", self.src], STOCK)

    def commands(self, pt):
        return [(["svnadmin", "hotcopy", "--incremental", self.src,
                  os.path.join(pt, "repo")], None)]

    def rerun(self, repo, y, moddir):
        rc, _, err = run(["svnadmin", "hotcopy", "--incremental", "-q",
                          self.src, repo], module_env(moddir))
        return rc == 0, text(err)

    def extra_check(self, repo, exp, moddir):
        if exp["done"]:
            y, _ = youngest(repo)
            if y != 9:
                return "LOST", "acknowledged hotcopy has only r%s" % y
        return None


class Recover(Op):
    """svnadmin recover of a repository with one shard packed."""
    name = "recover"

    def setup(self, tpl):
        repo = os.path.join(tpl, "repo")
        create(repo, shard=4)
        d = os.path.join(tpl, "h.dump")
        gen_dump(d, 6, self.seed)
        must(["svnadmin", "load", "-q", repo], STOCK, stdin=d)
        must(["svnadmin", "pack", "-q", repo], STOCK)

    def commands(self, pt):
        return [(["svnadmin", "recover", os.path.join(pt, "repo")], None)]

    def rerun(self, repo, y, moddir):
        rc, _, err = run(["svnadmin", "recover", repo], module_env(moddir))
        return rc == 0, text(err)


class Upgrade(Op):
    """svnadmin upgrade of a format-3 repository (--compatible-version 1.5)
    to the newest format."""
    name = "upgrade"
    new_format = 8

    def setup(self, tpl):
        repo = os.path.join(tpl, "repo")
        create(repo, "1.5")
        d = os.path.join(tpl, "h.dump")
        gen_dump(d, 4, self.seed)
        must(["svnadmin", "load", "-q", repo], STOCK, stdin=d)

    def commands(self, pt):
        return [(["svnadmin", "upgrade", os.path.join(pt, "repo")], None)]

    def rerun(self, repo, y, moddir):
        rc, _, err = run(["svnadmin", "upgrade", repo], module_env(moddir))
        return rc == 0, text(err)

    def extra_check(self, repo, exp, moddir):
        with open(os.path.join(repo, "db", "format")) as f:
            fmt = int(f.readline().split()[0])
        if exp["done"] and fmt != self.new_format:
            return "LOST", "acknowledged upgrade is gone (db/format %d)" % fmt
        if fmt not in (3, self.new_format):
            return "FAIL", "db/format %d is neither 3 nor %d" % (
                fmt, self.new_format)
        return None


OP_CLASSES = {c.name: c for c in (Load, CommitFile, CommitSvnserve,
                                  CommitSvnserveDaemon, Pack,
                                  PackF6, RevpropPacked, RevpropPackedOwn,
                                  LockUnlock, HotcopyIncr, Recover, Upgrade)}
# The order of `run` without --op: the brief's priorities first.
OPS = ("load", "commit-file", "pack-f7", "pack-f6", "revprop-packed",
       "revprop-packed-own", "commit-svnserve", "commit-svnserve-daemon",
       "lock", "hotcopy-incr",
       "recover", "upgrade")


# ---- recording --------------------------------------------------------------------

def wait_pids(trace, timeout=10):
    """Wait until every process named in TRACE has exited (a tunnel
    server may still be finishing when its client returns)."""
    pids = set()
    with open(trace) as f:
        for line in f:
            w = line.split(" ", 4)
            if w[3] == "proc":
                pids.add(int(w[1]))
    t0 = time.time()
    for pid in pids:
        while time.time() - t0 < timeout:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            except PermissionError:
                break
            time.sleep(0.05)


def record(op, moddir, pt):
    """Run OP's commands in PT (a fresh copy of its template) under the
    recorder.  Returns the Recording, with its replay checked against the
    real directory; raises RuntimeError when a command fails."""
    root = os.path.realpath(os.path.join(pt, op.root))
    snap, ino2id = snapshot(root)
    trace = os.path.join(pt, "trace")
    for suffix in ("", ".blob", ".lock"):
        if os.path.exists(trace + suffix):
            os.unlink(trace + suffix)
    env = module_env(moddir)
    env.update(LD_PRELOAD=RECORD_SO, RECORD_ROOT=root, RECORD_OUT=trace)
    outputs = op.execute(pt, env)
    open(trace, "a").close()
    wait_pids(trace)
    events, blob = read_trace(trace)
    rec = Recording(snap, ino2id, events, blob)
    rec.acks.append((len(rec.ops), "\0done"))
    diffs = compare_trees(rec.final, root)
    if diffs:
        raise Unsupported("the replay of the trace differs from the real "
                          "directory (the recorder missed a mutation): " +
                          "; ".join(diffs[:8]))
    rec.root = root
    rec.outputs = outputs
    return rec


# ---- the oracle ---------------------------------------------------------------------

class Judge:
    """Judges crash states of one recorded run of OP under MODDIR."""

    def __init__(self, op, moddir, rec, before, after):
        self.op, self.moddir, self.rec = op, moddir, rec
        self.before, self.after = before, after
        self.known = rec.base.names() | rec.final.names()
        self.cache, self.blame = {}, {}
        self.futures = {}       # key() -> the judgement under way or done

    def expectation(self, k):
        texts = [t for a, t in self.rec.acks if a <= k and t != "\0done"]
        done = any(a <= k and t == "\0done" for a, t in self.rec.acks)
        exp = self.op.expect(texts, done)
        # Operations were recorded after the last acknowledgement: the
        # next command (an unlock after a lock) was under way at the cut,
        # and may have taken effect.
        exp["in_flight"] = k > max([a for a, _ in self.rec.acks if a <= k],
                                   default=-1)
        return exp

    def key(self, state):
        """What the verdict of STATE depends on: its bytes and what the
        run had acknowledged at its cut."""
        exp = self.expectation(state.k)
        return (state.fs.digest(), repr(sorted(exp.items(), key=str))), exp

    def judge(self, state, scratch):
        """(verdict, detail, recovered, cached) of STATE, cached by
        content and expectation."""
        key, exp = self.key(state)
        if key in self.cache:
            return self.cache[key] + (True,)
        litter = sorted(state.fs.names() - self.known)
        verdict, detail = self.check(state.fs, exp, scratch, False)
        recovered = False
        if verdict not in ("OK", "LITTER"):
            # Recovery is the documented step after a crash: a state it
            # repairs is OK.  One it does not keeps the worse verdict of
            # the two (a torn revision that recover then drops is LOST).
            v2, d2 = self.check(state.fs, exp, scratch, True)
            recovered = True
            if v2 in ("OK", "LITTER"):
                verdict, detail = v2, "after recover (as is: %s %s)" % (
                    verdict, detail)
            elif SEVERITY[v2] > SEVERITY[verdict]:
                verdict, detail = v2, "after recover: %s (as is: %s %s)" % (
                    d2, verdict, detail)
            else:
                detail = "%s (after recover: %s %s)" % (detail, v2, d2)
        if verdict == "OK" and litter:
            verdict, detail = "LITTER", "extra paths: " + ", ".join(
                litter[:6]) + (" ..." if len(litter) > 6 else "")
        self.cache[key] = (verdict, detail, recovered)
        return verdict, detail, recovered, False

    def attribute(self, state, scratch):
        """"outside" when STATE passes once every op issued outside the
        module is made durable, or once every such op not yet synced is
        undone; else "module"."""
        key, _ = self.key(state)
        if key not in self.blame:
            self.blame[key] = "module"
            for cf in (outside_made_durable(self.rec, state),
                       outside_undone(self.rec, state)):
                if self.judge(cf, scratch)[0] in ("OK", "LITTER"):
                    self.blame[key] = "outside"
                    break
        return self.blame[key]

    def fresh(self, fs, scratch, name, recover):
        """FS written out as SCRATCH/NAME (recovered through the module
        tested when RECOVER); (path, None) or (None, a FAIL verdict)."""
        repo = os.path.join(scratch, name)
        if os.path.exists(repo):
            shutil.rmtree(repo)
        materialise(fs, repo)
        if recover:
            rc, _, err = run(["svnadmin", "recover", repo],
                             module_env(self.moddir))
            if rc != 0:
                return None, ("FAIL", "recover fails: " + text(err))
        return repo, None

    def check(self, fs, exp, scratch, recover):
        if os.path.exists(scratch):
            shutil.rmtree(scratch)
        os.makedirs(scratch)
        try:
            repo, v = self.fresh(fs, scratch, "repo", recover)
            if v:
                return v
            return self.checks(fs, repo, exp, recover, scratch)
        except subprocess.TimeoutExpired as e:
            return "FAIL", "timeout: %s" % " ".join(e.cmd[:3])

    def checks(self, fs, repo, exp, recover, scratch):
        """The oracle's checks in order; the first that fails decides.
        Stock verify of the state as it is comes third; where the re-run
        cannot change what verify reads (op.rerun_keeps_revisions), it is
        run on a second copy only when a later check fails, so a state
        that passes costs one verify instead of two."""
        y, revs, bad, derr = opened_dump(repo)
        if y is None:
            return "FAIL", "does not open: " + derr
        v = self.compare(revs, y, bad, derr, exp)
        if v:
            return v
        deferred = self.op.rerun_keeps_revisions
        if not deferred:
            v = verify_verdict(repo)
            if v:
                return v
        v = self.later_checks(repo, y, exp)
        if v and deferred:
            again, v0 = self.fresh(fs, scratch, "as-is", recover)
            v0 = v0 or verify_verdict(again)
            if v0:
                return v0
        return v or ("OK", "")

    def later_checks(self, repo, y, exp):
        """Operation checks, the re-run, the next commit, verify after
        them; None when all pass."""
        v = self.op.extra_check(repo, exp, self.moddir)
        if v:
            return v
        ok, err = self.op.rerun(repo, y, self.moddir)
        if not ok:
            return "FAIL", "re-run fails: " + err
        rc, _, err = run(["svnmucc"] + self.op.client(
            "-m", "next", "-U", "file://" + repo, "mkdir", "pc-next"),
            module_env(self.moddir))
        if rc != 0:
            return "FAIL", "next commit fails: " + text(err)
        ok, verr = verify(repo)
        if not ok:
            return "FAIL", "verify fails after re-run and next commit: " + \
                text(verr)
        return None

    def compare(self, revs, y, bad, derr, exp):
        every = sorted(set(self.before) | set(self.after))
        for r in every:
            present = r <= y
            must_after = self.op.acked_change(r, exp)
            if not present:
                if r in self.before or must_after:
                    return "LOST", "r%d is missing (youngest r%d)%s" % (
                        r, y, " (acknowledged)" if must_after else "")
                continue
            if bad is not None and r >= bad:
                if r == bad:
                    return "TORN", "r%d cannot be dumped: %s" % (r, derr)
                continue
            got = revs.get(r)
            if must_after:
                if got == self.after.get(r):
                    continue
                if got == self.before.get(r):
                    return "LOST", "the acknowledged change of r%d is " \
                        "gone" % r
            elif got is not None and got in (self.before.get(r),
                                             self.after.get(r)):
                continue
            return "TORN", "r%d reads differently from what was " \
                "committed" % r
        if y > max(every):
            return "TORN", "r%d is present but was never committed" % y
        return None


def meaningful_acks(op, acks):
    """The acknowledgements that change what OP's oracle expects (stdout
    also carries progress lines such as "* adding path"); each kept one
    carries every text printed since the previous one."""
    out, pending, seen = [], [], []
    last = op.expect([], False)
    for a, t in acks:
        if t == "\0done":
            out.append((a, t))
            continue
        pending.append(t)
        seen.append(t)
        exp = op.expect(seen, False)
        if exp != last:
            out.append((a, "".join(pending)))
            pending, last = [], exp
    return out


def reference_dumps(op, pt_before, rec):
    before, bad, err = dump_sections(os.path.join(pt_before, op.root))
    after, bad2, err2 = dump_sections(rec.root)
    if bad is not None or bad2 is not None:
        raise RuntimeError("reference dump fails: %s %s" % (err, err2))
    return before, after


# ---- the driver ---------------------------------------------------------------------

def module_dirs(which):
    ours = os.environ.get("FSFS7_MODULE_DIR") or \
        os.path.join(TOP, "subversion", "libsvn_fs_fs", ".libs")
    mods = []
    if which in ("fsfs7", "both"):
        if not os.path.exists(os.path.join(ours, "libsvn_fs_fs-1.so.1")):
            sys.exit("powercut: no fsfs7 module in %s (build first)" % ours)
        rc, _, err = run([os.path.join(TOP, "tools", "fsfs7-run"), "true"],
                         dict(base_env(), FSFS7_MODULE_DIR=ours))
        if rc != 0:
            sys.exit(err.decode())
        mods.append(("fsfs7", ours))
    if which in ("stock", "both"):
        mods.append(("stock", None))
    return mods


def build_record_so():
    """Build the recorder unless make did (RECORD_SO given)."""
    so = RECORD_SO
    if os.environ.get("RECORD_SO"):
        if not os.path.exists(so):
            sys.exit("powercut: no recorder at %s" % so)
        return
    src = os.path.join(HERE, "record.c")
    if not os.path.exists(so) or os.path.getmtime(so) < os.path.getmtime(src):
        subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2",
                        "-Wall", "-o", so, src, "-ldl", "-lpthread"],
                       check=True)


class Tally:
    """The counts of one operation, model and module.  N states (cut
    points drawn), DISTINCT of them judged (the others repeat a state
    already judged), CUTS the distinct cut points among the N, of OPS + 1
    possible."""

    def __init__(self, ops=0):
        self.n = self.distinct = self.recovered = 0
        self.ops, self.cuts = ops, set()
        self.v = {x: 0 for x in VERDICTS}
        self.examples = {}
        self.kept = {}
        self.outside = 0        # failing states the module cannot fix

    def line(self, opname, model, modname):
        return ("powercut: %s %s %d states, %d LOST, %d TORN, %d FAIL; "
                "%s, %d distinct, %d of %d cut points, %d LITTER, %d needed "
                "recover, %s failing only by writes outside the module" % (
                    opname, model, self.n, self.v["LOST"], self.v["TORN"],
                    self.v["FAIL"], modname, self.distinct, len(self.cuts),
                    self.ops + 1, self.v["LITTER"], self.recovered,
                    self.outside if self.outside is not None else "(not "
                    "asked)"))

    def bad(self):
        """Failing states the module answers for: a state that passes
        once the writes issued outside the module (libsvn_fs's in-place
        rewrite of db/fs-type after a hotcopy, say) are made durable or
        undone is counted apart, in OUTSIDE, and fails no run."""
        return (self.v["LOST"] + self.v["TORN"] + self.v["FAIL"]
                - (self.outside or 0))


def judged(judge, states, jobs, scratch, blame):
    """Judge STATES [(idx, state, cut)] on JOBS threads (the checks are
    child processes, so threads run them in parallel); yield (idx, state,
    cut, cached, verdict, detail, recovered, blame, seconds) in the order
    of STATES.  A state equal to one judged before (same bytes, same
    expectation) is not judged again.  BLAME: attribute failures to the
    module or to writes outside it."""
    free = queue.Queue()
    for j in range(jobs):
        free.put(os.path.join(scratch, "w%d" % j))

    def task(state):
        sc = free.get()
        try:
            t0 = time.time()
            v, d, recovered, _ = judge.judge(state, sc)
            who = ""
            if blame and v in ("LOST", "TORN", "FAIL"):
                who = judge.attribute(state, sc)
            return v, d, recovered, who, time.time() - t0
        finally:
            free.put(sc)

    window = collections.deque()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for idx, state, cut in states:
            key, _ = judge.key(state)
            cached = key in judge.futures
            if not cached:
                judge.futures[key] = pool.submit(task, state)
            window.append((idx, state, cut, cached, judge.futures[key]))
            while window and (window[0][4].done() or
                              len(window) > 8 * jobs):
                w = window.popleft()
                yield w[:4] + _result(w)
        while window:
            w = window.popleft()
            yield w[:4] + _result(w)


def _result(w):
    v, d, recovered, who, secs = w[4].result()
    if w[3]:                            # a repeat: nothing was run for it
        return v, d, False, who, 0.0
    return v, d, recovered, who, secs


def cuts_a(rec, count, rng):
    """COUNT cut points for model a: every cut point when the trace has
    no more than COUNT, else the last cut of every interval between syncs
    and acknowledgements (one per distinct state: exhaustive); the rest
    drawn uniformly from all cut points 0..N."""
    n = len(rec.ops)
    if n + 1 <= count:
        ks = list(range(n + 1))
    else:
        ks = [e for e, _ in classes_a(rec)]
    if len(ks) > count:         # a short slice: a sample, keeping the end
        return sorted(rng.sample(ks[:-1], max(0, count - 1))) + [ks[-1]]
    return ks + [rng.randint(0, n) for _ in range(count - len(ks))]


def states_for(rec, model, count, rng):
    """(state, cut point) for every state to judge: COUNT cut points of
    model a (states built once per interval between syncs, which all its
    cuts share), COUNT draws of model b."""
    if model == "a":
        ends = [e for e, _ in classes_a(rec)]
        built = {}
        for k in cuts_a(rec, count, rng):
            e = ends[bisect.bisect_left(ends, k)]
            if e not in built:
                built[e] = state_a(rec, e)
            fs = built[e].fs
            dropped = [i for i in range(k) if not rec.durable(i, k) and
                       not rec.is_sync(i)]
            yield State(k, "a", fs, dropped, "a k=%d" % k), k
    else:
        # Each state draws from its own stream, so that state #N comes out
        # the same from another recording of the operation (the order in
        # which a directory's entries are removed, or which spare file is
        # recycled, differs from run to run).
        base = rng.random()
        for idx, k in enumerate(cuts_b(rec, count, rng)):
            own = random.Random("%r/%d" % (base, idx))
            yield state_b(rec, k, own, own.random()), k


def explain(rec, state, limit=12):
    """The ops issued before the cut that did not persist, as readable
    lines: first those on names the finished run keeps (entry changes,
    then data), then the rest (transaction files and other transients)."""
    keep = rec.final.names()

    def lasting(i):
        op, d = rec.ops[i], rec.where[i]
        if op[0] == "ent":
            return any((n if d == "." else d + "/" + n) in keep
                       for n, _ in op[2])
        return d in keep

    def order(i):
        return (not lasting(i), not rec.by_module[i],
                ("ent", "write", "trunc").index(rec.ops[i][0])
                if rec.ops[i][0] != "chmod" else 3, i)

    picked = sorted(state.dropped, key=order)[:limit]
    lines = ["#%d %s%s%s" % (i, rec.describe(i),
                             "" if lasting(i) else " (transient)",
                             "" if rec.by_module[i] else
                             " (issued outside the module)")
             for i in picked]
    more = len(state.dropped) - len(lines)
    return lines + (["... %d more" % more] if more > 0 else [])


def report_failure(rec, t, state, what, verdict, detail, cached, keep,
                   only, log):
    """Log the first failure of each verdict (every one with --only or
    POWERCUT_VERBOSE) with the ops that did not persist; keep the first
    three distinct ones of each verdict in KEEP."""
    first = verdict not in t.examples
    t.examples.setdefault(verdict, (state, detail))
    if first or only is not None or os.environ.get("POWERCUT_VERBOSE"):
        log("  %s %s: %s" % (what, state.tag, detail))
        for line in explain(rec, state, 12 if only is None else 60):
            log("      not persisted: " + line)
    t.kept[verdict] = t.kept.get(verdict, 0) + 1
    if keep and not cached and t.kept[verdict] <= 3:
        w = what.split()
        d = os.path.join(keep, "%s-%s-%s-%s" % (w[1], w[2], w[3],
                                                w[4].lstrip("#")))
        if not os.path.exists(d):
            materialise(state.fs, d)
            with open(d + ".txt", "w") as f:
                f.write("%s %s\n%s\n" % (what, state.tag, detail))
                f.write("\n".join(explain(rec, state, 200)) + "\n")


def run_op(op, modname, moddir, models, count, seed, keep, tsv, log,
           only=None, jobs=1):
    """Record OP once under MODDIR and judge its states on JOBS threads;
    {model: Tally}.  Failures of fsfs7 are attributed (module or
    outside), stock's are not (its column shows no such count)."""
    pt = os.path.join(op.work, "pt-%s-%s" % (op.name, modname))
    if os.path.isdir(pt):
        shutil.rmtree(pt)
    subprocess.run(["cp", "-a", op.tpl, pt], check=True)
    before_pt = op.tpl
    rec = record(op, moddir, pt)
    before, after = reference_dumps(op, before_pt, rec)
    judge = Judge(op, moddir, rec, before, after)
    rec.acks = meaningful_acks(op, rec.acks)
    log("%s %s: %d ops (%d syncs), %d acknowledgements, trace %s" % (
        modname, op.name, len(rec.ops),
        sum(1 for i in range(len(rec.ops)) if rec.is_sync(i)),
        len(rec.acks), os.path.join(pt, "trace")))
    tallies = {}
    scratch = os.path.join(op.work, "state")
    blame = modname == "fsfs7"
    for model in models:
        rng = random.Random("%s/%s/%s/%s" % (seed, op.name, model, modname))
        t = tallies[model] = Tally(len(rec.ops))
        if not blame:
            t.outside = None
        states = ((idx, state, cut) for idx, (state, cut) in
                  enumerate(states_for(rec, model, count, rng))
                  if only is None or idx == only)
        for idx, state, cut, cached, verdict, detail, recovered, who, secs \
                in judged(judge, states, jobs, scratch, blame):
            t.n += 1
            t.cuts.add(cut)
            t.distinct += 0 if cached else 1
            t.recovered += 1 if recovered else 0
            t.v[verdict] += 1
            if who == "outside":
                t.outside += 1
            if tsv:
                tsv.write("\t".join(str(x) for x in (
                    modname, op.name, model, idx, state.k, len(rec.ops),
                    state.tag, verdict, who, int(recovered), int(cached),
                    detail.replace("\t", " "), "%.2f" % secs)) + "\n")
                tsv.flush()
            if verdict in ("LOST", "TORN", "FAIL"):
                report_failure(rec, t, state, "%s %s %s %s #%d" % (
                    verdict, modname, op.name, model, idx), verdict,
                    detail + (" [%s]" % who if who else ""), cached, keep,
                    only, log)
        if os.path.exists(scratch):
            shutil.rmtree(scratch)
    shutil.rmtree(pt)
    return tallies


def cmd_run(a):
    build_record_so()
    ops = a.op or [o for o in os.environ.get("POWERCUT_OPS", "").split(",")
                   if o] or list(OPS)
    for o in ops:
        if o not in OP_CLASSES:
            sys.exit("powercut: unknown operation %s (know: %s)" % (
                o, ", ".join(OPS)))
    models = ("a", "b") if a.model == "both" else (a.model,)
    work = a.work or tempfile.mkdtemp(prefix="powercut-")
    os.makedirs(work, exist_ok=True)
    tsv = open(a.tsv, "w") if a.tsv else None
    if tsv:
        tsv.write("module\top\tmodel\tstate\tcut\tops\ttag\tverdict\t"
                  "blame\trecovered\tcached\tdetail\tseconds\n")

    def log(msg):
        print(msg, flush=True)

    bad_ours = 0
    lines = []
    for modname, moddir in module_dirs(a.module):
        for name in ops:
            op = OP_CLASSES[name](work, a.seed)
            op.moddir = moddir
            op.build()
            t0 = time.time()
            try:
                tallies = run_op(op, modname, moddir, models, a.states,
                                 a.seed, a.keep, tsv, log, a.only, a.jobs)
            except (RuntimeError, Unsupported) as e:
                log("powercut: %s UNAVAILABLE (%s): %s" % (name, modname, e))
                if modname == "fsfs7":
                    bad_ours += 1
                continue
            for model in models:
                line = tallies[model].line(name, model, modname)
                lines.append(line)
                log(line + " (%.0fs)" % (time.time() - t0))
                if modname == "fsfs7":
                    bad_ours += tallies[model].bad()
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    print("powercut: summary")
    for line in lines:
        print("  " + line)
    return 1 if bad_ours else 0


# ---- self-test: known-bad constructions ----------------------------------------------

SELFTEST_SCRIPT = r"""
import os, sys
d = sys.argv[1]
mode = sys.argv[2]
tmp = os.path.join(d, "data.tmp")
fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"committed content " * 300)
if mode in ("good", "nodirsync"):
    os.fsync(fd)
os.close(fd)
os.rename(tmp, os.path.join(d, "data"))
if mode == "good":
    dfd = os.open(d, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)
sys.stdout.write("Committed revision 1.\n")
sys.stdout.flush()
"""


class FakeOp(Op):
    """A tiny non-svn operation for the self-test: writes a file under a
    temporary name, renames it to `data` and says "Committed revision 1".
    MODE good: fsync file, rename, fsync directory; nosync: no fsync at
    all; nodirsync: fsync the file but not the directory."""
    name = "selftest"

    def __init__(self, work, seed, mode):
        self.mode = mode
        self.name = "selftest-" + mode
        Op.__init__(self, work, seed)

    def setup(self, tpl):
        os.makedirs(os.path.join(tpl, "repo"))
        with open(os.path.join(tpl, "repo", "data"), "wb") as f:
            f.write(b"old content\n")
        self.script = os.path.join(tpl, "op.py")
        with open(self.script, "w") as f:
            f.write(SELFTEST_SCRIPT)

    def commands(self, pt):
        return [([sys.executable, self.script, os.path.join(pt, "repo"),
                  self.mode], None)]


class FakeJudge(Judge):
    """The self-test's oracle: `data` must hold the new content once
    "Committed revision 1" was printed, and old or new content before."""

    def __init__(self, rec):
        self.rec, self.cache = rec, {}
        self.op = Op.__new__(Op)
        self.known = rec.base.names() | rec.final.names()
        self.new = bytes(rec.final.nodes[rec.final.lookup("data")].data)

    def check(self, fs, exp, scratch, recover):
        try:
            data = bytes(fs.nodes[fs.lookup("data")].data)
        except KeyError:
            data = None
        if exp["revs"] and data != self.new:
            return "LOST", "acknowledged data %s" % (
                "is missing" if data is None else "reads %d bytes" % len(data))
        if data not in (b"old content\n", self.new, None):
            return "TORN", "data holds %d other bytes" % len(data)
        if data is None:
            return "FAIL", "data is missing"
        return "OK", ""

    def judge(self, state, scratch):
        exp = self.expectation(state.k)
        v, d = self.check(state.fs, exp, scratch, False)
        return v, d, False, False


def selftest(work, seed, states=200, log=print):
    """{mode: {model: Tally}} for the three fake operations."""
    build_record_so()
    out = {}
    for mode in ("nosync", "nodirsync", "good"):
        op = FakeOp(work, seed, mode)
        op.build()
        pt = os.path.join(work, "pt-" + op.name)
        if os.path.isdir(pt):
            shutil.rmtree(pt)
        subprocess.run(["cp", "-a", op.tpl, pt], check=True)
        rec = record(op, None, pt)
        judge = FakeJudge(rec)
        out[mode] = {}
        for model in ("a", "b"):
            rng = random.Random("%s/%s/%s" % (seed, op.name, model))
            t = out[mode][model] = Tally()
            t.ops = len(rec.ops)
            for state, cut in states_for(rec, model, states, rng):
                v, d, _, _ = judge.judge(state, None)
                t.n += 1
                t.cuts.add(cut)
                t.v[v] += 1
                t.examples.setdefault(v, (state, d))
            log(t.line(op.name, model, "selftest"))
        shutil.rmtree(pt)
    return out


def cmd_selftest(a):
    work = a.work or tempfile.mkdtemp(prefix="powercut-selftest-")
    res = selftest(work, a.seed, 200)
    problems = []
    for mode in ("nosync", "nodirsync"):
        if res[mode]["a"].v["LOST"] == 0:
            problems.append("%s: model a found no LOST state" % mode)
        if res[mode]["b"].v["LOST"] == 0:
            problems.append("%s: model b found no LOST state" % mode)
    for model in ("a", "b"):
        if res["good"][model].bad():
            problems.append("good: model %s found %s" % (
                model, res["good"][model].examples))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print("selftest: " + p)
    print("selftest: %s" % ("FAILED" if problems else "passed"))
    return 1 if problems else 0


def cmd_trace(a):
    build_record_so()
    work = a.work or tempfile.mkdtemp(prefix="powercut-trace-")
    (modname, moddir), = module_dirs(a.module or "fsfs7")
    op = OP_CLASSES[a.op[0]](work, a.seed)
    op.moddir = moddir
    op.build()
    pt = os.path.join(work, "pt-trace")
    if os.path.isdir(pt):
        shutil.rmtree(pt)
    subprocess.run(["cp", "-a", op.tpl, pt], check=True)
    rec = record(op, moddir, pt)
    acks = dict((k, t) for k, t in rec.acks)
    for i, o in enumerate(rec.ops):
        if i in acks:
            print("      ack: %r" % acks[i][:70])
        print("%5d %s%s" % (i, rec.describe(i), "" if rec.is_sync(i) else
                            "   (durable at #%s)" % rec.cover[i]))
    if len(rec.ops) in acks:
        print("      ack: %r" % acks[len(rec.ops)][:70])
    return 0


def cmd_summary(paths):
    """A markdown table of TSV rows (`run --tsv`): per operation and
    model, for each module the states (cut points drawn), the distinct
    states judged, the distinct cut points among the states (of all the
    trace has), the failing verdicts and, for fsfs7, how many failing
    states pass once the writes made outside the module are durable."""
    rows = {}
    for path in paths:
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                r = dict(zip(head, line.rstrip("\n").split("\t")))
                e = rows.setdefault((r["op"], r["model"], r["module"]),
                                    dict.fromkeys(VERDICTS + ("n", "out",
                                                              "distinct"), 0))
                e["n"] += 1
                e[r["verdict"]] += 1
                e["out"] += r.get("blame") == "outside"
                e["distinct"] += r["cached"] == "0"
                e.setdefault("cuts", set()).add(r["cut"])
                e["ops"] = int(r["ops"])
    print("| operation | model | fsfs7 states | distinct | cut points | "
          "LOST | TORN | FAIL | outside the module | stock states | "
          "distinct | cut points | LOST | TORN | FAIL |")
    print("|---|---|" + "---|" * 13)
    order = {o: i for i, o in enumerate(OPS)}
    for op, model in sorted({(o, m) for o, m, _ in rows},
                            key=lambda x: (order.get(x[0], 99), x[1])):
        cells = []
        for mod in ("fsfs7", "stock"):
            e = rows.get((op, model, mod))
            if not e:
                cells += ["-"] * (7 if mod == "fsfs7" else 6)
                continue
            cells += [str(e["n"]), str(e["distinct"]), "%d of %d" % (
                len(e["cuts"]), e["ops"] + 1), str(e["LOST"]),
                str(e["TORN"]), str(e["FAIL"])]
            if mod == "fsfs7":
                cells.append(str(e["out"]))
        print("| %s | %s | %s |" % (op, model, " | ".join(cells)))
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["summary"]:
        return cmd_summary(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("run", "selftest", "trace"),
                    help="or: summary TSV... (a markdown table)")
    ap.add_argument("--op", action="append",
                    help="operation (repeatable; default: all): " +
                    ", ".join(OPS))
    ap.add_argument("--module", default=os.environ.get("POWERCUT_MODULE",
                                                       "both"),
                    choices=("fsfs7", "stock", "both"))
    ap.add_argument("--model", default=os.environ.get("POWERCUT_MODEL",
                                                      "both"),
                    choices=("a", "b", "both"))
    ap.add_argument("--states", type=int,
                    default=int(os.environ.get("POWERCUT_STATES", "100")),
                    help="states per operation and model (model a: at most "
                    "this many of its interval classes; 0: all)")
    ap.add_argument("--seed", type=int,
                    default=int(os.environ.get("POWERCUT_SEED", "7")))
    ap.add_argument("--jobs", type=int,
                    default=int(os.environ.get("POWERCUT_JOBS", "2")),
                    help="states judged at once (threads; default 2)")
    ap.add_argument("--keep", help="materialise failing states here")
    ap.add_argument("--only", type=int,
                    help="judge only the state with this index (#N in the "
                    "report; the same seed, states and model), and explain "
                    "it in full: the reproducer of one failure")
    ap.add_argument("--tsv", help="one row per state")
    ap.add_argument("--work", help="scratch directory (default: a temp dir)")
    a = ap.parse_args(argv)
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    return {"run": cmd_run, "selftest": cmd_selftest,
            "trace": cmd_trace}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
