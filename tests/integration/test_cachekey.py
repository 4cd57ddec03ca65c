#!/usr/bin/env python3
"""Integration test: the caches of one process must never serve one
repository's contents for another's.

A repository copied with `cp -a` keeps its uuid and (format 7+) its
instance id.  After a different commit to the same file in the original
and in the copy, one svnserve process serving both (one membuffer cache
for both) must answer each URL with that repository's own text, exactly
as the stock module does.  file:// reads (one process per command) are
compared too.

Everything runs on loopback: svnserve listens on 127.0.0.1 on a free port,
is killed at the end of each test, and by a watchdog after SERVE_SECONDS
whatever happens.
Tests are named test_cachekey_<what>.
"""

import os
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


class CacheKey(unittest.TestCase):

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
                mod = srv.loaded_module()
                mine = os.path.realpath(os.path.join(T.MODULE_DIR, "libsvn_fs_fs-1.so.1"))
                if ours:
                    self.assertEqual(mod, mine, "svnserve did not load fsfs7")
                else:
                    self.assertNotEqual(mod, mine, "stock run loaded fsfs7")
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

    def test_cachekey_file_url_f7(self):
        self.check_file_url("f7")


if __name__ == "__main__":
    try:
        T.main("cachekey", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
