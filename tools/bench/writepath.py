#!/usr/bin/env python3
"""writepath.py -- write-path benchmark, stock module vs fsfs7, same run.

    tools/bench/writepath.py [--dump FILE] [--reps 3] [--format 7]
                             [--commits 1000] [--no-strace] [--work DIR]

For each repetition, alternating the modules so that machine load hits
both alike, it measures:
  load        svnadmin load -q of --dump into a fresh repository
  load-nf     the same with --no-flush-to-disk
  commits     a burst of --commits small commits over svn:// (svnserve on
              loopback, each a one-file `svnmucc put`), commits per second
and, once per module, `strace -f -c` of a load to count system calls per
revision and the repository size after load; the peak RSS of every load
(median and range of the repetitions).
Prints a table with the medians and the ratio stock/fsfs7 (> 1: fsfs7 is
faster or smaller), and writes it as TSV to --out.
"""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
MODULE_DIR = os.path.join(TOP, "subversion", "libsvn_fs_fs", ".libs")
DEFAULT_DUMP = os.path.join(TOP, "..", "shared", "data", "maven-small.svndump.gz")
COMPAT = {"6": ["--compatible-version", "1.8"], "7": ["--compatible-version", "1.9"],
          "8": []}


def env_of(module):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env["LC_ALL"] = "C.UTF-8"
    if module == "fsfs7":
        env["LD_LIBRARY_PATH"] = MODULE_DIR
    return env


def check_module():
    p = subprocess.run([os.path.join(TOP, "tools", "fsfs7-run"), "true"],
                       env=dict(os.environ, FSFS7_MODULE_DIR=MODULE_DIR))
    if p.returncode != 0:
        sys.exit("fsfs7 module not usable from %s" % MODULE_DIR)


def create(path, fmt):
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["svnadmin", "create"] + COMPAT[fmt] + [path], check=True,
                   env=env_of("stock"))
    hook = os.path.join(path, "hooks", "pre-revprop-change")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(hook, 0o755)


def cat_cmd(dump):
    return ("zcat '%s'" if dump.endswith(".gz") else "cat '%s'") % dump


def timed_load(module, dump, repo, extra=(), wrap=()):
    """Seconds and peak RSS (kB) of svnadmin load; WRAP prefixes the
    command (strace)."""
    cmd = "set -o pipefail; %s | %s /usr/bin/time -f '%%M' svnadmin load -q %s '%s'" % (
        cat_cmd(dump), " ".join(wrap), " ".join(extra), repo)
    t0 = time.perf_counter()
    p = subprocess.run(["bash", "-c", cmd], env=env_of(module),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError("%s load failed: %s" % (module, p.stderr.decode()[-800:]))
    rss = int(re.findall(rb"^(\d+)$", p.stderr, re.M)[-1])
    return dt, rss, p.stderr


def repo_size(repo):
    total = 0
    for root, _, files in os.walk(os.path.join(repo, "db")):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def youngest(repo):
    return int(subprocess.run(["svnlook", "youngest", repo], check=True,
                              stdout=subprocess.PIPE, env=env_of("stock")).stdout)


def strace_counts(module, dump, repo, fmt):
    """System calls of a whole load: {name: count}."""
    create(repo, fmt)
    out = repo + ".strace"
    timed_load(module, dump, repo, wrap=("strace", "-f", "-c", "-o", out))
    counts = {}
    with open(out) as f:
        for line in f:
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$", line)
            # The summary line ("total") would count every call twice.
            if m and m.group(2) != "total":
                counts[m.group(2)] = int(m.group(1))
    return counts


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def commit_burst(module, root, fmt, n):
    """Commits per second of N one-file commits over svn://."""
    repo = os.path.join(root, "burst")
    os.makedirs(root, exist_ok=True)
    create(repo, fmt)
    port = free_port()
    conf = os.path.join(root, "svnserve.conf")
    with open(conf, "w") as f:
        f.write("[general]\nanon-access = write\n")
    srv = subprocess.Popen(["timeout", "1800", "svnserve", "-d", "--foreground", "-T",
                            "-r", root, "--listen-host", "127.0.0.1",
                            "--listen-port", str(port), "--config-file", conf],
                           env=env_of(module))
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        url = "svn://127.0.0.1:%d/burst" % port
        src = os.path.join(root, "payload")
        t0 = time.perf_counter()
        for i in range(n):
            with open(src, "w") as f:
                f.write("commit %d\n" % i)
            subprocess.run(["svnmucc", "--non-interactive", "-m", "c%d" % i,
                            "put", src, "%s/f%d" % (url, i % 50)],
                           check=True, env=env_of("stock"), stdout=subprocess.DEVNULL)
        return n / (time.perf_counter() - t0)
    finally:
        srv.terminate()
        srv.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", default=DEFAULT_DUMP)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--format", default="7", choices=sorted(COMPAT))
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--no-strace", action="store_true")
    ap.add_argument("--work", default=None)
    ap.add_argument("--out", default="writepath.tsv")
    a = ap.parse_args()
    check_module()
    work = a.work or tempfile.mkdtemp(prefix="fsfs7-writebench-", dir="/tmp")
    os.makedirs(work, exist_ok=True)
    mods = ("stock", "fsfs7")
    res = {(m, k): [] for m in mods
           for k in ("load", "load-nf", "commits", "rss", "rss-nf")}
    size, revs = {}, {}
    for rep in range(a.reps):
        for m in (mods if rep % 2 == 0 else mods[::-1]):
            repo = os.path.join(work, "%s-r" % m)
            create(repo, a.format)
            dt, peak, _ = timed_load(m, a.dump, repo)
            res[m, "load"].append(dt)
            res[m, "rss"].append(peak)
            size[m], revs[m] = repo_size(repo), youngest(repo)
            create(repo, a.format)
            dt, peak, _ = timed_load(m, a.dump, repo, extra=("--no-flush-to-disk",))
            res[m, "load-nf"].append(dt)
            res[m, "rss-nf"].append(peak)
            if a.commits and rep == 0:
                res[m, "commits"].append(commit_burst(m, os.path.join(work, m + "-srv"),
                                                      a.format, a.commits))
            print("rep %d %s: load %.2fs, load-nf %.2fs" % (rep, m, res[m, "load"][-1],
                                                          res[m, "load-nf"][-1]), flush=True)
    rows = [("metric", "stock", "fsfs7", "stock/fsfs7")]
    for k in ("load", "load-nf"):
        s, f = statistics.median(res["stock", k]), statistics.median(res["fsfs7", k])
        rows.append((k + " s", "%.2f" % s, "%.2f" % f, "%.2f" % (s / f)))
    if a.commits:
        s, f = res["stock", "commits"][0], res["fsfs7", "commits"][0]
        rows.append(("commits/s svn://", "%.1f" % s, "%.1f" % f, "%.2f" % (f / s)))
    rows.append(("repo bytes", str(size["stock"]), str(size["fsfs7"]),
                 "%.3f" % (size["stock"] / size["fsfs7"])))
    # Single loads scatter by ~0.3 MB on a shared machine: the median of
    # the repetitions, with their range.
    for k, name in (("rss", "peak RSS kB"), ("rss-nf", "peak RSS kB, load-nf")):
        s, f = statistics.median(res["stock", k]), statistics.median(res["fsfs7", k])
        rows.append((name, "%d (%d-%d)" % (s, min(res["stock", k]), max(res["stock", k])),
                     "%d (%d-%d)" % (f, min(res["fsfs7", k]), max(res["fsfs7", k])),
                     "%.3f" % (s / f)))
    if not a.no_strace:
        counts = {m: strace_counts(m, a.dump, os.path.join(work, m + "-st"), a.format)
                  for m in mods}
        for name in ("openat", "read", "write", "pwrite64", "fsync", "fdatasync", "rename",
                     "stat", "newfstatat", "lseek", "close", "fcntl", "unlink"):
            s = counts["stock"].get(name, 0) / max(1, revs["stock"])
            f = counts["fsfs7"].get(name, 0) / max(1, revs["fsfs7"])
            if s or f:
                rows.append(("%s/rev" % name, "%.1f" % s, "%.1f" % f,
                             "%.2f" % (s / f) if f else "-"))
        s = sum(counts["stock"].values()) / max(1, revs["stock"])
        f = sum(counts["fsfs7"].values()) / max(1, revs["fsfs7"])
        rows.append(("syscalls/rev", "%.1f" % s, "%.1f" % f, "%.2f" % (s / f)))
    with open(a.out, "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w[i]) for i, c in enumerate(r)))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
