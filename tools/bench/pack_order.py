#!/usr/bin/env python3
"""Benchmark: `svnadmin pack` stock vs fsfs7, and reads of the packs.

From one unpacked repository (made by stock) it makes three packed copies:
  stock    packed by the stock module
  fsfs7    packed by fsfs7 (item order of doc/format/pack.md §3)
  concat   packed by fsfs7 with FSFS7_PACK_ORDER=concatenate (unpacked order)
  chgfirst packed by fsfs7 with FSFS7_PACK_ORDER=changes-first (changed-path
           lists first, then the unpacked order)
and times the packs (stock vs fsfs7), then reads each copy with each module
(stock, fsfs7): `svnbench null-log -v`, `svnbench null-export` and
`svnadmin dump -q`, cold (the copy's files evicted from the page cache
first; tools/bench/cache.py) and hot (best of REPS after a warm-up run).
Beside each cold time: bytes the process read from disk (rusage inblock)
and its read()/pread() calls (a separate run under strace -c).

    tools/bench/pack_order.py --repo UNPACKED --work DIR [--reps 2]
                              [--orders stock,fsfs7]

--readers names the readers (default stock,fsfs7; NAME=DIR reads
through the module in DIR, e.g. two builds side by side); hotcpu is the
median over the rounds of the user + system seconds of the hot runs.
With --reuse the packed copies already in DIR (named as above) are read
without packing again; --module DIR reads "fsfs7" through the module in
DIR instead of this tree's build (to compare two builds on the same
copies).  --cold-reps N (default 1) repeats every measurement N times,
the two reader modules alternating within each repetition, and prints
the minimum and median of the cold and hot times; the disk bytes are
those of the first cold run, the read calls those of one hot run under
strace.  --ops picks operations (comma list of log,export,dump).

Prints a table; nothing is written outside DIR.  Not a test.
"""
import argparse
import os
import resource
import statistics
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cache  # noqa: E402

TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
MODULE_DIR = os.path.join(TOP, "subversion", "libsvn_fs_fs", ".libs")


def env_for(ours, extra=None):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    if ours:
        env["LD_LIBRARY_PATH"] = MODULE_DIR
    else:
        env.pop("FSFS7_BLOCK_READ", None)
    env.update(extra or {})
    return env


LAST_CPU = [0.0]


def timed(cmd, env):
    """(seconds, bytes read from disk) of CMD, output discarded; its CPU
    seconds (user + system) are left in LAST_CPU[0]."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    took = time.monotonic() - t0
    err = p.stderr.read()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), err.decode()))
    LAST_CPU[0] = ru.ru_utime + ru.ru_stime
    return took, ru.ru_inblock * 512


def read_calls(cmd, env, work):
    """read + pread64 calls of CMD (strace -c -f)."""
    out = os.path.join(work, "strace.txt")
    subprocess.run(["strace", "-f", "-c", "-e", "trace=read,pread64", "-o",
                    out] + cmd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    calls = 0
    with open(out) as f:
        for line in f:
            parts = line.split()
            if parts and parts[-1] in ("read", "pread64"):
                calls += int(parts[3])
    return calls


def operations(repo, which=("log", "export", "dump")):
    url = "file://" + repo
    ops = {"log": ("null-log -v", ["svnbench", "null-log", "-v", "-q", url]),
           "export": ("null-export", ["svnbench", "null-export", "-q", url]),
           "dump": ("dump", ["svnadmin", "dump", "-q", repo])}
    return dict(ops[w] for w in which)


def reader_env(spec):
    """Environment of reader SPEC: "stock", "fsfs7" (this tree's build or
    --module) or NAME=DIR (the module in DIR)."""
    if spec == "stock":
        return env_for(False)
    env = env_for(True)
    if "=" in spec:
        env["LD_LIBRARY_PATH"] = os.path.abspath(spec.split("=", 1)[1])
    return env


def measure(copies, ops, reps, cold_reps, work, readers):
    """Cold and hot times of every (copy, reader, op), the readers
    rotating within each of COLD_REPS rounds."""
    res = {}
    for rnd in range(cold_reps):
        order = readers[rnd % len(readers):] + readers[:rnd % len(readers)]
        for name, dst in copies.items():
            for op, cmd in operations(dst, ops).items():
                for reader in order:
                    env = reader_env(reader)
                    r = res.setdefault((name, reader, op),
                                       {"cold": [], "hot": [], "disk": None,
                                        "hotcpu": []})
                    cache.evict([dst])
                    cold, disk = timed(cmd, env)
                    r["cold"].append(cold)
                    if r["disk"] is None:
                        r["disk"] = disk
                    hots = []
                    for _ in range(reps + 1):
                        hots.append((timed(cmd, env)[0], LAST_CPU[0]))
                    r["hot"].append(min(h[0] for h in hots))
                    r["hotcpu"].append(min(h[1] for h in hots))
    for name, dst in copies.items():
        for reader in readers:
            env = reader_env(reader)
            for op, cmd in operations(dst, ops).items():
                r = res[(name, reader, op)]
                r["calls"] = read_calls(cmd, env, work)
                print("%-8s %-6s %-12s %7.3f %7.3f %7.3f %7.3f %7.3f %10d %8d"
                      % (name, reader.split("=")[0], op, min(r["cold"]),
                         statistics.median(r["cold"]), min(r["hot"]),
                         statistics.median(r["hot"]),
                         statistics.median(r["hotcpu"]), r["disk"] // 1024,
                         r["calls"]), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--orders", default="stock,fsfs7,concat,chgfirst",
                    help="which packed copies to make (comma list)")
    ap.add_argument("--reuse", action="store_true",
                    help="read the packed copies already in WORK")
    ap.add_argument("--module", help="directory of the fsfs7 module to "
                    "read with (default: this tree's build)")
    ap.add_argument("--cold-reps", type=int, default=1)
    ap.add_argument("--ops", default="log,export,dump")
    ap.add_argument("--readers", default="stock,fsfs7",
                    help="comma list: stock, fsfs7, NAME=MODULE_DIR")
    a = ap.parse_args()
    global MODULE_DIR
    if a.module:
        MODULE_DIR = os.path.abspath(a.module)
    wanted = a.orders.split(",")
    os.makedirs(a.work, exist_ok=True)
    copies = {}
    print("%-8s %10s" % ("pack", "seconds"))
    for name, ours, extra in (("stock", False, None), ("fsfs7", True, None),
                              ("concat", True,
                               {"FSFS7_PACK_ORDER": "concatenate"}),
                              ("chgfirst", True,
                               {"FSFS7_PACK_ORDER": "changes-first"})):
        if name not in wanted:
            continue
        dst = os.path.join(a.work, name)
        if a.reuse:
            copies[name] = dst
            continue
        shutil.rmtree(dst, ignore_errors=True)
        subprocess.run(["cp", "-a", a.repo, dst], check=True)
        subprocess.run(["sync"], check=True)
        took, _ = timed(["svnadmin", "pack", "-q", dst], env_for(ours, extra))
        print("%-8s %10.2f" % (name, took), flush=True)
        copies[name] = dst
    print()
    if a.cold_reps > 1 or a.reuse:
        print("%-8s %-6s %-12s %7s %7s %7s %7s %7s %10s %8s"
              % ("packed", "reader", "op", "coldmin", "coldmed", "hotmin",
                 "hotmed", "hotcpu", "disk KiB", "reads"))
        measure(copies, a.ops.split(","), a.reps, max(a.cold_reps, 1),
                a.work, a.readers.split(","))
        return
    print("%-8s %-6s %-12s %8s %8s %10s %8s" % ("packed", "reader", "op",
                                                 "cold s", "hot s", "disk KiB",
                                                 "reads"))
    for name, dst in copies.items():
        for reader in ("stock", "fsfs7"):
            env = env_for(reader == "fsfs7")
            for op, cmd in operations(dst, a.ops.split(",")).items():
                cache.evict([dst])
                cold, disk = timed(cmd, env)
                hot = min(timed(cmd, env)[0] for _ in range(a.reps + 1))
                calls = read_calls(cmd, env, a.work)
                print("%-8s %-6s %-12s %8.3f %8.3f %10d %8d"
                      % (name, reader, op, cold, hot, disk // 1024, calls),
                      flush=True)


if __name__ == "__main__":
    main()
