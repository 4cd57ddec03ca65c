/* test_locks_write.c --- component test for unlocking in locks_write.c,
 * on a copy of the stock-written lock tree tests/vectors/good/locks
 * (locks on /a/f, /a/b/g, /top by 'root'; doc/format/layout.md LOCK-*).
 * Locking needs a revision root; tests/integration/test_admin.py drives
 * it through svn and svnadmin against the stock module. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_hash.h"
#include "svn_dirent_uri.h"
#include "private/svn_mutex.h"
#include "locks_read.h"
#include "repo.h"
#include "locks_write.h"
#include "admin_test_util.h"

typedef struct fixture_t
{
  svn_fs_t fs;
  svn_fs_fs__data_t ffd;
  svn_fs_access_t access;
} fixture_t;

/* A fake fs over a fresh copy of the lock vectors, user USER. */
static fixture_t *
setup_fs(const char *user, apr_pool_t *pool)
{
  fixture_t *f = apr_pcalloc(pool, sizeof(*f));
  const char *tmp, *name = apr_psprintf(pool, "fsfs7-locks-%ld",
                                        (long)getpid());
  const char *db;

  assert_null(svn_io_temp_dir(&tmp, pool));
  db = svn_dirent_join(tmp, name, pool);
  assert_null(svn_io_remove_dir2(db, TRUE, NULL, NULL, pool));
  assert_null(svn_io_copy_dir_recursively(
                admin_vector_dir("good", "locks", pool), tmp, name, FALSE,
                NULL, NULL, pool));
  /* r0's revision file (unsharded: db/revs/0), whose permissions the
     digest files get; 0640 is no umask's default. */
  assert_null(svn_io_dir_make(svn_dirent_join(db, "revs", pool),
                              APR_OS_DEFAULT, pool));
  assert_null(svn_io_file_create_empty(svn_dirent_join(db, "revs/0", pool),
                                       pool));
  assert_int_equal(0, chmod(svn_dirent_join(db, "revs/0", pool), 0640));
  f->fs.pool = pool;
  f->fs.path = (char *)db;
  f->fs.uuid = "test-uuid";
  f->fs.fsap_data = &f->ffd;
  f->access.username = user;
  f->fs.access_ctx = &f->access;
  assert_null(svn_fs_fs__shared_attach(&f->fs, db, pool));
  return f;
}

/* Collects (path -> error code or 0) from the callback. */
static svn_error_t *
record(void *baton, const char *path, const svn_lock_t *lock,
       svn_error_t *fs_err, apr_pool_t *pool)
{
  apr_hash_t *seen = baton;
  apr_pool_t *hp = apr_hash_pool_get(seen);
  svn_hash_sets(seen, apr_pstrdup(hp, path),
                apr_psprintf(hp, "%d", fs_err ? fs_err->apr_err : 0));
  return SVN_NO_ERROR;
}

/* Unlock PATH with TOKEN (BREAK_LOCK); return the reported code. */
static int
unlock(fixture_t *f, const char *path, const char *token,
       svn_boolean_t break_lock, apr_pool_t *pool)
{
  apr_hash_t *targets = apr_hash_make(pool), *seen = apr_hash_make(pool);

  svn_hash_sets(targets, path, token ? token : "");  /* NULL would delete */
  assert_null(svn_fs_fs__locks_unlock(&f->fs, targets, break_lock, record,
                                      seen, pool, pool));
  return atoi(svn_hash_gets(seen, path));
}

static void
test_unlock_rules(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  fixture_t *f = setup_fs("someone", pool);
  svn_lock_t *lock;
  apr_hash_t *props;
  struct stat st;

  assert_null(svn_fs_fs__locks_get(&lock, &f->fs, "/a/f", pool));
  /* A wrong token names no lock, as with stock (LOCK-5). */
  assert_int_equal(unlock(f, "/a/f", "opaquelocktoken:wrong", FALSE, pool),
                   SVN_ERR_FS_NO_SUCH_LOCK);
  assert_int_equal(unlock(f, "/a/f", lock->token, FALSE, pool),
                   SVN_ERR_FS_LOCK_OWNER_MISMATCH);
  assert_int_equal(unlock(f, "/a", NULL, TRUE, pool),
                   SVN_ERR_FS_NO_SUCH_LOCK);
  f->access.username = "root";
  assert_int_equal(unlock(f, "/a/f", lock->token, FALSE, pool), 0);
  assert_null(svn_fs_fs__locks_get(&lock, &f->fs, "/a/f", pool));
  assert_null(lock);
  /* /a still lists /a/b/g; the digest file of /a/f is gone (LOCK-3). */
  assert_null(svn_fs_fs__lock_read_digest(
                &props, &f->fs, svn_fs_fs__lock_digest("/a/f", pool), pool));
  assert_null(props);
  assert_null(svn_fs_fs__lock_read_digest(
                &props, &f->fs, svn_fs_fs__lock_digest("/a", pool), pool));
  assert_non_null(props);
  assert_int_equal(((svn_string_t *)svn_hash_gets(props, "children"))->len,
                   33);
  /* Rewritten with r0's permissions, as stock does (issue 30). */
  assert_int_equal(0, stat(svn_fs_fs__lock_digest_path(
                             &f->fs, svn_fs_fs__lock_digest("/a", pool),
                             pool), &st));
  assert_int_equal(0640, st.st_mode & 07777);
  assert_null(svn_io_remove_dir2(f->fs.path, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Breaking every lock leaves no digest file at all. */
static void
test_break_all(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  fixture_t *f = setup_fs(NULL, pool);
  const char *paths[] = { "/top", "/a/b/g", "/a/f" };
  apr_hash_t *dirents;
  apr_hash_index_t *hi;
  int i;

  for (i = 0; i < 3; i++)
    assert_int_equal(unlock(f, paths[i], NULL, TRUE, pool), 0);
  assert_null(svn_io_get_dirents3(&dirents,
                                  svn_dirent_join(f->fs.path, "locks", pool),
                                  TRUE, pool, pool));
  for (hi = apr_hash_first(pool, dirents); hi; hi = apr_hash_next(hi))
    {
      apr_hash_t *files;
      assert_null(svn_io_get_dirents3(
                    &files, svn_dirent_join_many(pool, f->fs.path, "locks",
                                                 apr_hash_this_key(hi),
                                                 SVN_VA_NULL),
                    TRUE, pool, pool));
      assert_int_equal(apr_hash_count(files), 0);
    }
  assert_null(svn_io_remove_dir2(f->fs.path, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* Counts its calls and fails the first one. */
static svn_error_t *
fail_first(void *baton, const char *path, const svn_lock_t *lock,
           svn_error_t *fs_err, apr_pool_t *pool)
{
  int *calls = baton;

  return ++*calls == 1 ? svn_error_create(SVN_ERR_FS_GENERAL, NULL, "cb")
                       : SVN_NO_ERROR;
}

/* A callback that failed hears of no more paths, the remaining ones are
   still unlocked and its error is the result (svn_fs.h; locks-test
   13). */
static void
test_callback_error(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  fixture_t *f = setup_fs(NULL, pool);
  apr_hash_t *targets = apr_hash_make(pool);
  const char *paths[] = { "/top", "/a/b/g", "/a/f" };
  svn_lock_t *lock;
  svn_error_t *err;
  int i, calls = 0;

  for (i = 0; i < 3; i++)
    svn_hash_sets(targets, paths[i], "");
  err = svn_fs_fs__locks_unlock(&f->fs, targets, TRUE, fail_first, &calls,
                                pool, pool);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_GENERAL);
  svn_error_clear(err);
  assert_int_equal(calls, 1);
  for (i = 0; i < 3; i++)
    {
      assert_null(svn_fs_fs__locks_get(&lock, &f->fs, paths[i], pool));
      assert_null(lock);
    }
  assert_null(svn_io_remove_dir2(f->fs.path, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unlock_rules),
    cmocka_unit_test(test_break_all),
    cmocka_unit_test(test_callback_error),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
