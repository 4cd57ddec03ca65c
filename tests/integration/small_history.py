"""A small deterministic history, and the stock-made repositories of every
shape built from it, for tests that run many commands per repository
(test_rev_size.py, test_parity.py).

The history is written here as a dump stream (format 2, full texts,
fixed dates and UUID), 14 revisions and ~0.4 MB: directories, text and
binary files, edits that make delta chains, copies of directories and of
files, a replace, deletes, node properties (svn:eol-style, svn:mime-type,
svn:executable, svn:mergeinfo, custom), a property-only revision, an
empty revision, a revision without svn:log, a path with a space and one
with non-ASCII characters, and one file of ~150 kB whose items cross the
64 kB read blocks (so packing logically addressed shards adds padding).

Shapes (name -> how stock makes it); every one has shards of 4 revisions
(but for the linear formats 1 and 2), so r0-r11 fall into three full
shards and r12-r14 stay unpacked when packed:
  f1 f2 f3 f4 f6 f7 f8   svnadmin create --compatible-version 1.3, 1.4,
                         1.5, 1.6, 1.8, 1.9, default
  f7phys                 format 7 with physical addressing (svn_repos_create
                         with fsfs-log-addressing=false, through ctypes:
                         svnadmin has no option for it)
  f8u                    f6 upgraded by `svnadmin upgrade` (format 8,
                         physical addressing)
  <name>p                the same, packed by `svnadmin pack` (formats 4+)
Each has a pre-revprop-change hook that allows every change.  They are
built once into $FSFS7_TEST_CACHE, keyed by this file's contents and the
stock version; tests work on copies.
"""

import ctypes
import hashlib
import os
import random
import shutil
import sys

import fsfs7test as T

UUID = "5ee1c0de-0fa5-4f57-9a11-000000f5f507"
HEAD = 14
SHARD = 4

# name -> (--compatible-version, special)
BASE_SHAPES = {
    "f1": ("1.3", None), "f2": ("1.4", None), "f3": ("1.5", None),
    "f4": ("1.6", None), "f6": ("1.8", None), "f7": ("1.9", None),
    "f8": (None, None), "f7phys": ("1.9", "physical"), "f8u": ("1.8", "upgrade"),
}
PACKABLE = ("f4", "f6", "f7", "f8", "f7phys", "f8u")
SHAPES = list(BASE_SHAPES) + [s + "p" for s in PACKABLE]
FORMAT_OF = {"f1": 1, "f2": 2, "f3": 3, "f4": 4, "f6": 6, "f7": 7, "f8": 8,
             "f7phys": 7, "f8u": 8}
LOGICAL = {"f7", "f8"}


def base_of(shape):
    """The unpacked shape a packed SHAPE was made from."""
    return shape[:-1] if shape.endswith("p") and shape[:-1] in PACKABLE else shape


def format_of(shape):
    return FORMAT_OF[base_of(shape)]


def packed(shape):
    return shape != base_of(shape)


def logical(shape):
    return base_of(shape) in LOGICAL


# ---- the history ------------------------------------------------------------

def _props(pairs):
    out = b""
    for k, v in pairs:
        if v is None:
            out += b"D %d\n%s\n" % (len(k), k)
        else:
            out += b"K %d\n%s\nV %d\n%s\n" % (len(k), k, len(v), v)
    return out + b"PROPS-END\n"


def node_record(path, kind, action, props=None, text=None, copy=None):
    """A node record of a dump stream: PROPS a list of (name, value)
    pairs (value None: a deletion, for incremental dumps), TEXT the full
    text, COPY (rev, path)."""
    head = [b"Node-path: " + path]
    if kind:
        head.append(b"Node-kind: " + kind)
    head.append(b"Node-action: " + action)
    if copy:
        head += [b"Node-copyfrom-rev: %d" % copy[0], b"Node-copyfrom-path: " + copy[1]]
    body = b""
    if props is not None:
        p = _props(props)
        head.append(b"Prop-content-length: %d" % len(p))
        body += p
    if text is not None:
        head.append(b"Text-content-length: %d" % len(text))
        head.append(b"Text-content-md5: " + hashlib.md5(text).hexdigest().encode())
        body += text
    if props is not None or text is not None:
        head.append(b"Content-length: %d" % len(body))
    return b"\n".join(head) + b"\n\n" + body + b"\n\n"


def revision_record(num, nodes, author=b"alice", log=b""):
    """A revision record with NODES; svn:date is fixed by NUM, a LOG of
    None leaves svn:log out."""
    date = b"2020-01-%02dT10:%02d:00.%06dZ" % (1 + num // 4, num, num * 1111)
    pairs = [(b"svn:author", author), (b"svn:date", date)]
    if log is not None:
        pairs.insert(1, (b"svn:log", log))
    if num == 0:
        pairs = [(b"svn:date", date)]
    p = _props(pairs)
    return (b"Revision-number: %d\nProp-content-length: %d\nContent-length: %d\n\n"
            % (num, len(p), len(p)) + p + b"\n" + b"".join(nodes))


def _text(rnd, lines, width=60):
    """LINES lines of random letters: zlib keeps ~60 % of them."""
    letters = b"abcdefghijklmnopqrstuvwxyz "
    return b"".join(bytes(rnd.choice(letters) for _ in range(width)) + b"\n"
                    for _ in range(lines))


def dump():
    """The history as a dump stream (bytes); the same on every call."""
    rnd = random.Random(7)
    big = _text(rnd, 2600)                     # ~150 kB, crosses read blocks
    main_c = b"int main(void)\n{\n  return 0;\n}\n"
    blob = bytes(rnd.randrange(256) for _ in range(3000))
    eol = [(b"svn:eol-style", b"native")]
    revs = [revision_record(0, [])]
    revs.append(revision_record(1, [
        node_record(b"trunk", b"dir", b"add", props=[]),
        node_record(b"branches", b"dir", b"add", props=[]),
        node_record(b"tags", b"dir", b"add", props=[]),
        node_record(b"trunk/src", b"dir", b"add", props=[]),
        node_record(b"trunk/README", b"file", b"add", props=eol, text=b"Read me.\n"),
        node_record(b"trunk/src/main.c", b"file", b"add", props=eol, text=main_c),
    ], log=b"Initial layout."))
    revs.append(revision_record(2, [
        node_record(b"trunk/src/main.c", b"file", b"change", text=main_c + b"/* two */\n"),
        node_record(b"trunk/doc", b"dir", b"add", props=[]),
        node_record(b"trunk/doc/big.txt", b"file", b"add", props=[], text=big),
        node_record(b"trunk/doc/with space.txt", b"file", b"add", props=[], text=b"spaced\n"),
    ], author=b"bob", log=b"Docs and a big file.\n\nSecond paragraph."))
    revs.append(revision_record(3, [
        node_record(b"branches/b1", b"dir", b"add", copy=(2, b"trunk")),
    ], log=b"Branch b1."))
    revs.append(revision_record(4, [
        node_record(b"branches/b1/src/main.c", b"file", b"change",
              text=main_c + b"/* two */\n/* on b1 */\n"),
        node_record(b"trunk", b"dir", b"change", props=[(b"custom:prop", b"on trunk")]),
        node_record(b"trunk/bin.dat", b"file", b"add",
              props=[(b"svn:mime-type", b"application/octet-stream")], text=blob),
    ], log=b"Work on b1; a binary file."))
    revs.append(revision_record(5, [
        node_record(b"trunk/doc/big.txt", b"file", b"change", text=big[:70000] + b"edit\n" + big[70000:]),
        node_record(b"trunk/doc/with space.txt", b"file", b"delete"),
    ], log=b"Edit the big file, delete one."))
    revs.append(revision_record(6, [
        node_record(b"tags/v1", b"dir", b"add", copy=(5, b"trunk")),
    ], author=b"carol", log=b"Tag v1."))
    revs.append(revision_record(7, [
        node_record(b"branches/b1", b"dir", b"change",
              props=[(b"svn:mergeinfo", b"/trunk:2-6")]),
        node_record(b"trunk/README", b"file", b"replace", props=[], text=b"Replaced.\n"),
    ], log=b"Replace README; mergeinfo."))
    revs.append(revision_record(8, [], log=b"An empty revision."))
    revs.append(revision_record(9, [
        node_record(b"trunk/src/main.c", b"file", b"change",
              props=eol + [(b"svn:executable", b"*")]),
    ], log=None))
    revs.append(revision_record(10, [
        node_record(b"trunk/src/util.c", b"file", b"add", props=[],
              copy=(9, b"trunk/src/main.c"), text=main_c + b"/* util */\n"),
        node_record(b"trunk/doc/\xc3\xa9t\xc3\xa9.txt", b"file", b"add", props=[], text=b"summer\n"),
    ], log=b"Copy a file with changes; a non-ASCII name."))
    revs.append(revision_record(11, [
        node_record(b"branches/b1/doc/big.txt", b"file", b"change", text=big + b"tail\n"),
    ], log=b"Edit big on b1."))
    revs.append(revision_record(12, [
        node_record(b"tags/v1/bin.dat", b"file", b"delete"),
        node_record(b"trunk/bin.dat", b"file", b"change", text=blob[::-1]),
    ], log=b"Binary edit."))
    revs.append(revision_record(13, [
        node_record(b"trunk/src", b"dir", b"delete"),
        node_record(b"trunk/source", b"dir", b"add", copy=(12, b"trunk/src")),
    ], log=b"Move src to source."))
    revs.append(revision_record(14, [
        node_record(b"trunk/source/main.c", b"file", b"change", text=main_c + b"/* fourteen */\n"),
        node_record(b"trunk/doc/big.txt", b"file", b"change", text=big[:1000] + big[2000:]),
    ], author=b"dave", log=b"Last one."))
    assert len(revs) == HEAD + 1
    head = b"SVN-fs-dump-format-version: 2\n\nUUID: %s\n\n" % UUID.encode()
    return head + b"".join(revs)


# ---- the repositories ---------------------------------------------------------

def create_physical_f7(path):
    """svn_repos_create with compatible-version 1.9 and
    fsfs-log-addressing=false, through the libraries this process loads
    (run by _build in a child with the stock environment)."""
    apr = ctypes.CDLL("libapr-1.so.0")
    repos = ctypes.CDLL("libsvn_repos-1.so.1")
    apr.apr_initialize()
    pool = ctypes.c_void_p()
    apr.apr_pool_create_ex(ctypes.byref(pool), None, None, None)
    apr.apr_hash_make.restype = ctypes.c_void_p
    apr.apr_hash_make.argtypes = [ctypes.c_void_p]
    apr.apr_hash_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ssize_t,
                                 ctypes.c_char_p]
    config = apr.apr_hash_make(pool)
    pairs = [(b"compatible-version", b"1.9"), (b"fsfs-log-addressing", b"false")]
    for k, v in pairs:
        apr.apr_hash_set(config, k, -1, v)
    repos.svn_repos_create.restype = ctypes.c_void_p
    repos.svn_repos_create.argtypes = [ctypes.c_void_p] + [ctypes.c_char_p] * 3 \
        + [ctypes.c_void_p] * 3
    out = ctypes.c_void_p()
    err = repos.svn_repos_create(ctypes.byref(out), path.encode(), None, None, None,
                                 config, pool)
    apr.apr_pool_destroy(pool)
    if err:
        raise T.SetupError("svn_repos_create of a physical format 7 failed")


def _shard(repo):
    fmt = os.path.join(repo, "db", "format")
    with open(fmt, "rb") as f:
        text = f.read()
    if b"layout sharded 1000" in text:
        os.chmod(fmt, 0o644)
        with open(fmt, "wb") as f:
            f.write(text.replace(b"layout sharded 1000", b"layout sharded %d" % SHARD))
        os.chmod(fmt, 0o444)


def _build(shape, dest, stream):
    compat, special = BASE_SHAPES[base_of(shape)]
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    if special == "physical":
        T.stock_ok(sys.executable, os.path.abspath(__file__), "create-physical-f7", tmp)
    else:
        T.stock_ok("svnadmin", "create", *(["--compatible-version", compat] if compat else []),
                   tmp)
    _shard(tmp)
    T.stock_ok("svnadmin", "load", "-q", "--no-flush-to-disk", tmp, input=stream)
    if special == "upgrade":
        T.stock_ok("svnadmin", "upgrade", tmp)
    if packed(shape):
        T.stock_ok("svnadmin", "pack", "-q", tmp)
    T.allow_revprop_changes(tmp)
    got = int(T.stock_ok("svnlook", "youngest", tmp).stdout)
    if got != HEAD:
        raise T.SetupError("%s: youngest is r%d, not r%d" % (shape, got, HEAD))
    os.rename(tmp, dest)


def repositories():
    """{shape: path of the cached pristine repository} (built once)."""
    with open(os.path.abspath(__file__), "rb") as f:
        mine = hashlib.sha256(f.read()).hexdigest()[:12]
    ver = hashlib.sha256(T.stock_version().encode()).hexdigest()[:8]
    key = "small-%s-%s" % (mine, ver)
    base = os.path.join(T.CACHE, key)
    stream = dump()
    with T._locked(key):
        todo = [s for s in SHAPES if not os.path.isdir(os.path.join(base, s))]
        if todo:
            os.makedirs(base, exist_ok=True)
            T.log("building small stock repositories: " + " ".join(todo))
            errs = T.parallel(lambda s: T._safe(_build, s, os.path.join(base, s), stream),
                              todo)
            for e in errs:
                if e:
                    raise e
    return {s: os.path.join(base, s) for s in SHAPES}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "create-physical-f7":
        create_physical_f7(sys.argv[2])
    else:
        sys.exit("usage: small_history.py create-physical-f7 PATH")
