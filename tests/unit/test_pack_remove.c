/* test_pack_remove.c --- unit tests for pack_remove.c: directories of
 * packed shards removed on a thread of their own (doc/format/pack.md
 * PACK-6).
 *
 * Real directories under the temp dir: whole shards go, the kept entry
 * of shard 0's revprops (r0) stays, a failure is reported with its path,
 * and a remover whose pool goes away while it
 * still has work neither crashes nor leaks its thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"

#include "pack_remove.h"
#include "test_util.h"

/* A fresh directory named NAME under a per-process scratch root. */
static const char *
scratch_dir(const char *name, apr_pool_t *pool)
{
  const char *tmp, *root;

  assert_null(svn_io_temp_dir(&tmp, pool));
  root = svn_dirent_join(tmp, apr_psprintf(pool, "fsfs7-rm-%ld",
                                           (long)getpid()), pool);
  assert_null(svn_io_make_dir_recursively(root, pool));
  return svn_dirent_join(root, name, pool);
}

/* DIR with files 0..N-1 (read-only, as revision files are). */
static const char *
make_shard(const char *name, int n, apr_pool_t *pool)
{
  const char *dir = scratch_dir(name, pool);
  int i;

  assert_null(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
  assert_null(svn_io_dir_make(dir, APR_OS_DEFAULT, pool));
  for (i = 0; i < n; i++)
    {
      const char *file = svn_dirent_join(dir, apr_psprintf(pool, "%d", i),
                                         pool);

      assert_null(svn_io_file_create(file, "data", pool));
      assert_null(svn_io_set_file_read_only(file, FALSE, pool));
    }
  return dir;
}

static svn_node_kind_t
kind_of(const char *path, apr_pool_t *pool)
{
  svn_node_kind_t kind;

  assert_null(svn_io_check_path(path, &kind, pool));
  return kind;
}

/* Two shards and shard 0's revprops with r0 kept; a directory inside a
   shard goes too; a missing directory is no error. */
static void
test_removes_and_keeps(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *a = make_shard("a", 50, pool);
  const char *b = make_shard("b", 50, pool);
  const char *props = make_shard("props", 10, pool);
  const char *sub = svn_dirent_join(b, "sub", pool);
  svn_fs_fs__remover_t *remover;

  assert_null(svn_io_dir_make(sub, APR_OS_DEFAULT, pool));
  assert_null(svn_io_file_create(svn_dirent_join(sub, "x", pool), "x",
                                 pool));
  assert_null(svn_fs_fs__remover_create(&remover, pool));
  assert_null(svn_fs_fs__remover_add(remover, a, NULL, pool));
  assert_null(svn_fs_fs__remover_add(remover, b, NULL, pool));
  assert_null(svn_fs_fs__remover_add(remover, props, "0", pool));
  assert_null(svn_fs_fs__remover_add(remover, scratch_dir("none", pool),
                                     NULL, pool));
  assert_null(svn_fs_fs__remover_finish(remover));
  assert_null(svn_fs_fs__remover_finish(remover));
  assert_int_equal(kind_of(a, pool), svn_node_none);
  assert_int_equal(kind_of(b, pool), svn_node_none);
  assert_int_equal(kind_of(svn_dirent_join(props, "0", pool), pool),
                   svn_node_file);
  assert_int_equal(kind_of(svn_dirent_join(props, "1", pool), pool),
                   svn_node_none);
  svn_pool_destroy(pool);
}

/* A "directory" that is a file fails with its path, and so does the
   remover's _finish; a second _finish has nothing more to say. */
static void
test_failure_named(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  const char *file = scratch_dir("not-a-dir", pool);
  const char *later = make_shard("later", 5, pool);
  svn_fs_fs__remover_t *remover;
  svn_error_t *err;

  assert_null(svn_io_remove_file2(file, TRUE, pool));
  assert_null(svn_io_file_create(file, "x", pool));
  assert_null(svn_fs_fs__remover_create(&remover, pool));
  assert_null(svn_fs_fs__remover_add(remover, file, NULL, pool));
  assert_null(svn_fs_fs__remover_add(remover, later, NULL, pool));
  err = svn_fs_fs__remover_finish(remover);
  assert_non_null(err);
  assert_true(APR_STATUS_IS_ENOTDIR(err->apr_err));
  assert_non_null(strstr(err->message, "not-a-dir"));
  svn_error_clear(err);
  assert_null(svn_fs_fs__remover_finish(remover));
  assert_null(svn_io_remove_dir2(later, TRUE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

/* The caller's pool is destroyed with work queued (a pack that failed
   half-way): the thread is stopped first, the work done or not, no
   crash (run under valgrind/ASan to see leaks). */
static void
test_pool_destroyed_with_work(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  apr_pool_t *sub = svn_pool_create(pool);
  svn_fs_fs__remover_t *remover;
  int i;

  assert_null(svn_fs_fs__remover_create(&remover, sub));
  for (i = 0; i < 4; i++)
    assert_null(svn_fs_fs__remover_add(
                  remover, make_shard(apr_psprintf(pool, "q%d", i), 200,
                                      pool), NULL, pool));
  svn_pool_destroy(sub);
  for (i = 0; i < 4; i++)
    assert_int_equal(kind_of(scratch_dir(apr_psprintf(pool, "q%d", i),
                                         pool), pool), svn_node_none);
  assert_null(svn_io_remove_dir2(svn_dirent_dirname(
                scratch_dir("x", pool), pool), FALSE, NULL, NULL, pool));
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_removes_and_keeps),
    cmocka_unit_test(test_failure_named),
    cmocka_unit_test(test_pool_destroyed_with_work),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
