/* test_locks_read.c --- component test for locks_read.c against a
 * db/locks tree written by stock `svn lock` (tests/vectors/good/locks:
 * locks on /a/f, /a/b/g and /top; doc/format/layout.md LOCK-*). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_hash.h"
#include "locks_read.h"
#include "admin_test_util.h"

/* A fake svn_fs_t whose db directory is the vector directory. */
static svn_fs_t *
vector_fs(apr_pool_t *pool)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  fs->pool = pool;
  fs->path = (char *)admin_vector_dir("good", "locks", pool);
  return fs;
}

static void
test_get_lock(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  svn_fs_t *fs = vector_fs(pool);
  svn_lock_t *lock;

  assert_null(svn_fs_fs__locks_get(&lock, fs, "/a/f", pool));
  assert_non_null(lock);
  assert_string_equal(lock->path, "/a/f");
  assert_string_equal(lock->comment, "file f");
  assert_string_equal(lock->owner, "root");
  assert_int_equal(strncmp(lock->token, "opaquelocktoken:", 16), 0);
  assert_false(lock->is_dav_comment);
  assert_true(lock->creation_date > 0);
  assert_int_equal(lock->expiration_date, 0);

  assert_null(svn_fs_fs__locks_get(&lock, fs, "top", pool)); /* relative */
  assert_non_null(lock);
  assert_string_equal(lock->comment, "multi\nline");

  /* Ancestors have digest files but no lock; others have nothing. */
  assert_null(svn_fs_fs__locks_get(&lock, fs, "/a", pool));
  assert_null(lock);
  assert_null(svn_fs_fs__locks_get(&lock, fs, "/", pool));
  assert_null(lock);
  assert_null(svn_fs_fs__locks_get(&lock, fs, "/nope/x", pool));
  assert_null(lock);
  svn_pool_destroy(pool);
}

static svn_error_t *
collect(void *baton, svn_lock_t *lock, apr_pool_t *pool)
{
  apr_hash_t *seen = baton;
  svn_hash_sets(seen, apr_pstrdup(apr_hash_pool_get(seen), lock->path), "");
  return SVN_NO_ERROR;
}

/* Count the locks reported for PATH at DEPTH. */
static int
count_locks(svn_fs_t *fs, const char *path, svn_depth_t depth,
            apr_pool_t *pool)
{
  apr_hash_t *seen = apr_hash_make(pool);
  assert_null(svn_fs_fs__locks_walk(fs, path, depth, collect, seen, pool));
  return (int)apr_hash_count(seen);
}

static void
test_walk_depths(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  svn_fs_t *fs = vector_fs(pool);

  assert_int_equal(count_locks(fs, "/", svn_depth_infinity, pool), 3);
  assert_int_equal(count_locks(fs, "/", svn_depth_immediates, pool), 1);
  assert_int_equal(count_locks(fs, "/a", svn_depth_infinity, pool), 2);
  assert_int_equal(count_locks(fs, "/a", svn_depth_files, pool), 1);
  assert_int_equal(count_locks(fs, "/a", svn_depth_empty, pool), 0);
  assert_int_equal(count_locks(fs, "/a/f", svn_depth_empty, pool), 1);
  assert_int_equal(count_locks(fs, "/other", svn_depth_infinity, pool), 0);
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_get_lock),
    cmocka_unit_test(test_walk_depths),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
