#!/usr/bin/env python3
"""Integration test: a short, deterministic slice of the crash-point and
I/O-error campaigns (tools/torture/campaign.py, doc/reliability.md).

For every operation the campaign knows, a seeded sample of call indices
is run through tools/torture/fault.so on our module: CRASH_POINTS killed
with SIGKILL at that file-system call, ERROR_POINTS with the call failing
(ENOSPC / EIO / EDQUOT in turn).  A point passes when the campaign's
checks pass: stock verify, acknowledged revisions unchanged, re-run and
a next commit work, the new revisions carry exactly the revprops they
committed; and on a copy of what the point left, `svnadmin recover`,
stock verify and every revision's revprops and content compared with
what was committed (after an error also: an svn error naming a file, the
repository as before).  `make torture` runs the full campaigns.
Tests are named test_torture_<campaign>_<operation>.

Also here: the interposer's coverage of the calls that change files
(against the imports of the module and of the libraries that do its
I/O), the oracle's own must-fail case, and the defects the campaigns
found, each aimed at its failing call.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fsfs7test as T  # noqa: E402

sys.path.insert(0, os.path.join(T.TOP_SRCDIR, "tools", "torture"))
os.environ.setdefault("FAULT_SO", os.path.join(T.TOP_BUILDDIR, "tools",
                                               "torture", "fault.so"))
import campaign as C  # noqa: E402

_POINTS = os.environ.get("TORTURE_CHECK_POINTS")
CRASH_POINTS = int(_POINTS or ("40" if T.SLOW else "2"))
ERROR_POINTS = int(_POINTS or ("40" if T.SLOW else "2"))
SEED = 11
WORK = None
OPS = {}


def setup():
    global WORK
    if not os.path.exists(C.FAULT_SO):
        raise T.SetupError("no interposer at %s (make tools/torture/fault.so)"
                           % C.FAULT_SO)
    WORK = tempfile.mkdtemp(prefix="fsfs7-torture-")


def prepared(name):
    """The operation's template and reference run, built once."""
    if name not in OPS:
        op = C.OP_CLASSES[name](WORK, SEED)
        op.moddir = T.MODULE_DIR
        try:
            op.build()
        except RuntimeError as e:
            raise T.SetupError(str(e))
        why = op.reference(T.MODULE_DIR)
        total = 0 if why else C.count_calls(op, T.MODULE_DIR)
        OPS[name] = (op, why, total)
    return OPS[name]


class Torture(unittest.TestCase):
    def sweep(self, campaign, name):
        op, why, total = prepared(name)
        if why:
            self.fail(why)
        self.assertGreater(total, 0, "the interposer counted no call")
        fails = []
        points = CRASH_POINTS if campaign == "crash" else ERROR_POINTS
        for n in C.choose_points(total, points, SEED, name + campaign):
            call, arg, rc, outcome, detail = C.point(op, T.MODULE_DIR,
                                                     campaign, n)
            T.log("%s %s n=%d/%d %s %s -> %s %s" % (
                campaign, name, n, total, call, arg, outcome, detail))
            if outcome == "FAIL":
                fails.append("n=%d %s %s: %s" % (n, call, arg, detail))
        self.assertEqual(fails, [])


# libc functions that change a file or a name, whoever imports them; each
# must be interposed.  Not in the list, on purpose: stdio's fwrite/fputs/
# fprintf/fputc (the libraries write only stdout/stderr through stdio;
# fault.c counts those streams' fds when they are written with write())
# and POSIX shared memory and semaphores (shm_open, sem_open, ...: APR's
# process locks, in /dev/shm, not the repository).
MUTATING = set("""
    open open64 openat openat64 __open_2 __open64_2 __openat_2 __openat64_2
    creat creat64 fopen fopen64 freopen freopen64 mkstemp mkstemp64
    mkostemp mkostemp64 mkstemps mkostemps mkdtemp
    write writev pwrite pwrite64 pwritev pwritev64 pwritev2 pwritev64v2
    copy_file_range sendfile sendfile64 splice tee vmsplice
    ftruncate ftruncate64 truncate truncate64 fallocate fallocate64
    posix_fallocate posix_fallocate64
    fsync fdatasync syncfs sync_file_range msync
    rename renameat renameat2 link linkat symlink symlinkat
    unlink unlinkat remove rmdir mkdir mkdirat mknod mknodat mkfifo mkfifoat
    chmod fchmod fchmodat lchmod chown fchown lchown fchownat
    utime utimes lutimes futimes futimens utimensat futimesat
""".split())

# What the module imports from libc that changes no file.  A new import
# outside this list and fault.so's must be classified here or interposed.
# (glibc 2.38 and later, Debian 13's, bind strtol and kin to their C23
# names __isoc23_*.)
MODULE_READ_ONLY = set("""
    __errno_location abort access calloc close closedir dirfd dlclose dlopen
    dlsym dlerror fdopendir free getenv getrlimit malloc memchr memcmp memcpy
    memmove memset mmap mmap64 munmap pread pread64 qsort readdir readdir64
    realloc realpath stpcpy strchr strcmp strcpy strdup strlen strncmp
    strrchr strstr strtol strtoul strtoll strtoull fstat fstat64 stat stat64
    lstat lstat64 lseek lseek64 read opendir __stack_chk_fail __memcpy_chk
    __memset_chk __strcpy_chk __sprintf_chk __snprintf_chk __vsnprintf_chk
    __fprintf_chk __printf_chk snprintf vsnprintf sprintf memrchr strnlen
    strerror strerror_r time clock_gettime gettimeofday getpid sysconf
    __assert_fail __ctype_b_loc __ctype_tolower_loc __ctype_toupper_loc
    bsearch strncpy strcspn strspn strtok_r abs labs atoi atol fcntl fcntl64
    flock getuid geteuid sched_yield usleep nanosleep __cxa_finalize
    __cxa_atexit atexit
    __isoc23_strtol __isoc23_strtoul __isoc23_strtoll __isoc23_strtoull
""".split())


def dynamic_symbols(path, defined):
    """Names a shared object imports (DEFINED False) or exports."""
    flag = "--defined-only" if defined else "--undefined-only"
    out = subprocess.run(["nm", "-D", flag, path], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return {line.split()[-1].split("@")[0] for line in out.splitlines()
            if line.strip()}


def linked_libraries(path):
    """{soname: path} of what the loader maps with PATH."""
    out = subprocess.run(["ldd", path], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return dict(re.findall(r"^\s*(\S+) => (/\S+)", out, re.M))


class Interposer(unittest.TestCase):
    """Every call that changes a file, made by the module or by the
    libraries that do its I/O, goes through fault.so (issue 30: renameat2,
    mkdir, chmod, mkstemp... were not counted, so no crash or error was
    ever injected there)."""

    def setUp(self):
        self.module = os.path.join(T.MODULE_DIR, "libsvn_fs_fs-1.so.1")
        self.ours = dynamic_symbols(C.FAULT_SO, True)
        libs = linked_libraries(self.module)
        self.libc = dynamic_symbols(libs["libc.so.6"], True)
        self.io_libs = {n: p for n, p in libs.items() if re.match(
            r"lib(apr-1|aprutil-1|svn_subr-1|sqlite3)\.so", n)}

    def test_torture_interposer_covers_module_imports(self):
        imported = dynamic_symbols(self.module, False) & self.libc
        self.assertIn("renameat2", imported & self.ours)
        unclassified = {x for x in imported - self.ours - MODULE_READ_ONLY
                        if not x.startswith("pthread_")}
        self.assertEqual(sorted(unclassified), [],
                         "libc calls of the module that fault.c neither "
                         "interposes nor lists as read-only")

    def test_torture_interposer_covers_io_libraries(self):
        self.assertEqual(len(self.io_libs), 4, self.io_libs)
        missing = {}
        for name, path in self.io_libs.items():
            gap = dynamic_symbols(path, False) & MUTATING - self.ours
            if gap:
                missing[name] = sorted(gap)
        self.assertEqual(missing, {})
        # The ones the module's I/O really goes through.
        self.assertLessEqual({"mkstemp", "chmod", "mkdir", "rmdir", "link",
                              "fchown", "fchmod", "utime", "symlink"},
                             self.ours)

    def test_torture_interposer_counts_a_mkstemp_and_renameat2(self):
        # A load: libsvn_subr's temporary files (apr_file_mktemp, i.e.
        # mkstemp) and fsfs7's spare files (renameat2) are counted.
        op, why, _ = prepared("load3")
        if why:
            self.fail(why)
        names = set(C.trace_calls(op, T.MODULE_DIR).values())
        self.assertLessEqual({"mkstemp", "chmod", "mkdir", "renameat2",
                              "rename", "unlinkat", "fdatasync"}, names)


class Oracle(unittest.TestCase):
    """The checks themselves must be able to fail."""

    def test_torture_oracle_rejects_adopted_revprops(self):
        # The state issue 30's defect left: r3's revision file in place,
        # db/current at r2 and revprops/0/3 holding r2's revprops (a
        # recycled spare of r2's transaction).  Recover adopts r3, stock
        # verify passes; the revprops comparison must say what is wrong.
        op, why, _ = prepared("load3")
        if why:
            self.fail(why)
        pt = tempfile.mkdtemp(prefix="oracle-", dir=WORK)
        repo = os.path.join(pt, "repo")
        C.copytree(op.repo(op.tpl), repo)
        C.must(["svnadmin", "load", "-q", repo], C.stock_env(),
               stdin=op.dump)
        db = os.path.join(repo, "db")
        shutil.copyfile(os.path.join(db, "revprops", "0", "2"),
                        os.path.join(db, "revprops", "0", "3"))
        with open(os.path.join(db, "current"), "w") as f:
            f.write("2\n")
        out = b"<<< Committed revision 1 >>>\n<<< Committed revision 2 >>>\n"
        left = C.orphans(repo)
        self.assertEqual(left, ["revprops/0/3", "revs/0/3"])
        self.assertEqual(C.cut_commit(left), "COMMIT-5")
        problems, refused = C.check_recovery(op, T.MODULE_DIR, repo, out,
                                             left)
        self.assertIsNone(refused)
        self.assertEqual(len(problems), 1, problems)
        self.assertRegex(problems[0], r"r3: .*svn:log 'log message of bob', "
                         r"committed 'log message of carol'")
        shutil.rmtree(pt)

    def test_torture_oracle_compare_rev(self):
        block = (b"K 7\nsvn:log\nV 1\nx\n"
                 b"K 8\nsvn:date\nV 27\n2026-01-01T00:00:00.000000Z\n"
                 b"PROPS-END\n")
        sec = (b"Revision-number: 3\nProp-content-length: %d\n"
               b"Content-length: %d\n\n%s\nNode-path: a\n"
               % (len(block), len(block), block))
        props, rest = C.split_section(sec)
        self.assertEqual(props, {"svn:log": b"x",
                                 "svn:date": b"2026-01-01T00:00:00.000000Z"})
        self.assertEqual(rest, b"\nNode-path: a\n")
        self.assertIsNone(C.compare_rev(3, sec, sec))
        t = C.parse_date(b"2026-01-01T00:00:00.000000Z")
        self.assertIsNone(C.compare_rev(3, sec, sec, (t, t)))
        self.assertRegex(C.compare_rev(3, sec, sec, (t + 60, t + 61)),
                         "svn:date .* outside")
        other = sec.replace(b"V 1\nx", b"V 1\ny")
        self.assertRegex(C.compare_rev(3, other, sec),
                         r"r3: svn:log 'y', committed 'x'")
        self.assertRegex(C.compare_rev(3, sec + b"x", sec), "content differs")


class Regressions(unittest.TestCase):
    """Defects the campaigns found, each pinned to its failing call."""

    def aimed(self, name, mode, match, n=1, calls=None):
        """Run operation NAME with the Nth call on a path containing MATCH
        killed (MODE "kill") or failed (the errno rotates with N: 1 is
        EIO); returns the point's result as the campaign judges it."""
        op, why, _ = prepared(name)
        if why:
            self.fail(why)
        return C.point(op, T.MODULE_DIR, "crash" if mode == "kill"
                       else "errors", n, match=match, calls=calls)

    def test_torture_load_kill_in_revprops_of_r3(self):
        # Issue 30: r3's revprops file was a recycled spare of r2's
        # transaction, renamed to revprops/0/3 before its new bytes were
        # written.  Killed at the first write there, the load left r3's
        # revision file and that file; `svnadmin recover` adopted r3 with
        # another file's bytes (r2's revprops: `svn log -r3` showed r2's
        # message, or a node's listing), and verify passed or failed
        # depending on which spare it was.  Every call on that name, and
        # on the file r3's revprops are written to first since (COMMIT-5:
        # props-final of r3's transaction, 2-2), is killed in turn; none
        # may FAIL.
        op, why, _ = prepared("load3")
        fails = []
        for match in ("revprops/0/3", "2-2.txn/props-final"):
            total = C.count_calls(op, T.MODULE_DIR, match)
            if match == "revprops/0/3":
                self.assertGreater(total, 0)
            for n in range(1, total + 1):
                call, arg, rc, outcome, detail = self.aimed(
                    "load3", "kill", match, n)
                T.log("%s n=%d %s %s -> %s %s" % (match, n, call, arg,
                                                  outcome, detail))
                if outcome == "FAIL":
                    fails.append("%s n=%d %s: %s" % (match, n, call, detail))
        self.assertEqual(fails, [])

    def test_torture_recover_after_kill_in_repcache_creation(self):
        # Found by the recover checks: the first commit that stores a rep
        # creates rep-cache.db; killed at the open of its first journal,
        # it leaves an empty (0-byte) rep-cache.db.  Commits go on (the
        # schema is made on the next open), but fsfs7's `svnadmin
        # recover` failed: "Cannot remove rows after r1 from
        # '.../db/rep-cache.db': no such table: rep_cache"; stock's
        # recover makes the schema and succeeds.
        call, arg, rc, outcome, detail = self.aimed(
            "load3", "kill", "rep-cache.db-journal", 1, calls="open")
        self.assertIn("rep-cache.db-journal", arg)
        self.assertNotEqual(outcome, "FAIL", detail)

    def test_torture_hotcopy_cut_copy_takes_no_shadowed_commit(self):
        # Found by the recover checks: killed at the move of r8's revision
        # file, fsfs7's incremental hotcopy left a copy whose
        # min-unpacked-rev (8) was ahead of db/current (3); a commit into
        # it reported "r4 committed by judy at 2015-..." -- the source's
        # r4, which the copied pack holds, shadowed the new revision --
        # and stock verify then failed ("No such revision 5").  Stock's
        # commit refuses that state (an assertion that the new revision
        # is not packed).
        call, arg, rc, outcome, detail = self.aimed(
            "hotcopy-incr", "kill", "revs/2/8", 1, calls="rename")
        self.assertIn("revs/2/8", arg)
        self.assertNotEqual(outcome, "FAIL", detail)

    def test_torture_hotcopy_repcache_error_names_file(self):
        # Found by the I/O-error campaign: a failed write of the copy's
        # rep-cache.db gave "Cannot copy rep-cache.db: disk I/O error",
        # naming neither the source nor the destination file.
        call, arg, rc, outcome, detail = self.aimed("hotcopy-incr", "eio",
                                                    "rep-cache.db")
        self.assertIn("rep-cache.db", arg)
        self.assertNotEqual(rc, 0)
        self.assertEqual(outcome, "OK", detail)
        self.assertRegex(detail, r"'[^']*/repo/db/rep-cache\.db'")

    def test_torture_hotcopy_kill_in_pack_keeps_repcache_valid(self):
        # Found by the crash campaign: the incremental copy took the
        # source's rep-cache.db (rows up to the source's youngest) before
        # any revision, so a kill while copying a pack shard left a copy
        # whose rep-cache named revisions it did not have: stock verify
        # failed with E160006 "No such revision 9".
        call, arg, rc, outcome, detail = self.aimed("hotcopy-incr", "kill",
                                                    "revs/1.pack/")
        self.assertIn("revs/1.pack/", arg)
        self.assertEqual(outcome, "OK", detail)

    def test_torture_load_repcache_creation_is_atomic(self):
        # Found by the I/O-error campaign: the module created rep-cache.db
        # with two statements (CREATE TABLE, then PRAGMA user_version), so
        # a failure or a kill between them left the table without the
        # version, and stock then failed every verify and commit with
        # "table rep_cache already exists".  Calls 8-13 on rep-cache.db*
        # are the second statement's journal (open, fchown, writes).
        for mode in ("eio", "kill"):
            for n in (8, 10, 13):
                call, arg, rc, outcome, detail = self.aimed(
                    "load", mode, "rep-cache.db", n)
                self.assertIn("rep-cache.db", arg)
                self.assertNotEqual(outcome, "FAIL",
                                    "%s n=%d %s: %s" % (mode, n, call, detail))

    def test_torture_recover_min_unpacked_rev_error_names_file(self):
        # Found while checking run 7's TOLERATED points: recover took an
        # unreadable db/min-unpacked-rev (EIO, not only a missing file) as
        # "nothing packed", looked for r0's file, which the pack removed,
        # and failed with "No revision files found, not even r0", naming
        # no file (stock: "Can't open file '.../db/min-unpacked-rev'").
        # The recover template has shard 0 packed since.
        call, arg, rc, outcome, detail = self.aimed("recover", "eio",
                                                    "min-unpacked-rev")
        self.assertIn("db/min-unpacked-rev", arg)
        self.assertNotEqual(rc, 0)
        self.assertEqual(outcome, "OK", detail)
        self.assertRegex(detail, r"'[^']*/repo/db/min-unpacked-rev'")


def _add(campaign, name):
    def test(self):
        self.sweep(campaign, name)
    setattr(Torture, "test_torture_%s_%s" % (campaign, name.replace("-", "_")),
            test)


for _c in ("crash", "errors"):
    for _n in C.OPS:
        _add(_c, _n)


if __name__ == "__main__":
    try:
        T.main("torture", setup, sys.modules[__name__])
    finally:
        if WORK:
            shutil.rmtree(WORK, ignore_errors=True)
