/* test_rep_cache.c --- db/rep-cache.db through rep_cache.c
 * (doc/format/rep-cache.md).
 *
 * A repository committed by the stock module gives the rows; we read
 * them, add rows (read back by stock's sqlite schema), and check the
 * guards: no row past youngest, no sharing when the contents differ.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include "test_util.h"

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_checksum.h"
#include <sqlite3.h>

#include "rep_cache.h"
#include "repo.h"

static apr_pool_t *pool;

/* A stock repository at a scratch path (suffix SUFFIX) holding "hello\n"
   at /f (r1) and, when WITH_COMMIT is FALSE, no rep-cache.db at all; *FS
   opened on it, with FS_POOL as its pool (NULL: a new one). */
static const char *
make_repo_in(svn_fs_t **fs, svn_boolean_t with_commit, const char *suffix,
             apr_pool_t *fs_pool)
{
  const char *dir = apr_psprintf(pool, "/tmp/commit-rc-%ld%s", (long)getpid(),
                                 suffix);
  const char *cmd = apr_psprintf(
    pool, "rm -rf %s && mkdir -p %s && cd %s && printf 'hello\\n' > a && "
    "svnadmin create --compatible-version 1.9 r %s", dir, dir, dir,
    with_commit ? "&& svnmucc -m 1 put a file://$PWD/r/f >/dev/null" : "");
  svn_error_t *err;

  assert_int_equal(0, system(cmd));
  *fs = apr_pcalloc(pool, sizeof(**fs));
  (*fs)->pool = fs_pool ? fs_pool : svn_pool_create(pool);
  err = svn_fs_fs__open_repo(*fs, svn_dirent_join(dir, "r/db", pool), pool);
  /* Caches need the loader's membuffer; without it open says so last. */
  if (err && err->apr_err == SVN_ERR_UNSUPPORTED_FEATURE)
    svn_error_clear(err);
  else if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "test_rep_cache: ");
      fail();
    }
  return dir;
}

static const char *
make_repo(svn_fs_t **fs, svn_boolean_t with_commit)
{
  return make_repo_in(fs, with_commit, "", NULL);
}

/* The SHA-1 / MD5 digests of DATA. */
static const unsigned char *
digest(const char *data, svn_checksum_kind_t kind)
{
  svn_checksum_t *sum;

  assert_null(svn_checksum(&sum, kind, data, strlen(data), pool));
  return sum->digest;
}

/* *A = the row of "abc\n" (size 10, expanded 4, with its SHA-1) stored
   as item ITEM of revision REV. */
static void
abc_row(svn_fs_fs__rep_t *a, svn_revnum_t rev, apr_uint64_t item)
{
  memset(a, 0, sizeof(*a));
  a->revision = rev;
  a->item_index = item;
  a->size = 10;
  a->expanded_size = 4;
  a->has_sha1 = TRUE;
  memcpy(a->sha1_digest, digest("abc\n", svn_checksum_sha1),
         APR_SHA1_DIGESTSIZE);
}

/* Stock's row for "hello\n" is found, with the values stock wrote. */
static void
test_get_stock_row(void **state)
{
  svn_fs_t *fs;
  svn_fs_fs__rep_t *rep;
  const char *dir = make_repo(&fs, TRUE);

  assert_null(svn_fs_fs__rep_cache_get(&rep, fs, digest("hello\n",
                                       svn_checksum_sha1), pool, pool));
  assert_non_null(rep);
  assert_int_equal(1, rep->revision);
  assert_int_equal(6, rep->expanded_size);
  assert_true(rep->has_sha1);
  assert_null(svn_fs_fs__rep_cache_get(&rep, fs, digest("other\n",
                                       svn_checksum_sha1), pool, pool));
  assert_null(rep);
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* The guard before sharing: same size and MD5 share, anything else
   does not. */
static void
test_match_guard(void **state)
{
  svn_fs_t *fs;
  svn_fs_fs__rep_t *found, new_rep;
  svn_boolean_t match;
  svn_error_t *err;
  const char *dir = make_repo(&fs, TRUE);

  memset(&new_rep, 0, sizeof(new_rep));
  new_rep.expanded_size = 6;
  memcpy(new_rep.md5_digest, digest("hello\n", svn_checksum_md5),
         APR_MD5_DIGESTSIZE);
  assert_null(svn_fs_fs__rep_cache_get(&found, fs, digest("hello\n",
                                       svn_checksum_sha1), pool, pool));
  assert_null(svn_fs_fs__rep_cache_match(&match, fs, found, &new_rep, pool));
  assert_true(match);
  /* Same size, other contents (a pretend SHA-1 collision): an error, as
     with stock, not a silent second copy (fs-test 67). */
  memcpy(new_rep.md5_digest, digest("jello\n", svn_checksum_md5),
         APR_MD5_DIGESTSIZE);
  err = svn_fs_fs__rep_cache_match(&match, fs, found, &new_rep, pool);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_AMBIGUOUS_CHECKSUM_REP);
  svn_error_clear(err);
  assert_false(match);
  new_rep.expanded_size = 7;
  assert_null(svn_fs_fs__rep_cache_match(&match, fs, found, &new_rep, pool));
  assert_false(match);
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* Adding creates rep-cache.db with stock's schema; rows past youngest
   are never handed out; rows already there are kept. */
static void
test_add(void **state)
{
  svn_fs_t *fs;
  svn_fs_fs__rep_t *rep, a, b;
  apr_array_header_t *reps = apr_array_make(pool, 2, sizeof(void *));
  const char *dir = make_repo(&fs, FALSE);

  abc_row(&a, 0, 3);
  b = a;
  b.revision = 7;
  memcpy(b.sha1_digest, digest("def\n", svn_checksum_sha1),
         APR_SHA1_DIGESTSIZE);
  APR_ARRAY_PUSH(reps, svn_fs_fs__rep_t *) = &a;
  APR_ARRAY_PUSH(reps, svn_fs_fs__rep_t *) = &b;
  assert_null(svn_fs_fs__rep_cache_add(fs, reps, pool));
  assert_null(svn_fs_fs__rep_cache_add(fs, reps, pool));
  /* r0 rows are never shared, r7 does not exist. */
  assert_null(svn_fs_fs__rep_cache_get(&rep, fs, b.sha1_digest, pool, pool));
  assert_null(rep);
  assert_int_equal(0, system(apr_psprintf(pool,
    "cd %s && test \"$(sqlite3 r/db/rep-cache.db 'select count(*) from "
    "rep_cache')\" = 2 && test \"$(sqlite3 r/db/rep-cache.db "
    "'pragma user_version')\" = 1 && sqlite3 r/db/rep-cache.db .schema | "
    "grep -q 'expanded_size INTEGER NOT NULL'", dir)));
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* Without rep-cache.db, get finds nothing and creates nothing. */
static void
test_missing_db(void **state)
{
  svn_fs_t *fs;
  svn_fs_fs__rep_t *rep;
  const char *dir = make_repo(&fs, FALSE);

  assert_null(svn_fs_fs__rep_cache_get(&rep, fs, digest("x",
                                       svn_checksum_sha1), pool, pool));
  assert_null(rep);
  assert_int_equal(0, system(apr_psprintf(pool,
                   "test ! -e %s/r/db/rep-cache.db", dir)));
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* A rep-cache.db that exists without its table (another process's first
   commit made the file and has not yet made the table): get finds
   nothing, without an error; add makes the table and its rows. */
static void
test_db_without_table(void **state)
{
  svn_fs_t *fs;
  svn_fs_fs__rep_t *rep, a;
  apr_array_header_t *reps = apr_array_make(pool, 1, sizeof(void *));
  const char *dir = make_repo(&fs, FALSE);

  assert_int_equal(0, system(apr_psprintf(pool,
                   "touch %s/r/db/rep-cache.db", dir)));
  assert_null(svn_fs_fs__rep_cache_get(&rep, fs, digest("x",
                                       svn_checksum_sha1), pool, pool));
  assert_null(rep);
  abc_row(&a, 1, 0);
  APR_ARRAY_PUSH(reps, svn_fs_fs__rep_t *) = &a;
  assert_null(svn_fs_fs__rep_cache_add(fs, reps, pool));
  assert_int_equal(0, system(apr_psprintf(pool,
    "cd %s && test \"$(sqlite3 r/db/rep-cache.db 'select count(*) from "
    "rep_cache')\" = 1", dir)));
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* A failed insert reports what SQLite said, not the "not an error" of
   the ROLLBACK that ends the transaction (issue 30, defect 5), and the
   connection is usable again afterwards.  A trigger refuses the rows:
   the tests run as root, whom a read-only file would not stop. */
static void
test_add_error_message(void **state)
{
  svn_fs_t *fs;
  svn_fs_fs__rep_t a;
  apr_array_header_t *reps = apr_array_make(pool, 1, sizeof(void *));
  const char *dir = make_repo(&fs, TRUE);
  svn_error_t *err;

  assert_int_equal(0, system(apr_psprintf(pool,
    "sqlite3 %s/r/db/rep-cache.db \"CREATE TRIGGER refuse BEFORE INSERT "
    "ON rep_cache BEGIN SELECT RAISE(ABORT, 'refused by the test "
    "trigger'); END;\"", dir)));
  abc_row(&a, 1, 3);
  APR_ARRAY_PUSH(reps, svn_fs_fs__rep_t *) = &a;
  err = svn_fs_fs__rep_cache_add(fs, reps, pool);
  assert_non_null(err);
  assert_non_null(strstr(err->message, "refused by the test trigger"));
  svn_error_clear(err);
  assert_int_equal(0, system(apr_psprintf(pool,
    "sqlite3 %s/r/db/rep-cache.db 'DROP TRIGGER refuse'", dir)));
  assert_null(svn_fs_fs__rep_cache_add(fs, reps, pool));
  assert_int_equal(0, system(apr_psprintf(pool,
    "test \"$(sqlite3 %s/r/db/rep-cache.db 'select count(*) from "
    "rep_cache')\" = 2", dir)));
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* A new rep-cache.db gets the permissions of db/current, as with stock,
   not the umask's: in a group-shared repository every member must be
   able to add rows (issue 30). */
static void
test_new_db_perms(void **state)
{
  svn_fs_t *fs;
  const char *dir = make_repo(&fs, FALSE);
  apr_array_header_t *reps = apr_array_make(pool, 1, sizeof(void *));
  struct stat st;

  assert_int_equal(0, system(apr_psprintf(pool,
                   "chmod 0660 %s/r/db/current", dir)));
  assert_null(svn_fs_fs__rep_cache_add(fs, reps, pool));
  assert_int_equal(0, stat(apr_psprintf(pool, "%s/r/db/rep-cache.db", dir),
                           &st));
  assert_int_equal(0660, st.st_mode & 07777);
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* Two svn_fs_t in one pool (libsvn_fs gives each the caller's pool, as
   in fs-test 67): each adds to and reads its own repository's
   rep-cache.db. */
static void
test_two_fs_one_pool(void **state)
{
  apr_pool_t *shared = svn_pool_create(pool);
  svn_fs_t *fs1, *fs2;
  svn_fs_fs__rep_t a, *rep;
  apr_array_header_t *reps = apr_array_make(pool, 1, sizeof(void *));
  const char *dir1 = make_repo_in(&fs1, TRUE, "-1", shared);
  const char *dir2 = make_repo_in(&fs2, FALSE, "-2", shared);

  /* fs1 opens its database first. */
  assert_null(svn_fs_fs__rep_cache_get(&rep, fs1, digest("hello\n",
                                       svn_checksum_sha1), pool, pool));
  assert_non_null(rep);
  assert_null(svn_fs_fs__rep_cache_get(&rep, fs2, digest("hello\n",
                                       svn_checksum_sha1), pool, pool));
  assert_null(rep);
  abc_row(&a, 1, 3);
  APR_ARRAY_PUSH(reps, svn_fs_fs__rep_t *) = &a;
  assert_null(svn_fs_fs__rep_cache_add(fs2, reps, pool));
  assert_int_equal(0, system(apr_psprintf(pool,
    "test \"$(sqlite3 %s/r/db/rep-cache.db 'select count(*) from "
    "rep_cache')\" = 1 && test \"$(sqlite3 %s/r/db/rep-cache.db "
    "'select count(*) from rep_cache')\" = 1", dir1, dir2)));
  svn_pool_destroy(shared);
  system(apr_psprintf(pool, "rm -rf %s %s", dir1, dir2));
}

/* A reader holding rep-cache.db makes adding fail with
   SVN_ERR_SQLITE_BUSY (what fs-test 65 expects of a commit), and the
   connection is usable again once the reader is gone.  Waits out the
   10 s busy timeout, so only under FSFS7_SLOW. */
/* Whether this process has a descriptor open on a file whose path ends
   in SUFFIX. */
static int
has_fd_on(const char *suffix)
{
  int fd;

  for (fd = 0; fd < 1024; fd++)
    {
      char link[64], target[4096];
      ssize_t n;

      snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
      n = readlink(link, target, sizeof(target) - 1);
      if (n <= 0)
        continue;
      target[n] = '\0';
      if (strlen(target) >= strlen(suffix)
          && strcmp(target + strlen(target) - strlen(suffix), suffix) == 0)
        return 1;
    }
  return 0;
}

/* A child forked to run a hook (svnserve, mod_dav_svn) runs the pools'
   exec cleanups; the rep-cache connection must not be closed there:
   closing takes SQLite's connection mutex, which another thread may have
   held at the fork (a threaded svnserve hung in pre-revprop-change). */
static void
test_no_close_in_exec_child(void **state)
{
  svn_fs_t *fs;
  const char *dir = make_repo(&fs, TRUE);
  svn_fs_fs__rep_t *rep;
  pid_t pid;
  int status;

  assert_null(svn_fs_fs__rep_cache_get(&rep, fs, digest("hello\n",
                                       svn_checksum_sha1), pool, pool));
  assert_non_null(rep);
  assert_true(has_fd_on("/rep-cache.db"));
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    {
      apr_pool_cleanup_for_exec();
      _exit(has_fd_on("/rep-cache.db") ? 0 : 3);
    }
  assert_int_equal(pid, waitpid(pid, &status, 0));
  assert_true(WIFEXITED(status));
  assert_int_equal(0, WEXITSTATUS(status));
  svn_pool_destroy(fs->pool);
  assert_false(has_fd_on("/rep-cache.db"));
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

static void
test_add_busy(void **state)
{
  svn_fs_t *fs;
  svn_fs_fs__rep_t a;
  apr_array_header_t *reps = apr_array_make(pool, 1, sizeof(void *));
  sqlite3 *reader;
  svn_error_t *err;
  const char *dir, *slow = getenv("FSFS7_SLOW");

  if (!slow || !*slow || strcmp(slow, "0") == 0)
    skip();
  dir = make_repo(&fs, TRUE);
  abc_row(&a, 1, 3);
  APR_ARRAY_PUSH(reps, svn_fs_fs__rep_t *) = &a;
  assert_int_equal(SQLITE_OK, sqlite3_open(
    apr_psprintf(pool, "%s/r/db/rep-cache.db", dir), &reader));
  assert_int_equal(SQLITE_OK, sqlite3_exec(
    reader, "BEGIN; SELECT MAX(revision) FROM rep_cache;", NULL, NULL,
    NULL));
  err = svn_fs_fs__rep_cache_add(fs, reps, pool);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_SQLITE_BUSY);
  svn_error_clear(err);
  assert_int_equal(SQLITE_OK, sqlite3_exec(reader, "COMMIT", NULL, NULL,
                                           NULL));
  sqlite3_close(reader);
  assert_null(svn_fs_fs__rep_cache_add(fs, reps, pool));
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* ---- the walk reads the table once ----------------------------------- */

/* A default VFS that counts the reads of files named *rep-cache.db: the
   real VFS opens the file, then its methods are used through a copy
   whose xRead counts first. */
static sqlite3_vfs counting_vfs;
static sqlite3_io_methods counting_methods;
static int (*real_read)(sqlite3_file *, void *, int, sqlite3_int64);
static int (*real_open)(sqlite3_vfs *, const char *, sqlite3_file *, int,
                        int *);
static int rep_cache_reads;

static int
counting_read(sqlite3_file *f, void *buf, int amount, sqlite3_int64 offset)
{
  rep_cache_reads++;
  return real_read(f, buf, amount, offset);
}

static int
counting_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f,
              int flags, int *out_flags)
{
  int rc = real_open(sqlite3_vfs_find("unix"), name, f, flags, out_flags);
  size_t len = name ? strlen(name) : 0;

  if (rc == SQLITE_OK && f->pMethods && len >= 12
      && strcmp(name + len - 12, "rep-cache.db") == 0)
    {
      counting_methods = *f->pMethods;
      real_read = f->pMethods->xRead;
      counting_methods.xRead = counting_read;
      f->pMethods = &counting_methods;
    }
  return rc;
}

static svn_error_t *
count_row(void *baton, const svn_fs_fs__rep_t *rep, apr_pool_t *scratch_pool)
{
  (*(int *)baton)++;
  return SVN_NO_ERROR;
}

/* svn_fs_fs__rep_cache_walk of one revision reads rep-cache.db no more
   than one scan of its 3,000 rows does (the table has no index on
   revision: the largest revision and the rows in the range come from the
   same scan), and finds the rows and the largest revision. */
static void
test_walk_reads_table_once(void **state)
{
  svn_fs_t *fs;
  const char *dir = make_repo(&fs, TRUE);
  const char *db = svn_dirent_join(dir, "r/db/rep-cache.db", pool);
  sqlite3 *conn;
  sqlite3_stmt *stmt;
  svn_boolean_t exists;
  svn_revnum_t max;
  int one_scan, rows = 0, i;

  assert_int_equal(SQLITE_OK, sqlite3_open(db, &conn));
  assert_int_equal(SQLITE_OK, sqlite3_exec(conn, "BEGIN", NULL, NULL, NULL));
  for (i = 0; i < 3000; i++)
    assert_int_equal(SQLITE_OK, sqlite3_exec(conn, apr_psprintf(
      pool, "INSERT INTO rep_cache VALUES ('%040d', %d, 1, 10, 4)", i,
      i == 2999 ? 1 : 0), NULL, NULL, NULL));
  assert_int_equal(SQLITE_OK, sqlite3_exec(conn, "COMMIT", NULL, NULL, NULL));
  sqlite3_close(conn);

  counting_vfs = *sqlite3_vfs_find("unix");
  real_open = counting_vfs.xOpen;
  counting_vfs.xOpen = counting_open;
  counting_vfs.zName = "fsfs7-test-counting";
  assert_int_equal(SQLITE_OK, sqlite3_vfs_register(&counting_vfs, 1));
  /* What one scan of the table costs. */
  rep_cache_reads = 0;
  assert_int_equal(SQLITE_OK, sqlite3_open(db, &conn));
  assert_int_equal(SQLITE_OK, sqlite3_prepare_v2(
    conn, "SELECT revision, offset FROM rep_cache", -1, &stmt, NULL));
  while (sqlite3_step(stmt) == SQLITE_ROW)
    ;
  sqlite3_finalize(stmt);
  sqlite3_close(conn);
  one_scan = rep_cache_reads;
  rep_cache_reads = 0;
  assert_null(svn_fs_fs__rep_cache_walk(&exists, &max, fs, 1, 1, count_row,
                                        &rows, NULL, NULL, pool));
  sqlite3_vfs_unregister(&counting_vfs);
  assert_true(exists);
  assert_int_equal(1, max);
  assert_int_equal(2, rows);            /* stock's "hello\n" and the last */
  assert_true(one_scan > 20);           /* the counter sees the reads */
  if (rep_cache_reads > one_scan + 3)
    fail_msg("the walk read rep-cache.db %d times, one scan %d",
             rep_cache_reads, one_scan);
  svn_pool_destroy(fs->pool);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_get_stock_row),
    cmocka_unit_test(test_match_guard),
    cmocka_unit_test(test_add),
    cmocka_unit_test(test_missing_db),
    cmocka_unit_test(test_db_without_table),
    cmocka_unit_test(test_add_error_message),
    cmocka_unit_test(test_new_db_perms),
    cmocka_unit_test(test_two_fs_one_pool),
    cmocka_unit_test(test_add_busy),
    cmocka_unit_test(test_no_close_in_exec_child),
    cmocka_unit_test(test_walk_reads_table_once),
  };
  return RUN_TESTS_WITH_POOL(tests, pool);
}
