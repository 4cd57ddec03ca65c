#!/usr/bin/env python3
"""gen_history.py: write a synthetic but realistic Subversion history as a
dump stream (format 2, full texts), deterministic for a given seed.

    gen_history.py --revs N --seed S [-o FILE]

The stream loads with stock `svnadmin load` and contains the shapes real
repositories have, so that one small input exercises most of what a FSFS
reader meets:

  * text files edited line by line (inserts, deletions, changed lines),
    binary files edited in place, empty files, a few large (1-5 MB) files;
  * adds, deletes, replaces (plain and with history), renames (copy from the
    previous revision + delete), empty and deeply nested directories,
    paths with spaces and non-ASCII characters;
  * branches under /branches and tags under /tags (directory copies, also
    from older revisions), svn:mergeinfo on branch roots and on trunk;
  * node properties: svn:eol-style, svn:mime-type, svn:executable,
    svn:ignore, svn:keywords and custom ones; property-only changes;
  * revision properties: svn:log (also multi-line and empty), svn:author,
    svn:date, custom revprops, and revisions that change nothing.

Only the Python 3 standard library is used.  All choices come from one
random.Random(seed); nothing iterates over a set or depends on hashing, so
equal arguments give byte-identical output.
"""

import argparse
import datetime
import hashlib
import random
import sys

# Words for text lines and log messages; content only has to look like text.
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu "
         "nu xi omicron pi rho sigma tau upsilon phi chi psi omega repository "
         "revision node change branch merge tag copy delete file directory "
         "value index offset window delta text property author date log "
         "build test fix refactor cleanup release docs update parser cache").split()

AUTHORS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace",
           "heidi", "ivan", "judy", "mallory", "Zoë Ünicode", "build-bot")

TEXT_EXTS = (".c", ".h", ".java", ".py", ".txt", ".xml", ".md", ".properties")
BIN_EXTS = (".png", ".jar", ".bin", ".gz")

# Directories files get created in; the deep one makes long paths.
TOP_DIRS = ("src", "src/main", "src/test", "doc", "lib", "build", "tools",
            "src/main/java/org/example/fsfs/deep/path/one/two/three/four",
            "docs/with space", "data/ünïcödé")


class State:
    """The tree of one revision: path -> node.

    A node is ('dir', props) or ('file', props, content).  Props are dicts
    that are never modified in place (a change builds a new dict), so a
    shallow copy of the mapping is a complete snapshot."""

    def __init__(self):
        self.nodes = {}

    def snapshot(self):
        st = State()
        st.nodes = dict(self.nodes)
        return st

    def exists(self, path):
        return path in self.nodes

    def kind(self, path):
        return self.nodes[path][0]

    def subtree(self, path):
        """Paths at or below PATH, parents before children."""
        pre = path + "/"
        return sorted(p for p in self.nodes if p == path or p.startswith(pre))

    def paths(self, kind=None, under=None, exclude=()):
        out = []
        for p in sorted(self.nodes):
            if kind and self.nodes[p][0] != kind:
                continue
            if under and not (p == under or p.startswith(under + "/")):
                continue
            if any(p == e or p.startswith(e + "/") for e in exclude):
                continue
            out.append(p)
        return out


def props_blob(props):
    out = []
    for k in sorted(props):
        kb = k.encode("utf-8")
        vb = props[k] if isinstance(props[k], bytes) else props[k].encode("utf-8")
        out.append(b"K %d\n%s\nV %d\n%s\n" % (len(kb), kb, len(vb), vb))
    out.append(b"PROPS-END\n")
    return b"".join(out)


class Dump:
    """Serialises records of a format-2 dump stream."""

    def __init__(self, out):
        self.out = out

    def header(self, uuid):
        self.out.write(b"SVN-fs-dump-format-version: 2\n\n")
        self.out.write(b"UUID: %s\n\n" % uuid.encode())

    def revision(self, num, revprops):
        blob = props_blob(revprops)
        self.out.write(b"Revision-number: %d\nProp-content-length: %d\n"
                       b"Content-length: %d\n\n" % (num, len(blob), len(blob)))
        self.out.write(blob + b"\n")

    def node(self, path, kind, action, props=None, text=None,
             copyfrom=None):
        w = self.out.write
        w(b"Node-path: %s\n" % path.encode("utf-8"))
        if kind:
            w(b"Node-kind: %s\n" % kind.encode())
        w(b"Node-action: %s\n" % action.encode())
        if copyfrom:
            w(b"Node-copyfrom-rev: %d\nNode-copyfrom-path: %s\n"
              % (copyfrom[1], copyfrom[0].encode("utf-8")))
        pblob = props_blob(props) if props is not None else b""
        if action == "delete":
            w(b"\n\n")
            return
        if props is not None:
            w(b"Prop-content-length: %d\n" % len(pblob))
        if text is not None:
            w(b"Text-content-length: %d\n" % len(text))
            w(b"Text-content-md5: %s\n" % hashlib.md5(text).hexdigest().encode())
            w(b"Text-content-sha1: %s\n" % hashlib.sha1(text).hexdigest().encode())
        if props is not None or text is not None:
            w(b"Content-length: %d\n" % (len(pblob) + len(text or b"")))
        w(b"\n")
        w(pblob)
        if text is not None:
            w(text)
        w(b"\n\n")


class Generator:
    def __init__(self, revs, seed, out):
        self.revs = revs
        self.rng = random.Random(seed)
        self.seed = seed
        self.dump = Dump(out)
        self.state = State()
        self.history = {}          # rev -> State, a sliding window
        self.rev = 0
        self.touched = []          # paths changed in the current revision
        self.counter = 0
        self.branches = 0
        self.tags = 0
        self.date = datetime.datetime(2015, 3, 1, 9, 0, 0)
        self.shapes = {}           # shape name -> count, for --stats
        self.large_revs = self.plan_large()

    # ---- helpers ------------------------------------------------------
    def note(self, shape):
        self.shapes[shape] = self.shapes.get(shape, 0) + 1

    def words(self, n):
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def text_line(self):
        r = self.rng.random()
        if r < 0.1:
            return ""
        if r < 0.2:
            return "    " + self.words(self.rng.randint(1, 6)) + ";"
        return self.words(self.rng.randint(2, 12))

    def new_text(self, lines=None):
        n = lines if lines is not None else self.rng.randint(1, 120)
        return "".join(self.text_line() + "\n" for _ in range(n)).encode()

    def new_binary(self, size=None):
        n = size if size is not None else self.rng.randint(16, 40000)
        # Half random, half runs: binary that still deltas and compresses.
        head = self.rng.randbytes(n // 2)
        tail = bytes([self.rng.randrange(256)]) * (n - n // 2)
        return b"\x00\x89BIN" + head + tail

    def large_blob(self, size):
        # Repeated random 64 kB blocks with small variations: big, but
        # self-similar so deltas and compression have work to do.
        blocks = [self.rng.randbytes(65536) for _ in range(4)]
        parts, total = [], 0
        while total < size:
            b = bytearray(self.rng.choice(blocks))
            b[self.rng.randrange(len(b))] = self.rng.randrange(256)
            parts.append(bytes(b))
            total += len(b)
        return b"".join(parts)[:size]

    def plan_large(self):
        """Revisions that add (a) or edit (e) one of the large files."""
        n = self.revs
        if n < 8:
            return {}
        plan = {max(3, n // 5): "a", max(4, n // 2): "a",
                max(5, (3 * n) // 5): "e", max(6, (4 * n) // 5): "e"}
        return plan

    def free(self, path):
        """True if PATH is unrelated to everything touched this revision."""
        for t in self.touched:
            if path == t or path.startswith(t + "/") or t.startswith(path + "/"):
                return False
        return True

    def fresh_name(self, parent, ext=""):
        while True:
            self.counter += 1
            stem = self.rng.choice(("File", "util", "Main", "readme", "conf",
                                    "data", "Test", "impl", "notes", "x"))
            name = "%s/%s%d%s" % (parent, stem, self.counter, ext)
            if not self.state.exists(name):
                return name

    def ensure_parents(self, path):
        parts = path.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if not self.state.exists(d):
                self.state.nodes[d] = ("dir", {})
                self.dump.node(d, "dir", "add", props={})
                self.touched.append(d)

    def work_roots(self):
        """Directories where ordinary development happens (not tags)."""
        roots = ["trunk"]
        roots += [p for p in self.state.paths("dir", under="branches")
                  if p.count("/") == 1]
        return roots

    def pick_file(self, pred=None):
        roots = self.work_roots()
        root = roots[0] if self.rng.random() < 0.75 else self.rng.choice(roots)
        cands = [p for p in self.state.paths("file", under=root)
                 if self.free(p) and (pred is None or pred(p))]
        return self.rng.choice(cands) if cands else None

    # ---- operations -----------------------------------------------------
    def op_add_text(self):
        root = self.rng.choice(self.work_roots())
        parent = root + "/" + self.rng.choice(TOP_DIRS)
        if not self.free(parent):
            return
        path = self.fresh_name(parent, self.rng.choice(TEXT_EXTS))
        self.ensure_parents(path)
        props = {}
        if self.rng.random() < 0.5:
            props["svn:eol-style"] = self.rng.choice(("native", "LF", "native"))
            self.note("prop:svn:eol-style")
        if self.rng.random() < 0.2:
            props["svn:keywords"] = "Id Revision"
        if path.endswith(".py") or self.rng.random() < 0.05:
            props["svn:executable"] = "*"
            self.note("prop:svn:executable")
        if self.rng.random() < 0.1:
            props["fsfs7:reviewed-by"] = self.rng.choice(AUTHORS)
            self.note("prop:custom")
        empty = self.rng.random() < 0.08
        text = b"" if empty else self.new_text()
        if empty:
            self.note("empty-file")
        if path.count("/") >= 12:
            self.note("deep-path")
        if any(ord(c) > 127 for c in path) or " " in path:
            self.note("odd-path")
        self.state.nodes[path] = ("file", props, text)
        self.dump.node(path, "file", "add", props=props, text=text)
        self.touched.append(path)
        self.note("add-text")

    def op_add_binary(self):
        root = self.rng.choice(self.work_roots())
        path = self.fresh_name(root + "/" + self.rng.choice(("lib", "data/ünïcödé",
                                                             "src/main")),
                               self.rng.choice(BIN_EXTS))
        if not self.free(path.rsplit("/", 1)[0]):
            return
        self.ensure_parents(path)
        props = {"svn:mime-type": self.rng.choice(("application/octet-stream",
                                                   "image/png",
                                                   "application/java-archive"))}
        text = self.new_binary()
        self.state.nodes[path] = ("file", props, text)
        self.dump.node(path, "file", "add", props=props, text=text)
        self.touched.append(path)
        self.note("add-binary")
        self.note("prop:svn:mime-type")

    def edit_lines(self, text):
        lines = text.decode("utf-8", "replace").split("\n")[:-1] if text else []
        for _ in range(self.rng.randint(1, 6)):
            r = self.rng.random()
            i = self.rng.randint(0, len(lines))
            if r < 0.45 or not lines:
                for _ in range(self.rng.randint(1, 8)):
                    lines.insert(i, self.text_line())
            elif r < 0.7:
                del lines[min(i, len(lines) - 1):min(i, len(lines) - 1)
                          + self.rng.randint(1, 4)]
            else:
                lines[min(i, len(lines) - 1)] = self.text_line()
        if len(lines) > 600:
            lines = lines[:600]
        return "".join(l + "\n" for l in lines).encode()

    def op_edit(self):
        path = self.pick_file()
        if path is None:
            return
        _, props, text = self.state.nodes[path]
        if b"\0" in text or "svn:mime-type" in props:
            b = bytearray(text) if text else bytearray(b"\0")
            for _ in range(self.rng.randint(1, 20)):
                b[self.rng.randrange(len(b))] = self.rng.randrange(256)
            if self.rng.random() < 0.3:
                b += self.rng.randbytes(self.rng.randint(1, 2000))
            new = bytes(b)
            self.note("edit-binary")
        else:
            new = self.edit_lines(text)
            self.note("edit-text")
        newprops = props
        if self.rng.random() < 0.15:
            newprops = dict(props)
            newprops["fsfs7:last-edit"] = "r%d" % self.rev
            self.note("prop:custom")
        self.state.nodes[path] = ("file", newprops, new)
        self.dump.node(path, "file", "change",
                       props=newprops if newprops is not props else None,
                       text=new)
        self.touched.append(path)

    def op_propchange(self):
        path = self.pick_file()
        if path is None:
            return
        kind, props, text = self.state.nodes[path]
        newprops = dict(props)
        r = self.rng.random()
        if r < 0.3 and "svn:executable" not in props:
            newprops["svn:executable"] = "*"
            self.note("prop:svn:executable")
        elif r < 0.5 and props:
            del newprops[sorted(props)[0]]
            self.note("prop-delete")
        else:
            newprops["fsfs7:note"] = self.words(self.rng.randint(1, 5))
            self.note("prop:custom")
        self.state.nodes[path] = ("file", newprops, text)
        self.dump.node(path, "file", "change", props=newprops)
        self.touched.append(path)
        self.note("prop-only-change")

    def op_mkdir_empty(self):
        root = self.rng.choice(self.work_roots())
        path = self.fresh_name(root + "/" + self.rng.choice(("empty", "doc")))
        if not self.free(path.rsplit("/", 1)[0]):
            return
        self.ensure_parents(path)
        props = {}
        if self.rng.random() < 0.4:
            props["svn:ignore"] = "*.o\n*.class\ntarget\n"
            self.note("prop:svn:ignore")
        self.state.nodes[path] = ("dir", props)
        self.dump.node(path, "dir", "add", props=props)
        self.touched.append(path)
        self.note("empty-dir")

    def op_delete(self):
        roots = self.work_roots()
        root = self.rng.choice(roots)
        cands = [p for p in self.state.paths(under=root)
                 if p != root and self.free(p) and
                 not p.endswith(("/src", "/src/main", "/doc", "/lib"))]
        if not cands:
            return
        path = self.rng.choice(cands)
        kind = self.state.kind(path)
        for p in self.state.subtree(path):
            del self.state.nodes[p]
        self.dump.node(path, None, "delete")
        self.touched.append(path)
        self.note("delete-" + kind)

    def copy_tree(self, src, srcrev, dst, extra_props=None):
        """Copy SRC@SRCREV to DST in the working state; emit the record."""
        old = self.history[srcrev]
        base = old.nodes[src]
        for p in old.subtree(src):
            self.state.nodes[dst + p[len(src):]] = old.nodes[p]
        props = None
        if extra_props:
            props = dict(base[1])
            props.update(extra_props)
            if base[0] == "dir":
                self.state.nodes[dst] = ("dir", props)
            else:
                self.state.nodes[dst] = ("file", props, base[2])
        self.dump.node(dst, base[0], "add", props=props, copyfrom=(src, srcrev))
        self.touched.append(dst)

    def op_rename(self):
        src = self.pick_file()
        if src is None:
            return
        prev = self.rev - 1
        if not self.history[prev].exists(src):
            return
        parent = src.rsplit("/", 1)[0]
        dst = self.fresh_name(parent, "." + src.rsplit(".", 1)[-1]
                              if "." in src.rsplit("/", 1)[-1] else "")
        self.copy_tree(src, prev, dst)
        for p in self.state.subtree(src):
            del self.state.nodes[p]
        self.dump.node(src, None, "delete")
        self.touched.append(src)
        self.note("rename")

    def op_rename_dir(self):
        prev = self.rev - 1
        cands = [p for p in self.state.paths("dir", under="trunk")
                 if p.count("/") >= 2 and self.free(p)
                 and self.history[prev].exists(p)]
        if not cands:
            return
        src = self.rng.choice(cands)
        dst = self.fresh_name(src.rsplit("/", 1)[0])
        self.copy_tree(src, prev, dst)
        for p in self.state.subtree(src):
            del self.state.nodes[p]
        self.dump.node(src, None, "delete")
        self.touched.append(src)
        self.note("rename-dir")

    def op_replace(self):
        path = self.pick_file()
        if path is None:
            return
        prev = self.rev - 1
        # With history: replace by an older version of another file.
        others = [p for p in self.history[prev].paths("file", under="trunk")
                  if p != path and self.free(p)]
        if others and self.rng.random() < 0.5:
            src = self.rng.choice(others)
            old = self.history[prev].nodes[src]
            self.state.nodes[path] = old
            self.dump.node(path, "file", "replace", copyfrom=(src, prev))
            self.note("replace-copy")
        else:
            props = {"svn:eol-style": "native"}
            text = self.new_text()
            self.state.nodes[path] = ("file", props, text)
            self.dump.node(path, "file", "replace", props=props, text=text)
            self.note("replace")
        self.touched.append(path)

    def op_branch(self):
        if not self.free("trunk") or not self.free("branches"):
            return
        back = self.rng.randint(1, min(5, self.rev - 1))
        srcrev = self.rev - back
        if not self.history[srcrev].exists("trunk"):
            return
        self.branches += 1
        dst = "branches/b%d" % self.branches
        first = max(1, srcrev - 10)
        # A range must not start and end at the same revision ("1-1" is
        # invalid mergeinfo that svnadmin load refuses): one revision
        # is written alone.
        mi = ("/trunk:%d-%d" % (first, srcrev) if first < srcrev
              else "/trunk:%d" % srcrev)
        self.copy_tree("trunk", srcrev, dst, extra_props={"svn:mergeinfo": mi})
        self.note("branch")
        self.note("prop:svn:mergeinfo")

    def op_tag(self):
        if not self.free("trunk") or not self.free("tags"):
            return
        back = self.rng.randint(1, min(8, self.rev - 1))
        srcrev = self.rev - back
        self.tags += 1
        dst = "tags/v1.%d" % self.tags
        self.copy_tree("trunk", srcrev, dst)
        self.note("tag")

    def op_merge(self):
        """A merge: change svn:mergeinfo on trunk or a branch root."""
        roots = self.work_roots()
        if len(roots) < 2:
            return
        tgt = self.rng.choice(roots)
        if not self.free(tgt):
            return
        src = self.rng.choice([r for r in roots if r != tgt])
        lo = self.rng.randint(1, max(1, self.rev - 2))
        props = dict(self.state.nodes[tgt][1])
        mi = props.get("svn:mergeinfo", "")
        entry = "/%s:%d-%d" % (src, lo, self.rev - 1) if lo < self.rev - 1 \
            else "/%s:%d" % (src, lo)
        lines = [l for l in mi.split("\n") if l and not l.startswith("/" + src + ":")]
        props["svn:mergeinfo"] = "\n".join(sorted(lines + [entry]))
        self.state.nodes[tgt] = ("dir", props)
        self.dump.node(tgt, "dir", "change", props=props)
        self.touched.append(tgt)
        self.note("prop:svn:mergeinfo")
        self.note("merge")

    def op_delete_branch(self):
        bs = [p for p in self.state.paths("dir", under="branches")
              if p.count("/") == 1 and self.free(p)]
        if len(bs) < 3:
            return
        path = bs[0]
        for p in self.state.subtree(path):
            del self.state.nodes[p]
        self.dump.node(path, None, "delete")
        self.touched.append(path)
        self.note("delete-branch")

    def op_large(self, what):
        if what == "a":
            path = self.fresh_name("trunk/lib/large", ".bin")
            self.ensure_parents(path)
            size = self.rng.randint(1 << 20, 5 << 20)
            props = {"svn:mime-type": "application/octet-stream"}
            text = self.large_blob(size)
            self.state.nodes[path] = ("file", props, text)
            self.dump.node(path, "file", "add", props=props, text=text)
            self.touched.append(path)
            self.note("large-file")
            return
        cands = [p for p in self.state.paths("file", under="trunk")
                 if self.free(p) and len(self.state.nodes[p][2]) >= 1 << 20]
        if not cands:
            return
        path = self.rng.choice(cands)
        kind, props, text = self.state.nodes[path]
        b = bytearray(text)
        at = self.rng.randrange(len(b) - 5000)
        b[at:at + 4000] = self.rng.randbytes(4000)
        self.state.nodes[path] = (kind, props, bytes(b))
        self.dump.node(path, "file", "change", text=bytes(b))
        self.touched.append(path)
        self.note("large-edit")

    # ---- revisions ------------------------------------------------------
    def revprops(self):
        self.date += datetime.timedelta(seconds=self.rng.randint(30, 200000),
                                        microseconds=self.rng.randint(0, 999999))
        r = self.rng.random()
        if r < 0.05:
            log = ""
            self.note("empty-log")
        elif r < 0.3:
            log = "%s\n\n* %s\n* %s\n" % (self.words(4), self.words(8), self.words(6))
        else:
            log = self.words(self.rng.randint(2, 14))
        props = {"svn:log": log,
                 "svn:author": self.rng.choice(AUTHORS),
                 "svn:date": self.date.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}
        if self.rng.random() < 0.1:
            props["fsfs7:ticket"] = "FS-%d" % self.rng.randint(1, 9999)
            self.note("custom-revprop")
        return props

    def run(self):
        self.dump.header("%08x-7a7a-4f5f-8ff7-%012x"
                         % (self.seed & 0xffffffff, self.seed * 2654435761 % (1 << 48)))
        self.dump.revision(0, {"svn:date": "2015-03-01T08:00:00.000000Z"})
        self.history[0] = self.state.snapshot()
        for rev in range(1, self.revs + 1):
            self.rev = rev
            self.touched = []
            self.dump.revision(rev, self.revprops())
            if rev == 1:
                for d in ("trunk", "branches", "tags"):
                    props = {"svn:ignore": "*.o\n*.tmp\n"} if d == "trunk" else {}
                    self.state.nodes[d] = ("dir", props)
                    self.dump.node(d, "dir", "add", props=props)
                self.note("prop:svn:ignore")
            elif rev in self.large_revs:
                self.op_large(self.large_revs[rev])
            else:
                self.one_revision()
            self.history[rev] = self.state.snapshot()
            self.history.pop(rev - 12, None)
        return self.shapes

    def one_revision(self):
        r = self.rng.random()
        if r < 0.03:
            self.note("empty-revision")       # revprops only
            return
        if r < 0.08:
            self.op_branch()
            return
        if r < 0.12:
            self.op_tag()
            return
        ops = ((self.op_edit, 40), (self.op_add_text, 18), (self.op_add_binary, 4),
               (self.op_delete, 6), (self.op_rename, 5), (self.op_rename_dir, 1),
               (self.op_replace, 4), (self.op_propchange, 6),
               (self.op_mkdir_empty, 3), (self.op_merge, 3),
               (self.op_delete_branch, 1))
        fns = [f for f, _ in ops]
        weights = [w for _, w in ops]
        n = self.rng.choice((1, 1, 1, 2, 2, 3, 4, 8))
        if self.rev < 6:
            fns, n = [self.op_add_text], 6      # start with some content
            weights = [1]
        for _ in range(n):
            self.rng.choices(fns, weights)[0]()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--revs", type=int, required=True, help="number of revisions")
    ap.add_argument("--seed", type=int, required=True, help="random seed")
    ap.add_argument("-o", "--output", help="output file (default: stdout)")
    ap.add_argument("--stats", action="store_true",
                    help="print how often each shape occurs to stderr")
    a = ap.parse_args(argv)
    if a.revs < 1:
        ap.error("--revs must be at least 1")
    out = open(a.output, "wb") if a.output else sys.stdout.buffer
    try:
        shapes = Generator(a.revs, a.seed, out).run()
    finally:
        if a.output:
            out.close()
        else:
            out.flush()
    if a.stats:
        for k in sorted(shapes):
            print("%-24s %d" % (k, shapes[k]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
