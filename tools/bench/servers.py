"""Private svnserve and Apache (mod_dav_svn) instances for the benchmarks.

Each server runs on a free loopback port with everything it writes (pid
file, logs, Apache's config and lock files) under a directory of its own;
no system service is touched.  A server is started for one module
(stock, or fsfs7 = our module directory first in LD_LIBRARY_PATH) and one
cache configuration, and can report the CPU time its whole process tree
has used so far, and which libsvn_fs_fs file it mapped.
"""
import os
import pwd
import signal
import socket
import subprocess
import time

from cpu import tree_cpu_seconds, process_tree

APACHE_MODULES = "/usr/lib/apache2/modules"

# Server options per cache configuration (the published matrix's three).
SVNSERVE_CACHE = {
    "slow": [],
    "medium": ["-M", "256"],
    "fast": ["-M", "1024", "-c", "0", "--cache-revprops", "yes",
             "--client-speed", "1000", "--block-read", "yes"],
}
APACHE_CACHE = {
    "slow": [],
    "medium": ["SVNInMemoryCacheSize 262144"],
    "fast": ["SVNInMemoryCacheSize 1048576", "SVNCacheRevProps on",
             "SVNBlockRead on", "SVNCompressionLevel 0"],
}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port, proc, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("server exited with %s" % proc.returncode)
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server did not listen on port %d" % port)


def mapped_fs_fs(pid):
    """Paths of libsvn_fs_fs-1.so* mapped by process PID (empty if none)."""
    found = set()
    try:
        with open("/proc/%d/maps" % pid) as maps:
            for line in maps:
                if "libsvn_fs_fs-1.so" in line:
                    found.add(line.split()[-1])
    except OSError:
        pass
    return sorted(found)


class Server:
    """Base: a process we start in a new session and stop with SIGTERM."""
    scheme = None

    def __init__(self, root, workdir, env, cache="slow"):
        self.root = root          # directory holding the repositories
        self.workdir = workdir
        self.env = env            # environment (module choice) for the server
        self.cache = cache
        self.proc = None
        self.port = None
        os.makedirs(workdir, exist_ok=True)

    def url(self, repo_name):
        raise NotImplementedError

    def command(self):
        raise NotImplementedError

    def start(self):
        self.port = free_port()
        cmd = self.command()
        log = open(os.path.join(self.workdir, "server.out"), "ab")
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=log,
                                     stderr=subprocess.STDOUT,
                                     start_new_session=True)
        log.close()
        try:
            wait_for_port(self.port, self.proc)
        except RuntimeError:
            self.stop()    # never leave a half-started server behind
            raise
        return self

    def pids(self):
        return process_tree(self.proc.pid) if self.proc else []

    def cpu_seconds(self):
        """user+sys seconds of the server's process tree so far."""
        return tree_cpu_seconds(self.proc.pid) if self.proc else 0.0

    def fs_modules(self):
        """libsvn_fs_fs files mapped by any process of the server."""
        found = set()
        for pid in self.pids():
            found.update(mapped_fs_fs(pid))
        return sorted(found)

    def stop(self):
        if not self.proc:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop()
        return self.start()


class Svnserve(Server):
    """svnserve in threaded mode, so that its caches outlive a connection
    (as the measured "hot" server state requires)."""
    scheme = "svn"

    def command(self):
        return (["svnserve", "-d", "--foreground", "-T", "-r", self.root,
                 "--listen-host", "127.0.0.1",
                 "--listen-port", str(self.port)]
                + SVNSERVE_CACHE[self.cache])

    def url(self, repo_name):
        return "svn://127.0.0.1:%d/%s" % (self.port, repo_name)


class Apache(Server):
    """A private httpd with mod_dav_svn serving ROOT via SVNParentPath.

    One child process (event MPM, ServerLimit 1) with enough threads for
    the client's parallel connections: the FS caches live in the child,
    so they stay hot between requests as on a real server.  Workers run
    as USER (default www-data), so repositories must be readable by it."""
    scheme = "http"

    def __init__(self, root, workdir, env, cache="slow", user="www-data"):
        super().__init__(root, workdir, env, cache)
        self.user = user

    def write_config(self):
        conf = os.path.join(self.workdir, "httpd.conf")
        group = pwd.getpwnam(self.user).pw_gid
        lines = ["ServerRoot %s" % self.workdir,
                 "PidFile %s/httpd.pid" % self.workdir,
                 "ErrorLog %s/error.log" % self.workdir,
                 "LogLevel warn",
                 "Mutex file:%s default" % self.workdir,
                 "DefaultRuntimeDir %s" % self.workdir,
                 "Listen 127.0.0.1:%d" % self.port,
                 "ServerName 127.0.0.1",
                 "User %s" % self.user, "Group #%d" % group]
        for mod in ("mpm_event", "authz_core", "authn_core", "dav",
                    "dav_svn"):
            lines.append("LoadModule %s_module %s/mod_%s.so"
                         % (mod, APACHE_MODULES, mod))
        lines += ["StartServers 1", "ServerLimit 1", "ThreadsPerChild 16",
                  "MaxRequestWorkers 16", "MinSpareThreads 1",
                  "MaxSpareThreads 16", "MaxConnectionsPerChild 0",
                  "KeepAlive On", "MaxKeepAliveRequests 0",
                  "<Location /svn>", "  DAV svn",
                  "  SVNParentPath %s" % self.root,
                  "  Require all granted", "</Location>"]
        lines += APACHE_CACHE[self.cache]
        with open(conf, "w") as out:
            out.write("\n".join(lines) + "\n")
        return conf

    def command(self):
        conf = self.write_config()
        return ["/usr/sbin/apache2", "-d", self.workdir, "-f", conf,
                "-D", "FOREGROUND"]

    def start(self):
        super().start()
        # The listener is up before the child has loaded the repository
        # layer; wait for the child so the first measurement is fair.
        deadline = time.time() + 10
        while len(self.pids()) < 2 and time.time() < deadline:
            time.sleep(0.05)
        return self

    def url(self, repo_name):
        return "http://127.0.0.1:%d/svn/%s" % (self.port, repo_name)
