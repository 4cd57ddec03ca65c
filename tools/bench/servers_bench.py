#!/usr/bin/env python3
"""servers_bench.py -- stock vs fsfs7 behind real servers (issue 10).

    tools/bench/servers_bench.py --dump D.svndump.gz [--reps 7]
    tools/bench/servers_bench.py --repo /path/to/repo --variants plain,packed

One run measures both modules, alternating them pair by pair (and their
order from one pair to the next) so that a change in the machine's load
hits both alike.  For each repository variant ("plain" = a copy of
--repo, or of the stock load of --dump; "packed" = the same after a stock
`svnadmin pack`) each module gets its own copy (commits change it), served
by a threaded svnserve and a private Apache with mod_dav_svn (event MPM),
both from tools/bench/servers.py, on loopback:

  export     svn export of trunk        wall s, server CPU s
  log        svn log of the root        wall s, server CPU s
  log5       svn log -l 5 of the root   wall s, server CPU s
  commit-own 8 clients x N svnmucc put, each to its own file:
             commits/s, server CPU s per commit
  commit-same  the same, all to one file with `svnmucc -r BASE`; an
             out-of-date failure is retried on a fresh base (counted)
  propfind   (http only) a burst of small PROPFIND requests from 8
             keep-alive connections (ab, or python with
             --propfind-client python): requests/s, Apache CPU s per
             request
  open       whole-process `svnlook youngest` on the repository (no
             server): stock (no LD_LIBRARY_PATH), fsfs7 (module directory
             first in LD_LIBRARY_PATH, as deployed) and fsfs7-preload
             (LD_PRELOAD of the module file)

Clients always run with the stock environment: only the server's module
differs.  Prints a table of medians and fsfs7/stock ratios, writes
runs.tsv (every measurement), summary.tsv and meta.json into --out.
Not part of make check.  See doc/benchmarks.md, "Servers".
"""
import argparse
import datetime
import json
import os
import pwd
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import http.client

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import run  # noqa: E402
from servers import Svnserve, Apache  # noqa: E402

MODULES = ("stock", "fsfs7")
OPS = ("export", "log", "log5", "commit-own", "commit-same", "propfind",
       "open")
# metric -> True when a larger value is better
HIGHER_BETTER = {"commits_per_s": True, "requests_per_s": True}
COUNTS = ("retries", "failed_commits")


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


class UserSvnserve(Svnserve):
    """svnserve run as the Apache user, so that both servers can commit to
    the same repository copy (new shard directories, rep-cache)."""

    def __init__(self, root, workdir, env, cache="slow", user="www-data"):
        super().__init__(root, workdir, env, cache)
        self.user = user

    def command(self):
        return ["setpriv", "--reuid", self.user, "--regid",
                str(pwd.getpwnam(self.user).pw_gid), "--clear-groups",
                "--"] + super().command()


# ------------------------------------------------------------ repositories

def prepare_base(args, work):
    """WORK/base/<variant>: made once per source (stock module), reused."""
    base = os.path.join(work, "base")
    stamp = os.path.join(base, "source.id")
    ident = json.dumps([args.repo, args.dump])
    if os.path.exists(stamp) and open(stamp).read() == ident and all(
            os.path.exists(os.path.join(base, v, "READY"))
            for v in args.variants):
        return base
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    env = run.stock_env()
    plain = os.path.join(base, "plain")
    if args.repo:
        log("copying %s" % args.repo)
        subprocess.run(["cp", "-a", args.repo, plain], check=True)
    else:
        log("loading %s (stock svnadmin)" % args.dump)
        dumpfile = os.path.join(work, "dataset.svndump")
        run.write_dump(args.dump, dumpfile)
        subprocess.run(["svnadmin", "create", plain], check=True, env=env)
        with open(dumpfile, "rb") as stdin:
            subprocess.run(["svnadmin", "load", "-q", plain], stdin=stdin,
                           check=True, env=env)
        os.unlink(dumpfile)
    open(os.path.join(plain, "READY"), "w").close()
    if "packed" in args.variants:
        packed = os.path.join(base, "packed")
        subprocess.run(["cp", "-a", plain, packed], check=True)
        log("packing a copy (stock svnadmin pack)")
        subprocess.run(["svnadmin", "pack", "-q", packed], check=True,
                       env=env)
    with open(stamp, "w") as f:
        f.write(ident)
    return base


def module_copies(base, work, variant, user):
    """Fresh per-module copies of BASE/VARIANT, owned by USER (servers run
    as USER); {module: root directory holding repository VARIANT}."""
    roots = {}
    for module in MODULES:
        root = os.path.join(work, "repos-" + module)
        dest = os.path.join(root, variant)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(root, exist_ok=True)
        subprocess.run(["cp", "-a", os.path.join(base, variant), dest],
                       check=True)
        # svnserve's anonymous users may commit (loopback only)
        with open(os.path.join(dest, "conf", "svnserve.conf"), "w") as f:
            f.write("[general]\nanon-access = write\n")
        subprocess.run(["chown", "-R", user, dest], check=True)
        roots[module] = root
    return roots


# ------------------------------------------------------------ measurements

class Recorder:
    def __init__(self, out):
        self.rows = []
        self.path = os.path.join(out, "runs.tsv")
        with open(self.path, "w") as f:
            f.write("variant\taccess\top\tmetric\tmodule\trep\tvalue\t"
                    "load1\n")

    def add(self, variant, access, op, module, rep, metrics):
        load1 = os.getloadavg()[0]
        with open(self.path, "a") as f:
            for metric, value in metrics.items():
                row = (variant, access, op, metric, module, rep, value, load1)
                self.rows.append(row)
                f.write("%s\t%s\t%s\t%s\t%s\t%d\t%.6f\t%.2f\n" % row)


def alternate(reps, modules, fn, warm=True):
    """Call FN(module, rep) for every module, REPS times, the order of the
    modules reversed every other pair; one unrecorded call each first."""
    if warm:
        for module in modules:
            fn(module, 0)
    for rep in range(1, reps + 1):
        for module in (modules if rep % 2 else modules[::-1]):
            fn(module, rep)


def client_env():
    """The stock environment in a UTF-8 locale: paths in real histories
    (maven's trunk) are not all ASCII, and svn refuses to write them
    under LC_ALL=C."""
    return dict(run.stock_env(), LC_ALL="C.UTF-8")


def client_cmd(args, op, url):
    common = ["--config-dir", args.config_dir, "--non-interactive"]
    if op == "export":
        return ["svn", "export", "-q", "--force"] + common + [
            url + "/trunk", args.export_dir]
    if op == "log":
        return ["svn", "log"] + common + [url]
    if op == "log5":
        return ["svn", "log", "-l", "5"] + common + [url]
    raise ValueError(op)


def one_client_op(args, op, url, server):
    shutil.rmtree(args.export_dir, ignore_errors=True)
    res = run.measure(client_cmd(args, op, url), client_env(), None,
                      server, os.path.join(args.scratch, "stderr"))
    if res[0] != "ok":
        raise RuntimeError("%s %s failed: %s" % (op, url, res[4]))
    return {"wall_s": res[1], "server_cpu_s": res[3], "client_cpu_s": res[2]}


def svnmucc_put(args, url, src, base=None):
    cmd = ["svnmucc", "--config-dir", args.config_dir, "--non-interactive",
           "-m", "bench"]
    if base is not None:
        cmd += ["-r", str(base)]
    cmd += ["put", src, url]
    return subprocess.run(cmd, env=client_env(), capture_output=True,
                          text=True)


def youngest(path):
    return int(subprocess.run(["svnlook", "youngest", path],
                              env=run.stock_env(), capture_output=True,
                              text=True, check=True).stdout)


OUT_OF_DATE = ("out of date", "E160028", "E160024", "E175002")


def commit_burst(args, root_url, repo_path, server, same, tag, failures,
                 per_client):
    """ARGS.clients threads, each PER_CLIENT commits; returns metrics."""
    errors, retries = [], [0]
    lock = threading.Lock()

    def client(n):
        src = os.path.join(args.scratch, "c%d-%s" % (n, tag))
        target = "%s/bench-%s.txt" % (root_url, "same" if same else
                                      "c%d" % n)
        base = youngest(repo_path) if same else None
        done = failed = 0
        while done < per_client and failed < per_client:
            with open(src, "w") as f:
                f.write("client %d commit %d %s %f\n"
                        % (n, done, tag, time.time()))
            res = svnmucc_put(args, target, src, base)
            if res.returncode == 0:
                done += 1
                if same:
                    # "r123 committed by ..." is svnmucc's only output
                    base = int(res.stdout.split()[0][1:])
                continue
            if same and any(s in res.stderr for s in OUT_OF_DATE):
                with lock:
                    retries[0] += 1
                base = youngest(repo_path)
                continue
            # a failed commit is a finding, not the end of the burst:
            # counted, its message kept, the client goes on
            failed += 1
            with lock:
                errors.append(res.stderr.strip()[-300:])

    if same:
        # the shared file must exist before the clients race on it
        res = svnmucc_put(args, "%s/bench-same.txt" % root_url, __file__)
        if res.returncode != 0:
            raise RuntimeError("creating the shared file: %s" % res.stderr)
    threads = [threading.Thread(target=client, args=(n,))
               for n in range(args.clients)]
    cpu0 = server.cpu_seconds()
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    cpu = server.cpu_seconds() - cpu0
    commits = args.clients * per_client - len(errors)
    for err in errors:
        log("FAILED commit (%s): %s" % (tag, " ".join(err.split())))
    failures.extend(errors[:3])
    metrics = {"commits_per_s": commits / wall,
               "server_cpu_s_per_commit": cpu / max(commits, 1),
               "failed_commits": len(errors)}
    if same:
        metrics["retries"] = retries[0]
    return metrics


PROPFIND_BODY = (b'<?xml version="1.0" encoding="utf-8"?>'
                 b'<propfind xmlns="DAV:"><prop><version-name/>'
                 b'<resourcetype/></prop></propfind>')


def propfind_burst(port, path, total, conc, client="python"):
    """TOTAL PROPFIND (Depth 0) requests on PATH over CONC keep-alive
    connections; returns wall seconds."""
    if client == "ab":
        return propfind_burst_ab(port, path, total, conc)
    errors = []
    per = [total // conc + (1 if i < total % conc else 0)
           for i in range(conc)]

    def worker(count):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            for _ in range(count):
                conn.request("PROPFIND", path, PROPFIND_BODY,
                             {"Depth": "0",
                              "Content-Type": "text/xml"})
                resp = conn.getresponse()
                resp.read()
                if resp.status != 207:
                    errors.append(resp.status)
                    return
        except (OSError, http.client.HTTPException) as err:
            errors.append(str(err))
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in per]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    if errors:
        raise RuntimeError("PROPFIND failed: %s" % errors[0])
    return wall


def propfind_burst_ab(port, path, total, conc):
    """The same burst from ApacheBench, a C client: python's http.client
    tops out near the server's own rate (3,000-10,000 requests/s from one
    run to the next on a busy machine), so its bursts measured the client.
    ab cannot send a body with a method of its own, so these PROPFINDs
    carry none (RFC 4918: an empty body means allprop); the repository
    open per request, which is what the cell is about, is the same."""
    cmd = ["ab", "-q", "-k", "-n", str(total), "-c", str(conc),
           "-m", "PROPFIND", "-H", "Depth: 0",
           "http://127.0.0.1:%d%s" % (port, path)]
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    fields = {}
    for line in out.stdout.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    if out.returncode != 0 or "Time taken for tests" not in fields:
        raise RuntimeError("ab failed: %s" % (out.stderr.strip()
                                              or out.stdout[-300:]))
    failed = int(fields.get("Failed requests", "0"))
    non2xx = int(fields.get("Non-2xx responses", "0"))
    if failed or non2xx:
        raise RuntimeError("PROPFIND failed: %d failed, %d non-2xx"
                           % (failed, non2xx))
    # ab's own clock excludes its start-up; fall back to ours if the
    # format ever changes.
    taken = fields["Time taken for tests"].split()[0]
    try:
        return float(taken)
    except ValueError:
        return wall


def open_envs(moddir):
    stock = run.module_env("stock", moddir)
    preload = dict(stock, LD_PRELOAD=os.path.join(moddir,
                                                  "libsvn_fs_fs-1.so.1"))
    return {"stock": stock, "fsfs7": run.module_env("fsfs7", moddir),
            "fsfs7-preload": preload}


def check_open_envs(envs, repo):
    """Each open mode really maps the module it claims to."""
    for mode, env in envs.items():
        maps = subprocess.run(
            ["strace", "-f", "-e", "trace=openat", "-o", "/dev/stdout",
             "svnlook", "youngest", repo], env=env, capture_output=True,
            text=True).stdout
        opened = [line for line in maps.splitlines()
                  if "libsvn_fs_fs-1.so" in line and "= -1" not in line]
        ours = any("fsfs7-module" in line for line in opened)
        if ours != mode.startswith("fsfs7"):
            raise SystemExit("open mode %s maps %s" % (mode, opened))


def open_cost(args, rec, variant, repo):
    envs = open_envs(args.moddir)
    check_open_envs(envs, repo)
    argv = ["svnlook", "youngest", repo]
    modes = list(envs)

    def once(mode, rep):
        res = run.measure(argv, envs[mode], None, None,
                          os.path.join(args.scratch, "stderr"))
        if res[0] != "ok":
            raise RuntimeError("svnlook youngest failed: %s" % res[4])
        if rep:
            rec.add(variant, "local", "open", mode, rep,
                    {"wall_s": res[1], "client_cpu_s": res[2]})

    for mode in modes:
        once(mode, 0)
    for rep in range(1, args.open_reps + 1):
        order = modes if rep % 2 else modes[::-1]
        for mode in order:
            once(mode, rep)


def start_servers(args, access, roots):
    servers = {}
    try:
        for module in MODULES:
            env = run.module_env(module, args.moddir)
            workdir = os.path.join(args.work, "server-%s-%s" % (access,
                                                                module))
            if access == "svn":
                srv = UserSvnserve(roots[module], workdir, env, args.cache,
                                   args.user)
            else:
                srv = Apache(roots[module], workdir, env, args.cache,
                             args.user)
            servers[module] = srv.start()
    except Exception:
        for srv in servers.values():
            srv.stop()
        raise
    return servers


def check_mapped(servers, args, meta, access):
    for module, srv in servers.items():
        mapped = run.check_server_module(srv, module, args.moddir)
        meta.setdefault("mapped", {})["%s/%s" % (access, module)] = mapped
        log("%s server %s maps %s" % (access, module, ", ".join(mapped)))


def bench_access(args, rec, meta, variant, access, roots):
    servers = start_servers(args, access, roots)
    try:
        urls = {m: servers[m].url(variant) for m in MODULES}
        paths = {m: os.path.join(roots[m], variant) for m in MODULES}
        mods = list(MODULES)
        first = True
        for op in ("export", "log", "log5"):
            if op not in args.ops:
                continue

            def client_op(module, rep, op=op):
                metrics = one_client_op(args, op, urls[module],
                                        servers[module])
                if rep:
                    rec.add(variant, access, op, module, rep, metrics)
            alternate(args.reps, mods, client_op)
            if first:
                check_mapped(servers, args, meta, access)
                first = False
            show(rec, variant, access, op)
        for op in ("commit-own", "commit-same"):
            if op not in args.ops:
                continue
            same = op == "commit-same"

            def burst(module, rep, same=same, op=op):
                metrics = commit_burst(args, urls[module], paths[module],
                                       servers[module], same,
                                       "%s-%s-%s-%d" % (access, op, module,
                                                        rep),
                                       meta.setdefault("failures", []),
                                       # a short unrecorded warm-up, which
                                       # also creates the files
                                       args.commits if rep else
                                       max(args.commits // 5, 1))
                if rep:
                    rec.add(variant, access, op, module, rep, metrics)
            alternate(args.commit_reps, mods, burst)
            if first:
                check_mapped(servers, args, meta, access)
                first = False
            show(rec, variant, access, op)
        if access == "http" and "propfind" in args.ops:
            def props(module, rep):
                srv = servers[module]
                path = "/svn/%s/" % variant
                cpu0 = srv.cpu_seconds()
                n = args.requests if rep else max(args.requests // 10, 8)
                wall = propfind_burst(srv.port, path, n, args.clients,
                                      args.propfind_client)
                cpu = srv.cpu_seconds() - cpu0
                if rep:
                    rec.add(variant, access, "propfind", module, rep,
                            {"requests_per_s": n / wall,
                             "server_cpu_s_per_request": cpu / n})
            alternate(args.commit_reps, mods, props)
            if first:
                check_mapped(servers, args, meta, access)
            show(rec, variant, access, "propfind")
    finally:
        for srv in servers.values():
            srv.stop()


# ----------------------------------------------------------------- report

def summarize(rows):
    """[((variant, access, op, metric), {module: value}, n)]: medians,
    except the server CPU of one export/log, which is the mean: /proc
    counts in 10 ms ticks, so single runs read 0 or 0.01 s and their
    median says little; the mean over the pairs is the total's share."""
    cells = {}
    for variant, access, op, metric, module, _rep, value, _load in rows:
        cells.setdefault((variant, access, op, metric), {}).setdefault(
            module, []).append(value)
    out = []
    for key, per in cells.items():
        center = statistics.mean if key[3] == "server_cpu_s" \
            else statistics.median
        med = {m: center(v) for m, v in per.items()}
        n = min(len(v) for v in per.values())
        out.append((key, med, n))
    return out


def ratio(med, mode="fsfs7"):
    base = med.get("stock")
    if base is None or mode not in med or base == 0:
        return None
    return med[mode] / base


def fmt(value):
    if value is None:
        return "-"
    if value == 0 or abs(value) >= 100:
        return "%.0f" % value
    return "%.3g" % value


def verdict(metric, r):
    if r is None or metric in COUNTS:
        return ""
    if r == 1:
        return "same"
    better = r > 1 if HIGHER_BETTER.get(metric) else r < 1
    return "better" if better else "worse"


def table_lines(summary):
    lines = ["| repo | access | op | metric | stock | fsfs7 | fsfs7/stock "
             "| n | |", "|---|---|---|---|---:|---:|---:|---:|---|"]
    for (variant, access, op, metric), med, n in summary:
        modes = ["fsfs7"] + (["fsfs7-preload"] if op == "open" else [])
        for mode in modes:
            r = ratio(med, mode)
            label = op if mode == "fsfs7" else op + " (LD_PRELOAD)"
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %d | %s |" % (
                variant, access, label, metric, fmt(med.get("stock")),
                fmt(med.get(mode)), "-" if r is None else "%.2f" % r, n,
                verdict(metric, r)))
    return lines


# per op: (speed metric, CPU metric) of the compact table
COMPACT = {"commit-own": ("commits_per_s", "server_cpu_s_per_commit"),
           "commit-same": ("commits_per_s", "server_cpu_s_per_commit"),
           "propfind": ("requests_per_s", "server_cpu_s_per_request"),
           "open": ("wall_s", "client_cpu_s")}


def compact_lines(summary):
    """One row per (repo, access, op): the speed metric and the CPU
    metric side by side (the table of doc/benchmarks.md)."""
    cells = {(k[0], k[1], k[2], k[3]): (med, n) for k, med, n in summary}
    rows, seen = [], set()
    for (variant, access, op, _metric), _med, _n in summary:
        if (variant, access, op) in seen:
            continue
        seen.add((variant, access, op))
        speed, cpu = COMPACT.get(op, ("wall_s", "server_cpu_s"))
        for mode in ["fsfs7"] + (["fsfs7-preload"] if op == "open" else []):
            label = op if mode == "fsfs7" else op + " (LD_PRELOAD)"
            if HIGHER_BETTER.get(speed):
                label += " [%s]" % speed.replace("_per_", "/")
            row = ["%s | %s | %s" % (variant, access, label)]
            for metric in (speed, cpu):
                med, _n = cells.get((variant, access, op, metric), ({}, 0))
                r = ratio(med, mode)
                row.append("%s | %s | %s" % (
                    fmt(med.get("stock")), fmt(med.get(mode)),
                    "-" if r is None else "**%.2f**" % r
                    if verdict(metric, r) == "worse" and "%.2f" % r != "1.00"
                    else "%.2f" % r))
            notes = []
            for metric in COUNTS:
                med, _n = cells.get((variant, access, op, metric), ({}, 0))
                if med and mode in med:
                    notes.append("%s %s/%s" % (metric.replace("_", " "),
                                               fmt(med.get("stock")),
                                               fmt(med.get(mode))))
            n = min([c[1] for k, c in cells.items() if k[:3] ==
                     (variant, access, op)] or [0])
            rows.append("| %s | %d | %s |" % (" | ".join(row), n,
                                               "; ".join(notes)))
    head = ["| repo | access | op | wall s (or rate) stock | fsfs7 | "
            "fsfs7/stock | CPU s stock | fsfs7 | fsfs7/stock | n | "
            "counts stock/fsfs7 |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    return head + rows


def write_tables(out, summary, command):
    lines = table_lines(summary)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("<!-- %s -->\n" % command)
        f.write("\n".join(lines) + "\n\n")
        f.write("\n".join(compact_lines(summary)) + "\n")
    return lines


def read_runs(out):
    rows = []
    with open(os.path.join(out, "runs.tsv")) as f:
        next(f)
        for line in f:
            v = line.rstrip("\n").split("\t")
            rows.append((v[0], v[1], v[2], v[3], v[4], int(v[5]),
                         float(v[6]), float(v[7])))
    return rows


def write_summary(out, summary):
    with open(os.path.join(out, "summary.tsv"), "w") as f:
        f.write("variant\taccess\top\tmetric\tstock\tfsfs7\t"
                "fsfs7_preload\tfsfs7_over_stock\tn\n")
        for (variant, access, op, metric), med, n in summary:
            r = ratio(med)
            f.write("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n" % (
                variant, access, op, metric,
                "%.6f" % med["stock"] if "stock" in med else "",
                "%.6f" % med["fsfs7"] if "fsfs7" in med else "",
                "%.6f" % med["fsfs7-preload"] if "fsfs7-preload" in med
                else "", "" if r is None else "%.4f" % r, n))


def show(rec, variant, access, op):
    rows = [r for r in rec.rows if r[:3] == (variant, access, op)]
    for line in table_lines(summarize(rows))[2:]:
        log(line)


# ------------------------------------------------------------------- main

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = p.add_mutually_exclusive_group()
    src.add_argument("--repo", help="existing repository (copied, never "
                     "modified)")
    src.add_argument("--dump", default="/work/shared/data/"
                     "maven-small.svndump.gz",
                     help="dump (.gz ok) loaded with stock svnadmin when "
                     "no --repo (default %(default)s)")
    p.add_argument("--variants", default="plain,packed",
                   help="comma list of plain,packed")
    p.add_argument("--access", default="svn,http")
    p.add_argument("--ops", default=",".join(OPS),
                   help="comma list of %s" % ",".join(OPS))
    p.add_argument("--reps", type=int, default=7,
                   help="pairs per export/log cell")
    p.add_argument("--commit-reps", type=int, default=3,
                   help="pairs of commit and PROPFIND bursts")
    p.add_argument("--open-reps", type=int, default=41,
                   help="rounds of svnlook youngest")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--commits", type=int, default=25,
                   help="commits per client per burst")
    p.add_argument("--requests", type=int, default=1000,
                   help="PROPFIND requests per burst")
    p.add_argument("--propfind-client", choices=("ab", "python"),
                   default="ab" if shutil.which("ab") else "python",
                   help="who sends the PROPFIND burst: ApacheBench "
                   "(apache2-utils; default when installed) or python's "
                   "http.client (client-bound above ~3,000 requests/s)")
    p.add_argument("--cache", default="slow", choices=("slow", "medium",
                                                       "fast"),
                   help="server cache options (servers.py); slow = the "
                   "servers' defaults")
    p.add_argument("--user", default="www-data",
                   help="user both servers run as")
    p.add_argument("--work", default="/tmp/fsfs7-srvbench")
    p.add_argument("--out", help="result directory (default "
                   "bench-results/servers-<date>)")
    p.add_argument("--moddir", default=run.DEFAULT_MODDIR)
    p.add_argument("--report-only", metavar="OUTDIR",
                   help="only rebuild summary.tsv and table.md from "
                   "OUTDIR/runs.tsv")
    p.add_argument("--prepare-only", action="store_true",
                   help="only make the base repositories in --work")
    args = p.parse_args(argv)
    if args.repo:
        args.dump = None
    for name, allowed in (("variants", ("plain", "packed")),
                          ("access", ("svn", "http")), ("ops", OPS)):
        value = tuple(v for v in getattr(args, name).split(",") if v)
        bad = [v for v in value if v not in allowed]
        if bad:
            p.error("unknown %s: %s" % (name, ",".join(bad)))
        setattr(args, name, value)
    return args


def main(argv=None):
    args = parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("servers_bench.py: run as root (servers run as "
                         "%s, repositories are chowned)" % args.user)
    os.makedirs(args.work, exist_ok=True)
    args.moddir = run.snapshot_module(args.moddir, os.path.join(
        args.work, "fsfs7-module"))
    run.check_client_module("fsfs7", args.moddir)
    if args.prepare_only:
        prepare_base(args, args.work)
        return 0
    if args.report_only:
        summary = summarize(read_runs(args.report_only))
        write_summary(args.report_only, summary)
        meta = os.path.join(args.report_only, "meta.json")
        command = json.load(open(meta))["command"] \
            if os.path.exists(meta) else ""
        write_tables(args.report_only, summary, command)
        print("\n".join(compact_lines(summary)))
        return 0
    out = args.out or os.path.join("bench-results", "servers-%s"
                                   % time.strftime("%Y%m%d-%H%M"))
    os.makedirs(out, exist_ok=True)
    args.scratch = tempfile.mkdtemp(prefix="srvbench.", dir="/dev/shm")
    args.export_dir = os.path.join(args.scratch, "export")
    args.config_dir = os.path.join(args.work, "client-config")
    os.makedirs(args.config_dir, exist_ok=True)
    command = " ".join(["tools/bench/servers_bench.py"] +
                       (argv if argv is not None else sys.argv[1:]))
    meta = {"command": command,
            "started": datetime.datetime.utcnow().isoformat() + "Z",
            "machine": run.machine_info(),
            "fsfs7_module": run.module_identity(args.moddir),
            "reps": args.reps, "commit_reps": args.commit_reps,
            "open_reps": args.open_reps, "clients": args.clients,
            "commits": args.commits, "requests": args.requests,
            "source": args.repo or args.dump}
    rec = Recorder(out)
    base = prepare_base(args, args.work)
    subprocess.run(["chmod", "-R", "a+rX", args.work], check=True)
    start = time.time()
    loads = [os.getloadavg()[0]]
    try:
        for variant in args.variants:
            roots = module_copies(base, args.work, variant, args.user)
            meta.setdefault("youngest", {})[variant] = youngest(
                os.path.join(roots["stock"], variant))
            if "open" in args.ops:
                open_cost(args, rec, variant,
                          os.path.join(roots["stock"], variant))
                show(rec, variant, "local", "open")
            for access in args.access:
                log("%s over %s" % (variant, access))
                bench_access(args, rec, meta, variant, access, roots)
                loads.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(args.scratch, ignore_errors=True)
        meta["seconds"] = round(time.time() - start, 1)
        load_samples = [r[7] for r in rec.rows] or loads
        meta["load1"] = {"min": min(load_samples),
                         "median": statistics.median(load_samples),
                         "max": max(load_samples)}
        meta["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        summary = summarize(rec.rows)
        write_summary(out, summary)
        lines = write_tables(out, summary, command)
    print("\n".join(lines))
    print()
    print("\n".join(compact_lines(summary)))
    print("\nload average (1 min) during the run: min %.1f, median %.1f, "
          "max %.1f; %s s; results in %s"
          % (meta["load1"]["min"], meta["load1"]["median"],
             meta["load1"]["max"], meta["seconds"], out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
