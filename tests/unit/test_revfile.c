/* test_revfile.c --- component tests of revfile.c and index.c on real
 * stock-made repositories, through a hand-made svn_fs_t (no open path
 * needed): every item lookup of every revision agrees with what the
 * node-revisions say about themselves, P2L and L2P agree, the caches give
 * the same answers as the disk, and damage is reported, not crashed on.
 *
 * Repositories: tests/vectors/good/addressing/{f7p,f6p,f8small,f8phys}
 * (small, committed) and the integration tests' stock reference
 * repositories (built on first use, see test_reference_repos).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_time.h>
#include "svn_pools.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"
#include "private/svn_cache.h"
#include "private/svn_subr_private.h"

#include "cache_admit.h"
#include "index.h"
#include "revfile.h"
#include "paths.h"
#include "test_util.h"

static apr_pool_t *pool;

/* A hand-made fs for the repository whose db directory is DB. */
static svn_fs_t *
make_fs(const char *db, svn_boolean_t with_caches, apr_pool_t *result_pool)
{
  svn_fs_t *fs = apr_pcalloc(result_pool, sizeof(*fs));
  svn_fs_fs__data_t *ffd = apr_pcalloc(result_pool, sizeof(*ffd));
  svn_stringbuf_t *format, *mur;
  const char *layout;
  svn_error_t *err;

  fs->pool = svn_pool_create(result_pool);
  fs->path = apr_pstrdup(result_pool, db);
  fs->fsap_data = ffd;
  err = svn_stringbuf_from_file2(&format, svn_dirent_join(db, "format",
                                                          result_pool),
                                 result_pool);
  if (!err)
    err = svn_stringbuf_from_file2(&mur, svn_dirent_join(db,
                                                         "min-unpacked-rev",
                                                         result_pool),
                                   result_pool);
  if (err)
    fail_msg("cannot read %s: %s", db, err->message);
  ffd->format = atoi(format->data);
  layout = strstr(format->data, "layout sharded ");
  ffd->max_files_per_dir = layout ? atoi(layout + 15) : 0;
  ffd->use_log_addressing = strstr(format->data, "addressing logical") != NULL;
  ffd->min_unpacked_rev = atol(mur->data);
  ffd->block_size = 64 * 1024;
  if (with_caches)
    {
      /* Files of one block parse their indexes without the membuffer
         (index.c, index_cache()); smaller blocks keep the cached paths
         in use for all but the smallest vector files. */
      ffd->block_size = 4096;
      svn_membuffer_t *membuffer;
      static int instance;

      err = svn_cache__membuffer_cache_create(&membuffer, 8 * 1024 * 1024,
                                              0, 0, FALSE, FALSE,
                                              result_pool);
      if (!err)
        err = svn_fs_fs__index_init_caches(
                fs, membuffer, apr_psprintf(result_pool, "t%d:", ++instance),
                result_pool, result_pool);
      if (err)
        fail_msg("cache setup: %s", err->message);
    }
  return fs;
}

static const char *
vector_db(const char *name)
{
  const char *top = getenv("top_srcdir");
  return apr_psprintf(pool, "%s/tests/vectors/good/addressing/%s",
                      top ? top : ".", name);
}

static svn_revnum_t
youngest_of(const char *db)
{
  svn_stringbuf_t *cur;
  svn_error_t *err = svn_stringbuf_from_file2(
                       &cur, svn_dirent_join(db, "current", pool), pool);
  if (err)
    fail_msg("%s", err->message);
  return atol(cur->data);
}

#define CHECK(expr) do { svn_error_t *e_ = (expr); \
    if (e_) fail_msg("%s: %s", #expr, svn_error_purge_tracing(e_)->message); \
  } while (0)

/* The node-rev at OFFSET of FILE must have the id "... .r<REV>/<ITEM>". */
static void
expect_noderev(svn_fs_fs__revfile_t *file, apr_off_t offset,
               svn_revnum_t rev, apr_uint64_t item, apr_pool_t *scratch)
{
  const char *data, *want;
  apr_size_t len;
  const char *nl;

  CHECK(svn_fs_fs__revfile_read_some(&data, &len, file, offset, 80,
                                     scratch));
  nl = memchr(data, '\n', len);
  want = apr_psprintf(scratch, ".r%ld/%" APR_UINT64_T_FMT "\n", rev, item);
  if (strncmp(data, "id: ", 4) != 0 || nl == NULL
      || strncmp(nl - strlen(want) + 1, want, strlen(want)) != 0)
    fail_msg("r%ld item %" APR_UINT64_T_FMT " at %" APR_OFF_T_FMT
             ": '%.40s'", rev, item, offset, data);
}

/* Check every revision of the repository at DB: the root node-rev found
   through the index (or the trailer) carries its own address; for logical
   addressing also every L2P item maps back through P2L.  Returns the
   number of items checked. */
static apr_uint64_t
check_repo(const char *db, svn_boolean_t with_caches, svn_boolean_t all_items)
{
  apr_pool_t *scratch = svn_pool_create(pool);
  apr_pool_t *iterpool = svn_pool_create(scratch);
  svn_fs_t *fs = make_fs(db, with_caches, scratch);
  svn_revnum_t rev, youngest = youngest_of(db);
  apr_uint64_t checked = 0;

  for (rev = 0; rev <= youngest; rev++)
    {
      svn_fs_fs__revfile_t *file;
      apr_off_t offset, changes;

      svn_pool_clear(iterpool);
      CHECK(svn_fs_fs__revfile_open(&file, fs, rev, iterpool, iterpool));
      if (!SVN_FS_FS__DATA(fs)->use_log_addressing)
        {
          apr_off_t start, end;
          CHECK(svn_fs_fs__rev_trailer(&offset, &changes, NULL, fs, file,
                                       rev, iterpool));
          CHECK(svn_fs_fs__rev_bounds(&start, &end, fs, file, rev,
                                      iterpool));
          expect_noderev(file, offset, rev, offset - start, iterpool);
          checked++;
          continue;
        }
      CHECK(svn_fs_fs__item_offset(&offset, fs, file, rev,
                                   SVN_FS_FS__ITEM_INDEX_ROOT_NODE,
                                   iterpool));
      expect_noderev(file, offset, rev, 2, iterpool);
      checked++;
      if (all_items)
        {
          apr_uint64_t item;
          for (item = 1; ; item++)
            {
              svn_fs_fs__p2l_entry_t *entry;
              svn_error_t *err = svn_fs_fs__item_offset(&offset, fs, file,
                                                        rev, item, iterpool);
              if (err && err->apr_err == SVN_ERR_FS_INDEX_OVERFLOW)
                {
                  svn_error_clear(err);
                  break;
                }
              CHECK(err);
              CHECK(svn_fs_fs__p2l_entry_lookup(&entry, fs, file, rev,
                                                offset, iterpool, iterpool));
              assert_non_null(entry);
              assert_int_equal(entry->revision, rev);
              assert_int_equal(entry->item_index, item);
              if (entry->type == SVN_FS_FS__ITEM_TYPE_NODEREV)
                expect_noderev(file, offset, rev, item, iterpool);
              checked++;
            }
        }
      CHECK(svn_fs_fs__revfile_close(file));
    }
  svn_pool_destroy(scratch);
  return checked;
}

static void
test_vectors_items(void **state)
{
  static const char *repos[] = { "f7p", "f8small", "f6p", "f8phys",
                                 "f7mp", "f7blk" };
  size_t k;

  for (k = 0; k < sizeof(repos) / sizeof(repos[0]); k++)
    {
      assert_true(check_repo(vector_db(repos[k]), FALSE, TRUE) > 0);
      assert_true(check_repo(vector_db(repos[k]), TRUE, TRUE) > 0);
    }
}

static void
test_vectors_verify(void **state)
{
  static const char *repos[] = { "f7p", "f8small", "f7mp", "f7blk" };
  size_t k;

  for (k = 0; k < sizeof(repos) / sizeof(repos[0]); k++)
    {
      svn_fs_t *fs = make_fs(vector_db(repos[k]), TRUE, pool);
      CHECK(svn_fs_fs__verify_indexes(fs, 0, youngest_of(fs->path), NULL,
                                      NULL, pool));
      /* Partial ranges inside a pack file. */
      CHECK(svn_fs_fs__verify_indexes(fs, 1, 2, NULL, NULL, pool));
    }
}

/* P2L block lookups tile the item data of multi-page indexes (items
   spanning pages, padding entries), whatever the block size. */
static void
check_p2l_blocks(const char *repo, svn_revnum_t rev, apr_off_t block_size)
{
  svn_fs_t *fs = make_fs(vector_db(repo), block_size & 1, pool);
  svn_fs_fs__revfile_t *file;
  apr_array_header_t *entries;
  apr_off_t max, expected = 0, block;
  int i;

  CHECK(svn_fs_fs__revfile_open(&file, fs, rev, pool, pool));
  CHECK(svn_fs_fs__p2l_get_max_offset(&max, fs, file, rev, pool));
  for (block = 0; block < max; block += block_size)
    {
      CHECK(svn_fs_fs__p2l_index_lookup(&entries, fs, file, rev, block,
                                        block_size, pool, pool));
      assert_true(entries->nelts > 0);
      for (i = 0; i < entries->nelts; i++)
        {
          svn_fs_fs__p2l_entry_t *e = &APR_ARRAY_IDX(entries, i,
                                                     svn_fs_fs__p2l_entry_t);
          svn_fs_fs__p2l_entry_t *found;

          /* Every entry overlaps the block ... */
          assert_true(e->offset < block + block_size);
          assert_true(e->offset + e->size > block);
          /* ... is found by its offset ... */
          CHECK(svn_fs_fs__p2l_entry_lookup(&found, fs, file, rev, e->offset,
                                            pool, pool));
          assert_non_null(found);
          assert_int_equal(found->size, e->size);
          /* ... and items overlapping two blocks show up in both. */
          if (e->offset < expected)
            continue;
          assert_int_equal(e->offset, expected);
          expected = e->offset + e->size;
        }
    }
  assert_true(expected >= max);
}

static void
test_p2l_blocks(void **state)
{
  static const apr_off_t sizes[] = { 1, 333, 1000, 1024, 4096, 70000 };
  size_t k;

  for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
    {
      check_p2l_blocks("f8small", 1, sizes[k]);
      check_p2l_blocks("f7mp", 2, sizes[k]);
      check_p2l_blocks("f7blk", 1, sizes[k]);
      check_p2l_blocks("f7p", 5, sizes[k]);
    }
}

/* svn_fs_fs__p2l_entry_peek answers only from a page at hand: nothing
   for an entry whose page no lookup has expanded yet (without caches,
   a fresh fs has no page), the entry svn_fs_fs__p2l_entry_lookup finds
   once that lookup has expanded it, and "no entry" for an offset where
   no item starts. */
static void
test_p2l_peek(void **state)
{
  svn_fs_t *fs = make_fs(vector_db("f7p"), FALSE, pool);
  svn_fs_fs__revfile_t *file;
  svn_fs_fs__p2l_entry_t *entry, *peeked;
  svn_boolean_t at_hand;
  apr_off_t offset;

  CHECK(svn_fs_fs__revfile_open(&file, fs, 5, pool, pool));
  assert_true(file->is_packed);
  CHECK(svn_fs_fs__item_offset(&offset, fs, file, 5,
                               SVN_FS_FS__ITEM_INDEX_ROOT_NODE, pool));
  CHECK(svn_fs_fs__p2l_entry_peek(&peeked, &at_hand, fs, file, 5, offset,
                                  pool, pool));
  assert_false(at_hand);
  assert_null(peeked);

  CHECK(svn_fs_fs__p2l_entry_lookup(&entry, fs, file, 5, offset, pool,
                                    pool));
  assert_non_null(entry);
  CHECK(svn_fs_fs__p2l_entry_peek(&peeked, &at_hand, fs, file, 5, offset,
                                  pool, pool));
  assert_true(at_hand);
  assert_non_null(peeked);
  assert_int_equal(peeked->offset, entry->offset);
  assert_int_equal(peeked->size, entry->size);
  assert_int_equal(peeked->item_index, SVN_FS_FS__ITEM_INDEX_ROOT_NODE);
  assert_int_equal(peeked->fnv1_checksum, entry->fnv1_checksum);

  CHECK(svn_fs_fs__p2l_entry_peek(&peeked, &at_hand, fs, file, 5,
                                  offset + 1, pool, pool));
  assert_true(at_hand);
  assert_null(peeked);
  CHECK(svn_fs_fs__revfile_close(file));
}

static void
test_errors(void **state)
{
  svn_fs_t *fs = make_fs(vector_db("f7p"), FALSE, pool);
  svn_fs_fs__revfile_t *file;
  apr_off_t offset;
  svn_fs_fs__p2l_entry_t *entry;
  svn_error_t *err;
  char buf[16];

  err = svn_fs_fs__revfile_open(&file, fs, 99, pool, pool);
  assert_int_equal(err->apr_err, SVN_ERR_FS_NO_SUCH_REVISION);
  svn_error_clear(err);
  err = svn_fs_fs__revfile_open(&file, fs, -1, pool, pool);
  assert_int_equal(err->apr_err, SVN_ERR_FS_NO_SUCH_REVISION);
  svn_error_clear(err);

  CHECK(svn_fs_fs__revfile_open(&file, fs, 5, pool, pool));
  assert_true(file->is_packed);
  assert_int_equal(file->start_revision, 4);
  err = svn_fs_fs__item_offset(&offset, fs, file, 5, 100000, pool);
  assert_int_equal(err->apr_err, SVN_ERR_FS_INDEX_OVERFLOW);
  svn_error_clear(err);
  err = svn_fs_fs__item_offset(&offset, fs, file, 5, 0, pool);
  assert_int_equal(err->apr_err, SVN_ERR_FS_INDEX_OVERFLOW);
  svn_error_clear(err);
  err = svn_fs_fs__item_offset(&offset, fs, file, 9, 1, pool);
  assert_int_equal(err->apr_err, SVN_ERR_FS_INDEX_REVISION);
  svn_error_clear(err);
  err = svn_fs_fs__revfile_read(buf, sizeof(buf), file,
                                file->file_size - 3);
  assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
  svn_error_clear(err);
  CHECK(svn_fs_fs__p2l_entry_lookup(&entry, fs, file, 5, 1, pool, pool));
  assert_null(entry);
  CHECK(svn_fs_fs__p2l_entry_lookup(&entry, fs, file, 5, 1 << 30, pool,
                                    pool));
  assert_null(entry);
  {
    const unsigned char *data;
    apr_size_t len;
    apr_off_t block_start;

    CHECK(svn_fs_fs__revfile_block(&data, &len, &block_start, file, 10));
    assert_int_equal(block_start, 0);
    assert_int_equal(len, file->file_size - 10);
    CHECK(svn_fs_fs__revfile_read(buf, 4, file, 10));
    assert_memory_equal(buf, data, 4);
    err = svn_fs_fs__revfile_block(&data, &len, &block_start, file,
                                   file->file_size);
    assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
    svn_error_clear(err);
  }
  CHECK(svn_fs_fs__revfile_close(file));
  CHECK(svn_fs_fs__revfile_close(file));        /* idempotent */
}

/* A revision that got packed behind our back (our min-unpacked-rev is
   stale) is found after one refresh of db/min-unpacked-rev. */
static void
test_stale_min_unpacked(void **state)
{
  svn_fs_t *fs = make_fs(vector_db("f7p"), FALSE, pool);
  svn_fs_fs__revfile_t *file;
  apr_off_t offset;

  SVN_FS_FS__DATA(fs)->min_unpacked_rev = 0;
  CHECK(svn_fs_fs__revfile_open(&file, fs, 1, pool, pool));
  assert_true(file->is_packed);
  assert_int_equal(file->start_revision, 0);
  assert_int_equal(SVN_FS_FS__DATA(fs)->min_unpacked_rev, 12);
  CHECK(svn_fs_fs__item_offset(&offset, fs, file, 1, 2, pool));
  expect_noderev(file, offset, 1, 2, pool);
}

/* Handles in pools that outlive the fs are detached, and many handles
   on many files at once work (more than the set has slots). */
static void
test_handle_lifetimes(void **state)
{
  apr_pool_t *outer = svn_pool_create(pool);
  apr_pool_t *fs_pool = svn_pool_create(pool);
  svn_fs_t *fs = make_fs(vector_db("f8small"), FALSE, fs_pool);
  svn_fs_fs__revfile_t *files[3 * 10];
  apr_off_t offset;
  int k;

  for (k = 0; k < 30; k++)
    {
      CHECK(svn_fs_fs__revfile_open(&files[k], fs, k % 3, outer, outer));
      CHECK(svn_fs_fs__item_offset(&offset, fs, files[k], k % 3, 2, outer));
    }
  for (k = 0; k < 30; k += 2)
    CHECK(svn_fs_fs__revfile_close(files[k]));
  svn_pool_destroy(fs_pool);     /* the fs goes first ...  */
  /* ... detached handles refuse to work instead of crashing (caller
     bugs are malfunctions; make them errors here) ... */
  {
    svn_error_malfunction_handler_t old
      = svn_error_set_malfunction_handler(svn_error_raise_on_malfunction);
    svn_error_t *err = svn_fs_fs__item_offset(&offset, fs, files[1], 1, 2,
                                              outer);
    assert_non_null(err);
    svn_error_clear(err);
    err = svn_fs_fs__rev_bounds(&offset, &offset, fs, files[1], 1, outer);
    assert_non_null(err);
    svn_error_clear(err);
    svn_error_set_malfunction_handler(old);
  }
  svn_pool_destroy(outer);       /* ... then the handles go */
}

/* Reads scattered over many more blocks than a file keeps (4 KiB blocks
   over 256 KiB), revisiting some and straddling block edges, return the
   file's bytes: the block LRU evicts and refills correctly. */
/* A scratch copy NAME of the f8small vector repository whose r1 file is
   replaced by SIZE bytes of a fixed pseudo-random pattern (*BYTES), for
   tests of the read path below the indexes. */
static const char *
scratch_with_r1(const char *name, apr_size_t size, unsigned char **bytes)
{
  const char *dir = svn_dirent_join(getenv("TMPDIR") ? getenv("TMPDIR")
                                                     : "/tmp", name, pool);
  apr_size_t k;

  *bytes = apr_palloc(pool, size);
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
  CHECK(svn_io_copy_dir_recursively(vector_db("f8small"),
                                    svn_dirent_dirname(dir, pool),
                                    svn_dirent_basename(dir, pool),
                                    FALSE, NULL, NULL, pool));
  for (k = 0; k < size; k++)
    (*bytes)[k] = (unsigned char)((k * 2654435761u) >> 13);
  CHECK(svn_io_remove_file2(svn_dirent_join(dir, "revs/0/1", pool), FALSE,
                            pool));
  CHECK(svn_io_file_create_bytes(svn_dirent_join(dir, "revs/0/1", pool),
                                 *bytes, size, pool));
  return dir;
}

static void
test_block_lru(void **state)
{
  apr_size_t size = 256 * 1024, k;
  unsigned char *bytes;
  const char *dir = scratch_with_r1("fsfs7-test-revfile-lru", size, &bytes);
  unsigned char buf[300];
  svn_fs_fs__revfile_t *file;
  svn_fs_t *fs;

  fs = make_fs(dir, FALSE, pool);
  SVN_FS_FS__DATA(fs)->block_size = 4096;
  CHECK(svn_fs_fs__revfile_open(&file, fs, 1, pool, pool));
  for (k = 0; k < 2000; k++)
    {
      /* A few hot blocks mixed into a sweep over all 64 of them. */
      apr_off_t at = (k % 3 == 0) ? (apr_off_t)((k % 5) * 4096 + 4000)
                   : (apr_off_t)((k * 40503u) % (size - sizeof(buf)));
      CHECK(svn_fs_fs__revfile_read(buf, sizeof(buf), file, at));
      assert_memory_equal(buf, bytes + at, sizeof(buf));
    }
  CHECK(svn_fs_fs__revfile_read(buf, 100, file, (apr_off_t)size - 100));
  assert_memory_equal(buf, bytes + size - 100, 100);
  CHECK(svn_fs_fs__revfile_close(file));
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* Blocks of unpacked rev files come out of a 256 kB budget, not the
   set's 1 MB: small reads spread over 32 blocks of a 2 MB rev file keep
   at most 16 blocks of 16 kB (the old budgets let the file hold 32, and
   several such files 128), and blocks taken back from the file itself
   still read right. */
static void
test_rev_blocks_budget(void **state)
{
  apr_size_t size = 2 * 1024 * 1024, k;
  unsigned char *bytes;
  const char *dir = scratch_with_r1("fsfs7-test-revfile-budget", size,
                                    &bytes);
  unsigned char buf[300];
  svn_fs_fs__revfile_t *file;
  svn_fs_t *fs;

  fs = make_fs(dir, FALSE, pool);
  SVN_FS_FS__DATA(fs)->block_size = 64 * 1024;
  CHECK(svn_fs_fs__revfile_open(&file, fs, 1, pool, pool));
  for (k = 0; k < 2 * 32; k++)
    {
      apr_off_t at = (apr_off_t)((k % 32) * 64 * 1024 + 10 + k);
      CHECK(svn_fs_fs__revfile_read(buf, sizeof(buf), file, at));
      assert_memory_equal(buf, bytes + at, sizeof(buf));
    }
  assert_true(svn_fs_fs__revfile_set_block_bytes(fs) <= 256 * 1024);
  assert_true(svn_fs_fs__revfile_set_block_bytes(fs) >= 2 * 64 * 1024);
  CHECK(svn_fs_fs__revfile_close(file));
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* The P2L entry of REV's file at OFFSET, looked up through a fresh fs
   (the reference) and through FILE of FS; both must agree. */
static void
check_p2l_same(svn_fs_t *fs, svn_fs_fs__revfile_t *file, svn_revnum_t rev,
               apr_off_t offset)
{
  svn_fs_t *ref_fs = make_fs(vector_db("f7p"), FALSE, pool);
  svn_fs_fs__revfile_t *ref_file;
  svn_fs_fs__p2l_entry_t *want, *got;

  CHECK(svn_fs_fs__revfile_open(&ref_file, ref_fs, rev, pool, pool));
  CHECK(svn_fs_fs__p2l_entry_lookup(&want, ref_fs, ref_file, rev, offset,
                                    pool, pool));
  CHECK(svn_fs_fs__p2l_entry_lookup(&got, fs, file, rev, offset, pool,
                                    pool));
  assert_non_null(want);
  assert_non_null(got);
  assert_int_equal(got->offset, want->offset);
  assert_int_equal(got->size, want->size);
  assert_int_equal(got->type, want->type);
  assert_int_equal(got->item_index, want->item_index);
  assert_int_equal(got->revision, want->revision);
  CHECK(svn_fs_fs__revfile_close(ref_file));
  svn_pool_destroy(ref_fs->pool);
}

/* Only one open file of an fs keeps an expanded P2L page: a lookup in
   another file empties the previous holder, which still answers right
   afterwards, and the fs going away clears the holder. */
static void
test_p2l_memo_moves(void **state)
{
  svn_fs_t *fs = make_fs(vector_db("f7p"), FALSE, pool);
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_fs_fs__revfile_t *a, *b;
  void *holder_a, *holder_b;

  CHECK(svn_fs_fs__revfile_open(&a, fs, 1, pool, pool));
  CHECK(svn_fs_fs__revfile_open(&b, fs, 5, pool, pool));
  assert_true(a->start_revision != b->start_revision);
  check_p2l_same(fs, a, 1, 0);
  holder_a = ffd->p2l_memo;
  assert_non_null(holder_a);
  check_p2l_same(fs, b, 5, 0);
  holder_b = ffd->p2l_memo;
  assert_non_null(holder_b);
  assert_ptr_not_equal(holder_a, holder_b);
  check_p2l_same(fs, a, 1, 0);
  assert_ptr_equal(ffd->p2l_memo, holder_a);
  check_p2l_same(fs, b, 5, 0);
  CHECK(svn_fs_fs__revfile_close(a));
  CHECK(svn_fs_fs__revfile_close(b));
  svn_pool_destroy(fs->pool);
  assert_null(ffd->p2l_memo);
}

/* A scratch db directory of a repository whose first shard (10
   revisions) is packed into a pack file of SIZE bytes of a pattern
   (*BYTES), for tests of how the set budgets pack file blocks. */
static const char *
scratch_with_pack(const char *name, apr_size_t size, unsigned char **bytes)
{
  const char *dir = svn_dirent_join(getenv("TMPDIR") ? getenv("TMPDIR")
                                                     : "/tmp", name, pool);
  apr_size_t k;

  *bytes = apr_palloc(pool, size);
  for (k = 0; k < size; k++)
    (*bytes)[k] = (unsigned char)((k * 2246822519u) >> 15);
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
  CHECK(svn_io_make_dir_recursively(svn_dirent_join(dir, "revs/0.pack",
                                                    pool), pool));
  CHECK(svn_io_file_create(svn_dirent_join(dir, "format", pool),
                           "7\nlayout sharded 10\naddressing logical\n",
                           pool));
  CHECK(svn_io_file_create(svn_dirent_join(dir, "min-unpacked-rev", pool),
                           "10\n", pool));
  CHECK(svn_io_file_create_bytes(svn_dirent_join(dir, "revs/0.pack/pack",
                                                 pool),
                                 *bytes, size, pool));
  return dir;
}

/* Read 300 bytes at block K (plus a shift) of FILE and check them. */
static void
read_block_k(svn_fs_fs__revfile_t *file, const unsigned char *bytes,
             apr_size_t k)
{
  unsigned char buf[300];
  apr_off_t at = (apr_off_t)(k * 16 * 1024 + 100 + k % 7);

  CHECK(svn_fs_fs__revfile_read(buf, sizeof(buf), file, at));
  assert_memory_equal(buf, bytes + at, sizeof(buf));
}

/* Pack file blocks start from a 256 kB budget and the set only grows
   towards 512 kB when blocks come back soon after they were pushed out: a
   scan that reads 256 blocks once each stays at 256 kB, a working set of
   24 blocks read round and round then grows the budget, but never past
   512 kB, not even for a working set of 96 blocks (1.5 MB). */
static void
test_pack_blocks_grow_on_reuse(void **state)
{
  apr_size_t size = 4 * 1024 * 1024, k;
  unsigned char *bytes;
  const char *dir = scratch_with_pack("fsfs7-test-revfile-ghosts", size,
                                      &bytes);
  svn_fs_fs__revfile_t *file;
  svn_fs_t *fs;

  fs = make_fs(dir, FALSE, pool);
  SVN_FS_FS__DATA(fs)->block_size = 16 * 1024;
  CHECK(svn_fs_fs__revfile_open(&file, fs, 5, pool, pool));
  assert_true(file->is_packed);
  for (k = 0; k < 256; k++)
    read_block_k(file, bytes, k);
  assert_int_equal(svn_fs_fs__revfile_set_block_bytes(fs), 256 * 1024);
  for (k = 0; k < 10 * 24; k++)
    read_block_k(file, bytes, k % 24);
  assert_true(svn_fs_fs__revfile_set_block_bytes(fs) > 256 * 1024);
  for (k = 0; k < 20 * 96; k++)
    read_block_k(file, bytes, k % 96);
  assert_true(svn_fs_fs__revfile_set_block_bytes(fs) <= 512 * 1024);
  CHECK(svn_fs_fs__revfile_close(file));
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* Blocks the counting hook below was offered. */
static int hook_calls;

static svn_error_t *
count_blocks(svn_fs_fs__revfile_t *file, apr_off_t block_start,
             const unsigned char *data, apr_size_t len, apr_off_t read_at,
             apr_pool_t *scratch_pool)
{
  hook_calls++;
  return SVN_NO_ERROR;
}

/* A read of a whole block or more goes straight to the file: streaming
   a large text must not push the small items' blocks out of the set (nor
   make the set hold its whole budget: a load of large files kept 2 MB of
   blocks of texts it never read again).  Smaller reads go through the
   blocks, which the block hook sees: with 4 kB blocks a 1 kB read does
   (it went past them while the threshold was a quarter block). */
static void
test_large_reads_bypass_blocks(void **state)
{
  unsigned char *bytes;
  const char *dir = scratch_with_r1("fsfs7-test-revfile-bypass", 64 * 1024,
                                    &bytes);
  unsigned char buf[8192];
  svn_fs_fs__revfile_t *file;
  svn_fs_t *fs;

  fs = make_fs(dir, FALSE, pool);
  SVN_FS_FS__DATA(fs)->block_size = 4096;
  svn_fs_fs__revfile_set_block_hook(fs, count_blocks);
  CHECK(svn_fs_fs__revfile_open(&file, fs, 1, pool, pool));
  file->block_hook = TRUE;
  hook_calls = 0;

  /* 4096 bytes (the block) and more: no block involved. */
  CHECK(svn_fs_fs__revfile_read(buf, 4096, file, 8192 + 10));
  assert_memory_equal(buf, bytes + 8192 + 10, 4096);
  CHECK(svn_fs_fs__revfile_read(buf, sizeof(buf), file, 20000));
  assert_memory_equal(buf, bytes + 20000, sizeof(buf));
  assert_int_equal(hook_calls, 0);

  /* Smaller reads load their block, which the hook is offered once. */
  CHECK(svn_fs_fs__revfile_read(buf, 300, file, 8192 + 10));
  assert_memory_equal(buf, bytes + 8192 + 10, 300);
  CHECK(svn_fs_fs__revfile_read(buf, 1024, file, 8192 + 400));
  assert_memory_equal(buf, bytes + 8192 + 400, 1024);
  assert_int_equal(hook_calls, 1);

  svn_fs_fs__revfile_set_block_hook(fs, NULL);
  CHECK(svn_fs_fs__revfile_close(file));
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* The checksum of an item (P2L-7) is that of its bytes whether it is
   read in one piece (up to 64 kB) or in chunks (longer items, which must
   not cost a buffer of their size): lengths around the chunk size, at
   offsets that split the 4-way interleave unevenly. */
static void
test_item_fnv_chunks(void **state)
{
  static const apr_off_t lengths[] = { 0, 1, 100, 65535, 65536, 65537,
                                       131072 + 3, 250000 };
  unsigned char *bytes;
  const char *dir = scratch_with_r1("fsfs7-test-revfile-fnv", 300 * 1024,
                                    &bytes);
  svn_fs_fs__revfile_t *file;
  svn_fs_t *fs = make_fs(dir, FALSE, pool);
  int i;

  CHECK(svn_fs_fs__revfile_open(&file, fs, 1, pool, pool));
  for (i = 0; i < (int)(sizeof(lengths) / sizeof(lengths[0])); i++)
    {
      apr_off_t offset = 7 + i;
      apr_uint32_t fnv = 0;

      CHECK(svn_fs_fs__item_fnv(&fnv, file, offset, lengths[i], pool));
      assert_int_equal(fnv, svn__fnv1a_32x4(bytes + offset,
                                            (apr_size_t)lengths[i]));
    }
  CHECK(svn_fs_fs__revfile_close(file));
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* Reads are done in blocks of at most 16 kB whatever block-size says
   (64 kB by default): a block is where the format's blocks start, not
   how much a reader copies; smaller configured sizes are kept. */
static void
test_read_block_cap(void **state)
{
  unsigned char *bytes;
  const char *dir = scratch_with_r1("fsfs7-test-revfile-cap", 64 * 1024,
                                    &bytes);
  const apr_int64_t sizes[] = { 64 * 1024, 1024 * 1024, 16 * 1024, 4096 };
  const apr_size_t want[] = { 16 * 1024, 16 * 1024, 16 * 1024, 4096 };
  int i;

  for (i = 0; i < 4; i++)
    {
      apr_pool_t *iterpool = svn_pool_create(pool);
      svn_fs_t *fs = make_fs(dir, FALSE, iterpool);
      svn_fs_fs__revfile_t *file;
      unsigned char buf[300];

      SVN_FS_FS__DATA(fs)->block_size = sizes[i];
      CHECK(svn_fs_fs__revfile_open(&file, fs, 1, iterpool, iterpool));
      assert_int_equal(svn_fs_fs__revfile_block_size(file), want[i]);
      CHECK(svn_fs_fs__revfile_read(buf, sizeof(buf), file, 40000));
      assert_memory_equal(buf, bytes + 40000, sizeof(buf));
      CHECK(svn_fs_fs__revfile_close(file));
      svn_pool_destroy(iterpool);
    }
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* Copy the f8small vector repository to a scratch dir, damage byte AT of
   r1 (XOR MASK) and return the verify_indexes error. */
static svn_error_t *
verify_damaged(apr_off_t at, unsigned char mask, apr_pool_t *scratch)
{
  const char *dir = svn_dirent_join(getenv("TMPDIR") ? getenv("TMPDIR")
                                                     : "/tmp",
                                    "fsfs7-test-revfile", scratch);
  const char *rev1;
  svn_stringbuf_t *data;
  svn_fs_t *fs;

  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, scratch));
  CHECK(svn_io_copy_dir_recursively(vector_db("f8small"),
                                    svn_dirent_dirname(dir, scratch),
                                    svn_dirent_basename(dir, scratch),
                                    FALSE, NULL, NULL, scratch));
  rev1 = svn_dirent_join(dir, "revs/0/1", scratch);
  CHECK(svn_stringbuf_from_file2(&data, rev1, scratch));
  data->data[at] ^= mask;
  CHECK(svn_io_remove_file2(rev1, FALSE, scratch));
  CHECK(svn_io_file_create_bytes(rev1, data->data, data->len, scratch));
  fs = make_fs(dir, FALSE, scratch);
  return svn_fs_fs__verify_indexes(fs, 0, 2, NULL, NULL, scratch);
}

/* verify_indexes reports damage to item data, indexes and footer. */
static void
test_verify_damage(void **state)
{
  static const struct { apr_off_t at; apr_status_t code; const char *rule; }
  cases[] = {
    { 100, SVN_ERR_FS_CORRUPT, "P2L-7" },             /* item data      */
    { 9000, SVN_ERR_FS_CORRUPT, "P2L-7" },            /* changes list   */
    { 9270, SVN_ERR_FS_INDEX_CORRUPTION, "FOOTER-4" },/* L2P page       */
    { 9400, SVN_ERR_FS_INDEX_CORRUPTION, "FOOTER-4" },/* P2L page       */
    { 9632, SVN_ERR_FS_INDEX_CORRUPTION, "FOOTER-2" },/* length byte    */
  };
  size_t k;

  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
    {
      apr_pool_t *scratch = svn_pool_create(pool);
      svn_error_t *err = verify_damaged(cases[k].at, 0x10, scratch);
      char cite[32];

      if (err == NULL)
        fail_msg("damage at %" APR_OFF_T_FMT " not detected", cases[k].at);
      err = svn_error_purge_tracing(err);
      snprintf(cite, sizeof(cite), "rule %s)", cases[k].rule);
      if (err->apr_err != cases[k].code || !strstr(err->message, cite))
        fail_msg("damage at %" APR_OFF_T_FMT ": got %d '%s'", cases[k].at,
                 err->apr_err, err->message);
      svn_error_clear(err);
      svn_pool_destroy(scratch);
    }
}

/* What the lookups of test_damaged_lookups give on one state of a file:
   the offset of items 0..LOOKUP_ITEMS-1 (-1 where the lookup failed) and
   whether the P2L lookup of the whole file failed. */
#define LOOKUP_ITEMS 25
typedef struct lookups_t
{
  apr_off_t offsets[LOOKUP_ITEMS];
  svn_boolean_t p2l_failed;
} lookups_t;

static void
run_lookups(lookups_t *out, const char *dir, svn_boolean_t with_caches,
            apr_pool_t *scratch)
{
  svn_fs_t *fs = make_fs(dir, with_caches, scratch);
  svn_fs_fs__revfile_t *file;
  apr_array_header_t *entries;
  apr_uint64_t item;
  svn_error_t *err;

  CHECK(svn_fs_fs__revfile_open(&file, fs, 1, scratch, scratch));
  for (item = 0; item < LOOKUP_ITEMS; item++)
    {
      apr_off_t offset;

      err = svn_fs_fs__item_offset(&offset, fs, file, 1, item, scratch);
      if (!err)
        assert_true(offset >= 0 && offset < file->file_size);
      out->offsets[item] = err ? -1 : offset;
      svn_error_clear(err);
    }
  err = svn_fs_fs__p2l_index_lookup(&entries, fs, file, 1, 0, 20000,
                                    scratch, scratch);
  out->p2l_failed = err != NULL;
  svn_error_clear(err);
}

/* Does DAMAGED fail a lookup that GOOD answered? */
static svn_boolean_t
lookups_detect(const lookups_t *good, const lookups_t *damaged)
{
  int k;

  if (damaged->p2l_failed && !good->p2l_failed)
    return TRUE;
  for (k = 0; k < LOOKUP_ITEMS; k++)
    if (good->offsets[k] >= 0 && damaged->offsets[k] < 0)
      return TRUE;
  return FALSE;
}

/* Damage every byte of the indexes and footer of r1 of f8small (one at a
   time, no verification) and run lookups through the damaged file: none
   may crash or hand out an offset outside the file, and the damage must
   be noticed where the format lets a reader notice it.  Errors the
   undamaged file gives too (item 0, items past the last) do not count:
   only lookups that fail on the damaged file and not on the good one. */
static void
test_damaged_lookups(void **state)
{
  const char *dir = svn_dirent_join(getenv("TMPDIR") ? getenv("TMPDIR")
                                                     : "/tmp",
                                    "fsfs7-test-lookups", pool);
  const char *rev1 = svn_dirent_join(dir, "revs/0/1", pool);
  svn_stringbuf_t *good;
  apr_pool_t *iterpool = svn_pool_create(pool);
  lookups_t baseline;
  apr_size_t at, footer, flips = 0, detected = 0, footer_missed = 0;
  int k, answered = 0;

  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
  CHECK(svn_io_copy_dir_recursively(vector_db("f8small"),
                                    svn_dirent_dirname(dir, pool),
                                    svn_dirent_basename(dir, pool),
                                    FALSE, NULL, NULL, pool));
  CHECK(svn_stringbuf_from_file2(&good, rev1, pool));
  /* The undamaged file answers the P2L lookup and items 1..n. */
  run_lookups(&baseline, dir, FALSE, iterpool);
  assert_false(baseline.p2l_failed);
  for (k = 0; k < LOOKUP_ITEMS; k++)
    answered += baseline.offsets[k] >= 0;
  assert_true(answered >= 5);
  /* The footer: everything after the P2L index (FOOTER-1). */
  footer = good->len - 1 - (unsigned char)good->data[good->len - 1];
  for (at = 9257; at < good->len; at++)
    {
      lookups_t damaged;

      svn_pool_clear(iterpool);
      good->data[at] ^= 0x41;
      CHECK(svn_io_remove_file2(rev1, FALSE, iterpool));
      CHECK(svn_io_file_create_bytes(rev1, good->data, good->len, iterpool));
      good->data[at] ^= 0x41;
      run_lookups(&damaged, dir, (at & 1) != 0, iterpool);
      flips++;
      if (lookups_detect(&baseline, &damaged))
        detected++;
      else if (at >= footer)
        {
          footer_missed++;
          print_message("footer damage at %lu not noticed\n",
                        (unsigned long)at);
        }
    }
  print_message("%lu of %lu flips noticed by lookups alone\n",
                (unsigned long)detected, (unsigned long)flips);
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
  svn_pool_destroy(iterpool);
  assert_int_equal(footer_missed, 0);
  assert_true(detected * 2 >= flips);
}

/* The stock reference repositories of the integration tests (generated
   history, 300 revisions; maven-small, 800, when the data is there), in
   every variant.  tests/integration/fsfs7test.py builds them once into
   its cache ($FSFS7_TEST_CACHE) and prints where they are; a failure to
   build them (or, with CI=true, a missing maven-small) fails the test. */
static apr_array_header_t *
reference_dirs(void)
{
  const char *top = getenv("top_srcdir");
  const char *cmd = apr_psprintf(pool, "python3 '%s/tests/integration/"
                                 "fsfs7test.py' ref-dirs",
                                 top ? top : ".");
  apr_array_header_t *dirs = apr_array_make(pool, 2, sizeof(const char *));
  char line[4096];
  FILE *out = popen(cmd, "r");

  if (!out)
    fail_msg("cannot run %s", cmd);
  while (fgets(line, sizeof(line), out))
    {
      char *sp = strchr(line, ' ');
      if (sp && (strncmp(line, "gen ", 4) == 0
                 || strncmp(line, "maven ", 6) == 0))
        {
          line[strcspn(line, "\n")] = '\0';
          APR_ARRAY_PUSH(dirs, const char *) = apr_pstrdup(pool, sp + 1);
        }
    }
  if (pclose(out) != 0 || dirs->nelts == 0)
    fail_msg("%s failed: no reference repositories", cmd);
  return dirs;
}

static void
test_reference_repos(void **state)
{
  static const char *repos[] = { "f7", "f7p", "f8", "f8p", "f6", "f6p",
                                 "f8u" };
  apr_array_header_t *dirs = reference_dirs();
  size_t k;
  int d;

  for (d = 0; d < dirs->nelts; d++)
    for (k = 0; k < sizeof(repos) / sizeof(repos[0]); k++)
      {
        const char *db = apr_psprintf(pool, "%s/%s/db",
                                      APR_ARRAY_IDX(dirs, d, const char *),
                                      repos[k]);
        apr_time_t t0 = apr_time_now();
        apr_uint64_t items = check_repo(db, TRUE, TRUE);

        print_message("%s: %" APR_UINT64_T_FMT " items looked up in %ld ms\n",
                      db, items, (long)((apr_time_now() - t0) / 1000));
        assert_true(items > (apr_uint64_t)youngest_of(db));
        if (SVN_FS_FS__DATA(make_fs(db, FALSE, pool))->use_log_addressing)
          {
            svn_fs_t *fs = make_fs(db, TRUE, pool);
            t0 = apr_time_now();
            CHECK(svn_fs_fs__verify_indexes(fs, 0, youngest_of(db), NULL,
                                            NULL, pool));
            print_message("%s: verify_indexes of all revisions in %ld ms\n",
                          repos[k], (long)((apr_time_now() - t0) / 1000));
          }
      }
}

/* A scratch db directory of an unpacked repository whose rev files
   r0 .. r<COUNT-1> hold SIZE(r) bytes of a pattern (the open-file set
   never parses them unless asked). */
static const char *
make_plain_revs(const char *name, int count, apr_size_t (*size)(int))
{
  const char *dir = svn_dirent_join(getenv("TMPDIR") ? getenv("TMPDIR")
                                                     : "/tmp", name, pool);
  int r;

  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
  CHECK(svn_io_make_dir_recursively(svn_dirent_join(dir, "revs/0", pool),
                                    pool));
  CHECK(svn_io_file_create(svn_dirent_join(dir, "format", pool),
                           "7\nlayout sharded 1000\naddressing logical\n",
                           pool));
  CHECK(svn_io_file_create(svn_dirent_join(dir, "min-unpacked-rev", pool),
                           "0\n", pool));
  for (r = 0; r < count; r++)
    {
      apr_size_t n = size(r), k;
      unsigned char *bytes = apr_palloc(pool, n + 1);

      for (k = 0; k < n; k++)
        bytes[k] = (unsigned char)((k * 2654435761u + (apr_size_t)r) >> 11);
      CHECK(svn_io_file_create_bytes(
              svn_dirent_join(dir, apr_psprintf(pool, "revs/0/%d", r), pool),
              bytes, n, pool));
    }
  return dir;
}

static apr_size_t
small_size(int rev)
{
  return 3000 + (apr_size_t)rev;
}

/* Delta chains longer than the set keeps idle files, all ending in the
   same rev file (r0, the import every file's chain goes back to): that
   file stays open from one chain to the next.  It used to be opened
   anew by every chain, because the set was full of the chain's busy
   files when the chain reached its bottom. */
static void
test_chain_bottom_stays_open(void **state)
{
  const char *dir = make_plain_revs("fsfs7-test-revfile-chains", 34,
                                    small_size);
  svn_fs_t *fs = make_fs(dir, FALSE, pool);
  apr_pool_t *chain_pool = svn_pool_create(pool);
  svn_fs_fs__revfile_t *file;
  unsigned char byte;
  int round, r;

  for (round = 0; round < 3; round++)
    {
      /* Eleven links in files no other chain uses, then r0; every handle
         is held until the chain is done, like a delta read holds them. */
      for (r = 1 + 11 * round; r <= 11 + 11 * round; r++)
        {
          CHECK(svn_fs_fs__revfile_open(&file, fs, r, chain_pool, pool));
          CHECK(svn_fs_fs__revfile_read(&byte, 1, file, 0));
        }
      CHECK(svn_fs_fs__revfile_open(&file, fs, 0, chain_pool, pool));
      CHECK(svn_fs_fs__revfile_read(&byte, 1, file, 2999));
      svn_pool_clear(chain_pool);
    }
  /* 33 chain files once each, r0 once, and r0 stayed in the set
     rather than coming back from the parked descriptors. */
  assert_int_equal(svn_fs_fs__revfile_os_opens(fs), 34);
  assert_int_equal(svn_fs_fs__revfile_unparks(fs), 0);
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* Descriptors this process has open. */
static int
open_descriptors(void)
{
  apr_hash_t *entries;

  CHECK(svn_io_get_dirents3(&entries, "/proc/self/fd", TRUE, pool, pool));
  return (int)apr_hash_count(entries);
}

/* Files pushed out of the set's idle ones keep their descriptors
   (parked): opening one of them again costs no open() and reads what it
   read before, with its size; the descriptors go with the svn_fs_t. */
static void
test_evicted_files_park(void **state)
{
  const char *dir = make_plain_revs("fsfs7-test-revfile-park", 30,
                                    small_size);
  apr_pool_t *fs_pool = svn_pool_create(pool);
  int before = open_descriptors();
  svn_fs_t *fs = make_fs(dir, FALSE, fs_pool);
  int round, r;

  for (round = 0; round < 2; round++)
    for (r = 0; r < 30; r++)
      {
        svn_fs_fs__revfile_t *file;
        unsigned char byte;

        CHECK(svn_fs_fs__revfile_open(&file, fs, r, pool, pool));
        assert_int_equal(file->file_size, small_size(r));
        CHECK(svn_fs_fs__revfile_read(&byte, 1, file, 1000));
        assert_int_equal(byte, (unsigned char)((1000 * 2654435761u
                                                + (apr_size_t)r) >> 11));
        CHECK(svn_fs_fs__revfile_close(file));
      }
  /* The second round found every file parked: each was pushed out of
     the idle ones before its turn came again. */
  assert_int_equal(svn_fs_fs__revfile_os_opens(fs), 30);
  assert_int_equal(svn_fs_fs__revfile_unparks(fs), 30);
  assert_true(open_descriptors() > before + 20);
  svn_pool_destroy(fs_pool);
  assert_int_equal(open_descriptors(), before);
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* Sizes around the read block size (4 KiB here). */
static apr_size_t
edge_size(int rev)
{
  static const apr_size_t sizes[] = { 0, 1, 4095, 4096, 4097, 8192, 10000 };
  return sizes[rev];
}

/* Unpacked rev files learn their size from the first read instead of
   fstat: whatever the size relative to the block, the file has its true
   size, every byte reads back, and reads past the end are errors. */
static void
test_probed_sizes(void **state)
{
  const char *dir = make_plain_revs("fsfs7-test-revfile-probe", 7, edge_size);
  svn_fs_t *fs = make_fs(dir, FALSE, pool);
  int r;

  SVN_FS_FS__DATA(fs)->block_size = 4096;
  for (r = 0; r < 7; r++)
    {
      apr_size_t n = edge_size(r), k;
      svn_fs_fs__revfile_t *file;
      svn_stringbuf_t *disk;
      unsigned char *buf = apr_palloc(pool, n + 1);
      svn_error_t *err;

      CHECK(svn_stringbuf_from_file2(&disk, svn_dirent_join(
              dir, apr_psprintf(pool, "revs/0/%d", r), pool), pool));
      CHECK(svn_fs_fs__revfile_open(&file, fs, r, pool, pool));
      assert_int_equal(file->file_size, n);
      /* Piecewise, straddling block edges, then whole. */
      for (k = 0; k < n; k += 1000)
        {
          apr_size_t len = n - k < 1500 ? n - k : 1500;
          CHECK(svn_fs_fs__revfile_read(buf, len, file, (apr_off_t)k));
          assert_memory_equal(buf, disk->data + k, len);
        }
      CHECK(svn_fs_fs__revfile_read(buf, n, file, 0));
      assert_memory_equal(buf, disk->data, n);
      err = svn_fs_fs__revfile_read(buf, 1, file, (apr_off_t)n);
      assert_non_null(err);
      svn_error_clear(err);
      CHECK(svn_fs_fs__revfile_close(file));
    }
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

/* r9, r19, ... fill more than a 64 kB block; the others are small. */
static apr_size_t
image_size(int rev)
{
  return rev % 10 == 9 ? 70000 : 3000 + (apr_size_t)rev;
}

/* A hand-made fs for DIR whose revision files may come from images in
   MEMBUFFER, under the same key prefix for every such fs. */
static svn_fs_t *
image_fs(const char *dir, svn_membuffer_t *membuffer, apr_pool_t *fs_pool)
{
  svn_fs_t *fs = make_fs(dir, FALSE, fs_pool);
  svn_fs_fs__data_t *ffd = fs->fsap_data;

  CHECK(svn_fs_fs__revfile_init_caches(fs, membuffer, "t-images:", fs_pool,
                                       pool));
  ffd->admit_salt = svn_fs_fs__admit_salt("t-images:");
  ffd->youngest_rev_cache = 89;
  return fs;
}

/* Read all of r0 .. r99 of FS in turn, checking size and bytes. */
static void
read_all_files(svn_fs_t *fs)
{
  int r;

  for (r = 0; r < 100; r++)
    {
      svn_fs_fs__revfile_t *file;
      apr_size_t n = image_size(r), at;
      unsigned char byte;
      svn_error_t *err;

      CHECK(svn_fs_fs__revfile_open(&file, fs, r, pool, pool));
      assert_int_equal(file->file_size, n);
      for (at = 0; at < n; at += 997)
        {
          CHECK(svn_fs_fs__revfile_read(&byte, 1, file, (apr_off_t)at));
          assert_int_equal(byte, (unsigned char)((at * 2654435761u
                                                  + (apr_size_t)r) >> 11));
        }
      err = svn_fs_fs__revfile_read(&byte, 1, file, (apr_off_t)n);
      assert_non_null(err);
      svn_error_clear(err);
      CHECK(svn_fs_fs__revfile_close(file));
    }
}

/* Small unpacked rev files opened a second time go into the membuffer
   whole, and later opens -- here by another svn_fs_t of the process, as
   mod_dav_svn opens one per request -- make their slots from there: no
   open(), no descriptor, the same bytes and size, reads past the end
   still errors.  Files that fill a read block, and revisions past the
   youngest the fs knows, are never taken. */
static void
test_small_files_from_images(void **state)
{
  const char *dir = make_plain_revs("fsfs7-test-revfile-images", 100,
                                    image_size);
  apr_pool_t *fs_pool = svn_pool_create(pool);
  svn_membuffer_t *membuffer;
  svn_fs_t *first, *second;
  int descriptors, hits;

  /* With a directory of its own (0 leaves room for two groups of
     entries, and the images would push each other out). */
  CHECK(svn_cache__membuffer_cache_create(&membuffer, 8 * 1024 * 1024,
                                          1024 * 1024, 0, FALSE, FALSE,
                                          fs_pool));
  svn_fs_fs__admit_reset();
  first = image_fs(dir, membuffer, fs_pool);
  read_all_files(first);
  read_all_files(first);
  /* 100 files in turn are more than the set parks: both rounds opened
     every file. */
  assert_int_equal(svn_fs_fs__revfile_os_opens(first), 200);
  assert_int_equal(svn_fs_fs__revfile_image_hits(first), 0);

  descriptors = open_descriptors();
  second = image_fs(dir, membuffer, fs_pool);
  read_all_files(second);
  /* The nine large files and the ten past the youngest came from disk;
     the other 81 from images, holding no descriptor -- all but the few
     the membuffer may have dropped when their directory group filled
     (a cache promises nothing). */
  hits = (int)svn_fs_fs__revfile_image_hits(second);
  assert_true(hits >= 75 && hits <= 81);
  assert_int_equal(svn_fs_fs__revfile_os_opens(second), 100 - hits);
  /* (plus the shard directory the second fs opens files in) */
  assert_true(open_descriptors() <= descriptors + 1 + 100 - hits);
  svn_pool_destroy(fs_pool);
  CHECK(svn_io_remove_dir2(dir, TRUE, NULL, NULL, pool));
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vectors_items),
    cmocka_unit_test(test_vectors_verify),
    cmocka_unit_test(test_p2l_blocks),
    cmocka_unit_test(test_p2l_peek),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_stale_min_unpacked),
    cmocka_unit_test(test_handle_lifetimes),
    cmocka_unit_test(test_block_lru),
    cmocka_unit_test(test_large_reads_bypass_blocks),
    cmocka_unit_test(test_item_fnv_chunks),
    cmocka_unit_test(test_read_block_cap),
    cmocka_unit_test(test_chain_bottom_stays_open),
    cmocka_unit_test(test_evicted_files_park),
    cmocka_unit_test(test_probed_sizes),
    cmocka_unit_test(test_small_files_from_images),
    cmocka_unit_test(test_rev_blocks_budget),
    cmocka_unit_test(test_pack_blocks_grow_on_reuse),
    cmocka_unit_test(test_p2l_memo_moves),
    cmocka_unit_test(test_verify_damage),
    cmocka_unit_test(test_damaged_lookups),
    cmocka_unit_test(test_reference_repos),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
