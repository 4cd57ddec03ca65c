/* test_delta_compose.c --- unit tests for delta_compose.c.
 *
 * The property: for a base window B that produces bytes [BTPOS, BTPOS +
 * |B|) of a text X from a source S, and a window A whose source view lies
 * in that range, compose(A, B) applied to S gives what A gives applied to
 * X.  Windows are random (seeded, so failures repeat): source copies,
 * new data, target copies near and far (overlapping copies repeat a
 * pattern), empty windows and windows of new data only.  The expected
 * bytes come from a byte-by-byte applier written here, independent of
 * svn_fs_fs__dwin_apply().  Plus: a view outside the base's range is
 * refused, chains compose link by link, windows decoded from svndiff by
 * svn_fs_fs__svndiff_to_dwin() compose like hand-made ones, and a
 * window crafted to make composition quadratic is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"

#include "delta_compose.h"

/* A small deterministic generator (xorshift), so that runs repeat. */
static apr_uint64_t seed = 88172645463325252ULL;

static apr_size_t
rnd(apr_size_t n)
{
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return n ? (apr_size_t)(seed % n) : 0;
}

/* Reference applier: W's target from SOURCE, byte by byte, into OUT. */
static void
ref_apply(char *out, const svn_fs_fs__dwin_t *w, const char *source)
{
  apr_size_t i, k;

  for (i = 0; i < w->num_ops; i++)
    {
      const svn_fs_fs__dop_t *op = &w->ops[i];
      for (k = 0; k < op->length; k++)
        {
          char c;
          if (op->kind == svn_fs_fs__dop_source)
            c = source[op->offset + k];
          else if (op->kind == svn_fs_fs__dop_new)
            c = w->new_data.data[op->offset + k];
          else
            c = out[op->offset + k];
          out[op->tpos + k] = c;
        }
    }
}

/* Fill W with random ops: TLEN bytes of target from a source view of
   SLEN bytes at SOFF.  STYLE 0: any mix, 1: new data only, 2: mostly
   short target copies (runs and patterns). */
static void
random_window(svn_fs_fs__dwin_t *w, svn_filesize_t soff, apr_size_t slen,
              apr_size_t tlen, int style)
{
  apr_size_t t = 0;
  char data[300];

  svn_fs_fs__dwin_reset(w, soff, slen, tlen);
  while (t < tlen)
    {
      apr_size_t room = tlen - t, len = 1 + rnd(room < 200 ? room : 200);
      int kind = style == 1 ? svn_fs_fs__dop_new : (int)rnd(3);
      apr_size_t k;

      if (style == 2 && t > 0 && rnd(4))
        kind = svn_fs_fs__dop_target;
      if (kind == svn_fs_fs__dop_source && slen > 0)
        {
          apr_size_t off = rnd(slen);
          if (len > slen - off)
            len = slen - off;
          svn_fs_fs__dwin_push(w, kind, off, len, NULL);
        }
      else if (kind == svn_fs_fs__dop_target && t > 0)
        {
          /* Near copies overlap their own output. */
          apr_size_t back = rnd(3) ? 1 + rnd(t < 8 ? t : 8) : 1 + rnd(t);
          svn_fs_fs__dwin_push(w, kind, t - back, len, NULL);
        }
      else
        {
          for (k = 0; k < len; k++)
            data[k] = (char)('a' + rnd(26));
          svn_fs_fs__dwin_push(w, svn_fs_fs__dop_new, 0, len, data);
        }
      t += len;
    }
  assert_int_equal(svn_fs_fs__dwin_produced(w), tlen);
}

/* Check compose(A, B) against applying B, then A, for one random pair. */
static void
check_pair(int style_a, int style_b)
{
  svn_fs_fs__dwin_t a = { 0 }, b = { 0 }, c = { 0 };
  apr_size_t slen = 1 + rnd(3000), i;
  char *source = malloc(slen), *x, *expected, *got;
  apr_size_t bsoff = rnd(slen), bslen = rnd(slen - bsoff + 1);
  apr_size_t btlen = rnd(4) ? rnd(4000) : rnd(3);
  svn_filesize_t btpos = (svn_filesize_t)rnd(5000);
  apr_size_t aoff = rnd(btlen + 1), alen = rnd(btlen - aoff + 1);
  apr_size_t atlen = rnd(5) ? rnd(4000) : 0;

  for (i = 0; i < slen; i++)
    source[i] = (char)rnd(256);
  random_window(&b, bsoff, bslen, btlen, style_b);
  random_window(&a, btpos + aoff, alen, atlen, style_a);

  x = malloc(btlen + 1);
  expected = malloc(atlen + 1);
  got = malloc(atlen + 1);
  ref_apply(x, &b, source + bsoff);
  ref_apply(expected, &a, x + aoff);

  assert_true(svn_fs_fs__dwin_compose(&c, &a, &b, btpos));
  assert_int_equal(c.tview_len, atlen);
  assert_true(c.sview_offset >= (svn_filesize_t)bsoff);
  assert_true(c.sview_offset + c.sview_len <= bsoff + bslen);
  assert_true(c.src_ops > 0 || c.sview_len == 0);
  assert_true(svn_fs_fs__dwin_apply(got, &c, source + c.sview_offset));
  assert_memory_equal(got, expected, atlen);

  free(source);
  free(x);
  free(expected);
  free(got);
  svn_fs_fs__dwin_free(&a);
  svn_fs_fs__dwin_free(&b);
  svn_fs_fs__dwin_free(&c);
}

static void
test_random_pairs(void **state)
{
  int i;

  for (i = 0; i < 3000; i++)
    check_pair(i % 7 == 0 ? 1 : (i % 5 == 0 ? 2 : 0),
               i % 11 == 0 ? 1 : (i % 3 == 0 ? 2 : 0));
}

/* A chain of windows composed top-down gives the top's text. */
static void
test_random_chains(void **state)
{
  int round;

  for (round = 0; round < 200; round++)
    {
      enum { LINKS = 6, LEN = 2000 };
      svn_fs_fs__dwin_t w[LINKS], comp[2];
      char *texts[LINKS + 1], *got = malloc(LEN);
      int i, cur;

      memset(w, 0, sizeof(w));
      memset(comp, 0, sizeof(comp));
      /* texts[LINKS] is the bottom; texts[i] = apply(w[i], texts[i+1]). */
      texts[LINKS] = malloc(LEN);
      for (i = 0; i < LEN; i++)
        texts[LINKS][i] = (char)rnd(256);
      for (i = LINKS - 1; i >= 0; i--)
        {
          apr_size_t off = rnd(LEN / 2), len = rnd(LEN - off + 1);
          random_window(&w[i], off, len, LEN, (round + i) % 3);
          texts[i] = malloc(LEN);
          ref_apply(texts[i], &w[i], texts[i + 1] + off);
        }
      cur = -1;
      for (i = 1; i < LINKS; i++)
        {
          const svn_fs_fs__dwin_t *upper = cur < 0 ? &w[0] : &comp[cur];
          int next = cur == 0 ? 1 : 0;

          assert_true(svn_fs_fs__dwin_compose(&comp[next], upper, &w[i],
                                              0));
          cur = next;
        }
      assert_true(svn_fs_fs__dwin_apply(got, &comp[cur],
                                        texts[LINKS]
                                        + comp[cur].sview_offset));
      assert_memory_equal(got, texts[0], LEN);
      for (i = 0; i <= LINKS; i++)
        free(texts[i]);
      for (i = 0; i < LINKS; i++)
        svn_fs_fs__dwin_free(&w[i]);
      svn_fs_fs__dwin_free(&comp[0]);
      svn_fs_fs__dwin_free(&comp[1]);
      free(got);
    }
}

/* A source view not inside the range the base window produces is
   refused; at the edges it is accepted. */
static void
test_view_outside(void **state)
{
  svn_fs_fs__dwin_t a = { 0 }, b = { 0 }, c = { 0 };

  random_window(&b, 0, 0, 100, 1);
  random_window(&a, 1000, 100, 50, 0);
  assert_true(svn_fs_fs__dwin_compose(&c, &a, &b, 1000));
  assert_false(svn_fs_fs__dwin_compose(&c, &a, &b, 1001));
  assert_false(svn_fs_fs__dwin_compose(&c, &a, &b, 999 - 100));
  random_window(&a, 1001, 100, 50, 0);
  assert_false(svn_fs_fs__dwin_compose(&c, &a, &b, 1000));
  svn_fs_fs__dwin_free(&a);
  svn_fs_fs__dwin_free(&b);
  svn_fs_fs__dwin_free(&c);
}

/* A run (one byte repeated by a self-overlapping copy) stays one target
   copy in the composite instead of becoming one op per byte. */
static void
test_run_stays_compact(void **state)
{
  svn_fs_fs__dwin_t a = { 0 }, b = { 0 }, c = { 0 };
  char *got = malloc(100000), *x = malloc(100000);

  svn_fs_fs__dwin_reset(&b, 0, 0, 100000);
  svn_fs_fs__dwin_push(&b, svn_fs_fs__dop_new, 0, 3, "xyz");
  svn_fs_fs__dwin_push(&b, svn_fs_fs__dop_target, 0, 100000 - 3, NULL);
  svn_fs_fs__dwin_reset(&a, 0, 100000, 99990);
  svn_fs_fs__dwin_push(&a, svn_fs_fs__dop_source, 10, 99990, NULL);
  assert_true(svn_fs_fs__dwin_compose(&c, &a, &b, 0));
  assert_true(c.num_ops <= 4);
  ref_apply(x, &b, NULL);
  assert_true(svn_fs_fs__dwin_apply(got, &c, NULL));
  assert_memory_equal(got, x + 10, 99990);
  free(got);
  free(x);
  svn_fs_fs__dwin_free(&a);
  svn_fs_fs__dwin_free(&b);
  svn_fs_fs__dwin_free(&c);
}

/* Each op of a crafted base copies the one before it; resolving all of
   them would take time quadratic in their number.  Composition gives up
   (the caller then decodes the plain way) instead of hanging. */
static void
test_work_bounded(void **state)
{
  enum { N = 20000 };
  svn_fs_fs__dwin_t a = { 0 }, b = { 0 }, c = { 0 };
  apr_size_t i;

  svn_fs_fs__dwin_reset(&b, 0, 0, 2 * N);
  svn_fs_fs__dwin_push(&b, svn_fs_fs__dop_new, 0, 2, "ab");
  /* Target copies of 2 bytes from 1 or 2 bytes back, in turn: each op
     reads the bytes of the one before it, and no two ops join (their
     offsets do not continue). */
  for (i = 2; i < 2 * N; i += 2)
    svn_fs_fs__dwin_push(&b, svn_fs_fs__dop_target,
                         i - ((i / 2) % 2 ? 1 : 2), 2, NULL);
  assert_true(b.num_ops > N / 2);
  svn_fs_fs__dwin_reset(&a, 0, 2 * N, 2 * N);
  for (i = 0; i < 2 * N; i += 2)
    svn_fs_fs__dwin_push(&a, i % 4 ? svn_fs_fs__dop_source
                                   : svn_fs_fs__dop_new,
                         i, 2, "cd");
  assert_false(svn_fs_fs__dwin_compose(&c, &a, &b, 0));
  svn_fs_fs__dwin_free(&a);
  svn_fs_fs__dwin_free(&b);
  svn_fs_fs__dwin_free(&c);
}

/* Ops outside their views are refused by the applier. */
static void
test_apply_checks(void **state)
{
  svn_fs_fs__dwin_t w = { 0 };
  char out[16];

  svn_fs_fs__dwin_reset(&w, 0, 4, 8);
  svn_fs_fs__dwin_push(&w, svn_fs_fs__dop_source, 2, 8, NULL);
  assert_false(svn_fs_fs__dwin_apply(out, &w, "abcd"));
  svn_fs_fs__dwin_reset(&w, 0, 4, 8);
  svn_fs_fs__dwin_push(&w, svn_fs_fs__dop_source, 0, 4, NULL);
  assert_false(svn_fs_fs__dwin_apply(out, &w, "abcd"));   /* short */
  svn_fs_fs__dwin_push(&w, svn_fs_fs__dop_target, 4, 4, NULL);
  assert_false(svn_fs_fs__dwin_apply(out, &w, "abcd"));   /* unwritten */
  svn_fs_fs__dwin_free(&w);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_pairs),
    cmocka_unit_test(test_random_chains),
    cmocka_unit_test(test_view_outside),
    cmocka_unit_test(test_run_stays_compact),
    cmocka_unit_test(test_work_bounded),
    cmocka_unit_test(test_apply_checks),
  };
  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
