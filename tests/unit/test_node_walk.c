/* test_node_walk.c --- svn_fs_fs__node_at_path (node_walk.c) on a small
 * repository written by the stock module (format 7 and format 6, i.e.
 * logical and physical addressing):
 *
 *   r1  /a/b/         (svn mkdir --parents)
 *   r2  /a/b/f        (svn import)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"

#include "node_walk.h"
#include "repo.h"

static apr_pool_t *pool;
static const char *tmpdir;
static svn_fs_t *repos[2];      /* format 7, format 6 */

/* Kind of the node at PATH in REV of FS, svn_node_none if there is none;
   *CREATED its node-rev's revision. */
static svn_node_kind_t
kind_at(svn_revnum_t *created, svn_fs_t *fs, svn_revnum_t rev,
        const char *path)
{
  svn_fs_fs__noderev_t *noderev;

  assert_null(svn_fs_fs__node_at_path(&noderev, fs, rev, path, pool, pool));
  if (noderev == NULL)
    return svn_node_none;
  *created = noderev->id->rev_item.revision;
  return noderev->kind;
}

static void
test_paths(void **state)
{
  int r;

  for (r = 0; r < 2; r++)
    {
      svn_fs_t *fs = repos[r];
      svn_revnum_t created = -1;

      assert_int_equal(kind_at(&created, fs, 2, "/a/b/f"), svn_node_file);
      assert_int_equal(created, 2);
      assert_int_equal(kind_at(&created, fs, 2, "/a/b"), svn_node_dir);
      assert_int_equal(created, 2);   /* b's listing changed in r2 */
      assert_int_equal(kind_at(&created, fs, 1, "/a/b"), svn_node_dir);
      assert_int_equal(created, 1);
      assert_int_equal(kind_at(&created, fs, 2, "//a//b/"), svn_node_dir);
      assert_int_equal(kind_at(&created, fs, 2, "/"), svn_node_dir);
      assert_int_equal(kind_at(&created, fs, 2, ""), svn_node_dir);
      assert_int_equal(kind_at(&created, fs, 0, "/"), svn_node_dir);
      assert_int_equal(created, 0);
      assert_int_equal(kind_at(&created, fs, 1, "/a/b/f"), svn_node_none);
      assert_int_equal(kind_at(&created, fs, 2, "/a/b/f/x"), svn_node_none);
      assert_int_equal(kind_at(&created, fs, 2, "/nope"), svn_node_none);
      assert_int_equal(kind_at(&created, fs, 2, "/a/nope/f"), svn_node_none);
    }
}

static void
test_no_such_revision(void **state)
{
  svn_fs_fs__noderev_t *noderev;
  svn_error_t *err = svn_fs_fs__node_at_path(&noderev, repos[0], 3, "/",
                                             pool, pool);

  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_NO_SUCH_REVISION);
  svn_error_clear(err);
}

/* Make both repositories with the stock binaries. */
static int
setup(void **state)
{
  char tmpl[] = "/tmp/fsfs7-test-node-walk-XXXXXX";
  const char *compat[2] = { "1.9", "1.8" };
  int r;

  if (!mkdtemp(tmpl))
    return -1;
  tmpdir = apr_pstrdup(pool, tmpl);
  for (r = 0; r < 2; r++)
    {
      const char *repo = svn_dirent_join(tmpdir, compat[r], pool);
      const char *url = apr_pstrcat(pool, "file://", repo, SVN_VA_NULL);
      const char *cmd = apr_psprintf(pool,
        "unset LD_LIBRARY_PATH; set -e; cd %s; "
        "svnadmin create --compatible-version %s %s; "
        "svn -q mkdir --parents -m r1 %s/a/b; "
        "echo text > f%d; svn -q import -m r2 f%d %s/a/b/f",
        tmpdir, compat[r], repo, url, r, r, url);
      svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));

      if (system(apr_pstrcat(pool, "(", cmd, ") >/dev/null 2>&1",
                             SVN_VA_NULL)) != 0)
        return -1;
      fs->pool = pool;
      fs->config = apr_hash_make(pool);
      if (svn_fs_fs__open_repo(fs, svn_dirent_join(repo, "db", pool), pool))
        return -1;
      repos[r] = fs;
    }
  return 0;
}

static int
teardown(void **state)
{
  if (tmpdir)
    svn_error_clear(svn_io_remove_dir2(tmpdir, TRUE, NULL, NULL, pool));
  return 0;
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_paths),
    cmocka_unit_test(test_no_such_revision),
  };
  int rc;

  apr_initialize();
  pool = svn_pool_create(NULL);
  if (system("svnadmin --version --quiet >/dev/null 2>&1") != 0
      || system("svn --version --quiet >/dev/null 2>&1") != 0)
    {
      fprintf(stderr, "test_node_walk: stock svn/svnadmin missing, "
              "skipping\n");
      return 77;
    }
  rc = cmocka_run_group_tests(tests, setup, teardown);
  svn_pool_destroy(pool);
  apr_terminate();
  return rc;
}
