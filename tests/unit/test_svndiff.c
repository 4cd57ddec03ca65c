/* test_svndiff.c --- unit tests for svndiff.c (doc/format/svndiff.md).
 *
 * Three sources of input: the vectors in tests/vectors/{good,bad}/svndiff
 * (made by tests/vectors/gen_reps_vectors.py), streams the stock
 * libsvn_delta writes at test time (svndiff 0, 1 and 2, one and several
 * windows, compressible and random data), and the conversion to
 * libsvn_delta windows checked against libsvn_delta's own applier.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"
#include "svn_io.h"
#include "svn_delta.h"

#include "svndiff.h"

/* The base text every vector is applied to (see the generator). */
static const char vector_source[] = "0123456789abcdefghijklmnopqrstuvwxyz";

static apr_pool_t *pool;

/* Contents of DIR/NAME+SUFFIX, or NULL if missing. */
static svn_stringbuf_t *
slurp(const char *dir, const char *name, const char *suffix)
{
  svn_stringbuf_t *s;
  const char *path = apr_psprintf(pool, "%s/%s%s", dir, name, suffix);
  svn_error_t *err = svn_stringbuf_from_file2(&s, path, pool);
  if (err)
    {
      svn_error_clear(err);
      return NULL;
    }
  return s;
}

/* tests/vectors/KIND/svndiff */
static const char *
vector_dir(const char *kind)
{
  const char *top = getenv("top_srcdir");
  return apr_psprintf(pool, "%s/tests/vectors/%s/svndiff", top ? top : ".",
                      kind);
}

/* Names (without suffix) of the *.svndiff files in DIR. */
static apr_array_header_t *
vector_names(const char *dir)
{
  apr_array_header_t *names = apr_array_make(pool, 32, sizeof(char *));
  DIR *d = opendir(dir);
  struct dirent *e;

  assert_non_null(d);
  while ((e = readdir(d)) != NULL)
    {
      size_t n = strlen(e->d_name);
      if (n > 8 && strcmp(e->d_name + n - 8, ".svndiff") == 0)
        APR_ARRAY_PUSH(names, const char *) = apr_pstrndup(pool, e->d_name,
                                                           n - 8);
    }
  closedir(d);
  return names;
}

/* Numeric value of the error symbol NAME. */
static apr_status_t
error_code(const char *name)
{
  static const struct { const char *name; apr_status_t code; } codes[] = {
    { "SVN_ERR_SVNDIFF_INVALID_HEADER", SVN_ERR_SVNDIFF_INVALID_HEADER },
    { "SVN_ERR_SVNDIFF_CORRUPT_WINDOW", SVN_ERR_SVNDIFF_CORRUPT_WINDOW },
    { "SVN_ERR_SVNDIFF_INVALID_OPS", SVN_ERR_SVNDIFF_INVALID_OPS },
    { "SVN_ERR_SVNDIFF_UNEXPECTED_END", SVN_ERR_SVNDIFF_UNEXPECTED_END },
    { "SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA",
      SVN_ERR_SVNDIFF_INVALID_COMPRESSED_DATA },
  };
  size_t i;

  for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
    if (strcmp(codes[i].name, name) == 0)
      return codes[i].code;
  fail_msg("unknown error symbol %s", name);
  return 0;
}

static void
test_good_vectors(void **state)
{
  const char *dir = vector_dir("good");
  apr_array_header_t *names = vector_names(dir);
  int i;

  assert_true(names->nelts >= 10);
  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);
      svn_stringbuf_t *in = slurp(dir, name, ".svndiff");
      svn_stringbuf_t *expected = slurp(dir, name, ".expected");
      svn_stringbuf_t *out;
      svn_error_t *err;

      assert_non_null(expected);
      err = svn_fs_fs__svndiff_decode_all(&out, in->data, in->len,
                                          vector_source,
                                          sizeof(vector_source) - 1,
                                          pool, pool);
      if (err)
        fail_msg("%s: %s", name, err->message);
      if (!svn_stringbuf_compare(out, expected))
        fail_msg("%s: wrong output '%s'", name, out->data);
    }
}

static void
test_bad_vectors(void **state)
{
  const char *dir = vector_dir("bad");
  apr_array_header_t *names = vector_names(dir);
  int i;

  assert_true(names->nelts >= 15);
  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);
      svn_stringbuf_t *in = slurp(dir, name, ".svndiff");
      svn_stringbuf_t *expect = slurp(dir, name, ".expect");
      char code[64], rule[32];
      svn_stringbuf_t *out;
      svn_error_t *err;

      assert_non_null(expect);
      assert_int_equal(sscanf(expect->data, "%63s %31s", code, rule), 2);
      err = svn_fs_fs__svndiff_decode_all(&out, in->data, in->len,
                                          vector_source,
                                          sizeof(vector_source) - 1,
                                          pool, pool);
      if (!err)
        fail_msg("%s: accepted", name);
      if (err->apr_err != error_code(code)
          || !strstr(err->message, apr_psprintf(pool, "rule %s)", rule)))
        fail_msg("%s: got %d '%s', wanted %s %s", name, err->apr_err,
                 err->message, code, rule);
      svn_error_clear(err);
    }
}

/* Pseudo-random bytes; COMPRESSIBLE ones come from a small alphabet in
   short lines, like source code. */
static void
fill(char *buf, apr_size_t len, unsigned *seed, svn_boolean_t compressible)
{
  apr_size_t i;
  for (i = 0; i < len; i++)
    {
      *seed = *seed * 1103515245 + 12345;
      if (!compressible)
        buf[i] = (char)(*seed >> 16);
      else
        buf[i] = (*seed >> 16) % 40 ? (char)('a' + (*seed >> 16) % 8) : '\n';
    }
}

/* SOURCE with every 5000th byte range replaced and a block inserted. */
static svn_stringbuf_t *
mutate(const svn_stringbuf_t *source, unsigned *seed)
{
  svn_stringbuf_t *t = svn_stringbuf_dup(source, pool);
  char block[777];
  apr_size_t i;

  for (i = 0; i + 10 < t->len; i += 5000)
    fill(t->data + i, 10, seed, TRUE);
  fill(block, sizeof(block), seed, FALSE);
  svn_stringbuf_insert(t, t->len / 2, block, sizeof(block));
  return t;
}

/* The svndiff VERSION stream the stock library makes for SOURCE→TARGET. */
static svn_stringbuf_t *
stock_svndiff(const svn_stringbuf_t *source, const svn_stringbuf_t *target,
              int version)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  svn_txdelta_stream_t *delta;
  svn_txdelta_window_handler_t handler;
  void *baton;

  svn_txdelta2(&delta, svn_stream_from_stringbuf(
                         svn_stringbuf_dup(source, pool), pool),
               svn_stream_from_stringbuf(svn_stringbuf_dup(target, pool),
                                         pool), FALSE, pool);
  svn_txdelta_to_svndiff3(&handler, &baton, svn_stream_from_stringbuf(out,
                                                                      pool),
                          version, 5, pool);
  assert_null(svn_txdelta_send_txstream(delta, handler, baton, pool));
  return out;
}

static void
test_stock_streams(void **state)
{
  static const apr_size_t sizes[] = { 0, 1, 100, 70000, 350000 };
  unsigned seed = 42;
  size_t i;
  int version, random;

  for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    for (random = 0; random < 2; random++)
      for (version = 0; version <= 2; version++)
        {
          svn_stringbuf_t *src = svn_stringbuf_create_ensure(sizes[i], pool);
          svn_stringbuf_t *tgt, *diff, *out;
          svn_error_t *err;

          src->len = sizes[i];
          fill(src->data, src->len, &seed, !random);
          tgt = mutate(src, &seed);
          diff = stock_svndiff(src, tgt, version);
          err = svn_fs_fs__svndiff_decode_all(&out, diff->data, diff->len,
                                              src->data, src->len, pool,
                                              pool);
          if (err)
            fail_msg("size %zu v%d: %s", (size_t)sizes[i], version,
                     err->message);
          assert_true(svn_stringbuf_compare(out, tgt));
        }
}

/* Convert every window of DIFF (applied to SRC) to a libsvn_delta window
   and let libsvn_delta apply it; the result must be TGT. */
static void
check_txdelta_windows(const svn_stringbuf_t *diff, const svn_stringbuf_t *src,
                      const svn_stringbuf_t *tgt)
{
  const unsigned char *p = (const unsigned char *)diff->data + 4;
  const unsigned char *end = (const unsigned char *)diff->data + diff->len;
  svn_fs_fs__svndiff_buffers_t *bufs = svn_fs_fs__svndiff_buffers_create(pool);
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  int version;

  assert_null(svn_fs_fs__svndiff_parse_header(&version, diff->data,
                                              diff->len));
  while (p < end)
    {
      svn_fs_fs__svndiff_window_t w;
      svn_fs_fs__svndiff_sections_t s;
      svn_txdelta_window_t *tw;
      svn_boolean_t complete;
      apr_size_t tlen;

      assert_null(svn_fs_fs__svndiff_parse_window(&w, &complete, p,
                                                  end - p));
      assert_true(complete);
      assert_null(svn_fs_fs__svndiff_decode_sections(&s, &w, version,
                                                     p + w.header_len,
                                                     bufs));
      assert_null(svn_fs_fs__svndiff_to_txdelta(&tw, &w, &s, pool));
      tlen = tw->tview_len;
      svn_stringbuf_ensure(out, out->len + tlen);
      svn_txdelta_apply_instructions(tw, src->data + tw->sview_offset,
                                     out->data + out->len, &tlen);
      assert_int_equal(tlen, w.tview_len);
      out->len += tlen;
      p += w.header_len + w.ins_len + w.new_len;
    }
  assert_true(out->len == tgt->len
              && memcmp(out->data, tgt->data, out->len) == 0);
}

static void
test_to_txdelta(void **state)
{
  unsigned seed = 7;
  int version;

  for (version = 0; version <= 2; version++)
    {
      svn_stringbuf_t *src = svn_stringbuf_create_ensure(250000, pool);
      svn_stringbuf_t *tgt;
      src->len = 250000;
      fill(src->data, src->len, &seed, TRUE);
      tgt = mutate(src, &seed);
      check_txdelta_windows(stock_svndiff(src, tgt, version), src, tgt);
    }
}

/* Incomplete window headers are reported as such, not as errors. */
static void
test_incomplete_header(void **state)
{
  static const unsigned char hdr[] = { 0x81, 0x00, 0x05, 0x83 };
  svn_fs_fs__svndiff_window_t w;
  svn_boolean_t complete = TRUE;

  assert_null(svn_fs_fs__svndiff_parse_window(&w, &complete, hdr,
                                              sizeof(hdr)));
  assert_false(complete);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_stock_streams),
    cmocka_unit_test(test_to_txdelta),
    cmocka_unit_test(test_incomplete_header),
  };
  apr_initialize();
  pool = svn_pool_create(NULL);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
