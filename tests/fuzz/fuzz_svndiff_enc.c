/* fuzz_svndiff_enc.c --- libFuzzer target: svndiff encoder round trip
 * (svndiff_enc.c, delta_match.c).
 *
 * Input layout:
 *   byte 0    bits 0-1 svndiff version (3 counts as 2), bits 2-5 zlib level
 *             (capped at 9), bit 6 "splice": the target becomes the source
 *             with the rest of the input inserted in its middle (so there
 *             is plenty to copy), bit 7 "small windows"
 *   byte 1    where the rest splits into source and target (a fraction)
 *   byte 2    window size when bit 7 is set: 1 + 4 * byte
 *   rest      source bytes, then target bytes
 * The encoded stream must decode to the target with our decoder and with
 * libsvn_delta's; anything else aborts.  Unlike the decoder targets this
 * one checks correctness, not just robustness.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>

#include "svn_pools.h"
#include "svn_delta.h"
#include "svndiff.h"
#include "svndiff_enc.h"

/* The target libsvn_delta makes of DIFF applied to SOURCE (NULL on
   error). */
static svn_stringbuf_t *
stock_decode(const svn_stringbuf_t *diff, const char *source,
             apr_size_t source_len, apr_pool_t *pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  svn_txdelta_window_handler_t handler;
  void *baton;
  svn_stream_t *parser;
  apr_size_t len = diff->len;
  svn_error_t *err;

  svn_txdelta_apply(svn_stream_from_stringbuf(
                      svn_stringbuf_ncreate(source, source_len, pool), pool),
                    svn_stream_from_stringbuf(out, pool), NULL, NULL, pool,
                    &handler, &baton);
  parser = svn_txdelta_parse_svndiff(handler, baton, TRUE, pool);
  err = svn_stream_write(parser, diff->data, &len);
  if (!err)
    err = svn_stream_close(parser);
  if (err)
    {
      svn_error_clear(err);
      return NULL;
    }
  return out;
}

/* Build the target described by the input (see the header). */
static svn_stringbuf_t *
make_target(const char *source, apr_size_t source_len, const char *rest,
            apr_size_t rest_len, int splice, apr_pool_t *pool)
{
  svn_stringbuf_t *t = svn_stringbuf_ncreate(rest, rest_len, pool);

  if (splice)
    {
      svn_stringbuf_insert(t, 0, source, source_len / 2);
      svn_stringbuf_appendbytes(t, source + source_len / 2,
                                source_len - source_len / 2);
    }
  return t;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static apr_pool_t *root;
  apr_pool_t *pool;
  svn_stringbuf_t *target, *diff, *ours, *stock;
  const char *rest = (const char *)data + 3;
  apr_size_t rest_len, source_len, window;
  int version, level;

  if (!root)
    {
      apr_initialize();
      root = svn_pool_create(NULL);
    }
  if (size < 3)
    return 0;
  version = (data[0] & 3) == 3 ? 2 : data[0] & 3;
  level = (data[0] >> 2) & 15;
  level = level > 9 ? 9 : level;
  window = (data[0] & 0x80) ? 1 + 4 * (apr_size_t)data[2] : 0;
  rest_len = size - 3;
  source_len = rest_len * data[1] / 255;

  pool = svn_pool_create(root);
  target = make_target(rest, source_len, rest + source_len,
                       rest_len - source_len, data[0] & 0x40, pool);
  if (svn_fs_fs__svndiff_encode_all(&diff, version, level, rest, source_len,
                                    target->data, target->len, window, pool,
                                    pool))
    abort();
  if (svn_fs_fs__svndiff_decode_all(&ours, diff->data, diff->len, rest,
                                    source_len, pool, pool)
      || !svn_stringbuf_compare(ours, target))
    abort();
  stock = stock_decode(diff, rest, source_len, pool);
  if (!stock || !svn_stringbuf_compare(stock, target))
    abort();
  svn_pool_destroy(pool);
  return 0;
}
