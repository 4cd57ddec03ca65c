#!/usr/bin/env python3
"""concurrency.py: the concurrency campaign for an FSFS module.

    concurrency.py [--module fsfs7|stock|both] [--seconds 60] [--clients 8]
                   [--seed 7] [--tsv ops.tsv] [--work DIR] [--keep]

One repository (format 8, `layout sharded 4`, so shards fill and get
packed during the run) is served at the same time by a threaded svnserve
(`svnserve -d -T`) and by a private Apache with mod_dav_svn (own
ServerRoot, event MPM), both on loopback ports picked free and both loading
the module tested (its directory first in LD_LIBRARY_PATH, as the
deployment docs set it up).  CLIENTS clients run for SECONDS, even ones
over svn://, odd ones over http://:

  writers  svnmucc change sets, each with an explicit base revision (-r):
           puts to the client's own files (disjoint), puts to three shared
           files (the same files for every writer; the base is sometimes
           stale on purpose), copies of the shared directory at the base,
           propsets on the own and on the shared directory; svn lock /
           unlock of two shared files; svn:log edits of the client's own
           earlier revisions.
  readers  svn log -v, export, checkout + update, ls -R and cat at a
           random revision, in loops.
  packer   `svnadmin pack` (the module tested) every ~2 s, in the server
           user's name.

Checks, with the STOCK binaries and module afterwards (the oracle):

  - commits accepted = revisions present: every revision was reported to
    exactly one writer, with its author;
  - every writer error is justified: out-of-date/conflict only when a
    revision after the base and dated no later than the error changed the
    path (or something below it); a lock error only while another client
    held a lock on that path; any other writer error counts as unjustified;
  - zero reader errors, and what readers saw (ls -R, cat at a revision)
    equals stock's answer for that revision at the end;
  - zero pack errors; stock `svnadmin verify` passes;
  - a full dump equals the dump of a replay of the accepted change sets
    (the same svnmucc commands in revision order on a fresh repository over
    file://, stock module), dates masked, revprop edits applied.

Servers are run by `timeout -s KILL` (they die even if this script does)
and stopped at the end.  One TSV row per client operation (--tsv); the
figures per module are printed at the end, and a `figures` row per module
closes the TSV.  Only the Python 3 standard library is used.
"""

import argparse
import os
import pwd
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SHARD = 4
SHARED_FILES = ("shared/s0.txt", "shared/s1.txt", "shared/s2.txt")
LOCK_FILES = ("shared/lock0.txt", "shared/lock1.txt")
PASSWORD = "pw"
OUT_OF_DATE = re.compile(r"out of date|out-of-date|E160028|E160024|E155011|"
                         r"E170004|E175002.*(?:conflict|date)|[Cc]onflict at")
LOCK_ERR = re.compile(r"E160038|E160039|E160035|E195022|E170007|"
                      r"already locked|is locked|no matching lock-token|"
                      r"[Ll]ock token|[Ll]ocked by")
DATE_RE = re.compile(rb"(K 8\nsvn:date\nV 27\n)[^\n]{27}\n")
SERVE_SECONDS_EXTRA = 240       # a server outlives the run by at most this


# ---- environment ------------------------------------------------------------

def base_env():
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FAULT_") and k not in ("LD_PRELOAD",
                                                       "LD_LIBRARY_PATH")}
    env["LC_ALL"] = "C"
    env["PATH"] = env.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"
    return env


def module_env(moddir):
    env = base_env()
    if moddir:
        env["LD_LIBRARY_PATH"] = moddir
    return env


def run(argv, env, timeout=120, input=None):
    try:
        p = subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout,
                           input=input, stdin=None if input else
                           subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -9, b"", "TIMEOUT after %ds" % timeout


def must(argv, env, **kw):
    rc, out, err = run(argv, env, **kw)
    if rc != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(argv), rc, err))
    return out


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, alive, what):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError("%s exited" % what)
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("%s did not listen on port %d" % (what, port))


def server_user():
    """Servers and svnadmin pack run as one user, so every file of the
    repository stays writable by all of them (www-data when run as root:
    Apache will not serve as root)."""
    if os.geteuid() == 0:
        return "www-data"
    return pwd.getpwuid(os.geteuid()).pw_name


def as_user(argv):
    if os.geteuid() != 0:
        return argv
    pw = pwd.getpwnam(server_user())
    return ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
            "--clear-groups", "--"] + argv


def maps_module(pid, moddir):
    """Does process PID map the libsvn_fs_fs of MODDIR (or stock's)?"""
    want = os.path.realpath(os.path.join(moddir, "libsvn_fs_fs-1.so.1")) \
        if moddir else "/usr/lib/x86_64-linux-gnu/libsvn_fs_fs-1.so"
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any(os.path.realpath(l.split()[-1]).startswith(want)
                       for l in f if "libsvn_fs_fs-1.so" in l)
    except OSError:
        return False


def maps_any(pid):
    """Has PID loaded some libsvn_fs_fs yet (libsvn_fs loads it lazily)?"""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any("libsvn_fs_fs-1.so" in l for l in f)
    except OSError:
        return False


def descendants(pid):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for k in kids.get(p, []):
            out.append(k)
            todo.append(k)
    return out


# ---- servers ----------------------------------------------------------------

class Server:
    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def on_module(self, moddir):
        """Every server process (not the timeout wrapper) maps the module."""
        pids = [p for p in descendants(self.proc.pid)
                if self.name in _comm(p) and maps_any(p)]
        return bool(pids) and all(maps_module(p, moddir) for p in pids)


def _comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


class Svnserve(Server):
    name = "svnserve"

    def __init__(self, root, moddir, seconds):
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["timeout", "-s", "KILL", str(int(seconds + SERVE_SECONDS_EXTRA))] +
            as_user(["svnserve", "-d", "--foreground", "-T", "-r", root,
                     "--listen-host", "127.0.0.1", "--listen-port",
                     str(self.port)]),
            env=module_env(moddir), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        wait_listening(self.port, lambda: self.proc.poll() is None,
                       "svnserve")

    def url(self, repo):
        return "svn://127.0.0.1:%d/%s" % (self.port, repo)


class Apache(Server):
    """A private Apache: own ServerRoot/config/logs, event MPM, mod_dav_svn
    with Basic auth, loopback port; run in the foreground under timeout."""
    name = "apache2"

    def __init__(self, dir, parent, users, moddir, seconds):
        self.dir = dir
        self.port = free_port()
        for d in ("run", "lock", "log"):
            os.makedirs(os.path.join(dir, d), exist_ok=True)
        user = server_user()
        if os.geteuid() == 0:
            for d in ("run", "lock", "log"):
                shutil.chown(os.path.join(dir, d), user, user)
        with open(os.path.join(dir, "htpasswd"), "w") as f:
            for u in users:
                f.write("%s:%s\n" % (u, _apr_sha1(PASSWORD)))
        mods = ["mpm_event", "authz_core", "authn_core", "authn_file",
                "auth_basic", "authz_user", "dav", "dav_svn"]
        with open(os.path.join(dir, "apache2.conf"), "w") as f:
            f.write("ServerRoot %s\nServerName 127.0.0.1\n"
                    "Listen 127.0.0.1:%d\nPidFile %s/run/apache2.pid\n"
                    "Mutex file:%s/lock default\nDefaultRuntimeDir %s/run\n"
                    "User %s\nGroup %s\nErrorLog %s/log/error.log\n"
                    "LogLevel warn\nStartServers 2\nServerLimit 2\n"
                    "ThreadsPerChild 8\nMaxRequestWorkers 16\nTimeout 120\n"
                    % (dir, self.port, dir, dir, dir, user, user, dir))
            for m in mods:
                f.write("LoadModule %s_module /usr/lib/apache2/modules/"
                        "mod_%s.so\n" % (m, m))
            f.write("<Location /svn>\n  DAV svn\n  SVNParentPath %s\n"
                    "  AuthType Basic\n  AuthName torture\n"
                    "  AuthUserFile %s/htpasswd\n  Require valid-user\n"
                    "</Location>\n" % (parent, dir))
        env = module_env(moddir)
        env["LANG"] = "C"
        self.proc = subprocess.Popen(
            ["timeout", "-s", "KILL", str(int(seconds + SERVE_SECONDS_EXTRA)),
             "apache2", "-d", dir, "-f", os.path.join(dir, "apache2.conf"),
             "-DFOREGROUND"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        wait_listening(self.port, lambda: self.proc.poll() is None,
                       "apache2 (%s)" % self.error_log()[-300:])

    def url(self, repo):
        return "http://127.0.0.1:%d/svn/%s" % (self.port, repo)

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "log", "error.log")) as f:
                return f.read()[-3000:]
        except OSError:
            return ""


def _apr_sha1(pw):
    import base64
    import hashlib
    return "{SHA}" + base64.b64encode(hashlib.sha1(pw.encode()).digest()
                                      ).decode()


# ---- the run ------------------------------------------------------------------

class Run:
    """One module's run: repository, servers, clients, records."""

    def __init__(self, modname, moddir, work, seconds, nclients, seed):
        self.modname, self.moddir = modname, moddir
        self.work = os.path.join(work, modname)
        self.seconds, self.nclients, self.seed = seconds, nclients, seed
        self.parent = os.path.join(self.work, "parent")
        self.repo = os.path.join(self.parent, "R")
        self.users = ["c%d" % i for i in range(nclients)]
        self.lock = threading.Lock()
        self.ops = []             # dicts, one per client operation
        self.commits = {}         # rev -> (client, argv template, base)
        self.lock_held = []       # (path, client, t0, t1)
        self.revprop_final = {}   # rev -> svn:log set last
        self.reads = []           # (kind, rev, path, output) to recheck
        self.t_start = None

    # -- set-up --
    def setup(self):
        if os.path.isdir(self.work):
            shutil.rmtree(self.work)
        os.makedirs(self.parent)
        for d in (self.work, self.parent):
            os.chmod(d, 0o755)
        self.content = os.path.join(self.work, "content")
        os.makedirs(self.content)
        os.chmod(self.content, 0o755)
        self.cfg = os.path.join(self.work, "svn-config")
        os.makedirs(self.cfg)
        create_repo(self.repo)
        with open(os.path.join(self.repo, "conf", "svnserve.conf"), "w") as f:
            f.write("[general]\nanon-access = none\nauth-access = write\n"
                    "password-db = passwd\n")
        with open(os.path.join(self.repo, "conf", "passwd"), "w") as f:
            f.write("[users]\n" + "".join("%s = %s\n" % (u, PASSWORD)
                                          for u in self.users))
        self.setup_argv = setup_change_set(self.users, self.content)
        must(["svnmucc", "--username", "setup", "-m", "setup", "-U",
              "file://" + self.repo] + self.setup_argv, base_env())
        if os.geteuid() == 0:
            subprocess.run(["chown", "-R", "%s:%s" % ((server_user(),) * 2),
                            self.parent], check=True)
        if self.moddir:
            # A copy of the module the server user can read.
            m = os.path.join(self.work, "module")
            os.makedirs(m)
            shutil.copy(os.path.join(self.moddir, "libsvn_fs_fs-1.so.1"), m)
            os.chmod(m, 0o755)
            os.chmod(os.path.join(m, "libsvn_fs_fs-1.so.1"), 0o755)
            self.srv_moddir = m
        else:
            self.srv_moddir = None

    def start_servers(self):
        self.svnserve = Svnserve(self.parent, self.srv_moddir, self.seconds)
        self.apache = Apache(os.path.join(self.work, "apache2"), self.parent,
                             self.users, self.srv_moddir, self.seconds)

    def stop_servers(self):
        for s in (getattr(self, "svnserve", None), getattr(self, "apache",
                                                           None)):
            if s:
                s.stop()

    # -- recording --
    def record(self, **kw):
        with self.lock:
            self.ops.append(kw)

    def svn(self, client, argv, timeout=120):
        user = self.users[client]
        return run([argv[0], "--non-interactive", "--no-auth-cache",
                    "--config-dir", self.cfg, "--username", user,
                    "--password", PASSWORD] + argv[1:], base_env(),
                   timeout=timeout)

    def url(self, client):
        return (self.svnserve if client % 2 == 0 else self.apache).url("R")

    # -- clients --
    def client(self, i, deadline):
        rnd = random.Random("%s-%d" % (self.seed, i))
        # Two readers among eight clients (one per protocol); the rest write.
        reader = i >= self.nclients - 2
        st = {"base": 1, "own": set(), "k": 0, "my_revs": [], "wc": None}
        while time.monotonic() < deadline:
            if reader:
                self.read_step(i, rnd, st)
            else:
                self.write_step(i, rnd, st)

    def head(self, i):
        rc, out, err = self.svn(i, ["svn", "info", "--show-item", "revision",
                                    self.url(i)])
        return int(out.strip()) if rc == 0 else None

    def write_step(self, i, rnd, st):
        w = "w%d" % i
        st["k"] += 1
        k = st["k"]
        roll = rnd.random()
        if roll < 0.10:
            return self.lock_step(i, rnd)
        if roll < 0.17 and st["my_revs"]:
            return self.revprop_step(i, rnd, st)
        if rnd.random() < 0.6:
            h = self.head(i)
            if h is not None:
                st["base"] = max(st["base"], h)
        base = st["base"]
        content = os.path.join(self.content, "%s-%d" % (w, k))
        with open(content, "w") as f:
            f.write("%s change %d at base %d\n%s\n" % (
                w, k, base, "x" * rnd.randrange(0, 3000)))
        os.chmod(content, 0o644)
        if roll < 0.40:
            kind = "put-own"
            f = "%s/f%d.txt" % (w, rnd.randrange(4))
            ops = ["put", content, f]
            paths = [f]
        elif roll < 0.70:
            kind = "put-shared"
            f = rnd.choice(SHARED_FILES + LOCK_FILES[:1])
            ops = ["put", content, f]
            paths = [f]
        elif roll < 0.82:
            kind = "copy"
            dst = "%s/cp%d" % (w, k)
            ops = ["cp", str(base), "shared", dst,
                   "propset", "origin", "%s@%d" % (w, base), dst]
            paths = [dst]
        elif roll < 0.91:
            kind = "propset-own"
            ops = ["propset", "p:%d" % rnd.randrange(3), "v%d" % k, w]
            paths = [w]
        else:
            kind = "propset-shared"
            ops = ["propset", "p:%s" % w, "v%d" % k, "shared"]
            paths = ["shared"]
        msg = "%s %s %d" % (w, kind, k)
        t0 = time.time()
        rc, out, err = self.svn(i, ["svnmucc", "-r", str(base), "-m", msg,
                                    "-U", self.url(i)] + ops)
        t1 = time.time()
        m = re.search(rb"r(\d+) committed by (\S+)", out)
        rev = int(m.group(1)) if rc == 0 and m else None
        cls = "ok" if rev else classify(err)
        if rev:
            with self.lock:
                dup = rev in self.commits
                self.commits.setdefault(rev, (i, msg, ops, base))
            if dup:
                cls = "DUPLICATE-REV"
            st["base"] = max(st["base"], rev)
            st["my_revs"].append(rev)
        self.record(client=i, kind=kind, t0=t0, t1=t1, rc=rc, rev=rev,
                    base=base, paths=paths, cls=cls, err=first_err(err))

    def lock_step(self, i, rnd):
        path = rnd.choice(LOCK_FILES)
        url = self.url(i) + "/" + path
        t0 = time.time()
        rc, out, err = self.svn(i, ["svn", "lock", "-m", "c%d" % i, url])
        t1 = time.time()
        got = rc == 0 and b"locked by user" in out
        self.record(client=i, kind="lock", t0=t0, t1=t1, rc=rc, rev=None,
                    base=None, paths=[path], cls="ok" if got else
                    classify(err), err=first_err(err))
        if not got:
            return
        time.sleep(rnd.uniform(0.05, 0.4))
        rc, out, err = self.svn(i, ["svn", "unlock", url])
        t2 = time.time()
        with self.lock:
            self.lock_held.append((path, i, t0, t2))
        self.record(client=i, kind="unlock", t0=t1, t1=t2, rc=rc, rev=None,
                    base=None, paths=[path], cls="ok" if rc == 0 else
                    "OTHER", err=first_err(err))

    def revprop_step(self, i, rnd, st):
        rev = rnd.choice(st["my_revs"])
        value = "c%d edited r%d at %.3f" % (i, rev, time.time())
        t0 = time.time()
        rc, out, err = self.svn(i, ["svn", "propset", "--revprop", "-r",
                                    str(rev), "svn:log", value, self.url(i)])
        t1 = time.time()
        if rc == 0:
            with self.lock:
                self.revprop_final[rev] = value
        self.record(client=i, kind="revprop", t0=t0, t1=t1, rc=rc, rev=rev,
                    base=None, paths=[], cls="ok" if rc == 0 else "OTHER",
                    err=first_err(err))

    def read_step(self, i, rnd, st):
        h = self.head(i)
        if h is None:
            self.record(client=i, kind="read-head", t0=time.time(),
                        t1=time.time(), rc=1, rev=None, base=None, paths=[],
                        cls="READER-ERROR", err="svn info failed")
            return
        r = rnd.randrange(1, h + 1)
        url = self.url(i)
        tmp = os.path.join(self.work, "r%d" % i)
        kind = rnd.choice(["log", "export", "checkout", "ls", "cat", "cat"])
        t0 = time.time()
        if kind == "log":
            rc, out, err = self.svn(i, ["svn", "log", "-v", "-q", "-r",
                                        "%d:1" % r, url])
        elif kind == "export":
            shutil.rmtree(tmp + "-exp", ignore_errors=True)
            rc, out, err = self.svn(i, ["svn", "export", "-q", "-r", str(r),
                                        url, tmp + "-exp"])
        elif kind == "checkout":
            if st["wc"] and rnd.random() < 0.7:
                rc, out, err = self.svn(i, ["svn", "update", "-q", "-r",
                                            str(r), st["wc"]])
                kind = "update"
            else:
                shutil.rmtree(tmp + "-wc", ignore_errors=True)
                rc, out, err = self.svn(i, ["svn", "checkout", "-q", "-r",
                                            str(r), url, tmp + "-wc"])
                st["wc"] = tmp + "-wc"
        elif kind == "ls":
            rc, out, err = self.svn(i, ["svn", "ls", "-R", "-r", str(r), url])
            if rc == 0:
                with self.lock:
                    self.reads.append(("ls", r, "", out))
        else:
            path = rnd.choice(SHARED_FILES)
            rc, out, err = self.svn(i, ["svn", "cat", "-r", str(r),
                                        url + "/" + path])
            if rc == 0:
                with self.lock:
                    self.reads.append(("cat", r, path, out))
        self.record(client=i, kind=kind, t0=t0, t1=time.time(), rc=rc, rev=r,
                    base=None, paths=[], cls="ok" if rc == 0 else
                    "READER-ERROR", err=first_err(err))

    def packer(self, deadline):
        while time.monotonic() < deadline:
            t0 = time.time()
            rc, out, err = run(as_user(["svnadmin", "pack", "-q", self.repo]),
                               module_env(self.srv_moddir), timeout=300)
            self.record(client=-1, kind="pack", t0=t0, t1=time.time(), rc=rc,
                        rev=None, base=None, paths=[], cls="ok" if rc == 0
                        else "PACK-ERROR", err=first_err(err))
            time.sleep(2)

    def go(self):
        self.setup()
        try:
            self.start_servers()
            self.t_start = time.time()
            deadline = time.monotonic() + self.seconds
            threads = [threading.Thread(target=self.client, args=(i, deadline))
                       for i in range(self.nclients)]
            threads.append(threading.Thread(target=self.packer,
                                            args=(deadline,)))
            for t in threads:
                t.start()
            time.sleep(min(3, self.seconds / 2))
            self.on_module = (self.svnserve.on_module(self.srv_moddir) and
                              self.apache.on_module(self.srv_moddir))
            for t in threads:
                t.join()
            self.elapsed = time.time() - self.t_start
        finally:
            self.stop_servers()
        # A last pack, so the final state has packed shards in any case.
        must(as_user(["svnadmin", "pack", "-q", self.repo]),
             module_env(self.srv_moddir))
        return self.judge()

    # -- checks --
    def judge(self):
        f = {"module": self.modname, "seconds": round(self.elapsed, 1),
             "clients": self.nclients, "servers_on_module":
             int(bool(self.on_module))}
        log = stock_log(self.repo)          # rev -> (author, date, paths)
        young = max(log)
        f["revisions"] = young - 1          # r1 is the set-up
        f["commits_accepted"] = len(self.commits)
        lost = [r for r in self.commits if r not in log]
        unreported = [r for r in range(2, young + 1) if r not in self.commits]
        wrong_author = [r for r, c in self.commits.items()
                        if r in log and log[r][0] != self.users[c[0]]]
        f["commits_lost"] = len(lost)
        f["revisions_unreported"] = len(unreported)
        f["wrong_author"] = len(wrong_author)
        w = [o for o in self.ops if o["kind"] in WRITE_KINDS]
        f["writer_ops"] = len(w)
        ood = [o for o in w if o["cls"] == "out-of-date"]
        lck = [o for o in w + [o for o in self.ops if o["kind"] == "lock"]
               if o["cls"] == "lock"]
        f["out_of_date"] = len(ood)
        f["out_of_date_unjustified"] = sum(
            1 for o in ood if not self.ood_justified(o, log))
        f["lock_errors"] = len(lck)
        f["lock_errors_unjustified"] = sum(
            1 for o in lck if not self.lock_justified(o))
        f["writer_other_errors"] = sum(
            1 for o in self.ops if o["kind"] in WRITE_KINDS + ("lock",
                                                               "unlock",
                                                               "revprop")
            and o["cls"] not in ("ok", "out-of-date", "lock"))
        f["locks_taken"] = len(self.lock_held)
        f["revprop_edits"] = sum(1 for o in self.ops if o["kind"] == "revprop"
                                 and o["cls"] == "ok")
        rd = [o for o in self.ops if o["kind"] in READ_KINDS]
        f["reader_ops"] = len(rd)
        f["reader_errors"] = sum(1 for o in rd if o["cls"] != "ok")
        f["reads_rechecked"], f["reads_wrong"] = self.recheck_reads()
        packs = [o for o in self.ops if o["kind"] == "pack"]
        f["packs"] = len(packs)
        f["pack_errors"] = sum(1 for o in packs if o["cls"] != "ok")
        with open(os.path.join(self.repo, "db", "min-unpacked-rev")) as fh:
            f["packed_shards"] = int(fh.read()) // SHARD
        f["revprops_wrong"] = sum(
            1 for r, v in self.revprop_final.items()
            if log.get(r, (None, None, None, None))[3] != v)
        rc, _, err = run(["svnadmin", "verify", "-q", self.repo], base_env(),
                         timeout=600)
        f["verify"] = "pass" if rc == 0 else "FAIL"
        self.verify_err = err
        f["replay_equal"] = int(self.replay_equal())
        f["unjustified"] = (f["commits_lost"] + f["revisions_unreported"] +
                            f["wrong_author"] + f["out_of_date_unjustified"] +
                            f["lock_errors_unjustified"] +
                            f["writer_other_errors"] + f["reader_errors"] +
                            f["reads_wrong"] + f["pack_errors"] +
                            f["revprops_wrong"] +
                            (f["verify"] != "pass") + (1 - f["replay_equal"])
                            + (1 - f["servers_on_module"]))
        self.figures = f
        return f

    def ood_justified(self, o, log):
        """Some revision after the base, dated no later than the error's
        end, changed one of the paths, a path below one, or the properties
        of a directory above one (FSFS's merge refuses a commit under a
        directory whose properties changed since the base: "Conflict at
        '/shared'", by design, in both modules)."""
        for r, (author, date, paths, _) in log.items():
            if r <= o["base"] or date > o["t1"] + 1.0:
                continue
            for p in paths:
                for mine in o["paths"]:
                    mine = "/" + mine
                    if p == mine or p.startswith(mine + "/") or \
                            mine.startswith(p.rstrip("/") + "/"):
                        return True
        return False

    def lock_justified(self, o):
        """Another client held a lock on one of the paths meanwhile."""
        for path, c, a, b in self.lock_held:
            if c != o["client"] and path in o["paths"] and \
                    a <= o["t1"] and b >= o["t0"]:
                return True
        return False

    def recheck_reads(self):
        n = bad = 0
        for kind, r, path, out in self.reads:
            n += 1
            if kind == "ls":
                rc, exp, _ = run(["svn", "ls", "-R", "-r", str(r),
                                  "file://" + self.repo], base_env())
            else:
                rc, exp, _ = run(["svnlook", "cat", "-r", str(r), self.repo,
                                  path], base_env())
            if rc != 0 or exp != out:
                bad += 1
                self.record(client=-2, kind="recheck-" + kind, t0=0, t1=0,
                            rc=rc, rev=r, base=None, paths=[path],
                            cls="READ-WRONG", err="differs from stock")
        return n, bad

    def replay_equal(self):
        """Replay the accepted change sets in revision order on a fresh
        repository (stock, file://) and compare the dumps."""
        rp = os.path.join(self.work, "replay")
        create_repo(rp)
        url = "file://" + rp
        must(["svnmucc", "--username", "setup", "-m", "setup", "-U", url] +
             self.setup_argv, base_env())
        for rev in sorted(self.commits):
            client, msg, ops, base = self.commits[rev]
            rc, out, err = run(["svnmucc", "--config-dir", self.cfg,
                                "--username", self.users[client], "-m", msg,
                                "-U", url] + ops, base_env())
            if rc != 0 or not re.search(rb"r%d committed" % rev, out):
                self.replay_err = "replay of r%d: %s" % (rev, err.strip())
                return False
        for rev, value in self.revprop_final.items():
            must(["svnadmin", "setrevprop", rp, "-r",
                  str(rev), "svn:log", "/dev/stdin"], base_env(),
                 input=value.encode())
        a = mask(must(["svnadmin", "dump", "-q", self.repo], base_env()))
        b = mask(must(["svnadmin", "dump", "-q", rp], base_env()))
        if a != b:
            self.replay_err = "dumps differ at byte %d" % next(
                i for i in range(min(len(a), len(b)) + 1)
                if i >= min(len(a), len(b)) or a[i] != b[i])
        return a == b


WRITE_KINDS = ("put-own", "put-shared", "copy", "propset-own",
               "propset-shared")
READ_KINDS = ("log", "export", "checkout", "update", "ls", "cat",
              "read-head")


def classify(err):
    if OUT_OF_DATE.search(err):
        return "out-of-date"
    if LOCK_ERR.search(err):
        return "lock"
    if "TIMEOUT" in err:
        return "TIMEOUT"
    return "OTHER"


def first_err(err):
    m = re.findall(r"[EW]\d{6}: [^\n]*", err)
    s = " | ".join(m[:3]) if m else err.strip()[:200]
    return s.replace("\t", " ")


def mask(dump):
    dump = DATE_RE.sub(rb"\1" + b"D" * 27 + b"\n", dump)
    return re.sub(rb"\nUUID: [-0-9a-f]+\n", b"\nUUID: U\n", dump)


def create_repo(path):
    must(["svnadmin", "create", path], base_env())
    fmt = os.path.join(path, "db", "format")
    with open(fmt) as f:
        text = f.read()
    with open(fmt, "w") as f:
        f.write(text.replace("layout sharded 1000",
                             "layout sharded %d" % SHARD))
    hook = os.path.join(path, "hooks", "pre-revprop-change")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(hook, 0o755)


def setup_change_set(users, content):
    """r1: the shared files and directories and one directory per client."""
    seed = os.path.join(content, "seed.txt")
    with open(seed, "w") as f:
        f.write("seed\n")
    os.chmod(seed, 0o644)
    ops = ["mkdir", "shared"]
    for p in SHARED_FILES + LOCK_FILES:
        ops += ["put", seed, p]
    for i in range(len(users)):
        ops += ["mkdir", "w%d" % i]
    return ops


def stock_log(repo):
    """rev -> (author, date as epoch seconds, changed paths, log message),
    read with the stock binaries."""
    import xml.etree.ElementTree as ET
    import calendar
    out = must(["svn", "log", "--xml", "-v", "file://" + repo], base_env())
    log = {}
    for e in ET.fromstring(out).findall("logentry"):
        r = int(e.get("revision"))
        author = (e.findtext("author") or "")
        d = e.findtext("date") or ""
        m = re.match(r"(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.(\d+)Z", d)
        t = calendar.timegm(tuple(int(x) for x in m.groups()[:6])) + \
            float("0." + m.group(7)) if m else 0.0
        paths = [p.text for p in e.findall("paths/path")]
        log[r] = (author, t, paths, e.findtext("msg") or "")
    return log


# ---- driver -------------------------------------------------------------------

FIELDS = ("module", "seconds", "clients", "servers_on_module",
          "commits_accepted", "revisions", "commits_lost",
          "revisions_unreported", "wrong_author", "writer_ops",
          "out_of_date", "out_of_date_unjustified", "lock_errors",
          "lock_errors_unjustified", "writer_other_errors", "locks_taken",
          "revprop_edits", "revprops_wrong", "reader_ops", "reader_errors",
          "reads_rechecked", "reads_wrong", "packs", "pack_errors",
          "packed_shards", "verify", "replay_equal", "unjustified")


def module_dirs(which):
    ours = os.environ.get("FSFS7_MODULE_DIR") or \
        os.path.join(TOP, "subversion", "libsvn_fs_fs", ".libs")
    mods = []
    if which in ("stock", "both"):
        mods.append(("stock", None))
    if which in ("fsfs7", "both"):
        if not os.path.exists(os.path.join(ours, "libsvn_fs_fs-1.so.1")):
            sys.exit("concurrency: no fsfs7 module in %s" % ours)
        mods.append(("fsfs7", ours))
    return mods


def check_prerequisites():
    missing = [p for p in ("svnserve", "svnmucc", "apache2", "setpriv")
               if not shutil.which(p, path=base_env()["PATH"])]
    if not os.path.exists("/usr/lib/apache2/modules/mod_dav_svn.so"):
        missing.append("mod_dav_svn")
    return missing


def print_figures(figs):
    print("\t".join(("figure",) + tuple(f["module"] for f in figs)))
    for k in FIELDS[1:]:
        print("\t".join([k] + [str(f[k]) for f in figs]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", default="both",
                    choices=("fsfs7", "stock", "both"))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--tsv", help="one row per client operation")
    ap.add_argument("--work", help="scratch directory (default: a temp dir)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the scratch directory")
    a = ap.parse_args(argv)
    missing = check_prerequisites()
    if missing:
        sys.exit("concurrency: missing %s" % ", ".join(missing))
    work = a.work or tempfile.mkdtemp(prefix="torture-conc-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    figs, runs = [], []
    try:
        for modname, moddir in module_dirs(a.module):
            r = Run(modname, moddir, work, a.seconds, a.clients, a.seed)
            runs.append(r)
            f = r.go()
            figs.append(f)
            print("%s: %d commits, %d reader ops, %d packs, unjustified=%d" % (
                modname, f["commits_accepted"], f["reader_ops"], f["packs"],
                f["unjustified"]), flush=True)
            for o in r.ops:
                if o["cls"] not in ("ok", "out-of-date", "lock") or \
                        (o["cls"] == "out-of-date" and not
                         r.ood_justified(o, stock_log(r.repo))):
                    print("  %s c%d %s r=%s: %s %s" % (
                        modname, o["client"], o["kind"], o["rev"], o["cls"],
                        o["err"]))
            if f["verify"] != "pass":
                print("  verify: " + r.verify_err[:500])
            if not f["replay_equal"]:
                print("  replay: " + getattr(r, "replay_err", "?"))
        print_figures(figs)
        if a.tsv:
            write_tsv(a.tsv, runs)
    finally:
        if not a.keep and not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if any(f["unjustified"] for f in figs) else 0


def write_tsv(path, runs):
    cols = ("module", "client", "proto", "kind", "t0", "t1", "rc", "rev",
            "base", "paths", "class", "detail")
    with open(path, "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in runs:
            t = r.t_start or 0
            for o in sorted(r.ops, key=lambda o: o["t0"]):
                proto = "svn" if o["client"] >= 0 and o["client"] % 2 == 0 \
                    else ("http" if o["client"] >= 0 else "local")
                f.write("\t".join(str(x) for x in (
                    r.modname, o["client"], proto, o["kind"],
                    "%.3f" % max(0, o["t0"] - t), "%.3f" % max(0, o["t1"] - t),
                    o["rc"], o["rev"], o["base"], ",".join(o["paths"]),
                    o["cls"], o["err"])) + "\n")
            f.write("\t".join(str(x) for x in (
                r.modname, "figures", "-", "-", "-", "-", "-", "-", "-", "-",
                "-", " ".join("%s=%s" % (k, r.figures[k])
                              for k in FIELDS[1:]))) + "\n")


if __name__ == "__main__":
    sys.exit(main())
