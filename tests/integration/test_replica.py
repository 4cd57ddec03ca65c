#!/usr/bin/env python3
"""Integration test: a replica topology on loopback (doc/deploy.md,
"Replicas").

Three private Apache servers with mod_dav_svn, each on a free loopback
port and each loading the module under test (fsfs7 or stock):

  master      /svn/repo          the repository every commit goes to;
              post-commit hook   `svnsync sync` to both replicas, one
                                 sync at a time per replica (flock), in
                                 the foreground: a commit returns once
                                 both replicas hold it
  replica 1,  /svn/repo          read-only mirror; writes are passed to
  replica 2                      the master (SVNMasterURI: write-through
                                 proxy, mod_proxy_http)
              /svn-sync/repo     the same mirror without the proxy, for
                                 svnsync only (Require ip 127.0.0.1);
                                 pre-revprop-change lets svnsync write
                                 its revision properties

The replicas have the master's UUID (clients see one repository).  The
master gets 30 revisions of the generated history, the replicas are
initialised and synced, then 8 clients (4 per replica) each check out
from their replica and commit their own file several times through it;
after each commit the client reads the file back from the other replica
and checks the log there.  At the end: no commit failed, every
revision is on both replicas, the stock dumps (r1:HEAD) of both replicas
equal the master's, and stock `svnadmin verify` accepts all three.

Variants: fsfs7 on all three servers (`make check`: 2 commits per
client); FSFS7_SLOW=1 (`make check-slow`) runs it with 10 commits per
client and adds the mixed ones, a stock master with fsfs7 replicas and
an fsfs7 master with stock replicas.
Bounded: every Apache runs under `timeout` (SERVE_SECONDS) in its own
session and is stopped at the end of its variant.
Tests are named test_replica_<variant>.
"""

import os
import pwd
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

S = None
SERVE_SECONDS = 600
CLIENTS = 8
COMMITS = 10 if T.SLOW else 2
SEED_REVS = 30
SEED = None        # stock dump of r0:SEED_REVS of the generated history


def setup():
    global S, SEED
    gen = T.reference_repos(T.Dataset("gen", T.gen_dump()))
    SEED = T.stock_ok("svnadmin", "dump", "-q", "-r", "0:%d" % SEED_REVS,
                      gen.repos["f7"]).stdout
    S = T.Scratch("replica")
    os.chmod(S.dir, 0o755)          # Apache's user reads and writes below
    for f in ("/usr/sbin/apache2", "/usr/lib/apache2/modules/mod_dav_svn.so",
              "/usr/lib/apache2/modules/mod_proxy_http.so"):
        if not os.path.exists(f):
            raise T.SetupError("%s is missing (build/setup.sh installs apache2 and "
                               "libapache2-mod-svn)" % f)
    for prog in ("svnsync", "flock"):
        if subprocess.run(["which", prog], stdout=subprocess.DEVNULL).returncode:
            raise T.SetupError("%s is missing" % prog)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_as():
    """The user Apache runs as: www-data when we are root, else us."""
    return "www-data" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name


def give_to_server(path):
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", "www-data:www-data", path], check=True)


def write_exec(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


class Apache:
    """/usr/sbin/apache2 -DFOREGROUND on a free loopback port, with the
    module of OURS (fsfs7 first in LD_LIBRARY_PATH) or stock; LOCATIONS is
    the text of its <Location> blocks."""

    MODS = ("mpm_event", "authz_core", "authz_host", "dav", "dav_svn",
            "proxy", "proxy_http")

    def __init__(self, name, ours, port):
        self.name, self.ours, self.port = name, ours, port
        self.dir = S.path("apache-" + name)
        for d in ("run", "lock", "log"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        give_to_server(self.dir)
        self.proc = None

    def url(self, location="svn"):
        return "http://127.0.0.1:%d/%s/repo" % (self.port, location)

    def start(self, locations):
        conf = os.path.join(self.dir, "apache2.conf")
        user = run_as()
        with open(conf, "w") as f:
            f.write("ServerRoot %s\nServerName 127.0.0.1\nListen 127.0.0.1:%d\n"
                    "PidFile %s/run/apache2.pid\nMutex file:%s/lock default\n"
                    "DefaultRuntimeDir %s/run\nUser %s\nGroup %s\n"
                    "ErrorLog %s/log/error.log\nLogLevel warn\n"
                    "StartServers 1\nServerLimit 2\nThreadsPerChild 16\n"
                    "MaxRequestWorkers 32\nTimeout 120\n"
                    % ((self.dir, self.port) + (self.dir,) * 3
                       + (user, user, self.dir)))
            for m in self.MODS:
                f.write("LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so\n"
                        % (m, m))
            f.write(locations)
        env = T.ours_env() if self.ours else T.stock_env()
        if self.ours:
            env["LD_LIBRARY_PATH"] = T.MODULE_DIR
        self.proc = subprocess.Popen(
            ["timeout", str(SERVE_SECONDS), "/usr/sbin/apache2", "-f", conf,
             "-DFOREGROUND"], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        # Apache that cannot start with fsfs7 loaded is a verdict; with
        # stock, a harness error.
        fail = AssertionError if self.ours else T.SetupError
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise fail("apache %s exited: %s %s" % (
                    self.name, self.proc.stderr.read().decode(errors="replace"),
                    self.error_log()))
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise fail("apache %s did not listen on %d" % (self.name, self.port))

    def modules_mapped(self):
        """{realpath of the libsvn_fs_fs each Apache process maps}."""
        found = set()
        for pid in [self.proc.pid] + descendants(self.proc.pid):
            try:
                with open("/proc/%d/maps" % pid) as f:
                    for line in f:
                        if "libsvn_fs_fs-1.so" in line:
                            found.add(os.path.realpath(line.split()[-1]))
            except OSError:
                pass
        return found

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "log", "error.log")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def stop(self):
        if not self.proc or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(10)


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
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def svn(*args, ok=True, cwd=None):
    p = T.stock("svn", "--non-interactive", "--no-auth-cache", *args, cwd=cwd)
    if ok and p.returncode != 0:
        raise AssertionError("svn %s: %s" % (" ".join(args), T.describe(p)))
    return p


def dump(repo):
    return T.stock_ok("svnadmin", "dump", "-q", "-r", "1:HEAD", repo).stdout


def youngest(repo):
    return int(T.stock_ok("svnlook", "youngest", repo).stdout)


class Topology:
    """A master and two replicas (see the module docstring) under DIR."""

    def __init__(self, tag, master_ours, replicas_ours):
        self.dir = S.path(tag)
        os.makedirs(self.dir)
        self.master = Apache(tag + "-master", master_ours, free_port())
        self.replicas = [Apache("%s-replica%d" % (tag, i + 1), replicas_ours, free_port())
                         for i in range(2)]
        self.repos = {}

    def create(self):
        m = self.repos["master"] = os.path.join(self.dir, "master")
        T.stock_ok("svnadmin", "create", m)
        p = T.stock("svnadmin", "load", "-q", "--no-flush-to-disk", m, input=SEED)
        if p.returncode:
            raise T.SetupError("stock load: " + T.describe(p))
        uuid = T.stock_ok("svnlook", "uuid", m).stdout.decode().strip()
        conf = os.path.join(self.dir, "svnsync-config")
        os.makedirs(conf)
        for i in range(2):
            r = self.repos["replica%d" % (i + 1)] = os.path.join(self.dir, "replica%d" % (i + 1))
            T.stock_ok("svnadmin", "create", r)
            T.stock_ok("svnadmin", "setuuid", r, uuid)
            # Only svnsync writes here (through /svn-sync, which only the
            # master's address may reach); a real one may also check the
            # user ($3) it authenticates as.
            write_exec(os.path.join(r, "hooks", "pre-revprop-change"), "#!/bin/sh\nexit 0\n")
        # Hooks run with an empty environment: full paths, PATH set.
        hook = ["#!/bin/sh", "# post-commit REPOS REV TXN: bring both replicas up to REV.",
                "PATH=/usr/bin:/bin; export PATH", "conf=%s" % conf]
        for k, rep in enumerate(self.replicas):
            hook.append("/usr/bin/flock %s/sync-%d.lock /usr/bin/svnsync sync --non-interactive "
                        "--no-auth-cache --config-dir \"$conf\" %s >>%s/sync-%d.log 2>&1"
                        % (self.dir, k + 1, rep.url("svn-sync"), self.dir, k + 1))
        write_exec(os.path.join(m, "hooks", "post-commit"), "\n".join(hook) + "\n")
        give_to_server(self.dir)

    def start(self):
        self.master.start("<Location /svn/repo>\n  DAV svn\n  SVNPath %s\n</Location>\n"
                          % self.repos["master"])
        for k, rep in enumerate(self.replicas):
            path = self.repos["replica%d" % (k + 1)]
            rep.start("<Location /svn/repo>\n  DAV svn\n  SVNPath %s\n"
                      "  SVNMasterURI %s\n</Location>\n"
                      "<Location /svn-sync/repo>\n  DAV svn\n  SVNPath %s\n"
                      "  Require ip 127.0.0.1\n</Location>\n"
                      % (path, self.master.url(), path))

    def stop(self):
        for a in [self.master] + self.replicas:
            a.stop()

    def sync_logs(self):
        """The end of what the post-commit hook's svnsync runs printed."""
        out = []
        for k in (1, 2):
            try:
                with open(os.path.join(self.dir, "sync-%d.log" % k), errors="replace") as f:
                    out.append("sync to replica%d: %s" % (k, f.read()[-1500:]))
            except OSError:
                pass
        return "\n".join(out)

    def sync_all(self):
        """The administrator's first sync (later ones: the hook)."""
        for rep in self.replicas:
            p = T.stock("svnsync", "init", "--non-interactive", rep.url("svn-sync"),
                        self.master.url())
            if p.returncode:
                raise AssertionError("svnsync init: " + T.describe(p))
            p = T.stock("svnsync", "sync", "--non-interactive", rep.url("svn-sync"))
            if p.returncode:
                raise AssertionError("svnsync sync: " + T.describe(p))


def client(topo, i, wcroot, errors, reads):
    """Client I: check out from its replica, commit its own file COMMITS
    times through it, read each commit back from the other replica."""
    mine, other = topo.replicas[i % 2], topo.replicas[(i + 1) % 2]
    wc = os.path.join(wcroot, "wc%d" % i)
    name = "clients/c%d.txt" % i
    try:
        svn("checkout", "-q", mine.url(), wc)
        path = os.path.join(wc, name)
        text = b""
        for k in range(COMMITS):
            text += b"client %d commit %d\n" % (i, k)
            with open(path, "wb") as f:
                f.write(text)
            if k == 0:
                svn("add", "-q", path)
            svn("commit", "-q", "-m", "client %d commit %d" % (i, k), wc)
            got = svn("cat", other.url() + "/" + name).stdout
            if got != text:
                errors.append("client %d commit %d: the other replica has %r"
                              % (i, k, got[-60:]))
            log = svn("log", "-q", "-l", "1", other.url() + "/" + name).stdout
            if not re.search(rb"^r\d+ \| ", log, re.M):
                errors.append("client %d: no log entry on the other replica: %r" % (i, log))
            reads.append(1)
            svn("update", "-q", wc)
    except AssertionError as e:
        errors.append("client %d: %s" % (i, e))


def check_topology(tc, tag, master_ours, replicas_ours):
    topo = Topology(tag, master_ours, replicas_ours)
    topo.create()
    topo.start()
    try:
        topo.sync_all()
        svn("mkdir", "-q", "-m", "clients", topo.replicas[0].url() + "/clients")
        wcroot = os.path.join(topo.dir, "wcs")
        os.makedirs(wcroot)
        errors, reads = [], []
        threads = [threading.Thread(target=client, args=(topo, i, wcroot, errors, reads))
                   for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        mapped = {a.name: a.modules_mapped() for a in [topo.master] + topo.replicas}
    finally:
        topo.stop()
    logs = "\n".join("%s: %s" % (a.name, a.error_log()) for a in [topo.master] + topo.replicas)
    logs += "\n" + topo.sync_logs()
    tc.assertEqual(errors, [], "clients failed:\n%s\n%s" % ("\n".join(errors[:5]), logs))
    for a in [topo.master] + topo.replicas:
        want = os.path.realpath(os.path.join(T.MODULE_DIR, "libsvn_fs_fs-1.so.1")) \
            if a.ours else None
        got = mapped[a.name]
        tc.assertTrue(got, "%s mapped no libsvn_fs_fs" % a.name)
        if want:
            tc.assertEqual(got, {want}, "%s: modules mapped" % a.name)
        else:
            tc.assertNotIn(os.path.realpath(os.path.join(T.MODULE_DIR, "libsvn_fs_fs-1.so.1")),
                           got, "%s should run stock" % a.name)
    head = youngest(topo.repos["master"])
    tc.assertEqual(head, SEED_REVS + 1 + CLIENTS * COMMITS, "revisions on the master")
    want = dump(topo.repos["master"])
    for name in ("replica1", "replica2"):
        repo = topo.repos[name]
        tc.assertEqual(youngest(repo), head, "%s youngest\n%s" % (name, logs))
        got = dump(repo)
        tc.assertTrue(got == want, "%s: dump differs from the master's: %s"
                      % (name, T.first_diff(want, got)))
    for name, repo in sorted(topo.repos.items()):
        p = T.stock("svnadmin", "verify", "-q", repo)
        tc.assertEqual(p.returncode, 0, "stock verify of %s: %s" % (name, T.describe(p)))
    T.log("%s: %d commits by %d clients, %d read-backs from the other replica; "
          "r%d on all three, dumps identical, stock verify OK"
          % (tag, CLIENTS * COMMITS, CLIENTS, len(reads), head))


class Replica(unittest.TestCase):
    @T.topology
    def test_replica_fsfs7_everywhere(self):
        check_topology(self, "all-fsfs7", True, True)

    @unittest.skipUnless(T.SLOW, "slow check: FSFS7_SLOW=1 (make check-slow)")
    def test_replica_stock_master_fsfs7_replicas(self):
        check_topology(self, "stock-master", False, True)

    @unittest.skipUnless(T.SLOW, "slow check: FSFS7_SLOW=1 (make check-slow)")
    def test_replica_fsfs7_master_stock_replicas(self):
        check_topology(self, "fsfs7-master", True, False)


if __name__ == "__main__":
    try:
        T.main("replica", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
