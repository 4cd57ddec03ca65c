/* test_cache_admit.c --- miss-counting admission to the membuffer
 * (cache_admit.c) and the caches that consult it: changed-path lists,
 * index pages of revision files and file texts read as of the youngest
 * revision are stored on their second read from disk, node-revs on
 * their third, not the first; texts read as of an older revision are
 * stored at once.
 *
 * The table is process-wide, so every svn_fs_t here opens the same
 * repository under the same cache namespace (as the svn_fs_t of two
 * requests to a server would), while each test uses a namespace of its
 * own.  Reads the format-8 repository of tests/unit/node_repos.sh.
 * Exits 77 (skip) without the stock svn/svnadmin, except under CI=true.
 */
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
#include "private/svn_cache.h"

#include "cache_admit.h"
#include "fsfs7.h"
#include "id.h"
#include "index.h"
#include "node.h"
#include "repo.h"
#include "revfile.h"
#include "tree.h"
#include "test_util.h"

/* node.c's statistics (not in node.h: only tests read them). */
extern apr_uint64_t svn_fs_fs__noderevs_read;
extern apr_uint64_t svn_fs_fs__changes_entries_scanned;

static apr_pool_t *pool;
static const char *tmpdir;

static void
check(svn_error_t *err)
{
  if (err)
    {
      svn_handle_error2(err, stderr, FALSE, "test_cache_admit: ");
      fail();
    }
}

/* ------------------------------------------------------------------ */
/* The table                                                           */

static void
test_second_miss_admits(void **state)
{
  apr_uint64_t salt = svn_fs_fs__admit_salt("repo-a");
  const char key[] = "some key";

  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_changes, key,
                                sizeof(key)));
  assert_true(svn_fs_fs__admit(salt, svn_fs_fs__admit_changes, key,
                               sizeof(key)));
  assert_true(svn_fs_fs__admit(salt, svn_fs_fs__admit_changes, key,
                               sizeof(key)));
}

/* Node-revs wait for a third miss, and the count saturates (a key read
   a hundred times is still admitted). */
static void
test_noderev_third_miss_admits(void **state)
{
  apr_uint64_t salt = svn_fs_fs__admit_salt("repo-a");
  const char key[] = "some key";
  int i;

  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_noderev, key,
                                sizeof(key)));
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_noderev, key,
                                sizeof(key)));
  for (i = 0; i < 100; i++)
    assert_true(svn_fs_fs__admit(salt, svn_fs_fs__admit_noderev, key,
                                 sizeof(key)));
  /* After a reset the count starts again. */
  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_noderev, key,
                                sizeof(key)));
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_noderev, key,
                                sizeof(key)));
}

/* Repository, cache and key are all part of what is remembered. */
static void
test_keys_apart(void **state)
{
  apr_uint64_t a = svn_fs_fs__admit_salt("repo-a");
  apr_uint64_t b = svn_fs_fs__admit_salt("repo-b");
  const char key[] = "some key", other[] = "some kez";

  assert_int_not_equal(a, b);
  assert_int_not_equal(svn_fs_fs__admit_salt(""), 0);
  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit(a, svn_fs_fs__admit_text, key, sizeof(key)));
  assert_false(svn_fs_fs__admit(b, svn_fs_fs__admit_text, key, sizeof(key)));
  assert_false(svn_fs_fs__admit(a, svn_fs_fs__admit_changes, key,
                                sizeof(key)));
  assert_false(svn_fs_fs__admit(a, svn_fs_fs__admit_text, other,
                                sizeof(other)));
  /* ... and none of those pushed the first one out. */
  assert_true(svn_fs_fs__admit(a, svn_fs_fs__admit_text, key, sizeof(key)));
}

/* A key is forgotten once enough other keys came by (the table is
   lossy), and after a reset. */
static void
test_forgets(void **state)
{
  apr_uint64_t salt = svn_fs_fs__admit_salt("repo-a");
  apr_uint64_t i;

  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_changes, "k", 1));
  for (i = 0; i < 1000000; i++)
    svn_fs_fs__admit(salt, svn_fs_fs__admit_changes, &i, sizeof(i));
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_changes, "k", 1));
  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_changes, "k", 1));
}

/* A working set read once per round, as a server serving the same
   export again and again reads it: every key misses until it is stored
   and is then found (it stops calling).  Every key must get in within a
   few dozen rounds, also the ones whose slot another key of the set
   takes between two of their misses.  With one slot per key and the
   slot always going to the latest miss, pairs of such keys pushed each
   other out forever: 2,998 of 8,000 texts and 3,081 of 8,000 node-revs
   were never admitted in 40 rounds.  Now the texts were all in after 14
   rounds and the node-revs (three misses each) after 45 in one run on
   Debian 12: a key whose two slots keys of the set keep taking gets in
   by the coin, late, and a few may still be waiting after 100. */
static void
check_rhythm(svn_fs_fs__admit_kind_t kind, apr_uint64_t keys, int rounds)
{
  apr_uint64_t salt = svn_fs_fs__admit_salt("repo-rhythm");
  svn_boolean_t *in = calloc(keys, sizeof(*in));
  apr_uint64_t i, left = keys;
  int round;

  svn_fs_fs__admit_reset();
  for (round = 0; round < rounds && left; round++)
    for (i = 0; i < keys; i++)
      if (!in[i] && svn_fs_fs__admit(salt, kind, &i, sizeof(i)))
        in[i] = TRUE, left--;
  fprintf(stderr, "kind %d: all in after %d rounds\n", (int)kind, round);
  if (left)
    fprintf(stderr, "kind %d: %" APR_UINT64_T_FMT " of %" APR_UINT64_T_FMT
            " keys not admitted after %d rounds\n", (int)kind, left, keys,
            rounds);
  free(in);
  /* The coin is a generator per thread seeded from an address, so the
     rounds vary from run to run, and a key whose two slots keys of the
     set keep taking may still wait (two node-revs of 8,000 after 100
     rounds on Debian 13): a handful, where the table without the coin
     left more than a third out for good. */
  assert_true(left <= keys / 1000);
}

static void
test_rhythm_texts(void **state)
{
  check_rhythm(svn_fs_fs__admit_text, 8000, 100);
}

static void
test_rhythm_noderevs(void **state)
{
  check_rhythm(svn_fs_fs__admit_noderev, 8000, 100);
}

/* FSFS7_CACHE_ADMIT=always stores every value (read again after a
   reset). */
static void
test_always(void **state)
{
  apr_uint64_t salt = svn_fs_fs__admit_salt("repo-a");

  setenv("FSFS7_CACHE_ADMIT", "always", 1);
  svn_fs_fs__admit_reset();
  assert_true(svn_fs_fs__admit(salt, svn_fs_fs__admit_noderev, "k", 1));
  unsetenv("FSFS7_CACHE_ADMIT");
  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit(salt, svn_fs_fs__admit_noderev, "k", 1));
}

/* The filter of stored values: no false "never stored" (a key noted is
   always reported), keys apart, and forgotten on a reset. */
static void
test_stored_filter(void **state)
{
  apr_uint64_t a = svn_fs_fs__admit_salt("repo-a");
  apr_uint64_t b = svn_fs_fs__admit_salt("repo-b");
  apr_uint64_t i, reported = 0;

  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit_maybe_stored(a, svn_fs_fs__admit_noderev,
                                             "k", 1));
  svn_fs_fs__admit_note_stored(a, svn_fs_fs__admit_noderev, "k", 1);
  assert_true(svn_fs_fs__admit_maybe_stored(a, svn_fs_fs__admit_noderev,
                                            "k", 1));
  assert_false(svn_fs_fs__admit_maybe_stored(b, svn_fs_fs__admit_noderev,
                                             "k", 1));
  assert_false(svn_fs_fs__admit_maybe_stored(a, svn_fs_fs__admit_changes,
                                             "k", 1));
  for (i = 0; i < 1000; i++)
    svn_fs_fs__admit_note_stored(a, svn_fs_fs__admit_noderev, &i,
                                 sizeof(i));
  for (i = 0; i < 1000; i++)
    assert_true(svn_fs_fs__admit_maybe_stored(a, svn_fs_fs__admit_noderev,
                                              &i, sizeof(i)));
  /* Keys never noted are mostly told apart (1,001 of 262,144 bits set). */
  for (i = 1000; i < 11000; i++)
    reported += svn_fs_fs__admit_maybe_stored(a, svn_fs_fs__admit_noderev,
                                              &i, sizeof(i));
  assert_true(reported < 100);
  /* Each kind has a filter of its own: texts filling theirs (a dump
     stores a quarter million) leave the node-revs' as it was. */
  for (i = 0; i < 300000; i++)
    svn_fs_fs__admit_note_stored(a, svn_fs_fs__admit_text, &i, sizeof(i));
  reported = 0;
  for (i = 1000; i < 11000; i++)
    reported += svn_fs_fs__admit_maybe_stored(a, svn_fs_fs__admit_noderev,
                                              &i, sizeof(i));
  assert_true(reported < 100);
  svn_fs_fs__admit_reset();
  assert_false(svn_fs_fs__admit_maybe_stored(a, svn_fs_fs__admit_noderev,
                                             "k", 1));
}

/* ------------------------------------------------------------------ */
/* The caches                                                          */

/* A new svn_fs_t on f8 in cache namespace NS. */
static svn_fs_t *
open_f8(const char *ns)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));

  fs->pool = svn_pool_create(pool);
  fs->config = apr_hash_make(pool);
  svn_hash_sets(fs->config, SVN_FS_CONFIG_FSFS_CACHE_NS, ns);
  fs->path = (char *)svn_dirent_join_many(pool, tmpdir, "f8", "db",
                                          SVN_VA_NULL);
  check(svn_fs_fs__open_repo(fs, fs->path, pool));
  assert_non_null(SVN_FS_FS__DATA(fs)->node_revision_cache);
  return fs;
}

/* Values stored into the process's membuffer so far (by any cache). */
static apr_uint64_t
membuffer_sets(void)
{
  return svn_cache__membuffer_get_global_info(pool)->sets;
}

/* Values stored through CACHE (one svn_fs_t's cache of one kind). */
static apr_uint64_t
cache_sets(svn_cache__t *cache)
{
  svn_cache__info_t info;

  check(svn_cache__get_info(cache, &info, FALSE, pool));
  return info.sets;
}

/* Lookups through CACHE. */
static apr_uint64_t
cache_gets(svn_cache__t *cache)
{
  svn_cache__info_t info;

  check(svn_cache__get_info(cache, &info, FALSE, pool));
  return info.gets;
}

/* Lookups the membuffer answered so far (any cache). */
static apr_uint64_t
membuffer_hits(void)
{
  return svn_cache__membuffer_get_global_info(pool)->hits;
}

/* A node-rev goes into the cache on its third read from disk, by
   yet another svn_fs_t of the same repository; the fourth is served
   from the cache. */
static void
test_noderev(void **state)
{
  svn_fs_t *fs = open_f8("admit-noderev");
  const svn_fs_fs__id_t *root_id;
  svn_fs_fs__noderev_t *node;
  apr_uint64_t read;

  svn_fs_fs__admit_reset();
  check(svn_fs_fs__rev_root_id(&root_id, fs, 3, pool, pool));
  read = svn_fs_fs__noderevs_read;
  check(svn_fs_fs__get_noderev(&node, fs, root_id, pool, pool));
  assert_int_equal(svn_fs_fs__noderevs_read - read, 1);
  assert_int_equal(cache_sets(SVN_FS_FS__DATA(fs)->node_revision_cache), 0);
  /* Never stored: the membuffer is not even asked (cache_admit.h). */
  assert_int_equal(cache_gets(SVN_FS_FS__DATA(fs)->node_revision_cache), 0);

  fs = open_f8("admit-noderev");
  check(svn_fs_fs__get_noderev(&node, fs, root_id, pool, pool));
  assert_int_equal(svn_fs_fs__noderevs_read - read, 2);
  assert_int_equal(cache_sets(SVN_FS_FS__DATA(fs)->node_revision_cache), 0);

  fs = open_f8("admit-noderev");
  check(svn_fs_fs__get_noderev(&node, fs, root_id, pool, pool));
  assert_int_equal(svn_fs_fs__noderevs_read - read, 3);
  assert_int_equal(cache_sets(SVN_FS_FS__DATA(fs)->node_revision_cache), 1);

  fs = open_f8("admit-noderev");
  check(svn_fs_fs__get_noderev(&node, fs, root_id, pool, pool));
  assert_int_equal(svn_fs_fs__noderevs_read - read, 3);
  assert_int_equal(cache_gets(SVN_FS_FS__DATA(fs)->node_revision_cache), 1);
  assert_true(svn_fs_fs__id_eq(node->id, root_id));
}

/* The same for a changed-path list. */
static void
test_changes(void **state)
{
  svn_fs_t *fs = open_f8("admit-changes");
  apr_array_header_t *changes;
  apr_uint64_t scanned;
  int n;

  svn_fs_fs__admit_reset();
  scanned = svn_fs_fs__changes_entries_scanned;
  check(svn_fs_fs__rev_changes(&changes, fs, 1, pool, pool));
  n = changes->nelts;
  assert_true(n >= 5);
  assert_int_equal(svn_fs_fs__changes_entries_scanned - scanned, n);
  assert_int_equal(cache_sets(SVN_FS_FS__DATA(fs)->changes_cache), 0);
  /* Never stored: the membuffer is not even asked (cache_admit.h). */
  assert_int_equal(cache_gets(SVN_FS_FS__DATA(fs)->changes_cache), 0);

  fs = open_f8("admit-changes");
  check(svn_fs_fs__rev_changes(&changes, fs, 1, pool, pool));
  assert_int_equal(svn_fs_fs__changes_entries_scanned - scanned, 2 * n);
  assert_int_equal(cache_sets(SVN_FS_FS__DATA(fs)->changes_cache), 1);

  fs = open_f8("admit-changes");
  check(svn_fs_fs__rev_changes(&changes, fs, 1, pool, pool));
  assert_int_equal(cache_gets(SVN_FS_FS__DATA(fs)->changes_cache), 1);
  assert_int_equal(changes->nelts, n);
  assert_int_equal(svn_fs_fs__changes_entries_scanned - scanned, 2 * n);
}

/* Offset of ITEM of r7 (175 kB, larger than a block, so its index pages
   are cached) through a new svn_fs_t on f8 in namespace NS; *SETS and
   *HITS get what the membuffer stored and answered meanwhile. */
static void
r7_item_offset(const char *ns, apr_uint64_t item, apr_uint64_t *sets,
               apr_uint64_t *hits)
{
  svn_fs_t *fs = open_f8(ns);
  svn_fs_fs__revfile_t *file;
  apr_off_t offset;
  apr_uint64_t sets_before = membuffer_sets();
  apr_uint64_t hits_before = membuffer_hits();

  check(svn_fs_fs__revfile_open(&file, fs, 7, pool, pool));
  check(svn_fs_fs__item_offset(&offset, fs, file, 7, item, pool));
  assert_true(offset >= 0 && offset < 175877);
  check(svn_fs_fs__revfile_close(file));
  *sets = membuffer_sets() - sets_before;
  *hits = membuffer_hits() - hits_before;
}

/* The P2L entry at offset 0 of r7 through a new svn_fs_t on f8 in
   namespace NS; *SETS as for r7_item_offset(). */
static void
r7_first_entry(const char *ns, apr_uint64_t *sets)
{
  svn_fs_t *fs = open_f8(ns);
  svn_fs_fs__revfile_t *file;
  svn_fs_fs__p2l_entry_t *entry;
  apr_uint64_t sets_before = membuffer_sets();

  check(svn_fs_fs__revfile_open(&file, fs, 7, pool, pool));
  check(svn_fs_fs__p2l_entry_lookup(&entry, fs, file, 7, 0, pool, pool));
  assert_non_null(entry);
  assert_int_equal(entry->offset, 0);
  check(svn_fs_fs__revfile_close(file));
  *sets = membuffer_sets() - sets_before;
}

/* P2L pages of a revision file too (header at once). */
static void
test_p2l_page(void **state)
{
  apr_uint64_t sets;

  svn_fs_fs__admit_reset();
  r7_first_entry("admit-p2l", &sets);
  assert_int_equal(sets, 1);          /* the header */
  r7_first_entry("admit-p2l", &sets);
  assert_int_equal(sets, 1);          /* the page */
  r7_first_entry("admit-p2l", &sets);
  assert_int_equal(sets, 0);
}

/* L2P pages too (the header is stored at once: a few bytes per file). */
static void
test_l2p_page(void **state)
{
  apr_uint64_t sets, hits;

  svn_fs_fs__admit_reset();
  r7_item_offset("admit-l2p", 1, &sets, &hits);
  assert_int_equal(sets, 1);          /* the header */
  assert_int_equal(hits, 0);
  r7_item_offset("admit-l2p", 2, &sets, &hits);
  assert_int_equal(sets, 1);          /* the page */
  assert_int_equal(hits, 1);          /* the header */
  r7_item_offset("admit-l2p", 3, &sets, &hits);
  assert_int_equal(sets, 0);
  assert_int_equal(hits, 2);
}

/* svn_fs_try_process_file_contents's processor: note the length. */
static svn_error_t *
note_processed(const unsigned char *contents, apr_size_t len, void *baton,
               apr_pool_t *scratch_pool)
{
  *(apr_size_t *)baton = len;
  return SVN_NO_ERROR;
}

/* Whether the text of PATH in ROOT is in the fulltext cache. */
static svn_boolean_t
text_cached(svn_fs_root_t *root, const char *path)
{
  svn_boolean_t success;
  apr_size_t len = 0;

  check(root->vtable->try_process_file_contents(&success, root, path,
                                                note_processed, &len,
                                                pool));
  return success && len > 0;
}

/* Read the whole text of PATH in revision REV of FS through the tree
   layer; it must be EXPECTED. */
static svn_fs_root_t *
read_text(svn_fs_t *fs, svn_revnum_t rev, const char *path,
          const char *expected)
{
  svn_fs_root_t *root;
  svn_stream_t *stream;
  svn_stringbuf_t *text = svn_stringbuf_create_empty(pool);

  check(svn_fs_fs__revision_root(&root, fs, rev, pool));
  check(root->vtable->file_contents(&stream, root, path, pool));
  check(svn_stream_copy3(stream, svn_stream_from_stringbuf(text, pool),
                         NULL, NULL, pool));
  assert_string_equal(text->data, expected);
  return root;
}

/* A text read as of the youngest revision (r8: trunk/empty became "y")
   is stored on its second read; one read as of an older revision (r3's
   branches/br1/a.txt) at once. */
static void
test_texts(void **state)
{
  svn_fs_t *fs = open_f8("admit-texts");
  svn_fs_root_t *root;

  svn_fs_fs__admit_reset();
  root = read_text(fs, 8, "/trunk/empty", "y\n");
  assert_false(text_cached(root, "/trunk/empty"));
  fs = open_f8("admit-texts");
  root = read_text(fs, 8, "/trunk/empty", "y\n");
  assert_true(text_cached(root, "/trunk/empty"));

  fs = open_f8("admit-texts-historic");
  root = read_text(fs, 3, "/branches/br1/a.txt", "hello\nmore\n");
  assert_true(text_cached(root, "/branches/br1/a.txt"));
}

int
main(void)
{
  const struct CMUnitTest table[] = {
    cmocka_unit_test(test_second_miss_admits),
    cmocka_unit_test(test_keys_apart),
    cmocka_unit_test(test_forgets),
    cmocka_unit_test(test_rhythm_texts),
    cmocka_unit_test(test_rhythm_noderevs),
    cmocka_unit_test(test_always),
    cmocka_unit_test(test_stored_filter),
  };
  const struct CMUnitTest caches[] = {
    cmocka_unit_test(test_noderev_third_miss_admits),
    cmocka_unit_test(test_noderev),
    cmocka_unit_test(test_changes),
    cmocka_unit_test(test_l2p_page),
    cmocka_unit_test(test_p2l_page),
    cmocka_unit_test(test_texts),
  };
  int rc;

  apr_initialize();
  pool = svn_pool_create(NULL);
  unsetenv("FSFS7_CACHE_ADMIT");
  unsetenv("FSFS7_BLOCK_READ");
  rc = cmocka_run_group_tests_name("table", table, NULL, NULL);
  if (rc == 0)
    rc = stock_tools_status("test_cache_admit");
  if (rc == 0)
    {
      /* The repositories are made here rather than in a group fixture:
         a failure to make them fails the run, not every test. */
      tmpdir = make_node_repos("fsfs7-test-cache-admit-", pool);
      if (!tmpdir)
        return 1;
      rc = cmocka_run_group_tests_name("caches", caches, NULL, NULL);
      svn_error_clear(svn_io_remove_dir2(tmpdir, TRUE, NULL, NULL, pool));
    }
  svn_pool_destroy(pool);
  apr_terminate();
  return rc;
}
