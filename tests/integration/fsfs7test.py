"""Shared helpers of fsfs7's integration tests.

The tests compare the stock Debian binaries run twice: once as installed
(the stock libsvn_fs_fs is the oracle) and once through tools/fsfs7-run,
which puts our module first in LD_LIBRARY_PATH and refuses to run if the
loader would not pick it.

Datasets:
  gen          tools/gen_history.py output (always; size: $FSFS7_GEN_REVS)
  maven-small  maven-small.svndump.gz from $FSFS7_DATA or ../shared/data
               next to the checkout (optional on a developer's machine:
               tests skip with a message; with CI=true a missing dataset
               fails the script)
Reference repositories (made by STOCK from each dataset, never by ours):
  f6 f7 f8     svnadmin create --compatible-version 1.8 / 1.9 / default
  f6p f7p f8p  the same with `layout sharded 100` and `svnadmin pack`
  f8u          f6 upgraded to format 8 by `svnadmin upgrade` (physical
               addressing in a format-8 repository)
They are built once into a cache keyed by the data's sha256 and the stock
svnadmin version ($FSFS7_TEST_CACHE, default /tmp/fsfs7-test-cache), and
each test run works on its own copies in a temp dir under /tmp, so a bug
in our module can never spoil the cache.

Two depths: `make check` runs the quick checks (sampled revisions, one
command covering every revision where one can); FSFS7_SLOW=1 (`make
check-slow`) also runs the per-revision sweeps.

Progress: with FSFS7_PROGRESS_FD set (make check sets it to a copy of
make's stderr, see Makefile.am) the script announces itself and prints one
line per test case with its time there too, since automake's harness keeps
the script's own output in its .log file until the script ends.

Exit codes of a test script (automake conventions): 0 all passed,
1 some test failed, 77 skipped, 99 harness error (the STOCK side or the
environment failed, so no verdict about our module is possible).
"""

import concurrent.futures
import fcntl
import filecmp
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_SRCDIR = os.path.abspath(os.environ.get("top_srcdir") or os.path.join(HERE, "..", ".."))
TOP_BUILDDIR = os.path.abspath(os.environ.get("top_builddir") or TOP_SRCDIR)
MODULE_DIR = os.environ.get("FSFS7_MODULE_DIR") or os.path.join(
    TOP_BUILDDIR, "subversion", "libsvn_fs_fs", ".libs")
FSFS7_RUN = os.path.join(TOP_SRCDIR, "tools", "fsfs7-run")
GEN_HISTORY = os.path.join(TOP_SRCDIR, "tools", "gen_history.py")
GEN_REVS = int(os.environ.get("FSFS7_GEN_REVS", "300"))
GEN_SEED = int(os.environ.get("FSFS7_GEN_SEED", "7"))
CACHE = os.environ.get("FSFS7_TEST_CACHE", "/tmp/fsfs7-test-cache")
JOBS = max(1, min(4, os.cpu_count() or 1))
SLOW = os.environ.get("FSFS7_SLOW", "") not in ("", "0")

# The heaviest server-topology cases (replicas, a switch under load) run
# in `make check-topology` and `make check-slow`, not in `make check`,
# which must stay within ten minutes on a busy machine; CI runs both.
TOPOLOGY = SLOW or os.environ.get("FSFS7_TOPOLOGY", "") not in ("", "0")
topology = unittest.skipUnless(
    TOPOLOGY, "server topology: FSFS7_TOPOLOGY=1 (make check-topology)")
IN_CI = os.environ.get("CI") == "true"
TIMEOUT = 1200

# variant -> (--compatible-version or None, packed?)
VARIANTS = {
    "f6": ("1.8", False), "f7": ("1.9", False), "f8": (None, False),
    "f6p": ("1.8", True), "f7p": ("1.9", True), "f8p": (None, True),
    "f8u": ("1.8", False),
}
# f8u: loaded as format 6, then `svnadmin upgrade`d to format 8, which keeps
# physical addressing (a shape real upgraded servers have).
UPGRADED = {"f8u"}
FORMAT_OF = {"f6": 6, "f7": 7, "f8": 8, "f6p": 6, "f7p": 7, "f8p": 8, "f8u": 8}


class SetupError(Exception):
    """The stock side or the environment failed: no verdict possible."""


_T_START = time.time()
_PROGRESS = None


def _progress_stream():
    """Make's stderr when run by `make check` (FSFS7_PROGRESS_FD), else None."""
    global _PROGRESS
    if _PROGRESS is None:
        _PROGRESS = False
        fd = os.environ.get("FSFS7_PROGRESS_FD", "")
        if fd.isdigit():
            try:
                _PROGRESS = os.fdopen(os.dup(int(fd)), "w", buffering=1)
            except OSError:
                pass
    return _PROGRESS or None


def progress(msg):
    """A progress line for the terminal of `make check` (and the log)."""
    line = "[%s +%4.0fs] %s: %s" % (time.strftime("%H:%M:%S"), time.time() - _T_START,
                                   os.path.basename(sys.argv[0]), msg)
    stream = _progress_stream()
    if stream:
        try:
            stream.write(line + "\n")
        except OSError:
            pass


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)
    progress(msg)


# ---- running commands ---------------------------------------------------

def stock_env():
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.update(TZ="UTC", LC_ALL="C.UTF-8", LANG="C.UTF-8")
    return env


def ours_env():
    env = stock_env()
    env["FSFS7_MODULE_DIR"] = MODULE_DIR
    return env


_RUNNER_OK = None


def _runner_ok():
    """Does tools/fsfs7-run accept the module?  Asked once per process:
    its ldconfig/ldd check costs ~40 ms, too much for the thousands of
    per-revision commands.  Once it has said yes, ours() sets up the very
    environment fsfs7-run would (module dir first in LD_LIBRARY_PATH); if
    it says no, every ours() goes through it and fails with its message."""
    global _RUNNER_OK
    if _RUNNER_OK is None:
        p = subprocess.run([FSFS7_RUN, "true"], env=ours_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _RUNNER_OK = p.returncode == 0
    return _RUNNER_OK


def run(args, ours=False, input=None, stdout=subprocess.PIPE, cwd=None,
        timeout=TIMEOUT, env=None):
    """Run ARGS with the stock module or (OURS) with fsfs7's module, as
    tools/fsfs7-run does.  Returns a CompletedProcess (bytes output)."""
    cmd = list(args)
    if ours and env is None and _runner_ok():
        env = ours_env()
        env["LD_LIBRARY_PATH"] = MODULE_DIR
    elif ours:
        cmd = [FSFS7_RUN] + cmd
    try:
        return subprocess.run(cmd, input=input, stdout=stdout,
                              stderr=subprocess.PIPE, cwd=cwd, timeout=timeout,
                              env=env or (ours_env() if ours else stock_env()))
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, -999, e.stdout or b"",
                                           b"TIMEOUT after %ds" % timeout)


def stock(*args, **kw):
    return run(args, ours=False, **kw)


def ours(*args, **kw):
    return run(args, ours=True, **kw)


def stock_ok(*args, **kw):
    """Run a stock command that must succeed; else it is a harness error."""
    p = stock(*args, **kw)
    if p.returncode != 0:
        raise SetupError("stock command failed (%d): %s\n%s"
                         % (p.returncode, " ".join(args), p.stderr.decode(errors="replace")))
    return p


def describe(p):
    rc = p.returncode
    what = "killed by signal %d" % -rc if 0 > rc > -999 else "exit %d" % rc
    return "%s; stderr: %s" % (what, p.stderr.decode(errors="replace").strip()[:600])


def errcodes(p):
    """The Subversion error codes (E123456) in P's stderr, in order."""
    return re.findall(rb"\bE\d{6}\b", p.stderr)


def first_diff(a, b, context=120):
    """Human-readable location of the first difference of two byte strings."""
    n = min(len(a), len(b))
    i = next((k for k in range(n) if a[k] != b[k]), n)
    line = a.count(b"\n", 0, i) + 1
    return ("first difference at byte %d (line %d; lengths stock=%d ours=%d)\n"
            "  stock: %r\n  ours:  %r" % (i, line, len(a), len(b),
                                         a[max(0, i - 40):i + context],
                                         b[max(0, i - 40):i + context]))


def parallel(fn, items, jobs=JOBS):
    """[fn(x) for x in items] on a thread pool (the work is in subprocesses)."""
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        return list(ex.map(fn, items))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---- datasets -----------------------------------------------------------

def find_maven_small():
    cands = []
    if os.environ.get("FSFS7_DATA"):
        cands.append(os.environ["FSFS7_DATA"])
    cands.append(os.path.join(TOP_SRCDIR, "..", "shared", "data"))
    for d in cands:
        p = os.path.join(d, "maven-small.svndump.gz")
        if os.path.isfile(p):
            return os.path.abspath(p), cands
    return None, cands


def stock_version():
    p = stock_ok("svnadmin", "--version", "--quiet")
    return p.stdout.decode().strip()


def _locked(key):
    os.makedirs(CACHE, exist_ok=True)
    f = open(os.path.join(CACHE, key + ".lock"), "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def gen_dump(revs=None, seed=None):
    """Path of the cached generated dump (made on first use)."""
    revs = revs or GEN_REVS
    seed = GEN_SEED if seed is None else seed
    with open(GEN_HISTORY, "rb") as f:
        ver = hashlib.sha256(f.read()).hexdigest()[:12]
    name = "gen-%s-r%d-s%d.svndump" % (ver, revs, seed)
    path = os.path.join(CACHE, name)
    with _locked(name):
        if not os.path.exists(path):
            tmp = path + ".tmp"
            p = subprocess.run([sys.executable, GEN_HISTORY, "--revs", str(revs),
                                "--seed", str(seed), "-o", tmp],
                               stderr=subprocess.PIPE)
            if p.returncode != 0:
                raise SetupError("gen_history.py failed: " + p.stderr.decode())
            os.rename(tmp, path)
    return path


class Dataset:
    def __init__(self, name, path):
        self.name = name
        self.path = path
        self.sha = sha256_file(path)
        self.repos = {}          # variant -> pristine cached repo
        self.youngest = None

    def load_cmd(self):
        if self.path.endswith(".gz"):
            return "zcat '%s'" % self.path
        return "cat '%s'" % self.path


def _build_repo(ds, variant, dest):
    compat, packed = VARIANTS[variant]
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    args = ["svnadmin", "create"] + (["--compatible-version", compat] if compat else []) + [tmp]
    stock_ok(*args)
    if packed:
        fmt = os.path.join(tmp, "db", "format")
        with open(fmt) as f:
            text = f.read()
        if "layout sharded 1000" not in text:
            raise SetupError("unexpected db/format in %s: %r" % (tmp, text))
        with open(fmt, "w") as f:
            f.write(text.replace("layout sharded 1000", "layout sharded 100"))
    p = subprocess.run("set -o pipefail; %s | svnadmin load -q --no-flush-to-disk '%s'"
                       % (ds.load_cmd(), tmp),
                       shell=True, executable="/bin/bash", env=stock_env(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise SetupError("stock load of %s into %s failed: %s"
                         % (ds.path, variant, p.stderr.decode()[-2000:]))
    if packed:
        stock_ok("svnadmin", "pack", "-q", tmp)
    if variant in UPGRADED:
        stock_ok("svnadmin", "upgrade", tmp)
        with open(os.path.join(tmp, "db", "format")) as f:
            if not f.read().startswith("8\n"):
                raise SetupError("svnadmin upgrade did not give format 8 in " + tmp)
    os.rename(tmp, dest)


def reference_repos(ds):
    """Build (once, cached) the six stock-made repos of dataset DS."""
    key = "ref-%s-%s" % (ds.sha[:16], hashlib.sha256(stock_version().encode()).hexdigest()[:8])
    base = os.path.join(CACHE, key)
    with _locked(key):
        todo = [v for v in VARIANTS if not os.path.isdir(os.path.join(base, v))]
        if todo:
            os.makedirs(base, exist_ok=True)
            t0 = time.time()
            log("building stock reference repos of %s: %s" % (ds.name, " ".join(todo)))
            errs = parallel(lambda v: _safe(_build_repo, ds, v, os.path.join(base, v)), todo)
            for e in errs:
                if e:
                    raise e
            log("built in %.0fs" % (time.time() - t0))
    ds.repos = {v: os.path.join(base, v) for v in VARIANTS}
    ds.youngest = int(stock_ok("svnlook", "youngest", ds.repos["f7"]).stdout)
    return ds


def _safe(fn, *args):
    try:
        fn(*args)
        return None
    except Exception as e:      # reported by the caller
        return e


def sample_revs(youngest, n=10):
    """A spread of N revisions of 0..YOUNGEST, always with r0, r1, the
    youngest and the edges of the first 100-revision shard (packed
    variants keep shards of 100)."""
    revs = {0, 1, youngest} | {youngest * i // n for i in range(1, n)}
    revs |= {r for r in (99, 100, 101) if r <= youngest}
    return sorted(revs)


def revs_to_check(youngest, n=10):
    """Every revision under FSFS7_SLOW, else sample_revs()."""
    return list(range(youngest + 1)) if SLOW else sample_revs(youngest, n)


def require_datasets_in_ci(missing_why):
    """With CI=true a missing dataset is a failure, not a skip."""
    if IN_CI and missing_why:
        print("FAIL: CI=true and %s" % missing_why, flush=True)
        progress("FAIL: CI=true and %s" % missing_why)
        sys.exit(1)


def datasets():
    """The datasets of this run: [(name, Dataset or None, why-missing)]."""
    out = [("gen", gen_dump(), None)]
    mv, looked = find_maven_small()
    out.append(("maven", mv, None if mv else
                "maven-small.svndump.gz not found (looked in $FSFS7_DATA and %s)"
                % ", ".join(looked)))
    return out


# ---- per-run scratch space ------------------------------------------------

class Scratch:
    """A temp dir for one test script run; removed unless FSFS7_KEEP=1."""

    def __init__(self, tag):
        self.dir = tempfile.mkdtemp(prefix="fsfs7-%s-" % tag, dir="/tmp")

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def copy_repo(self, src, name):
        dst = self.path(name)
        shutil.rmtree(dst, ignore_errors=True)
        subprocess.run(["cp", "-a", src, dst], check=True)
        return dst

    def cleanup(self):
        if os.environ.get("FSFS7_KEEP"):
            log("keeping %s" % self.dir)
        else:
            remove_tree(self.dir)


def remove_tree(path):
    """rm -rf PATH.  The rm(1) binary, not shutil.rmtree: on this machine
    rmtree spends ~1 s of system time per 1,600-entry repository copy
    (rm: 0.1 s), which made cleaning up test_admin.py's scratch 28 s."""
    subprocess.run(["rm", "-rf", "--", path], stdin=subprocess.DEVNULL)
    if os.path.lexists(path):
        shutil.rmtree(path, ignore_errors=True)


class RepoCopies(dict):
    """(dataset, variant) -> this run's copy of that reference repository,
    made on first use (a run copies only what its tests read)."""

    def bind(self, scratch, datasets):
        self.scratch, self.datasets = scratch, datasets

    def __missing__(self, key):
        path = self.scratch.copy_repo(self.datasets[key[0]].repos[key[1]], "%s-%s" % key)
        self[key] = path
        return path


# Quick depth runs each of the seven variants once across the two
# datasets: maven-small on MAVEN_QUICK (physical addressing, packed
# logical, format 8) and the generated history on the other four
# (physical packed, logical unpacked, packed format 8, upgraded format 8).
# Without maven-small the generated history runs on all seven.
MAVEN_QUICK = ("f6", "f7p", "f8")
GEN_QUICK = ("f6p", "f7", "f8p", "f8u")


def variants_for(dataset):
    """The variants a dataset's per-variant tests run on at this depth."""
    if SLOW:
        return list(VARIANTS)
    if dataset == "maven":
        return list(MAVEN_QUICK)
    return list(GEN_QUICK) if find_maven_small()[0] else list(VARIANTS)


# The quick shapes in an order that alternates physical and logical
# addressing, packed and unpacked: any three in a row (cyclically) hold
# both addressing modes and both packed and unpacked repositories.
_ROTATION = (("maven", "f6"), ("maven", "f7p"), ("gen", "f6p"), ("gen", "f7"),
             ("gen", "f8u"), ("gen", "f8p"), ("maven", "f8"))
_ROTATION_GEN = (("gen", "f6"), ("gen", "f7p"), ("gen", "f6p"), ("gen", "f7"),
                 ("gen", "f8u"), ("gen", "f8p"), ("gen", "f8"))


def rotating(k, datasets, width=3):
    """The (dataset, variant) pairs check number K of a script runs on:
    under FSFS7_SLOW every variant of every dataset in DATASETS; else
    WIDTH consecutive quick shapes starting at the K-th, so that each
    check reads both addressing modes, packed and not, and every shape is
    read by about WIDTH/7 of the checks."""
    if SLOW:
        return [(d, v) for d in datasets for v in VARIANTS]
    order = _ROTATION if "maven" in datasets else _ROTATION_GEN
    return [order[(k + i) % len(order)] for i in range(width)]


def url(repo, path=""):
    return "file://" + os.path.abspath(repo) + ("/" + path if path else "")


def allow_revprop_changes(repo):
    hook = os.path.join(repo, "hooks", "pre-revprop-change")
    with open(hook, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(hook, 0o755)


def trees_equal(a, b):
    """None if directory trees A and B are equal (names, kinds, contents,
    exec bits, symlink targets), else a description of the first difference."""
    for root, dirs, files in os.walk(a):
        dirs.sort()
        rel = os.path.relpath(root, a)
        other = os.path.join(b, rel)
        if not os.path.isdir(other):
            return "directory %s missing in ours" % rel
        mine = sorted(dirs + files)
        theirs = sorted(os.listdir(other))
        if mine != theirs:
            return "entries of %s differ: stock %s / ours %s" % (
                rel, sorted(set(mine) - set(theirs))[:5], sorted(set(theirs) - set(mine))[:5])
        for name in sorted(files):
            pa, pb = os.path.join(root, name), os.path.join(other, name)
            if os.path.islink(pa) or os.path.islink(pb):
                if not (os.path.islink(pa) and os.path.islink(pb)
                        and os.readlink(pa) == os.readlink(pb)):
                    return "symlink %s differs" % os.path.join(rel, name)
                continue
            if not filecmp.cmp(pa, pb, shallow=False):
                return "content of %s differs" % os.path.join(rel, name)
            if (os.stat(pa).st_mode & 0o111) != (os.stat(pb).st_mode & 0o111):
                return "exec bit of %s differs" % os.path.join(rel, name)
    return None


# ---- test-script driver ---------------------------------------------------

class _TimedResult(unittest.TextTestResult):
    """Also prints how long each test took (the log shows where time goes)."""

    def startTest(self, test):
        self._t0 = time.time()
        self._verdict = "ok"
        super().startTest(test)

    def addFailure(self, test, err):
        self._verdict = "FAIL"
        super().addFailure(test, err)

    def addError(self, test, err):
        self._verdict = "ERROR"
        super().addError(test, err)

    def addSkip(self, test, reason):
        self._verdict = "skipped (%s)" % reason
        super().addSkip(test, reason)

    def addExpectedFailure(self, test, err):
        self._verdict = "expected failure"
        super().addExpectedFailure(test, err)

    def stopTest(self, test):
        super().stopTest(test)
        took = time.time() - self._t0
        self.stream.write("    (%.1fs)\n" % took)
        self.stream.flush()
        progress("%s %s (%.1fs)" % (test.id().split(".")[-1], self._verdict, took))


def _flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flatten(t)
        else:
            yield t


def main(title, setup, module):
    """Run SETUP (stock side; SetupError -> exit 99), then the unittest
    cases of MODULE; print a one-line progress summary; exit 0/1."""
    t0 = time.time()
    if _progress_stream():
        # Tells tests/unit/progress.sh that the per-test lines come from here.
        print("fsfs7test: progress on fd %s" % os.environ["FSFS7_PROGRESS_FD"], flush=True)
    progress("start (%s checks)" % ("slow: FSFS7_SLOW" if SLOW else "quick"))
    mv, looked = find_maven_small()
    require_datasets_in_ci(None if mv else
                           "maven-small.svndump.gz not found (looked in $FSFS7_DATA, %s)"
                           % ", ".join(looked))
    try:
        setup()
        progress("setup done (reference repositories, per-run copies)")
    except SetupError as e:
        print("HARNESS ERROR (stock side / environment): %s" % e, flush=True)
        sys.exit(99)
    loader = unittest.TestLoader()
    suite = loader.loadTestsFromModule(module)
    # `python3 test_x.py NAME...` runs only the tests whose id contains
    # one of the NAMEs (for working on one case).  Options are not names:
    # make check's tests/unit/progress.sh passes -v, which matched no
    # test and left every script to pass with none run.
    names = [a for a in sys.argv[1:] if not a.startswith("-")]
    if names:
        suite = unittest.TestSuite(
            t for t in _flatten(suite)
            if any(n in t.id() for n in names))
    if suite.countTestCases() == 0:
        # A script that runs nothing must not pass: that is how every
        # integration test once passed under make check without running.
        print("SUMMARY %s: no test matched %s" % (title, names or "(all)"))
        sys.exit(1)
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout,
                                     resultclass=_TimedResult).run(suite)
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    harness = [t for t, tb in result.errors if "SetupError" in tb]
    summary = ("SUMMARY %s: %d tests, %d passed, %d failed, %d skipped (%.0fs)"
               % (title, result.testsRun, max(0, result.testsRun - failed - skipped),
                  failed, skipped, time.time() - t0))
    print(summary, flush=True)
    progress(summary)
    if harness:
        print("HARNESS ERROR in %d test(s); see above" % len(harness))
        sys.exit(99)
    sys.exit(0 if failed == 0 else 1)


# ---- for the C unit tests ---------------------------------------------------

def _print_reference_dirs():
    """`python3 fsfs7test.py ref-dirs`: build (once, in the cache) the stock
    reference repositories of every dataset and print "<name> <dir>" per
    dataset, for test_revfile.  Exit 1 when CI=true and maven-small is
    missing, 99 when the stock side fails."""
    mv, looked = find_maven_small()
    require_datasets_in_ci(None if mv else "maven-small.svndump.gz not found "
                           "(looked in %s)" % ", ".join(looked))
    try:
        sets = [Dataset("gen", gen_dump())] + ([Dataset("maven", mv)] if mv else [])
        for ds in sets:
            reference_repos(ds)
            print("%s %s" % (ds.name, os.path.dirname(ds.repos["f7"])), flush=True)
    except SetupError as e:
        print("HARNESS ERROR: %s" % e, file=sys.stderr)
        sys.exit(99)


if __name__ == "__main__":
    if sys.argv[1:] == ["ref-dirs"]:
        _print_reference_dirs()
    else:
        sys.exit("usage: fsfs7test.py ref-dirs")
