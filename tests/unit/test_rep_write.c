/* test_rep_write.c --- unit tests for the representation writer
 * (rep_write.c; doc/format/representations.md, svndiff.md §7).
 *
 * Reps are written by us into revision 1 of a tiny physically addressed
 * repository (format 6 with svndiff 0/1, format 8 with svndiff 0/1/2)
 * and read back through our rep reader (rep_read.c), which checks length
 * and MD5 itself; svn_fs_fs__rep_verify adds the SHA1.  Besides that we
 * check the bytes on disk (header line, trailer, sizes), decode each
 * DELTA's svndiff with the stock libsvn_delta against its base, compare
 * the digests with ones computed here, and check that a base is read only
 * as far as the target needs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_file_io.h>
#include "svn_pools.h"
#include "svn_io.h"
#include "svn_dirent_uri.h"
#include "svn_checksum.h"
#include "svn_delta.h"

#include "fsfs7.h"
#include "fsconf.h"
#include "rep_read.h"
#include "rep_write.h"
#include "svndiff.h"
#include "svndiff_enc.h"
#include "test_util.h"

static apr_pool_t *pool;

/* The space every write_rep() writer borrows, as all writers of an
   svn_fs_t do: the reps of all tests (svndiff 0, 1 at levels 5 and 9, 2)
   go through one encoder, reset between them. */
static svn_fs_fs__rep_write_space_t *shared_space;

/* One rep we wrote, and what it must read back as. */
typedef struct written_t
{
  svn_fs_fs__rep_write_result_t result;
  const svn_stringbuf_t *text;
  const svn_stringbuf_t *base_text;   /* NULL: no base */
  const char *header;                 /* expected header line */
} written_t;

/* ------------------------------------------------------------------ */
/* Test data                                                           */

#define random_text(len, seed) test_random_text((len), (seed), pool)

static svn_stringbuf_t *
repetitive_text(apr_size_t len)
{
  svn_stringbuf_t *s = svn_stringbuf_create_empty(pool);
  int n = 0;

  while (s->len < len)
    svn_stringbuf_appendcstr(s, apr_psprintf(pool,
                               "<dependency><id>lib-%d</id><v>1.%d</v>"
                               "</dependency>\n", n % 900, n % 13)), n++;
  svn_stringbuf_chop(s, s->len - len);
  return s;
}

/* TEXT with small edits spread out and an insertion near the front. */
static svn_stringbuf_t *
edited(const svn_stringbuf_t *text)
{
  svn_stringbuf_t *t = svn_stringbuf_dup(text, pool);
  apr_size_t i;

  for (i = 500; i + 3 < t->len; i += 41000)
    memcpy(t->data + i, "XYZ", 3);
  svn_stringbuf_insert(t, t->len > 100 ? 100 : 0, "inserted\n", 9);
  return t;
}

/* ------------------------------------------------------------------ */
/* A repository to write into                                          */

/* Write TEXT to DB/NAME. */
static void
put(const char *db, const char *name, const char *text)
{
  assert_null(svn_io_file_create(svn_dirent_join(db, name, pool), text,
                                 pool));
}

/* A physically addressed FORMAT 6 or 8 repository with revisions 0 and
   1 (both files still empty) in a fresh temporary directory. */
static svn_fs_t *
make_fs(int format)
{
  svn_fs_t *fs = apr_pcalloc(pool, sizeof(*fs));
  svn_fs_fs__data_t *ffd = apr_pcalloc(pool, sizeof(*ffd));
  const char *root, *db;

  assert_null(svn_io_open_unique_file3(NULL, &root, NULL,
                                       svn_io_file_del_none, pool, pool));
  assert_null(svn_io_remove_file2(root, FALSE, pool));
  db = svn_dirent_join(root, "db", pool);
  assert_null(svn_io_make_dir_recursively(svn_dirent_join(db, "revs/0",
                                                          pool), pool));
  put(db, "format", format == 6 ? "6\nlayout sharded 1000\n"
                                : "8\nlayout sharded 1000\n"
                                  "addressing physical\n");
  put(db, "current", "1\n");
  put(db, "min-unpacked-rev", "0\n");
  put(db, "revs/0/0", "");

  fs->pool = pool;
  fs->path = apr_pstrdup(pool, db);
  fs->fsap_data = ffd;
  ffd->format = format;
  ffd->max_files_per_dir = 1000;
  ffd->youngest_rev_cache = 1;
  svn_fs_fs__fsconf_defaults(ffd);
  return fs;
}

static void
remove_fs(svn_fs_t *fs)
{
  assert_null(svn_io_remove_dir2(svn_dirent_dirname(fs->path, pool), FALSE,
                                 NULL, NULL, pool));
}

static apr_file_t *
open_rev1(svn_fs_t *fs)
{
  apr_file_t *file;

  assert_null(svn_io_file_open(&file, svn_dirent_join(fs->path, "revs/0/1",
                                                      pool),
                               APR_WRITE | APR_CREATE | APR_BUFFERED,
                               APR_OS_DEFAULT, pool));
  return file;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

/* Write TEXT as one rep at the end of FILE through the writer's stream,
   in pieces of awkward sizes.  BASE_AT (a rep written earlier, or NULL)
   becomes the delta base. */
static written_t *
write_rep(apr_file_t *file, const svn_stringbuf_t *text,
          const written_t *base_at,
          const svn_fs_fs__rep_write_options_t *options)
{
  static const apr_size_t pieces[] = { 1, 7, 4093, 102399, 250001 };
  written_t *w = apr_pcalloc(pool, sizeof(*w));
  svn_fs_fs__rep_write_base_t base;
  svn_fs_fs__rep_writer_t *writer;
  svn_stream_t *stream;
  apr_size_t pos = 0, i = 0;

  if (base_at)
    {
      base.revision = 1;
      base.item_index = (apr_uint64_t)base_at->result.offset;
      base.size = base_at->result.size;
      base.fulltext = svn_stream_from_stringbuf(
                        svn_stringbuf_dup(base_at->text, pool), pool);
      w->header = apr_psprintf(pool, "DELTA 1 %" APR_UINT64_T_FMT
                               " %" SVN_FILESIZE_T_FMT "\n",
                               base.item_index, base.size);
    }
  else
    w->header = options->plain ? "PLAIN\n" : "DELTA\n";

  assert_null(svn_fs_fs__rep_writer_open(&writer, file,
                                         base_at ? &base : NULL, options,
                                         shared_space, pool, pool));
  stream = svn_fs_fs__rep_writer_stream(writer, pool);
  while (pos < text->len)
    {
      apr_size_t len = pieces[i++ % 5];
      if (len > text->len - pos)
        len = text->len - pos;
      assert_null(svn_stream_write(stream, text->data + pos, &len));
      pos += len;
    }
  assert_null(svn_stream_close(stream));
  assert_null(svn_fs_fs__rep_writer_finish(&w->result, writer, pool));
  w->text = text;
  w->base_text = base_at ? base_at->text : NULL;
  return w;
}

/* ------------------------------------------------------------------ */
/* Checking                                                            */

/* The rep reference for W (revision 1, offset as item). */
static svn_fs_fs__rep_t *
rep_of(const written_t *w)
{
  svn_fs_fs__rep_t *rep = apr_pcalloc(pool, sizeof(*rep));

  rep->revision = 1;
  rep->item_index = (apr_uint64_t)w->result.offset;
  svn_fs_fs__rep_write_result_to_rep(rep, &w->result);
  return rep;
}

/* Our reader gives W's text back, whole and streamed, and verifies. */
static void
check_read_back(svn_fs_t *fs, const written_t *w)
{
  svn_stringbuf_t *got;
  svn_stream_t *stream;
  svn_error_t *err;

  err = svn_fs_fs__rep_contents(&got, fs, rep_of(w), TRUE, pool, pool);
  if (err)
    fail_msg("read of %s rep: %s", w->header,
             svn_error_root_cause(err)->message);
  assert_true(svn_stringbuf_compare(got, w->text));
  assert_null(svn_fs_fs__rep_contents_stream(&stream, fs, rep_of(w), pool));
  assert_null(svn_stringbuf_from_stream(&got, stream, 0, pool));
  assert_true(svn_stringbuf_compare(got, w->text));
  assert_null(svn_fs_fs__rep_verify(fs, rep_of(w), NULL, NULL, pool));
}

/* The digests and sizes W reports are those of its text. */
static void
check_result(const written_t *w)
{
  svn_checksum_t *md5, *sha1;

  assert_null(svn_checksum(&md5, svn_checksum_md5, w->text->data,
                           w->text->len, pool));
  assert_null(svn_checksum(&sha1, svn_checksum_sha1, w->text->data,
                           w->text->len, pool));
  assert_memory_equal(w->result.md5_digest, md5->digest, 16);
  assert_memory_equal(w->result.sha1_digest, sha1->digest, 20);
  assert_int_equal(w->result.expanded_size, w->text->len);
  assert_int_equal(w->result.total_len,
                   strlen(w->header) + w->result.size + 7);
}

/* On disk (FILE_DATA is the whole rev file): header line, data, trailer;
   a DELTA's data decodes, with the stock libsvn_delta, against its base
   to the text, in windows of 100 kB. */
static void
check_bytes(const svn_stringbuf_t *file_data, const written_t *w)
{
  const char *at = file_data->data + w->result.offset;
  const char *data = at + strlen(w->header);
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  svn_txdelta_window_handler_t handler;
  void *baton;
  svn_stream_t *parser;
  apr_size_t len = (apr_size_t)w->result.size;

  assert_true(w->result.offset + w->result.total_len
              <= (apr_off_t)file_data->len);
  assert_memory_equal(at, w->header, strlen(w->header));
  assert_memory_equal(data + w->result.size, "ENDREP\n", 7);
  if (strcmp(w->header, "PLAIN\n") == 0)
    {
      assert_int_equal(w->result.size, w->text->len);
      assert_memory_equal(data, w->text->data, w->text->len);
      return;
    }
  svn_txdelta_apply(svn_stream_from_stringbuf(
                      w->base_text ? svn_stringbuf_dup(w->base_text, pool)
                                   : svn_stringbuf_create_empty(pool),
                      pool),
                    svn_stream_from_stringbuf(out, pool), NULL, NULL, pool,
                    &handler, &baton);
  parser = svn_txdelta_parse_svndiff(handler, baton, TRUE, pool);
  assert_null(svn_stream_write(parser, data, &len));
  assert_null(svn_stream_close(parser));
  assert_true(svn_stringbuf_compare(out, w->text));
}

/* Write a set of reps with OPTIONS into a FORMAT repository, then check
   every one of them. */
static void
write_and_check(int format, const svn_fs_fs__rep_write_options_t *options)
{
  svn_fs_t *fs = make_fs(format);
  apr_file_t *file = open_rev1(fs);
  svn_fs_fs__rep_write_options_t plain = *options;
  svn_stringbuf_t *empty = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *text = repetitive_text(350000);
  apr_array_header_t *all = apr_array_make(pool, 16, sizeof(written_t *));
  svn_stringbuf_t *file_data, *longer;
  written_t *p, *d;
  apr_off_t end = 0;
  int i;

  plain.plain = TRUE;
#define ADD(w) (APR_ARRAY_PUSH(all, written_t *) = (w))
  ADD(write_rep(file, svn_stringbuf_create("hello world\n", pool), NULL,
                &plain));
  ADD(write_rep(file, empty, NULL, &plain));
  ADD(write_rep(file, empty, NULL, options));
  ADD(write_rep(file, svn_stringbuf_create("tiny\n", pool), NULL, options));
  ADD(write_rep(file, random_text(1024 * 1024, 3), NULL, options));
  ADD(p = write_rep(file, text, NULL, &plain));
  ADD(d = write_rep(file, edited(text), p, options));        /* vs PLAIN */
  ADD(write_rep(file, edited(d->text), d, options));         /* vs DELTA */
  ADD(write_rep(file, svn_stringbuf_ncreate(text->data, 1000, pool), p,
                options));                                  /* shorter */
  longer = svn_stringbuf_dup(text, pool);
  svn_stringbuf_appendstr(longer, random_text(200000, 4));
  ADD(write_rep(file, longer, p, options));                  /* longer */
  ADD(write_rep(file, empty, d, options));                   /* empty */
#undef ADD
  assert_null(svn_io_file_get_offset(&end, file, pool));
  assert_null(svn_io_file_close(file, pool));

  assert_null(svn_stringbuf_from_file2(
                &file_data, svn_dirent_join(fs->path, "revs/0/1", pool),
                pool));
  assert_int_equal(end, file_data->len);
  for (i = 0; i < all->nelts; i++)
    {
      const written_t *w = APR_ARRAY_IDX(all, i, written_t *);
      check_result(w);
      check_bytes(file_data, w);
      check_read_back(fs, w);
      if (i + 1 < all->nelts)   /* reps follow each other without gaps */
        assert_int_equal(w->result.offset + w->result.total_len,
                         APR_ARRAY_IDX(all, i + 1, written_t *)
                           ->result.offset);
    }
  /* An edit of 350 kB of text costs little against its base. */
  assert_true(d->result.size < 3000);
  remove_fs(fs);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

static void
test_format6(void **state)
{
  svn_fs_fs__rep_write_options_t options = { FALSE, 0, 0 };

  write_and_check(6, &options);
  options.svndiff_version = 1;
  options.zlib_level = 5;
  write_and_check(6, &options);
}

static void
test_format8(void **state)
{
  svn_fs_fs__rep_write_options_t options = { FALSE, 2, 0 };

  write_and_check(8, &options);
  options.svndiff_version = 1;
  options.zlib_level = 9;
  write_and_check(8, &options);
  options.svndiff_version = 0;
  options.zlib_level = 0;
  write_and_check(8, &options);
}

/* fsfs.conf's compression setting picks the svndiff version as the stock
   module does (checked against rev files svnadmin 1.14 wrote). */
static void
test_options_from_config(void **state)
{
  static const struct { int level; int version; int zlib; } cases[] = {
    { SVN_FS_FS__COMPRESSION_LZ4, 2, 0 },   /* compression = lz4 */
    { 0, 0, 0 },                            /* compression = none */
    { 5, 1, 5 },                            /* zlib / default f6, f7 */
    { 9, 1, 9 },
  };
  svn_fs_fs__data_t ffd;
  size_t i;

  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      svn_fs_fs__rep_write_options_t options;
      memset(&ffd, 0, sizeof(ffd));
      ffd.format = 8;
      ffd.delta_compression_level = cases[i].level;
      svn_fs_fs__rep_write_options_init(&options, &ffd);
      assert_false(options.plain);
      assert_int_equal(options.svndiff_version, cases[i].version);
      assert_int_equal(options.zlib_level, cases[i].zlib);
    }
  memset(&ffd, 0, sizeof(ffd));
  ffd.format = 6;
  svn_fs_fs__fsconf_defaults(&ffd);
  {
    svn_fs_fs__rep_write_options_t options;
    svn_fs_fs__rep_write_options_init(&options, &ffd);
    assert_int_equal(options.svndiff_version, 1);
  }
}

/* A stream over a stringbuf that counts what was read from it. */
typedef struct counting_t
{
  svn_stream_t *inner;
  apr_size_t read;
} counting_t;

static svn_error_t *
counting_read(void *baton, char *buffer, apr_size_t *len)
{
  counting_t *c = baton;

  SVN_ERR(svn_stream_read_full(c->inner, buffer, len));
  c->read += *len;
  return SVN_NO_ERROR;
}

/* The base is read window by window, only as far as the target goes,
   and every window but the last holds exactly 100 kB of target. */
static void
test_streaming(void **state)
{
  svn_fs_t *fs = make_fs(8);
  apr_file_t *file = open_rev1(fs);
  svn_fs_fs__rep_write_options_t options = { FALSE, 0, 0 };
  svn_fs_fs__rep_write_base_t base = { 1, 0, 12345, NULL };
  svn_stringbuf_t *base_text = random_text(1024 * 1024, 8);
  svn_stringbuf_t *target = svn_stringbuf_ncreate(base_text->data, 250000,
                                                  pool);
  counting_t counter = { NULL, 0 };
  svn_fs_fs__rep_writer_t *writer;
  svn_fs_fs__rep_write_result_t result;
  svn_stringbuf_t *file_data, *decoded;
  const unsigned char *p, *end;
  int windows = 0;

  counter.inner = svn_stream_from_stringbuf(base_text, pool);
  base.fulltext = svn_stream_create(&counter, pool);
  svn_stream_set_read2(base.fulltext, NULL, counting_read);
  assert_null(svn_fs_fs__rep_writer_open(&writer, file, &base, &options,
                                         NULL, pool, pool));
  assert_null(svn_fs_fs__rep_writer_write(writer, target->data,
                                          SVN_FS_FS__DELTA_WINDOW_SIZE));
  assert_int_equal(counter.read, SVN_FS_FS__DELTA_WINDOW_SIZE);
  assert_null(svn_fs_fs__rep_writer_write(
                writer, target->data + SVN_FS_FS__DELTA_WINDOW_SIZE,
                target->len - SVN_FS_FS__DELTA_WINDOW_SIZE));
  assert_null(svn_fs_fs__rep_writer_finish(&result, writer, pool));
  assert_int_equal(counter.read, 3 * SVN_FS_FS__DELTA_WINDOW_SIZE);
  assert_null(svn_io_file_close(file, pool));

  /* Header "DELTA 1 0 12345\n" is 16 bytes; then the svndiff. */
  assert_null(svn_stringbuf_from_file2(
                &file_data, svn_dirent_join(fs->path, "revs/0/1", pool),
                pool));
  p = (const unsigned char *)file_data->data + 16 + 4;
  end = (const unsigned char *)file_data->data + 16 + result.size;
  while (p < end)
    {
      svn_fs_fs__svndiff_window_t win;
      svn_boolean_t complete;
      assert_null(svn_fs_fs__svndiff_parse_window(&win, &complete, p,
                                                  end - p));
      assert_int_equal(win.sview_offset,
                       windows * SVN_FS_FS__DELTA_WINDOW_SIZE);
      assert_int_equal(win.tview_len, windows < 2
                                      ? SVN_FS_FS__DELTA_WINDOW_SIZE
                                      : 250000 - 2
                                        * SVN_FS_FS__DELTA_WINDOW_SIZE);
      p += win.header_len + win.ins_len + win.new_len;
      windows++;
    }
  assert_int_equal(windows, 3);
  assert_null(svn_fs_fs__svndiff_decode_all(&decoded, file_data->data + 16,
                                            (apr_size_t)result.size,
                                            base_text->data, base_text->len,
                                            pool, pool));
  assert_true(svn_stringbuf_compare(decoded, target));
  /* Copies of the base: the delta is tiny. */
  assert_true(result.size < 100);
  remove_fs(fs);
}

/* Write TARGET against BASE_TEXT into a fresh format-8 repository, with
   svn_fs_fs__rep_writer_write_all (CHUNK 0) or in CHUNK-byte writes;
   *FILE_DATA receives the rev file, *RESULT the rep. */
static void
write_rep_in(svn_stringbuf_t **file_data,
             svn_fs_fs__rep_write_result_t *result,
             const svn_stringbuf_t *base_text, const svn_stringbuf_t *target,
             apr_size_t chunk)
{
  svn_fs_t *fs = make_fs(8);
  apr_file_t *file = open_rev1(fs);
  svn_fs_fs__rep_write_options_t options = { FALSE, 1, 5 };
  svn_fs_fs__rep_write_base_t base = { 1, 0, 12345, NULL };
  svn_fs_fs__rep_writer_t *writer;
  apr_size_t pos;

  base.fulltext = svn_stream_from_stringbuf(
                    svn_stringbuf_dup(base_text, pool), pool);
  assert_null(svn_fs_fs__rep_writer_open(&writer, file, &base, &options,
                                         NULL, pool, pool));
  if (chunk == 0)
    assert_null(svn_fs_fs__rep_writer_write_all(result, writer, target->data,
                                                target->len, pool));
  else
    {
      for (pos = 0; pos < target->len; pos += chunk)
        assert_null(svn_fs_fs__rep_writer_write(
                      writer, target->data + pos,
                      target->len - pos < chunk ? target->len - pos
                                                : chunk));
      assert_null(svn_fs_fs__rep_writer_finish(result, writer, pool));
    }
  assert_null(svn_io_file_close(file, pool));
  assert_null(svn_stringbuf_from_file2(
                file_data, svn_dirent_join(fs->path, "revs/0/1", pool),
                pool));
  remove_fs(fs);
}

/* write_all encodes straight from the caller's bytes and the streaming
   writer gathers windows in buffers that grow with what they hold (and
   reads a base shorter than the target into a growing view): both must
   give the same bytes, which decode to the target.  Chunks of 7000 bytes
   straddle every window boundary. */
static void
test_write_all(void **state)
{
  svn_stringbuf_t *base_text = random_text(150000, 11);
  svn_stringbuf_t *target = svn_stringbuf_dup(base_text, pool);
  svn_stringbuf_t *all, *chunked, *decoded;
  svn_fs_fs__rep_write_result_t r_all, r_chunked;

  svn_stringbuf_appendstr(target, random_text(120000, 12));
  target->data[5] = 'X';
  write_rep_in(&all, &r_all, base_text, target, 0);
  write_rep_in(&chunked, &r_chunked, base_text, target, 7000);
  assert_true(svn_stringbuf_compare(all, chunked));
  assert_int_equal(r_all.size, r_chunked.size);
  assert_int_equal(r_all.expanded_size, target->len);
  assert_int_equal(r_chunked.expanded_size, target->len);
  assert_memory_equal(r_all.md5_digest, r_chunked.md5_digest,
                      sizeof(r_all.md5_digest));
  assert_null(svn_fs_fs__svndiff_decode_all(&decoded, all->data + 16,
                                            (apr_size_t)r_all.size,
                                            base_text->data, base_text->len,
                                            pool, pool));
  assert_true(svn_stringbuf_compare(decoded, target));
}

/* The data bytes (between header line and trailer) of W in FILE_DATA. */
static svn_stringbuf_t *
data_of(const svn_stringbuf_t *file_data, const written_t *w)
{
  return svn_stringbuf_ncreate(file_data->data + w->result.offset
                               + strlen(w->header),
                               (apr_size_t)w->result.size, pool);
}

/* The whole rev file of FS. */
static svn_stringbuf_t *
rev1_data(svn_fs_t *fs)
{
  svn_stringbuf_t *data;

  assert_null(svn_stringbuf_from_file2(
                &data, svn_dirent_join(fs->path, "revs/0/1", pool), pool));
  return data;
}

/* A rep written through a space that served other reps before (a large
   random text that filled the matcher's tables and left its copy hint
   somewhere, other svndiff versions and zlib levels) has the very bytes
   a writer with a space of its own writes: nothing leaks from rep to
   rep.  Both decode. */
static void
test_space_reuse(void **state)
{
  svn_fs_fs__rep_write_options_t v2 = { FALSE, 2, 0 }, z9 = { FALSE, 1, 9 };
  svn_fs_fs__rep_write_options_t z5 = { FALSE, 1, 5 }, plain = z5;
  svn_stringbuf_t *text = repetitive_text(350000);
  svn_fs_t *fs = make_fs(8);
  apr_file_t *file = open_rev1(fs);
  svn_fs_fs__rep_write_space_t *space = svn_fs_fs__rep_write_space_create(
                                          pool);
  written_t *base, *reused[2], *fresh[2];
  svn_stringbuf_t *file_data;
  int i;

  plain.plain = TRUE;
  shared_space = space;
  base = write_rep(file, text, NULL, &plain);
  write_rep(file, random_text(300000, 21), NULL, &v2);
  write_rep(file, edited(edited(text)), base, &z9);
  reused[0] = write_rep(file, edited(text), base, &z5);
  reused[1] = write_rep(file, svn_stringbuf_ncreate(text->data + 3, 200000,
                                                    pool), base, &v2);
  shared_space = NULL;           /* private spaces */
  fresh[0] = write_rep(file, edited(text), base, &z5);
  fresh[1] = write_rep(file, reused[1]->text, base, &v2);
  shared_space = svn_fs_fs__rep_write_space_create(pool);
  assert_null(svn_io_file_close(file, pool));

  file_data = rev1_data(fs);
  for (i = 0; i < 2; i++)
    {
      assert_true(svn_stringbuf_compare(data_of(file_data, reused[i]),
                                        data_of(file_data, fresh[i])));
      check_bytes(file_data, reused[i]);
      check_read_back(fs, reused[i]);
    }
  remove_fs(fs);
}

/* A writer opened while another one uses the space works in a space of
   its own; both reps come out as if written alone, and the space is
   free again for a third writer. */
static void
test_space_busy(void **state)
{
  svn_fs_fs__rep_write_options_t z5 = { FALSE, 1, 5 };
  svn_fs_fs__rep_write_space_t *space = svn_fs_fs__rep_write_space_create(
                                          pool);
  svn_stringbuf_t *a = random_text(250000, 31), *b = repetitive_text(230000);
  svn_fs_t *fs[3];
  apr_file_t *file[3];
  svn_fs_fs__rep_writer_t *writer[3];
  svn_fs_fs__rep_write_result_t result[3];
  svn_stringbuf_t *decoded;
  apr_size_t pos;
  int i;

  for (i = 0; i < 3; i++)
    {
      fs[i] = make_fs(8);
      file[i] = open_rev1(fs[i]);
      assert_null(svn_fs_fs__rep_writer_open(&writer[i], file[i], NULL, &z5,
                                             space, pool, pool));
      if (i == 1)
        {
          /* Interleaved with writer 0, which holds the space. */
          for (pos = 0; pos < b->len; )
            {
              apr_size_t n = b->len - pos < 30000 ? b->len - pos : 30000;
              assert_null(svn_fs_fs__rep_writer_write(writer[0],
                                                      a->data + pos, n));
              assert_null(svn_fs_fs__rep_writer_write(writer[1],
                                                      b->data + pos, n));
              pos += n;
            }
          assert_null(svn_fs_fs__rep_writer_write(writer[0], a->data + pos,
                                                  a->len - pos));
          assert_null(svn_fs_fs__rep_writer_finish(&result[1], writer[1],
                                                   pool));
          assert_null(svn_fs_fs__rep_writer_finish(&result[0], writer[0],
                                                   pool));
        }
    }
  assert_null(svn_fs_fs__rep_writer_write_all(&result[2], writer[2], b->data,
                                              b->len, pool));
  for (i = 0; i < 3; i++)
    {
      svn_stringbuf_t *data;

      assert_null(svn_io_file_close(file[i], pool));
      data = rev1_data(fs[i]);
      assert_null(svn_fs_fs__svndiff_decode_all(&decoded, data->data + 6,
                                                (apr_size_t)result[i].size,
                                                NULL, 0, pool, pool));
      assert_true(svn_stringbuf_compare(decoded, i == 0 ? a : b));
      remove_fs(fs[i]);
    }
  assert_int_equal(result[1].size, result[2].size);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_format6),
    cmocka_unit_test(test_format8),
    cmocka_unit_test(test_options_from_config),
    cmocka_unit_test(test_streaming),
    cmocka_unit_test(test_write_all),
    cmocka_unit_test(test_space_reuse),
    cmocka_unit_test(test_space_busy),
  };
  apr_initialize();
  pool = svn_pool_create(NULL);
  shared_space = svn_fs_fs__rep_write_space_create(pool);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
