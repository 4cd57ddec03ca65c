#!/usr/bin/env python3
"""scale.py: how each operation's time and peak RSS grow with history
length, directory size, commit size and file depth, through the stock
module and through fsfs7, on the same repositories.

    tools/bench/scale.py [--shapes length,width,depth,wide]
                         [--sizes length=10000,100000 ...]
                         [--variants f7,f8,f7p,f8p] [--trials 3]
                         [--cache /work/cache/scale] [--out FILE.md]
                         [--build-only]

Repositories come from tools/gen_scale.py and are built once, through
fsfs7 (`svnadmin create`, then `svnadmin load --no-flush-to-disk`), into
CACHE/repos/SHAPE-SIZE-VARIANT (variant f7 = `--compatible-version 1.9`,
f8 = the default format 8; a trailing p = a packed copy); sharded 1000
(the default).  Each is checked with the stock `svnadmin verify`: the
whole history up to --full-verify-max revisions, above that the first
1000 revisions and the last 1000 up to HEAD (the output says which).
An interrupted build resumes after the youngest revision it loaded.
Build times go to CACHE/build.tsv and into the output.

Measurements run on hard-linked working copies of the cached
repositories (immutable revision files shared, every other file copied),
so the cache is never changed.  For each trial the two modules alternate
(stock first in even trials); each figure is the minimum over the
trials of the wall time, the CPU time (user + sys) and the peak RSS
(wait4's ru_maxrss) of the one process.  stock = Debian's module,
fsfs7 = the module in FSFS7_MODULE_DIR (default: this tree's
subversion/libsvn_fs_fs/.libs), both copied into WORK first (a rebuild
during a run cannot mix two builds; both through LD_LIBRARY_PATH, so
the loader searches alike), fsfs7's checked to be the one the loader
resolves before anything is measured.  --syscalls
adds a pass counting each light operation's system calls (strace -f -c),
a figure the machine's load does not move.

Operations (those a shape has):
  youngest     svnlook youngest (open + youngest)
  commit       svnmucc put of a new small file over file:// (its latency)
  commit-big   the same into /big (width: the directory of SIZE entries)
  commit-svn   the same over svn:// into a threaded `svnserve -d -T` of
               the module (started once per repository and module, on a
               free loopback port, stopped at the end), 10 commits a
               trial: the client's fastest latency, the server's CPU
               time per commit (from /proc/PID/stat) and its peak RSS
  log-1        svn log -l 1 at HEAD
  log-100v     svn log -l 100 -v at HEAD
  log-file     svn log of /deep.txt (depth: SIZE revisions)
  blame        svn blame of /deep.txt (every one of its SIZE revisions)
  cat          svn cat of a file at HEAD
  list         svn list of a directory at HEAD (width: /big)
  checkout     svn checkout of a small subtree
  verify-head  svnadmin verify -r N, N the history's youngest revision
               (not the commits the benchmark adds)
  hotcopy-inc  svnadmin hotcopy --incremental onto a copy one commit behind
  load-1000    svnadmin load --no-flush-to-disk of the next 1000 revisions
               (gen_scale.py --first SIZE+1), into a fresh copy
  pack-shard   svnadmin pack of that copy afterwards (packed variants: the
               one shard the load completed)
  load-wide    (wide) load of r3, the commit changing SIZE files, onto a
               copy holding r0-r2; then log-1v and verify-head on the result
"""

import argparse
import json
import os
import shutil
import signal
import ctypes
import subprocess
import sys
import time
from servers import free_port, wait_for_port

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(TOP, "tools", "gen_scale.py")
MODULES = ("stock", "fsfs7")
DEFAULT_SIZES = {"length": [10000, 100000], "width": [20000, 200000],
                 "depth": [5000, 50000], "wide": [10000, 100000]}
OPS = {
    "length": ["youngest", "commit", "commit-svn", "log-1", "log-100v",
               "cat", "list", "checkout", "verify-head", "hotcopy-inc",
               "load-1000", "pack-shard"],
    "width": ["youngest", "commit-big", "log-1", "cat", "list",
              "verify-head"],
    "depth": ["youngest", "commit", "log-1", "log-file", "blame", "cat",
              "verify-head", "load-1000", "pack-shard"],
    "wide": ["load-wide", "log-1v", "verify-head"],
}
PACKABLE = ("length", "depth")
HEAVY = ("load-1000", "pack-shard", "blame")
# measured in the server, not by the client's process (no syscall count)
SERVED = ("commit-svn",)
SERVED_BATCH = 10
# what cat / list / checkout / commit read or write, per shape
TARGETS = {
    "length": {"cat": "trunk/m00/d00/f0.txt", "list": "trunk/m00",
               "checkout": "trunk/m00/d00", "commit": "trunk/m01/d01"},
    "width": {"cat": "big/e0000000.txt", "list": "big",
              "commit": "other", "commit-big": "big"},
    "depth": {"cat": "deep.txt", "log-file": "deep.txt", "blame": "deep.txt",
              "commit": "other"},
}


def log(msg):
    print("scale: " + msg, file=sys.stderr, flush=True)


# -- environments ------------------------------------------------------------

STOCK_MODULE = "/usr/lib/x86_64-linux-gnu/libsvn_fs_fs-1.so.1"


def module_env(module, moddir, stockdir=None):
    """Environment running MODULE: fsfs7's from MODDIR; stock's from
    STOCKDIR, a copy of Debian's, so that the loader makes the same
    search for both (doc/benchmarks.md, Method), or from /usr/lib."""
    env = dict(os.environ, LC_ALL="C")
    env.pop("LD_LIBRARY_PATH", None)
    if module == "fsfs7":
        env["LD_LIBRARY_PATH"] = moddir
    elif stockdir:
        env["LD_LIBRARY_PATH"] = stockdir
    return env


def check_module(moddir):
    """Refuse to measure when the loader would not pick fsfs7's module."""
    env = module_env("fsfs7", moddir)
    out = subprocess.run(["ldd", "/usr/lib/x86_64-linux-gnu/libsvn_fs-1.so.1"],
                         env=env, capture_output=True, text=True).stdout
    want = os.path.realpath(os.path.join(moddir, "libsvn_fs_fs-1.so.1"))
    for line in out.splitlines():
        if "libsvn_fs_fs-1.so.1" in line:
            got = os.path.realpath(line.split()[2])
            if got == want:
                return
            sys.exit("scale: the loader resolves %s, not %s" % (got, want))
    sys.exit("scale: libsvn_fs_fs not found by ldd")


COUNT = {"on": False, "file": None}


def syscall_total(path):
    """Number of system calls in an `strace -c` summary."""
    for line in open(path):
        f = line.split()
        if f and f[-1] == "total":
            return int(f[3])
    raise RuntimeError("no total in " + path)


def measure(argv, env, stdin=None, cwd=None):
    """Run ARGV; return (wall s, cpu s, peak RSS MB); raise on failure.
    In the counting pass (COUNT["on"]) return (system calls,) instead,
    counted by `strace -f -c` over the process and its children."""
    if COUNT["on"]:
        argv = ["strace", "-f", "-c", "-o", COUNT["file"]] + argv
    fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdin=fin, cwd=cwd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if stdin:
        fin.close()
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), p.returncode,
                                                err.decode(errors="replace")))
    if COUNT["on"]:
        return (syscall_total(COUNT["file"]),)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def run(argv, env, **kw):
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, **kw)


# -- the cache ---------------------------------------------------------------

def youngest_of(shape, size):
    if shape == "wide":
        return 3
    if shape == "width":
        return 1 + size // 5000
    return size


def gen_argv(shape, size, first=None, last=None):
    argv = [sys.executable, GEN, shape, "--size", str(size)]
    if first is not None:
        argv += ["--first", str(first)]
    if last is not None:
        argv += ["--last", str(last)]
    return argv


def record_build(cache, name, step, secs, note=""):
    with open(os.path.join(cache, "build.tsv"), "a") as f:
        f.write("%s\t%s\t%.1f\t%s\n" % (name, step, secs, note))
    log("%s: %s %.1f s %s" % (name, step, secs, note))


def build_base(cache, shape, size, fmt, env7):
    """CACHE/repos/SHAPE-SIZE-FMT, loaded through fsfs7."""
    name = "%s-%d-%s" % (shape, size, fmt)
    path = os.path.join(cache, "repos", name)
    if os.path.exists(os.path.join(path, "format")):
        return path
    tmp = path + ".tmp"
    first = 0
    if os.path.exists(os.path.join(tmp, "format")):
        # an interrupted build: every loaded revision is complete, so
        # go on after the youngest one
        first = int(open(os.path.join(tmp, "db", "current")).read()) + 1
        log("%s: resuming at r%d" % (name, first))
        # the revision the interruption cut short left its transaction
        txns = subprocess.run(["svnadmin", "lstxns", tmp], env=env7,
                              capture_output=True, text=True,
                              check=True).stdout.split()
        if txns:
            run(["svnadmin", "rmtxns", "-q", tmp] + txns, env7)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
        create = ["svnadmin", "create", tmp]
        if fmt == "f7":
            create[2:2] = ["--compatible-version", "1.9"]
        run(create, env7)
    last = 2 if shape == "wide" else youngest_of(shape, size)
    t0 = time.perf_counter()
    gen = subprocess.Popen(gen_argv(shape, size, first=first, last=last),
                           stdout=subprocess.PIPE)
    subprocess.run(["svnadmin", "load", "-q", "--no-flush-to-disk", tmp],
                   env=env7, stdin=gen.stdout, check=True,
                   stdout=subprocess.DEVNULL)
    gen.stdout.close()
    if gen.wait() != 0:
        raise RuntimeError("gen_scale.py failed")
    record_build(cache, name, "load", time.perf_counter() - t0,
                 "r%d-r%d" % (first, last))
    os.rename(tmp, path)
    return path


def build_packed(cache, base, env7):
    path = base + "p"
    if os.path.exists(os.path.join(path, "format")):
        return path
    tmp = path + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run(["cp", "-a", base, tmp], check=True)
    t0 = time.perf_counter()
    run(["svnadmin", "pack", "-q", tmp], env7)
    record_build(cache, os.path.basename(path), "pack",
                 time.perf_counter() - t0)
    os.rename(tmp, path)
    return path


def verify_stock(cache, path, full_max, envs):
    """Stock svnadmin verify, once per repository (marker file)."""
    mark = path + ".verified"
    if os.path.exists(mark):
        return open(mark).read().strip()
    head = int(subprocess.run(["svnlook", "youngest", path], env=envs,
                              capture_output=True, text=True,
                              check=True).stdout)
    t0 = time.perf_counter()
    if head <= full_max:
        run(["svnadmin", "verify", "-q", path], envs)
        what = "full r0-r%d" % head
    else:
        lo = max(0, head - 1000)
        run(["svnadmin", "verify", "-q", "-r", "%d:%d" % (lo, head), path],
            envs)
        run(["svnadmin", "verify", "-q", "-r", "0:1000", path], envs)
        what = "r0-r1000 and r%d-r%d" % (lo, head)
    record_build(cache, os.path.basename(path), "stock verify",
                 time.perf_counter() - t0, what)
    with open(mark, "w") as f:
        f.write(what + "\n")
    return what


# -- working copies of repositories -----------------------------------------

# --real-copies: every working copy a full `cp -a` (slower, no file
# shared with the cache at all).
REAL_COPIES = {"on": False}


def link_copy(src, dst):
    """DST: a copy of repository SRC sharing its revision and revprop
    files (never rewritten in place) by hard links; everything else is a
    real copy, so writing through DST leaves SRC alone."""
    shutil.rmtree(dst, ignore_errors=True)
    if REAL_COPIES["on"]:
        subprocess.run(["cp", "-a", src, dst], check=True)
        return
    subprocess.run(["cp", "-al", src, dst], check=True)
    for root, dirs, files in os.walk(dst):
        rel = os.path.relpath(root, dst)
        if rel.startswith(os.path.join("db", "revs")) or \
           rel.startswith(os.path.join("db", "revprops")):
            dirs[:] = []
            continue
        for f in files:
            p = os.path.join(root, f)
            tmp = p + ".copy"
            shutil.copy2(p, tmp)
            os.replace(tmp, p)


# -- svnserve ----------------------------------------------------------------


def die_with_parent():
    """In the child: SIGTERM when the benchmark dies, so that no server
    outlives it."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


class Server:
    """A threaded `svnserve -d` on a free loopback port serving ROOT
    through the module of ENV; its CPU time is read from /proc, so one
    commit's server cost is the difference around it."""

    def __init__(self, root, env):
        self.port = free_port()
        conf = os.path.join(root, "svnserve.conf")
        with open(conf, "w") as f:
            f.write("[general]\nanon-access = write\n")
        self.proc = subprocess.Popen(
            ["svnserve", "-d", "--foreground", "-T", "-r", root,
             "--config-file", conf,
             "--listen-host", "127.0.0.1", "--listen-port", str(self.port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent)
        try:
            wait_for_port(self.port, self.proc)
        except RuntimeError:
            self.stop()
            raise

    def cpu(self):
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_mb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


# -- operations --------------------------------------------------------------

class Bench:
    def __init__(self, args, moddir):
        self.args = args
        stockdir = os.path.join(args.work, "stock-module")
        os.makedirs(stockdir, exist_ok=True)
        shutil.copy2(os.path.realpath(STOCK_MODULE),
                     os.path.join(stockdir, "libsvn_fs_fs-1.so.1"))
        self.envs = {m: module_env(m, moddir, stockdir) for m in MODULES}
        self.work = args.work
        os.makedirs(self.work, exist_ok=True)
        self.small = os.path.join(self.work, "small.txt")
        with open(self.small, "w") as f:
            f.write("a small file\n")
        self.seq = 0

    def url(self, repo, path=""):
        return "file://" + repo + ("/" + path if path else "")

    def commit_argv(self, repo, where):
        self.seq += 1
        return ["svnmucc", "-m", "scale %d" % self.seq, "-U",
                self.url(repo), "put", self.small,
                "%s/scale-%d-%d.txt" % (where, os.getpid(), self.seq)]

    def one(self, op, m, ctx):
        """Measure OP through module M; return (wall, cpu, rss) or None."""
        env, repo, shape = self.envs[m], ctx["repo"], ctx["shape"]
        tg = TARGETS.get(shape, {})
        if op == "youngest":
            return measure(["svnlook", "youngest", repo], env)
        if op in ("commit", "commit-big"):
            r = measure(self.commit_argv(repo, tg[op]), env)
            ctx["committed"] = True
            return r
        if op == "commit-svn":
            # SERVED_BATCH commits: the client's fastest latency; the
            # server's CPU per commit (its /proc ticks are 10 ms, so the
            # batch's total is divided) and its peak RSS so far
            if COUNT["on"]:
                return None
            srv = self.server(m, ctx)
            cpu0, walls = srv.cpu(), []
            for _ in range(SERVED_BATCH):
                argv = self.commit_argv(repo, tg["commit"])
                argv[argv.index("-U") + 1] = "svn://127.0.0.1:%d/%s" % (
                    srv.port, os.path.relpath(repo, self.work))
                walls.append(measure(argv, env)[0])
            time.sleep(0.05)        # the server thread's last steps
            ctx["committed"] = True
            return (min(walls), (srv.cpu() - cpu0) / SERVED_BATCH,
                    srv.peak_mb())
        if op == "blame":
            return measure(["svn", "blame", self.url(repo, tg[op])], env)
        if op == "log-1":
            return measure(["svn", "log", "-l", "1", self.url(repo)], env)
        if op == "log-1v":
            return measure(["svn", "log", "-l", "1", "-v", self.url(repo)],
                           env)
        if op == "log-100v":
            return measure(["svn", "log", "-l", "100", "-v", self.url(repo)],
                           env)
        if op == "log-file":
            return measure(["svn", "log", "-q", self.url(repo, tg[op])], env)
        if op == "cat":
            return measure(["svn", "cat", self.url(repo, tg["cat"])], env)
        if op == "list":
            return measure(["svn", "list", self.url(repo, tg["list"])], env)
        if op == "checkout":
            wc = os.path.join(self.work, "wc")
            shutil.rmtree(wc, ignore_errors=True)
            r = measure(["svn", "checkout", "-q",
                         self.url(repo, tg["checkout"]), wc], env)
            shutil.rmtree(wc)
            return r
        if op == "verify-head":
            # the history's youngest, whatever the commits measured added
            return measure(["svnadmin", "verify", "-q", "-r",
                            str(youngest_of(shape, ctx["size"])), repo], env)
        if op == "hotcopy-inc":
            dst = ctx["hotcopy"]
            run(self.commit_argv(repo, tg["commit"]), env)
            return measure(["svnadmin", "hotcopy", "--incremental", repo,
                            dst], env)
        if op == "load-1000":
            r, ctx["loaded"] = self.load_next(ctx, "loadcopy", env)
            return r
        if op == "pack-shard":
            if not ctx["packed"] or "loaded" not in ctx:
                return None
            r = measure(["svnadmin", "pack", "-q", ctx.pop("loaded")], env)
            return r
        if op == "load-wide":
            r, ctx["repo"] = self.load_next(ctx, "widecopy", env)
            return r
        raise ValueError(op)

    def server(self, m, ctx):
        """The svnserve of module M for this repository (started once)."""
        servers = ctx.setdefault("servers", {})
        if m not in servers:
            servers[m] = Server(self.work, self.envs[m])
        return servers[m]

    def load_next(self, ctx, name, env):
        """Load the stream that follows the cached history into a linked
        copy of it, WORK/NAME; (the measurement, the copy)."""
        cp = os.path.join(self.work, name)
        link_copy(ctx["cached"], cp)
        return measure(["svnadmin", "load", "-q", "--no-flush-to-disk", cp],
                       env, stdin=ctx["next"]), cp

    def repo(self, shape, size, variant):
        """Measure every operation of SHAPE on one cached repository."""
        fmt, packed = variant[:2], variant.endswith("p")
        cached = os.path.join(self.args.cache, "repos",
                              "%s-%d-%s%s" % (shape, size, fmt,
                                              "p" if packed else ""))
        mine = os.path.join(self.work, "repo")
        link_copy(cached, mine)
        ctx = {"shape": shape, "size": size, "cached": cached,
               "packed": packed}
        if shape == "wide":
            ctx["next"] = os.path.join(self.work, "wide-%d.dump" % size)
            with open(ctx["next"], "wb") as f:
                subprocess.run(gen_argv(shape, size, first=3, last=3),
                               stdout=f, check=True)
        elif "load-1000" in OPS[shape]:
            ctx["next"] = os.path.join(self.work, "next-%s-%d.dump"
                                       % (shape, size))
            with open(ctx["next"], "wb") as f:
                subprocess.run(gen_argv(shape, size, first=size + 1,
                                        last=size + 1000),
                               stdout=f, check=True)
        if "hotcopy-inc" in OPS[shape]:
            ctx["hotcopy"] = os.path.join(self.work, "hotcopy")
            link_copy(cached, ctx["hotcopy"])
        best = {}
        try:
            self.trials(shape, size, variant, ctx, mine, best)
        finally:
            for srv in ctx.get("servers", {}).values():
                srv.stop()
        return {"%s|%s" % k: v for k, v in best.items()}

    def trials(self, shape, size, variant, ctx, mine, best):
        for t in range(self.args.trials):
            order = MODULES if t % 2 == 0 else MODULES[::-1]
            for m in order:
                ctx["repo"] = mine
                for op in OPS[shape]:
                    if self.args.ops and op not in self.args.ops:
                        continue
                    if op in HEAVY and t >= self.args.heavy_trials:
                        continue
                    r = self.one(op, m, ctx)
                    if r is None:
                        continue
                    k = (op, m)
                    old = best.get(k)
                    best[k] = r if old is None else tuple(
                        min(a, b) for a, b in zip(old, r))
                log("%s-%d-%s trial %d %s done" % (shape, size, variant,
                                                   t + 1, m))
        if self.args.syscalls:
            self.count_pass(shape, ctx, mine, best)

    def count_pass(self, shape, ctx, mine, best):
        """One more run of each light operation per module under strace;
        the count joins the timing as a fourth figure."""
        COUNT.update(on=True, file=os.path.join(self.work, "strace.txt"))
        try:
            for m in MODULES:
                ctx["repo"] = mine
                for op in OPS[shape]:
                    if (self.args.ops and op not in self.args.ops) or \
                       op in HEAVY or op in SERVED:
                        continue
                    r = self.one(op, m, ctx)
                    if r is not None:
                        best[(op, m)] = tuple(best.get((op, m), ())[:3]) + r
        finally:
            COUNT["on"] = False


# -- the report --------------------------------------------------------------

def fmt_s(x):
    return "%.3f" % x if x < 10 else "%.1f" % x


def table(shape, variant, sizes, results):
    """Markdown table of one shape and variant over its sizes.  Ratios
    and growth are of CPU time (user + sys), steadier than wall time on
    a shared machine; growth is against the smallest size measured."""
    rows = ["| operation | size | stock s | fsfs7 s | stock cpu s "
            "| fsfs7 cpu s | stock/fsfs7 cpu | growth stock | growth fsfs7 "
            "| stock MB | fsfs7 MB | stock calls | fsfs7 calls |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:"
            "|---:|---:|"]
    for op in OPS[shape]:
        first = None
        for size in sizes:
            res = results.get("%s-%d-%s" % (shape, size, variant), {})
            s, f = res.get(op + "|stock"), res.get(op + "|fsfs7")
            if not s or not f or len(s) < 3 or len(f) < 3:
                continue
            if first is None:
                first = (s, f)
            calls = tuple(str(x[3]) if len(x) > 3 else "" for x in (s, f))
            rows.append("| %s | %d | %s | %s | %s | %s | %.2f | %.2f | %.2f "
                        "| %.0f | %.0f | %s | %s |" % (
                            (op, size, fmt_s(s[0]), fmt_s(f[0]),
                             fmt_s(s[1]), fmt_s(f[1]),
                             s[1] / max(f[1], 1e-6),
                             s[1] / max(first[0][1], 1e-6),
                             f[1] / max(first[1][1], 1e-6),
                             s[2], f[2]) + calls))
    return "\n".join(rows)


def variants_of(shape, wanted):
    return [v for v in wanted if shape in PACKABLE or not v.endswith("p")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default="length,width,depth,wide")
    ap.add_argument("--sizes", nargs="*", default=[],
                    help="SHAPE=N,N,... (defaults: %s)" % DEFAULT_SIZES)
    ap.add_argument("--variants", default="f7,f8,f7p,f8p")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--syscalls", action="store_true",
                    help="also count each light operation's system calls "
                         "(strace -f -c), a figure the machine's load "
                         "does not change")
    ap.add_argument("--heavy-trials", type=int,
                    help="trials of %s (default: --trials)" % (HEAVY,))
    ap.add_argument("--ops", default="",
                    help="measure only these operations (comma list)")
    ap.add_argument("--cache", default="/work/cache/scale")
    ap.add_argument("--full-verify-max", type=int, default=20000)
    ap.add_argument("--out", help="also write the markdown here")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--work", help="scratch directory (default CACHE/work; "
                    "give two runs at once different ones)")
    ap.add_argument("--results", help="JSON file the figures go to and "
                    "accumulate in (default CACHE/results.json); with "
                    "--report-only, a comma list to merge")
    ap.add_argument("--report-only", action="store_true",
                    help="print the tables of --results, measure nothing")
    ap.add_argument("--real-copies", action="store_true",
                    help="copy the cached repositories whole (cp -a) "
                         "instead of hard-linking their revision files")
    ap.add_argument("--module-dir", default=os.environ.get(
        "FSFS7_MODULE_DIR",
        os.path.join(TOP, "subversion", "libsvn_fs_fs", ".libs")))
    args = ap.parse_args()
    args.ops = [o for o in args.ops.split(",") if o]
    REAL_COPIES["on"] = args.real_copies
    if args.heavy_trials is None:
        args.heavy_trials = args.trials
    args.cache = os.path.abspath(args.cache)
    sizes = dict(DEFAULT_SIZES)
    for spec in args.sizes:
        k, v = spec.split("=")
        sizes[k] = [int(x) for x in v.split(",")]
    shapes = args.shapes.split(",")
    wanted = args.variants.split(",")
    args.work = os.path.abspath(args.work or os.path.join(args.cache, "work"))
    args.results = args.results or os.path.join(args.cache, "results.json")
    if args.report_only:
        results = {}
        for f in args.results.split(","):
            for k, v in json.load(open(f)).items():
                results.setdefault(k, {}).update(v)
        sys.stdout.write(report(args, shapes, wanted, sizes, results, {}))
        return
    # Measure a snapshot of the module: a rebuild during a run must not
    # mix two builds into one table.
    os.makedirs(args.work, exist_ok=True)
    snap = os.path.join(args.work, "module")
    os.makedirs(snap, exist_ok=True)
    shutil.copy2(os.path.join(os.path.abspath(args.module_dir),
                              "libsvn_fs_fs-1.so.1"), snap)
    moddir = snap
    check_module(moddir)
    env7 = module_env("fsfs7", moddir)
    envs = module_env("stock", moddir)
    os.makedirs(os.path.join(args.cache, "repos"), exist_ok=True)

    verified = {}
    for shape in shapes:
        for size in sizes[shape]:
            for fmt in sorted({v[:2] for v in variants_of(shape, wanted)}):
                base = build_base(args.cache, shape, size, fmt, env7)
                verified[base] = verify_stock(args.cache, base,
                                              args.full_verify_max, envs)
                if fmt + "p" in variants_of(shape, wanted):
                    p = build_packed(args.cache, base, env7)
                    verified[p] = verify_stock(args.cache, p,
                                               args.full_verify_max, envs)
    if args.build_only:
        return

    bench = Bench(args, moddir)
    store = args.results
    results = json.load(open(store)) if os.path.exists(store) else {}
    for shape in shapes:
        for variant in variants_of(shape, wanted):
            for size in sizes[shape]:
                key = "%s-%d-%s" % (shape, size, variant)
                res = bench.repo(shape, size, variant)
                old = results.setdefault(key, {})
                for k, v in res.items():
                    # a counting pass alone (--trials 0) keeps the times
                    old[k] = (old[k][:3] + list(v)
                              if args.trials == 0 and k in old else list(v))
                with open(store, "w") as f:
                    json.dump(results, f, indent=1)

    text = report(args, shapes, wanted, sizes, results, verified)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


def report(args, shapes, wanted, sizes, results, verified):
    """The markdown of every table of SHAPES."""
    load = os.getloadavg()
    out = ["Load average at the end: %.1f %.1f %.1f on %d cores; min of %d "
           "trials (%s: %d), modules alternating."
           % (load + (os.cpu_count(), args.trials, ", ".join(HEAVY),
                      args.heavy_trials)), ""]
    for shape in shapes:
        for variant in variants_of(shape, wanted):
            out += ["#### %s, %s" % (shape, variant), "",
                    table(shape, variant, sizes[shape], results), ""]
    out += ["Stock verify of the repositories measured:", ""]
    out += ["- %s: %s" % (os.path.basename(k), v)
            for k, v in sorted(verified.items())]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
