#!/usr/bin/env python3
"""sidebyside.py -- one command, several modules, alternating runs.

    sidebyside.py [--reps 7] [--mod NAME=DIR ...] -- CMD ARGS...

Runs CMD once per module (warm-up, not recorded), then REPS rounds in
which every module runs it once, in turn, so that machine load hits all
of them alike.  A module is the directory put first in LD_LIBRARY_PATH
("stock" = a directory holding a copy of the stock libsvn_fs_fs-1.so.1,
so that the loader does the same work for every module).  Prints, per
module, min and median wall time, min user+sys CPU time, peak RSS, and
the ratio of stock's min to each module's min (> 1: faster than stock),
and checks that every module printed the same bytes on stdout.
"""
import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import time


def run_once(argv, moddir):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = moddir
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    digest = hashlib.sha256()
    for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
        digest.update(chunk)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit("%s failed under %s: %s" % (argv[0], moddir,
                                             err.decode()[-300:]))
    del before
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, \
        digest.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--no-compare", action="store_true",
                    help="output varies (svnbench prints timings)")
    ap.add_argument("--mod", action="append", default=[],
                    help="NAME=DIR; the first is the baseline")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd and args.cmd[0] == "--" else args.cmd
    mods = [m.split("=", 1) for m in args.mod]
    res = {name: [] for name, _ in mods}
    digests = {}
    for name, d in mods:
        digests[name] = run_once(cmd, d)[3]
    for _ in range(args.reps):
        for name, d in mods:
            res[name].append(run_once(cmd, d))
    base = min(r[0] for r in res[mods[0][0]])
    print("cmd: %s" % " ".join(cmd))
    for name, _ in mods:
        walls = [r[0] for r in res[name]]
        cpus = [r[1] for r in res[name]]
        rss = max(r[2] for r in res[name]) / 1024.0
        same = all(r[3] == digests[mods[0][0]] for r in res[name])
        print("  %-8s min %7.3f s  median %7.3f s  cpu-min %7.3f s  "
              "rss %6.1f MB  stock/this %5.2f  output %s"
              % (name, min(walls), statistics.median(walls), min(cpus), rss,
                 base / min(walls), "n/a" if args.no_compare else
                 "same" if same else "DIFFERS"))


if __name__ == "__main__":
    main()
