#!/usr/bin/env python3
"""lenient_trial.py: a small, seeded hostile-bytes trial set measuring how
often fsfs7 refuses what the stock module serves (issue 9, "read
leniency").

It builds small repositories from tools/gen_history.py with the stock
binaries (f6 and f7 packed, f7 unpacked; shards of 10), damages copies
of them, and runs `svn log -v`, `svn export`, `svnadmin dump` and
`svnadmin verify` with the stock module and with a given fsfs7 module
directory.  Each run is classed OK (exit 0, output as on the undamaged
repository), WRONG (exit 0, other output), ERROR, CRASH (signal) or
HANG (timeout).  Printed figures, per damage class and command:
  refused   stock OK, fsfs7 not OK      (what issue 9 asks to remove)
  win       stock WRONG, fsfs7 ERROR    (to keep)
  shorter   both dumps failed, fsfs7 dumped fewer revisions
  longer    both dumps failed, fsfs7 dumped more
Per-trial rows go to a TSV.

    tools/lenient_trial.py --module DIR [--trials 50] [--seed 1]
                           [--classes rpman,root,trunc,zero,flip]
                           (also: rppack, a byte of a revprop pack file)
                           [--work /tmp/lenient] [--tsv out.tsv]
"""

import argparse
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_history.py")
REVS = 60
SHARD = 10
TIMEOUT = 60
# variant -> (compatible version, packed)
VARIANTS = {"f6p": ("1.8", True), "f7p": ("1.9", True), "f7": ("1.9", False)}


def env_for(module):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.update(TZ="UTC", LC_ALL="C.UTF-8", LANG="C.UTF-8")
    if module:
        env["LD_LIBRARY_PATH"] = module
    return env


def run(args, module, cwd=None):
    try:
        return subprocess.run(args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env_for(module),
                              timeout=TIMEOUT, cwd=cwd)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -999, b"", b"TIMEOUT")


def ok(args):
    p = run(args, None)
    if p.returncode != 0:
        sys.exit("stock failed: %s\n%s" % (" ".join(args), p.stderr.decode()))
    return p


def build(work):
    dump = os.path.join(work, "gen.dump")
    if not os.path.exists(dump):
        subprocess.run([sys.executable, GEN, "--revs", str(REVS), "--seed",
                        "5", "-o", dump], check=True)
    base = {}
    for v, (compat, packed) in VARIANTS.items():
        repo = os.path.join(work, "base-" + v)
        base[v] = repo
        if os.path.exists(repo):
            continue
        ok(["svnadmin", "create", "--compatible-version", compat, repo])
        fmt = os.path.join(repo, "db", "format")
        text = open(fmt, "rb").read()
        os.chmod(fmt, 0o644)
        open(fmt, "wb").write(text.replace(b"layout sharded 1000",
                                           b"layout sharded %d" % SHARD))
        with open(dump, "rb") as f:
            p = subprocess.run(["svnadmin", "load", "-q", repo], stdin=f,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env_for(None))
        if p.returncode:
            sys.exit(p.stderr.decode())
        if packed:
            ok(["svnadmin", "pack", "-q", repo])
        subprocess.run(["chmod", "-R", "u+w", repo], check=True)
    return base


def tree_hash(path):
    h = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            h.update(os.path.relpath(full, path).encode() + b"\0")
            if os.path.islink(full):
                h.update(b"L" + os.readlink(full).encode())
            else:
                with open(full, "rb") as f:
                    h.update(f.read())
        for name in dirs:
            h.update(b"D" + os.path.relpath(os.path.join(root, name),
                                            path).encode())
    return h.hexdigest()


def commands(repo, rev, scratch):
    """name -> (argv, how to get the output to compare)."""
    url = "file://" + repo
    return {
        "log": (["svn", "log", "-v", url], None),
        "export": (["svn", "export", "-q", "-r", str(rev), url,
                    os.path.join(scratch, "exp")], "tree"),
        "dump": (["svnadmin", "dump", repo], None),
        "verify": (["svnadmin", "verify", "-q", repo], None),
    }


def run_cmd(name, argv, how, module, scratch):
    exp = os.path.join(scratch, "exp")
    if os.path.exists(exp):
        shutil.rmtree(exp)
    p = run(argv, module)
    out = p.stdout
    if how == "tree" and p.returncode == 0:
        out = tree_hash(exp).encode()
    dumped = len(re.findall(rb"^\* Dumped revision", p.stderr, re.M))
    return p, out, dumped


def classify(p, out, want):
    if p.returncode == -999:
        return "HANG"
    if p.returncode < 0:
        return "CRASH"
    if p.returncode != 0:
        return "ERROR"
    return "OK" if out == want else "WRONG"


def rev_path(repo, rev):
    return os.path.join(repo, "db", "revs", str(rev // SHARD), str(rev))


def pack_path(repo, shard):
    return os.path.join(repo, "db", "revs", "%d.pack" % shard, "pack")


def damage(kind, v, repo, rng):
    """Damage REPO; return (description, revision to export) or None if
    the class does not apply to variant V."""
    packed = VARIANTS[v][1]
    shards = REVS // SHARD      # full shards are packed; the rest is not
    if kind == "rpman":
        if not packed:
            return None
        shard = rng.randrange(shards)
        path = os.path.join(repo, "db", "revprops", "%d.pack" % shard,
                            "manifest")
        data = bytearray(open(path, "rb").read())
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        os.chmod(path, 0o644)
        open(path, "wb").write(data)
        return "rpman shard %d byte %d" % (shard, i), rng.randrange(
            max(1, shard * SHARD), (shard + 1) * SHARD)
    if kind == "rppack":
        if not packed:
            return None
        shard = rng.randrange(shards)
        d = os.path.join(repo, "db", "revprops", "%d.pack" % shard)
        path = os.path.join(d, rng.choice(sorted(
            n for n in os.listdir(d) if n != "manifest")))
        data = bytearray(open(path, "rb").read())
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        os.chmod(path, 0o644)
        open(path, "wb").write(data)
        return "rppack %s byte %d" % (os.path.relpath(path, repo), i), \
            rng.randrange(max(1, shard * SHARD), (shard + 1) * SHARD)
    if kind == "root":
        if packed:
            return None
        rev = rng.randrange(1, REVS)
        path = rev_path(repo, rev)
        data = bytearray(open(path, "rb").read())
        if VARIANTS[v][0] == "1.8":
            root = int(data.rstrip(b"\n").rsplit(b"\n", 1)[1].split()[0])
        else:
            root = data.find(b"id: 0.0.r%d/" % rev)
        # the node-rev header only (it ends with an empty line), so that
        # small revisions keep their footer / trailer
        n = min(512, data.find(b"\n\n", root) + 1 - root)
        data[root:root + n] = bytes(n)
        open(path, "wb").write(data)
        return "root r%d at %d" % (rev, root), rng.randrange(REVS + 1)
    # byte-level damage of a revision pack file (or rev file if unpacked)
    if packed:
        shard = rng.randrange(shards)
        path = pack_path(repo, shard)
        target = rng.randrange(max(1, shard * SHARD), (shard + 1) * SHARD)
    else:
        target = rng.randrange(1, REVS)
        path = rev_path(repo, target)
    data = bytearray(open(path, "rb").read())
    os.chmod(path, 0o644)
    if kind == "trunc":
        n = rng.randrange(len(data))
        data = data[:n]
        what = "trunc %s to %d" % (os.path.relpath(path, repo), n)
    elif kind == "zero":
        i = rng.randrange(len(data))
        n = min(512, len(data) - i)
        data[i:i + n] = bytes(n)
        what = "zero %s at %d+%d" % (os.path.relpath(path, repo), i, n)
    elif kind == "flip":
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
        what = "flip %s at %d" % (os.path.relpath(path, repo), i)
    else:
        raise ValueError(kind)
    open(path, "wb").write(data)
    return what, rng.randrange(REVS + 1) if not packed else target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--classes", default="rpman,root,trunc,zero,flip")
    ap.add_argument("--work", default="/tmp/lenient")
    ap.add_argument("--tsv")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    base = build(a.work)
    scratch = os.path.join(a.work, "scratch")
    os.makedirs(scratch, exist_ok=True)
    want = {}
    tsv = open(a.tsv, "w") if a.tsv else None
    if tsv:
        tsv.write("class\tvariant\ttrial\tdamage\tcommand\tstock\tours"
                  "\tstock_dumped\tours_dumped\tours_error\n")
    figures = {}
    for kind in a.classes.split(","):
        rng = random.Random("%s-%d" % (kind, a.seed))
        variants = [v for v in VARIANTS
                    if not (kind in ("rpman", "rppack")
                            and not VARIANTS[v][1])
                    and not (kind == "root" and VARIANTS[v][1])]
        for t in range(a.trials):
            v = variants[t % len(variants)]
            repos = []
            for who in ("stock", "ours"):
                dst = os.path.join(scratch, "repo-" + who)
                if os.path.exists(dst):
                    shutil.rmtree(dst)
                shutil.copytree(base[v], dst, symlinks=True)
                repos.append(dst)
            # same damage on both copies
            state = rng.getstate()
            what, rev = damage(kind, v, repos[0], rng)
            rng.setstate(state)
            damage(kind, v, repos[1], rng)
            results = {}
            for who, repo, module in (("stock", repos[0], None),
                                      ("ours", repos[1], a.module)):
                for name, (argv, how) in commands(repo, rev, scratch).items():
                    key = (v, name, rev)
                    if key not in want:
                        pargv, phow = commands(base[v], rev, scratch)[name]
                        p, out, _ = run_cmd(name, pargv, phow, None, scratch)
                        if p.returncode:
                            sys.exit("pristine %s failed" % name)
                        want[key] = out.replace(base[v].encode(), b"REPO")
                    p, out, dumped = run_cmd(name, argv, how, module, scratch)
                    out = out.replace(repo.encode(), b"REPO")
                    err = re.findall(rb"E\d{6}:[^\n]*", p.stderr)
                    results[(who, name)] = (classify(p, out, want[key]),
                                            dumped,
                                            err[-1].decode(errors="replace")
                                            if err else "")
            for name in ("log", "export", "dump", "verify"):
                s, sd, _ = results[("stock", name)]
                o, od, oerr = results[("ours", name)]
                f = figures.setdefault((kind, name), dict.fromkeys(
                    ("trials", "refused", "win", "shorter", "longer",
                     "ours_bad"), 0))
                f["trials"] += 1
                f["refused"] += s == "OK" and o != "OK"
                f["win"] += s == "WRONG" and o == "ERROR"
                f["ours_bad"] += o in ("CRASH", "HANG", "WRONG")
                if name == "dump" and s == o == "ERROR":
                    f["shorter"] += od < sd
                    f["longer"] += od > sd
                if tsv:
                    tsv.write("\t".join(str(x) for x in (
                        kind, v, t, what, name, s, o, sd, od, oerr)) + "\n")
                    tsv.flush()
    print("%-6s %-7s %6s %8s %4s %8s %7s %8s" % (
        "class", "command", "trials", "refused", "win", "shorter", "longer",
        "ours_bad"))
    for (kind, name), f in figures.items():
        print("%-6s %-7s %6d %8d %4d %8d %7d %8d" % (
            kind, name, f["trials"], f["refused"], f["win"], f["shorter"],
            f["longer"], f["ours_bad"]))


if __name__ == "__main__":
    main()
