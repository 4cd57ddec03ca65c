#!/usr/bin/env python3
"""cache_size.py -- read rows with the default cache and with a large one,
both modules, alternating:

    tools/bench/cache_size.py --stock DIR --fsfs7 DIR --repo REPO
                              [--pairs 5] [--big 1024] [--dump-revs 0:5000]
                              [--rows dump,export,null-export,log,null-log-v,null-list]
                              [--modules stock,fsfs7]

For every row and every round, runs the command four times in turn:
stock and fsfs7 with the default cache, then stock and fsfs7 with
`-M BIG` (svnadmin) or `memory-cache-size=BIG` (svn, svnbench), each
process with LD_LIBRARY_PATH=DIR.  Prints a Markdown table: per
configuration and module the min and median of user+sys CPU and of
wall time (from wait4), the median peak RSS (MB) and minor page faults,
and stock's min CPU over fsfs7's.  Every run's output is hashed; a row
whose outputs differ between the modules is marked.  A benchmark, not a
test: minutes of CPU.  Standard library only.
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time


def rows(args):
    url = "file://" + os.path.abspath(args.repo)
    cfg = "config:miscellany:memory-cache-size=%d"
    table = {
        "dump": lambda big: (["svnadmin", "dump", "-q", "-r", args.dump_revs]
                             + (["-M", str(big)] if big else [])
                             + [args.repo]),
        "export": lambda big: (["svn", "export", "-q", "--force"]
                               + (["--config-option", cfg % big] if big
                                  else [])
                               + [url + "/trunk", args.scratch]),
        "null-export": lambda big: (["svnbench", "null-export", "-q"]
                                    + (["--config-option", cfg % big] if big
                                       else [])
                                    + [url + "/trunk"]),
        "log": lambda big: (["svn", "log", "-q", "--limit", "20000"]
                            + (["--config-option", cfg % big] if big
                               else [])
                            + [url]),
        "null-log-v": lambda big: (["svnbench", "null-log", "-v", "-q"]
                                   + (["--config-option", cfg % big] if big
                                      else [])
                                   + [url]),
        "null-list": lambda big: (["svnbench", "null-list", "-R", "-q"]
                                  + (["--config-option", cfg % big] if big
                                     else [])
                                  + [url + "/trunk"]),
    }
    return [(name, table[name]) for name in args.rows.split(",")]


def run(cmd, moddir):
    """(cpu, wall, maxrss kB, minflt, sha1 of stdout) of one run (for
    svnbench, of stdout without its timing line)."""
    env = dict(os.environ, LD_LIBRARY_PATH=moddir)
    digest = hashlib.sha1()
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env)
    if os.path.basename(cmd[0]) == "svnbench":
        # Its summary ends with the time it took, which differs by run.
        for line in p.stdout:
            if not line.rstrip().endswith(b"seconds taken"):
                digest.update(line)
    else:
        for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
            digest.update(chunk)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    if status != 0:
        sys.exit("failed (%d): %s" % (status, " ".join(cmd)))
    return (ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss, ru.ru_minflt,
            digest.hexdigest())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stock", required=True)
    ap.add_argument("--fsfs7", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--big", type=int, default=1024)
    ap.add_argument("--dump-revs", default="0:5000")
    ap.add_argument("--rows", default="dump,export,null-export,log")
    ap.add_argument("--scratch", default="/dev/shm/cache-size-export")
    ap.add_argument("--modules", default="stock,fsfs7",
                    help="fsfs7 alone: its two cache sizes only")
    args = ap.parse_args()
    mods = tuple(m for m in (("stock", args.stock), ("fsfs7", args.fsfs7))
                 if m[0] in args.modules.split(","))
    print("| command | cache | module | CPU s min / median | wall s min / "
          "median | peak RSS MB | minor faults | stock/fsfs7 CPU |")
    print("|---|---|---|---|---|---|---|---|")
    for name, make in rows(args):
        res = {}
        for _ in range(args.pairs):
            for big in (0, args.big):
                for mod, moddir in mods:
                    res.setdefault((big, mod), []).append(
                        run(make(big), moddir))
        for big in (0, args.big):
            same = len({r[4] for mod, _ in mods for r in res[(big, mod)]})
            ratio = (min(r[0] for r in res[(big, "stock")])
                     / min(r[0] for r in res[(big, "fsfs7")])
                     if len(mods) == 2 else 0)
            for mod, _ in mods:
                rs = res[(big, mod)]
                cpu = [r[0] for r in rs]
                wall = [r[1] for r in rs]
                print("| `%s` | %s | %s | %.3f / %.3f | %.3f / %.3f | %.1f "
                      "| %d | %s |"
                      % (name, "-M %d" % big if big else "default", mod,
                         min(cpu), statistics.median(cpu), min(wall),
                         statistics.median(wall),
                         statistics.median(r[2] for r in rs) / 1024,
                         statistics.median(r[3] for r in rs),
                         ("%.2fx%s" % (ratio, "" if same == 1
                                       else " OUTPUT DIFFERS"))
                         if mod == "fsfs7" and ratio else ""))
        sys.stdout.flush()
    if os.path.isdir(args.scratch):
        subprocess.run(["rm", "-rf", args.scratch])


if __name__ == "__main__":
    main()
