#!/usr/bin/env python3
"""readpath.py -- hot read-path timings, stock module vs fsfs7, same run.

    tools/bench/readpath.py [--reps 5] [--repos-from /tmp/ref]
                            [--dump maven-small.svndump.gz]

On f7 (unpacked), f7p and f6p of the dev dataset it times, with warm
caches (one unrecorded warm-up per command and module):
    svnadmin dump -q REPO > /dev/null
    svn log -v -q file://REPO > /dev/null
    svn export -q file://REPO <tmpfs>
    svnadmin verify -q REPO
alternating stock and fsfs7 runs so that machine load hits both alike,
and prints the medians and the ratio fsfs7/stock (< 1: ours is faster).
Repositories are copied from --repos-from (default /tmp/ref) or, when
that lacks them, loaded from --dump by the stock module, into --work.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as harness  # noqa: E402

REPOS = ("f7", "f7p", "f6p")
OPS = ("dump", "log", "export", "verify")
DEFAULT_DUMP = "/work/shared/data/maven-small.svndump.gz"


def argv_of(op, repo, export_dir):
    url = "file://" + repo
    return {"dump": ["svnadmin", "dump", "-q", repo],
            "log": ["svn", "log", "-v", "-q", "--non-interactive", url],
            "export": ["svn", "export", "-q", "--force", "--non-interactive",
                       url, export_dir],
            "verify": ["svnadmin", "verify", "-q", repo]}[op]


def time_once(argv, env, export_dir):
    shutil.rmtree(export_dir, ignore_errors=True)
    start = time.perf_counter()
    res = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if res.returncode != 0:
        err = " ".join(res.stderr.decode("utf-8", "replace").split())
        return None, err[-160:]
    return wall, None


def prepare(args):
    os.makedirs(args.work, exist_ok=True)
    out = {}
    for name in REPOS:
        dest = os.path.join(args.work, name)
        src = os.path.join(args.repos_from or "", name)
        if not os.path.exists(os.path.join(dest, "READY")):
            shutil.rmtree(dest, ignore_errors=True)
            if args.repos_from and os.path.isdir(src):
                shutil.copytree(src, dest, symlinks=True)
            else:
                dumpfile = os.path.join(args.work, "dataset.svndump")
                if not os.path.exists(dumpfile):
                    harness.write_dump(args.dump, dumpfile)
                harness.load_repo(dest, name, dumpfile, harness.stock_env())
            open(os.path.join(dest, "READY"), "w").close()
        out[name] = dest
    return out


def measure(args, repos):
    """{(op, repo): {module: [walls] or error}}"""
    envs = {m: harness.module_env(m, args.moddir) for m in
            ("stock", "fsfs7")}
    export_dir = tempfile.mkdtemp(prefix="readpath.", dir=args.tmpfs)
    results = {}
    try:
        for op in args.ops:
            for name in args.repos:
                argv = argv_of(op, repos[name], export_dir + "/x")
                cell = results.setdefault((op, name), {})
                for module in envs:   # warm-up
                    _wall, err = time_once(argv, envs[module],
                                           export_dir + "/x")
                    cell[module] = err if err else []
                for _rep in range(args.reps):
                    for module in envs:
                        if isinstance(cell[module], str):
                            continue
                        wall, err = time_once(argv, envs[module],
                                              export_dir + "/x")
                        if err:
                            cell[module] = err
                        else:
                            cell[module].append(wall)
                print_row(op, name, cell, file=sys.stderr)
    finally:
        shutil.rmtree(export_dir, ignore_errors=True)
    return results


def fmt(value):
    if isinstance(value, str):
        return "fail"
    return "%.3f" % statistics.median(value) if value else "–"


def row_text(op, name, cell):
    stock, ours = cell.get("stock"), cell.get("fsfs7")
    ratio = "–"
    if isinstance(stock, list) and isinstance(ours, list) and stock and ours:
        ratio = "%.2f" % (statistics.median(ours) / statistics.median(stock))
    return "| %s | %s | %s | %s | %s |" % (op, name, fmt(stock), fmt(ours),
                                           ratio)


def print_row(op, name, cell, file=sys.stdout):
    print(row_text(op, name, cell), file=file, flush=True)


def table(results, reps):
    lines = ["Hot runs, median of %d (seconds); ratio = fsfs7/stock" % reps,
             "", "| operation | repo | stock | fsfs7 | ratio |",
             "|---|---|---|---|---|"]
    errors = []
    for (op, name), cell in results.items():
        lines.append(row_text(op, name, cell))
        for module, value in cell.items():
            if isinstance(value, str):
                errors.append("- %s %s %s: %s" % (module, op, name, value))
    if errors:
        lines += ["", "Failures:"] + errors
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--repos-from", default="/tmp/ref")
    p.add_argument("--dump", default=DEFAULT_DUMP)
    p.add_argument("--work", default="/tmp/fsfs7-readpath")
    p.add_argument("--tmpfs", default="/dev/shm")
    p.add_argument("--moddir", default=harness.DEFAULT_MODDIR)
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--repos", default=",".join(REPOS))
    args = p.parse_args(argv)
    args.ops = [o for o in args.ops.split(",") if o]
    args.repos = [r for r in args.repos.split(",") if r]
    if args.reps < 3:
        p.error("--reps must be at least 3")
    if set(args.ops) - set(OPS) or set(args.repos) - set(REPOS):
        p.error("ops from %s, repos from %s" % (OPS, REPOS))
    os.makedirs(args.work, exist_ok=True)
    args.moddir = harness.snapshot_module(
        args.moddir, os.path.join(args.work, "fsfs7-module"))
    harness.check_client_module("fsfs7", args.moddir)
    repos = prepare(args)
    ident = harness.module_identity(args.moddir)
    print("fsfs7 module: commit %s, sha256 %s" % (ident["commit"],
                                                   ident["sha256"][:16]))
    print(table(measure(args, repos), args.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
