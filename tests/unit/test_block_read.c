/* test_block_read.c --- block-read (node.c's block hook on revfile.c):
 * when a read of one item fetches a block from disk, the other
 * node-revisions and changed-path lists wholly inside that block are
 * parsed into their caches, so that looking them up next reads nothing.
 * Off by default since values read once are no longer cached
 * (cache_admit.h): FSFS7_BLOCK_READ picks the kinds, and the tests that
 * need them set it.
 *
 * Reads the format-8 repository of tests/unit/node_repos.sh (written by
 * the stock module; r1 is one small revision file, i.e. one block) and
 * counts node.c's statistics: node-revs parsed by the ordinary read path
 * (svn_fs_fs__noderevs_read), items filled by block-read
 * (svn_fs_fs__block_read_items) and change entries scanned from disk.
 * Each svn_fs_t gets its own cache namespace, so none of them sees what
 * another one cached.  Exits 77 (skip) without the stock svn/svnadmin,
 * except under CI=true. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"

#include "fsfs7.h"
#include "id.h"
#include "node.h"
#include "repo.h"
#include "test_util.h"

/* node.c's statistics (not in node.h: only tests read them). */
extern apr_uint64_t svn_fs_fs__noderevs_read;
extern apr_uint64_t svn_fs_fs__block_read_items;
extern apr_uint64_t svn_fs_fs__block_read_lookups;
extern apr_uint64_t svn_fs_fs__changes_entries_scanned;

static apr_pool_t *pool;
static const char *tmpdir;
static int namespace_no;

static void
check(svn_error_t *err)
{
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "test_block_read: ");
      fail();
    }
}

/* A new svn_fs_t on the f8 repository with a cache namespace of its own
   and FS_CONFIG_BLOCK_READ (NULL: unset) as fsfs-block-read. */
static svn_fs_t *
open_f8(const char *fs_config_block_read)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));

  fs->pool = svn_pool_create(pool);
  fs->config = apr_hash_make(pool);
  svn_hash_sets(fs->config, SVN_FS_CONFIG_FSFS_CACHE_NS,
                apr_psprintf(pool, "test-block-read-%d", ++namespace_no));
  if (fs_config_block_read)
    svn_hash_sets(fs->config, SVN_FS_CONFIG_FSFS_BLOCK_READ,
                  fs_config_block_read);
  fs->path = (char *)svn_dirent_join_many(pool, tmpdir, "f8", "db",
                                          SVN_VA_NULL);
  check(svn_fs_fs__open_repo(fs, fs->path, pool));
  assert_non_null(SVN_FS_FS__DATA(fs)->node_revision_cache);
  return fs;
}

/* A new svn_fs_t on the packed copy f8p (test_changes_from_cache). */
static svn_fs_t *
open_f8p(void)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));

  fs->pool = svn_pool_create(pool);
  fs->config = apr_hash_make(pool);
  svn_hash_sets(fs->config, SVN_FS_CONFIG_FSFS_CACHE_NS,
                apr_psprintf(pool, "test-block-read-%d", ++namespace_no));
  fs->path = (char *)svn_dirent_join_many(pool, tmpdir, "f8p", "db",
                                          SVN_VA_NULL);
  check(svn_fs_fs__open_repo(fs, fs->path, pool));
  return fs;
}

/* Read r1's root node-rev, then the node-rev of its entry "trunk" (same
   block).  *FIRST / *SECOND get the node-revs node.c parsed from disk by
   the ordinary path for each. */
static void
read_root_then_trunk(svn_fs_t *fs, apr_uint64_t *first,
                     apr_uint64_t *second)
{
  apr_pool_t *p = svn_pool_create(pool);
  const svn_fs_fs__id_t *root_id;
  svn_fs_fs__noderev_t *root, *trunk;
  svn_fs_dirent_t *entry;
  apr_uint64_t before = svn_fs_fs__noderevs_read;

  check(svn_fs_fs__rev_root_id(&root_id, fs, 1, p, p));
  check(svn_fs_fs__get_noderev(&root, fs, root_id, p, p));
  *first = svn_fs_fs__noderevs_read - before;
  check(svn_fs_fs__dir_entry(&entry, fs, root, "trunk", p, p));
  assert_non_null(entry);
  before = svn_fs_fs__noderevs_read;
  check(svn_fs_fs__get_noderev(&trunk, fs, SVN_FS_FS__ID(entry->id), p, p));
  *second = svn_fs_fs__noderevs_read - before;
  assert_true(svn_fs_fs__id_eq(trunk->id, SVN_FS_FS__ID(entry->id)));
  assert_string_equal(trunk->created_path, "/trunk");
  svn_pool_destroy(p);
}

/* With node-revs among the kinds (not the default: FSFS7_BLOCK_READ). */
static void
test_neighbour_noderev_from_cache(void **state)
{
  svn_fs_t *fs;
  apr_uint64_t first, second, filled = svn_fs_fs__block_read_items;

  setenv("FSFS7_BLOCK_READ", "noderev,changes", 1);
  fs = open_f8(NULL);
  unsetenv("FSFS7_BLOCK_READ");
  read_root_then_trunk(fs, &first, &second);
  assert_int_equal(first, 1);
  /* Parsed with the block of the root, not read again. */
  assert_int_equal(second, 0);
  assert_true(svn_fs_fs__block_read_items - filled >= 2);
}

/* A new svn_fs_t on f8p that pre-parses changed-path lists only. */
static svn_fs_t *
open_f8p_changes(void)
{
  svn_fs_t *fs;

  setenv("FSFS7_BLOCK_READ", "changes", 1);
  fs = open_f8p();
  unsetenv("FSFS7_BLOCK_READ");
  return fs;
}

/* Changed-path lists pre-parsed, node-revs not.  A copy of f8 in shards
   of 4 revisions, packed by the stock module: reading r2's list brings
   the lists of r1 and r3 (one block). */
static void
test_changes_from_cache(void **state)
{
  svn_fs_t *fs;
  apr_uint64_t first, second, scanned;
  apr_array_header_t *changes;
  const char *cmd = apr_psprintf(pool,
    "cd %s && cp -a f8 f8p && cd f8p/db && "
    "sed -i 's/layout sharded 1000/layout sharded 4/' format && "
    "for d in revs revprops; do mkdir $d/1 $d/2 && mv $d/0/4 $d/0/5 "
    "$d/0/6 $d/0/7 $d/1/ && mv $d/0/8 $d/2/ || exit 1; done && "
    "env -u LD_LIBRARY_PATH svnadmin pack -q %s/f8p", tmpdir, tmpdir);

  assert_int_equal(system(cmd), 0);
  fs = open_f8p_changes();
  read_root_then_trunk(fs, &first, &second);
  assert_int_equal(first, 1);
  assert_int_equal(second, 1);         /* node-revs: not pre-parsed */
  check(svn_fs_fs__rev_changes(&changes, fs, 2, pool, pool));
  scanned = svn_fs_fs__changes_entries_scanned;
  check(svn_fs_fs__rev_changes(&changes, fs, 1, pool, pool));
  /* r1 added trunk, its files and branches. */
  assert_true(changes->nelts >= 5);
  check(svn_fs_fs__rev_changes(&changes, fs, 3, pool, pool));
  assert_true(changes->nelts >= 1);
  assert_int_equal(svn_fs_fs__changes_entries_scanned - scanned, 0);

  /* Without block-read (the default), each list is scanned from disk. */
  fs = open_f8p();
  assert_int_equal(SVN_FS_FS__DATA(fs)->block_read_kinds, 0);
  check(svn_fs_fs__rev_changes(&changes, fs, 2, pool, pool));
  scanned = svn_fs_fs__changes_entries_scanned;
  check(svn_fs_fs__rev_changes(&changes, fs, 1, pool, pool));
  assert_int_equal(svn_fs_fs__changes_entries_scanned - scanned,
                   changes->nelts);
}

/* An unpacked revision's file holds one changed-path list, the one being
   read: pre-parsing lists, reading it consults no P2L index, while a
   pack file's lists do (test_changes_from_cache made f8p); by default
   neither does. */
static void
test_unpacked_changes_no_lookup(void **state)
{
  svn_fs_t *fs;
  apr_array_header_t *changes;
  apr_uint64_t before = svn_fs_fs__block_read_lookups;

  setenv("FSFS7_BLOCK_READ", "changes", 1);
  fs = open_f8(NULL);
  unsetenv("FSFS7_BLOCK_READ");
  check(svn_fs_fs__rev_changes(&changes, fs, 1, pool, pool));
  check(svn_fs_fs__rev_changes(&changes, fs, 2, pool, pool));
  assert_true(changes->nelts >= 1);
  assert_int_equal(svn_fs_fs__block_read_lookups - before, 0);
  fs = open_f8p();
  check(svn_fs_fs__rev_changes(&changes, fs, 2, pool, pool));
  assert_int_equal(svn_fs_fs__block_read_lookups - before, 0);
  fs = open_f8p_changes();
  check(svn_fs_fs__rev_changes(&changes, fs, 2, pool, pool));
  assert_true(svn_fs_fs__block_read_lookups - before > 0);
}

/* The same reads without block-read parse "trunk" from disk: the test
   above would fail without the pre-parse. */
static void
test_off_reads_again(void **state)
{
  svn_fs_t *fs;
  apr_uint64_t first, second;

  setenv("FSFS7_BLOCK_READ", "none", 1);
  fs = open_f8(NULL);
  unsetenv("FSFS7_BLOCK_READ");
  assert_int_equal(SVN_FS_FS__DATA(fs)->block_read_kinds, 0);
  read_root_then_trunk(fs, &first, &second);
  assert_int_equal(first, 1);
  assert_int_equal(second, 1);
}

/* fsfs.conf's [io] block-read = false switches it off; the application's
   fsfs-block-read=1 switches it back on, its 0 does not override the
   repository's default.  (With FSFS7_BLOCK_READ naming kinds: by
   default there are none to pre-parse.) */
static void
test_settings(void **state)
{
  const char *conf = svn_dirent_join_many(pool, tmpdir, "f8", "db",
                                          "fsfs.conf", SVN_VA_NULL);
  svn_stringbuf_t *text;
  svn_fs_t *fs;

  fs = open_f8("1");
  assert_int_equal(SVN_FS_FS__DATA(fs)->block_read_kinds, 0);
  setenv("FSFS7_BLOCK_READ", "changes", 1);
  fs = open_f8("0");
  assert_int_not_equal(SVN_FS_FS__DATA(fs)->block_read_kinds, 0);
  check(svn_stringbuf_from_file2(&text, conf, pool));
  svn_stringbuf_appendcstr(text, "\n[io]\nblock-read = false\n");
  check(svn_io_write_atomic2(conf, text->data, text->len, NULL, FALSE,
                             pool));
  fs = open_f8(NULL);
  assert_int_equal(SVN_FS_FS__DATA(fs)->block_read_kinds, 0);
  fs = open_f8("1");
  assert_int_not_equal(SVN_FS_FS__DATA(fs)->block_read_kinds, 0);
  unsetenv("FSFS7_BLOCK_READ");
}

static int
setup(void **state)
{
  tmpdir = make_node_repos("fsfs7-test-block-read-", pool);
  if (!tmpdir)
    return -1;
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
    cmocka_unit_test(test_neighbour_noderev_from_cache),
    cmocka_unit_test(test_changes_from_cache),
    cmocka_unit_test(test_unpacked_changes_no_lookup),
    cmocka_unit_test(test_off_reads_again),
    cmocka_unit_test(test_settings),
  };
  int rc;

  apr_initialize();
  pool = svn_pool_create(NULL);
  unsetenv("FSFS7_BLOCK_READ");
  rc = stock_tools_status("test_block_read");
  if (rc != 0)
    return rc;
  rc = cmocka_run_group_tests(tests, setup, teardown);
  svn_pool_destroy(pool);
  apr_terminate();
  return rc;
}
