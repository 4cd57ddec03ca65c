/* test_core.c --- unit tests for paths.c and corrupt.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"

#include "paths.h"
#include "corrupt.h"

/* A fake svn_fs_t with just the fields paths.c reads. */
typedef struct fixture_t
{
  apr_pool_t *pool;
  svn_fs_t fs;
  svn_fs_fs__data_t ffd;
} fixture_t;

static int
setup(void **state)
{
  static fixture_t f;
  memset(&f, 0, sizeof(f));
  f.pool = svn_pool_create(NULL);
  f.fs.path = (char *)"/repo/db";
  f.fs.fsap_data = &f.ffd;
  f.ffd.max_files_per_dir = 1000;
  *state = &f;
  return 0;
}

static int
teardown(void **state)
{
  fixture_t *f = *state;
  svn_pool_destroy(f->pool);
  return 0;
}

static void
test_sharded_paths(void **state)
{
  fixture_t *f = *state;
  f->ffd.max_files_per_dir = 1000;
  assert_string_equal(svn_fs_fs__path_rev(&f->fs, 1234, f->pool),
                      "/repo/db/revs/1/1234");
  assert_string_equal(svn_fs_fs__path_revprops(&f->fs, 999, f->pool),
                      "/repo/db/revprops/0/999");
  assert_string_equal(svn_fs_fs__path_rev_packed(&f->fs, 2500, "pack",
                                                 f->pool),
                      "/repo/db/revs/2.pack/pack");
  assert_string_equal(svn_fs_fs__path_revprops_pack_shard(&f->fs, 1000,
                                                          f->pool),
                      "/repo/db/revprops/1.pack");
  assert_int_equal(svn_fs_fs__shard_start(&f->fs, 1999), 1000);
  assert_int_equal(svn_fs_fs__shard_of(&f->fs, 2000), 2);
}

static void
test_linear_paths(void **state)
{
  fixture_t *f = *state;
  f->ffd.max_files_per_dir = 0;
  assert_string_equal(svn_fs_fs__path_rev(&f->fs, 1234, f->pool),
                      "/repo/db/revs/1234");
  assert_int_equal(svn_fs_fs__shard_start(&f->fs, 1234), 1234);
}

static void
test_corrupt_message(void **state)
{
  svn_error_t *err = svn_fs_fs__corrupt("NODEREV-2", "r5 offset 17",
                                        "bad field '%s'", "count");
  assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
  assert_string_equal(err->message,
                      "bad field 'count' (r5 offset 17, rule NODEREV-2)");
  svn_error_clear(err);

  err = svn_fs_fs__index_corrupt("L2P-1", NULL, "short page");
  assert_int_equal(err->apr_err, SVN_ERR_FS_INDEX_CORRUPTION);
  assert_string_equal(err->message, "short page (rule L2P-1)");
  svn_error_clear(err);

  err = svn_fs_fs__unsupported("merge");
  assert_int_equal(err->apr_err, SVN_ERR_UNSUPPORTED_FEATURE);
  assert_non_null(strstr(err->message, "'merge'"));
  svn_error_clear(err);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sharded_paths),
    cmocka_unit_test(test_linear_paths),
    cmocka_unit_test(test_corrupt_message),
  };
  apr_initialize();
  return cmocka_run_group_tests(tests, setup, teardown);
}
