#!/usr/bin/env python3
"""server_caches.py -- stock and fsfs7 behind svnserve and Apache in the
slow, medium and fast cache configurations, hot, alternating:

    tools/bench/server_caches.py --repo REPO [--pairs 5]
        [--access svn,http] [--caches slow,medium,fast]
        [--ops export,log,null-export] [--log-limit 20000]
        [--batch 1] [--warmup 1] [--moddir DIR] [--svnbench PATH]

For every access method and cache configuration (the options of
tools/bench/servers.py, as run.py uses them) one server per module is
started on loopback, serving the parent directory of REPO: stock (no
LD_LIBRARY_PATH) and fsfs7 (a private copy of the module in MODDIR
first in LD_LIBRARY_PATH; the server's maps are checked).  Each
operation is run WARMUP times per server unrecorded, then PAIRS times
per module, the modules taking turns and the first of each pair
alternating.  The client always runs with the stock environment; its
wall time and the server's CPU (user+sys of its process tree, from
/proc, in ticks of 10 ms) are recorded per run.  With --batch K a run is
K invocations back to back and its figures are divided by K (the
server's ticks are too coarse for one small read).

  export       svn export -q --force URL/trunk /dev/shm/...
  log          svn log -v --limit LOG_LIMIT URL
  null-export  svnbench null-export -q URL/trunk

Prints a Markdown table: min / median of wall time and of server CPU
per (operation, access, cache, module), and for fsfs7 its fast cell over
its slow one and stock's fast over fsfs7's fast (wall-time medians).
The uptime's load average is printed first and last.  A benchmark, not
a test.  Standard library only.
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
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import run as benchrun  # noqa: E402
from servers import Svnserve, Apache  # noqa: E402

MODULES = ("stock", "fsfs7")
SERVERS = {"svn": Svnserve, "http": Apache}


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def client_cmd(op, url, args, scratch, cfgdir):
    common = ["--non-interactive", "--config-dir", cfgdir]
    if op == "export":
        return ["svn", "export", "-q", "--force", url + "/trunk",
                scratch] + common
    if op == "log":
        return ["svn", "log", "-v", "--limit", str(args.log_limit),
                url] + common
    if op == "null-export":
        return [args.svnbench, "null-export", "-q", url + "/trunk",
                "--config-dir", cfgdir]
    raise ValueError(op)


def one_run(server, cmd, env, batch=1):
    """(wall s, server CPU s) of CMD against SERVER, per invocation of
    BATCH back to back."""
    cpu0 = server.cpu_seconds()
    start = time.monotonic()
    for _ in range(batch):
        p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise SystemExit("failed: %s\n%s" % (" ".join(cmd),
                                                 p.stderr.decode()[-1000:]))
    wall = time.monotonic() - start
    # The server may account the last ticks a moment after the answer.
    time.sleep(0.05)
    return wall / batch, (server.cpu_seconds() - cpu0) / batch


def measure_group(access, cache, args, moddir, work, results):
    envs = {m: benchrun.module_env(m, moddir) for m in MODULES}
    client_env = benchrun.module_env("stock", moddir)
    root = os.path.dirname(os.path.abspath(args.repo))
    name = os.path.basename(os.path.abspath(args.repo))
    servers = {}
    try:
        for m in MODULES:
            servers[m] = SERVERS[access](
                root, os.path.join(work, "%s-%s-%s" % (access, cache, m)),
                envs[m], cache=cache).start()
        for op in args.ops.split(","):
            cmds = {m: client_cmd(op, servers[m].url(name), args,
                                  os.path.join(work, "export-" + m),
                                  os.path.join(work, "cfg"))
                    for m in MODULES}
            for m in MODULES:
                for _ in range(args.warmup):
                    one_run(servers[m], cmds[m], client_env)
            for i in range(args.pairs):
                order = MODULES if i % 2 == 0 else MODULES[::-1]
                for m in order:
                    results.setdefault((op, access, cache, m), []).append(
                        one_run(servers[m], cmds[m], client_env,
                                args.batch))
        mapped = servers["fsfs7"].fs_modules()
        if not any(p.startswith(moddir) for p in mapped):
            raise SystemExit("fsfs7 server mapped %s, not %s"
                             % (mapped, moddir))
    finally:
        for s in servers.values():
            s.stop()


def fmt(values):
    return "%.3f / %.3f" % (min(values), statistics.median(values))


def table(results, args):
    print("| operation | access | cache | module | wall s min / median "
          "| server CPU s min / median | fsfs7 fast/slow | "
          "stock fast/fsfs7 fast |")
    print("|---|---|---|---|---|---|---|---|")
    for op in args.ops.split(","):
        for access in args.access.split(","):
            for cache in args.caches.split(","):
                for m in MODULES:
                    runs = results.get((op, access, cache, m))
                    if not runs:
                        continue
                    extra = ["", ""]
                    if m == "fsfs7" and cache == "fast":
                        med = statistics.median(r[0] for r in runs)
                        slow = results.get((op, access, "slow", m))
                        stock = results.get((op, access, "fast", "stock"))
                        if slow:
                            extra[0] = "%.2f" % (
                                med / statistics.median(r[0] for r in slow))
                        if stock:
                            extra[1] = "%.2fx" % (
                                statistics.median(r[0] for r in stock) / med)
                    print("| %s | %s | %s | %s | %s | %s | %s | %s |"
                          % (op, access, cache, m,
                             fmt([r[0] for r in runs]),
                             fmt([r[1] for r in runs]), extra[0], extra[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--access", default="svn,http")
    ap.add_argument("--caches", default="slow,medium,fast")
    ap.add_argument("--ops", default="export,log,null-export")
    ap.add_argument("--log-limit", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--moddir", default=benchrun.DEFAULT_MODDIR)
    ap.add_argument("--svnbench",
                    default=os.path.join(TOP, "tools", "svnbench",
                                         "svnbench"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="server-caches-", dir="/dev/shm")
    os.chmod(work, 0o755)
    os.makedirs(os.path.join(work, "cfg"))
    moddir = benchrun.snapshot_module(os.path.abspath(args.moddir),
                                      os.path.join(work, "module"))
    results = {}
    print("load before: %s" % load(), flush=True)
    try:
        for access in args.access.split(","):
            for cache in args.caches.split(","):
                print("[%s] %s %s" % (time.strftime("%H:%M:%S"), access,
                                      cache), file=sys.stderr, flush=True)
                measure_group(access, cache, args, moddir, work, results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("load after: %s" % load())
    table(results, args)


if __name__ == "__main__":
    main()
