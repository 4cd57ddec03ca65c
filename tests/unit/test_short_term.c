/* test_short_term.c --- the short-term membuffer (caching.h): with a
 * process membuffer larger than 16 MB, a repository opened through the
 * module keeps all its values in a membuffer of 16 MB until the process
 * has stored a few hundred node-revs, changed-path lists or index pages
 * (the large one is not made till then), and after that all but its
 * revprops in the large one.
 *
 * A process of its own, since the process's membuffer is made once, with
 * the cache size configured at its first use: this one configures
 * 256 MB before anything asks for it.  Reads the format-8 repository of
 * tests/unit/node_repos.sh; exits 77 (skip) without the stock
 * svn/svnadmin, except under CI=true.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_cache_config.h"
#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "private/svn_cache.h"

#include "cache_admit.h"
#include "caching.h"
#include "fsfs7.h"
#include "repo.h"
#include "test_util.h"

#define MB (APR_UINT64_C(1024) * 1024)

static apr_pool_t *pool;
static const char *tmpdir;

static void
check(svn_error_t *err)
{
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "test_short_term: ");
      fail();
    }
}

/* Bytes of the membuffer CACHE lives in (data and directory). */
static apr_uint64_t
membuffer_bytes(svn_cache__t *cache)
{
  svn_cache__info_t info;

  assert_non_null(cache);
  check(svn_cache__get_info(cache, &info, FALSE, pool));
  return info.total_size;
}

/* The size rule: a configured cache up to 16 MB holds every value, a
   larger one gets a short-term membuffer of 16 MB beside it. */
static void
test_size_rule(void **state)
{
  assert_int_equal(svn_fs_fs__short_term_bytes(0), 0);
  assert_int_equal(svn_fs_fs__short_term_bytes(16 * MB), 0);
  assert_int_equal(svn_fs_fs__short_term_bytes(16 * MB + 1), 16 * MB);
  assert_int_equal(svn_fs_fs__short_term_bytes(1024 * MB), 16 * MB);
}

/* The private data of the format-8 repository opened again. */
static svn_fs_fs__data_t *
open_f8(void)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));

  fs->pool = svn_pool_create(pool);
  fs->path = (char *)svn_dirent_join_many(pool, tmpdir, "f8", "db",
                                          SVN_VA_NULL);
  check(svn_fs_fs__open_repo(fs, fs->path, pool));
  return SVN_FS_FS__DATA(fs);
}

/* Before the process has stored long-term values, a repository opened
   with 256 MB configured has every cache in the 16 MB membuffer and the
   budgets of that size: the large membuffer is not made, and fulltexts
   have one cache. */
static void
test_first_open_small(void **state)
{
  svn_fs_fs__data_t *ffd;

  assert_false(svn_fs_fs__large_membuffer_live());
  ffd = open_f8();
  assert_int_equal(ffd->cache_bytes, 16 * MB);
  assert_true(membuffer_bytes(ffd->node_revision_cache) <= 16 * MB);
  assert_true(membuffer_bytes(ffd->changes_cache) <= 16 * MB);
  assert_true(membuffer_bytes(ffd->l2p_page_cache) <= 16 * MB);
  assert_true(membuffer_bytes(ffd->p2l_page_cache) <= 16 * MB);
  assert_true(membuffer_bytes(ffd->rev_root_id_cache) <= 16 * MB);
  assert_true(membuffer_bytes(ffd->fulltext_cache) <= 16 * MB);
  assert_true(membuffer_bytes(ffd->revprop_cache) <= 16 * MB);
  assert_null(ffd->fulltext_long_cache);
  assert_false(svn_fs_fs__large_membuffer_live());
}

/* Counting stores: admitted node-revs count, values stored at once of a
   short-term kind do not; a few hundred long-term ones make the large
   membuffer live. */
static void
test_promotion(void **state)
{
  apr_uint64_t key;
  int i;

  for (key = 1; key <= 1000; key++)
    {
      svn_fs_fs__admit(7, svn_fs_fs__admit_text, &key, sizeof(key));
      svn_fs_fs__admit(7, svn_fs_fs__admit_text, &key, sizeof(key));
    }
  assert_false(svn_fs_fs__large_membuffer_live());
  for (key = 1; key <= 100; key++)
    {
      svn_fs_fs__admit(7, svn_fs_fs__admit_noderev, &key, sizeof(key));
      svn_fs_fs__admit(7, svn_fs_fs__admit_noderev, &key, sizeof(key));
      assert_true(svn_fs_fs__admit(7, svn_fs_fs__admit_noderev, &key,
                                   sizeof(key)));
    }
  assert_false(svn_fs_fs__large_membuffer_live());
  for (i = 0; i < 156; i++)
    svn_fs_fs__note_long_term_store();
  assert_true(svn_fs_fs__large_membuffer_live());
}

/* With 256 MB configured and the large membuffer live, a repository
   opened now keeps its values in the 256 MB membuffer, fulltexts read
   as of the youngest revision in a cache of their own there, except its
   revprops, whose keys only this svn_fs_t uses: those stay in the 16 MB
   one. */
static void
test_caches_placed(void **state)
{
  svn_fs_fs__data_t *ffd = open_f8();

  assert_int_equal(ffd->cache_bytes, 256 * MB);
  assert_true(membuffer_bytes(ffd->node_revision_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->changes_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->l2p_page_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->fulltext_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->fulltext_long_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->dir_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->properties_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->revfile_image_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->l2p_header_cache) > 200 * MB);
  assert_true(membuffer_bytes(ffd->revprop_cache) <= 16 * MB);
}

int
main(void)
{
  const struct CMUnitTest rule[] = {
    cmocka_unit_test(test_size_rule),
  };
  const struct CMUnitTest placed[] = {
    cmocka_unit_test(test_first_open_small),
    cmocka_unit_test(test_promotion),
    cmocka_unit_test(test_caches_placed),
  };
  svn_cache_config_t settings;
  int rc;

  apr_initialize();
  pool = svn_pool_create(NULL);
  settings = *svn_cache_config_get();
  settings.cache_size = 256 * MB;
  svn_cache_config_set(&settings);
  rc = cmocka_run_group_tests_name("rule", rule, NULL, NULL);
  if (rc == 0)
    rc = stock_tools_status("test_short_term");
  if (rc == 0)
    {
      tmpdir = make_node_repos("fsfs7-test-short-term-", pool);
      if (!tmpdir)
        return 1;
      rc = cmocka_run_group_tests_name("placed", placed, NULL, NULL);
      svn_error_clear(svn_io_remove_dir2(tmpdir, TRUE, NULL, NULL, pool));
    }
  svn_pool_destroy(pool);
  apr_terminate();
  return rc;
}
