/* test_rep_read.c --- end-to-end test of rep_read.c on stock-made repos.
 *
 * Without arguments, tests/unit/rep_read_repos.sh makes small stock
 * repositories (formats 6/7/8, svndiff 0/1/2, physical and logical
 * addressing, one packed).  With REPO arguments, those are read instead
 * (e.g. the reference repositories; nothing is written to them).
 *
 * Every "text:" and "props:" reference found in the revision and pack
 * files is read back through our reader; rep_read.c itself verifies length,
 * MD5 and SHA1, so a successful read proves the reconstruction.  On top we
 * check that streaming in odd-sized pieces, the delta streams (computed
 * and stored-window fast path) and the fulltext cache give the same bytes,
 * and that damaged representations give errors, never wrong text.
 *
 * Needs: the addressing layer (revfile.c, index.c) and the node-rev codec.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <apr_file_info.h>
#include "svn_pools.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"
#include "svn_delta.h"
#include "svn_checksum.h"
#include "private/svn_cache.h"

#include "fsfs7.h"
#include "format.h"
#include "fsconf.h"
#include "id.h"
#include "index.h"
#include "revfile.h"
#include "rep_header.h"
#include "rep_read.h"
#include "svndiff.h"
#include "noderev_codec.h"
#include "paths.h"
#include "node.h"
#include "svn_cache_config.h"

static apr_pool_t *pool;
static apr_array_header_t *repos;   /* const char * */

/* Open the FSFS filesystem of repository REPO by hand (only what the
   storage layers read), so that this test does not depend on the nodes
   and tree layers. */
static svn_fs_t *
open_fs(const char *repo)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  svn_fs_fs__data_t *ffd = apr_pcalloc(pool, sizeof(*ffd));
  svn_fs_fs__format_t format;
  svn_stringbuf_t *text;

  fs->pool = pool;
  fs->path = svn_dirent_join(repo, "db", pool);
  fs->fsap_data = ffd;
  assert_null(svn_stringbuf_from_file2(
                &text, svn_dirent_join(fs->path, "format", pool), pool));
  assert_null(svn_fs_fs__format_parse(&format, text->data, text->len,
                                      NULL));
  ffd->format = format.format;
  ffd->max_files_per_dir = format.max_files_per_dir;
  ffd->use_log_addressing = format.use_log_addressing;
  svn_fs_fs__fsconf_defaults(ffd);
  assert_null(svn_fs_fs__update_min_unpacked_rev(fs, pool));
  return fs;
}

/* Make COPY a writable copy of the repository REPO. */
static void
copy_repo(const char *repo, const char *copy)
{
  assert_int_equal(system(apr_psprintf(pool, "rm -rf '%s' && cp -a '%s' "
                                       "'%s' && chmod -R u+w '%s'", copy,
                                       repo, copy, copy)), 0);
}

/* All rep references in the rev / pack files of FS, as
   svn_fs_fs__rep_t *, deduplicated by location. */
static apr_array_header_t *
find_reps(svn_fs_t *fs)
{
  apr_array_header_t *reps = apr_array_make(pool, 64, sizeof(void *));
  apr_hash_t *seen = apr_hash_make(pool);
  const char *revs = svn_dirent_join(fs->path, "revs", pool);
  DIR *d = opendir(revs);
  struct dirent *e;

  assert_non_null(d);
  while ((e = readdir(d)) != NULL)
    {
      const char *shard;
      DIR *sd;
      struct dirent *f;

      if (e->d_name[0] == '.')
        continue;
      shard = svn_dirent_join(revs, e->d_name, pool);
      if (!(sd = opendir(shard)))
        continue;
      while ((f = readdir(sd)) != NULL)
        {
          svn_stringbuf_t *data;
          const char *p, *end;

          if (f->d_name[0] == '.' || strcmp(f->d_name, "manifest") == 0)
            continue;
          assert_null(svn_stringbuf_from_file2(
                        &data, svn_dirent_join(shard, f->d_name, pool),
                        pool));
          for (p = data->data, end = p + data->len; p < end; )
            {
              const char *eol = memchr(p, '\n', end - p);
              apr_size_t skip = !strncmp(p, "text: ", 6) ? 6
                              : !strncmp(p, "props: ", 7) ? 7 : 0;
              if (!eol)
                break;
              if (skip)
                {
                  svn_fs_fs__rep_t *rep;
                  const char *key;
                  assert_null(svn_fs_fs__rep_parse(&rep, p + skip,
                                                   eol - p - skip, NULL,
                                                   NULL, pool));
                  key = apr_psprintf(pool, "%ld/%" APR_UINT64_T_FMT,
                                     rep->revision, rep->item_index);
                  if (!svn_hash_gets(seen, key))
                    {
                      svn_hash_sets(seen, key, rep);
                      APR_ARRAY_PUSH(reps, svn_fs_fs__rep_t *) = rep;
                    }
                }
              p = eol + 1;
            }
        }
      closedir(sd);
    }
  closedir(d);
  return reps;
}

/* REP's header. */
static svn_fs_fs__rep_header_t
read_header(svn_fs_t *fs, const svn_fs_fs__rep_t *rep, apr_pool_t *scratch)
{
  svn_fs_fs__revfile_t *file;
  svn_fs_fs__rep_header_t header;
  apr_off_t offset;
  const char *data;
  apr_size_t len;

  assert_null(svn_fs_fs__revfile_open(&file, fs, rep->revision, scratch,
                                      scratch));
  assert_null(svn_fs_fs__item_offset(&offset, fs, file, rep->revision,
                                     rep->item_index, scratch));
  assert_null(svn_fs_fs__revfile_read_some(&data, &len, file, offset,
                                           SVN_FS_FS__REP_HEADER_MAX,
                                           scratch));
  assert_null(svn_fs_fs__rep_header_parse(&header, data, len, NULL));
  assert_null(svn_fs_fs__revfile_close(file));
  return header;
}

/* Fail with ERR's message if ERR is set. */
static void
check(svn_error_t *err, const char *what)
{
  if (err)
    {
      svn_error_t *e;
      for (e = err; e->child; e = e->child)
        ;
      fail_msg("%s: %s (%d)", what, e->message, e->apr_err);
    }
}

/* Read REP as a stream in pieces of odd sizes. */
static svn_stringbuf_t *
read_streamed(svn_fs_t *fs, const svn_fs_fs__rep_t *rep, apr_pool_t *scratch)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch);
  svn_stream_t *stream;
  char buf[70001];
  apr_size_t len, piece = 1;

  check(svn_fs_fs__rep_contents_stream(&stream, fs, rep, scratch), "stream");
  do
    {
      piece = piece * 7 % sizeof(buf) + 1;
      len = piece;
      check(svn_stream_read_full(stream, buf, &len), "stream read");
      svn_stringbuf_appendbytes(out, buf, len);
    }
  while (len == piece);
  check(svn_stream_close(stream), "stream close");
  return out;
}

/* Apply the delta stream SOURCE→TARGET to SOURCE_TEXT. */
static svn_stringbuf_t *
apply_delta(svn_fs_t *fs, const svn_fs_fs__rep_t *source,
            const svn_fs_fs__rep_t *target, svn_stringbuf_t *source_text,
            apr_pool_t *scratch)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch);
  svn_txdelta_stream_t *delta;
  svn_txdelta_window_handler_t handler;
  void *baton;

  check(svn_fs_fs__rep_delta_stream(&delta, fs, source, target, scratch),
        "delta stream");
  svn_txdelta_apply(svn_stream_from_stringbuf(source_text, scratch),
                    svn_stream_from_stringbuf(out, scratch), NULL, NULL,
                    scratch, &handler, &baton);
  check(svn_txdelta_send_txstream(delta, handler, baton, scratch),
        "delta apply");
  assert_memory_equal(svn_txdelta_md5_digest(delta), target->md5_digest,
                      APR_MD5_DIGESTSIZE);
  return out;
}

/* Read every rep of REPO in all the ways; returns the number of reps. */
static int
check_repo(const char *repo, svn_boolean_t thorough)
{
  svn_fs_t *fs = open_fs(repo);
  apr_array_header_t *reps = find_reps(fs);
  svn_stringbuf_t **texts = apr_pcalloc(pool, reps->nelts * sizeof(*texts));
  apr_pool_t *iterpool = svn_pool_create(pool);
  int i, deltas = 0;

  assert_true(reps->nelts > 0);
  for (i = 0; i < reps->nelts; i++)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
      svn_stringbuf_t *text;

      svn_pool_clear(iterpool);
      check(svn_fs_fs__rep_contents(&text, fs, rep, TRUE, pool, iterpool),
            apr_psprintf(pool, "%s r%ld/%" APR_UINT64_T_FMT, repo,
                         rep->revision, rep->item_index));
      texts[i] = text;
      if (thorough)
        assert_true(svn_stringbuf_compare(read_streamed(fs, rep, iterpool),
                                          text));
    }

  /* Delta streams: from nothing, and from the stored base if we know it
     (the stored-window path). */
  for (i = 0; thorough && i < reps->nelts; i++)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
      svn_stringbuf_t *text = texts[i];
      svn_fs_fs__rep_header_t h;
      int j;

      svn_pool_clear(iterpool);
      assert_true(svn_stringbuf_compare(
                    apply_delta(fs, NULL, rep,
                                svn_stringbuf_create_empty(iterpool),
                                iterpool), text));
      h = read_header(fs, rep, iterpool);
      for (j = 0; h.kind == svn_fs_fs__rep_delta && j < reps->nelts; j++)
        {
          svn_fs_fs__rep_t *base = APR_ARRAY_IDX(reps, j,
                                                 svn_fs_fs__rep_t *);
          if (base->revision == h.base_revision
              && base->item_index == h.base_item_index)
            {
              svn_stringbuf_t *base_text = texts[j];
              assert_true(svn_stringbuf_compare(
                            apply_delta(fs, base, rep, base_text, iterpool),
                            text));
              deltas++;
            }
        }
    }
  if (thorough)
    assert_true(deltas > 0);
  svn_pool_destroy(iterpool);
  return reps->nelts;
}

static void
test_read_all_reps(void **state)
{
  int i;

  for (i = 0; i < repos->nelts; i++)
    {
      const char *repo = APR_ARRAY_IDX(repos, i, const char *);
      int n = check_repo(repo, TRUE);
      printf("# %s: %d representations read\n", repo, n);
      /* Every test repository has file texts, so reading none means the
         walk found nothing to check. */
      assert_true(n > 0);
    }
  assert_true(repos->nelts > 0);
}

/* TRUE if ERR is one of the errors damaged data may give. */
static svn_boolean_t
expected_damage_error(svn_error_t *err)
{
  svn_error_t *e;
  for (e = err; e; e = e->child)
    if (e->apr_err == SVN_ERR_FS_CORRUPT
        || e->apr_err == SVN_ERR_CHECKSUM_MISMATCH
        || (e->apr_err >= SVN_ERR_SVNDIFF_INVALID_HEADER
            && e->apr_err <= SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA))
      return TRUE;
  return FALSE;
}

/* Read REP as a stream in pieces until a read fails, then read again:
   that read must fail too (a stream read on after an error, as
   svn_stream_checksummed2's READ_ALL does when it is closed, once
   crashed on a half-decoded window). */
static void
expect_no_read_after_failure(svn_fs_t *fs, const svn_fs_fs__rep_t *rep,
                             const char *what, apr_pool_t *scratch)
{
  svn_stream_t *stream;
  svn_error_t *err = svn_fs_fs__rep_contents_stream(&stream, fs, rep,
                                                    scratch);
  char buf[4096];
  apr_size_t len = sizeof(buf);

  while (!err && len == sizeof(buf))
    err = svn_stream_read_full(stream, buf, &len);
  if (!err)
    return;                     /* failed when opened, or at the end */
  svn_error_clear(err);
  len = sizeof(buf);
  err = svn_stream_read_full(stream, buf, &len);
  if (!expected_damage_error(err))
    fail_msg("%s: r%ld/%" APR_UINT64_T_FMT " read after a failed read "
             "gave %s", what, rep->revision, rep->item_index,
             err ? err->message : "no error");
  svn_error_clear(err);
}

/* Read REP fully both ways; both must fail with a damage error. */
static void
expect_damage(svn_fs_t *fs, const svn_fs_fs__rep_t *rep, const char *what)
{
  apr_pool_t *scratch = svn_pool_create(pool);
  svn_stringbuf_t *text;
  svn_stream_t *stream;
  svn_error_t *err = svn_fs_fs__rep_contents(&text, fs, rep, TRUE, scratch,
                                             scratch);
  if (!expected_damage_error(err))
    fail_msg("%s: r%ld/%" APR_UINT64_T_FMT " read gave %s", what,
             rep->revision, rep->item_index,
             err ? err->message : "no error");
  svn_error_clear(err);

  err = svn_fs_fs__rep_contents_stream(&stream, fs, rep, scratch);
  if (!err)
    err = svn_stream_copy3(stream, svn_stream_empty(scratch), NULL, NULL,
                           scratch);
  if (!expected_damage_error(err))
    fail_msg("%s: r%ld/%" APR_UINT64_T_FMT " stream gave %s", what,
             rep->revision, rep->item_index,
             err ? err->message : "no error");
  svn_error_clear(err);
  expect_no_read_after_failure(fs, rep, what, scratch);
  svn_pool_destroy(scratch);
}

/* Invert the byte at offset AT of the file at PATH. */
static void
flip_byte(const char *path, apr_off_t at)
{
  FILE *f = fopen(path, "r+b");
  int c;

  assert_non_null(f);
  assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
  c = fgetc(f);
  assert_true(c != EOF);
  assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
  fputc(c ^ 0xff, f);
  fclose(f);
}

/* Wrong metadata in the node-rev (size, expanded size, checksums) and
   damaged bytes on disk are errors, never wrong text. */
static void
test_damaged_reps(void **state)
{
  const char *repo = APR_ARRAY_IDX(repos, 0, const char *);
  const char *copy = apr_psprintf(pool, "%s.damaged.%ld", repo,
                                  (long)getpid());
  svn_fs_t *fs = open_fs(repo);
  apr_array_header_t *reps = find_reps(fs);
  int i, flipped = 0;

  for (i = 0; i < reps->nelts && i < 200; i++)
    {
      svn_fs_fs__rep_t rep = *APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
      svn_fs_fs__rep_t bad;

      bad = rep;
      bad.md5_digest[3] ^= 0x40;
      expect_damage(fs, &bad, "md5");
      if (rep.expanded_size > 0)
        {
          /* Reading exactly the recorded length must already verify. */
          svn_stream_t *stream;
          apr_size_t len = (apr_size_t)rep.expanded_size;
          char *buf = apr_palloc(pool, len);
          svn_error_t *err = svn_fs_fs__rep_contents_stream(&stream, fs,
                                                            &bad, pool);
          if (!err)
            err = svn_stream_read_full(stream, buf, &len);
          if (!expected_damage_error(err))
            fail_msg("md5: exact-length read not verified");
          svn_error_clear(err);
        }
      if (rep.has_sha1)
        {
          svn_error_t *err;
          bad = rep;
          bad.sha1_digest[0] ^= 1;
          err = svn_fs_fs__rep_verify(fs, &bad, NULL, NULL, pool);
          if (!expected_damage_error(err))
            fail_msg("sha1: not detected by svn_fs_fs__rep_verify");
          svn_error_clear(err);
          check(svn_fs_fs__rep_verify(fs, &rep, NULL, NULL, pool), "verify");
        }
      bad = rep;
      bad.expanded_size = (rep.expanded_size ? rep.expanded_size
                                             : rep.size) + 1;
      expect_damage(fs, &bad, "expanded size");
      bad = rep;
      bad.size = rep.size + 3;
      expect_damage(fs, &bad, "size+3");
      bad = rep;
      bad.size = (svn_filesize_t)1 << 40;
      expect_damage(fs, &bad, "size 1T");
      bad = rep;
      bad.expanded_size = (svn_filesize_t)1 << 40;
      expect_damage(fs, &bad, "expanded size 1T");
      if (rep.size > 1)
        {
          bad = rep;
          bad.size = rep.size - 1;
          expect_damage(fs, &bad, "size-1");
        }
    }

  /* Flip one byte in the data of reps in a copy of the repository. */
  copy_repo(repo, copy);
  for (i = 0; i < reps->nelts && flipped < 60; i += 7)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
      svn_fs_t *cfs = open_fs(copy);
      svn_fs_fs__revfile_t *file;
      svn_fs_fs__rep_header_t h = read_header(cfs, rep, pool);
      apr_off_t offset, at;
      const char *path;

      if (rep->size < 8)
        continue;
      assert_null(svn_fs_fs__revfile_open(&file, cfs, rep->revision, pool,
                                          pool));
      assert_null(svn_fs_fs__item_offset(&offset, cfs, file, rep->revision,
                                         rep->item_index, pool));
      at = offset + h.header_size + rep->size / 2 + (i % 5);
      path = svn_fs_fs__is_packed_rev(cfs, rep->revision)
           ? svn_fs_fs__path_rev_packed(cfs, rep->revision, "pack", pool)
           : svn_fs_fs__path_rev(cfs, rep->revision, pool);
      flip_byte(path, at);
      expect_damage(open_fs(copy), rep, "flipped byte");
      flip_byte(path, at);
      assert_null(svn_fs_fs__revfile_close(file));
      flipped++;
    }
  assert_true(flipped > 0);
  svn_error_clear(svn_io_remove_dir2(copy, FALSE, NULL, NULL, pool));
}

/* svn_fs_process_contents_func_t copying the text to BATON. */
static svn_error_t *
copy_processor(const unsigned char *contents, apr_size_t len, void *baton,
               apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *copy = baton;
  svn_stringbuf_setempty(copy);
  svn_stringbuf_appendbytes(copy, (const char *)contents, len);
  return SVN_NO_ERROR;
}

/* With a fulltext cache: texts read once are served from it afterwards
   (try_process succeeds), and come out the same. */
static void
test_fulltext_cache(void **state)
{
  const char *repo = APR_ARRAY_IDX(repos, 0, const char *);
  svn_fs_t *fs = open_fs(repo);
  svn_membuffer_t *membuffer;
  apr_array_header_t *reps = find_reps(fs);
  svn_stringbuf_t *processed = svn_stringbuf_create_empty(pool);
  int i, hits = 0;

  check(svn_cache__membuffer_cache_create(&membuffer, 16 * 1024 * 1024, 0, 0,
                                          TRUE, TRUE, pool), "membuffer");
  check(svn_fs_fs__reps_init_caches(fs, membuffer, "test-rep-read:", pool,
                                    pool), "init caches");
  assert_non_null(SVN_FS_FS__DATA(fs)->fulltext_cache);
  for (i = 0; i < reps->nelts; i++)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
      svn_stringbuf_t *first, *second;
      svn_boolean_t success;

      check(svn_fs_fs__rep_contents(&first, fs, rep, TRUE, pool, pool),
            "first");
      check(svn_fs_fs__rep_try_process(&success, fs, rep, copy_processor,
                                       processed, pool), "try");
      if (success)
        {
          assert_true(svn_stringbuf_compare(processed, first));
          hits++;
        }
      check(svn_fs_fs__rep_contents(&second, fs, rep, TRUE, pool, pool),
            "second");
      assert_true(svn_stringbuf_compare(first, second));
      assert_true(svn_stringbuf_compare(read_streamed(fs, rep, pool),
                                        first));
    }
  printf("# %d of %d representations served from the cache\n", hits,
         reps->nelts);
  assert_true(hits > 0);
}

/* A streamed read with a fulltext cache collects a copy of the text for
   the cache in a heap buffer that goes when the text ends (in the
   caller's pool it stayed until that pool went): after each first read
   no read memory is live, and the texts are in the cache. */
static void
test_collected_copy_released(void **state)
{
  const char *repo = APR_ARRAY_IDX(repos, 0, const char *);
  svn_fs_t *fs = open_fs(repo);
  svn_membuffer_t *membuffer;
  apr_array_header_t *reps = find_reps(fs);
  svn_stringbuf_t *processed = svn_stringbuf_create_empty(pool);
  int i, hits = 0;

  check(svn_cache__membuffer_cache_create(&membuffer, 16 * 1024 * 1024, 0, 0,
                                          TRUE, TRUE, pool), "membuffer");
  check(svn_fs_fs__reps_init_caches(fs, membuffer, "test-collect:", pool,
                                    pool), "init caches");
  for (i = 0; i < reps->nelts; i++)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
      svn_boolean_t success;

      svn_fs_fs__rep_read_memory_peak(TRUE);
      read_streamed(fs, rep, pool);
      assert_int_equal(svn_fs_fs__rep_read_memory_live(), 0);
      svn_fs_fs__rep_read_memory_peak(FALSE);
      check(svn_fs_fs__rep_try_process(&success, fs, rep, copy_processor,
                                       processed, pool), "try");
      hits += success;
    }
  assert_true(hits > 0);
}

/* Large texts (over 256 kB: big.txt) stay out of the membuffer and are
   kept one at a time beside the fs (rep_read.c, LARGE_FULLTEXT): after a
   read, try_process finds small texts in the cache but not large ones,
   and large texts read in turn, each several times, streamed and whole,
   come out as a cache-less fs reads them. */
static void
test_large_texts_beside_cache(void **state)
{
  const char *repo = APR_ARRAY_IDX(repos, 1, const char *);
  svn_fs_t *fs = open_fs(repo), *plain = open_fs(repo);
  svn_membuffer_t *membuffer;
  apr_array_header_t *reps = find_reps(fs);
  svn_stringbuf_t *processed = svn_stringbuf_create_empty(pool);
  apr_array_header_t *large = apr_array_make(pool, 8, sizeof(void *));
  int i, k, small_hits = 0;

  check(svn_cache__membuffer_cache_create(&membuffer, 64 * 1024 * 1024, 0,
                                          0, TRUE, TRUE, pool), "membuffer");
  check(svn_fs_fs__reps_init_caches(fs, membuffer, "test-large:", pool,
                                    pool), "init caches");
  for (i = 0; i < reps->nelts; i++)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
      svn_stringbuf_t *text;
      svn_boolean_t success;

      check(svn_fs_fs__rep_contents(&text, fs, rep, TRUE, pool, pool), "read");
      check(svn_fs_fs__rep_try_process(&success, fs, rep, copy_processor,
                                       processed, pool), "try");
      if (text->len > 256 * 1024)
        {
          assert_false(success);
          APR_ARRAY_PUSH(large, svn_fs_fs__rep_t *) = rep;
        }
      else if (success)
        small_hits++;
    }
  assert_true(small_hits > 0);
  assert_true(large->nelts >= 2);
  for (k = 0; k < 3; k++)
    for (i = 0; i < large->nelts; i++)
      {
        svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(large, (i * 7 + k) % large->nelts,
                                              svn_fs_fs__rep_t *);
        svn_stringbuf_t *expected, *whole;

        check(svn_fs_fs__rep_contents(&expected, plain, rep, TRUE, pool, pool),
              "plain");
        check(svn_fs_fs__rep_contents(&whole, fs, rep, TRUE, pool, pool),
              "whole");
        assert_true(svn_stringbuf_compare(whole, expected));
        assert_true(svn_stringbuf_compare(read_streamed(fs, rep, pool),
                                          expected));
      }
}

/* Large texts are shared by reference, not copied: the fs keeps its
   recent text alone (one live text after reads of it, streamed or
   whole), a stream reading the recent text keeps it alive and correct
   while another read replaces it, and a stream dropped half-way frees
   the text it was collecting.  The old reader made a copy of the recent
   text for every read of it and kept the collected copy in the stream's
   pool; svn_fs_fs__rep_large_texts_live() counts the shared ones.  A
   new large text takes the memory of the last one released, unless
   hundreds of other reads came between. */
static void
test_large_texts_shared(void **state)
{
  const char *repo = APR_ARRAY_IDX(repos, 1, const char *);
  svn_fs_t *fs = open_fs(repo), *plain = open_fs(repo);
  svn_membuffer_t *membuffer;
  apr_array_header_t *reps = find_reps(fs);
  svn_fs_fs__rep_t *l1 = NULL, *l2 = NULL;
  svn_stringbuf_t *t1, *t2, *got;
  apr_pool_t *sp = svn_pool_create(pool);
  svn_stream_t *stream;
  char buf[1000];
  apr_size_t len;
  apr_uint32_t base = svn_fs_fs__rep_large_texts_live(), reuses;
  int i, k;

  check(svn_cache__membuffer_cache_create(&membuffer, 64 * 1024 * 1024, 0,
                                          0, TRUE, TRUE, pool), "membuffer");
  check(svn_fs_fs__reps_init_caches(fs, membuffer, "test-shared:", pool,
                                    pool), "init caches");
  for (i = 0; i < reps->nelts && !l2; i++)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);

      if (rep->expanded_size > 256 * 1024 && rep->expanded_size < 2000000)
        {
          if (!l1)
            l1 = rep;
          else if (!svn_fs_fs__rep_same(rep, l1))
            l2 = rep;
        }
    }
  assert_non_null(l2);
  check(svn_fs_fs__rep_contents(&t1, plain, l1, TRUE, pool, pool), "plain 1");
  check(svn_fs_fs__rep_contents(&t2, plain, l2, TRUE, pool, pool), "plain 2");

  /* L1 read whole, then streamed twice: one text stays. */
  check(svn_fs_fs__rep_contents(&got, fs, l1, TRUE, pool, pool), "whole 1");
  assert_true(svn_stringbuf_compare(got, t1));
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base + 1);
  assert_true(svn_stringbuf_compare(read_streamed(fs, l1, sp), t1));
  assert_true(svn_stringbuf_compare(read_streamed(fs, l1, sp), t1));
  svn_pool_clear(sp);
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base + 1);

  /* A stream on the recent L1; L2 read meanwhile replaces it. */
  check(svn_fs_fs__rep_contents_stream(&stream, fs, l1, sp), "stream 1");
  len = sizeof(buf);
  check(svn_stream_read_full(stream, buf, &len), "read 1");
  assert_memory_equal(buf, t1->data, len);
  assert_true(svn_stringbuf_compare(read_streamed(fs, l2, pool), t2));
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base + 2);
  got = svn_stringbuf_ncreate(buf, len, pool);
  do
    {
      len = sizeof(buf);
      check(svn_stream_read_full(stream, buf, &len), "read 1 on");
      svn_stringbuf_appendbytes(got, buf, len);
    }
  while (len == sizeof(buf));
  assert_true(svn_stringbuf_compare(got, t1));
  svn_pool_clear(sp);
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base + 1);

  /* L1 (no longer recent) dropped half-way: its collection goes too, and
     the recent text is still L2.  The collection takes the memory the
     released L1 left, not fresh pages. */
  reuses = svn_fs_fs__rep_large_reuses();
  check(svn_fs_fs__rep_contents_stream(&stream, fs, l1, sp), "stream 1b");
  len = sizeof(buf);
  check(svn_stream_read_full(stream, buf, &len), "read 1b");
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base + 2);
  assert_int_equal(svn_fs_fs__rep_large_reuses(), reuses + 1);
  svn_pool_clear(sp);
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base + 1);
  check(svn_fs_fs__rep_contents(&got, fs, l2, TRUE, pool, pool), "whole 2");
  assert_true(svn_stringbuf_compare(got, t2));

  /* After 300 reads of other texts the released memory is gone: the
     next large text does not find it. */
  for (i = 0; i < 300; i++)
    {
      svn_pool_clear(sp);
      check(svn_fs_fs__rep_contents(&got, plain,
                                    APR_ARRAY_IDX(reps, i % reps->nelts,
                                                  svn_fs_fs__rep_t *),
                                    TRUE, sp, sp), "other text");
    }
  svn_pool_clear(sp);
  reuses = svn_fs_fs__rep_large_reuses();
  assert_true(svn_stringbuf_compare(read_streamed(fs, l1, sp), t1));
  assert_int_equal(svn_fs_fs__rep_large_reuses(), reuses);
  svn_pool_clear(sp);

  /* L1 is the recent text now; 300 reads of small texts through the
     same fs, none asking for it, let it go; read again, it is whole. */
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base + 1);
  for (i = 0, k = 0; k < 300; i++)
    {
      svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i % reps->nelts,
                                            svn_fs_fs__rep_t *);

      if (rep->expanded_size > 256 * 1024)
        continue;
      svn_pool_clear(sp);
      check(svn_fs_fs__rep_contents(&got, fs, rep, TRUE, sp, sp),
            "small text");
      k++;
    }
  svn_pool_clear(sp);
  assert_int_equal(svn_fs_fs__rep_large_texts_live(), base);
  assert_true(svn_stringbuf_compare(read_streamed(fs, l1, sp), t1));
  svn_pool_destroy(sp);
}

/* ---- Crafted chains: windows that do and do not line up (REP-8) ---- */

/* Append the svndiff varint of V to OUT. */
static void
put_varint(svn_stringbuf_t *out, apr_uint64_t v)
{
  unsigned char buf[10];
  int n = 0;

  do
    buf[n++] = (unsigned char)(v & 0x7f);
  while ((v >>= 7) != 0);
  while (n-- > 0)
    svn_stringbuf_appendbyte(out, (char)(buf[n] | (n ? 0x80 : 0)));
}

/* One instruction of a crafted window: KIND 0 source, 1 target, 2 new
   (OFFSET is then unused and LEN bytes of NEW_BYTE follow). */
typedef struct crafted_op_t
{
  int kind;
  apr_size_t offset, len;
  char new_byte;
} crafted_op_t;

/* Append an svndiff 0 window to OUT: source view SOFF+SLEN, OPS. */
static void
put_window(svn_stringbuf_t *out, apr_size_t soff, apr_size_t slen,
           const crafted_op_t *ops, int n)
{
  svn_stringbuf_t *ins = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *new_data = svn_stringbuf_create_empty(pool);
  apr_size_t tlen = 0;
  int i;

  for (i = 0; i < n; i++)
    {
      svn_stringbuf_appendbyte(ins, (char)(ops[i].kind << 6));
      put_varint(ins, ops[i].len);
      if (ops[i].kind != 2)
        put_varint(ins, ops[i].offset);
      else
        svn_stringbuf_appendfill(new_data, ops[i].new_byte, ops[i].len);
      tlen += ops[i].len;
    }
  put_varint(out, soff);
  put_varint(out, slen);
  put_varint(out, tlen);
  put_varint(out, ins->len);
  put_varint(out, new_data->len);
  svn_stringbuf_appendstr(out, ins);
  svn_stringbuf_appendstr(out, new_data);
}

/* Write DATA to DIR/NAME. */
static void
put_file(const char *dir, const char *name, const svn_stringbuf_t *data)
{
  check(svn_io_file_create_bytes(svn_dirent_join(dir, name, pool),
                                 data->data, data->len, pool), name);
}

/* A three-link chain made by hand in a format 6 repository: a PLAIN text
   S (300 kB), a delta L1 against it with three 100 kB windows (source
   and target copies, new data), and a top delta L0 against L1 whose
   windows compose with L1's (view = one L1 window), span two of them,
   line up again after that, move backwards into bytes still decoded and
   beyond them (REP-8 is only a promise; the reader must rewind), and
   have no source view at all.  The first two take halves of one L1
   window in turn: the reader frees a base window once composed (writers
   pair windows one to one), so the second must find its bytes anew.
   The reader's text must be what decoding L1, then L0, gives. */
static void
test_crafted_chain(void **state)
{
  static const crafted_op_t l1_ops[] = {
    { 0, 0, 40000, 0 }, { 2, 0, 100, 'x' }, { 1, 39000, 1000, 0 },
    { 0, 41100, 58900, 0 } };
  static const struct { apr_size_t soff, slen; crafted_op_t ops[3]; int n; }
    l0[] = {
      { 100000, 50000, { { 0, 0, 50000, 0 } }, 1 },
      { 150000, 50000, { { 2, 0, 7, 'd' }, { 0, 7, 49993, 0 } }, 2 },
      { 0, 100000, { { 2, 0, 10, 'a' }, { 0, 10, 99990, 0 } }, 2 },
      { 50000, 100000, { { 0, 0, 100000, 0 } }, 1 },
      { 200000, 100000, { { 0, 100, 99900, 0 }, { 2, 0, 100, 'b' } }, 2 },
      { 120000, 80000, { { 0, 0, 80000, 0 } }, 1 },
      { 0, 100000, { { 0, 5000, 90000, 0 }, { 1, 0, 10000, 0 } }, 2 },
      { 0, 0, { { 2, 0, 5000, 'c' } }, 1 },
      { 250000, 50000, { { 0, 0, 50000, 0 }, { 1, 49999, 50000, 0 } }, 2 },
    };
  const char *dir = apr_psprintf(pool, "/tmp/fsfs7-crafted.%ld",
                                 (long)getpid());
  const char *revs = svn_dirent_join(dir, "db/revs/0", pool);
  svn_stringbuf_t *text = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *d1 = svn_stringbuf_create("SVN", pool);
  svn_stringbuf_t *d0 = svn_stringbuf_create("SVN", pool);
  svn_stringbuf_t *r0, *r1, *t1, *t0, *got;
  svn_fs_t *fs;
  svn_fs_fs__rep_t rep;
  apr_size_t i, l1_at;
  svn_checksum_t *md5;

  svn_stringbuf_appendbyte(d1, 0);
  svn_stringbuf_appendbyte(d0, 0);
  for (i = 0; i < 300000; i++)
    svn_stringbuf_appendbyte(text, (char)('a' + (i * 7 + i / 1000) % 26));
  for (i = 0; i < 3; i++)
    put_window(d1, i * 100000, 100000, l1_ops, 4);
  for (i = 0; i < sizeof(l0) / sizeof(l0[0]); i++)
    put_window(d0, l0[i].soff, l0[i].slen, l0[i].ops, l0[i].n);

  /* The expected texts, decoded window by window on their own. */
  check(svn_fs_fs__svndiff_decode_all(&t1, d1->data, d1->len, text->data,
                                      text->len, pool, pool), "L1");
  check(svn_fs_fs__svndiff_decode_all(&t0, d0->data, d0->len, t1->data,
                                      t1->len, pool, pool), "L0");

  r0 = svn_stringbuf_create("PLAIN\n", pool);
  svn_stringbuf_appendstr(r0, text);
  svn_stringbuf_appendcstr(r0, "\nENDREP\n");
  l1_at = r0->len;
  svn_stringbuf_appendcstr(r0, apr_psprintf(pool, "DELTA 0 0 %lu\n",
                                            (unsigned long)text->len));
  svn_stringbuf_appendstr(r0, d1);
  svn_stringbuf_appendcstr(r0, "ENDREP\n");
  r1 = svn_stringbuf_createf(pool, "DELTA 0 %lu %lu\n",
                             (unsigned long)l1_at, (unsigned long)d1->len);
  svn_stringbuf_appendstr(r1, d0);
  svn_stringbuf_appendcstr(r1, "ENDREP\n");

  check(svn_io_make_dir_recursively(revs, pool), "mkdir");
  put_file(dir, "db/format", svn_stringbuf_create("6\nlayout sharded 1000\n",
                                                  pool));
  put_file(dir, "db/current", svn_stringbuf_create("1\n", pool));
  put_file(dir, "db/min-unpacked-rev", svn_stringbuf_create("0\n", pool));
  put_file(revs, "0", r0);
  put_file(revs, "1", r1);

  fs = open_fs(dir);

  memset(&rep, 0, sizeof(rep));
  rep.revision = 1;
  rep.item_index = 0;
  rep.size = (svn_filesize_t)d0->len;
  rep.expanded_size = (svn_filesize_t)t0->len;
  check(svn_checksum(&md5, svn_checksum_md5, t0->data, t0->len, pool),
        "md5");
  memcpy(rep.md5_digest, md5->digest, sizeof(rep.md5_digest));

  check(svn_fs_fs__rep_contents(&got, fs, &rep, TRUE, pool, pool), "read");
  assert_true(svn_stringbuf_compare(got, t0));
  assert_true(svn_stringbuf_compare(read_streamed(fs, &rep, pool), t0));
  check(svn_io_remove_dir2(dir, FALSE, NULL, NULL, pool), "rm");
}

/* Reading a delta chain holds memory for a few windows per chain, not
   one per link: the windows of the links are composed (op lists and new
   data) and only the composite is run, and a link waiting for its base
   holds neither its stored window nor a window parsed for composing.
   big.txt (270 kB, three 100 kB windows) changes in each of 22
   revisions, so its reps have chains of up to 16 links; decoding each
   link into a window buffer of its own, as the reader once did, held
   1.99 MB for the deepest.  churn.bin (234 kB, nearly all new in each
   revision) has windows of ~100 kB of stored new data per link: holding
   each waiting link's input and parsed window took 5.4 MB, now 1.1. */
static void
test_chain_memory_bound(void **state)
{
  int i, r;

  for (r = 0; r < repos->nelts; r++)
    {
      const char *repo = APR_ARRAY_IDX(repos, r, const char *);
      svn_fs_t *fs = open_fs(repo);
      apr_array_header_t *reps = find_reps(fs);
      apr_size_t worst = 0, largest = 0;

      for (i = 0; i < reps->nelts; i++)
        {
          svn_fs_fs__rep_t *rep = APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *);
          svn_stringbuf_t *text;
          apr_size_t peak;

          svn_fs_fs__rep_read_memory_peak(TRUE);
          check(svn_fs_fs__rep_contents(&text, fs, rep, TRUE, pool, pool),
                "read");
          peak = svn_fs_fs__rep_read_memory_peak(FALSE);
          if (text->len > 200 * 1024 && peak > worst)
            worst = peak;
          if (text->len > largest)
            largest = text->len;
        }
      if (getenv("FSFS7_VERBOSE"))
        fprintf(stderr, "%s: largest text %lu, read memory peak %lu\n",
                repo, (unsigned long)largest, (unsigned long)worst);
      if (largest > 200 * 1024)
        assert_true(worst > 0 && worst < 1536 * 1024);
    }
}

/* Called by each_rep() for REP of FS, with SCRATCH cleared before each
   call; BATON is each_rep()'s. */
typedef void (*rep_fn_t)(svn_fs_t *fs, const svn_fs_fs__rep_t *rep,
                         void *baton, apr_pool_t *scratch);

/* Call FN for every rep of every test repository. */
static void
each_rep(rep_fn_t fn, void *baton)
{
  int i, r;

  for (r = 0; r < repos->nelts; r++)
    {
      const char *repo = APR_ARRAY_IDX(repos, r, const char *);
      svn_fs_t *fs = open_fs(repo);
      apr_array_header_t *reps = find_reps(fs);
      apr_pool_t *iterpool = svn_pool_create(pool);

      for (i = 0; i < reps->nelts; i++)
        {
          svn_pool_clear(iterpool);
          fn(fs, APR_ARRAY_IDX(reps, i, svn_fs_fs__rep_t *), baton,
             iterpool);
        }
      svn_pool_destroy(iterpool);
    }
}

/* each_rep() callback of test_read_releases_buffers; BATON counts the
   reps that needed buffers. */
static void
check_released(svn_fs_t *fs, const svn_fs_fs__rep_t *rep, void *baton,
               apr_pool_t *scratch)
{
  svn_stream_t *stream;
  char buf[4096];
  apr_size_t len;

  svn_fs_fs__rep_read_memory_peak(TRUE);
  check(svn_fs_fs__rep_contents_stream(&stream, fs, rep, scratch), "stream");
  do
    {
      len = sizeof(buf);
      check(svn_stream_read_full(stream, buf, &len), "read");
    }
  while (len == sizeof(buf));
  if (svn_fs_fs__rep_read_memory_peak(FALSE) == 0)
    return;                     /* nothing to give back */
  assert_int_equal(svn_fs_fs__rep_read_memory_live(), 0);

  svn_fs_fs__rep_read_memory_peak(TRUE);
  check(svn_fs_fs__rep_contents_stream(&stream, fs, rep, scratch), "stream");
  len = 1;
  check(svn_stream_read_full(stream, buf, &len), "read");
  check(svn_stream_close(stream), "close");
  assert_int_equal(svn_fs_fs__rep_read_memory_live(), 0);
  (*(int *)baton)++;
}

/* A read gives its buffers back as soon as its text has ended, or its
   stream is closed, while its pool lives on: a rep writer keeps its
   base's stream (and a commit its scratch pool) long after, and load's
   peak heap was two readers' buffers held that way.  Checked on every
   rep of the test repositories that needs buffers: read to the end, and
   read one byte and closed. */
static void
test_read_releases_buffers(void **state)
{
  int checked = 0;

  each_rep(check_released, &checked);
  assert_true(checked > 0);
}

/* Peak read memory of reading REP of FS through a stream in reads of
   PIECE bytes (BUF has room for them). */
static apr_size_t
peak_reading(svn_fs_t *fs, const svn_fs_fs__rep_t *rep, char *buf,
             apr_size_t piece, apr_pool_t *scratch)
{
  svn_stream_t *stream;
  apr_size_t len;

  svn_fs_fs__rep_read_memory_peak(TRUE);
  check(svn_fs_fs__rep_contents_stream(&stream, fs, rep, scratch),
        "stream");
  do
    {
      len = piece;
      check(svn_stream_read_full(stream, buf, &len), "read");
    }
  while (len == piece);
  check(svn_stream_close(stream), "close");
  return svn_fs_fs__rep_read_memory_peak(FALSE);
}

/* Largest text test_read_lends_buffer reads in one piece. */
#define LEND_BUF_SIZE (1024 * 1024)

/* each_rep() callback of test_read_lends_buffer; BATON counts the reps
   read with less memory in one piece. */
static void
check_lent(svn_fs_t *fs, const svn_fs_fs__rep_t *rep, void *baton,
           apr_pool_t *scratch)
{
  char *buf;
  apr_size_t small, big;

  if (rep->expanded_size < 8 * 1024 || rep->expanded_size >= LEND_BUF_SIZE)
    return;
  buf = apr_palloc(scratch, LEND_BUF_SIZE);
  small = peak_reading(fs, rep, buf, 1000, scratch);
  big = peak_reading(fs, rep, buf, (apr_size_t)rep->expanded_size + 1,
                     scratch);
  assert_true(big <= small);
  if (big < small)
    (*(int *)baton)++;
}

/* A caller whose reads take whole windows lends its buffer to the
   decoder: the top link's windows are decoded straight into it, and the
   read needs no output buffer of its own (a rep writer reads its base
   this way).  Reading each rep of 8 kB to 1 MB in one read of its whole
   size must never need more memory than reading it 1,000 bytes at a
   time, and must need less for some. */
static void
test_read_lends_buffer(void **state)
{
  int less = 0;

  each_rep(check_lent, &less);
  assert_true(less > 0);
}

/* A node-rev of a file found in a revision file by its created path:
   its ID and text rep, the file, and where in it the text's MD5 digest
   and the path begin. */
typedef struct found_node_t
{
  svn_fs_fs__id_t *id;
  svn_fs_fs__rep_t *rep;
  const char *path;
  apr_off_t md5_at, cpath_at;
} found_node_t;

/* The node-rev of unpacked revision REV of FS created at CPATH. */
static found_node_t
find_node(svn_fs_t *fs, svn_revnum_t rev, const char *cpath)
{
  found_node_t found;
  svn_stringbuf_t *data;
  const char *line = apr_pstrcat(pool, "\ncpath: ", cpath, "\n", NULL);
  const char *at, *id, *text, *eol, *p;
  int spaces;

  found.path = svn_fs_fs__path_rev(fs, rev, pool);
  assert_null(svn_stringbuf_from_file2(&data, found.path, pool));
  /* Rev files hold binary data: no str* searches over the whole file. */
  at = memmem(data->data, data->len, line, strlen(line));
  assert_non_null(at);
  found.cpath_at = at - data->data + 8;
  /* The node-rev starts at the last "id: " line before its path. */
  for (id = at; id > data->data && strncmp(id, "\nid: ", 5) != 0; id--)
    ;
  assert_true(id > data->data);
  id++;
  eol = strchr(id, '\n');
  found.id = svn_fs_fs__id_parse(id + 4, eol - id - 4, pool);
  assert_non_null(found.id);
  text = strstr(id, "\ntext: ");
  assert_true(text != NULL && text < at);
  text += 7;
  eol = strchr(text, '\n');
  assert_null(svn_fs_fs__rep_parse(&found.rep, text, eol - text, NULL, NULL,
                                   pool));
  /* The digest is the fifth field. */
  for (p = text, spaces = 0; spaces < 4; p++)
    spaces += *p == ' ';
  found.md5_at = p - data->data;
  return found;
}

/* Read the text of node-rev NODE of FS the way 'svn cat' does; *PROVED
   tells whether its MD5 was left out (REP-9). */
static svn_error_t *
read_node_text(svn_stringbuf_t **text, svn_boolean_t *proved, svn_fs_t *fs,
               const found_node_t *node)
{
  apr_uint32_t before = svn_fs_fs__rep_md5_proofs();
  svn_stream_t *stream;

  *text = svn_stringbuf_create_empty(pool);
  SVN_ERR(svn_fs_fs__node_text_stream(&stream, fs, node->rep, node->id,
                                      TRUE, pool));
  SVN_ERR(svn_stream_copy3(stream, svn_stream_from_stringbuf(*text, pool),
                           NULL, NULL, pool));
  *proved = svn_fs_fs__rep_md5_proofs() != before;
  return SVN_NO_ERROR;
}

/* Replace the byte at AT of the file PATH by C; returns the old one. */
static char
poke_byte(const char *path, apr_off_t at, char c)
{
  FILE *f = fopen(path, "r+b");
  int old;

  assert_non_null(f);
  assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
  old = fgetc(f);
  assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
  fputc(c, f);
  fclose(f);
  return (char)old;
}

/* The node-rev at CPATH ("/a/b") in revision REV of FS, found through
   the directories, so that it may lie in a pack file (found.path then
   names the pack). */
static found_node_t
find_node_by_path(svn_fs_t *fs, svn_revnum_t rev, const char *cpath)
{
  found_node_t found;
  const svn_fs_fs__id_t *id;
  svn_fs_fs__noderev_t *noderev;
  svn_fs_fs__revfile_t *file;
  apr_array_header_t *names = svn_cstring_split(cpath, "/", TRUE, pool);
  apr_off_t offset;
  apr_size_t len;
  char *buf;
  const char *text, *at, *p;
  int i, spaces;

  assert_null(svn_fs_fs__rev_root_id(&id, fs, rev, pool, pool));
  assert_null(svn_fs_fs__get_noderev(&noderev, fs, id, pool, pool));
  for (i = 0; i < names->nelts; i++)
    {
      svn_fs_dirent_t *entry;

      assert_null(svn_fs_fs__dir_entry(&entry, fs, noderev,
                                       APR_ARRAY_IDX(names, i, const char *),
                                       pool, pool));
      assert_non_null(entry);
      assert_null(svn_fs_fs__get_noderev(&noderev, fs,
                                         SVN_FS_FS__ID(entry->id), pool,
                                         pool));
    }
  found.id = svn_fs_fs__id_copy(noderev->id, pool);
  found.rep = noderev->data_rep;
  found.path = svn_fs_fs__is_packed_rev(fs, rev)
             ? svn_fs_fs__path_rev_packed(fs, rev, "pack", pool)
             : svn_fs_fs__path_rev(fs, rev, pool);

  /* Where the node-rev's MD5 digits and path are in that file. */
  assert_null(svn_fs_fs__revfile_open(&file, fs, rev, pool, pool));
  assert_null(svn_fs_fs__item_offset(&offset, fs, file, rev,
                                     found.id->rev_item.number, pool));
  assert_null(svn_fs_fs__revfile_available(&len, file, offset, 4096));
  buf = apr_pcalloc(pool, len + 1);
  assert_null(svn_fs_fs__revfile_read(buf, len, file, offset));
  assert_null(svn_fs_fs__revfile_close(file));
  text = strstr(buf, "\ntext: ");
  at = strstr(buf, "\ncpath: ");
  assert_true(text != NULL && at != NULL);
  for (p = text + 7, spaces = 0; spaces < 4; p++)
    spaces += *p == ' ';
  found.md5_at = offset + (p - buf);
  found.cpath_at = offset + (at - buf) + 8;
  return found;
}

/* Finds a node-rev: find_node() or find_node_by_path(). */
typedef found_node_t (*node_finder_t)(svn_fs_t *fs, svn_revnum_t rev,
                                      const char *cpath);

/* In the repository COPY, change a digit of the MD5 that the node-rev
   at CPATH in REV (located by FIND) records: reading its text must fail
   as damage, whatever REP-9 makes of it.  The digit is restored. */
static void
expect_md5_digit_refused(const char *copy, svn_revnum_t rev,
                         const char *cpath, node_finder_t find)
{
  found_node_t node = find(open_fs(copy), rev, cpath), damaged;
  svn_stringbuf_t *text;
  svn_boolean_t proved;
  svn_error_t *err;
  char old = poke_byte(node.path, node.md5_at, '0');

  if (old == '0')
    poke_byte(node.path, node.md5_at, '1');
  damaged = find(open_fs(copy), rev, cpath);
  err = read_node_text(&text, &proved, open_fs(copy), &damaged);
  if (!expected_damage_error(err))
    fail_msg("changed MD5 digit: %s", err ? err->message : "no error");
  svn_error_clear(err);
  poke_byte(node.path, node.md5_at, old);
}

/* In the repository COPY, whose text of NODE (in REV) is proved when
   read, flip a byte in the middle of that text's delta: reading it must
   then fail as damage.  The byte stays flipped. */
static void
expect_delta_flip_refused(const char *copy, svn_revnum_t rev,
                          const found_node_t *node)
{
  svn_fs_t *fs = open_fs(copy);
  svn_stringbuf_t *text;
  svn_boolean_t proved;
  svn_fs_fs__rep_header_t h;
  svn_fs_fs__revfile_t *file;
  apr_off_t offset;
  svn_error_t *err;

  check(read_node_text(&text, &proved, fs, node), "undamaged");
  assert_true(proved);
  h = read_header(fs, node->rep, pool);
  assert_null(svn_fs_fs__revfile_open(&file, fs, rev, pool, pool));
  assert_null(svn_fs_fs__item_offset(&offset, fs, file, rev,
                                     node->rep->item_index, pool));
  assert_null(svn_fs_fs__revfile_close(file));
  flip_byte(node->path, offset + h.header_size + node->rep->size / 2);
  err = read_node_text(&text, &proved, open_fs(copy), node);
  if (!expected_damage_error(err))
    fail_msg("flipped delta byte: %s", err ? err->message : "no error");
  svn_error_clear(err);
}

/* REP-9: a long text whose chain and node-rev have the item checksums
   the P2L index records is read without its MD5, and gives the text
   the MD5 would have passed.  The proof covers the node-rev: with a
   digit of the recorded MD5 changed, the proof fails and the MD5 check
   refuses the text (were the node-rev left out of the proof, this read
   would pass); with another byte of the node-rev changed, the proof
   fails and the MD5 passes the text.  A damaged delta is refused.  A
   physically addressed repository has no P2L index and no proof. */
static void
test_md5_proof(void **state)
{
  const char *f6 = APR_ARRAY_IDX(repos, 0, const char *);
  const char *f7 = APR_ARRAY_IDX(repos, 1, const char *);
  const char *copy = apr_psprintf(pool, "%s.proof.%ld", f7, (long)getpid());
  svn_fs_t *fs = open_fs(f7);
  found_node_t node = find_node(fs, 22, "/trunk/big.txt");
  svn_stringbuf_t *expected, *text;
  svn_boolean_t proved;
  char old;

  assert_true(node.rep->expanded_size >= 64 * 1024);
  check(svn_fs_fs__rep_contents(&expected, open_fs(f7), node.rep, TRUE, pool,
                                pool), "plain read");
  check(read_node_text(&text, &proved, fs, &node), "proved read");
  assert_true(proved);
  assert_true(svn_stringbuf_compare(text, expected));

  node = find_node(open_fs(f6), 22, "/trunk/big.txt");
  check(read_node_text(&text, &proved, open_fs(f6), &node), "f6 read");
  assert_false(proved);
  assert_true(svn_stringbuf_compare(text, expected));

  copy_repo(f7, copy);
  expect_md5_digit_refused(copy, 22, "/trunk/big.txt", find_node);

  /* Another byte of the node-rev: no proof, but a good text. */
  node = find_node(open_fs(copy), 22, "/trunk/big.txt");
  old = poke_byte(node.path, node.cpath_at + 1, 'X');
  check(read_node_text(&text, &proved, open_fs(copy), &node),
        "node-rev damaged elsewhere");
  assert_false(proved);
  assert_true(svn_stringbuf_compare(text, expected));
  poke_byte(node.path, node.cpath_at + 1, old);

  expect_delta_flip_refused(copy, 22, &node);
  svn_error_clear(svn_io_remove_dir2(copy, FALSE, NULL, NULL, pool));
}

/* r17's /trunk/d/medium.txt (20 kB) of REPO: proved with the default
   cache, and with a 64-byte one only if IN_TINY_CACHE; the same text as
   a plain read either way.  A copy of REPO (named with TAG) with a
   changed MD5 digit or a flipped delta byte is refused. */
static void
expect_medium_proof(const char *repo, const char *tag,
                    svn_boolean_t in_tiny_cache)
{
  const char *copy = apr_psprintf(pool, "%s.%s.%ld", repo, tag,
                                  (long)getpid());
  svn_cache_config_t settings = *svn_cache_config_get(), tiny = settings;
  svn_fs_t *fs = open_fs(repo);
  found_node_t node = find_node_by_path(fs, 17, "/trunk/d/medium.txt");
  svn_stringbuf_t *expected, *text;
  svn_boolean_t proved;
  svn_error_t *err;

  assert_true(node.rep->expanded_size >= 8 * 1024
              && node.rep->expanded_size < 64 * 1024);
  check(svn_fs_fs__rep_contents(&expected, open_fs(repo), node.rep, TRUE, pool,
                                pool), "plain read");
  check(read_node_text(&text, &proved, fs, &node), "proved read");
  assert_true(proved);
  assert_true(svn_stringbuf_compare(text, expected));

  tiny.cache_size = 64;
  svn_cache_config_set(&tiny);
  fs = open_fs(repo);
  err = read_node_text(&text, &proved, fs, &node);
  svn_cache_config_set(&settings);
  check(err, "small cache");
  assert_int_equal(proved, in_tiny_cache);
  assert_true(svn_stringbuf_compare(text, expected));

  copy_repo(repo, copy);
  expect_md5_digit_refused(copy, 17, "/trunk/d/medium.txt",
                           find_node_by_path);
  node = find_node_by_path(open_fs(copy), 17, "/trunk/d/medium.txt");
  expect_delta_flip_refused(copy, 17, &node);
  svn_error_clear(svn_io_remove_dir2(copy, FALSE, NULL, NULL, pool));
}

/* REP-9, thrifty proofs: a text of 8-64 kB whose node-rev is in a pack
   file is proved when the pack files' index fits the cache, and gives
   the text the MD5 would have passed; with a cache too small for that
   index the MD5 decides.  A changed MD5 digit in the packed node-rev
   and a flipped delta byte are refused. */
static void
test_thrifty_proof(void **state)
{
  const char *f7p = APR_ARRAY_IDX(repos, 2, const char *);

  assert_true(svn_fs_fs__is_packed_rev(open_fs(f7p), 17));
  expect_medium_proof(f7p, "thrifty", FALSE);
}

/* The same text in revision files of at most 64 kB, node-rev and every
   link: proved by the small revision files' indexes, with any cache;
   a damaged MD5 digit or delta byte is still refused. */
static void
test_small_rev_file_proof(void **state)
{
  const char *f7 = APR_ARRAY_IDX(repos, 1, const char *);

  assert_false(svn_fs_fs__is_packed_rev(open_fs(f7), 17));
  expect_medium_proof(f7, "small", TRUE);
}

/* The same rule for a link in a revision file larger than 64 kB whose
   P2L index lies in its last block (an import: here 120 kB of random
   bytes beside the text's first version).  The old rule knew only
   small files and left such a text to its MD5.  The noise itself is a
   text of one link longer than the prefetch (64 kB): proved by reading
   that item once more for its checksum (before, its MD5 decided), and
   refused with a byte flipped beyond the prefetch.  Makes its own stock
   repository (format 7, one import and one edit). */
static void
test_large_rev_file_proof(void **state)
{
  const char *dir = apr_psprintf(pool, "%s.large-rev.%ld",
                                 APR_ARRAY_IDX(repos, 1, const char *),
                                 (long)getpid());
  const char *repo = svn_dirent_join(dir, "repo", pool);
  svn_fs_t *fs;
  found_node_t node;
  svn_stringbuf_t *expected, *text;
  svn_boolean_t proved;
  apr_finfo_t info;

  assert_int_equal(system(apr_psprintf(
    pool,
    "set -e; rm -rf '%s'; mkdir -p '%s'; cd '%s';"
    " unset LD_LIBRARY_PATH;"
    " svnadmin create --compatible-version=1.9 repo;"
    " head -c 120000 /dev/urandom > noise.bin;"
    " awk 'BEGIN { for (n = 0; n < 600; n++) printf \"line %%04d\\n\", n }'"
    "   > text.txt;"
    " svnmucc -m import -U file://'%s' put noise.bin noise.bin"
    "   put text.txt text.txt > /dev/null;"
    " sed -i 's/line 0300/changed/' text.txt;"
    " svnmucc -m edit -U file://'%s' put text.txt text.txt"
    "   > /dev/null;"
    " chmod -R u+w repo",
    dir, dir, dir, repo, repo)), 0);
  assert_int_equal(apr_stat(&info, svn_dirent_join(repo, "db/revs/0/1",
                                                   pool),
                            APR_FINFO_SIZE, pool), APR_SUCCESS);
  assert_true(info.size > 64 * 1024);

  fs = open_fs(repo);
  node = find_node_by_path(fs, 2, "/text.txt");
  assert_int_equal(node.rep->revision, 2);
  check(svn_fs_fs__rep_contents(&expected, open_fs(repo), node.rep, TRUE,
                                pool, pool), "plain read");
  check(read_node_text(&text, &proved, fs, &node), "proved read");
  assert_true(proved);
  assert_true(svn_stringbuf_compare(text, expected));

  /* A flipped byte of the edit's delta is still refused. */
  expect_delta_flip_refused(repo, 2, &node);

  node = find_node_by_path(open_fs(repo), 1, "/noise.bin");
  assert_true(node.rep->size > 64 * 1024);
  check(svn_fs_fs__rep_contents(&expected, open_fs(repo), node.rep, TRUE,
                                pool, pool), "plain read of the noise");
  fs = open_fs(repo);
  check(read_node_text(&text, &proved, fs, &node), "proved noise");
  assert_true(proved);
  assert_true(svn_stringbuf_compare(text, expected));
  expect_delta_flip_refused(repo, 1, &node);
  svn_error_clear(svn_io_remove_dir2(dir, FALSE, NULL, NULL, pool));
}

int
main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_read_all_reps),
    cmocka_unit_test(test_fulltext_cache),
    cmocka_unit_test(test_large_texts_beside_cache),
    cmocka_unit_test(test_large_texts_shared),
    cmocka_unit_test(test_damaged_reps),
    cmocka_unit_test(test_md5_proof),
    cmocka_unit_test(test_thrifty_proof),
    cmocka_unit_test(test_small_rev_file_proof),
    cmocka_unit_test(test_large_rev_file_proof),
    cmocka_unit_test(test_chain_memory_bound),
    cmocka_unit_test(test_crafted_chain),
    cmocka_unit_test(test_read_releases_buffers),
    cmocka_unit_test(test_read_lends_buffer),
    /* Last: it leaves reads of other tests measured. */
    cmocka_unit_test(test_collected_copy_released),
  };
  const char *made = NULL;
  int i, failed;

  apr_initialize();
  pool = svn_pool_create(NULL);
  repos = apr_array_make(pool, 8, sizeof(const char *));
  if (argc > 1)
    for (i = 1; i < argc; i++)
      APR_ARRAY_PUSH(repos, const char *) = argv[i];
  else
    {
      const char *top = getenv("top_srcdir");
      const char *tmp;
      static const char *names[] = { "f6", "f7", "f7p", "f8", "f8none" };

      if (apr_temp_dir_get(&tmp, pool) != APR_SUCCESS)
        tmp = "/tmp";
      made = apr_psprintf(pool, "%s/fsfs7-rep-read.%ld", tmp, (long)getpid());
      if (system(apr_psprintf(pool, "%s/tests/unit/rep_read_repos.sh '%s'",
                              top ? top : ".", made)) != 0)
        {
          fprintf(stderr, "cannot make the test repositories\n");
          return 1;
        }
      for (i = 0; i < 5; i++)
        APR_ARRAY_PUSH(repos, const char *) = svn_dirent_join(made, names[i],
                                                              pool);
    }
  failed = cmocka_run_group_tests(tests, NULL, NULL);
  if (made && !failed)
    svn_error_clear(svn_io_remove_dir2(made, FALSE, NULL, NULL, pool));
  return failed;
}
