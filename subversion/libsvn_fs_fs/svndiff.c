/* svndiff.c --- svndiff 0/1/2 window decoder (svndiff.h).
 *
 * Implements SVNDIFF-1 .. SVNDIFF-13 of doc/format/svndiff.md.  The
 * decoder works on whole windows held in memory; the caller (rep_read.c)
 * decides how to get the bytes there.  Every length read from the input is
 * compared against what is really available before it is used.
 */
#include <string.h>
#include <lz4.h>

#include "svn_pools.h"
#include "corrupt.h"
#include "inflate.h"
#include "svndiff.h"

/* Longest encoding of one instruction: opcode byte plus two varints. */
#define MAX_OP_BYTES 21

/* Result of decode_varint(). */
typedef enum varint_status_t { VARINT_OK, VARINT_SHORT, VARINT_TOO_BIG }
  varint_status_t;

/* Decode the big-endian base-128 number at *P (SVNDIFF-2), not reading
   at or beyond END, and advance *P past it. */
static varint_status_t
decode_varint(apr_uint64_t *value, const unsigned char **p,
              const unsigned char *end)
{
  const unsigned char *s = *p;
  apr_uint64_t v = 0;

  while (s < end)
    {
      unsigned char c = *s++;
      if (v >> 57)
        return VARINT_TOO_BIG;
      v = (v << 7) | (c & 0x7f);
      if (!(c & 0x80))
        {
          *value = v;
          *p = s;
          return VARINT_OK;
        }
    }
  return VARINT_SHORT;
}

svn_error_t *
svn_fs_fs__svndiff_parse_header(int *version, const void *data,
                                apr_size_t len)
{
  const unsigned char *p = data;

  if (len < SVN_FS_FS__SVNDIFF_HEADER_LEN || memcmp(p, "SVN", 3) != 0
      || p[3] > 2)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_INVALID_HEADER,
                                   "SVNDIFF-1", NULL,
                                   "Delta data does not start with an "
                                   "svndiff 0, 1 or 2 header");
  *version = p[3];
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__svndiff_parse_window(svn_fs_fs__svndiff_window_t *window,
                                svn_boolean_t *complete,
                                const void *data, apr_size_t len)
{
  const unsigned char *start = data, *p = data, *end = start + len;
  apr_uint64_t v[5];
  int i;

  *complete = FALSE;
  for (i = 0; i < 5; i++)
    {
      varint_status_t s = decode_varint(&v[i], &p, end);
      if (s == VARINT_SHORT && len < SVN_FS_FS__SVNDIFF_WINDOW_HEADER_MAX)
        return SVN_NO_ERROR;
      if (s != VARINT_OK)
        return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_CORRUPT_WINDOW,
                                       "SVNDIFF-2", NULL,
                                       "Window header number is too long");
    }

  /* SVNDIFF-4: views of sane size; section sizes are bounded by what
     these views can need (SVNDIFF-8), so they fit apr_size_t too. */
  if (v[0] > APR_INT64_MAX - SVN_FS_FS__SVNDIFF_MAX_VIEW
      || v[1] > SVN_FS_FS__SVNDIFF_MAX_VIEW
      || v[2] > SVN_FS_FS__SVNDIFF_MAX_VIEW
      || v[3] > (v[2] + 1) * MAX_OP_BYTES + SVN_FS_FS__SVNDIFF_HEADER_LEN * 3
      || v[4] > v[2] + 16)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_CORRUPT_WINDOW,
                                   "SVNDIFF-4", NULL,
                                   "Window sizes out of range (source view "
                                   "%" APR_UINT64_T_FMT "+%" APR_UINT64_T_FMT
                                   ", target view %" APR_UINT64_T_FMT ")",
                                   v[0], v[1], v[2]);

  window->sview_offset = (svn_filesize_t)v[0];
  window->sview_len = (apr_size_t)v[1];
  window->tview_len = (apr_size_t)v[2];
  window->ins_len = (apr_size_t)v[3];
  window->new_len = (apr_size_t)v[4];
  window->header_len = (apr_size_t)(p - start);
  *complete = TRUE;
  return SVN_NO_ERROR;
}

void
svn_fs_fs__svndiff_buffers_free(svn_fs_fs__svndiff_buffers_t *bufs)
{
  svn_fs_fs__heapbuf_free(&bufs->ins);
  svn_fs_fs__heapbuf_free(&bufs->new_data);
}

/* Pool cleanup: free the buffers of BATON, an svndiff_buffers_t. */
static apr_status_t
free_buffers(void *baton)
{
  svn_fs_fs__svndiff_buffers_free(baton);
  return APR_SUCCESS;
}

svn_fs_fs__svndiff_buffers_t *
svn_fs_fs__svndiff_buffers_create(apr_pool_t *result_pool)
{
  svn_fs_fs__svndiff_buffers_t *bufs = apr_pcalloc(result_pool,
                                                   sizeof(*bufs));

  apr_pool_cleanup_register(result_pool, bufs, free_buffers,
                            apr_pool_cleanup_null);
  return bufs;
}

/* Decode one compressed section IN (IN_LEN bytes) of svndiff VERSION 1 or
   2 (SVNDIFF-7): a varint with the original length, then the data, stored
   verbatim when it has exactly that length.  The original length may not
   exceed LIMIT (SVNDIFF-8).  *OUT points into IN or BUF. */
static svn_error_t *
decode_section(const unsigned char **out, apr_size_t *out_len, int version,
               const unsigned char *in, apr_size_t in_len, apr_size_t limit,
               svn_fs_fs__heapbuf_t *buf)
{
  const unsigned char *p = in, *end = in + in_len;
  apr_uint64_t orig;
  apr_size_t payload;

  if (decode_varint(&orig, &p, end) != VARINT_OK)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA,
                                   "SVNDIFF-7", NULL,
                                   "Compressed section lacks its length");
  if (orig > limit)
    return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA,
                                   "SVNDIFF-8", NULL,
                                   "Section expands to %" APR_UINT64_T_FMT
                                   " bytes, more than the window allows",
                                   orig);
  payload = (apr_size_t)(end - p);
  *out_len = (apr_size_t)orig;
  if (payload == orig)
    {
      *out = p;
      return SVN_NO_ERROR;
    }

  /* Grown in whole pages (never to 0 bytes: a NULL DATA is no buffer):
     sections are bounded by the window size, so a read reallocates a
     handful of times and keeps one copy of each buffer. */
  svn_fs_fs__heapbuf_reserve(buf, ((apr_size_t)orig + 4096)
                                  & ~(apr_size_t)4095);
  if (version == 1)
    {
      if (!svn_fs_fs__inflate((unsigned char *)buf->data, (apr_size_t)orig,
                              p, payload))
        return svn_fs_fs__corrupt_code(
                 SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA, "SVNDIFF-7", NULL,
                 "zlib data of a delta window is damaged");
    }
  else
    {
      int got = orig == 0 ? -1
              : LZ4_decompress_safe((const char *)p, buf->data,
                                    (int)payload, (int)orig);
      if (got < 0 || (apr_size_t)got != orig)
        return svn_fs_fs__corrupt_code(
                 SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA, "SVNDIFF-7", NULL,
                 "lz4 data of a delta window is damaged");
    }
  buf->len = (apr_size_t)orig;
  *out = (const unsigned char *)buf->data;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__svndiff_decode_sections(svn_fs_fs__svndiff_sections_t *sections,
                                   const svn_fs_fs__svndiff_window_t *window,
                                   int version, const unsigned char *body,
                                   svn_fs_fs__svndiff_buffers_t *bufs)
{
  if (version == 0)
    {
      sections->ins = body;
      sections->ins_len = window->ins_len;
      sections->new_data = body + window->ins_len;
      sections->new_len = window->new_len;
      return SVN_NO_ERROR;
    }

  SVN_ERR(decode_section(&sections->ins, &sections->ins_len, version, body,
                         window->ins_len,
                         (window->tview_len + 1) * MAX_OP_BYTES, &bufs->ins));
  SVN_ERR(decode_section(&sections->new_data, &sections->new_len, version,
                         body + window->ins_len, window->new_len,
                         window->tview_len, &bufs->new_data));
  return SVN_NO_ERROR;
}

/* An error for an instruction that breaks RULE. */
static svn_error_t *
bad_op(const char *rule, const char *what)
{
  return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_INVALID_OPS, rule, NULL,
                                 "Invalid delta instruction: %s", what);
}

/* Walk the instructions of SECTIONS for WINDOW, checking SVNDIFF-9 ..
   SVNDIFF-12.  If TBUF is set, also execute them (source copies from
   SBUF); if OPS is set, append an svn_txdelta_op_t per instruction and
   count source copies in *SRC_OPS; if DWIN is set, append the
   instructions to it. */
static svn_error_t *
walk_ops(const svn_fs_fs__svndiff_window_t *window,
         const svn_fs_fs__svndiff_sections_t *sections, char *tbuf,
         const char *sbuf, apr_array_header_t *ops, int *src_ops,
         svn_fs_fs__dwin_t *dwin)
{
  const unsigned char *p = sections->ins;
  const unsigned char *end = p + sections->ins_len;
  apr_size_t tpos = 0, npos = 0;

  while (p < end)
    {
      unsigned action = *p >> 6;
      apr_uint64_t len = *p++ & 0x3f, offset = 0;

      if (action == 3)
        return bad_op("SVNDIFF-9", "unknown opcode");
      if ((len == 0 && decode_varint(&len, &p, end) != VARINT_OK)
          || (action != svn_txdelta_new
              && decode_varint(&offset, &p, end) != VARINT_OK))
        return bad_op("SVNDIFF-9", "truncated instruction");
      if (len > window->tview_len - tpos)
        return bad_op("SVNDIFF-12", "writes past the target view");

      if (action == svn_txdelta_source)
        {
          if (offset > window->sview_len || len > window->sview_len - offset)
            return bad_op("SVNDIFF-10", "source copy outside the view");
          if (tbuf && len)
            memcpy(tbuf + tpos, sbuf + offset, (apr_size_t)len);
          if (src_ops)
            ++*src_ops;
        }
      else if (action == svn_txdelta_target)
        {
          if (offset >= tpos)
            return bad_op("SVNDIFF-11", "target copy from unwritten data");
          if (tbuf)
            svn_fs_fs__copy_within_target(tbuf, (apr_size_t)offset, tpos,
                                          (apr_size_t)len);
        }
      else
        {
          if (len > sections->new_len - npos)
            return bad_op("SVNDIFF-12", "runs past the new data");
          if (tbuf && len)
            memcpy(tbuf + tpos, sections->new_data + npos, (apr_size_t)len);
          offset = npos;
          npos += (apr_size_t)len;
        }

      if (ops)
        {
          svn_txdelta_op_t *op = apr_array_push(ops);
          op->action_code = action;
          op->offset = (apr_size_t)offset;
          op->length = (apr_size_t)len;
        }
      if (dwin)
        svn_fs_fs__dwin_push(dwin, (int)action, (apr_size_t)offset,
                             (apr_size_t)len,
                             action == svn_txdelta_new
                             ? (const char *)sections->new_data + offset
                             : NULL);
      tpos += (apr_size_t)len;
    }

  if (tpos != window->tview_len)
    return bad_op("SVNDIFF-12", "window leaves part of its target unset");
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__svndiff_apply(char *target,
                         const svn_fs_fs__svndiff_window_t *window,
                         const svn_fs_fs__svndiff_sections_t *sections,
                         const char *source)
{
  return svn_error_trace(walk_ops(window, sections, target, source, NULL,
                                  NULL, NULL));
}

svn_error_t *
svn_fs_fs__svndiff_to_txdelta(svn_txdelta_window_t **result,
                              const svn_fs_fs__svndiff_window_t *window,
                              const svn_fs_fs__svndiff_sections_t *sections,
                              apr_pool_t *result_pool)
{
  svn_txdelta_window_t *w = apr_pcalloc(result_pool, sizeof(*w));
  apr_array_header_t *ops = apr_array_make(result_pool, 16,
                                           sizeof(svn_txdelta_op_t));

  SVN_ERR(walk_ops(window, sections, NULL, NULL, ops, &w->src_ops, NULL));
  w->sview_offset = window->sview_offset;
  w->sview_len = window->sview_len;
  w->tview_len = window->tview_len;
  w->num_ops = ops->nelts;
  w->ops = (const svn_txdelta_op_t *)ops->elts;
  w->new_data = svn_string_ncreate((const char *)sections->new_data,
                                   sections->new_len, result_pool);
  *result = w;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__svndiff_to_dwin(svn_fs_fs__dwin_t *dwin,
                           const svn_fs_fs__svndiff_window_t *window,
                           const svn_fs_fs__svndiff_sections_t *sections)
{
  svn_fs_fs__dwin_reset(dwin, window->sview_offset, window->sview_len,
                        window->tview_len);
  /* Instructions take one to 21 bytes, most of them three or four. */
  svn_fs_fs__dwin_reserve(dwin, sections->ins_len / 4, sections->new_len);
  return svn_error_trace(walk_ops(window, sections, NULL, NULL, NULL, NULL,
                                  dwin));
}

/* An SVN_ERR_SVNDIFF_UNEXPECTED_END error (SVNDIFF-13). */
static svn_error_t *
truncated(void)
{
  return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_UNEXPECTED_END,
                                 "SVNDIFF-13", NULL,
                                 "Delta data ends inside a window");
}

svn_error_t *
svn_fs_fs__svndiff_decode_all(svn_stringbuf_t **target,
                              const char *data, apr_size_t len,
                              const char *source, apr_size_t source_len,
                              apr_pool_t *result_pool,
                              apr_pool_t *scratch_pool)
{
  const unsigned char *p = (const unsigned char *)data;
  const unsigned char *end = p + len;
  svn_fs_fs__svndiff_buffers_t *bufs
    = svn_fs_fs__svndiff_buffers_create(scratch_pool);
  svn_stringbuf_t *out = svn_stringbuf_create_empty(result_pool);
  int version = 0;

  SVN_ERR(svn_fs_fs__svndiff_parse_header(&version, p, len));
  p += SVN_FS_FS__SVNDIFF_HEADER_LEN;
  while (p < end)
    {
      svn_fs_fs__svndiff_window_t w;
      svn_fs_fs__svndiff_sections_t s;
      svn_boolean_t complete;

      SVN_ERR(svn_fs_fs__svndiff_parse_window(&w, &complete, p,
                                              (apr_size_t)(end - p)));
      if (!complete || w.ins_len + w.new_len > (apr_size_t)(end - p)
                                               - w.header_len)
        return truncated();
      if (w.sview_offset > (svn_filesize_t)source_len
          || w.sview_len > source_len - (apr_size_t)w.sview_offset)
        return svn_fs_fs__corrupt_code(SVN_ERR_SVNDIFF_CORRUPT_WINDOW,
                                       "SVNDIFF-5", NULL,
                                       "Source view beyond the base text");
      p += w.header_len;
      SVN_ERR(svn_fs_fs__svndiff_decode_sections(&s, &w, version, p, bufs));
      svn_stringbuf_ensure(out, out->len + w.tview_len);
      SVN_ERR(svn_fs_fs__svndiff_apply(out->data + out->len, &w, &s,
                                       source + w.sview_offset));
      out->len += w.tview_len;
      out->data[out->len] = '\0';
      p += w.ins_len + w.new_len;
    }
  *target = out;
  return SVN_NO_ERROR;
}
