/* test_deltify.c --- the delta base choice (deltify.c; doc/format/commit.md
 * DELTA-1 .. DELTA-4).
 *
 * A repository written by the stock module, where /big changes in every
 * revision and /small stays under 64 bytes, and /d has a property that
 * changes: for each node-rev we ask which base we would choose and
 * compare with the base stock chose for the same node-rev (its rep
 * header), and with the rule's arithmetic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <apr_general.h>
#include "svn_pools.h"
#include "test_util.h"

#include "svn_dirent_uri.h"
#include "svn_io.h"

#include "deltify.h"
#include "node.h"
#include "id.h"
#include "repo.h"

static apr_pool_t *pool;
static svn_fs_t *fs;
static const char *dir;

#define REVS 40

/* Build the repository once (stock module) and open it with ours. */
static int
setup(void **state)
{
  const char *cmd;
  svn_error_t *err;

  dir = apr_psprintf(pool, "/tmp/commit-dl-%ld", (long)getpid());
  cmd = apr_psprintf(pool,
    "rm -rf %s && mkdir -p %s && cd %s && svnadmin create --compatible-"
    "version 1.8 r && seq 1 3000 > big && echo s > small && svnmucc -m 0 "
    "put big file://$PWD/r/big put small file://$PWD/r/small mkdir "
    "file://$PWD/r/d >/dev/null && for i in $(seq 2 %d); do echo $i >> big "
    "&& echo $i > small && svnmucc -m $i put big file://$PWD/r/big put "
    "small file://$PWD/r/small propset p $i file://$PWD/r/d >/dev/null "
    "|| exit 1; done", dir, dir, dir, REVS);
  assert_int_equal(0, system(cmd));
  fs = apr_pcalloc(pool, sizeof(*fs));
  fs->pool = svn_pool_create(pool);
  err = svn_fs_fs__open_repo(fs, svn_dirent_join(dir, "r/db", pool), pool);
  if (err && err->apr_err == SVN_ERR_UNSUPPORTED_FEATURE)
    svn_error_clear(err);
  else
    assert_null(err);
  return 0;
}

static int
teardown(void **state)
{
  svn_pool_destroy(fs->pool);
  return system(apr_psprintf(pool, "rm -rf %s", dir));
}

/* The node-rev of /NAME in REV. */
static svn_fs_fs__noderev_t *
noderev_at(svn_revnum_t rev, const char *name)
{
  const svn_fs_fs__id_t *root_id;
  svn_fs_fs__noderev_t *root, *nr;
  svn_fs_dirent_t *dirent;

  assert_null(svn_fs_fs__rev_root_id(&root_id, fs, rev, pool, pool));
  assert_null(svn_fs_fs__get_noderev(&root, fs, root_id, pool, pool));
  assert_null(svn_fs_fs__dir_entry(&dirent, fs, root, name, pool, pool));
  assert_non_null(dirent);
  assert_null(svn_fs_fs__get_noderev(&nr, fs, SVN_FS_FS__ID(dirent->id),
                                     pool, pool));
  return nr;
}

/* The base revision stock wrote into the DELTA header of REP, or -1 for
   a delta against the empty text (format 6: item index = offset). */
static svn_revnum_t
stock_base(const svn_fs_fs__rep_t *rep)
{
  svn_stringbuf_t *data;
  const char *line;
  long base_rev = -1;

  assert_null(svn_stringbuf_from_file2(
    &data, apr_psprintf(pool, "%s/r/db/revs/0/%ld", dir, rep->revision),
    pool));
  line = data->data + rep->item_index;
  if (strncmp(line, "DELTA ", 6) == 0)
    base_rev = strtol(line + 6, NULL, 10);
  return base_rev;
}

/* /big: our choice equals stock's for every revision, and follows the
   arithmetic of DELTA-2 (linear below 16, skip-delta from there). */
static void
test_big_file(void **state)
{
  svn_revnum_t rev;

  for (rev = 2; rev <= REVS; rev++)
    {
      svn_fs_fs__noderev_t *nr = noderev_at(rev, "big");
      svn_fs_fs__rep_t *base;
      int c = nr->predecessor_count;
      int want = (c - (c & (c - 1))) < 16 ? c - 1 : (c & (c - 1));

      assert_null(svn_fs_fs__choose_delta_base(&base, fs, nr, FALSE, pool,
                                               pool));
      assert_non_null(base);
      assert_int_equal(stock_base(nr->data_rep), base->revision);
      /* /big was created in r1 with count 0: count c lives in r(c+1). */
      assert_int_equal(want + 1, base->revision);
    }
}

/* /small stays under 64 bytes, d's property list too: no base
   (DELTA-4), as stock. */
static void
test_small_reps(void **state)
{
  svn_revnum_t rev;

  for (rev = 2; rev <= REVS; rev++)
    {
      svn_fs_fs__noderev_t *nr = noderev_at(rev, "small");
      svn_fs_fs__rep_t *base;

      assert_null(svn_fs_fs__choose_delta_base(&base, fs, nr, FALSE, pool,
                                               pool));
      assert_null(base);
      assert_int_equal(-1, stock_base(nr->data_rep));
      nr = noderev_at(rev, "d");
      assert_null(svn_fs_fs__choose_delta_base(&base, fs, nr, TRUE, pool,
                                               pool));
      assert_null(base);
    }
}

/* The knobs: walk limit and disabled property deltification. */
static void
test_limits(void **state)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__noderev_t *nr = noderev_at(REVS, "big");
  svn_fs_fs__rep_t *base;
  int walk = ffd->max_deltification_walk;
  int linear = ffd->max_linear_deltification;

  /* Count 39: skip distance 7 < 16, linear, distance 1. */
  ffd->max_deltification_walk = 0;
  assert_null(svn_fs_fs__choose_delta_base(&base, fs, nr, FALSE, pool, pool));
  assert_null(base);
  ffd->max_deltification_walk = walk;
  /* No linear part: count 39 -> 38 (39 & 38 = 38). */
  ffd->max_linear_deltification = 0;
  assert_null(svn_fs_fs__choose_delta_base(&base, fs, nr, FALSE, pool, pool));
  assert_non_null(base);
  assert_int_equal(39, base->revision);
  nr = noderev_at(34, "big");    /* count 33 -> 32, in r33 */
  assert_null(svn_fs_fs__choose_delta_base(&base, fs, nr, FALSE, pool, pool));
  assert_int_equal(33, base->revision);
  nr = noderev_at(33, "big");    /* count 32 -> 0, in r1 */
  assert_null(svn_fs_fs__choose_delta_base(&base, fs, nr, FALSE, pool, pool));
  assert_int_equal(1, base->revision);
  ffd->max_linear_deltification = linear;
  ffd->deltify_properties = FALSE;
  assert_null(svn_fs_fs__choose_delta_base(&base, fs, noderev_at(REVS, "d"),
                                           TRUE, pool, pool));
  assert_null(base);
  ffd->deltify_properties = TRUE;
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_big_file),
    cmocka_unit_test(test_small_reps),
    cmocka_unit_test(test_limits),
  };
  int rc;

  apr_initialize();
  pool = svn_pool_create(NULL);
  rc = cmocka_run_group_tests(tests, setup, teardown);
  svn_pool_destroy(pool);
  apr_terminate();
  return rc;
}
