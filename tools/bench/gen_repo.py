"""Generated small repositories for the benchmark quick mode and the tools
tests, made by the stock svnadmin.

make_repo() writes a dump stream of a generated history (files added,
changed, deleted, copied; directories; node properties; multi-line log
messages) and loads it into a new repository, optionally with a small
shard size and packed.  Nothing here comes from the shared data sets.
"""
import hashlib
import os
import subprocess


def _record(headers, props=None, text=None):
    """One dump record: HEADERS (list of pairs), optional PROPS (dict),
    optional TEXT (bytes)."""
    prop_block = b""
    if props is not None:
        for name, value in props.items():
            key, val = name.encode(), value.encode()
            prop_block += b"K %d\n%s\nV %d\n%s\n" % (len(key), key,
                                                     len(val), val)
        prop_block += b"PROPS-END\n"
    out = b"".join(b"%s: %s\n" % (k.encode(), str(v).encode())
                   for k, v in headers)
    if props is not None:
        out += b"Prop-content-length: %d\n" % len(prop_block)
    if text is not None:
        out += b"Text-content-length: %d\n" % len(text)
        out += b"Text-content-md5: %s\n" % \
            hashlib.md5(text).hexdigest().encode()
    if props is not None or text is not None:
        out += b"Content-length: %d\n" % (len(prop_block) + len(text or b""))
    out += b"\n" + prop_block + (text or b"") + b"\n"
    return out


def _revision(rev, msg):
    props = {"svn:log": msg, "svn:author": "bench",
             "svn:date": "2020-01-01T00:00:%02d.000000Z" % (rev % 60)}
    return _record([("Revision-number", rev)], props=props)


def _node(path, kind, action, text=None, props=None, copyfrom=None):
    headers = [("Node-path", path)]
    if kind:
        headers.append(("Node-kind", kind))
    headers.append(("Node-action", action))
    if copyfrom:
        headers += [("Node-copyfrom-rev", copyfrom[1]),
                    ("Node-copyfrom-path", copyfrom[0])]
    return _record(headers, props=props, text=text)


def dump_stream(revs):
    """A dump stream with REVS revisions (REVS >= 3)."""
    out = [b"SVN-fs-dump-format-version: 2\n\n",
           b"UUID: 0c5a1f3e-0000-4000-8000-000000000001\n\n",
           _record([("Revision-number", 0)],
                   props={"svn:date": "2020-01-01T00:00:00.000000Z"})]
    out.append(_revision(1, "layout\n\ntrunk and friends"))
    for d in ("trunk", "branches", "tags"):
        out.append(_node(d, "dir", "add", props={}))
    for rev in range(2, revs + 1):
        out.append(_revision(rev, "change %d\nsecond line" % rev
                             if rev % 3 else "one-liner %d" % rev))
        sub = "trunk/d%d" % (rev % 4)
        if rev < 6:
            out.append(_node(sub, "dir", "add", props={}))
        name = "%s/f%d.txt" % (sub, rev)
        body = ("line %d\n" % rev * (rev * 7)).encode()
        props = {"svn:executable": "*"} if rev % 5 == 0 else {}
        if rev % 7 == 0:
            props["bench:note"] = "x" * rev
        out.append(_node(name, "file", "add", text=body, props=props))
        if rev > 6:
            old = "trunk/d%d/f%d.txt" % ((rev - 4) % 4, rev - 4)
            if rev % 6 == 0:
                out.append(_node(old, None, "delete"))
            else:
                out.append(_node(old, "file", "change",
                                 text=body + b"changed\n"))
        if rev % 10 == 0:
            out.append(_node("tags/t%d" % rev, "dir", "add",
                             copyfrom=("trunk", rev - 1)))
    return b"".join(out)


def make_repo(path, revs=30, compat="1.9", shard=None, pack=False):
    """Create a repository at PATH with REVS revisions; SHARD sets the
    shard size (before loading), PACK packs it afterwards."""
    subprocess.run(["svnadmin", "create", "--compatible-version", compat,
                    path], check=True)
    if shard:
        fmt = os.path.join(path, "db", "format")
        with open(fmt) as f:
            text = f.read().replace("layout sharded 1000",
                                    "layout sharded %d" % shard)
        os.chmod(fmt, 0o644)
        with open(fmt, "w") as f:
            f.write(text)
    subprocess.run(["svnadmin", "load", "-q", path], input=dump_stream(revs),
                   check=True)
    if pack:
        subprocess.run(["svnadmin", "pack", "-q", path], check=True)
    return path
