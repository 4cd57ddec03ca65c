#!/usr/bin/env python3
"""Integration test: the caches of one process must never serve one
repository's contents for another's.

A repository copied with `cp -a` keeps its uuid and (format 7+) its
instance id.  After a different commit to the same file in the original
and in the copy, one svnserve process serving both (one membuffer cache
for both) must answer each URL with that repository's own text, exactly
as the stock module does.  file:// reads (one process per command) are
compared too.

The same server also takes 16 `svn lock` / `svn unlock` requests at once
on one repository: each connection has its own svn_fs_t, all of them
share the repository's in-process write lock, and stock must then list
exactly the locks that were taken.

Everything runs on loopback: svnserve listens on 127.0.0.1 on a free port,
is killed at the end of each test, and by a watchdog after SERVE_SECONDS
whatever happens.
Tests are named test_cachekey_<what>.
"""

import os
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

S = None                 # T.Scratch of this run
SERVE_SECONDS = 120      # an svnserve left behind dies after this anyway
FORMATS = {"f6": "1.8", "f7": "1.9", "f8": None}
MINE = os.path.realpath(os.path.join(T.MODULE_DIR, "libsvn_fs_fs-1.so.1"))


def setup():
    global S
    S = T.Scratch("cachekey")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def commit_file(repo, text, msg, add):
    """Commit TEXT to t/f of REPO with the stock module (ADD: first one)."""
    wc = S.path("wc-%d" % time.monotonic_ns())
    T.stock_ok("svn", "checkout", "-q", T.url(repo), wc)
    path = os.path.join(wc, "t", "f")
    if add:
        os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(text)
    if add:
        T.stock_ok("svn", "add", "-q", os.path.join(wc, "t"))
    T.stock_ok("svn", "commit", "-q", "-m", msg, wc)


def make_pair(tag, compat):
    """ROOT/A and ROOT/B: one history, then r3 differs (the copy keeps the
    uuid and the instance id)."""
    root = S.path(tag)
    os.makedirs(root)
    a, b = os.path.join(root, "A"), os.path.join(root, "B")
    args = ["svnadmin", "create"] + (["--compatible-version", compat] if compat else []) + [a]
    T.stock_ok(*args)
    commit_file(a, "one\n", "r1", True)
    commit_file(a, "two\n", "r2", False)
    T.stock_ok("cp", "-a", a, b)
    commit_file(a, "A three\n", "r3 in A", False)
    commit_file(b, "B three, longer\n", "r3 in B", False)
    return root


class Server:
    """svnserve -d -T on ROOT (ours or stock), on a free loopback port."""

    def __init__(self, root, ours):
        self.port = free_port()
        env = T.ours_env() if ours else T.stock_env()
        if ours:
            env["LD_LIBRARY_PATH"] = T.MODULE_DIR
        cmd = ["svnserve", "-d", "--foreground",
               "-T", "-r", root, "--listen-host", "127.0.0.1",
               "--listen-port", str(self.port)]
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE,
                                     start_new_session=True)
        # Bounded even if the test hangs: killed after SERVE_SECONDS.
        self.watchdog = threading.Timer(SERVE_SECONDS, self._kill)
        self.watchdog.daemon = True
        self.watchdog.start()
        self._wait_listening()

    def _wait_listening(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise T.SetupError("svnserve exited: %s"
                                   % self.proc.stderr.read().decode(errors="replace"))
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise T.SetupError("svnserve did not listen on port %d" % self.port)

    def loaded_module(self):
        """Path of the libsvn_fs_fs the server has mapped, if any yet."""
        with open("/proc/%d/maps" % self.proc.pid) as f:
            for line in f:
                if "libsvn_fs_fs-1.so" in line:
                    return os.path.realpath(line.split()[-1])
        return None

    def url(self, repo, path):
        return "svn://127.0.0.1:%d/%s/%s" % (self.port, repo, path)

    def _kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def stop(self):
        self.watchdog.cancel()
        self._kill()
        self.proc.wait(timeout=10)
        self.proc.stderr.close()


def cat(url, ours=False):
    run = T.ours if ours else T.stock
    p = run("svn", "cat", "--non-interactive", url, timeout=60)
    return p.returncode, p.stdout, p.stderr


def make_lock_repo(tag):
    """ROOT/R with files f1..f16, writable by user u (password p)."""
    root = S.path(tag)
    os.makedirs(root)
    repo = os.path.join(root, "R")
    T.stock_ok("svnadmin", "create", repo)
    wc = S.path(tag + "-wc")
    T.stock_ok("svn", "checkout", "-q", T.url(repo), wc)
    for i in range(1, LOCKERS + 1):
        with open(os.path.join(wc, "f%d" % i), "w") as f:
            f.write("%d\n" % i)
    T.stock_ok("svn", "add", "-q", *[os.path.join(wc, "f%d" % i)
                                     for i in range(1, LOCKERS + 1)])
    T.stock_ok("svn", "commit", "-q", "-m", "files", wc)
    with open(os.path.join(repo, "conf", "svnserve.conf"), "w") as f:
        f.write("[general]\nanon-access = read\nauth-access = write\n"
                "password-db = passwd\n")
    with open(os.path.join(repo, "conf", "passwd"), "w") as f:
        f.write("[users]\nu = p\n")
    return root, repo


LOCKERS = 16


def run_parallel(argvs):
    """Run the stock client commands ARGVS all at once; their results."""
    procs = [subprocess.Popen(a, env=T.stock_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for a in argvs]
    out = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
        out.append((p.returncode, o, e))
    return out


class CacheKey(unittest.TestCase):

    def check_parallel_locks(self, ours):
        root, repo = make_lock_repo("locks-%s" % ("ours" if ours else "stock"))
        auth = ["--username", "u", "--password", "p", "--non-interactive",
                "--no-auth-cache"]
        srv = Server(root, ours)
        try:
            res = run_parallel([["svn", "lock", "-q", "-m", "l%d" % i] + auth
                                + [srv.url("R", "f%d" % i)]
                                for i in range(1, LOCKERS + 1)])
            for rc, _, err in res:
                self.assertEqual(rc, 0, err.decode(errors="replace"))
            self.assertEqual(srv.loaded_module() == MINE, ours)
            p = T.stock_ok("svnadmin", "lslocks", repo)
            paths = sorted(re.findall(rb"^Path: (\S+)$", p.stdout, re.M))
            self.assertEqual(paths, sorted(b"/f%d" % i for i in range(1, LOCKERS + 1)))
            res = run_parallel([["svn", "unlock", "-q"] + auth
                                + [srv.url("R", "f%d" % i)]
                                for i in range(1, LOCKERS + 1)])
            for rc, _, err in res:
                self.assertEqual(rc, 0, err.decode(errors="replace"))
        finally:
            srv.stop()
        self.assertEqual(T.stock_ok("svnadmin", "lslocks", repo).stdout, b"")
        T.stock_ok("svnadmin", "verify", "-q", repo)

    def test_cachekey_parallel_locks_stock(self):
        self.check_parallel_locks(False)

    def test_cachekey_parallel_locks_ours(self):
        self.check_parallel_locks(True)

    def check_svnserve(self, variant):
        root = make_pair("serve-" + variant, FORMATS[variant])
        want = {"A": b"A three\n", "B": b"B three, longer\n"}
        for ours in (False, True):
            srv = Server(root, ours)
            try:
                # Read A first (fills the caches), then B, then A again.
                for repo in ("A", "B", "A"):
                    rc, out, err = cat(srv.url(repo, "t/f@3"))
                    self.assertEqual(rc, 0, err.decode(errors="replace"))
                    self.assertEqual(out, want[repo], "%s via svn:// (%s)"
                                     % (repo, "ours" if ours else "stock"))
                    rc, out, err = cat(srv.url(repo, "t/f@2"))
                    self.assertEqual((rc, out), (0, b"two\n"), err)
                self.assertEqual(srv.loaded_module() == MINE, ours,
                                 "wrong module loaded (ours=%s)" % ours)
            finally:
                srv.stop()

    def check_file_url(self, variant):
        root = make_pair("file-" + variant, FORMATS[variant])
        for repo, text in (("A", b"A three\n"), ("B", b"B three, longer\n")):
            url = T.url(os.path.join(root, repo), "t/f") + "@3"
            self.assertEqual(cat(url)[:2], (0, text))
            self.assertEqual(cat(url, ours=True)[:2], (0, text))

    def test_cachekey_svnserve_f6(self):
        self.check_svnserve("f6")

    def test_cachekey_svnserve_f7(self):
        self.check_svnserve("f7")

    def test_cachekey_svnserve_f8(self):
        self.check_svnserve("f8")

    def test_cachekey_file_url_f6(self):
        self.check_file_url("f6")

    def test_cachekey_file_url_f7(self):
        self.check_file_url("f7")

    def test_cachekey_file_url_f8(self):
        self.check_file_url("f8")


if __name__ == "__main__":
    try:
        T.main("cachekey", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
