#!/usr/bin/env python3
"""What switching a plain svnserve daemon (svnserve -d) loses under load.

    python3 tools/bench/daemon_switch.py [--clients 4] [--commits 25]
                                         [--threaded] [--module-dir DIR]

A stock svnserve daemon on a free loopback port serves a new repository;
CLIENTS clients each make COMMITS commits with svnmucc (one connection
per commit).  At a quarter and at three quarters of the commits the
daemon is switched the least lossy way a daemon allows (doc/deploy.md,
"Switching a server under load"): SIGTERM to the old daemon's process
alone, and the new one started at once (again every 10 ms while the old
one still holds the port), with the fsfs7 module directory
first in LD_LIBRARY_PATH for the first switch and without it for the
second.  A probe connects every 2 ms meanwhile and records when the port
refuses.  Prints the failed commits with their errors and, per switch,
the time from the SIGTERM until the new daemon has started (its parent
returned, so it listens) and the span of refused probes.

--threaded runs the daemons with -T (threads instead of forked processes:
their connections in progress die with the old daemon).  Loopback only;
every daemon it starts is stopped at the end.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from servers import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--commits", type=int, default=25, help="per client")
    ap.add_argument("--threaded", action="store_true")
    ap.add_argument("--module-dir", default=os.path.join(TOP, "subversion", "libsvn_fs_fs",
                                                         ".libs"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fsfs7-daemon-switch-")
    repo = os.path.join(work, "R")
    subprocess.run(["svnadmin", "create", repo], check=True)
    with open(os.path.join(repo, "conf", "svnserve.conf"), "w") as f:
        f.write("[general]\nanon-access = write\n")
    port, pidfile = free_port(), os.path.join(work, "svnserve.pid")
    base = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}

    def start(module_dir, tries=1):
        env = dict(base, LD_LIBRARY_PATH=module_dir) if module_dir else base
        for n in range(tries):
            p = subprocess.run(["svnserve", "-d", "-r", work, "--listen-host", "127.0.0.1",
                                "--listen-port", str(port), "--pid-file", pidfile]
                               + (["-T"] if a.threaded else []), env=env,
                               stderr=subprocess.PIPE, text=True)
            if p.returncode == 0:
                return
            if "Address already in use" not in p.stderr or n == tries - 1:
                raise SystemExit("svnserve -d: %s" % p.stderr.strip())
            time.sleep(0.01)

    def daemon_pid():
        with open(pidfile) as f:
            return int(f.read())

    total = a.clients * a.commits
    errors, done, lock, refused, stop = [], [0], threading.Lock(), [], [False]

    def client(i):
        for k in range(a.commits):
            q = subprocess.run(["svnmucc", "--non-interactive", "-m", "x", "mkdir",
                                "svn://127.0.0.1:%d/R/c%d-%d" % (port, i, k)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            with lock:
                if q.returncode:
                    errors.append(q.stderr.strip().splitlines()[-1])
                done[0] += 1

    def probe():
        while not stop[0]:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
            except OSError:
                refused.append(time.monotonic())
            time.sleep(0.002)

    start(None)
    threads = [threading.Thread(target=client, args=(i,), daemon=True)
               for i in range(a.clients)]
    threads.append(threading.Thread(target=probe, daemon=True))
    switches = []
    try:
        for t in threads:
            t.start()
        for at, module_dir in ((total // 4, a.module_dir), (total * 3 // 4, None)):
            while done[0] < at:
                time.sleep(0.01)
            first = len(refused)
            t0 = time.monotonic()
            # As documented: SIGTERM to the old daemon, the new one started
            # at once, again while the old one still holds the port.
            os.kill(daemon_pid(), signal.SIGTERM)
            start(module_dir, tries=100)
            ready = time.monotonic() - t0
            time.sleep(0.3)
            mine = refused[first:]
            switches.append((ready, (mine[-1] - mine[0]) if mine else 0.0, len(mine)))
        for t in threads[:-1]:
            t.join()
        youngest = int(subprocess.run(["svnlook", "youngest", repo], stdout=subprocess.PIPE,
                                      check=True).stdout)
    finally:
        stop[0] = True
        try:
            os.kill(daemon_pid(), signal.SIGTERM)
        except (OSError, ValueError):
            pass
        subprocess.run(["rm", "-rf", work])
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print("svnserve -d%s, %d clients x %d commits, load average %s"
          % (" -T" if a.threaded else "", a.clients, a.commits, load))
    print("failed commits: %d of %d (revisions made: %d)" % (len(errors), total, youngest))
    for e in sorted(set(re.sub(r"^svnmucc: ", "", e) for e in errors)):
        print("  %s" % e)
    for n, (ready, span, probes) in enumerate(switches, 1):
        print("switch %d: SIGTERM to new daemon started %.0f ms; refused probes %d over %.0f ms"
              % (n, ready * 1000, probes, span * 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
