#!/usr/bin/env python3
"""A group-shared repository written by two real users (issue 30).

The usual multi-user set-up: the repository belongs to a group
(`chgrp -R`, `chmod -R g+w`, set-gid directories under db/), and two
users of that group, each with umask 022 and another primary group,
commit, lock, unlock, change revision properties and pack, alternately
over file:// and over svn+ssh (a tunnel running `svnserve -t` as the
user, as sshd would).  The same steps run on a repository served by the
stock module and on one served by fsfs7, on formats 6 and 8 (and 7
under FSFS7_SLOW) with shards of 4 revisions, so that both users start
new shards, pack them and rewrite packed revision properties.

Checked, per format: every step succeeds with both modules and prints no
"Warning" (a failed rep-cache.db update is only reported that way); stock
`svnadmin verify` passes on fsfs7's repository; after every step the two
trees hold the same paths with the same type, permission bits (set-gid
included) and group; and the files and directories of the transactions,
listed by a pre-commit hook while each commit runs, have the same modes
and groups.

Needs root (it creates the users and the group, with unique names, and
removes them at the end, also after a failure): skipped (77) otherwise.
The module is copied to a directory the users can read, since the build
tree need not be traversable by them.
"""

import atexit
import grp
import hashlib
import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

COMPAT = {6: "1.8", 7: "1.9", 8: None}
SHARD = 4
TAG = "f7mu%d" % (os.getpid() % 1000000)
GROUP = TAG + "g"
USERS = (TAG + "a", TAG + "b")
PATH_ENV = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

S = None
MODDIR = None           # world-readable copy of the module
TUNNEL = None           # the svn+f7t tunnel: svnserve -t as the caller
CREATED = {"users": [], "group": False}


# ---- users and group ------------------------------------------------------

def remove_accounts():
    """Remove the users and the group this run created (idempotent)."""
    for user in list(CREATED["users"]):
        subprocess.run(["userdel", user], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        CREATED["users"].remove(user)
    if CREATED["group"]:
        subprocess.run(["groupdel", GROUP], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        CREATED["group"] = False


def make_accounts():
    """The group and the two users (primary group: the default one, the
    repository's group only as a supplementary group, as on a real
    server).  No home directories: each user's HOME is a scratch dir."""
    atexit.register(remove_accounts)
    # The harness's timeout sends SIGTERM: exit through the finally
    # clauses and atexit, which remove the accounts.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = subprocess.run(["groupadd", GROUP], stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise T.SetupError("groupadd %s: %s" % (GROUP, p.stderr.decode()))
    CREATED["group"] = True
    for user in USERS:
        p = subprocess.run(["useradd", "-M", "-N", "-G", GROUP,
                            "-d", home(user), "-s", "/bin/sh", user],
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise T.SetupError("useradd %s: %s" % (user, p.stderr.decode()))
        CREATED["users"].append(user)
        os.makedirs(home(user))
        shutil.chown(home(user), user)


def home(user):
    return S.path("home-" + user)


# ---- setup ------------------------------------------------------------------

def setup():
    global S, MODDIR, TUNNEL
    if os.geteuid() != 0 or not shutil.which("useradd"):
        print("SKIP: needs root and useradd", flush=True)
        sys.exit(77)
    S = T.Scratch("multiuser")
    os.chmod(S.dir, 0o755)
    MODDIR = S.path("module")
    os.mkdir(MODDIR)
    src = os.path.join(T.MODULE_DIR, "libsvn_fs_fs-1.so.1")
    if not os.path.isfile(src):
        raise T.SetupError("no module at %s (build first)" % src)
    shutil.copy(src, MODDIR)
    os.chmod(os.path.join(MODDIR, "libsvn_fs_fs-1.so.1"), 0o755)
    env = T.ours_env()
    env["FSFS7_MODULE_DIR"] = MODDIR
    p = subprocess.run([T.FSFS7_RUN, "true"], env=env, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise T.SetupError("the copied module would not be loaded: "
                           + p.stderr.decode())
    TUNNEL = S.path("tunnel.sh")
    with open(TUNNEL, "w") as f:
        # What an ssh login gives the user: a fresh shell, umask 022.
        f.write("#!/bin/sh\numask 022\nexec svnserve -t\n")
    os.chmod(TUNNEL, 0o755)
    os.mkdir(S.path("txnmodes"))
    os.chmod(S.path("txnmodes"), 0o1777)
    with open(S.path("log-msg"), "w") as f:
        f.write("a new log message\n")
    for step in STEPS:
        if step[2] == "put":
            with open(text_file(step[4]), "wb") as f:
                f.write(step[4])
    make_accounts()


# ---- running as a user ------------------------------------------------------

def as_user(user, args, ours, input=None):
    """Run ARGS as USER (its own uid, primary group and groups; umask 022)
    with the stock module or fsfs7's.  The switch is made by the child
    itself (setgroups, setgid, setuid before exec): runuser's PAM session
    cost more than the svn command it ran."""
    pw = pwd.getpwnam(user)
    env = {"PATH": PATH_ENV, "HOME": home(user), "LC_ALL": "C.UTF-8",
           "TZ": "UTC", "USER": user, "LOGNAME": user}
    if ours:
        env["LD_LIBRARY_PATH"] = MODDIR
    return subprocess.run(list(args), input=input, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120, env=env,
                          cwd=home(user), user=pw.pw_uid, group=pw.pw_gid,
                          extra_groups=os.getgrouplist(user, pw.pw_gid),
                          umask=0o022)


def client_opts(user, ours):
    """The client options of USER; a config dir per module, since the
    two sides run at the same time and svn fills a new config dir."""
    cfg = "cfg-ours" if ours else "cfg-stock"
    return ["--config-dir", os.path.join(home(user), cfg),
            "--config-option", "config:tunnels:f7t=" + TUNNEL,
            "--non-interactive", "--no-auth-cache"]


def repo_url(repo, via, path=""):
    scheme = "file://" if via == "file" else "svn+f7t://localhost"
    return scheme + repo + ("/" + path if path else "")


# The steps, the same for both modules: (user 0/1, transport, action,
# arguments).  With shards of 4, r4, r8 and r12 start new shards (by B,
# A, B), `pack` runs after r8 (A, shards 0-1) and after r12 (B, shard 2),
# revision properties are changed before and after their shard is
# packed, and the same contents committed twice share their rep through
# rep-cache.db, which the other user created.
STEPS = [
    (0, "file", "mkdir", "trunk"),                       # r1
    (1, "ssh", "put", "trunk/a", b"shared text\n"),      # r2
    (0, "ssh", "put", "trunk/b", b"shared text\n"),      # r3
    (1, "file", "put", "trunk/c", b"c text\n"),          # r4, shard 1
    (0, "file", "lock", "trunk/a"),
    (1, "ssh", "lock", "trunk/c"),
    (0, "ssh", "put", "trunk/d", b"c text\n"),           # r5
    (1, "file", "setlog", 2),
    (0, "ssh", "revprop", 3),
    (1, "ssh", "put", "trunk/e", b"e text\n"),           # r6
    (0, "file", "put", "trunk/f", b"e text\n"),          # r7
    (1, "file", "mkdir", "branches"),                    # r8, shard 2
    (0, "file", "pack"),
    (1, "file", "setlog", 1),
    (0, "ssh", "revprop", 5),
    (1, "ssh", "unlock", "trunk/c"),
    (0, "ssh", "put", "trunk/g", b"shared text\n"),      # r9
    (1, "file", "put", "trunk/h", b"h text\n"),          # r10
    (0, "file", "put", "trunk/i", b"h text\n"),          # r11
    (1, "ssh", "put", "trunk/j", b"j text\n"),           # r12, shard 3
    (1, "file", "pack"),
    (0, "file", "setlog", 9),
    (1, "ssh", "revprop", 10),
    (0, "file", "unlock", "trunk/a"),
    (1, "ssh", "lock", "trunk/e"),
    (0, "ssh", "put", "trunk/k", b"j text\n"),           # r13
]
YOUNGEST = 13


def text_file(data):
    """A file the users can read holding DATA (written by setup(), before
    the two sides run at the same time)."""
    return S.path("text-" + hashlib.sha1(data).hexdigest())


def step_args(step, repo, ours):
    """The command line and stdin of STEP on REPO."""
    who, via, action = step[:3]
    user = USERS[who]
    opts = client_opts(user, ours)
    if action == "mkdir":
        return (["svnmucc"] + opts + ["-m", "mkdir", "mkdir",
                                      repo_url(repo, via, step[3])], None)
    if action == "put":
        src = text_file(step[4])
        return (["svnmucc"] + opts + ["-m", "put", "put", src,
                                      repo_url(repo, via, step[3])], None)
    if action in ("lock", "unlock"):
        return (["svn", action] + opts + [repo_url(repo, via, step[3])], None)
    if action == "revprop":
        return (["svn", "propset"] + opts
                + ["--revprop", "-r", str(step[3]), "svn:log",
                   "changed by %s" % user, repo_url(repo, via)], None)
    if action == "setlog":
        return (["svnadmin", "setlog", repo, "-r", str(step[3]),
                 S.path("log-msg")], None)
    if action == "pack":
        return (["svnadmin", "pack", "-q", repo], None)
    raise ValueError(action)


# ---- the repository ---------------------------------------------------------

def make_shared_repo(name, fmt, ours):
    """A format FMT repository (created by root through the module under
    test) with shards of SHARD, set up for GROUP the usual way."""
    repo = S.path(name)
    args = ["svnadmin", "create"]
    if COMPAT[fmt]:
        args += ["--compatible-version", COMPAT[fmt]]
    p = T.run(args + [repo], ours=ours)
    if p.returncode != 0:
        raise AssertionError("create (%s) failed: %s"
                             % ("ours" if ours else "stock", T.describe(p)))
    fpath = os.path.join(repo, "db", "format")
    with open(fpath) as f:
        text = f.read()
    if "layout sharded 1000" not in text:
        raise T.SetupError("unexpected db/format: %r" % text)
    with open(fpath, "w") as f:
        f.write(text.replace("layout sharded 1000", "layout sharded %d" % SHARD))
    T.allow_revprop_changes(repo)
    if fmt >= 7:
        # Stock makes db/pack-lock on the first pack only, with the
        # packer's umask: the other user could never pack.  An admin
        # sharing the repository makes it first (the chmod below).
        open(os.path.join(repo, "db", "pack-lock"), "w").close()
    # What the transaction's files look like while it is committed (the
    # end state has no transaction left): listed by the pre-commit hook
    # as "<type> <mode> <group>" lines, compared as a set.
    txn_log = S.path("txnmodes", name)
    hook = os.path.join(repo, "hooks", "pre-commit")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\ncd \"$1/db\" && /usr/bin/find transactions "
                "txn-protorevs -mindepth 1 -printf '%%y %%m %%g\\n' >> %s\n"
                "exit 0\n" % txn_log)
    os.chmod(hook, 0o755)
    for cmd in (["chgrp", "-R", GROUP, repo], ["chmod", "-R", "g+w", repo],
                ["find", os.path.join(repo, "db"), "-type", "d",
                 "-exec", "chmod", "g+s", "{}", "+"]):
        subprocess.run(cmd, check=True)
    return repo


def modes(repo):
    """{relative path: (type, permission bits, group)} of everything in
    REPO."""
    out = {}
    for root, dirs, files in os.walk(repo):
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            try:
                group = grp.getgrgid(st.st_gid).gr_name
            except KeyError:
                group = str(st.st_gid)
            kind = ("dir" if stat.S_ISDIR(st.st_mode) else
                    "file" if stat.S_ISREG(st.st_mode) else
                    "link" if stat.S_ISLNK(st.st_mode) else "other")
            out[os.path.relpath(path, repo)] = (
                kind, oct(stat.S_IMODE(st.st_mode)), group)
    return out


def txn_modes_seen(repo):
    """The "<type> <mode> <group>" lines REPO's pre-commit hook logged."""
    path = S.path("txnmodes", os.path.basename(repo))
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return sorted(set(f.read().split("\n")) - {""})


def mode_diffs(a, b):
    """Lines describing how trees A (stock) and B (ours) differ."""
    lines = []
    for path in sorted(set(a) | set(b)):
        if a.get(path) != b.get(path):
            lines.append("  %-40s stock %-32s ours %s"
                         % (path, a.get(path, "(missing)"),
                            b.get(path, "(missing)")))
    return lines


# ---- the test -----------------------------------------------------------------

class MultiUserTest(unittest.TestCase):

    def run_steps(self, repo, ours):
        """Run STEPS on REPO: the failures (as text) of those that failed or
        printed a warning, and modes() of REPO after each step."""
        bad, trees = [], []
        for i, step in enumerate(STEPS):
            args, stdin = step_args(step, repo, ours)
            p = as_user(USERS[step[0]], args, ours, input=stdin)
            out = p.stdout + p.stderr
            if p.returncode != 0 or b"Warning" in out:
                bad.append("step %d %s by %s over %s: exit %d\n    %s"
                           % (i, step[2], USERS[step[0]], step[1], p.returncode,
                              out.decode(errors="replace").strip()
                              .replace("\n", "\n    ")[:900]))
            trees.append(modes(repo))
        return bad, trees

    def check_format(self, fmt):
        stock_repo = make_shared_repo("stock-f%d" % fmt, fmt, False)
        ours_repo = make_shared_repo("ours-f%d" % fmt, fmt, True)
        # The two sides are independent: run them at the same time.
        (bad, stock_trees), (bad_ours, ours_trees) = T.parallel(
            lambda side: self.run_steps(*side),
            [(stock_repo, False), (ours_repo, True)], jobs=2)
        if bad:
            raise T.SetupError("stock failed on format %d:\n%s"
                               % (fmt, "\n".join(bad)))
        bad = bad_ours
        problems = []
        if bad:
            problems.append("steps that failed or warned with fsfs7:\n"
                            + "\n".join(bad))
        v = T.stock("svnadmin", "verify", "-q", ours_repo)
        if v.returncode != 0:
            problems.append("stock verify: " + T.describe(v))
        y = T.stock("svnlook", "youngest", ours_repo)
        if y.stdout.strip() != str(YOUNGEST).encode():
            problems.append("youngest %r, expected %d" % (y.stdout, YOUNGEST))
        txn_modes = [txn_modes_seen(r) for r in (stock_repo, ours_repo)]
        if not txn_modes[0]:
            raise T.SetupError("the pre-commit hook logged nothing")
        if txn_modes[0] != txn_modes[1]:
            problems.append("modes in transactions: stock %s, ours %s"
                            % tuple(txn_modes))
        # A mode that differs only for a while (a lock file written before
        # the pack, rewritten after it) shows in the tree after its step.
        for i, (a, b) in enumerate(zip(stock_trees, ours_trees)):
            diffs = mode_diffs(a, b)
            if diffs and i < len(STEPS) - 1:
                problems.append("after step %d (%s by %s over %s) the trees "
                                "first differ:\n%s"
                                % (i, STEPS[i][2], USERS[STEPS[i][0]],
                                   STEPS[i][1], "\n".join(diffs[:20])))
            if diffs:
                break
        diffs = mode_diffs(modes(stock_repo), modes(ours_repo))
        if diffs:
            problems.append("%d paths whose type/mode/group differ:\n%s"
                            % (len(diffs), "\n".join(diffs[:60])))
        if problems:
            self.fail("format %d:\n%s" % (fmt, "\n".join(problems)))

    @unittest.skipUnless(T.SLOW, "slow check: FSFS7_SLOW=1 (make check-slow); "
                         "f8 runs in make check (the same group-sharing code)")
    def test_issue30_group_shared_f6(self):
        self.check_format(6)

    @unittest.skipUnless(T.SLOW, "slow check: FSFS7_SLOW=1 (make check-slow); "
                         "f8 covers logical addressing in make check")
    def test_issue30_group_shared_f7(self):
        self.check_format(7)

    def test_issue30_group_shared_f8(self):
        self.check_format(8)


if __name__ == "__main__":
    try:
        T.main("multiuser", setup, sys.modules[__name__])
    finally:
        remove_accounts()
        if S:
            S.cleanup()
