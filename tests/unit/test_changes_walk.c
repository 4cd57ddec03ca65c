/* test_changes_walk.c --- reading a huge changed-path list block by block
 * (node.c: svn_fs_fs__rev_changes_block) costs time linear in the list,
 * with and without the changes cache.
 *
 * The stock svnadmin loads a dump written here: r1 adds n_dirs
 * directories of N_FILES files each, r2 changes two files.  n_dirs is 25
 * (5,025 changed paths; 20 blocks) for `make check` and 100 (20,100
 * paths; 79 blocks) with FSFS7_SLOW=1.  Loading is slow (stock writes
 * ~20 files per added node into the transaction), so the repository is
 * built once into $FSFS7_TEST_CACHE (default /tmp/fsfs7-test-cache) and
 * only read afterwards.  The test counts the entries node.c scans from
 * disk (svn_fs_fs__changes_entries_scanned): walking r1's list in
 * 256-entry calls with the cache off must scan each entry about once,
 * where a rescan from the list's start per block scans ~51,000 (5,025
 * paths) or ~800,000 (20,100).  Without the stock svnadmin the test
 * fails under CI=true, else it is skipped (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"

#include "fsfs7.h"
#include "node.h"
#include "repo.h"
#include "changes_codec.h"

/* node.c's statistic (not in node.h: only tests read it). */
extern apr_uint64_t svn_fs_fs__changes_entries_scanned;

#define N_FILES 200
#define N_CHANGES ((apr_uint64_t)n_dirs * (N_FILES + 1))
#define BLOCK 256

static apr_pool_t *pool;
static int n_dirs;
static const char *repo;           /* the cached repository */

/* ---- the repository ------------------------------------------------ */

static void
add_node(svn_stringbuf_t *d, const char *path, const char *kind,
         const char *action, const char *text)
{
  apr_size_t tlen = text ? strlen(text) : 0;

  svn_stringbuf_appendcstr(d, apr_psprintf(d->pool,
    "Node-path: %s\nNode-kind: %s\nNode-action: %s\n", path, kind, action));
  if (text)
    svn_stringbuf_appendcstr(d, apr_psprintf(d->pool,
      "Text-content-length: %lu\nContent-length: %lu\n\n%s\n\n",
      (unsigned long)tlen, (unsigned long)tlen, text));
  else
    svn_stringbuf_appendcstr(d, "\n\n");
}

static void
add_revision(svn_stringbuf_t *d, int rev)
{
  svn_stringbuf_appendcstr(d, apr_psprintf(d->pool,
    "Revision-number: %d\nProp-content-length: 10\n"
    "Content-length: 10\n\nPROPS-END\n\n", rev));
}

static svn_stringbuf_t *
make_dump(apr_pool_t *p)
{
  svn_stringbuf_t *d = svn_stringbuf_create(
    "SVN-fs-dump-format-version: 2\n\n", p);
  int k, i;

  add_revision(d, 1);
  for (k = 0; k < n_dirs; k++)
    {
      add_node(d, apr_psprintf(p, "d%03d", k), "dir", "add", NULL);
      for (i = 0; i < N_FILES; i++)
        add_node(d, apr_psprintf(p, "d%03d/file-%04d.txt", k, i),
                 "file", "add", apr_psprintf(p, "%d %d\n", k, i));
    }
  add_revision(d, 2);
  add_node(d, "d000/file-0000.txt", "file", "change", "changed\n");
  add_node(d, "d001/file-0199.txt", "file", "change", "changed\n");
  return d;
}

static int
have_svnadmin(void)
{
  return system("svnadmin --version --quiet >/dev/null 2>&1") == 0;
}

/* Build the repository at REPO (absent) through a temporary sibling. */
static int
build_repo(void)
{
  const char *tmp = apr_psprintf(pool, "%s.tmp%ld", repo, (long)getpid());
  const char *dump_path = apr_pstrcat(pool, tmp, ".dump", SVN_VA_NULL);
  svn_stringbuf_t *dump = make_dump(pool);
  int rc;

  if (svn_io_make_dir_recursively(svn_dirent_dirname(repo, pool), pool)
      || svn_io_file_create_bytes(dump_path, dump->data, dump->len, pool))
    return -1;
  print_message("building %s (once; stock svnadmin load)\n", repo);
  rc = system(apr_psprintf(pool, "env -u LD_LIBRARY_PATH sh -c 'rm -rf %s "
                           "&& svnadmin create --compatible-version 1.9 %s "
                           "&& svnadmin load -q --no-flush-to-disk %s < %s'",
                           tmp, tmp, tmp, dump_path));
  svn_error_clear(svn_io_remove_file2(dump_path, TRUE, pool));
  /* Another run may have won the race: then its copy is as good. */
  if (rc != 0 || (rename(tmp, repo) != 0 && access(repo, F_OK) != 0))
    return -1;
  svn_error_clear(svn_io_remove_dir2(tmp, TRUE, NULL, NULL, pool));
  return 0;
}

static int
setup(void **state)
{
  const char *cache = getenv("FSFS7_TEST_CACHE");
  const char *slow = getenv("FSFS7_SLOW");

  n_dirs = slow && *slow && strcmp(slow, "0") != 0 ? 100 : 25;
  repo = apr_psprintf(pool, "%s/changes-walk-v1-%dx%d",
                      cache ? cache : "/tmp/fsfs7-test-cache", n_dirs,
                      N_FILES);
  if (access(repo, F_OK) != 0)
    return build_repo();
  return 0;
}

static int
teardown(void **state)
{
  return 0;
}

/* ---- helpers ---------------------------------------------------------- */

#define OK(expr) do { svn_error_t *err_ = (expr); \
    if (err_) { svn_handle_error2(err_, stderr, FALSE, "test: "); \
                svn_error_clear(err_); fail(); } } while (0)

/* A fresh svn_fs_t on the test repository (fresh memo of block starts),
   with or without the changes cache. */
static svn_fs_t *
open_fs(svn_boolean_t with_cache, apr_pool_t *result_pool)
{
  svn_fs_t *fs = apr_pcalloc(result_pool, sizeof(*fs));

  fs->pool = svn_pool_create(result_pool);
  fs->config = apr_hash_make(result_pool);
  fs->path = (char *)svn_dirent_join(repo, "db", result_pool);
  OK(svn_fs_fs__open_repo(fs, fs->path, fs->pool));
  if (!with_cache)
    SVN_FS_FS__DATA(fs)->changes_cache = NULL;
  return fs;
}

/* Read entries FIRST .. FIRST+COUNT-1 of r1's list through FS; return
   how many entries node.c scanned from disk for it. */
static apr_uint64_t
read_range(apr_array_header_t **changes, svn_boolean_t *done, svn_fs_t *fs,
           apr_size_t first, apr_size_t count, apr_pool_t *result_pool)
{
  apr_uint64_t before = svn_fs_fs__changes_entries_scanned;

  OK(svn_fs_fs__rev_changes_block(changes, done, fs, 1, first, count,
                                  result_pool, result_pool));
  return svn_fs_fs__changes_entries_scanned - before;
}

/* Walk r1's whole list in BLOCK-entry calls (as tree.c's iterator does);
   every path comes once; returns the entries scanned. */
static apr_uint64_t
walk(svn_fs_t *fs)
{
  apr_pool_t *iterpool = svn_pool_create(pool);
  apr_hash_t *seen = apr_hash_make(pool);
  apr_uint64_t scanned = 0;
  apr_size_t first = 0;
  svn_boolean_t done = FALSE;

  while (!done)
    {
      apr_array_header_t *block;
      int i;

      svn_pool_clear(iterpool);
      scanned += read_range(&block, &done, fs, first, BLOCK, iterpool);
      assert_true(block->nelts == BLOCK || done);
      for (i = 0; i < block->nelts; i++)
        {
          const svn_fs_fs__change_t *c
            = APR_ARRAY_IDX(block, i, const svn_fs_fs__change_t *);
          const char *path = apr_pstrmemdup(pool, c->path.data, c->path.len);

          assert_null(svn_hash_gets(seen, path));
          svn_hash_sets(seen, path, path);
        }
      first += block->nelts;
    }
  assert_int_equal(first, N_CHANGES);
  assert_int_equal(apr_hash_count(seen), N_CHANGES);
  svn_pool_destroy(iterpool);
  return scanned;
}

/* ---- tests -------------------------------------------------------------- */

/* Without the cache every block is a miss: still linear. */
static void
test_walk_without_cache(void **state)
{
  apr_uint64_t scanned = walk(open_fs(FALSE, pool));

  print_message("walk without cache: %lu entries, %lu scanned\n",
                (unsigned long)N_CHANGES, (unsigned long)scanned);
  assert_true(scanned <= N_CHANGES + BLOCK);
}

static void
test_walk_with_cache(void **state)
{
  svn_fs_t *fs = open_fs(TRUE, pool);
  apr_uint64_t first = walk(fs), second = walk(fs);

  print_message("walk with cache: %lu scanned, then %lu\n",
                (unsigned long)first, (unsigned long)second);
  assert_true(first <= N_CHANGES + BLOCK);
  assert_true(second <= first);
}

/* Jumping around: a far block first costs the scan up to it, once; any
   block before it then costs one block, and the entries are right. */
static void
test_random_access(void **state)
{
  svn_fs_t *fs = open_fs(FALSE, pool);
  apr_array_header_t *all, *part;
  svn_boolean_t done;
  apr_uint64_t cost;
  const apr_size_t picks[] = { 17, 3, 16, 0, 19, 10 };
  size_t k;
  int i;

  OK(svn_fs_fs__rev_changes(&all, open_fs(FALSE, pool), 1, pool, pool));
  assert_int_equal(all->nelts, N_CHANGES);
  for (k = 0; k < sizeof(picks) / sizeof(picks[0]); k++)
    {
      apr_size_t first = picks[k] * BLOCK + 17;

      cost = read_range(&part, &done, fs, first, 100, pool);
      if (k == 0)
        assert_true(cost <= (picks[0] + 1) * BLOCK);
      else if (picks[k] < picks[0])
        assert_true(cost <= BLOCK);
      assert_int_equal(part->nelts, 100);
      for (i = 0; i < part->nelts; i++)
        {
          const svn_fs_fs__change_t *a, *b;
          a = APR_ARRAY_IDX(all, first + i, const svn_fs_fs__change_t *);
          b = APR_ARRAY_IDX(part, i, const svn_fs_fs__change_t *);
          assert_int_equal(a->path.len, b->path.len);
          assert_memory_equal(a->path.data, b->path.data, a->path.len);
        }
    }
  /* r2 (two entries) read through the same fs has its own block starts. */
  OK(svn_fs_fs__rev_changes_block(&part, &done, fs, 2, 0, 1000, pool,
                                  pool));
  assert_int_equal(part->nelts, 2);
  assert_true(done);
}

/* Two svn_fs_t sharing one pool (libsvn_fs gives each the caller's
   pool) keep their own block starts: block 1 of r1 of a second, smaller
   repository is not looked for at the offset the first repository's
   block 1 has. */
static void
test_two_fs_one_pool(void **state)
{
  apr_pool_t *shared = svn_pool_create(pool);
  const char *dir = apr_psprintf(pool, "/tmp/fsfs7-changes-two-%ld",
                                 (long)getpid());
  svn_stringbuf_t *d = svn_stringbuf_create(
    "SVN-fs-dump-format-version: 2\n\n", pool);
  svn_fs_t *big = apr_pcalloc(pool, sizeof(*big));
  svn_fs_t *small = apr_pcalloc(pool, sizeof(*small));
  apr_array_header_t *all, *part;
  svn_boolean_t done;
  int i;

  add_revision(d, 1);
  for (i = 0; i < BLOCK + 44; i++)
    add_node(d, apr_psprintf(pool, "a-rather-longer-name-%04d", i), "file",
             "add", "x\n");
  assert_int_equal(0, system(apr_psprintf(pool, "rm -rf %s && mkdir %s",
                                          dir, dir)));
  OK(svn_io_file_create_bytes(apr_pstrcat(pool, dir, "/dump", SVN_VA_NULL),
                              d->data, d->len, pool));
  assert_int_equal(0, system(apr_psprintf(pool, "env -u LD_LIBRARY_PATH sh "
                     "-c 'cd %s && svnadmin create --compatible-version 1.9 "
                     "r && svnadmin load -q r < dump'", dir)));
  big->pool = small->pool = shared;
  big->config = small->config = apr_hash_make(pool);
  big->path = (char *)svn_dirent_join(repo, "db", pool);
  small->path = (char *)svn_dirent_join(dir, "r/db", pool);
  OK(svn_fs_fs__open_repo(big, big->path, pool));
  OK(svn_fs_fs__open_repo(small, small->path, pool));
  SVN_FS_FS__DATA(big)->changes_cache = NULL;
  SVN_FS_FS__DATA(small)->changes_cache = NULL;
  OK(svn_fs_fs__rev_changes(&all, small, 1, pool, pool));
  assert_int_equal(all->nelts, BLOCK + 44);
  /* The big one learns where its block 1 starts... */
  OK(svn_fs_fs__rev_changes_block(&part, &done, big, 1, BLOCK, 10, pool,
                                  pool));
  /* ...which is no help for the small one. */
  OK(svn_fs_fs__rev_changes_block(&part, &done, small, 1, BLOCK, 44, pool,
                                  pool));
  assert_int_equal(part->nelts, 44);
  for (i = 0; i < part->nelts; i++)
    {
      const svn_fs_fs__change_t *a, *b;
      a = APR_ARRAY_IDX(all, BLOCK + i, const svn_fs_fs__change_t *);
      b = APR_ARRAY_IDX(part, i, const svn_fs_fs__change_t *);
      assert_int_equal(a->path.len, b->path.len);
      assert_memory_equal(a->path.data, b->path.data, a->path.len);
    }
  svn_pool_destroy(shared);
  system(apr_psprintf(pool, "rm -rf %s", dir));
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_walk_without_cache),
    cmocka_unit_test(test_walk_with_cache),
    cmocka_unit_test(test_random_access),
    cmocka_unit_test(test_two_fs_one_pool),
  };
  int rc;

  apr_initialize();
  pool = svn_pool_create(NULL);
  if (!have_svnadmin())
    {
      const char *ci = getenv("CI");
      int in_ci = ci && strcmp(ci, "true") == 0;
      fprintf(stderr, "test_changes_walk: stock svnadmin not found, %s\n",
              in_ci ? "FAILED (CI=true)" : "skipping");
      return in_ci ? 1 : 77;
    }
  rc = cmocka_run_group_tests(tests, setup, teardown);
  svn_pool_destroy(pool);
  apr_terminate();
  return rc ? 1 : 0;
}
