#!/usr/bin/env python3
"""run.py -- the fsfs7 benchmark matrix in one command.

    tools/bench/run.py --quick                       # a few minutes
    tools/bench/run.py --full --dump DUMP[.gz]       # the whole matrix
    tools/bench/run.py --full --dump D --modules stock,fsfs7

For every module (stock = the installed libsvn_fs_fs; fsfs7 = ours, first
in LD_LIBRARY_PATH) × repository (f6, f6p, f7, f7p, loaded from the dump
by the stock svnadmin) × access method (file://, svn:// via a private
threaded svnserve, http:// via a private Apache with mod_dav_svn) × cache
configuration (slow / medium / fast) × operation, it measures "cold" runs
(repository files evicted from the page cache and the server restarted
before each run) and then "hot" runs (one unrecorded warm-up, then the
repetitions back to back).  Each run records the client's wall time and
user+sys CPU (wait4) and the server tree's user+sys CPU (/proc deltas).

Output in --out (default bench-results/<mode>-<date>): runs.csv (every
run, written as it goes), summary.csv (median/min/max per cell),
tables.md (Markdown tables) and plots/*.png.  See doc/benchmarks.md.
"""
import argparse
import datetime
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

sys.path.insert(0, os.path.dirname(HERE))
import cache as pagecache  # noqa: E402
import copy_repo  # noqa: E402
import gen_repo  # noqa: E402
import matrix  # noqa: E402
import report  # noqa: E402
from servers import Svnserve, Apache  # noqa: E402

DEFAULT_MODDIR = os.path.join(TOP, "subversion", "libsvn_fs_fs", ".libs")


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


def module_env(module, moddir):
    """The environment of every process measured for MODULE: for stock, no
    trace of our module directory; for fsfs7, it comes first."""
    env = dict(os.environ)
    parts = [p for p in env.get("LD_LIBRARY_PATH", "").split(":")
             if p and os.path.realpath(p) != os.path.realpath(moddir)]
    if module == "fsfs7":
        parts.insert(0, moddir)
    if parts:
        env["LD_LIBRARY_PATH"] = ":".join(parts)
    else:
        env.pop("LD_LIBRARY_PATH", None)
    env["LC_ALL"] = "C"
    return env


def snapshot_module(moddir, dest):
    """Copy our libsvn_fs_fs-1.so.1 from MODDIR into DEST and return DEST.

    A rebuild relinks the module in place; while the file is missing, the
    loader silently falls back to the stock module and a server started
    then measures the wrong code (seen in practice).  A private copy taken
    once at the start cannot change under a run."""
    src = os.path.realpath(os.path.join(moddir, "libsvn_fs_fs-1.so.1"))
    if not os.path.isfile(src):
        raise SystemExit("run.py: no fsfs7 module in %s (run make)" % moddir)
    os.makedirs(dest, exist_ok=True)
    target = os.path.join(dest, "libsvn_fs_fs-1.so.1")
    shutil.copy2(src, target + ".new")
    os.replace(target + ".new", target)
    return dest


def module_identity(moddir):
    """sha256 of the module file and the source commit, for meta.json."""
    import hashlib
    with open(os.path.join(moddir, "libsvn_fs_fs-1.so.1"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    head = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    return {"sha256": digest, "commit": head}


def check_client_module(module, moddir):
    """Refuse to measure fsfs7 unless the loader really picks our file."""
    if module != "fsfs7":
        return
    env = dict(os.environ, FSFS7_MODULE_DIR=moddir)
    res = subprocess.run([os.path.join(TOP, "tools", "fsfs7-run"), "true"],
                         env=env, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit("run.py: fsfs7 module not usable: %s"
                         % res.stderr.strip())


def check_server_module(server, module, moddir):
    mapped = server.fs_modules()
    ours = [m for m in mapped if os.path.realpath(m).startswith(
        os.path.realpath(moddir) + os.sep)]
    if module == "fsfs7" and (not ours or len(ours) != len(mapped)):
        raise RuntimeError("server %s maps %s, not fsfs7's module"
                           % (server.scheme, mapped))
    if module == "stock" and ours:
        raise RuntimeError("stock server maps fsfs7's module %s" % ours)
    return mapped


# ---------------------------------------------------------------- dataset

def stock_env():
    return module_env("stock", DEFAULT_MODDIR)


def write_dump(dump, dest):
    """Uncompressed copy of the dump DUMP at DEST (load reads it)."""
    opener = gzip.open if dump.endswith(".gz") else open
    with opener(dump, "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)


def create_repo(path, name, env):
    compat, shard, _packed = matrix.REPO_SPEC[name]
    subprocess.run(["svnadmin", "create", "--compatible-version", compat,
                    path], check=True, env=env)
    if shard != 1000:
        fmt = os.path.join(path, "db", "format")
        with open(fmt) as f:
            text = f.read()
        os.chmod(fmt, 0o644)
        with open(fmt, "w") as f:
            f.write(text.replace("layout sharded 1000",
                                 "layout sharded %d" % shard))


def load_repo(path, name, dumpfile, env):
    create_repo(path, name, env)
    with open(dumpfile, "rb") as stdin:
        subprocess.run(["svnadmin", "load", "-q", path], stdin=stdin,
                       check=True, env=env)
    if matrix.REPO_SPEC[name][2]:
        subprocess.run(["svnadmin", "pack", "-q", path], check=True, env=env)


def prepare_dataset(args, work, repos):
    """Repositories under WORK/repos and the uncompressed dump file; made
    by the stock module, reused when already complete."""
    dumpfile = os.path.join(work, "dataset.svndump")
    stamp = os.path.join(work, "dataset.id")
    ident = json.dumps([args.dump, args.repo, args.repos_from,
                        args.quick_revs, args.interleave])
    old = open(stamp).read() if os.path.exists(stamp) else None
    repodir = os.path.join(work, "repos")
    if old != ident:
        shutil.rmtree(repodir, ignore_errors=True)
        shutil.rmtree(os.path.join(work, "interleaved"), ignore_errors=True)
        if args.dump:
            write_dump(args.dump, dumpfile)
        elif args.repo:
            with open(dumpfile, "wb") as out:
                subprocess.run(["svnadmin", "dump", "-q", args.repo],
                               stdout=out, check=True, env=stock_env())
        else:
            with open(dumpfile, "wb") as out:
                out.write(gen_repo.dump_stream(args.quick_revs))
        with open(stamp, "w") as f:
            f.write(ident)
    os.makedirs(repodir, exist_ok=True)
    todo = [n for n in repos
            if not os.path.exists(os.path.join(repodir, n, "READY"))]
    procs = []
    for name in todo:
        path = os.path.join(repodir, name)
        shutil.rmtree(path, ignore_errors=True)
        if args.repos_from:
            shutil.copytree(os.path.join(args.repos_from, name), path,
                            symlinks=True)
            open(os.path.join(path, "READY"), "w").close()
            continue
        log("loading %s (stock)" % name)
        # two loads at a time: the machine is shared
        procs.append((name, subprocess.Popen(
            [sys.executable, "-c",
             "import sys; sys.path.insert(0, %r); import run; "
             "run.load_repo(%r, %r, %r, run.stock_env())"
             % (HERE, path, name, dumpfile)])))
        if len(procs) == 2:
            finish_loads(procs, repodir)
    finish_loads(procs, repodir)
    if args.interleave:
        interleave(work, repos, *args.interleave)
    subprocess.run(["chmod", "-R", "a+rX", work], check=True)
    return {n: os.path.join(repodir, n) for n in repos}, dumpfile


def interleave(work, repos, count, sep_kb):
    """Replace each benchmarked repository by copy 1 of COUNT interleaved
    copies (tools/copy_repo.py), all four repositories' copies written
    into one directory tree one after the other; the other copies stay on
    disk as neighbours, as on a server hosting many repositories."""
    repodir = os.path.join(work, "repos")
    for name in repos:
        dest = os.path.join(work, "interleaved", name)
        if os.path.exists(os.path.join(dest, "DONE")):
            continue
        shutil.rmtree(dest, ignore_errors=True)
        log("interleaving %d copies of %s, %d kB apart" % (count, name,
                                                             sep_kb))
        copy_repo.copy_repo(os.path.join(repodir, name), dest, count,
                            sep_kb)
        os.rename(os.path.join(repodir, name), os.path.join(dest,
                                                            "original"))
        os.rename(os.path.join(dest, "copy-1"), os.path.join(repodir, name))
        open(os.path.join(dest, "DONE"), "w").close()


def finish_loads(procs, repodir):
    for name, proc in procs:
        if proc.wait() != 0:
            raise SystemExit("run.py: loading %s failed" % name)
        open(os.path.join(repodir, name, "READY"), "w").close()
    procs.clear()


# ------------------------------------------------------------ measurement

def measure(argv, env, stdin_path, server, errfile):
    """Run ARGV once; (status, wall s, client user+sys s, server user+sys
    s, note)."""
    before = server.cpu_seconds() if server else 0.0
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    with open(errfile, "wb") as err:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(argv, env=env, stdin=stdin,
                                    stdout=subprocess.DEVNULL, stderr=err)
        except OSError as oserr:
            return ("fail", 0.0, 0.0, 0.0, "cannot run: %s" % oserr)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if stdin_path:
        stdin.close()
    after = server.cpu_seconds() if server else 0.0
    note = ""
    if proc.returncode != 0:
        with open(errfile, "rb") as f:
            note = f.read()[-300:].decode("utf-8", "replace")
        note = " ".join(note.split())
    return ("ok" if proc.returncode == 0 else "fail", wall,
            usage.ru_utime + usage.ru_stime, after - before, note)


class Runner:
    def __init__(self, args, work, repos, dumpfile, out):
        self.args = args
        self.work = work
        self.repos = repos
        self.dumpfile = dumpfile
        self.runs_path = os.path.join(out, "runs.csv")
        self.runs = []
        self.scratch = tempfile.mkdtemp(prefix="fsfs7-bench.",
                                        dir=args.tmpfs)
        self.config_dir = os.path.join(work, "client-config")
        os.makedirs(self.config_dir, exist_ok=True)
        report.write_csv(self.runs_path, [], report.RUN_FIELDS)

    def record(self, cell, rep, result):
        row = dict(cell._asdict(), rep=rep, status=result[0],
                   wall_s="%.6f" % result[1],
                   client_cpu_s="%.3f" % result[2],
                   server_cpu_s="%.3f" % result[3], note=result[4])
        self.runs.append(row)
        with open(self.runs_path, "a", newline="") as f:
            report.csv.DictWriter(f, report.RUN_FIELDS).writerow(row)

    def op_env(self, cell):
        return {"svnbench": self.args.svnbench,
                "log_limit": self.args.log_limit,
                "export_dir": os.path.join(self.scratch, "export"),
                "config_dir": self.config_dir,
                "load_target": os.path.join(self.work, "load-target")}

    def before_run(self, cell, env):
        """Untimed preparation: a fresh load target; no stale export."""
        shutil.rmtree(os.path.join(self.scratch, "export"),
                      ignore_errors=True)
        if cell.op == "load":
            target = os.path.join(self.work, "load-target")
            shutil.rmtree(target, ignore_errors=True)
            create_repo(target, cell.repo, env)

    def one(self, cell, server, env):
        url = server.url(cell.repo) if server else \
            "file://" + self.repos[cell.repo]
        source = self.dumpfile if cell.op == "load" else self.repos[cell.repo]
        argv, stdin = matrix.command(cell, url, source, self.op_env(cell))
        try:
            self.before_run(cell, env)
        except (subprocess.CalledProcessError, OSError) as err:
            return ("fail", 0.0, 0.0, 0.0, "preparing the run: %s" % err)
        return measure(argv, env, stdin, server,
                       os.path.join(self.scratch, "stderr"))

    def cold_files(self, cell):
        files = [self.repos[cell.repo]]
        if cell.op == "load":
            files = [self.dumpfile]
        return files

    def make_server(self, module, access, cache, env):
        if access not in ("svn", "http"):
            return None
        cls = Svnserve if access == "svn" else Apache
        workdir = os.path.join(self.work, "server-%s-%s" % (access, module))
        server = cls(os.path.join(self.work, "repos"), workdir, env, cache)
        server.start()
        try:
            mapped = check_server_module(server, module, self.args.moddir)
        except RuntimeError:
            server.stop()
            raise
        log("%s server (%s, %s cache) maps %s" % (access, module, cache,
                                                  ", ".join(mapped)))
        return server

    def run_pair(self, cells, servers, envs):
        """All repetitions of one (op, temp) for every module in CELLS
        ({module: cell}), alternating the modules run by run (and their
        order from one repetition to the next) so that a change in the
        machine's load hits all of them alike.  A module's first failure
        ends its series: the rest would fail the same way."""
        active = list(cells)
        if next(iter(cells.values())).temp == "hot":
            for module in list(active):
                warm = self.one(cells[module], servers.get(module),
                                envs[module])
                if warm[0] != "ok":
                    self.record(cells[module], 0, warm)
                    active.remove(module)
        for rep in range(1, self.args.reps + 1):
            order = active if rep % 2 else active[::-1]
            for module in list(order):
                cell, server = cells[module], servers.get(module)
                if cell.temp == "cold":
                    pagecache.evict(self.cold_files(cell))
                    if server:
                        server.restart()
                result = self.one(cell, server, envs[module])
                self.record(cell, rep, result)
                if result[0] != "ok":
                    log("FAILED %s: %s" % ("/".join(cell), result[4]))
                    active.remove(module)
        for module in active:
            walls = sorted(float(r["wall_s"]) for r in self.runs
                           if r["status"] == "ok" and
                           tuple(r[k] for k in report.KEY) == cells[module])
            if walls:
                log("%-52s %.3f s" % ("/".join(cells[module]),
                                      walls[len(walls) // 2]))

    def run_group(self, access, cache, cells):
        """CELLS share repository, access and cache; one server per module
        (on its own port) serves them all."""
        modules = []
        for cell in cells:
            if cell.module not in modules:
                modules.append(cell.module)
        envs = {m: module_env(m, self.args.moddir) for m in modules}
        servers, broken = {}, {}
        try:
            for module in modules:
                try:
                    servers[module] = self.make_server(module, access, cache,
                                                       envs[module])
                except (RuntimeError, OSError) as err:
                    log("no %s server for %s/%s: %s" % (access, module,
                                                        cache, err))
                    broken[module] = "server: %s" % err
            pairs = {}
            for cell in cells:
                if cell.module in broken:
                    self.record(cell, 1, ("fail", 0.0, 0.0, 0.0,
                                          broken[cell.module]))
                else:
                    pairs.setdefault((cell.op, cell.temp), {})[
                        cell.module] = cell
            for pair in pairs.values():
                self.run_pair(pair, servers, envs)
        finally:
            for server in servers.values():
                if server:
                    server.stop()

    def run(self, cells):
        groups = {}
        for cell in cells:
            groups.setdefault((cell.repo, cell.access, cell.cache),
                              []).append(cell)
        for (_repo, access, cache), group in groups.items():
            self.run_group(access, cache, group)
        shutil.rmtree(self.scratch, ignore_errors=True)


# ------------------------------------------------------------------ main

def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Run the fsfs7 benchmark matrix (see doc/benchmarks.md).")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_const", dest="mode",
                      const="quick", help="small generated dataset unless "
                      "--dump is given; slow/fast caches; no load (default)")
    mode.add_argument("--full", action="store_const", dest="mode",
                      const="full", help="the whole published matrix")
    p.add_argument("--dump", help="dump file (.gz ok) to build the "
                   "repositories from (with the stock module)")
    p.add_argument("--repo", help="any existing repository: dumped "
                   "(stock svnadmin dump) and rebuilt as f6/f6p/f7/f7p")
    p.add_argument("--repos-from", help="directory with ready-made "
                   "repositories f6 f6p f7 f7p (copied, never modified)")
    p.add_argument("--interleave", metavar="COUNT:SEP_KB",
                   help="benchmark copy 1 of COUNT interleaved copies of "
                   "each repository (tools/copy_repo.py)")
    p.add_argument("--quick-revs", type=int, default=300,
                   help="revisions of the generated dataset (no --dump)")
    p.add_argument("--modules", default="stock",
                   help="comma list of stock,fsfs7 (default stock)")
    for name, choices in (("repos", matrix.REPOS), ("ops", matrix.OPS),
                          ("access", matrix.ACCESS),
                          ("caches", matrix.CACHES), ("temps", matrix.TEMPS)):
        p.add_argument("--" + name, help="comma list, subset of %s"
                       % ",".join(choices))
    p.add_argument("--reps", type=int, help="repetitions per cell (>= 3)")
    p.add_argument("--log-limit", type=int, help="svn log --limit N")
    p.add_argument("--work", default="/tmp/fsfs7-bench",
                   help="repositories and server state (reused)")
    p.add_argument("--out", help="result directory")
    p.add_argument("--tmpfs", default="/dev/shm",
                   help="where svn export writes")
    p.add_argument("--moddir", default=DEFAULT_MODDIR,
                   help="directory with fsfs7's libsvn_fs_fs-1.so.1")
    p.add_argument("--svnbench", default=os.path.join(TOP, "tools",
                                                      "svnbench", "svnbench"))
    p.add_argument("--report-only", metavar="OUTDIR",
                   help="only rebuild summary, tables and plots from "
                   "OUTDIR/runs.csv")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--update-doc", metavar="FILE",
                   help="also put the tables into FILE between the markers "
                   "'<!-- bench:results:begin -->' and '... end -->'")
    args = p.parse_args(argv)
    args.mode = args.mode or "quick"
    if args.interleave:
        try:
            count, sep = (int(x) for x in args.interleave.split(":"))
        except ValueError:
            p.error("--interleave wants COUNT:SEP_KB")
        if count < 2 or sep < 0:
            p.error("--interleave: COUNT >= 2, SEP_KB >= 0")
        args.interleave = (count, sep)
    sel = matrix.preset(args.mode)
    for name in ("repos", "ops", "access", "caches", "temps"):
        value = getattr(args, name)
        allowed = getattr(matrix, name.upper())
        if value:
            value = tuple(v for v in value.split(",") if v)
            bad = [v for v in value if v not in allowed]
            if bad:
                p.error("unknown %s: %s" % (name, ",".join(bad)))
        else:
            value = sel["accesses" if name == "access" else name]
        setattr(args, name, value)
    # load is slow and cache-insensitive: the preset's load caches that
    # were selected, else the first selected cache
    if sel["load_caches"] is None:
        args.load_caches = None
    else:
        args.load_caches = tuple(c for c in sel["load_caches"]
                                 if c in args.caches) or args.caches[:1]
    args.reps = args.reps or sel["reps"]
    args.log_limit = args.log_limit or sel["log_limit"]
    args.modules = tuple(m for m in args.modules.split(",") if m)
    if any(m not in matrix.MODULES for m in args.modules):
        p.error("modules are stock and/or fsfs7")
    if args.reps < 1:
        p.error("--reps must be positive")
    return args


def write_outputs(out, runs, meta, no_plots=False):
    summary = report.aggregate(runs)
    report.write_csv(os.path.join(out, "summary.csv"), summary,
                     report.SUMMARY_FIELDS)
    title = "Benchmark results (%s)" % meta.get("mode", "?")
    with open(os.path.join(out, "tables.md"), "w") as f:
        f.write("<!-- %s -->\n" % meta.get("command", ""))
        f.write(report.markdown(summary, title) + "\n")
    if not no_plots:
        plot(out)
    return summary


BEGIN_MARK = "<!-- bench:results:begin -->"
END_MARK = "<!-- bench:results:end -->"


def update_doc(path, out, meta):
    """Replace the results section of the Markdown file PATH by OUT's
    tables, headed by the command and conditions that produced them."""
    with open(path) as f:
        text = f.read()
    if BEGIN_MARK not in text or END_MARK not in text:
        raise SystemExit("run.py: %s lacks the result markers" % path)
    with open(os.path.join(out, "tables.md")) as f:
        tables = f.read().split("\n", 1)[1]    # drop the comment line
    machine = meta.get("machine", {})
    head = ["", "Made by `%s` (started %s, %s s, %s CPUs, load average "
            "%s at the start; Subversion %s).  Medians of %s runs; raw "
            "data in the run's `runs.csv`." % (
                meta.get("command"), meta.get("started"),
                meta.get("seconds"), machine.get("cpus"),
                " ".join(str(x) for x in machine.get("loadavg", [])),
                machine.get("svn"), meta.get("reps")), ""]
    tables = tables.replace("\n## ", "\n#### ").replace("\n### ", "\n#### ")
    if tables.startswith("## "):
        tables = "#### " + tables[3:]
    before = text.split(BEGIN_MARK)[0]
    after = text.split(END_MARK, 1)[1]
    with open(path, "w") as f:
        f.write(before + BEGIN_MARK + "\n".join(head) + tables.rstrip()
                + "\n\n" + END_MARK + after)


def plot(out):
    """plots.py needs matplotlib, which Debian ships for /usr/bin/python3;
    use that interpreter when ours lacks it."""
    script = os.path.join(HERE, "plots.py")
    for python in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run([python, "-c", "import matplotlib"],
                               capture_output=True)
        if probe.returncode == 0:
            subprocess.run([python, script, out], check=False)
            return
    log("no matplotlib: skipping plots (apt install python3-matplotlib)")


def machine_info():
    def cmd(argv):
        try:
            return subprocess.run(argv, capture_output=True,
                                  text=True).stdout.strip()
        except OSError:
            return ""
    return {"host": platform.node(), "kernel": platform.release(),
            "loadavg": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
            "svn": cmd(["svn", "--version", "--quiet"]),
            "apache": cmd(["/usr/sbin/apache2", "-v"]).splitlines()[0:1]}


def main(argv=None):
    args = parse_args(argv)
    if args.report_only:
        out = args.report_only
        meta_path = os.path.join(out, "meta.json")
        meta = json.load(open(meta_path)) if os.path.exists(meta_path) \
            else {}
        write_outputs(out, report.read_runs(os.path.join(out, "runs.csv")),
                      meta, args.no_plots)
        if args.update_doc:
            update_doc(args.update_doc, out, meta)
        print(os.path.join(out, "tables.md"))
        return 0
    if not os.access(args.svnbench, os.X_OK):
        raise SystemExit("run.py: no svnbench at %s (run make)"
                         % args.svnbench)
    if "fsfs7" in args.modules:
        os.makedirs(args.work, exist_ok=True)
        args.moddir = snapshot_module(args.moddir,
                                      os.path.join(args.work, "fsfs7-module"))
    for module in args.modules:
        check_client_module(module, args.moddir)
    out = args.out or os.path.join(
        "bench-results", "%s-%s" % (args.mode, time.strftime("%Y%m%d-%H%M")))
    os.makedirs(out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    # Measure a snapshot: a rebuild during a long run must not pull the
    # binary from under us.
    snapshot = os.path.join(args.work, "svnbench")
    shutil.copy2(args.svnbench, snapshot + ".new")
    os.replace(snapshot + ".new", snapshot)
    args.svnbench = snapshot
    meta = {"mode": args.mode, "command": " ".join(
        ["tools/bench/run.py"] + (argv if argv is not None else sys.argv[1:])),
        "started": datetime.datetime.utcnow().isoformat() + "Z",
        "machine": machine_info(), "reps": args.reps,
        "log_limit": args.log_limit, "dump": args.dump or args.repo}
    if "fsfs7" in args.modules:
        meta["fsfs7_module"] = module_identity(args.moddir)
    repos, dumpfile = prepare_dataset(args, args.work, args.repos)
    cells = matrix.cells(args.modules, args.repos, args.ops, args.access,
                         args.caches, args.temps, args.load_caches)
    log("%d cells x %d repetitions" % (len(cells), args.reps))
    runner = Runner(args, args.work, repos, dumpfile, out)
    start = time.time()
    try:
        runner.run(cells)
    finally:
        meta["seconds"] = round(time.time() - start, 1)
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        write_outputs(out, runner.runs, meta, args.no_plots)
    if args.update_doc:
        update_doc(args.update_doc, out, meta)
    log("done in %.0f s: %s" % (time.time() - start,
                                os.path.join(out, "tables.md")))
    print(os.path.join(out, "tables.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
