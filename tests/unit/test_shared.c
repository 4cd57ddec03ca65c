/* test_shared.c --- per-repository shared data and in-process locks
 * (repo_shared.c, repo.h).
 *
 * Two svn_fs_t on one repository in one process must share one set of
 * lock mutexes: fcntl locks belong to the process, so without them two
 * threads would both hold db/write-lock.  The blocking test runs the
 * second writer in an APR thread and waits for it with a deadline, so a
 * broken lock fails the test instead of hanging it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_thread_proc.h>
#include <apr_time.h>
#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "private/svn_atomic.h"
#include "private/svn_mutex.h"

#include "repo.h"
#include "test_util.h"

static apr_pool_t *file_pool;

/* How long the first writer keeps the lock, and the longest we wait for
   the second one before calling it stuck. */
#define HOLD_USEC (300 * 1000)
#define DEADLINE_USEC (10 * 1000 * 1000)

/* A fresh svn_fs_t in POOL (the loader would make one like it). */
static svn_fs_t *
new_fs(apr_pool_t *pool)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));

  fs->pool = pool;
  fs->config = apr_hash_make(pool);
  return fs;
}

/* Create a repository at a fresh temporary path (*PATH) with our module
   and return the svn_fs_t it was created with. */
static svn_fs_t *
create_repo(const char **path, const char *tag, apr_pool_t *pool)
{
  const char *tmp;
  svn_fs_t *fs = new_fs(pool);

  assert_null(svn_io_temp_dir(&tmp, pool));
  *path = svn_dirent_join(tmp, apr_psprintf(pool, "fsfs7-shared-%s-%ld",
                                            tag, (long)getpid()), pool);
  assert_null(svn_io_remove_dir2(*path, TRUE, NULL, NULL, pool));
  assert_null(svn_io_make_dir_recursively(*path, pool));
  assert_null(svn_fs_fs__create_repo(fs, *path, pool));
  return fs;
}

static svn_fs_t *
open_fs(const char *path, apr_pool_t *pool)
{
  svn_fs_t *fs = new_fs(pool);

  assert_null(svn_fs_fs__open_repo(fs, path, pool));
  return fs;
}

/* One repository, two names (the second through a symlink): one set of
   shared data.  Two repositories: two sets. */
static void
test_same_repo_same_data(void **state)
{
  apr_pool_t *pool = svn_pool_create(file_pool);
  const char *a, *b, *link;
  svn_fs_t *fs_a = create_repo(&a, "same-a", pool);
  svn_fs_t *fs_b = create_repo(&b, "same-b", pool);
  svn_fs_t *again, *via_link;

  link = apr_pstrcat(pool, a, "-link", SVN_VA_NULL);
  (void)unlink(link);
  assert_int_equal(symlink(a, link), 0);
  again = open_fs(a, pool);
  via_link = open_fs(link, pool);
  assert_non_null(SVN_FS_FS__DATA(fs_a)->shared);
  assert_ptr_equal(SVN_FS_FS__DATA(fs_a)->shared,
                   SVN_FS_FS__DATA(again)->shared);
  assert_ptr_equal(SVN_FS_FS__DATA(fs_a)->shared,
                   SVN_FS_FS__DATA(via_link)->shared);
  assert_ptr_equal(SVN_FS_FS__DATA(again)->fs_write_lock,
                   SVN_FS_FS__DATA(again)->shared->write_lock);
  assert_ptr_not_equal(SVN_FS_FS__DATA(fs_a)->shared,
                       SVN_FS_FS__DATA(fs_b)->shared);
  assert_int_equal(unlink(link), 0);
  assert_null(svn_io_remove_dir2(a, FALSE, NULL, NULL, pool));
  assert_null(svn_io_remove_dir2(b, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* The cache key prefix names the repository's resolved path: the same
   for two names of one repository, different for a byte-for-byte copy
   (same uuid, same instance id), which may diverge at the next commit. */
static void
test_cache_prefix_names_path(void **state)
{
  apr_pool_t *pool = svn_pool_create(file_pool);
  const char *a, *copy, *link, *tmp;
  svn_fs_t *fs_a = create_repo(&a, "prefix", pool);
  svn_fs_t *fs_copy, *via_link;

  copy = apr_pstrcat(pool, a, "-copy", SVN_VA_NULL);
  link = apr_pstrcat(pool, a, "-link", SVN_VA_NULL);
  assert_null(svn_io_remove_dir2(copy, TRUE, NULL, NULL, pool));
  assert_null(svn_io_temp_dir(&tmp, pool));
  assert_null(svn_io_copy_dir_recursively(a, tmp, svn_dirent_basename(copy,
                                                                      pool),
                                          TRUE, NULL, NULL, pool));
  (void)unlink(link);
  assert_int_equal(symlink(a, link), 0);
  fs_copy = open_fs(copy, pool);
  via_link = open_fs(link, pool);
  assert_string_equal(fs_a->uuid, fs_copy->uuid);
  assert_string_not_equal(SVN_FS_FS__DATA(fs_a)->cache_prefix,
                          SVN_FS_FS__DATA(fs_copy)->cache_prefix);
  assert_string_equal(SVN_FS_FS__DATA(fs_a)->cache_prefix,
                      SVN_FS_FS__DATA(via_link)->cache_prefix);
  assert_ptr_not_equal(SVN_FS_FS__DATA(fs_a)->shared,
                       SVN_FS_FS__DATA(fs_copy)->shared);
  assert_int_equal(unlink(link), 0);
  assert_null(svn_io_remove_dir2(copy, FALSE, NULL, NULL, pool));
  assert_null(svn_io_remove_dir2(a, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* What the two writers share. */
typedef struct race_t
{
  svn_fs_t *second_fs;
  /* Take only the second svn_fs_t's in-process write mutex, not the lock
     file.  APR locks files with flock() on Linux, which already blocks
     between two descriptors of one process; the mutex alone shows that
     the second svn_fs_t really uses the first one's mutex (as needed
     where APR locks with fcntl(), whose locks belong to the process). */
  svn_boolean_t mutex_only;
  /* Set by the first writer just before it lets go of the lock. */
  volatile svn_atomic_t released;
  /* Set by the second writer inside the lock; 2 if it got in while the
     first one still held it. */
  volatile svn_atomic_t entered;
  volatile svn_atomic_t finished;
  svn_error_t *second_err;
} race_t;

static svn_error_t *
second_inside(void *baton, apr_pool_t *pool)
{
  race_t *r = baton;

  svn_atomic_set(&r->entered, svn_atomic_read(&r->released) ? 1 : 2);
  return SVN_NO_ERROR;
}

static void * APR_THREAD_FUNC
second_writer(apr_thread_t *thread, void *baton)
{
  race_t *r = baton;
  apr_pool_t *pool = svn_pool_create(NULL);

  if (r->mutex_only)
    r->second_err = svn_mutex__lock(
                      SVN_FS_FS__DATA(r->second_fs)->shared->write_lock);
  if (r->mutex_only && !r->second_err)
    r->second_err = svn_mutex__unlock(
                      SVN_FS_FS__DATA(r->second_fs)->shared->write_lock,
                      second_inside(r, pool));
  else if (!r->mutex_only)
    r->second_err = svn_fs_fs__with_write_lock(r->second_fs, second_inside,
                                               r, pool);
  svn_pool_destroy(pool);
  svn_atomic_set(&r->finished, 1);
  return NULL;
}

/* Wait up to DEADLINE_USEC for FLAG to become non-zero. */
static svn_boolean_t
wait_for(volatile svn_atomic_t *flag)
{
  apr_time_t end = apr_time_now() + DEADLINE_USEC;

  while (!svn_atomic_read(flag) && apr_time_now() < end)
    apr_sleep(10 * 1000);
  return svn_atomic_read(flag) != 0;
}

/* The first writer's callback: start the second writer on another
   svn_fs_t, hold the lock a while, check that it did not get in. */
typedef struct first_baton_t
{
  race_t *race;
  apr_thread_t *thread;
  apr_pool_t *pool;
} first_baton_t;

static svn_error_t *
first_inside(void *baton, apr_pool_t *pool)
{
  first_baton_t *fb = baton;
  apr_status_t status = apr_thread_create(&fb->thread, NULL, second_writer,
                                          fb->race, fb->pool);

  if (status)
    return svn_error_wrap_apr(status, "Can't start the second writer");
  apr_sleep(HOLD_USEC);
  if (svn_atomic_read(&fb->race->entered) || fb->race->finished)
    return svn_error_create(SVN_ERR_TEST_FAILED, NULL,
                            "Second svn_fs_t got the write lock while the "
                            "first one held it");
  svn_atomic_set(&fb->race->released, 1);
  return SVN_NO_ERROR;
}

/* While one svn_fs_t holds the write lock, a second svn_fs_t of the same
   repository, in another thread, blocks until it is released: through
   svn_fs_fs__with_write_lock, or (MUTEX_ONLY) on its in-process mutex. */
static void
check_write_lock_blocks(svn_boolean_t mutex_only)
{
  apr_pool_t *pool = svn_pool_create(file_pool);
  const char *path;
  svn_fs_t *first;
  race_t race = { 0 };
  first_baton_t fb;
  apr_status_t ignored;

  (void)create_repo(&path, "race", pool);
  first = open_fs(path, pool);
  race.second_fs = open_fs(path, pool);
  race.mutex_only = mutex_only;
  fb.race = &race;
  fb.thread = NULL;
  fb.pool = pool;
  assert_null(svn_fs_fs__with_write_lock(first, first_inside, &fb, pool));
  assert_true(wait_for(&race.finished));
  assert_int_equal(apr_thread_join(&ignored, fb.thread), APR_SUCCESS);
  assert_null(race.second_err);
  assert_int_equal(svn_atomic_read(&race.entered), 1);
  assert_null(svn_io_remove_dir2(path, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

static void
test_write_lock_blocks_other_fs(void **state)
{
  check_write_lock_blocks(FALSE);
}

static void
test_write_mutex_blocks_other_fs(void **state)
{
  check_write_lock_blocks(TRUE);
}

/* Counts calls; used as the innermost callback. */
static svn_error_t *
count_call(void *baton, apr_pool_t *pool)
{
  ++*(int *)baton;
  return SVN_NO_ERROR;
}

/* Holding the write lock on one svn_fs_t, txn-current-lock of the same
   repository through another is still free (they are distinct locks),
   and all locks can be taken, and released, in turn. */
typedef struct nested_t
{
  svn_fs_t *other;
  int calls;
} nested_t;

static svn_error_t *
take_txn_current(void *baton, apr_pool_t *pool)
{
  nested_t *n = baton;

  return svn_error_trace(svn_fs_fs__with_txn_current_lock(
                           n->other, count_call, &n->calls, pool));
}

static void
test_distinct_locks(void **state)
{
  apr_pool_t *pool = svn_pool_create(file_pool);
  const char *path;
  nested_t n;

  (void)create_repo(&path, "distinct", pool);
  n.other = open_fs(path, pool);
  n.calls = 0;
  assert_null(svn_fs_fs__with_write_lock(open_fs(path, pool),
                                         take_txn_current, &n, pool));
  assert_null(svn_fs_fs__with_all_locks(n.other, count_call, &n.calls,
                                        pool));
  assert_null(svn_fs_fs__with_freeze_locks(n.other, count_call, &n.calls,
                                           pool));
  assert_null(svn_fs_fs__with_pack_lock(n.other, count_call, &n.calls,
                                        pool));
  assert_int_equal(n.calls, 4);
  assert_null(svn_io_remove_dir2(path, FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_repo_same_data),
    cmocka_unit_test(test_cache_prefix_names_path),
    cmocka_unit_test(test_write_lock_blocks_other_fs),
    cmocka_unit_test(test_write_mutex_blocks_other_fs),
    cmocka_unit_test(test_distinct_locks),
  };

  return RUN_TESTS_WITH_POOL(tests, file_pool);
}
