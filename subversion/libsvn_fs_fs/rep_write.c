/* rep_write.c --- stream one representation into a proto-rev file
 * (rep_write.h).
 *
 * Writes the three parts of doc/format/representations.md §2:
 *
 *   header   "PLAIN\n" | "DELTA\n" | "DELTA <rev> <item> <size>\n"  (REP-2)
 *   data     PLAIN: the fulltext; DELTA: "SVN" version, then windows
 *   trailer  "ENDREP\n"                                             (REP-5)
 *
 * Call tree:
 *
 *   svn_fs_fs__rep_writer_open     header line (+ svndiff stream header)
 *   svn_fs_fs__rep_writer_write    hash, gather one window of fulltext
 *     flush_window                 PLAIN: write them; DELTA:
 *       read_source_view             next window of the base's fulltext
 *       svn_fs_fs__svndiff_encode_window
 *   svn_fs_fs__rep_writer_finish   last window, trailer, sizes, digests
 *
 * Target window K is paired with the base bytes [K*W, (K+1)*W), W =
 * WINDOW_SIZE (100 kB), exactly as the stock module pairs them: source
 * views then only move forward (REP-8) and readers keep about two windows
 * per chain link.  Edits that shift text by less than a window still find
 * most of their bytes in the aligned view.
 */
#include <string.h>

#include "svn_pools.h"
#include "svn_checksum.h"
#include "svn_delta.h"
#include "fsconf.h"
#include "rep_header.h"
#include "svndiff_enc.h"
#include "rep_write.h"

/* Fulltext bytes per svndiff window (and per PLAIN write). */
#define WINDOW_SIZE SVN_FS_FS__DELTA_WINDOW_SIZE

/* The memory a writer works in.  One space per svn_fs_t serves all its
   writers one after the other (a writer opened while another holds it
   gets a private one): with a space per writer, each large text grew its
   own matcher tables, section and window buffers in the writer's pool,
   and the allocator's free lists kept several such sets resident -- 1.7
   MB of tables alone at the peak of a maven-small load.  Buffers grow
   with what they hold, up to a window: a load writes mostly small texts
   and listings.  The space is reference-counted (the svn_fs_t, the
   writer using it) because their pools may go in either order. */
struct svn_fs_fs__rep_write_space_t
{
  apr_pool_t *pool;                        /* own root pool */
  int refs;
  svn_boolean_t busy;                      /* a writer uses it */
  svn_fs_fs__svndiff_encoder_t *encoder;   /* NULL until a DELTA rep */
  svn_fs_fs__heapbuf_t window;             /* gathered fulltext, < W */
  svn_fs_fs__heapbuf_t source;             /* current source view */
};

struct svn_fs_fs__rep_writer_t
{
  apr_file_t *file;
  svn_fs_fs__rep_write_options_t options;

  /* Base fulltext (NULL: none or exhausted) and where its next source
     view starts. */
  svn_stream_t *base;
  svn_filesize_t base_pos;

  /* Borrowed until finished (or the writer's pool is cleared). */
  svn_fs_fs__rep_write_space_t *space;
  svn_fs_fs__svndiff_encoder_t *encoder;   /* NULL for PLAIN */
  svn_fs_fs__heapbuf_t *window;            /* in SPACE */
  svn_fs_fs__heapbuf_t *source;            /* in SPACE */

  svn_checksum_ctx_t *md5;
  svn_checksum_ctx_t *sha1;

  apr_off_t offset;                        /* of the header line */
  apr_size_t header_len;
  svn_filesize_t data_len;                 /* data bytes written so far */
  svn_filesize_t expanded_size;            /* fulltext bytes seen so far */
  svn_boolean_t finished;
  apr_pool_t *pool;
};

void
svn_fs_fs__rep_write_options_init(svn_fs_fs__rep_write_options_t *options,
                                  const svn_fs_fs__data_t *ffd)
{
  int level = ffd->delta_compression_level;

  options->plain = FALSE;
  options->zlib_level = level > 0 ? (level > 9 ? 9 : level) : 0;
  if (level == SVN_FS_FS__COMPRESSION_LZ4)
    options->svndiff_version = 2;
  else if (level <= 0)
    options->svndiff_version = 0;
  else
    options->svndiff_version = 1;
}

static svn_error_t *
write_bytes(svn_fs_fs__rep_writer_t *w, const void *data, apr_size_t len)
{
  if (len == 0)
    return SVN_NO_ERROR;
  return svn_error_trace(svn_io_file_write_full(w->file, data, len, NULL,
                                                w->pool));
}

/* A new space with one reference. */
static svn_fs_fs__rep_write_space_t *
space_create(void)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  svn_fs_fs__rep_write_space_t *space = apr_pcalloc(pool, sizeof(*space));

  space->pool = pool;
  space->refs = 1;
  return space;
}

/* Pool cleanup: drop a reference to the space BATON, freeing it with
   the last one. */
static apr_status_t
space_unref(void *baton)
{
  svn_fs_fs__rep_write_space_t *space = baton;

  if (--space->refs > 0)
    return APR_SUCCESS;
  svn_fs_fs__heapbuf_free(&space->window);
  svn_fs_fs__heapbuf_free(&space->source);
  svn_pool_destroy(space->pool);         /* and the encoder with it */
  return APR_SUCCESS;
}

svn_fs_fs__rep_write_space_t *
svn_fs_fs__rep_write_space_create(apr_pool_t *owner_pool)
{
  svn_fs_fs__rep_write_space_t *space = space_create();

  apr_pool_cleanup_register(owner_pool, space, space_unref,
                            apr_pool_cleanup_null);
  return space;
}

svn_fs_fs__rep_write_space_t *
svn_fs_fs__rep_write_space_get(svn_fs_t *fs)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  if (!ffd->rep_write_space)
    ffd->rep_write_space = svn_fs_fs__rep_write_space_create(fs->pool);
  return ffd->rep_write_space;
}

/* Pool cleanup of a writer (BATON): hand its space back. */
static apr_status_t
release_space(void *baton)
{
  svn_fs_fs__rep_writer_t *w = baton;

  w->space->busy = FALSE;
  return space_unref(w->space);
}

/* Give W SHARED if that is idle, else a private space, until W is
   finished or its pool cleared; set up its buffers and, unless PLAIN,
   an encoder for a new stream. */
static svn_error_t *
take_space(svn_fs_fs__rep_writer_t *w, svn_fs_fs__rep_write_space_t *shared)
{
  svn_fs_fs__rep_write_space_t *space;

  if (shared && !shared->busy)
    {
      space = shared;
      space->refs++;
    }
  else
    space = space_create();
  space->busy = TRUE;
  w->space = space;
  apr_pool_cleanup_register(w->pool, w, release_space,
                            apr_pool_cleanup_null);
  w->window = &space->window;
  w->source = &space->source;
  w->window->len = 0;
  w->source->len = 0;
  if (w->options.plain)
    return SVN_NO_ERROR;
  if (space->encoder)
    SVN_ERR(svn_fs_fs__svndiff_encoder_reset(space->encoder,
                                             w->options.svndiff_version,
                                             w->options.zlib_level));
  else
    SVN_ERR(svn_fs_fs__svndiff_encoder_create(&space->encoder,
                                              w->options.svndiff_version,
                                              w->options.zlib_level,
                                              space->pool));
  w->encoder = space->encoder;
  return SVN_NO_ERROR;
}

/* The header line of the rep being opened (REP-2). */
static svn_stringbuf_t *
header_line(const svn_fs_fs__rep_write_base_t *base, svn_boolean_t plain,
            apr_pool_t *result_pool)
{
  svn_fs_fs__rep_header_t header;

  memset(&header, 0, sizeof(header));
  header.kind = plain ? svn_fs_fs__rep_plain
              : base ? svn_fs_fs__rep_delta : svn_fs_fs__rep_self_delta;
  if (base)
    {
      header.base_revision = base->revision;
      header.base_item_index = base->item_index;
      header.base_length = base->size;
    }
  return svn_fs_fs__rep_header_unparse(&header, result_pool);
}

svn_error_t *
svn_fs_fs__rep_writer_open(svn_fs_fs__rep_writer_t **writer,
                           apr_file_t *file,
                           const svn_fs_fs__rep_write_base_t *base,
                           const svn_fs_fs__rep_write_options_t *options,
                           svn_fs_fs__rep_write_space_t *space,
                           apr_pool_t *result_pool,
                           apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_writer_t *w = apr_pcalloc(result_pool, sizeof(*w));
  svn_stringbuf_t *header;

  SVN_ERR_ASSERT(!(options->plain && base));
  SVN_ERR_ASSERT(!base || (SVN_IS_VALID_REVNUM(base->revision)
                           && base->size >= 0 && base->fulltext));
  w->file = file;
  w->options = *options;
  w->pool = result_pool;
  w->base = base ? base->fulltext : NULL;
  SVN_ERR(take_space(w, space));
  w->md5 = svn_checksum_ctx_create(svn_checksum_md5, result_pool);
  w->sha1 = svn_checksum_ctx_create(svn_checksum_sha1, result_pool);
  SVN_ERR(svn_io_file_get_offset(&w->offset, file, scratch_pool));

  header = header_line(base, options->plain, scratch_pool);
  w->header_len = header->len;
  if (!options->plain)
    {
      svn_fs_fs__svndiff_encode_header(header, w->encoder);
      w->data_len = header->len - w->header_len;
    }
  SVN_ERR(write_bytes(w, header->data, header->len));
  *writer = w;
  return SVN_NO_ERROR;
}

/* Make BUF hold at least NEED bytes, NEED <= a window: at least double
   its capacity, so that a buffer filled in small steps is reallocated
   only a few times, but never beyond a window. */
static void
grow(svn_fs_fs__heapbuf_t *buf, apr_size_t need)
{
  apr_size_t want = buf->capacity * 2 > need ? buf->capacity * 2 : need;

  if (need > buf->capacity)
    svn_fs_fs__heapbuf_reserve(buf, want < WINDOW_SIZE ? want : WINDOW_SIZE);
}

/* W needs no more of its base: close the base's stream, which lets its
   reader free its buffers before the next rep is read (by the rep-sharing
   check, or as the next base). */
static svn_error_t *
drop_base(svn_fs_fs__rep_writer_t *w)
{
  svn_stream_t *base = w->base;

  w->base = NULL;
  return base ? svn_error_trace(svn_stream_close(base)) : SVN_NO_ERROR;
}

/* Read the base's next window into W->source (empty once the base has
   ended) and leave W->base_pos at its end.  HINT, the length of the
   target window, is a guess at the view's length: the buffer starts
   there and grows only while the base has more. */
static svn_error_t *
read_source_view(svn_filesize_t *sview_offset, svn_fs_fs__rep_writer_t *w,
                 apr_size_t hint)
{
  svn_fs_fs__heapbuf_t *src = w->source;
  apr_size_t len;

  *sview_offset = w->base_pos;
  src->len = 0;
  if (!w->base)
    return SVN_NO_ERROR;
  grow(src, hint > 4096 ? hint : 4096);
  do
    {
      /* The encoder may have grown the buffer past a window. */
      apr_size_t room = src->capacity < WINDOW_SIZE ? src->capacity
                                                    : WINDOW_SIZE;
      apr_size_t want = room - src->len;

      len = want;
      SVN_ERR(svn_stream_read_full(w->base, src->data + src->len, &len));
      src->len += len;
      if (len < want)
        break;    /* ended: dropped below, later windows get empty views */
      if (src->len < WINDOW_SIZE)
        grow(src, src->len + 1);
    }
  while (src->len < WINDOW_SIZE);
  w->base_pos += src->len;
  if (src->len < WINDOW_SIZE)
    SVN_ERR(drop_base(w));
  return SVN_NO_ERROR;
}

/* Write the LEN fulltext bytes at DATA (at most a window) as data. */
static svn_error_t *
flush_window(svn_fs_fs__rep_writer_t *w, const char *data, apr_size_t len)
{
  svn_filesize_t sview_offset;

  if (w->options.plain)
    {
      SVN_ERR(write_bytes(w, data, len));
      w->data_len += len;
    }
  else
    {
      svn_fs_fs__svndiff_window_bytes_t bytes;
      int i;

      /* DATA is the window buffer's contents or, while that is empty,
         the caller's bytes. */
      SVN_ERR_ASSERT(data == w->window->data || w->window->len == 0);
      SVN_ERR(read_source_view(&sview_offset, w, len));
      /* The window and source-view buffers are lent to the encoder for
         the window's sections: neither is needed again before the next
         window refills it. */
      SVN_ERR(svn_fs_fs__svndiff_encode_window_bytes(&bytes, w->encoder,
                                                     sview_offset,
                                                     w->source->data,
                                                     w->source->len,
                                                     data, len, w->source,
                                                     w->window));
      /* Straight from those buffers: the file is buffered. */
      for (i = 0; i < bytes.nparts; i++)
        {
          SVN_ERR(write_bytes(w, bytes.parts[i].data, bytes.parts[i].len));
          w->data_len += bytes.parts[i].len;
        }
      /* Scratch space for the encoder: empty, whatever it left there. */
      w->source->len = 0;
    }
  /* The window was written (or was empty, DATA being the caller's
     bytes): it takes the caller's next bytes. */
  w->window->len = 0;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rep_writer_write(svn_fs_fs__rep_writer_t *writer,
                            const char *data, apr_size_t len)
{
  SVN_ERR_ASSERT(!writer->finished);
  SVN_ERR(svn_checksum_update(writer->md5, data, len));
  SVN_ERR(svn_checksum_update(writer->sha1, data, len));
  writer->expanded_size += len;

  /* Whole windows straight from the caller's bytes, without a copy. */
  while (writer->window->len == 0 && len >= WINDOW_SIZE)
    {
      SVN_ERR(flush_window(writer, data, WINDOW_SIZE));
      data += WINDOW_SIZE;
      len -= WINDOW_SIZE;
    }
  while (len > 0)
    {
      apr_size_t room = WINDOW_SIZE - writer->window->len;
      apr_size_t take = len < room ? len : room;

      grow(writer->window, writer->window->len + take);
      memcpy(writer->window->data + writer->window->len, data, take);
      writer->window->len += take;
      data += take;
      len -= take;
      if (writer->window->len == WINDOW_SIZE)
        {
          SVN_ERR(flush_window(writer, writer->window->data,
                               writer->window->len));
        }
    }
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rep_writer_write_all(svn_fs_fs__rep_write_result_t *result,
                                svn_fs_fs__rep_writer_t *writer,
                                const char *data, apr_size_t len,
                                apr_pool_t *scratch_pool)
{
  SVN_ERR_ASSERT(!writer->finished && writer->expanded_size == 0);
  SVN_ERR(svn_checksum_update(writer->md5, data, len));
  SVN_ERR(svn_checksum_update(writer->sha1, data, len));
  writer->expanded_size = len;
  while (len > 0)
    {
      apr_size_t take = len < WINDOW_SIZE ? len : WINDOW_SIZE;

      SVN_ERR(flush_window(writer, data, take));
      data += take;
      len -= take;
    }
  return svn_error_trace(svn_fs_fs__rep_writer_finish(result, writer,
                                                      scratch_pool));
}

static svn_error_t *
stream_write(void *baton, const char *data, apr_size_t *len)
{
  return svn_error_trace(svn_fs_fs__rep_writer_write(baton, data, *len));
}

svn_stream_t *
svn_fs_fs__rep_writer_stream(svn_fs_fs__rep_writer_t *writer,
                             apr_pool_t *result_pool)
{
  svn_stream_t *stream = svn_stream_create(writer, result_pool);

  svn_stream_set_write(stream, stream_write);
  return stream;
}

/* Copy the final digest of CTX into DIGEST. */
static svn_error_t *
final_digest(unsigned char *digest, svn_checksum_ctx_t *ctx,
             apr_pool_t *scratch_pool)
{
  svn_checksum_t *checksum;

  SVN_ERR(svn_checksum_final(&checksum, ctx, scratch_pool));
  memcpy(digest, checksum->digest, svn_checksum_size(checksum));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__rep_writer_finish(svn_fs_fs__rep_write_result_t *result,
                             svn_fs_fs__rep_writer_t *writer,
                             apr_pool_t *scratch_pool)
{
  SVN_ERR_ASSERT(!writer->finished);
  writer->finished = TRUE;
  if (writer->window->len > 0)
    SVN_ERR(flush_window(writer, writer->window->data, writer->window->len));
  SVN_ERR(drop_base(writer));
  SVN_ERR(write_bytes(writer, SVN_FS_FS__REP_TRAILER,
                      SVN_FS_FS__REP_TRAILER_LEN));

  memset(result, 0, sizeof(*result));
  result->offset = writer->offset;
  result->size = writer->data_len;
  result->expanded_size = writer->expanded_size;
  result->total_len = (apr_off_t)writer->header_len + writer->data_len
                    + SVN_FS_FS__REP_TRAILER_LEN;
  SVN_ERR(final_digest(result->md5_digest, writer->md5, scratch_pool));
  SVN_ERR(final_digest(result->sha1_digest, writer->sha1, scratch_pool));
  apr_pool_cleanup_run(writer->pool, writer, release_space);
  return SVN_NO_ERROR;
}

void
svn_fs_fs__rep_write_result_to_rep(
  svn_fs_fs__rep_t *rep,
  const svn_fs_fs__rep_write_result_t *result)
{
  rep->size = result->size;
  rep->expanded_size = result->expanded_size;
  memcpy(rep->md5_digest, result->md5_digest, sizeof(rep->md5_digest));
  memcpy(rep->sha1_digest, result->sha1_digest, sizeof(rep->sha1_digest));
  rep->has_sha1 = TRUE;
}
