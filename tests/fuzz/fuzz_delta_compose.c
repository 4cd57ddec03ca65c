/* fuzz_delta_compose.c --- libFuzzer target: window composition
 * (delta_compose.c).
 *
 * Input layout:
 *   byte 0    source length / 4 (the source bytes are a fixed pattern)
 *   byte 1    where the upper window's source view starts in the base
 *             window's target (a fraction), byte 2 its length (fraction)
 *   byte 3    where the base window's target starts in the text
 *   rest      instructions of the base window up to a 0xff byte, then
 *             those of the upper window: one byte (bits 6-7 the kind,
 *             bits 0-5 length - 1) and one parameter byte (source or
 *             target distance, or the new data byte to repeat)
 * Composing the upper window with the base window and applying the
 * result to the source must give the bytes of applying the base window,
 * then the upper window (a plain byte-by-byte applier here); anything
 * else aborts.  A composition that gives up is fine.  Like the encoder
 * target, this one checks correctness, not just robustness.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "delta_compose.h"

/* Byte-by-byte applier: W's target from SOURCE into OUT. */
static void
ref_apply(char *out, const svn_fs_fs__dwin_t *w, const char *source)
{
  apr_size_t i, k;

  for (i = 0; i < w->num_ops; i++)
    for (k = 0; k < w->ops[i].length; k++)
      {
        const svn_fs_fs__dop_t *op = &w->ops[i];
        out[op->tpos + k] = op->kind == svn_fs_fs__dop_source
                            ? source[op->offset + k]
                            : op->kind == svn_fs_fs__dop_new
                            ? w->new_data.data[op->offset + k]
                            : out[op->offset + k];
      }
}

/* Build W (source view SOFF + SLEN) from the instructions at *P (up to
   END or a 0xff byte, which is consumed). */
static void
build(svn_fs_fs__dwin_t *w, svn_filesize_t soff, apr_size_t slen,
      const uint8_t **p, const uint8_t *end)
{
  char data[64];

  svn_fs_fs__dwin_reset(w, soff, slen, 0);
  while (*p + 1 < end && **p != 0xff)
    {
      int kind = (*p)[0] >> 6;
      apr_size_t len = ((*p)[0] & 63) + 1, param = (*p)[1];
      apr_size_t t = svn_fs_fs__dwin_produced(w);

      *p += 2;
      if (kind == svn_fs_fs__dop_source && slen > 0)
        {
          apr_size_t off = param % slen;
          svn_fs_fs__dwin_push(w, kind, off,
                               len < slen - off ? len : slen - off, NULL);
        }
      else if (kind == svn_fs_fs__dop_target && t > 0)
        svn_fs_fs__dwin_push(w, kind, t - 1 - param % t, len, NULL);
      else
        {
          memset(data, (int)param, len);
          svn_fs_fs__dwin_push(w, svn_fs_fs__dop_new, 0, len, data);
        }
    }
  if (*p < end)
    ++*p;
  w->tview_len = svn_fs_fs__dwin_produced(w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const uint8_t *p = data + 4, *end = data + size;
  svn_fs_fs__dwin_t a = { 0 }, b = { 0 }, c = { 0 };
  apr_size_t slen, aoff, alen, i;
  svn_filesize_t btpos;
  char *source, *x, *expected, *got;

  if (size < 4)
    return 0;
  slen = (apr_size_t)data[0] * 4;
  btpos = data[3];
  build(&b, 0, slen, &p, end);
  aoff = b.tview_len * data[1] / 256;
  alen = (b.tview_len - aoff) * data[2] / 255;
  build(&a, btpos + aoff, alen, &p, end);

  source = malloc(slen + 1);
  x = malloc(b.tview_len + 1);
  expected = malloc(a.tview_len + 1);
  got = malloc(a.tview_len + 1);
  for (i = 0; i < slen; i++)
    source[i] = (char)(i * 7 + i / 251);
  ref_apply(x, &b, source);
  ref_apply(expected, &a, x + aoff);
  if (svn_fs_fs__dwin_compose(&c, &a, &b, btpos))
    {
      if (c.sview_offset + c.sview_len > slen
          || !svn_fs_fs__dwin_apply(got, &c, source + c.sview_offset)
          || memcmp(got, expected, a.tview_len) != 0)
        abort();
    }
  free(source);
  free(x);
  free(expected);
  free(got);
  svn_fs_fs__dwin_free(&a);
  svn_fs_fs__dwin_free(&b);
  svn_fs_fs__dwin_free(&c);
  return 0;
}
