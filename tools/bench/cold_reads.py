#!/usr/bin/env python3
"""Cold reads of one history in three layouts, through both modules.

    tools/bench/cold_reads.py --work DIR [--reps N] [--module DIR] [--header]
                              NAME:UNPACKED:STOCK_PACKED:FSFS7_PACKED ...

For each NAME, the three repositories hold the same revisions: unpacked,
packed by the stock module and packed by fsfs7.  Each is read with
`svn log -v` and `svn export` (into DIR, removed afterwards) by the stock
module and by fsfs7 (the module in --module, default this tree's build),
with the repository's files evicted from the page cache before every run
(tools/bench/cache.py: posix_fadvise on those files only, never the
machine's whole cache).  A cell is the median wall time of N runs (default
3); the two readers alternate which goes first.

One row per NAME and operation: the six times, `gain` (stock reading
stock's pack over fsfs7 reading its own pack) and `output`: `identical`
when every run printed the same log, or exported the same tree, else
which layouts and readers differ.  Exit status 1 when an output differs
or a command fails, else 0.  Not a test: the times are what they are on
this machine at this moment.
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cache  # noqa: E402

TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
LAYOUTS = ("unpacked", "stock pack", "fsfs7 pack")
READERS = ("stock", "fsfs7")
OPS = ("svn log -v", "svn export")


def env_for(reader, module):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.update(TZ="UTC", LC_ALL="C.UTF-8")
    if reader == "fsfs7":
        env["LD_LIBRARY_PATH"] = module
    return env


def tree_digest(top):
    """One hash of the names, kinds, exec bits and contents under TOP."""
    h = hashlib.sha256()
    for dirpath, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, top).encode()
            if os.path.islink(path):
                h.update(b"L" + rel + b"\0" + os.readlink(path).encode() + b"\0")
                continue
            h.update(b"F" + rel + b"\0%d\0" % (os.stat(path).st_mode & 0o111 != 0))
            with open(path, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        for name in dirs:
            h.update(b"D" + os.path.relpath(os.path.join(dirpath, name), top).encode())
    return h.hexdigest()


def run_once(op, repo, reader, module, work, digest):
    """Seconds of one cold run of OP on REPO by READER; with DIGEST also
    the hash of what it produced (else None)."""
    url = "file://" + os.path.abspath(repo)
    out = os.path.join(work, "cold-export")
    subprocess.run(["rm", "-rf", out], check=True)
    if op == "svn log -v":
        cmd = ["svn", "log", "-v", url]
    else:
        cmd = ["svn", "export", "-q", url, out]
    cache.evict([repo])
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env_for(reader, module), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    took = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError("%s (%s) on %s: exit %d: %s" % (
            op, reader, repo, p.returncode, p.stderr.decode(errors="replace")[:300]))
    got = None
    if digest:
        got = (hashlib.sha256(p.stdout).hexdigest() if op == "svn log -v"
               else tree_digest(out))
    subprocess.run(["rm", "-rf", out], check=True)
    return took, got


def measure(name, repos, reps, module, work):
    """Print the rows of NAME; return False when an output differs."""
    ok = True
    for op in OPS:
        times, digests = {}, {}
        for rep in range(reps):
            readers = READERS if rep % 2 == 0 else READERS[::-1]
            for layout, repo in zip(LAYOUTS, repos):
                for reader in readers:
                    took, got = run_once(op, repo, reader, module, work, rep == 0)
                    times.setdefault((layout, reader), []).append(took)
                    if got:
                        digests[(layout, reader)] = got
        cells = [statistics.median(times[(l, r)]) for l in LAYOUTS for r in READERS]
        gain = times[("stock pack", "stock")], times[("fsfs7 pack", "fsfs7")]
        ratio = statistics.median(gain[0]) / max(statistics.median(gain[1]), 1e-4)
        first = digests[(LAYOUTS[0], READERS[0])]
        odd = ["%s/%s" % k for k, v in sorted(digests.items()) if v != first]
        verdict = "identical" if not odd else "DIFFERENT: " + ", ".join(odd)
        ok = ok and not odd
        print("%-30s %s %6.2fx  %s" % ("%s: %s" % (name, op),
                                       " ".join("%7.2f" % c for c in cells),
                                       ratio, verdict), flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--module", default=os.path.join(
        TOP, "subversion", "libsvn_fs_fs", ".libs"))
    ap.add_argument("--header", action="store_true")
    ap.add_argument("sets", nargs="+", metavar="NAME:UNPACKED:STOCK_PACKED:FSFS7_PACKED")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.header:
        print(("%-30s %-15s %-15s %-15s" % ("", "unpacked", "stock's pack",
                                            "fsfs7's pack")).rstrip())
        print("%-30s %s %7s  %s" % ("cold read (median s)", " ".join(
            "%7s" % r for _ in LAYOUTS for r in READERS), "gain", "output"))
    ok = True
    for spec in a.sets:
        parts = spec.split(":")
        if len(parts) != 4:
            ap.error("want NAME:UNPACKED:STOCK_PACKED:FSFS7_PACKED, got " + spec)
        try:
            ok = measure(parts[0], parts[1:], max(1, a.reps), a.module, a.work) and ok
        except RuntimeError as e:
            print("%s: FAILED: %s" % (parts[0], e), flush=True)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
