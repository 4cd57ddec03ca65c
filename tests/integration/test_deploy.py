#!/usr/bin/env python3
"""Integration test: real deployments (README, "Install and switch a
server"; fsfs7-enable(8), fsfs7-check(8)).

`make deb` builds the package, which is unpacked with `dpkg -x` into a
scratch root (and `make install DESTDIR=` into another); the unpacked
fsfs7-enable/-disable/-check find the module under that root.  Then:

- the package's control data: Depends on libsvn1 of this Subversion
  release and what fsfs7-rebuild builds with, a libsvn1 file trigger;
  the module behind the switch fsfs7-rebuild sets; its preinst refuses a
  libsvn1 of another release (a stand-in dpkg-query says which);
- refusals: fsfs7-enable with a built-for naming another libsvn1 changes
  nothing; the module's svn_fs_fs__init, called directly (ctypes), refuses
  a libsvn_fs of another release, and a libsvn_subr of another release
  (an LD_PRELOADed svn_subr_version), with E200019 naming both versions;
- a private Apache (own ServerRoot and APACHE_CONFDIR, event MPM,
  mod_dav_svn, Basic auth, a free loopback port) started on stock and
  switched by `fsfs7-enable apache2` (a LoadFile in mods-enabled/, a
  graceful restart, /proc/PID/maps checked; a configuration that fails
  apache2ctl's test leaves Apache as it was and the LoadFile out), and a
  threaded svnserve (-T) started with the
  environment of the drop-in `fsfs7-enable svnserve` wrote; checkout,
  commit, propset, lock, log over http://, svnsync from the http://
  repository to the svn:// one, equal stock dumps, stock verify; every
  server process maps our module;
- `fsfs7-disable` both: Apache restarted gracefully on stock by the
  command itself while a request is in progress (`--drain` waits for
  the previous generation serving it; the request is then answered in
  full), svnserve restarted without the drop-in; the same repositories
  take a commit and a sync on stock, dumps still equal;
- the package's documentation: manual pages (gzipped, paths filled in,
  fsfs7-disable(8) a link), copyright (DEP-5) and changelog.Debian.gz
  (its version the package's); `--help` of every command exits 0;
- svnserve without systemd: fsfs7-enable/-disable change nothing, print
  the daemon, inetd and init-script lines and exit 3; --print-env;
- fsfs7-check svnserve reports each process (PID, user, port, root,
  module) and fails when one of them runs stock; fsfs7-check --txns lists
  a transaction left behind, by age, until svnadmin rmtxns removes it;
- svnserve run the three ways: the drop-in's environment (systemd), a
  daemon started by a script with the printed setting, and a stand-in
  inetd running the printed inetd.conf line per connection, beside a
  stock daemon; fsfs7-check --port / --root / PID picks each one out;
- switching under load, 4 clients committing (doc/deploy.md): Apache
  switched to fsfs7 and back by the commands, the inetd line switched to
  fsfs7 and back; no commit fails, every acknowledged commit is there, no
  transaction is left, the processes after each switch map the wanted
  module.

Bounded: every server runs under a watchdog that kills it after
SERVE_SECONDS even if this script dies; loopback only.
Tests are named test_deploy_<what>.
"""

import base64
import glob
import gzip
import hashlib
import os
import pwd
import re
import shutil
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
ROOT = None              # the package unpacked with dpkg -x
SERVE_SECONDS = 300      # a server left behind dies after this anyway
USER, PASSWORD = "u", "p"
LIBSVN1 = None           # the installed libsvn1 version
TXN_TOOL = os.path.join(T.TOP_BUILDDIR, "tests", "integration", "txn_tool")


def sh(args, env=None, ok=True, timeout=120, input=None):
    """Run ARGS (stock environment); a CompletedProcess with str output."""
    e = T.stock_env()
    e.pop("MAKEFLAGS", None)      # a sub-make must not look for make check's jobserver
    e["PATH"] = e.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"   # apache2ctl
    e.update(env or {})
    p = subprocess.run(args, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, input=input, text=True)
    if ok and p.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s%s" % (" ".join(args), p.returncode,
                                                       p.stdout, p.stderr))
    return p


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, alive=lambda: True, what="server"):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if not alive():
            raise AssertionError("%s exited" % what)
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("%s did not listen on port %d" % (what, port))


def watchdog(kill_cmd):
    """A detached shell that runs KILL_CMD after SERVE_SECONDS, even if
    this script is killed; returns its Popen (kill it when done)."""
    return subprocess.Popen(["sh", "-c", "sleep %d; %s" % (SERVE_SECONDS, kill_cmd)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def tool(name):
    return os.path.join(ROOT, "usr", "bin", name)


def moddir():
    return os.path.join(ROOT, "usr", "lib", "fsfs7")


def no_systemd():
    """Environment in which the commands see no systemd."""
    return {"FSFS7_SYSTEMD_RUN": S.path("no-such-dir"), "FSFS7_SYSTEMD_DIR": S.path("sysd-none")}


def mine():
    return os.path.realpath(os.path.join(ROOT, "usr", "lib", "fsfs7", "libsvn_fs_fs-1.so.1"))


def mapped(pid):
    """The realpath of the libsvn_fs_fs PID has mapped, or None."""
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            if "libsvn_fs_fs-1.so" in line:
                return os.path.realpath(line.split()[-1])
    return None


def mapped_all(pid):
    """The realpaths of every libsvn_fs_fs PID has mapped (one when only
    one module is loaded)."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return sorted({os.path.realpath(line.split()[-1]) for line in f
                           if "libsvn_fs_fs-1.so" in line})
    except FileNotFoundError:           # it has exited meanwhile
        return None


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


def serving(conn, pids):
    """Which of PIDS holds the server's end of the loopback TCP
    connection CONN (its socket inode, from /proc/net/tcp)."""
    mine_, peer = conn.getsockname()[1], conn.getpeername()[1]
    with open("/proc/net/tcp") as f:
        rows = [r.split() for r in f.read().splitlines()[1:]]
    inode = next(r[9] for r in rows if int(r[1].split(":")[1], 16) == peer
                 and int(r[2].split(":")[1], 16) == mine_)
    for pid in pids:
        try:
            fds = os.listdir("/proc/%d/fd" % pid)
            if any(os.readlink("/proc/%d/fd/%s" % (pid, fd)) == "socket:[%s]" % inode
                   for fd in fds):
                return pid
        except OSError:
            continue
    raise AssertionError("no process serves the connection from port %d" % mine_)


def children(pid):
    out = []
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(st) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(st.split("/")[2]))
    return out


# ---- the servers ----------------------------------------------------------

class Apache:
    """A private Apache: APACHE_CONFDIR=DIR with its own envvars and
    apache2.conf, run by apache2ctl -k (as the enable command does)."""

    def __init__(self, parent, name="apache2"):
        self.dir = S.path(name)
        self.port = free_port()
        for d in ("run", "lock", "log"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        runas = "www-data" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        with open(os.path.join(self.dir, "envvars"), "w") as f:
            f.write("unset HOME\n"
                    "export APACHE_RUN_USER=%s\nexport APACHE_RUN_GROUP=%s\n"
                    "export APACHE_PID_FILE=%s/run/apache2.pid\n"
                    "export APACHE_RUN_DIR=%s/run\nexport APACHE_LOCK_DIR=%s/lock\n"
                    "export APACHE_LOG_DIR=%s/log\nexport LANG=C\n"
                    % ((runas, runas) + (self.dir,) * 4))
        digest = base64.b64encode(hashlib.sha1(PASSWORD.encode()).digest()).decode()
        with open(os.path.join(self.dir, "htpasswd"), "w") as f:
            f.write("%s:{SHA}%s\n" % (USER, digest))
        mods = ["mpm_event", "authz_core", "authn_core", "authn_file", "auth_basic",
                "authz_user", "dav", "dav_svn"]
        with open(os.path.join(self.dir, "apache2.conf"), "w") as f:
            f.write("ServerRoot %s\nServerName 127.0.0.1\nListen 127.0.0.1:%d\n"
                    "PidFile ${APACHE_PID_FILE}\nMutex file:${APACHE_LOCK_DIR} default\n"
                    "DefaultRuntimeDir ${APACHE_RUN_DIR}\n"
                    "User ${APACHE_RUN_USER}\nGroup ${APACHE_RUN_GROUP}\n"
                    "ErrorLog ${APACHE_LOG_DIR}/error.log\nLogLevel warn\n"
                    "StartServers 1\nServerLimit 4\nThreadsPerChild 8\n"
                    "MaxRequestWorkers 16\nTimeout 60\n"
                    % (self.dir, self.port))
            # As Debian's apache2.conf: mods-enabled/*.load, where
            # fsfs7-enable puts its LoadFile, before the modules.
            f.write("IncludeOptional %s/mods-enabled/*.load\n" % self.dir)
            for m in mods:
                f.write("LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so\n" % (m, m))
            f.write("<Location /svn>\n  DAV svn\n  SVNParentPath %s\n"
                    "  AuthType Basic\n  AuthName fsfs7\n  AuthUserFile %s/htpasswd\n"
                    "  Require valid-user\n</Location>\n" % (parent, self.dir))
        self.env = {"APACHE_CONFDIR": self.dir}
        self.pidfile = os.path.join(self.dir, "run", "apache2.pid")
        # Kills whichever Apache the pid file names by then (restarts
        # replace it).
        self.dog = watchdog("p=$(cat %s); kill -TERM $p; sleep 5; kill -KILL $p"
                            % self.pidfile)

    def start(self):
        sh(["apache2ctl", "-k", "start"], env=self.env)
        self.wait()

    def wait(self):
        deadline = time.monotonic() + 20
        while not os.path.exists(self.pidfile) and time.monotonic() < deadline:
            time.sleep(0.1)
        wait_listening(self.port, what="apache2")

    def pid(self):
        with open(self.pidfile) as f:
            return int(f.read())

    def url(self, repo, path=""):
        return "http://127.0.0.1:%d/svn/%s%s" % (self.port, repo, "/" + path if path else "")

    def stop(self):
        try:
            pid = self.pid()
        except (OSError, ValueError):
            pid = None
        sh(["apache2ctl", "-k", "stop"], env=self.env, ok=False)
        deadline = time.monotonic() + 10
        while pid and os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if pid and os.path.exists("/proc/%d" % pid):
            os.kill(pid, signal.SIGKILL)

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "log", "error.log")) as f:
                return f.read()[-3000:]
        except OSError:
            return ""


class Svnserve:
    """svnserve -d -T on ROOT, with the environment of the systemd drop-in
    DROPIN (its Environment= lines) when given: what systemd would run;
    ENV adds to the environment, PREFIX (e.g. setpriv ...) runs before
    svnserve."""

    def __init__(self, root, dropin=None, env=None, prefix=()):
        self.port = free_port()
        e = T.stock_env()
        if dropin:
            with open(dropin) as f:
                for line in f:
                    m = re.match(r"\s*Environment=(\w+)=(.*)", line)
                    if m:
                        e[m.group(1)] = m.group(2).strip()
        e.update(env or {})
        self.env = e
        self.proc = subprocess.Popen(
            ["timeout", "-s", "KILL", str(SERVE_SECONDS)] + list(prefix) +
            ["svnserve", "-d", "--foreground",
             "-T", "-r", root, "--listen-host", "127.0.0.1", "--listen-port", str(self.port)],
            env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        wait_listening(self.port, lambda: self.proc.poll() is None, "svnserve")

    def pid(self):
        kids = children(self.proc.pid)     # timeout's child is svnserve
        return kids[0]

    def url(self, repo, path=""):
        return "svn://127.0.0.1:%d/%s%s" % (self.port, repo, "/" + path if path else "")

    def stop(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)
        self.proc.stderr.close()


# ---- set-up -----------------------------------------------------------------

def setup():
    global S, ROOT, LIBSVN1
    S = T.Scratch("deploy")
    os.chmod(S.dir, 0o755)           # Apache's user reads the module here
    for prog in ("apache2ctl", "svnserve", "dpkg-deb", "svnsync"):
        if not shutil.which(prog, path=os.environ.get("PATH", "") + ":/usr/sbin"):
            raise T.SetupError("%s is missing (build/setup.sh installs it)" % prog)
    if not os.path.exists("/usr/lib/apache2/modules/mod_dav_svn.so"):
        raise T.SetupError("mod_dav_svn is missing (libapache2-mod-svn; build/setup.sh)")
    LIBSVN1 = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libsvn1"],
                             stdout=subprocess.PIPE, text=True).stdout.strip()
    p = sh(["make", "-s", "-C", T.TOP_BUILDDIR, "deb",
            "DEB_OUT=" + S.path("deb"), "DEB_ROOT=" + S.path("deb-root")], ok=False, timeout=600)
    if p.returncode != 0:
        raise T.SetupError("make deb failed:\n%s%s" % (p.stdout, p.stderr))
    debs = glob.glob(S.path("deb", "fsfs7_*.deb"))
    if len(debs) != 1:
        raise T.SetupError("make deb made %r" % debs)
    ROOT = S.path("root")
    subprocess.run(["dpkg", "-x", debs[0], ROOT], check=True)
    subprocess.run(["dpkg-deb", "-e", debs[0], S.path("control")], check=True)
    os.chmod(ROOT, 0o755)
    # The switch (usr/lib/fsfs7/current), set as the postinst sets it.
    src = glob.glob(os.path.join(ROOT, "usr/src/fsfs7-*.tar.xz"))
    p = sh([os.path.join(ROOT, "usr/sbin/fsfs7-rebuild"), "--no-restart"], ok=False,
           env={"FSFS7_LIBDIR": os.path.join(ROOT, "usr/lib/fsfs7"),
                "FSFS7_STATE": S.path("fsfs7-state"), "FSFS7_SRC": src[0] if src else ""})
    if p.returncode != 0:
        raise T.SetupError("fsfs7-rebuild in the unpacked package:\n%s%s" % (p.stdout, p.stderr))


def make_repos():
    """PARENT/H (served by Apache) and SVNROOT/S (svnserve, a sync target)."""
    parent, svnroot = S.path("http-repos"), S.path("svn-repos")
    os.makedirs(parent)
    os.makedirs(svnroot)
    h, s = os.path.join(parent, "H"), os.path.join(svnroot, "S")
    T.stock_ok("svnadmin", "create", h)
    T.stock_ok("svnadmin", "create", s)
    T.allow_revprop_changes(s)
    with open(os.path.join(s, "conf", "svnserve.conf"), "w") as f:
        f.write("[general]\nanon-access = read\nauth-access = write\npassword-db = passwd\n")
    with open(os.path.join(s, "conf", "passwd"), "w") as f:
        f.write("[users]\n%s = %s\n" % (USER, PASSWORD))
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", "www-data:www-data", parent], check=True)
    return parent, h, svnroot, s


AUTH = ["--non-interactive", "--no-auth-cache", "--username", USER, "--password", PASSWORD]


def svn(*args):
    return sh(["svn"] + list(args) + AUTH).stdout


def dump(repo):
    """Stock dump of r1:HEAD without the UUID (the sync target has its own)."""
    p = T.stock_ok("svnadmin", "dump", "-q", "-r", "1:HEAD", repo)
    return re.sub(rb"\nUUID: [-0-9a-f]+\n", b"\n", p.stdout)


# ---- tests --------------------------------------------------------------------

class Deploy(unittest.TestCase):

    def test_deploy_package(self):
        """Layout (the module of this libsvn1 behind the switch), the
        libsvn1 dependency and trigger, preinst refusal of another release."""
        lib = os.path.join(ROOT, "usr/lib/fsfs7")
        self.assertTrue(os.path.isfile(os.path.join(lib, "libsvn_fs_fs-1.so.1")))
        self.assertEqual(os.readlink(os.path.join(lib, "current")), LIBSVN1)
        self.assertEqual(os.readlink(os.path.join(lib, "libsvn_fs_fs-1.so.1")),
                         "current/libsvn_fs_fs-1.so.1")
        for n in ("fsfs7-run", "fsfs7-enable", "fsfs7-disable", "fsfs7-check"):
            self.assertTrue(os.access(tool(n), os.X_OK), n)
        self.assertTrue(os.access(os.path.join(ROOT, "usr/sbin/fsfs7-rebuild"), os.X_OK))
        self.assertEqual(len(glob.glob(os.path.join(ROOT, "usr/src/fsfs7-*.tar.xz"))), 1)
        with open(S.path("control", "control")) as f:
            control = f.read()
        dep = re.search(r"^Depends: (.*)$", control, re.M).group(1)
        minor = ".".join(LIBSVN1.split(".")[:2])
        self.assertIn("libsvn1 (>= %s), libsvn1 (<< %s.%d~)"
                      % (minor, minor.split(".")[0], int(minor.split(".")[1]) + 1), dep)
        self.assertIn("libsvn-dev", dep)
        with open(S.path("control", "triggers")) as f:
            self.assertRegex(f.read(), r"^interest-noawait /usr/lib/[^/]+/libsvn_fs-1\.so\.1$")
        with open(S.path("control", "conffiles")) as f:
            self.assertEqual(f.read().split(), ["/etc/dpkg/dpkg.cfg.d/fsfs7"])
        preinst = S.path("control", "preinst")
        self.assertEqual(sh(["sh", preinst, "install"], ok=False).returncode, 0)
        fake = S.path("fake-bin")
        os.makedirs(fake, exist_ok=True)
        for other, code in (("%s.1" % LIBSVN1, 0), ("1.15.0-1", 1)):
            with open(os.path.join(fake, "dpkg-query"), "w") as f:
                f.write("#!/bin/sh\necho '%s'\n" % other)
            os.chmod(os.path.join(fake, "dpkg-query"), 0o755)
            p = sh(["sh", preinst, "install"], ok=False,
                   env={"PATH": fake + ":" + os.environ["PATH"]})
            self.assertEqual(p.returncode, code, p.stderr)
        self.assertIn("built for libsvn1 %s" % LIBSVN1, p.stderr)
        self.assertIn("libsvn1 1.15.0-1 is installed", p.stderr)
        # The unpacked fsfs7-run finds the module under its own root.
        p = sh([tool("fsfs7-run"), "svnadmin", "--version"])
        self.assertIn("fsfs7", p.stdout)

    def test_deploy_package_docs(self):
        """Manual pages (gzipped, installed paths filled in, fsfs7-disable(8)
        a link), /usr/share/doc/fsfs7/copyright and changelog.Debian.gz."""
        man = os.path.join(ROOT, "usr", "share", "man")
        pages = {"man8/fsfs7-enable.8.gz": "FSFS7-ENABLE 8",
                 "man8/fsfs7-check.8.gz": "FSFS7-CHECK 8",
                 "man1/fsfs7-run.1.gz": "FSFS7-RUN 1"}
        for page, th in pages.items():
            path = os.path.join(man, page)
            self.assertTrue(os.path.isfile(path), page)
            with gzip.open(path, "rt") as f:
                text = f.read()
            self.assertIn(".TH %s " % th, text)
            self.assertNotIn("%", text.replace("%%", ""), page)   # templates filled
            self.assertRegex(text, r"\.SH (EXIT STATUS|SEE ALSO)")
            if page != "man1/fsfs7-run.1.gz":
                self.assertIn("/usr/lib/fsfs7", text)
            if shutil.which("groff"):
                g = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=text,
                                   stderr=subprocess.PIPE, text=True)
                self.assertEqual(g.stderr, "", page)
        link = os.path.join(man, "man8", "fsfs7-disable.8.gz")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.readlink(link), "fsfs7-enable.8.gz")
        with gzip.open(os.path.join(man, "man8", "fsfs7-enable.8.gz"), "rt") as f:
            enable = f.read()
        for section in ("SWITCHING UNDER LOAD", "SVNSERVE WITHOUT SYSTEMD", "svnadmin rmtxns",
                        "svnserve \\-i", "\\-\\-drain", "\\-\\-print\\-env"):
            self.assertIn(section, enable)

        doc = os.path.join(ROOT, "usr", "share", "doc", "fsfs7")
        with open(os.path.join(doc, "copyright")) as f:
            copyright = f.read()
        self.assertTrue(copyright.startswith(
            "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        for field in ("Upstream-Name: fsfs7", "Files: *", "Copyright: ", "License: "):
            self.assertIn("\n" + field, copyright)
        changelog = S.path("changelog.Debian")
        with gzip.open(os.path.join(doc, "changelog.Debian.gz"), "rb") as f, \
                open(changelog, "wb") as out:
            out.write(f.read())
        with open(S.path("control", "control")) as f:
            version = re.search(r"^Version: (.*)$", f.read(), re.M).group(1)
        if shutil.which("dpkg-parsechangelog"):
            p = sh(["dpkg-parsechangelog", "-l", changelog, "-S", "Version"])
            self.assertEqual(p.stdout.strip(), version)
        with open(changelog) as f:
            self.assertTrue(f.readline().startswith("fsfs7 (%s) " % version))

    def test_deploy_help(self):
        """--help exits 0 with the usage on stdout for every command;
        no argument or an unknown option is a usage error (2)."""
        for name in ("fsfs7-enable", "fsfs7-disable", "fsfs7-check", "fsfs7-run"):
            for flag in ("--help", "-h"):
                p = sh([tool(name), flag], ok=False)
                self.assertEqual(p.returncode, 0, "%s %s: %s" % (name, flag, p.stderr))
                self.assertIn("usage: %s" % name, p.stdout)
                self.assertIn("(%s)" % ("1" if name == "fsfs7-run" else "8"), p.stdout)
        for name in ("fsfs7-enable", "fsfs7-disable", "fsfs7-check"):
            for args in ([], ["--no-such-option", "svnserve"], ["httpd"]):
                p = sh([tool(name)] + args, ok=False, env=no_systemd())
                self.assertEqual(p.returncode, 2, "%s %s" % (name, args))
                self.assertIn("usage:", p.stderr)
        p = sh([tool("fsfs7-enable"), "--drain", "soon", "apache2"], ok=False)
        self.assertEqual(p.returncode, 2)

    def test_deploy_svnserve_without_systemd(self):
        """No systemd: enable and disable change nothing, say what to do
        for svnserve -d, inetd -i and an init script, and exit 3."""
        env = no_systemd()
        mod = moddir()
        for cmd in (["fsfs7-enable", "svnserve"], ["fsfs7-enable", "--no-restart", "svnserve"]):
            p = sh([tool(cmd[0])] + cmd[1:], ok=False, env=env)
            self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
            self.assertIn("NOT switched", p.stderr)
            self.assertIn("LD_LIBRARY_PATH=%s svnserve -d" % mod, p.stderr)
            self.assertIn("env LD_LIBRARY_PATH=%s /usr/bin/svnserve -i" % mod, p.stderr)
            self.assertIn("export LD_LIBRARY_PATH=%s" % mod, p.stderr)
            self.assertIn("svnadmin rmtxns", p.stderr)
            self.assertFalse(os.path.exists(env["FSFS7_SYSTEMD_DIR"]))
        p = sh([tool("fsfs7-disable"), "svnserve"], ok=False, env=env)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("without %s in LD_LIBRARY_PATH" % mod, p.stderr)
        p = sh([tool("fsfs7-enable"), "--print-env"], env=env)
        self.assertEqual(p.stdout, "LD_LIBRARY_PATH=%s\n" % mod)
        # The printed setting loads fsfs7.
        q = sh(["env", p.stdout.strip(), "svnadmin", "--version"])
        self.assertIn("fsfs7", q.stdout)
        # systemd running but not to be called (FSFS7_SYSTEMD_DIR): the
        # drop-in is written, the restart left to the admin: exit 3.
        run = S.path("systemd-run-fake")
        os.makedirs(run, exist_ok=True)
        sysd = S.path("sysd-written")
        p = sh([tool("fsfs7-enable"), "svnserve"], ok=False,
               env={"FSFS7_SYSTEMD_RUN": run, "FSFS7_SYSTEMD_DIR": sysd})
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertTrue(os.path.isfile(os.path.join(sysd, "svnserve.service.d", "fsfs7.conf")))
        self.assertIn("restart svnserve.service yourself", p.stderr)

    def test_deploy_check_each_process(self):
        """fsfs7-check svnserve: a line per process with PID, user and
        module; exit 1 while one runs stock, 0 when all it sees run fsfs7."""
        root = S.path("check-repos")
        os.makedirs(root)
        T.stock_ok("svnadmin", "create", os.path.join(root, "R"))
        os.chmod(S.dir, 0o755)
        ours_srv = Svnserve(root, env={"LD_LIBRARY_PATH": moddir()})
        runas = ["setpriv", "--reuid=www-data", "--regid=www-data", "--clear-groups"] \
            if os.geteuid() == 0 else []
        stock_srv = Svnserve(root, prefix=runas)
        try:
            o, st = ours_srv.pid(), stock_srv.pid()
            me = pwd.getpwuid(os.geteuid()).pw_name
            p = sh([tool("fsfs7-check"), "svnserve"], ok=False)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertRegex(p.stdout, r"(?m)^svnserve pid %d \(user %s, port %d, root %s\): "
                             r"fsfs7 \(%s/" % (o, re.escape(me), ours_srv.port,
                                               re.escape(root), re.escape(moddir())))
            self.assertRegex(p.stdout, r"(?m)^svnserve pid %d \(user %s, port %d, root %s\): "
                             r"stock \(/" % (st, "www-data" if runas else re.escape(me),
                                             stock_srv.port, re.escape(root)))
            self.assertRegex(p.stdout, r"(?m)^svnserve: \d+ of \d+ processes do not run fsfs7$")
            p = sh([tool("fsfs7-check"), str(st)], ok=False)
            self.assertEqual(p.returncode, 1, p.stdout)
            # Only the fsfs7 one running (other svnserves of this host
            # hidden by a pidof that knows only ours): exit 0.
            fake = S.path("fake-pidof")
            os.makedirs(fake, exist_ok=True)
            with open(os.path.join(fake, "pidof"), "w") as f:
                f.write("#!/bin/sh\necho %d\n" % o)
            os.chmod(os.path.join(fake, "pidof"), 0o755)
            p = sh([tool("fsfs7-check"), "svnserve"], ok=False,
                   env={"PATH": fake + ":" + os.environ["PATH"]})
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertEqual(p.stdout.count("\n"), 1, p.stdout)
            with open(os.path.join(fake, "pidof"), "w") as f:
                f.write("#!/bin/sh\necho %d %d\n" % (o, st))
            p = sh([tool("fsfs7-check"), "svnserve"], ok=False,
                   env={"PATH": fake + ":" + os.environ["PATH"]})
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("svnserve: 1 of 2 processes do not run fsfs7", p.stdout)
        finally:
            ours_srv.stop()
            stock_srv.stop()

    def test_deploy_svnserve_run_modes(self):
        """svnserve run the three ways Debian admins run it, each with the
        setting fsfs7-enable prints: a daemon started by a script
        (svnserve -d, its own pid file), inetd (svnserve -i per
        connection, started by a stand-in inetd from the very inetd.conf
        line printed) and, beside them, a stock daemon.  Each commits;
        fsfs7-check tells them apart by port, root and PID, not by name."""
        p = sh([tool("fsfs7-enable"), "svnserve"], ok=False, env=no_systemd())
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        printed = p.stderr
        setting = sh([tool("fsfs7-enable"), "--print-env"], env=no_systemd()).stdout.strip()
        inetd_line = next(ln.strip() for ln in printed.splitlines()
                          if ln.strip().startswith("svn stream tcp nowait"))
        roots = {}
        for name in ("daemon", "stockd", "inetd"):
            roots[name] = S.path("modes-" + name)
            os.makedirs(roots[name])
            repo = os.path.join(roots[name], "R")
            T.stock_ok("svnadmin", "create", repo)
            with open(os.path.join(repo, "conf", "svnserve.conf"), "w") as f:
                f.write("[general]\nanon-access = write\n")
        ports = {name: free_port() for name in roots}
        pidfiles = {name: S.path("modes-%s.pid" % name) for name in ("daemon", "stockd")}
        # The init-script way: export the printed setting, start the daemon.
        script = S.path("modes-start.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\nexport %s\nexec svnserve -d -r %s --listen-host 127.0.0.1 "
                    "--listen-port %d --pid-file %s\n"
                    % (setting, roots["daemon"], ports["daemon"], pidfiles["daemon"]))
        os.chmod(script, 0o755)
        dogs = []
        inetd = None
        try:
            sh([script])
            sh(["svnserve", "-d", "-r", roots["stockd"], "--listen-host", "127.0.0.1",
                "--listen-port", str(ports["stockd"]), "--pid-file", pidfiles["stockd"]])
            for name in ("daemon", "stockd"):
                wait_listening(ports[name], what="svnserve " + name)
                dogs.append(watchdog("kill -KILL $(cat %s)" % pidfiles[name]))
            # inetd: "service socktype proto wait user server-path argv...".
            fields = inetd_line.split()
            self.assertEqual(fields[:5], ["svn", "stream", "tcp", "nowait", "svn"], inetd_line)
            inetd, _, _ = start_inetd(ports["inetd"],
                                      inetd_line.replace(" /srv/svn", " " + roots["inetd"]),
                                      "modes")
            for name in roots:
                svn("mkdir", "-m", "by " + name,
                    "svn://127.0.0.1:%d/R/%s" % (ports[name], name))
                self.assertEqual(T.stock_ok("svnlook", "youngest",
                                            os.path.join(roots[name], "R")).stdout, b"1\n")
            pids = {}
            for name in pidfiles:
                with open(pidfiles[name]) as f:
                    pids[name] = int(f.read())
            self.assertEqual(mapped(pids["daemon"]), mine())
            self.assertNotEqual(mapped(pids["stockd"]), mine())
            check = [tool("fsfs7-check")]
            for args, rc, want in (
                    (["--port", str(ports["daemon"]), "svnserve"], 0, "daemon"),
                    (["--root", roots["daemon"], "svnserve"], 0, "daemon"),
                    ([str(pids["daemon"])], 0, "daemon"),
                    (["--port", str(ports["stockd"]), "svnserve"], 1, "stockd"),
                    (["--root", roots["stockd"], "svnserve"], 1, "stockd")):
                p = sh(check + args, ok=False)
                self.assertEqual(p.returncode, rc, "%s: %s" % (args, p.stdout))
                self.assertEqual(p.stdout.count(" pid "), 1, p.stdout)
                self.assertRegex(p.stdout, r"^svnserve pid %d \(user [^,]*, port %d, root %s\): %s"
                                 % (pids[want], ports[want], re.escape(roots[want]),
                                    "fsfs7" if rc == 0 else "stock"))
            # inetd: nothing runs between connections; during one, the
            # svnserve -i inetd started, found through inetd's port.
            p = sh(check + ["--port", str(ports["inetd"]), "svnserve"], ok=False)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("svnserve: not running", p.stdout)
            conn = open_session(ports["inetd"], "R")
            try:
                p = sh(check + ["--port", str(ports["inetd"]), "svnserve"], ok=False)
                self.assertEqual(p.returncode, 0, p.stdout)
                self.assertRegex(p.stdout, r"^svnserve pid \d+ \(user [^,]*, root %s\): fsfs7 "
                                 % re.escape(roots["inetd"]))
                p = sh(check + ["--root", roots["inetd"], "svnserve"], ok=False)
                self.assertEqual(p.returncode, 0, p.stdout)
                p = sh(check + [str(inetd.pid)], ok=False)     # timeout, its launcher, svnserve
                self.assertEqual(p.returncode, 0, p.stdout)
                self.assertEqual(p.stdout.count(" pid "), 1, p.stdout)
            finally:
                conn.close()
            # All of them by name: each line names its own module.
            p = sh(check + ["svnserve"], ok=False)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertRegex(p.stdout, r"(?m)^svnserve pid %d \(.*port %d.*\): fsfs7 "
                             % (pids["daemon"], ports["daemon"]))
            self.assertRegex(p.stdout, r"(?m)^svnserve pid %d \(.*port %d.*\): stock "
                             % (pids["stockd"], ports["stockd"]))
        finally:
            for name, pf in pidfiles.items():
                try:
                    with open(pf) as f:
                        os.kill(int(f.read()), signal.SIGTERM)
                except (OSError, ValueError):
                    pass
            if inetd:
                os.killpg(inetd.pid, signal.SIGKILL)
                inetd.wait()
            for d in dogs:
                os.killpg(d.pid, signal.SIGKILL)
                d.wait()

    @T.topology
    def test_deploy_inetd_switch_under_load(self):
        """svnserve under inetd, switched to fsfs7 and back by editing its
        inetd.conf line while 4 clients commit: the line takes effect at
        the next connection (whose svnserve maps the module the line
        names, and only it), each connection in progress ends on the
        server that took it; no commit fails, every acknowledged commit
        is in the repository, no transaction is left."""
        p = sh([tool("fsfs7-enable"), "svnserve"], ok=False, env=no_systemd())
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        root = S.path("load-inetd")
        os.makedirs(root)
        repo = os.path.join(root, "R")
        T.stock_ok("svnadmin", "create", repo)
        with open(os.path.join(repo, "conf", "svnserve.conf"), "w") as f:
            f.write("[general]\nanon-access = write\n")
        fsfs7_line = next(ln.strip() for ln in p.stderr.splitlines()
                          if ln.strip().startswith("svn stream tcp nowait")
                          ).replace(" /srv/svn", " " + root)
        stock_line = "svn stream tcp nowait svn /usr/bin/svnserve svnserve -i -r " + root
        port = free_port()
        inetd, conf, launches = start_inetd(port, stock_line, "load")
        clients, each = 4, 25
        acked, errors, done, lock = [], [], [0], threading.Lock()

        def client(i):
            for k in range(each):
                path = "c%d-%d" % (i, k)
                q = T.stock("svnmucc", "--non-interactive", "-m", path, "mkdir",
                            "svn://127.0.0.1:%d/R/%s" % (port, path))
                m = re.search(rb"^r(\d+) committed", q.stdout, re.M)
                with lock:
                    if q.returncode or not m:
                        errors.append("client %d commit %d: %s" % (i, k, T.describe(q)))
                    else:
                        acked.append((int(m.group(1)), path))
                    done[0] += 1

        def switch_to(line, after, on_fsfs7):
            while done[0] < after and any(t.is_alive() for t in threads):
                time.sleep(0.02)
            with open(conf + ".new", "w") as f:
                f.write(line + "\n")
            os.rename(conf + ".new", conf)       # inetd reloads its configuration
            # The svnserve of a connection made now maps the new module.
            conn = open_session(port, "R")
            try:
                pid = serving(conn, descendants(inetd.pid))
                self.assertEqual(mapped_all(pid) == [mine()], on_fsfs7,
                                 "pid %d: %s" % (pid, mapped_all(pid)))
                self.assertEqual(len(mapped_all(pid)), 1)
            finally:
                conn.close()

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        try:
            for t in threads:
                t.start()
            switch_to(fsfs7_line, clients * each // 4, True)
            switch_to(stock_line, clients * each * 3 // 4, False)
            for t in threads:
                t.join()
        finally:
            for t in threads:
                t.join()
            os.killpg(inetd.pid, signal.SIGKILL)
            inetd.wait()
        self.assertEqual(errors, [], "\n".join(errors[:5]))
        self.assertEqual(int(T.stock_ok("svnlook", "youngest", repo).stdout), clients * each)
        self.assertEqual(len(acked), clients * each)
        for rev, path in acked:
            self.assertEqual(T.stock_ok("svnlook", "changed", "-r", str(rev), repo).stdout,
                             ("A   %s/\n" % path).encode(), "r%d" % rev)
        self.assertEqual(T.stock_ok("svnadmin", "lstxns", repo).stdout, b"")
        T.stock_ok("svnadmin", "verify", "-q", repo)
        with open(launches) as f:
            served = f.read().splitlines()
        on_fsfs7 = [i for i, ln in enumerate(served) if "LD_LIBRARY_PATH=" in ln]
        self.assertTrue(on_fsfs7, "no connection was served with the fsfs7 line")
        self.assertTrue(0 < on_fsfs7[0] and on_fsfs7[-1] < len(served) - 1,
                        "the switches did not fall inside the load: %d of %d on fsfs7"
                        % (len(on_fsfs7), len(served)))
        T.log("inetd switch under load: %d commits by %d clients, %d failed; %d of %d "
              "connections on fsfs7" % (clients * each, clients, len(errors), len(on_fsfs7),
                                        len(served)))

    def test_deploy_apache_switch_under_load(self):
        """A private Apache switched stock -> fsfs7 -> stock by
        fsfs7-enable/-disable (LoadFile, graceful restart) while 4
        clients commit over http://: no commit fails, every commit a
        client saw acknowledged is in the repository, no transaction is
        left, stock verify passes, a probe connecting every 20 ms is never
        refused, and after each switch the parent and the new generation
        of children map the wanted module, and only it.  The clients
        commit until both switches are done and then 5 more each (at most
        150 each)."""
        parent = S.path("load-http")
        os.makedirs(parent)
        repo = os.path.join(parent, "L")
        T.stock_ok("svnadmin", "create", repo)
        if os.geteuid() == 0:
            subprocess.run(["chown", "-R", "www-data:www-data", parent], check=True)
        apache = Apache(parent, "apache2-load")
        env = dict(no_systemd(), APACHE_CONFDIR=apache.dir)
        clients, most = 4, 150     # a bound; they stop 5 commits after the switches
        acked, errors, done, lock = [], [], [0], threading.Lock()
        switched = threading.Event()
        probes, refused = [0], []

        def probe():
            # A connection every 20 ms: the port never refuses one.
            while not switched.is_set():
                try:
                    socket.create_connection(("127.0.0.1", apache.port), 5).close()
                except OSError as e:
                    refused.append(str(e))
                probes[0] += 1
                time.sleep(0.02)

        def client(i):
            extra = 5
            for k in range(most):
                if switched.is_set():
                    if extra == 0:
                        break
                    extra -= 1
                path = "c%d-%d" % (i, k)
                q = T.stock("svnmucc", "-m", path, "mkdir", apache.url("L", path), *AUTH)
                out = q.stdout.decode(errors="replace")
                with lock:
                    m = re.search(r"^r(\d+) committed", out, re.M)
                    if q.returncode or not m:
                        errors.append("client %d commit %d: %s" % (i, k, T.describe(q)))
                    else:
                        acked.append((int(m.group(1)), path))
                    done[0] += 1

        def switch(cmd, want, after):
            while done[0] < after and any(t.is_alive() for t in threads[:clients]):
                time.sleep(0.02)
            before, t0 = done[0], time.monotonic()
            p = sh([tool(cmd), "apache2"], env=env, ok=False, timeout=120)
            took = time.monotonic() - t0
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr + apache.error_log())
            self.assertIn("graceful restart of apache2", p.stdout)
            self.assertIn("svnadmin rmtxns", p.stdout)
            self.assertRegex(p.stdout, r"(?m)^apache2 pid %d \(user [^)]*\): %s \("
                             % (apache.pid(), want))
            # The parent and every child started by the restart (the
            # previous generation has ended: the command waited for it).
            for pid in [apache.pid()] + children(apache.pid()):
                maps = mapped_all(pid)
                if maps is None:
                    continue
                self.assertEqual(len(maps), 1, "pid %d maps %s" % (pid, maps))
                self.assertEqual(maps[0] == mine(), want == "fsfs7", "pid %d: %s" % (pid, maps))
            return before, done[0], took

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        try:
            apache.start()
            self.assertNotEqual(mapped(apache.pid()), mine())
            threads.append(threading.Thread(target=probe))
            for t in threads:
                t.start()
            on = switch("fsfs7-enable", "fsfs7", 8)
            off = switch("fsfs7-disable", "stock", on[1] + 8)
            switched.set()
            for t in threads:
                t.join()
        finally:
            switched.set()
            for t in threads:
                t.join()
            apache.stop()
            os.killpg(apache.dog.pid, signal.SIGKILL)
            apache.dog.wait()
        total = done[0]
        self.assertEqual(errors, [], "%d of %d commits failed:\n%s"
                         % (len(errors), total, "\n".join(errors[:5])))
        self.assertEqual(refused, [], "%d of %d probes refused" % (len(refused), probes[0]))
        self.assertEqual(int(T.stock_ok("svnlook", "youngest", repo).stdout), total)
        self.assertEqual(len(acked), total)
        for rev, path in acked:
            self.assertEqual(T.stock_ok("svnlook", "changed", "-r", str(rev), repo).stdout,
                             ("A   %s/\n" % path).encode(), "r%d" % rev)
        self.assertEqual(T.stock_ok("svnadmin", "lstxns", repo).stdout, b"")
        T.stock_ok("svnadmin", "verify", "-q", repo)
        # Each switch fell inside the load: commits before, during, between
        # and after the two commands.
        self.assertTrue(0 < on[0] < on[1] < off[0] < off[1] < total,
                        "switches at %s and %s of %d commits" % (on[:2], off[:2], total))
        T.log("apache switch under load: %d commits by %d clients, %d failed; enable during "
              "commits %d-%d (%.1f s), disable during %d-%d (%.1f s); %d of %d probes refused"
              % (total, clients, len(errors), on[0], on[1], on[2], off[0], off[1], off[2],
                 len(refused), probes[0]))

    def test_deploy_apache_from_envvars_line(self):
        """An Apache started with the envvars line of earlier releases
        (LD_LIBRARY_PATH, which a graceful restart keeps): the commands
        take the line out and restart it fully, once; from then on the
        switch is the graceful one."""
        parent = S.path("old-http")
        os.makedirs(parent)
        apache = Apache(parent, "apache2-old")
        env = dict(no_systemd(), APACHE_CONFDIR=apache.dir)
        envvars = os.path.join(apache.dir, "envvars")
        with open(envvars, "a") as f:
            f.write("fsfs7_dir=%s; if [ -r $fsfs7_dir/apache2-envvars ]; then "
                    ". $fsfs7_dir/apache2-envvars; fi # fsfs7-enable\n" % moddir())
        try:
            apache.start()
            old = apache.pid()
            self.assertEqual(mapped(old), mine())
            p = sh([tool("fsfs7-disable"), "apache2"], env=env, ok=False, timeout=120)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr + apache.error_log())
            self.assertIn("removed the LD_LIBRARY_PATH line of an earlier fsfs7", p.stdout)
            self.assertIn("which a graceful restart keeps: a full restart this once", p.stdout)
            self.assertIn("restarting apache2 fully", p.stdout)
            with open(envvars) as f:
                self.assertNotIn("# fsfs7-enable", f.read())
            apache.wait()
            self.assertNotEqual(apache.pid(), old)
            self.assertNotEqual(mapped(apache.pid()), mine())
            self.assertIsNotNone(mapped(apache.pid()))
            p = sh([tool("fsfs7-enable"), "apache2"], env=env, ok=False, timeout=120)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr + apache.error_log())
            self.assertIn("graceful restart of apache2", p.stdout)
            self.assertNotIn("fully", p.stdout)
            self.assertEqual(mapped_all(apache.pid()), [mine()])
        finally:
            apache.stop()
            os.killpg(apache.dog.pid, signal.SIGKILL)
            apache.dog.wait()

    def test_deploy_txns(self):
        """fsfs7-check --txns lists a transaction nobody finished, by age,
        until svnadmin rmtxns removes it."""
        repo = S.path("txns-repo")
        T.stock_ok("svnadmin", "create", repo)
        if not os.path.exists(TXN_TOOL):
            sh(["make", "-s", "-C", T.TOP_BUILDDIR, "tests/integration/txn_tool"], timeout=300)
        txn = sh([TXN_TOOL, "begin", repo]).stdout.strip()
        sh([TXN_TOOL, "edit", repo, txn, "/f", "text"])
        check = [tool("fsfs7-check"), "--txns"]
        p = sh(check + [repo], ok=False)
        self.assertEqual(p.returncode, 0, p.stdout)          # younger than 60 min
        p = sh(check + ["--older-than", "0", repo], ok=False)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("%s: transaction %s, last written 0 h 00 min ago" % (repo, txn), p.stdout)
        self.assertIn("svnadmin rmtxns", p.stdout)
        # Two hours without a write: listed by default.
        old = time.time() - 7200
        for d in (os.path.join(repo, "db", "transactions"), os.path.join(repo, "db", "txn-protorevs")):
            for dirpath, dirs, files in os.walk(d):
                for n in dirs + files:
                    if n.startswith(txn):
                        os.utime(os.path.join(dirpath, n), (old, old))
                        for m in (os.listdir(os.path.join(dirpath, n))
                                  if os.path.isdir(os.path.join(dirpath, n)) else []):
                            os.utime(os.path.join(dirpath, n, m), (old, old))
        p = sh(check + [repo], ok=False)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("transaction %s, last written 2 h 00 min ago" % txn, p.stdout)
        T.stock_ok("svnadmin", "rmtxns", repo, txn)
        p = sh(check + ["--older-than", "0", repo], ok=False)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("%s: no transactions" % repo, p.stdout)
        p = sh(check + [S.path("control")], ok=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("not a repository", p.stdout)

    def test_deploy_make_install(self):
        """make install DESTDIR=: module in $(libdir)/fsfs7, tools in
        $(bindir), no .la; the installed fsfs7-run uses that module."""
        dest = S.path("destdir")
        p = sh(["make", "-s", "-C", T.TOP_BUILDDIR, "install", "DESTDIR=" + dest],
               ok=False, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        mods = glob.glob(dest + "/**/lib/fsfs7/libsvn_fs_fs-1.so.1", recursive=True)
        self.assertEqual(len(mods), 1, mods)
        self.assertEqual(glob.glob(dest + "/**/*.la", recursive=True), [])
        runs = glob.glob(dest + "/**/bin/fsfs7-run", recursive=True)
        self.assertEqual(len(runs), 1, runs)
        p = sh([runs[0], "svnadmin", "--version"])
        self.assertIn("fsfs7", p.stdout)
        mod_dir = os.path.dirname(mods[0])
        for page in ("man8/fsfs7-enable.8", "man8/fsfs7-check.8", "man1/fsfs7-run.1"):
            found = glob.glob(dest + "/**/share/man/" + page, recursive=True)
            self.assertEqual(len(found), 1, page)
            with open(found[0]) as f:
                text = f.read()
            if "fsfs7-run" not in page:
                self.assertIn(mod_dir[len(dest):], text)
        link = glob.glob(dest + "/**/share/man/man8/fsfs7-disable.8", recursive=True)
        self.assertEqual(len(link), 1)
        self.assertEqual(os.readlink(link[0]), "fsfs7-enable.8")

    def test_deploy_refusals(self):
        """fsfs7-enable refuses (and changes nothing) when built-for names
        another libsvn1; svn_fs_fs__init refuses other releases."""
        bf = os.path.join(ROOT, "usr/lib/fsfs7/built-for")
        with open(bf) as f:
            orig = f.read()
        sysd = S.path("systemd-refusal")
        try:
            with open(bf, "w") as f:
                f.write(orig.replace("LIBSVN1_VERSION=%s" % LIBSVN1,
                                     "LIBSVN1_VERSION=%s.9" % LIBSVN1))
            p = sh([tool("fsfs7-enable"), "--no-restart", "svnserve"], ok=False,
                   env={"FSFS7_SYSTEMD_DIR": sysd})
            pe = sh([tool("fsfs7-enable"), "--print-env"], ok=False)
        finally:
            with open(bf, "w") as f:
                f.write(orig)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("built for libsvn1 %s.9" % LIBSVN1, p.stderr)
        self.assertIn("libsvn1 %s is installed" % LIBSVN1, p.stderr)
        self.assertFalse(os.path.exists(sysd))
        self.assertEqual(pe.returncode, 1, pe.stdout + pe.stderr)
        self.assertEqual(pe.stdout, "")
        self.assertIn("built for libsvn1 %s.9" % LIBSVN1, pe.stderr)

        # Load time: the module itself, called as libsvn_fs calls it.
        script = S.path("init.py")
        with open(script, "w") as f:
            f.write(INIT_SCRIPT)
        mod = os.path.join(ROOT, "usr/lib/fsfs7/libsvn_fs_fs-1.so.1")
        # The Subversion release of the installed libsvn1 (1.14.2 on
        # Debian 12, 1.14.5 on 13).
        svnv = re.sub(r"^\d+:", "", LIBSVN1).split("-")[0]
        p = sh(["python3", script, mod, svnv])
        self.assertEqual(p.stdout.strip(), "vtable")
        p = sh(["python3", script, mod, "1.14.99"])
        self.assertRegex(p.stdout, r"E200019 fsfs7 \S+ was built for Subversion %s "
                         % re.escape(svnv) +
                         r"but it is loaded by libsvn_fs 1\.14\.99")
        self.assertNotIn("vtable", p.stdout)
        shim_c, shim = S.path("shim.c"), S.path("shim.so")
        with open(shim_c, "w") as f:
            f.write("typedef struct { int major, minor, patch; const char *tag; } v_t;\n"
                    "const v_t *svn_subr_version(void)\n"
                    "{ static const v_t v = { 1, 14, 99, \"\" }; return &v; }\n")
        sh(["gcc", "-shared", "-fPIC", "-o", shim, shim_c])
        p = sh(["python3", script, mod, svnv], env={"LD_PRELOAD": shim})
        self.assertIn("E200019 fsfs7", p.stdout)
        self.assertIn("built for Subversion %s" % svnv, p.stdout)
        self.assertRegex(p.stdout, r"E200019 .*'svn_subr'.*found 1\.14\.99, expected %s" % re.escape(svnv))
        self.assertNotIn("vtable", p.stdout)

    def test_deploy_servers(self):
        """Apache and svnserve switched to fsfs7 and back the documented way."""
        parent, h, svnroot, s = make_repos()
        apache = Apache(parent)
        sysd = S.path("systemd")
        dropin = os.path.join(sysd, "svnserve.service.d", "fsfs7.conf")
        running = S.path("systemd-running")       # as if systemd ran here
        os.makedirs(running)
        env = {"APACHE_CONFDIR": apache.dir, "FSFS7_SYSTEMD_DIR": sysd,
               "FSFS7_SYSTEMD_RUN": running}
        srv = None
        try:
            apache.start()
            p = sh([tool("fsfs7-check"), "apache2"], env=env, ok=False)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("stock", p.stdout)

            # A configuration that fails apache2ctl's test: the server runs
            # on as it was, the LoadFile is taken out again, exit 1.
            broken = os.path.join(apache.dir, "mods-enabled", "zz-broken.load")
            os.makedirs(os.path.dirname(broken), exist_ok=True)
            with open(broken, "w") as f:
                f.write("NoSuchDirective here\n")
            before = apache.pid()
            p = sh([tool("fsfs7-enable"), "apache2"], env=env, ok=False, timeout=60)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("the graceful restart failed: apache2 runs on as it was", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(apache.dir, "mods-enabled",
                                                         "00fsfs7.load")))
            self.assertEqual(apache.pid(), before)
            self.assertNotEqual(mapped(before), mine())
            os.unlink(broken)

            # The switch, as documented: a LoadFile and a graceful restart.
            # No request is in progress, but the old children leave in
            # their own time: on a busy machine fsfs7-enable may still see
            # them and wait ("previous generation"), which is right.
            p = sh([tool("fsfs7-enable"), "--drain", "20", "apache2"], env=env, ok=False,
                   timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr + apache.error_log())
            self.assertIn("graceful restart of apache2 (pid %d)" % apache.pid(), p.stdout)
            self.assertIn("fsfs7-check --txns", p.stdout)
            with open(os.path.join(apache.dir, "mods-enabled", "00fsfs7.load")) as f:
                self.assertIn("LoadFile %s/libsvn_fs_fs-1.so.1" % moddir(), f.read())
            self.assertRegex(p.stdout, r"(?m)^apache2 pid %d \(user [^)]*\): fsfs7 \("
                             % apache.pid())
            apache.wait()
            p = sh([tool("fsfs7-enable"), "--no-restart", "svnserve"], env=env)
            self.assertTrue(os.path.isfile(dropin))
            srv = Svnserve(svnroot, dropin)
            p = sh([tool("fsfs7-check"), str(srv.pid()), "apache2"], env=env, ok=False)
            self.assertEqual(p.returncode, 0, p.stdout)
            for pid in [apache.pid(), srv.pid()] + children(apache.pid()):
                self.assertEqual(mapped(pid), mine(), "pid %d" % pid)

            # Work over http:// on fsfs7.
            wc = S.path("wc")
            svn("checkout", "-q", apache.url("H"), wc)
            os.makedirs(os.path.join(wc, "trunk", "d"))
            for i in range(5):
                with open(os.path.join(wc, "trunk", "d", "f%d" % i), "w") as f:
                    f.write("line %d\n" % i * (i + 1))
            svn("add", "-q", os.path.join(wc, "trunk"))
            svn("commit", "-q", "-m", "first", wc)
            svn("propset", "-q", "color", "blue", os.path.join(wc, "trunk", "d", "f1"))
            with open(os.path.join(wc, "trunk", "d", "f2"), "a") as f:
                f.write("more\n")
            svn("commit", "-q", "-m", "second", wc)
            svn("copy", "-q", "-m", "branch", apache.url("H", "trunk"),
                apache.url("H", "branch"))
            svn("lock", "-q", "-m", "mine", os.path.join(wc, "trunk", "d", "f3"))
            log = svn("log", "-v", apache.url("H"))
            self.assertIn("branch", log)
            self.assertIn("second", log)
            self.assertIn("A /trunk/d/f4", log)
            self.assertEqual(svn("propget", "color", apache.url("H", "trunk/d/f1")).strip(),
                             "blue")
            self.assertIn(b"trunk/d/f3", T.stock_ok("svnadmin", "lslocks", h).stdout)

            # svnsync http:// -> svn://, both servers on fsfs7.
            sh(["svnsync", "init", srv.url("S"), apache.url("H")] + AUTH)
            sh(["svnsync", "sync", srv.url("S")] + AUTH)
            self.assertEqual(dump(h), dump(s))
            T.stock_ok("svnadmin", "verify", "-q", h)
            T.stock_ok("svnadmin", "verify", "-q", s)
            for pid in (apache.pid(), srv.pid()):
                self.assertEqual(mapped(pid), mine(), "pid %d" % pid)

            # And back to stock, the same repositories, with a request in
            # progress (half its header sent): --drain waits for the
            # previous generation that serves it, then reports it; the
            # request, finished afterwards, is answered, not cut.
            busy = socket.create_connection(("127.0.0.1", apache.port), 5)
            try:
                busy.sendall(b"GET /svn/H/trunk/d/f0 HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                time.sleep(0.5)
                t0 = time.monotonic()
                p = sh([tool("fsfs7-disable"), "--drain", "2", "apache2"], env=env, ok=False,
                       timeout=60)
                waited = time.monotonic() - t0
                busy.sendall(b"Authorization: Basic %s\r\nConnection: close\r\n\r\n"
                             % base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()))
                busy.settimeout(30)
                answer = b""
                while True:
                    got = busy.recv(65536)
                    if not got:
                        break
                    answer += got
            finally:
                busy.close()
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr + apache.error_log())
            self.assertIn("graceful restart of apache2 (pid %d)" % apache.pid(), p.stdout)
            self.assertRegex(p.stdout, r"waiting up to 2 s for \d+ process\(es\) of the "
                             r"previous generation")
            self.assertIn("1 process(es) of the previous generation still serve requests "
                          "after 2 s", p.stdout)
            self.assertRegex(p.stdout, r"(?m)^apache2 pid \d+ \(user [^,]*, previous "
                             r"generation, finishing its requests\): fsfs7 \(")
            self.assertGreaterEqual(waited, 2)
            self.assertRegex(p.stdout, r"(?m)^apache2 pid %d \(user [^)]*\): stock \("
                             % apache.pid())
            self.assertTrue(answer.startswith(b"HTTP/1.1 200 "), answer[:200])
            self.assertTrue(answer.endswith(b"line 0\n"), answer[-200:])
            self.assertFalse(os.path.exists(os.path.join(apache.dir, "mods-enabled",
                                                         "00fsfs7.load")))
            # The previous generation exits once its request is answered.
            deadline = time.monotonic() + 20
            while (any(mapped_all(k) == [mine()] for k in children(apache.pid()))
                   and time.monotonic() < deadline):
                time.sleep(0.2)
            apache.wait()
            sh([tool("fsfs7-disable"), "--no-restart", "svnserve"], env=env)
            self.assertFalse(os.path.exists(dropin))
            srv.stop()
            srv = Svnserve(svnroot, None)
            p = sh([tool("fsfs7-check"), str(srv.pid()), "apache2"], env=env, ok=False)
            self.assertEqual(p.returncode, 1, p.stdout)
            lines = [ln for ln in p.stdout.splitlines() if " pid " in ln]
            self.assertGreaterEqual(len(lines), 3, p.stdout)    # svnserve, Apache + child
            for ln in lines:
                self.assertIn("): stock (", ln)
            self.assertIn("apache2: %d of %d processes do not run fsfs7"
                          % (len(lines) - 1, len(lines) - 1), p.stdout)
            for pid in (apache.pid(), srv.pid()):
                self.assertNotEqual(mapped(pid), mine(), "pid %d" % pid)
                self.assertIsNotNone(mapped(pid), "pid %d" % pid)
            svn("update", "-q", wc)
            with open(os.path.join(wc, "trunk", "d", "f0"), "a") as f:
                f.write("on stock\n")
            svn("unlock", "-q", os.path.join(wc, "trunk", "d", "f3"))
            svn("commit", "-q", "-m", "on stock", wc)
            self.assertIn("on stock", svn("log", "-l", "1", apache.url("H")))
            sh(["svnsync", "sync", srv.url("S")] + AUTH)
            self.assertEqual(dump(h), dump(s))
            self.assertIn("on stock", svn("log", "-l", "1", srv.url("S")))
            T.stock_ok("svnadmin", "verify", "-q", h)
            T.stock_ok("svnadmin", "verify", "-q", s)
        finally:
            if srv:
                srv.stop()
            apache.stop()
            os.killpg(apache.dog.pid, signal.SIGKILL)
            apache.dog.wait()


def open_session(port, repo):
    """A connection to svnserve on PORT that has named REPO (so that the
    server opened it, and loaded its module) and stays open: the client's
    greeting of the svn protocol, then the server's auth request read."""
    c = socket.create_connection(("127.0.0.1", port), 10)
    c.settimeout(10)
    c.recv(4096)                                   # the server's greeting
    u = "svn://127.0.0.1:%d/%s" % (port, repo)
    c.sendall(b"( 2 ( edit-pipeline svndiff1 absent-entries depth mergeinfo "
              b"log-revprops ) %d:%s 10:fsfs7-test ( ) ) " % (len(u), u.encode()))
    got = c.recv(4096)
    if b"success" not in got:
        c.close()
        raise AssertionError("svnserve answered %r" % got)
    return c


# A stand-in inetd: listens on argv[1]; for each connection it reads the
# inetd.conf line in the file argv[2] ("service socktype proto wait user
# server-path argv..."; a reload is an edit of the file) and runs that
# server with the connection as its stdin and stdout, and appends the
# line's argument vector to the file argv[3].
INETD_SCRIPT = r'''
import socket, subprocess, sys
port, conf, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(16)
kids = []
while True:
    c, _ = ls.accept()
    kids = [k for k in kids if k.poll() is None]
    with open(conf) as f:
        fields = f.read().split()
    kids.append(subprocess.Popen(fields[6:], executable=fields[5], stdin=c, stdout=c))
    c.close()
    with open(log, "a") as f:
        f.write(" ".join(fields[6:]) + "\n")
'''


def start_inetd(port, line, tag):
    """The stand-in inetd on PORT serving the inetd.conf LINE; returns
    (its Popen, the file holding the line, the file of its launches)."""
    conf, launches, script = (S.path("%s-inetd.%s" % (tag, x)) for x in ("conf", "log", "py"))
    with open(conf, "w") as f:
        f.write(line + "\n")
    with open(script, "w") as f:
        f.write(INETD_SCRIPT)
    proc = subprocess.Popen(
        ["timeout", "-s", "KILL", str(SERVE_SECONDS), sys.executable, script,
         str(port), conf, launches],
        env=T.stock_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True)
    wait_listening(port, lambda: proc.poll() is None, "inetd stand-in")
    return proc, conf, launches


# Calls svn_fs_fs__init(loader_version, &vtable, NULL) of the module argv[1]
# with loader version argv[2]; prints each error of the chain, or "vtable".
INIT_SCRIPT = r'''
import ctypes, sys
class Ver(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int),
                ("patch", ctypes.c_int), ("tag", ctypes.c_char_p)]
class Err(ctypes.Structure):
    pass
Err._fields_ = [("apr_err", ctypes.c_int), ("message", ctypes.c_char_p),
                ("child", ctypes.POINTER(Err))]
apr = ctypes.CDLL("libapr-1.so.0", mode=ctypes.RTLD_GLOBAL)
apr.apr_initialize()
mod = ctypes.CDLL(sys.argv[1])
mod.svn_fs_fs__init.restype = ctypes.POINTER(Err)
v = Ver(*[int(x) for x in sys.argv[2].split(".")], b"")
vt = ctypes.c_void_p()
e = mod.svn_fs_fs__init(ctypes.byref(v), ctypes.byref(vt), None)
while e:
    print("E%06d %s" % (e.contents.apr_err, e.contents.message.decode()))
    e = e.contents.child
if vt.value:
    print("vtable")
'''


if __name__ == "__main__":
    try:
        T.main("deploy", setup, sys.modules[__name__])
    finally:
        if S:
            S.cleanup()
