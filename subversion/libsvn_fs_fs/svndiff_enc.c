/* svndiff_enc.c --- svndiff 0/1/2 window encoder (svndiff_enc.h).
 *
 * Writes what svndiff.c reads (doc/format/svndiff.md):
 *
 *   window := varint(sview-offset) varint(sview-len) varint(tview-len)
 *             varint(ins-len) varint(new-len) instructions new-data
 *
 * with each section, in versions 1 and 2, stored as varint(original
 * length) followed by the zlib / LZ4 form if that is strictly shorter,
 * else by the original bytes (SVNDIFF-7: a payload of exactly the
 * original length means "stored").  The instructions come from
 * delta_match.c; literal runs are gathered, in order, into the new-data
 * section (SVNDIFF-12).
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <lz4.h>

#include "svn_pools.h"
#include "svn_delta.h"
#include "delta_match.h"
#include "svndiff_enc.h"

/* Longest varint: 64 bits in 7-bit groups (SVNDIFF-2). */
#define MAX_VARINT_LEN 10

/* Shortest copies taken (delta_match.h), by what happens to the new data
   afterwards.  Measured on the 1420 modified and 782 added files of the
   first 800 revisions of maven-small (sum of stream sizes, svndiff.md
   §7): stored raw, every repeat pays, so short copies of both kinds;
   zlib already finds repeats within its 32 kB window, and short target
   copies only break up its input, so target copies must be long; LZ4's
   weaker matching still gains from short ones. */
#define MIN_SOURCE_RAW 12
#define MIN_TARGET_RAW 12
#define MIN_SOURCE_ZLIB 16
#define MIN_TARGET_ZLIB 128
#define MIN_SOURCE_LZ4 12
#define MIN_TARGET_LZ4 16

struct svn_fs_fs__svndiff_encoder_t
{
  int version;
  int zlib_level;
  svn_fs_fs__delta_matcher_t *matcher;

  /* One literal run: the instructions of a window without a source. */
  apr_array_header_t *literal;

  /* Heap memory that holds the matcher's tables while it looks for
     copies and then zlib's state while the sections are compressed: the
     two are never needed at once, and apart they made the writer's
     working memory (262 kB of tables + 268 kB of zlib at maven's window
     sizes) most of what a load's peak RSS had above stock's.  Reused from
     window to window, so neither allocates in the steady state (a zlib
     stream set up with malloc for every section cost 60-70 brk calls per
     revision of a load).  ZLIB_USED is the part zlib holds. */
  svn_fs_fs__heapbuf_t workspace;
  apr_size_t zlib_used;

  /* Raw instructions of the current window and their compressed form
     (version 1 and 2 only).  Reused from window to window and, through
     svn_fs_fs__svndiff_encoder_reset, from rep to rep. */
  svn_fs_fs__heapbuf_t ins;
  svn_fs_fs__heapbuf_t packed_ins;

  /* The window's new data gathered, and its compressed form, when the
     caller lends no buffers of its own for them (see
     svn_fs_fs__svndiff_encode_window_bytes): a rep writer lends its
     source view and window buffers, which hold nothing it needs once the
     copies are found, so these stay empty there. */
  svn_fs_fs__heapbuf_t new_data;
  svn_fs_fs__heapbuf_t packed_new;
};

/* Write V at DST as a varint: 7-bit groups, most significant first, the
   top bit set on all but the last byte (SVNDIFF-2).  Returns its length
   (at most MAX_VARINT_LEN). */
static apr_size_t
put_varint(char *dst, apr_uint64_t v)
{
  unsigned char buf[MAX_VARINT_LEN];
  int start = MAX_VARINT_LEN;

  buf[--start] = (unsigned char)(v & 0x7f);
  for (v >>= 7; v; v >>= 7)
    buf[--start] = (unsigned char)(0x80 | (v & 0x7f));
  memcpy(dst, buf + start, MAX_VARINT_LEN - start);
  return MAX_VARINT_LEN - start;
}

/* Set E's version and level, and its matcher's minimum copy lengths for
   them. */
static void
configure(svn_fs_fs__svndiff_encoder_t *e, int version, int zlib_level)
{
  e->version = version;
  e->zlib_level = zlib_level;
  if (version == 2)
    svn_fs_fs__delta_matcher_reset(e->matcher, MIN_SOURCE_LZ4,
                                   MIN_TARGET_LZ4);
  else if (version == 1 && zlib_level > 0)
    svn_fs_fs__delta_matcher_reset(e->matcher, MIN_SOURCE_ZLIB,
                                   MIN_TARGET_ZLIB);
  else
    svn_fs_fs__delta_matcher_reset(e->matcher, MIN_SOURCE_RAW,
                                   MIN_TARGET_RAW);
}

/* Pool cleanup: release the encoder's zlib state and buffers. */
static apr_status_t
free_encoder(void *baton)
{
  svn_fs_fs__svndiff_encoder_t *e = baton;

  svn_fs_fs__heapbuf_free(&e->workspace);
  svn_fs_fs__heapbuf_free(&e->ins);
  svn_fs_fs__heapbuf_free(&e->packed_ins);
  svn_fs_fs__heapbuf_free(&e->new_data);
  svn_fs_fs__heapbuf_free(&e->packed_new);
  return APR_SUCCESS;
}

svn_error_t *
svn_fs_fs__svndiff_encoder_create(svn_fs_fs__svndiff_encoder_t **encoder,
                                  int version, int zlib_level,
                                  apr_pool_t *result_pool)
{
  svn_fs_fs__svndiff_encoder_t *e;

  SVN_ERR_ASSERT(version >= 0 && version <= 2);
  SVN_ERR_ASSERT(zlib_level >= 0 && zlib_level <= 9);
  e = apr_pcalloc(result_pool, sizeof(*e));
  e->matcher = svn_fs_fs__delta_matcher_create(0, 0, &e->workspace,
                                               result_pool);
  configure(e, version, zlib_level);
  e->literal = apr_array_make(result_pool, 1, sizeof(svn_fs_fs__delta_op_t));
  APR_ARRAY_PUSH(e->literal, svn_fs_fs__delta_op_t).action
    = svn_fs_fs__delta_new;
  apr_pool_cleanup_register(result_pool, e, free_encoder,
                            apr_pool_cleanup_null);
  *encoder = e;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__svndiff_encoder_reset(svn_fs_fs__svndiff_encoder_t *encoder,
                                 int version, int zlib_level)
{
  SVN_ERR_ASSERT(version >= 0 && version <= 2);
  SVN_ERR_ASSERT(zlib_level >= 0 && zlib_level <= 9);
  configure(encoder, version, zlib_level);
  return SVN_NO_ERROR;
}

void
svn_fs_fs__svndiff_encode_header(svn_stringbuf_t *out,
                                 const svn_fs_fs__svndiff_encoder_t *encoder)
{
  char header[4] = { 'S', 'V', 'N', 0 };

  header[3] = (char)encoder->version;
  svn_stringbuf_appendbytes(out, header, sizeof(header));
}

/* Append the instruction for OP to INS (SVNDIFF-9 .. -12): action in the
   top two bits, a length of 1..63 in the low six, else 0 there and the
   length as a varint; copies then give their offset. */
static void
append_instruction(svn_fs_fs__heapbuf_t *ins,
                   const svn_fs_fs__delta_op_t *op)
{
  char bytes[1 + 2 * MAX_VARINT_LEN];
  apr_size_t len = 1;

  bytes[0] = (char)(op->action << 6);
  if (op->length < 64)
    bytes[0] = (char)(bytes[0] | (char)op->length);
  else
    len += put_varint(bytes + len, op->length);
  if (op->action != svn_fs_fs__delta_new)
    len += put_varint(bytes + len, op->offset);
  svn_fs_fs__heapbuf_append(ins, bytes, len);
}

/* A byte range: a section before or after compression. */
typedef struct range_t
{
  const char *data;
  apr_size_t len;
} range_t;

/* Fill E->ins with the raw instructions for OPS over TARGET (TARGET_LEN
   bytes) and set *NEW_DATA to the raw new data and *HOLDER to the buffer
   it was gathered in (NULL: it is TARGET itself).  TARGET is the new data
   when it is one literal run (every window without a source view under
   zlib: no copy of the whole window).  Else the literal runs are moved to
   the front of TARGET_BUF when TARGET is its start (TARGET_BUF is then
   non-NULL: the target is not needed once the copies are found, and each
   run moves towards the front, so in place is safe), or gathered in
   GATHER_BUF. */
static void
spell_ops(range_t *new_data, svn_fs_fs__heapbuf_t **holder,
          svn_fs_fs__svndiff_encoder_t *e, const apr_array_header_t *ops,
          const char *target, apr_size_t target_len,
          svn_fs_fs__heapbuf_t *target_buf, svn_fs_fs__heapbuf_t *gather_buf)
{
  int i;

  e->ins.len = 0;
  if (ops->nelts == 1
      && APR_ARRAY_IDX(ops, 0, svn_fs_fs__delta_op_t).action
         == svn_fs_fs__delta_new)
    {
      append_instruction(&e->ins, &APR_ARRAY_IDX(ops, 0,
                                                 svn_fs_fs__delta_op_t));
      new_data->data = target;
      new_data->len = target_len;
      *holder = NULL;
      return;
    }
  *holder = target_buf ? target_buf : gather_buf;
  (*holder)->len = 0;
  for (i = 0; i < ops->nelts; i++)
    {
      const svn_fs_fs__delta_op_t *op
        = &APR_ARRAY_IDX(ops, i, svn_fs_fs__delta_op_t);
      append_instruction(&e->ins, op);
      if (op->action != svn_fs_fs__delta_new)
        continue;
      if (target_buf)
        {
          memmove(target_buf->data + target_buf->len,
                  target_buf->data + op->offset, op->length);
          target_buf->len += op->length;
        }
      else
        svn_fs_fs__heapbuf_append(gather_buf, target + op->offset,
                                  op->length);
    }
  new_data->data = (*holder)->data;
  new_data->len = (*holder)->len;
}

/* zlib's memory for deflate at its default window and memory level
   (zconf.h: 128 kB for the window, 128 kB for the hash chains and
   pending output) plus room for its state structure. */
#define ZLIB_WORKSPACE ((apr_size_t)(256 + 16) * 1024)

/* zlib allocator: the next free part of the workspace of the encoder
   OPAQUE, or plain malloc should zlib ever ask for more than
   ZLIB_WORKSPACE (the workspace cannot move while zlib holds parts of
   it). */
static voidpf
zlib_alloc(voidpf opaque, uInt items, uInt size)
{
  svn_fs_fs__svndiff_encoder_t *e = opaque;
  apr_size_t bytes = (((apr_size_t)items * size) + 15) & ~(apr_size_t)15;
  char *at;

  if (bytes > e->workspace.capacity - e->zlib_used)
    return malloc(bytes);
  at = e->workspace.data + e->zlib_used;
  e->zlib_used += bytes;
  return at;
}

/* zlib deallocator: the workspace is reused as a whole, so only memory
   zlib_alloc took from malloc is freed. */
static void
zlib_free(voidpf opaque, voidpf address)
{
  svn_fs_fs__svndiff_encoder_t *e = opaque;
  const char *p = address;

  if (p < e->workspace.data || p >= e->workspace.data + e->workspace.capacity)
    free(address);
}

/* zlib-compress the LEN bytes at RAW into DST (room for BOUND bytes) at
   E's level, as compress2 would (same parameters, so the same bytes), with
   a stream whose state lives in E's workspace; *GOT the size. */
static svn_error_t *
deflate_section(apr_size_t *got, svn_fs_fs__svndiff_encoder_t *e, char *dst,
                apr_size_t bound, const char *raw, apr_size_t len)
{
  z_stream zs;
  int rc;

  memset(&zs, 0, sizeof(zs));
  zs.zalloc = zlib_alloc;
  zs.zfree = zlib_free;
  zs.opaque = e;
  svn_fs_fs__heapbuf_reserve(&e->workspace, ZLIB_WORKSPACE);
  e->zlib_used = 0;
  rc = deflateInit(&zs, e->zlib_level);
  if (rc == Z_OK)
    {
      zs.next_in = (Bytef *)raw;
      zs.avail_in = (uInt)len;
      zs.next_out = (Bytef *)dst;
      zs.avail_out = (uInt)bound;
      rc = deflate(&zs, Z_FINISH) == Z_STREAM_END ? Z_OK : Z_BUF_ERROR;
      *got = (apr_size_t)zs.total_out;
      deflateEnd(&zs);
    }
  if (rc != Z_OK)
    return svn_error_create(SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA, NULL,
                            "zlib failed to compress a delta window "
                            "section");
  return SVN_NO_ERROR;
}

/* Compress the LEN bytes at RAW (a section store_section() found worth
   trying) into DST (room for BOUND bytes) and set *PACKED_LEN; 0 means
   "not shorter, store RAW" (SVNDIFF-7). */
static svn_error_t *
compress_section(apr_size_t *packed_len, svn_fs_fs__svndiff_encoder_t *e,
                 char *dst, apr_size_t bound, const char *raw,
                 apr_size_t len, int version)
{
  *packed_len = 0;
  if (version == 1)
    SVN_ERR(deflate_section(packed_len, e, dst, bound, raw, len));
  else
    {
      int got = LZ4_compress_default(raw, dst, (int)len, (int)bound);
      if (got <= 0)
        return svn_error_create(SVN_ERR_LZ4_COMPRESSION_FAILED, NULL, NULL);
      *packed_len = (apr_size_t)got;
    }
  if (*packed_len >= len)
    *packed_len = 0;
  return SVN_NO_ERROR;
}

/* The version 1/2 form of the section RAW: its length, then its
   compressed form if strictly shorter, else RAW itself.  The length goes
   to PREFIX_SPACE (MAX_VARINT_LEN bytes) and is *PREFIX; *BODY is the
   compressed form, made in PACKED (grown as needed; it must not hold
   RAW), or RAW.  Version 1 leaves sections shorter than ZLIB_MIN
   uncompressed. */
static svn_error_t *
store_section(range_t *prefix, range_t *body, char *prefix_space,
              svn_fs_fs__heapbuf_t *packed, svn_fs_fs__svndiff_encoder_t *e,
              const range_t *raw, int version, int level,
              apr_size_t zlib_min)
{
  apr_size_t bound = version == 1 ? (apr_size_t)compressBound(raw->len)
                                  : (apr_size_t)LZ4_compressBound(
                                                  (int)raw->len);
  apr_size_t packed_len;

  prefix->data = prefix_space;
  prefix->len = put_varint(prefix_space, raw->len);
  packed_len = 0;
  if (raw->len > 0 && (version == 2 || (level > 0 && raw->len >= zlib_min)))
    {
      /* Only then: PACKED may be a lent buffer, not to be grown for
         nothing. */
      svn_fs_fs__heapbuf_reserve(packed, bound);
      SVN_ERR(compress_section(&packed_len, e, packed->data, bound,
                               raw->data, raw->len, version));
      packed->len = packed_len;
    }
  body->data = packed_len ? packed->data : raw->data;
  body->len = packed_len ? packed_len : raw->len;
  return SVN_NO_ERROR;
}

/* Append RANGE to BYTES's parts (empty ones are left out). */
static void
add_part(svn_fs_fs__svndiff_window_bytes_t *bytes, const range_t *range)
{
  if (range->len == 0)
    return;
  bytes->parts[bytes->nparts].data = range->data;
  bytes->parts[bytes->nparts].len = range->len;
  bytes->nparts++;
}

svn_error_t *
svn_fs_fs__svndiff_encode_window_bytes(
  svn_fs_fs__svndiff_window_bytes_t *bytes,
  svn_fs_fs__svndiff_encoder_t *encoder,
  svn_filesize_t sview_offset,
  const char *source, apr_size_t source_len,
  const char *target, apr_size_t target_len,
  svn_fs_fs__heapbuf_t *source_buf, svn_fs_fs__heapbuf_t *target_buf)
{
  const apr_array_header_t *ops;
  range_t ins, new_data, ins_prefix = { NULL, 0 }, new_prefix = { NULL, 0 };
  range_t header;
  char *h = bytes->header;
  svn_fs_fs__heapbuf_t *new_holder, *packed_new;
  svn_boolean_t target_lent = target_buf && target_len > 0
                              && target == target_buf->data;

  SVN_ERR_ASSERT(sview_offset >= 0);
  if (source_len == 0 && target_len > 0 && encoder->version == 1
      && encoder->zlib_level > 0)
    {
      /* No source view, zlib'd new data: the whole window is one literal
         run, no copies from earlier target bytes.  Stock writes such
         windows that way (every one of the 303 source-less windows of
         the synthetic history); the long repeats our matcher found there
         made our repositories 11 % smaller than stock's, a size
         difference the compatibility goal does not want, and zlib still
         catches repeats within its 32 kB window.  It also skips the
         matcher for every new file.  (Raw svndiff 0 and LZ4 keep the
         target copies: nothing else would find those repeats.) */
      svn_fs_fs__delta_op_t *op = &APR_ARRAY_IDX(encoder->literal, 0,
                                                 svn_fs_fs__delta_op_t);

      op->offset = 0;
      op->length = (apr_uint32_t)target_len;
      ops = encoder->literal;
    }
  else
    svn_fs_fs__delta_match(&ops, encoder->matcher, source, source_len,
                           target, target_len);
  /* From here on the source view is not needed, nor the target beyond
     its literal runs: the new data goes to the front of a lent target
     buffer or into the lent source buffer, and its compressed form into
     whichever lent buffer holds neither it nor the target.  A rep
     writer's window and source view thus double as the section buffers,
     which were 150 kB of a load's heap besides them. */
  spell_ops(&new_data, &new_holder, encoder, ops, target, target_len,
            target_lent ? target_buf : NULL,
            source_buf ? source_buf : &encoder->new_data);
  if (source_buf && new_holder != source_buf)
    packed_new = source_buf;
  else if (target_buf && !target_lent)
    packed_new = target_buf;
  else
    packed_new = &encoder->packed_new;
  ins.data = encoder->ins.data;
  ins.len = encoder->ins.len;
  if (encoder->version > 0)
    {
      range_t raw_ins = ins, raw_new = new_data;

      /* New data: zlib only from 512 bytes on, as stock's svndiff 1
         (SVNDIFF-7), which keeps small reps byte-identical with stock's.
         Instructions: whenever it helps, because our copy finder spells
         edits with more instruction bytes than stock's. */
      SVN_ERR(store_section(&ins_prefix, &ins, bytes->ins_prefix,
                            &encoder->packed_ins, encoder, &raw_ins,
                            encoder->version, encoder->zlib_level, 0));
      SVN_ERR(store_section(&new_prefix, &new_data, bytes->new_prefix,
                            packed_new, encoder, &raw_new, encoder->version,
                            encoder->zlib_level, 512));
    }

  h += put_varint(h, (apr_uint64_t)sview_offset);
  h += put_varint(h, source_len);
  h += put_varint(h, target_len);
  h += put_varint(h, ins_prefix.len + ins.len);
  h += put_varint(h, new_prefix.len + new_data.len);
  header.data = bytes->header;
  header.len = (apr_size_t)(h - bytes->header);
  bytes->nparts = 0;
  add_part(bytes, &header);
  add_part(bytes, &ins_prefix);
  add_part(bytes, &ins);
  add_part(bytes, &new_prefix);
  add_part(bytes, &new_data);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__svndiff_encode_window(svn_stringbuf_t *out,
                                 svn_fs_fs__svndiff_encoder_t *encoder,
                                 svn_filesize_t sview_offset,
                                 const char *source, apr_size_t source_len,
                                 const char *target, apr_size_t target_len)
{
  svn_fs_fs__svndiff_window_bytes_t bytes;
  int i;

  SVN_ERR(svn_fs_fs__svndiff_encode_window_bytes(&bytes, encoder,
                                                 sview_offset, source,
                                                 source_len, target,
                                                 target_len, NULL, NULL));
  for (i = 0; i < bytes.nparts; i++)
    svn_stringbuf_appendbytes(out, bytes.parts[i].data, bytes.parts[i].len);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__svndiff_encode_all(svn_stringbuf_t **result, int version,
                              int zlib_level,
                              const char *source, apr_size_t source_len,
                              const char *target, apr_size_t target_len,
                              apr_size_t window_size,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool)
{
  svn_fs_fs__svndiff_encoder_t *encoder;
  svn_stringbuf_t *out = svn_stringbuf_create_empty(result_pool);
  apr_size_t pos;

  if (window_size == 0)
    window_size = SVN_FS_FS__DELTA_WINDOW_SIZE;
  SVN_ERR(svn_fs_fs__svndiff_encoder_create(&encoder, version, zlib_level,
                                            scratch_pool));
  svn_fs_fs__svndiff_encode_header(out, encoder);
  for (pos = 0; pos < target_len; pos += window_size)
    {
      apr_size_t tlen = target_len - pos < window_size
                      ? target_len - pos : window_size;
      apr_size_t soff = pos < source_len ? pos : source_len;
      apr_size_t slen = source_len - soff < window_size
                      ? source_len - soff : window_size;
      SVN_ERR(svn_fs_fs__svndiff_encode_window(out, encoder, soff,
                                               source ? source + soff : NULL,
                                               slen, target + pos, tlen));
    }
  *result = out;
  return SVN_NO_ERROR;
}
