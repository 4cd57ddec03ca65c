/* test_recover.c --- component test for repo_recover.c on a small stock
 * repository (tests/vectors/good/recover-repo: format 6, shard size 4,
 * r0..r10; doc/format/uuid-current.md CURRENT-2, layout.md REPCACHE-1). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include <apr_general.h>
#include "svn_dirent_uri.h"
#include "repo.h"
#include "admin_test_util.h"

/* A fresh copy of the vector's db/ with db/current set to CURRENT (NULL:
   removed) and the revision files of FIRST_GONE.. removed. */
static const char *
damaged_copy(const char *current, svn_revnum_t first_gone, apr_pool_t *pool)
{
  const char *tmp, *name = apr_psprintf(pool, "fsfs7-recover-%ld",
                                        (long)getpid());
  const char *db;
  svn_revnum_t rev;

  assert_null(svn_io_temp_dir(&tmp, pool));
  db = svn_dirent_join(tmp, name, pool);
  assert_null(svn_io_remove_dir2(db, TRUE, NULL, NULL, pool));
  assert_null(svn_io_copy_dir_recursively(
                admin_vector_dir("good", "recover-repo/db", pool), tmp, name,
                FALSE, NULL, NULL, pool));
  assert_null(svn_io_remove_file2(svn_dirent_join(db, "current", pool),
                                  FALSE, pool));
  if (current)
    assert_null(svn_io_file_create(svn_dirent_join(db, "current", pool),
                                   current, pool));
  for (rev = first_gone; rev <= 10; rev++)
    assert_null(svn_io_remove_file2(
                  apr_psprintf(pool, "%s/revs/%ld/%ld", db, rev / 4, rev),
                  FALSE, pool));
  return db;
}

/* Open DB for recovery and recover it. */
static svn_error_t *
recover(const char *db, apr_pool_t *pool)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  svn_error_t *err;

  fs->pool = pool;
  err = svn_fs_fs__open_repo_for_recovery(fs, db, pool);
  if (err && err->apr_err == SVN_ERR_UNSUPPORTED_FEATURE)
    svn_error_clear(err);      /* other layers' caches not ready: fine */
  else
    SVN_ERR(err);
  return svn_error_trace(svn_fs_fs__recover(fs, NULL, NULL, pool));
}

static const char *
current_of(const char *db, apr_pool_t *pool)
{
  svn_stringbuf_t *buf;
  assert_null(svn_stringbuf_from_file2(
                &buf, svn_dirent_join(db, "current", pool), pool));
  return buf->data;
}

static void
test_recover_current(void **state)
{
  static const struct { const char *current; svn_revnum_t gone;
                        const char *expect; } cases[] = {
    { "5\n", 11, "10\n" },          /* too small */
    { "garbage\n", 11, "10\n" },    /* unreadable */
    { NULL, 11, "10\n" },           /* missing */
    { "7\n", 9, "8\n" },            /* r9, r10 lost, current still ok */
  };
  size_t i;

  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      apr_pool_t *pool = svn_pool_create(NULL);
      const char *db = damaged_copy(cases[i].current, cases[i].gone, pool);

      assert_null(recover(db, pool));
      assert_string_equal(current_of(db, pool), cases[i].expect);
      assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
      svn_pool_destroy(pool);
    }
}

/* db/current beyond the revisions on disk is refused, untouched. */
static void
test_current_too_new(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db = damaged_copy("10\n", 9, pool);
  svn_error_t *err = recover(db, pool);

  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
  svn_error_clear(err);
  assert_string_equal(current_of(db, pool), "10\n");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Recover DB whose db/current reads CURRENT and whose r10 (the youngest
   on disk) lost its revprops file: the error, or NULL. */
static svn_error_t *
recover_without_revprops(const char **db, const char *current,
                         apr_pool_t *pool)
{
  *db = damaged_copy(current, 11, pool);
  assert_null(svn_io_remove_file2(svn_dirent_join(*db, "revprops/2/10", pool),
                                  FALSE, pool));
  return recover(*db, pool);
}

/* Right above db/current, a rev file without revprops is a commit cut
   between COMMIT-4 and COMMIT-5: recover keeps current's revision (stock
   refuses; issue 30). */
static void
test_unfinished_commit_not_adopted(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db;

  assert_null(recover_without_revprops(&db, "9\n", pool));
  assert_string_equal(current_of(db, pool), "9\n");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Anywhere else a youngest revision without revprops is damage and is
   not published: db/current unreadable, or naming an older revision than
   the one below the youngest. */
static void
test_youngest_without_revprops(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *currents[] = { "8\n", "garbage\n" };
  int i;

  for (i = 0; i < 2; i++)
    {
      const char *db;
      svn_error_t *err = recover_without_revprops(&db, currents[i], pool);

      assert_non_null(err);
      assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
      assert_non_null(strstr(err->message, "no revprops file"));
      svn_error_clear(err);
      assert_string_equal(current_of(db, pool), currents[i]);
      assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
    }
  svn_pool_destroy(pool);
}

/* Run SQL on DB/rep-cache.db (created if missing). */
static void
rep_cache_exec(const char *db, const char *sql, apr_pool_t *pool)
{
  sqlite3 *h;

  assert_int_equal(sqlite3_open(svn_dirent_join(db, "rep-cache.db", pool),
                                &h), SQLITE_OK);
  assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
}

/* The revisions named by DB/rep-cache.db's rows, ascending, as "3 8". */
static const char *
rep_cache_revs(const char *db, apr_pool_t *pool)
{
  const char *out = "";
  sqlite3 *h;
  sqlite3_stmt *stmt;

  assert_int_equal(sqlite3_open_v2(svn_dirent_join(db, "rep-cache.db", pool),
                                   &h, SQLITE_OPEN_READONLY, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(
                     h, "SELECT revision FROM rep_cache ORDER BY revision",
                     -1, &stmt, NULL), SQLITE_OK);
  while (sqlite3_step(stmt) == SQLITE_ROW)
    out = apr_psprintf(pool, "%s%s%" APR_INT64_T_FMT, out, *out ? " " : "",
                       (apr_int64_t)sqlite3_column_int64(stmt, 0));
  sqlite3_finalize(stmt);
  sqlite3_close(h);
  return out;
}

/* Rows after the recovered youngest go (REPCACHE-1); without a
   rep-cache.db none is created. */
static void
test_rep_cache_pruned(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *db = damaged_copy("7\n", 9, pool);
  svn_node_kind_t kind;

  rep_cache_exec(db, "CREATE TABLE rep_cache (hash TEXT NOT NULL PRIMARY KEY,"
                     " revision INTEGER NOT NULL, offset INTEGER NOT NULL,"
                     " size INTEGER NOT NULL, expanded_size INTEGER NOT NULL)"
                     " WITHOUT ROWID;"
                     "INSERT INTO rep_cache VALUES ('a', 3, 0, 1, 1);"
                     "INSERT INTO rep_cache VALUES ('b', 8, 0, 1, 1);"
                     "INSERT INTO rep_cache VALUES ('c', 9, 0, 1, 1);"
                     "INSERT INTO rep_cache VALUES ('d', 10, 0, 1, 1);",
                 pool);
  assert_null(recover(db, pool));
  assert_string_equal(current_of(db, pool), "8\n");
  assert_string_equal(rep_cache_revs(db, pool), "3 8");
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));

  db = damaged_copy("7\n", 11, pool);
  assert_null(recover(db, pool));
  assert_null(svn_io_check_path(svn_dirent_join(db, "rep-cache.db", pool),
                                &kind, pool));
  assert_int_equal(kind, svn_node_none);
  assert_null(svn_io_remove_dir2(db, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_recover_current),
    cmocka_unit_test(test_current_too_new),
    cmocka_unit_test(test_unfinished_commit_not_adopted),
    cmocka_unit_test(test_youngest_without_revprops),
    cmocka_unit_test(test_rep_cache_pruned),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
