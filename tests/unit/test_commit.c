/* test_commit.c --- commits through our module compared with the stock
 * module (commit.c; doc/format/commit.md).
 *
 * Each case runs the same svnmucc script against a repository committed
 * by the stock module and one committed through ours (tools/fsfs7-run),
 * then demands: stock 'svnadmin verify' accepts ours, and the revision
 * files are byte-identical (the commit writes exactly what stock writes
 * for these simple trees), and the rep-cache rows agree.  Revision 4 re-adds known contents
 * twice, so that reps are shared through rep-cache.db.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <apr_general.h>
#include "svn_pools.h"
#include <unistd.h>
#include "test_util.h"

#include "svn_dirent_uri.h"
#include "svn_io.h"

static apr_pool_t *pool;

/* Run shell command CMD (printf-style); its exit status. */
static int
sh(apr_pool_t *p, const char *fmt, ...)
{
  va_list ap;
  const char *cmd;

  va_start(ap, fmt);
  cmd = apr_pvsprintf(p, fmt, ap);
  va_end(ap);
  return system(cmd);
}

/* Scratch directory for this process. */
static const char *
scratch_dir(apr_pool_t *p)
{
  const char *dir = apr_psprintf(p, "/tmp/commit-test-%ld",
                                 (long)getpid());
  assert_int_equal(0, sh(p, "rm -rf %s && mkdir -p %s && "
                         "printf 'hello\\n' > %s/a && printf 'x\\n' > %s/b "
                         "&& printf 'hello\\nmore\\n' > %s/c",
                         dir, dir, dir, dir, dir));
  return dir;
}

/* The four-revision scenario (r4 shares reps through rep-cache.db) against repository REPO, through RUNNER
   ("" for stock). */
static int
scenario(apr_pool_t *p, const char *run, const char *dir,
         const char *repo)
{
  const char *u = apr_psprintf(p, "file://%s/%s", dir, repo);

  return sh(p, "cd %s && %s svnmucc -m one mkdir %s/d put a %s/d/f "
            "put b %s/g propset p v %s/d propset q w %s/g >/dev/null && "
            "%s svnmucc -m two put c %s/d/f >/dev/null && "
            "%s svnmucc -m three cp 2 %s/d %s/e rm %s/g >/dev/null && "
            "%s svnmucc -m four put a %s/h put a %s/i >/dev/null",
            dir, run, u, u, u, u, u, run, u, run, u, u, u, run, u, u);
}

/* The fsfs7-run wrapper of this build tree. */
static const char *
runner(apr_pool_t *p)
{
  const char *top = getenv("abs_top_srcdir");
  char cwd[4096];

  if (!top)
    top = getenv("srcdir");
  if (!top && getcwd(cwd, sizeof(cwd)))
    top = cwd;
  if (!top)
    top = ".";
  /* The scenarios cd into their scratch directory. */
  if (top[0] != '/' && getcwd(cwd, sizeof(cwd)))
    top = apr_psprintf(p, "%s/%s", cwd, top);
  return apr_psprintf(p, "%s/tools/fsfs7-run", top);
}

/* One format (stock's --compatible-version VERSION). */
static void
compare_format(const char *version, apr_pool_t *p)
{
  const char *dir = scratch_dir(p);
  int r;

  assert_int_equal(0, sh(p, "cd %s && svnadmin create --compatible-version"
                         " %s s && svnadmin create --compatible-version %s o",
                         dir, version, version));
  assert_int_equal(0, scenario(p, "", dir, "s"));
  assert_int_equal(0, scenario(p, runner(p), dir, "o"));
  assert_int_equal(0, sh(p, "svnadmin verify -q %s/o", dir));
  for (r = 1; r <= 4; r++)
    assert_int_equal(0, sh(p, "cmp -s %s/s/db/revs/0/%d %s/o/db/revs/0/%d",
                           dir, r, dir, r));
  assert_int_equal(0, sh(p, "cd %s && for x in s o; do sqlite3 "
                         "$x/db/rep-cache.db 'select * from rep_cache order "
                         "by hash' > $x.rc; done && cmp -s s.rc o.rc", dir));
  assert_int_equal(0, sh(p, "test \"$(svnlook youngest %s/o)\" = 4 && "
                         "test -z \"$(svnadmin lstxns %s/o)\"", dir, dir));
  sh(p, "rm -rf %s", dir);
}

static void test_format6(void **state) { compare_format("1.8", pool); }
static void test_format7(void **state) { compare_format("1.9", pool); }
static void test_format8(void **state) { compare_format("1.10", pool); }

/* A commit whose changed-path list (about 150 kB) is written out in
   several chunks and whose transaction files (changes, proto indexes)
   are larger than the first read buffer: 1300 files with long names
   imported at once.  Stock verifies ours and the revision files are
   byte-identical. */
static void
test_many_changes(void **state)
{
  apr_pool_t *p = svn_pool_create(pool);
  const char *dir = scratch_dir(p);

  assert_int_equal(0, sh(p, "cd %s && mkdir t && for i in $(seq 1300); do "
                         "echo $i > t/file-with-a-rather-long-name-so-that-"
                         "the-changes-list-grows-quickly-$i.txt; done && "
                         "svnadmin create --compatible-version 1.9 s && "
                         "svnadmin create --compatible-version 1.9 o && "
                         "svn import -q -m m t file://%s/s/t && "
                         "%s svn import -q -m m t file://%s/o/t",
                         dir, dir, runner(p), dir));
  assert_int_equal(0, sh(p, "svnadmin verify -q %s/o", dir));
  assert_int_equal(0, sh(p, "test $(svnlook changed %s/o | wc -l) = 1301",
                         dir));
  assert_int_equal(0, sh(p, "cmp -s %s/s/db/revs/0/1 %s/o/db/revs/0/1",
                         dir, dir));
  sh(p, "rm -rf %s", dir);
  svn_pool_destroy(p);
}

/* A path locked by someone else: the commit fails with stock's
   E160039 (lock owner mismatch) and db/current does not move. */
static void
test_lock_refused(void **state)
{
  const char *dir = scratch_dir(pool);
  const char *u = apr_psprintf(pool, "file://%s/o", dir);

  assert_int_equal(0, sh(pool, "cd %s && svnadmin create o && svnmucc -m 1 "
                         "put a %s/f >/dev/null && svn lock -q --username "
                         "alice %s/f", dir, u, u));
  assert_int_not_equal(0, sh(pool, "cd %s && %s svnmucc --username bob -m 2 "
                             "put c %s/f > out 2>&1", dir, runner(pool), u));
  assert_int_equal(0, sh(pool, "grep -q E160039 %s/out", dir));
  assert_int_equal(0, sh(pool, "test \"$(svnlook youngest %s/o)\" = 1", dir));
  /* The owner without the token: E160037, as with stock. */
  assert_int_not_equal(0, sh(pool, "cd %s && %s svnmucc --username alice "
                             "-m 2 put c %s/f > out 2>&1", dir, runner(pool),
                             u));
  assert_int_equal(0, sh(pool, "grep -q E160037 %s/out", dir));
  assert_int_equal(0, sh(pool, "test \"$(svnlook youngest %s/o)\" = 1", dir));
  sh(pool, "rm -rf %s", dir);
}

/* Out of date at commit time: a pre-commit hook holds commit "slow"
   while "fast" commits.  A change elsewhere is merged in (the revision
   has both); a change of the same file is a conflict (E160024) and
   nothing is committed.  The hook's stock svnlook reads our txn. */
static void
test_merge_on_commit(void **state)
{
  const char *dir = scratch_dir(pool);
  const char *u = apr_psprintf(pool, "file://%s/o", dir);
  const char *run = runner(pool);

  assert_int_equal(0, sh(pool, "cd %s && svnadmin create o && %s svnmucc "
                         "-m init put a %s/x put a %s/y >/dev/null && printf "
                         "'#!/bin/sh\\nif /usr/bin/svnlook log -t \"$2\" "
                         "\"$1\" | grep -q slow; then sleep 2; fi\\n' > "
                         "o/hooks/pre-commit && chmod +x o/hooks/pre-commit",
                         dir, run, u, u));
  assert_int_equal(0, sh(pool, "cd %s && (%s svnmucc -m slow put b %s/x > "
                         "A 2>&1; echo $? > A.rc) & sleep 1; cd %s && %s "
                         "svnmucc -m fast put c %s/y >/dev/null && wait && "
                         "test $(cat A.rc) = 0", dir, run, u, dir, run, u));
  assert_int_equal(0, sh(pool, "cd %s && test \"$(svnlook cat o x)\" = x && "
                         "test \"$(svnlook cat o y)\" = \"$(cat c)\" && "
                         "test \"$(svnlook youngest o)\" = 3", dir));
  assert_int_equal(0, sh(pool, "cd %s && (%s svnmucc -m slow put a %s/x > "
                         "A 2>&1; echo $? > A.rc) & sleep 1; cd %s && %s "
                         "svnmucc -m fast put c %s/x >/dev/null && wait && "
                         "test $(cat A.rc) != 0 && grep -q E160024 A", dir,
                         run, u, dir, run, u));
  assert_int_equal(0, sh(pool, "cd %s && test \"$(svnlook youngest o)\" = 4 "
                         "&& test -z \"$(svnadmin lstxns o)\" && svnadmin "
                         "verify -q o", dir));
  sh(pool, "rm -rf %s", dir);
}

/* 'svnadmin load' of a generated history (tools/gen_history.py, 50
   revisions, seed 1 as the brief) through ours into formats 6, 7, 8: stock verifies it,
   dumps back identically to a stock load (dates aside), and the size of
   db/revs stays within 10% of stock's (our delta encoder differs). */
static void
test_load(void **state)
{
  const char *dir = scratch_dir(pool);
  const char *run = runner(pool);
  const char *top = apr_pstrndup(pool, run, strlen(run)
                                 - strlen("/tools/fsfs7-run"));
  const char *versions[] = { "1.8", "1.9", "1.10" };
  int i;

  assert_int_equal(0, sh(pool, "python3 %s/tools/gen_history.py --revs 50 "
                         "--seed 1 -o %s/h.dump", top, dir));
  for (i = 0; i < 3; i++)
    {
      assert_int_equal(0, sh(pool, "cd %s && rm -rf s o && svnadmin create "
                             "--compatible-version %s s && svnadmin create "
                             "--compatible-version %s o && svnadmin load -q "
                             "s < h.dump && %s svnadmin load -q o < h.dump",
                             dir, versions[i], versions[i], run));
      assert_int_equal(0, sh(pool, "svnadmin verify -q %s/o", dir));
      assert_int_equal(0, sh(pool, "cd %s && for x in s o; do svnadmin dump "
                             "-q $x | grep -a -v '^20[0-9][0-9]-' > $x.d; "
                             "done && cmp -s s.d o.d", dir));
      assert_int_equal(0, sh(pool, "cd %s && s=$(du -sb s/db/revs | cut -f1)"
                             " && o=$(du -sb o/db/revs | cut -f1) && test "
                             "$((o * 10)) -gt $((s * 9)) && test $((o * 10)) "
                             "-lt $((s * 11))", dir));
    }
  sh(pool, "rm -rf %s", dir);
}

/* Transactions begun by one module and committed by the other, in both
   directions, on f6/f7/f8 (tests/integration/txn_tool drives one step
   per process; skipped when it is not built). */
static void
test_cross_module(void **state)
{
  const char *dir = scratch_dir(pool);
  const char *run = runner(pool);
  const char *tool = apr_psprintf(pool, "%.*s/tests/integration/txn_tool",
                                  (int)(strlen(run)
                                        - strlen("/tools/fsfs7-run")), run);
  const char *versions[] = { "1.8", "1.9", "1.10" };
  int i;

  if (sh(pool, "test -x %s", tool) != 0)
    skip();
  for (i = 0; i < 3; i++)
    {
      const char *r = apr_psprintf(pool, "%s/r%d", dir, i);

      assert_int_equal(0, sh(pool, "svnadmin create --compatible-version %s"
                             " %s", versions[i], r));
      /* stock begins and edits, ours edits too and commits */
      assert_int_equal(0, sh(pool, "T=%s; t=$($T begin %s) && $T mkdir %s "
                             "$t /d && $T edit %s $t /d/f hello && %s $T "
                             "edit %s $t /g world && test \"$(%s $T commit "
                             "%s $t)\" = 1", tool, r, r, r, run, r, run, r));
      /* ours begins and edits, stock commits */
      assert_int_equal(0, sh(pool, "T=%s; t=$(%s $T begin %s) && %s $T edit "
                             "%s $t /d/f hello2 && test \"$($T commit %s $t)"
                             "\" = 2", tool, run, r, run, r, r));
      assert_int_equal(0, sh(pool, "svnadmin verify -q %s && test \"$("
                             "svnlook cat %s d/f)\" = hello2 && test -z "
                             "\"$(svnadmin lstxns %s)\"", r, r, r));
    }
  sh(pool, "rm -rf %s", dir);
}

/* svn:date of a transaction begun with SVN_FS_TXN_CLIENT_DATE: the
   client's when it set one, none when it deleted it, else the commit
   time -- the same through ours and through stock
   (tests/unit/commit_date_tool). */
static void
test_client_date(void **state)
{
  const char *dir = scratch_dir(pool);
  const char *run = runner(pool);
  const char *tool = apr_psprintf(pool, "%.*s/tests/unit/commit_date_tool",
                                  (int)(strlen(run)
                                        - strlen("/tools/fsfs7-run")), run);
  const char *date = "2001-02-03T04:05:06.000007Z";

  if (sh(pool, "test -x %s", tool) != 0)
    skip();
  assert_int_equal(0, sh(pool, "svnadmin create %s/o", dir));
  assert_int_equal(0, sh(pool, "test \"$(%s %s %s/o %s)\" = %s", run, tool,
                         dir, date, date));
  assert_int_equal(0, sh(pool, "test \"$(%s %s %s/o)\" \\> "
                         "2020-01-01T00:00:00.000000Z", run, tool, dir));
  assert_int_equal(0, sh(pool, "test \"$(%s %s/o %s)\" = %s", tool, dir,
                         date, date));
  /* Deleted by the client: the revision has no svn:date (fs-test 41). */
  assert_int_equal(0, sh(pool, "test -z \"$(%s %s %s/o delete)\"", run,
                         tool, dir));
  assert_int_equal(0, sh(pool, "test -z \"$(%s %s/o delete)\"", tool, dir));
  /* Not set by the client: the commit time, not the begin time. */
  assert_int_equal(0, sh(pool, "test \"$(%s %s %s/o wait)\" = later", run,
                         tool, dir));
  assert_int_equal(0, sh(pool, "svnadmin verify -q %s/o && test \"$("
                         "svnlook date -r1 %s/o | cut -c1-4)\" = 2001",
                         dir, dir));
  sh(pool, "rm -rf %s", dir);
}

/* A new shard: revision 4 of a repository with 4 revisions per shard. */
static void
test_new_shard(void **state)
{
  const char *dir = scratch_dir(pool);
  const char *u = apr_psprintf(pool, "file://%s/o", dir);

  assert_int_equal(0, sh(pool, "cd %s && svnadmin create o && sed -i "
                         "'2s/.*/layout sharded 4/' o/db/format", dir));
  assert_int_equal(0, sh(pool, "cd %s && for i in 1 2 3 4 5; do %s svnmucc "
                         "-m $i mkdir %s/d$i >/dev/null || exit 1; done",
                         dir, runner(pool), u));
  assert_int_equal(0, sh(pool, "test -f %s/o/db/revs/1/5 && test -f "
                         "%s/o/db/revprops/1/4", dir, dir));
  assert_int_equal(0, sh(pool, "svnadmin verify -q %s/o", dir));
  sh(pool, "rm -rf %s", dir);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_format6),
    cmocka_unit_test(test_format7),
    cmocka_unit_test(test_format8),
    cmocka_unit_test(test_lock_refused),
    cmocka_unit_test(test_new_shard),
    cmocka_unit_test(test_merge_on_commit),
    cmocka_unit_test(test_load),
    cmocka_unit_test(test_cross_module),
    cmocka_unit_test(test_client_date),
    cmocka_unit_test(test_many_changes),
  };
  return RUN_TESTS_WITH_POOL(tests, pool);
}
