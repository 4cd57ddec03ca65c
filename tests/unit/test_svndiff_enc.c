/* test_svndiff_enc.c --- unit tests for the svndiff writer (svndiff_enc.c,
 * delta_match.c; doc/format/svndiff.md §7).
 *
 * Every stream we write is decoded twice: by our own decoder (svndiff.c)
 * and by the stock libsvn_delta (svn_txdelta_parse_svndiff feeding
 * svn_txdelta_apply), an independent implementation.  Inputs: empty,
 * tiny, 1 MB random, repetitive text, edits against a base, a target
 * shorter and one longer than its base, and an input built to produce the
 * largest number of instructions; svndiff 0, 1 (zlib levels 0, 5, 9) and
 * 2.  On top: byte-exact golden streams that the stock module writes for
 * small files, the shape of the windows (size, non-decreasing source
 * views) and the compression achieved compared with libsvn_delta's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <malloc.h>

#include <apr_general.h>
#include "svn_pools.h"
#include "svn_io.h"
#include "svn_delta.h"
#include "svn_checksum.h"

#include "svndiff.h"
#include "svndiff_enc.h"
#include "delta_match.h"
#include "test_util.h"

static apr_pool_t *pool;

/* (version, zlib level) pairs every input is encoded with. */
static const int versions[][2] = { { 0, 0 }, { 1, 0 }, { 1, 5 }, { 1, 9 },
                                   { 2, 0 } };
#define N_VERSIONS (sizeof(versions) / sizeof(versions[0]))

/* Deterministic pseudo-random bytes. */
#define random_text(len, seed) test_random_text((len), (seed), pool)

/* LEN bytes of numbered source-like lines: repetitive, like real files. */
static svn_stringbuf_t *
repetitive_text(apr_size_t len)
{
  svn_stringbuf_t *s = svn_stringbuf_create_empty(pool);
  int n = 0;

  while (s->len < len)
    svn_stringbuf_appendcstr(s, apr_psprintf(pool,
                               "    if (item[%d] != NULL) count += %d;\n",
                               n % 500, n % 7)), n++;
  svn_stringbuf_chop(s, s->len - len);
  return s;
}

/* BASE with a few lines changed, a block inserted near the front (so
   later text shifts against the aligned source views), one deleted. */
static svn_stringbuf_t *
edited(const svn_stringbuf_t *base)
{
  svn_stringbuf_t *t = svn_stringbuf_dup(base, pool);
  apr_size_t i;

  for (i = 1000; i + 4 < t->len; i += 37000)
    memcpy(t->data + i, "EDIT", 4);
  if (t->len > 500)
    svn_stringbuf_insert(t, 300, "/* a new comment line */\n", 25);
  if (t->len > 200000)
    svn_stringbuf_remove(t, 150000, 2000);
  return t;
}

/* Apply DIFF to SOURCE with the stock libsvn_delta. */
static svn_stringbuf_t *
stock_apply(const svn_stringbuf_t *diff, const svn_stringbuf_t *source)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  svn_txdelta_window_handler_t handler;
  void *baton;
  svn_stream_t *parser;
  svn_error_t *err;

  svn_txdelta_apply(svn_stream_from_stringbuf(svn_stringbuf_dup(source,
                                                                pool),
                                              pool),
                    svn_stream_from_stringbuf(out, pool), NULL, NULL, pool,
                    &handler, &baton);
  parser = svn_txdelta_parse_svndiff(handler, baton, TRUE, pool);
  err = svn_stream_write(parser, diff->data, &(apr_size_t){ diff->len });
  if (!err)
    err = svn_stream_close(parser);
  if (err)
    fail_msg("stock decoder: %s", svn_error_root_cause(err)->message);
  return out;
}

/* Windows of DIFF: at most SVN_FS_FS__DELTA_WINDOW_SIZE target bytes each,
   source views within SOURCE_LEN and not moving backwards (SVNDIFF-6). */
static void
check_shape(const svn_stringbuf_t *diff, apr_size_t source_len)
{
  const unsigned char *p = (const unsigned char *)diff->data + 4;
  const unsigned char *end = (const unsigned char *)diff->data + diff->len;
  svn_filesize_t last_offset = 0;

  while (p < end)
    {
      svn_fs_fs__svndiff_window_t w;
      svn_boolean_t complete;

      assert_null(svn_fs_fs__svndiff_parse_window(&w, &complete, p,
                                                  end - p));
      assert_true(complete);
      assert_true(w.tview_len > 0
                  && w.tview_len <= SVN_FS_FS__DELTA_WINDOW_SIZE);
      assert_true(w.sview_offset >= last_offset);
      assert_true(w.sview_offset + w.sview_len <= source_len);
      last_offset = w.sview_offset;
      p += w.header_len + w.ins_len + w.new_len;
    }
  assert_true(p == end);
}

/* Encode SOURCE -> TARGET in every version, decode with both decoders,
   compare.  Returns the size of the svndiff 0 stream. */
static apr_size_t
round_trip(const char *what, const svn_stringbuf_t *source,
           const svn_stringbuf_t *target)
{
  apr_size_t v0_len = 0;
  size_t i;

  for (i = 0; i < N_VERSIONS; i++)
    {
      svn_stringbuf_t *diff, *ours, *stock;
      svn_error_t *err;

      assert_null(svn_fs_fs__svndiff_encode_all(
                    &diff, versions[i][0], versions[i][1], source->data,
                    source->len, target->data, target->len, 0, pool, pool));
      assert_int_equal(diff->data[3], versions[i][0]);
      check_shape(diff, source->len);
      err = svn_fs_fs__svndiff_decode_all(&ours, diff->data, diff->len,
                                          source->data, source->len, pool,
                                          pool);
      if (err)
        fail_msg("%s v%d: %s", what, versions[i][0], err->message);
      if (!svn_stringbuf_compare(ours, target))
        fail_msg("%s v%d/%d: our decoder gives other bytes", what,
                 versions[i][0], versions[i][1]);
      stock = stock_apply(diff, source);
      if (!svn_stringbuf_compare(stock, target))
        fail_msg("%s v%d/%d: stock decoder gives other bytes", what,
                 versions[i][0], versions[i][1]);
      if (i == 0)
        v0_len = diff->len;
    }
  return v0_len;
}

static void
test_empty_and_tiny(void **state)
{
  svn_stringbuf_t *empty = svn_stringbuf_create_empty(pool);

  round_trip("empty", empty, empty);
  round_trip("empty target", svn_stringbuf_create("base", pool), empty);
  round_trip("1 byte", empty, svn_stringbuf_create("x", pool));
  round_trip("tiny", empty, svn_stringbuf_create("hello\n", pool));
  round_trip("tiny vs base", svn_stringbuf_create("hello\n", pool),
             svn_stringbuf_create("hello, world\n", pool));
  round_trip("7 bytes (below one key)", svn_stringbuf_create("abcdefg",
                                                             pool),
             svn_stringbuf_create("abcdefg", pool));
}

static void
test_random(void **state)
{
  svn_stringbuf_t *empty = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *r = random_text(1024 * 1024, 1);
  apr_size_t len = round_trip("1 MB random", empty, r);

  /* Random data cannot shrink; the framing must stay small: 11 windows,
     each with a few header bytes and one instruction. */
  assert_true(len <= r->len + 11 * 16 + 4);
  round_trip("1 MB random vs itself edited", r, edited(r));
}

static void
test_repetitive(void **state)
{
  svn_stringbuf_t *empty = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *text = repetitive_text(300000);
  svn_stringbuf_t *zeros = svn_stringbuf_create_ensure(250000, pool);
  apr_size_t len;

  len = round_trip("repetitive text", empty, text);
  /* Target copies alone (svndiff 0) must find the 500-line period. */
  assert_true(len < text->len / 5);
  memset(zeros->data, 0, 250000);
  zeros->len = 250000;
  len = round_trip("zeros", empty, zeros);
  assert_true(len < 100);
  round_trip("period 3", empty, svn_stringbuf_create(
                                  "abcabcabcabcabcabcabcabcabcabcabcab",
                                  pool));
}

static void
test_edits(void **state)
{
  svn_stringbuf_t *base = repetitive_text(350000);
  svn_stringbuf_t *target = edited(base);
  svn_stringbuf_t *shorter = svn_stringbuf_ncreate(base->data, 120000,
                                                   pool);
  svn_stringbuf_t *longer = svn_stringbuf_dup(base, pool);
  apr_size_t len;

  len = round_trip("edited text", base, target);
  printf("# edited text: %zu bytes of svndiff 0\n", (size_t)len);
  assert_true(len < 2000);
  round_trip("shorter than base", base, shorter);
  svn_stringbuf_appendstr(longer, random_text(230000, 9));
  round_trip("longer than base", base, longer);
  round_trip("unrelated base", random_text(200000, 3),
             repetitive_text(200000));
}

/* A target of 16-byte pieces of the source separated by single random
   bytes: the most instructions per target byte the matcher emits. */
static void
test_many_instructions(void **state)
{
  svn_stringbuf_t *source = random_text(SVN_FS_FS__DELTA_WINDOW_SIZE, 5);
  svn_stringbuf_t *target = svn_stringbuf_create_empty(pool);
  apr_uint32_t seed = 77;
  apr_size_t pos = 0;

  while (target->len < 3 * SVN_FS_FS__DELTA_WINDOW_SIZE)
    {
      char c;
      svn_stringbuf_appendbytes(target, source->data + pos, 16);
      test_random_bytes(&c, 1, &seed);
      svn_stringbuf_appendbyte(target, c);
      pos = (pos + 4099) % (source->len - 16);
    }
  round_trip("many instructions", source, target);
}

/* The stock module's bytes for small files (taken from rev files that
   svnadmin 1.14 wrote): we write the same. */
static void
test_golden(void **state)
{
  static const struct { int version; const char *text; apr_size_t text_len;
                        const char *diff; apr_size_t diff_len; } cases[] = {
    { 0, "", 0, "SVN\0", 4 },
    { 2, "", 0, "SVN\2", 4 },
    { 0, "hello\n", 6, "SVN\0\0\0\6\1\6\x86hello\n", 16 },
    { 1, "hello\n", 6, "SVN\1\0\0\6\2\7\1\x86\6hello\n", 18 },
    { 2, "hello\n", 6, "SVN\2\0\0\6\2\7\1\x86\6hello\n", 18 },
  };
  size_t i;

  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      svn_stringbuf_t *diff;
      assert_null(svn_fs_fs__svndiff_encode_all(&diff, cases[i].version, 5,
                                                NULL, 0, cases[i].text,
                                                cases[i].text_len, 0, pool,
                                                pool));
      assert_int_equal(diff->len, cases[i].diff_len);
      assert_memory_equal(diff->data, cases[i].diff, diff->len);
    }
}

/* Executing the matcher's instructions by hand rebuilds the target, and
   each instruction keeps to the rules the decoder enforces. */
static void
test_matcher_ops(void **state)
{
  svn_fs_fs__delta_matcher_t *m = svn_fs_fs__delta_matcher_create(16, 16,
                                                                   NULL,
                                                                   pool);
  svn_stringbuf_t *source = repetitive_text(50000);
  svn_stringbuf_t *target = edited(repetitive_text(60000));
  svn_stringbuf_t *out = svn_stringbuf_create_ensure(target->len, pool);
  const apr_array_header_t *ops;
  int i, copies = 0;

  svn_fs_fs__delta_match(&ops, m, source->data, source->len, target->data,
                         target->len);
  for (i = 0; i < ops->nelts; i++)
    {
      const svn_fs_fs__delta_op_t *op
        = &APR_ARRAY_IDX(ops, i, svn_fs_fs__delta_op_t);
      apr_size_t k;

      assert_true(op->length > 0);
      switch (op->action)
        {
        case svn_fs_fs__delta_source:
          assert_true(op->offset + op->length <= source->len);
          svn_stringbuf_appendbytes(out, source->data + op->offset,
                                    op->length);
          copies++;
          break;
        case svn_fs_fs__delta_target:
          assert_true(op->offset < out->len);
          for (k = 0; k < op->length; k++)
            svn_stringbuf_appendbyte(out, out->data[op->offset + k]);
          copies++;
          break;
        default:
          assert_int_equal(op->offset, out->len);
          svn_stringbuf_appendbytes(out, target->data + op->offset,
                                    op->length);
        }
    }
  assert_true(svn_stringbuf_compare(out, target));
  assert_true(copies > 0);
}

/* An encoder reset for a new stream (svn_fs_fs__svndiff_encoder_reset)
   writes what a new encoder writes, though the previous stream left it a
   copy hint that would win a tie: the source view holds block B twice, at
   0 and at 1000; a new matcher copies the target B from 1000 (the later
   position the table keeps), one still following the previous window's
   alignment (source and target in step) would copy from 0. */
static void
test_encoder_reset(void **state)
{
  svn_stringbuf_t *b = random_text(1000, 41);
  svn_stringbuf_t *twice = svn_stringbuf_dup(b, pool);
  svn_stringbuf_t *other = random_text(5000, 42);
  svn_fs_fs__svndiff_encoder_t *reused, *fresh;
  svn_stringbuf_t *a1 = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *a2 = svn_stringbuf_create_empty(pool);
  size_t v;

  svn_stringbuf_appendstr(twice, b);
  for (v = 0; v < N_VERSIONS; v++)
    {
      int version = versions[v][0], level = versions[v][1];

      assert_null(svn_fs_fs__svndiff_encoder_create(&reused, 2, 0, pool));
      assert_null(svn_fs_fs__svndiff_encode_window(a1, reused, 0, other->data,
                                                   other->len, other->data,
                                                   other->len));
      assert_null(svn_fs_fs__svndiff_encoder_reset(reused, version, level));
      assert_null(svn_fs_fs__svndiff_encoder_create(&fresh, version, level,
                                                    pool));
      svn_stringbuf_setempty(a1);
      svn_stringbuf_setempty(a2);
      assert_null(svn_fs_fs__svndiff_encode_window(a1, reused, 0, twice->data,
                                                   twice->len, b->data,
                                                   b->len));
      assert_null(svn_fs_fs__svndiff_encode_window(a2, fresh, 0, twice->data,
                                                   twice->len, b->data,
                                                   b->len));
      assert_true(svn_stringbuf_compare(a1, a2));
    }
}

/* Size of the stream libsvn_delta writes for SOURCE -> TARGET. */
static apr_size_t
stock_size(const svn_stringbuf_t *source, const svn_stringbuf_t *target,
           int version, int level)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  svn_txdelta_stream_t *delta;
  svn_txdelta_window_handler_t handler;
  void *baton;

  svn_txdelta2(&delta, svn_stream_from_stringbuf(svn_stringbuf_dup(source,
                                                                   pool),
                                                 pool),
               svn_stream_from_stringbuf(svn_stringbuf_dup(target, pool),
                                         pool), FALSE, pool);
  svn_txdelta_to_svndiff3(&handler, &baton,
                          svn_stream_from_stringbuf(out, pool), version,
                          level, pool);
  assert_null(svn_txdelta_send_txstream(delta, handler, baton, pool));
  return out->len;
}

/* Our streams are not much larger than libsvn_delta's on the same input
   (the numbers are printed for doc/format/svndiff.md §7): at most 1/8
   plus 64 bytes more.  Measured worst cases: LZ4 text 79,612 vs 73,073
   (+9 %), zlib-9 of an edited text 747 vs 691 (+8 %). */
static void
test_compression_vs_stock(void **state)
{
  svn_stringbuf_t *empty = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *text = repetitive_text(400000);
  svn_stringbuf_t *random = random_text(400000, 11);
  const struct { const char *name; const svn_stringbuf_t *s, *t; } in[] = {
    { "text", empty, text },
    { "edited text", text, edited(text) },
    { "random", empty, random },
    { "edited random", random, edited(random) },
  };
  size_t i, v;

  for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
    for (v = 0; v < N_VERSIONS; v++)
      {
        int version = versions[v][0], level = versions[v][1];
        svn_stringbuf_t *ours;
        apr_size_t theirs = stock_size(in[i].s, in[i].t, version, level);

        assert_null(svn_fs_fs__svndiff_encode_all(
                      &ours, version, level, in[i].s->data, in[i].s->len,
                      in[i].t->data, in[i].t->len, 0, pool, pool));
        printf("# %-14s v%d/%d  ours %7zu  stock %7zu\n", in[i].name,
               version, level, (size_t)ours->len, (size_t)theirs);
        if (ours->len > theirs + theirs / 8 + 64)
          fail_msg("%s v%d/%d: ours %zu bytes, stock %zu", in[i].name,
                   version, level, (size_t)ours->len, (size_t)theirs);
      }
}

/* A window without a source is written as literals only under svndiff 1
   with zlib, as stock writes it: a 40 kB block repeated 60 kB later
   (beyond zlib's reach) is not turned into a target copy, so the stream
   is as large as stock's, not 40 % smaller (repository sizes within a
   few percent of stock's). */
static void
test_sourceless_like_stock(void **state)
{
  svn_stringbuf_t *empty = svn_stringbuf_create_empty(pool);
  svn_stringbuf_t *block = random_text(40000, 21);
  svn_stringbuf_t *target = svn_stringbuf_dup(block, pool);
  int level;

  svn_stringbuf_appendstr(target, random_text(20000, 22));
  svn_stringbuf_appendstr(target, block);
  for (level = 1; level <= 9; level += 4)
    {
      svn_stringbuf_t *ours;
      apr_size_t theirs = stock_size(empty, target, 1, level);

      assert_null(svn_fs_fs__svndiff_encode_all(&ours, 1, level, NULL, 0,
                                                target->data, target->len,
                                                0, pool, pool));
      printf("# far repeat     v1/%d  ours %7zu  stock %7zu\n", level,
             (size_t)ours->len, (size_t)theirs);
      assert_true(ours->len + theirs / 20 >= theirs);
      assert_true(ours->len <= theirs + 64);
    }
}

/* Bytes malloc has handed out and not got back, mapped chunks included. */
static size_t
heap_in_use(void)
{
  struct mallinfo2 mi = mallinfo2();

  return mi.uordblks + mi.hblkhd;
}

/* The matcher's tables and zlib's state share the encoder's workspace:
   encoding a full window with a full source view under zlib takes the
   tables' ~550 kB of heap, not that plus zlib's ~270 kB (measured as the
   heap bytes in use, which the pools' memory is not part of). */
static void
test_workspace_shared(void **state)
{
  svn_stringbuf_t *source = repetitive_text(SVN_FS_FS__DELTA_WINDOW_SIZE);
  svn_stringbuf_t *target = edited(source);
  svn_stringbuf_t *out = svn_stringbuf_create_ensure(200000, pool);
  svn_fs_fs__svndiff_encoder_t *e;
  size_t before, grown;

  before = heap_in_use();
  assert_null(svn_fs_fs__svndiff_encoder_create(&e, 1, 5, pool));
  assert_null(svn_fs_fs__svndiff_encode_window(out, e, 0, source->data,
                                               source->len, target->data,
                                               SVN_FS_FS__DELTA_WINDOW_SIZE));
  grown = heap_in_use() - before;
  printf("# encoder heap after one full window: %zu bytes\n", grown);
  assert_true(grown >= 500 * 1024);      /* the tables are there */
  assert_true(grown < 700 * 1024);       /* zlib's state is not extra */
}

/* The bytes of one window encoded by E with the buffers SOURCE_BUF and
   TARGET_BUF lent (either may be NULL). */
static svn_stringbuf_t *
lent_window(svn_fs_fs__svndiff_encoder_t *e, const char *source,
            apr_size_t source_len, const char *target, apr_size_t target_len,
            svn_fs_fs__heapbuf_t *source_buf, svn_fs_fs__heapbuf_t *target_buf)
{
  svn_fs_fs__svndiff_window_bytes_t bytes;
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  int i;

  assert_null(svn_fs_fs__svndiff_encode_window_bytes(&bytes, e, 0, source,
                                                     source_len, target,
                                                     target_len, source_buf,
                                                     target_buf));
  for (i = 0; i < bytes.nparts; i++)
    svn_stringbuf_appendbytes(out, bytes.parts[i].data, bytes.parts[i].len);
  return out;
}

/* Fill BUF with LEN bytes of DATA. */
static void
fill(svn_fs_fs__heapbuf_t *buf, const char *data, apr_size_t len)
{
  buf->len = 0;
  svn_fs_fs__heapbuf_append(buf, data, len);
}

/* A window's new data and its compressed form can go into buffers the
   caller lends (a rep writer's window and source view) instead of the
   encoder's own: the bytes are the same whether the target lies at the
   start of the lent target buffer (compacted in place) or elsewhere (the
   idle target buffer then takes the compressed form), with a source view
   and without, in every version; and the encoder then grows no buffers
   for them (measured as heap bytes in use). */
static void
test_lent_buffers(void **state)
{
  svn_stringbuf_t *source = repetitive_text(SVN_FS_FS__DELTA_WINDOW_SIZE);
  svn_stringbuf_t *target = edited(source);
  size_t v;

  /* Half of the target new: 50 kB of new data to gather and compress. */
  memcpy(target->data + 50000, random_text(50000, 31)->data, 50000);
  svn_stringbuf_chop(target, target->len - SVN_FS_FS__DELTA_WINDOW_SIZE);
  for (v = 0; v < N_VERSIONS; v++)
    {
      int version = versions[v][0], level = versions[v][1];
      int with_source;

      for (with_source = 0; with_source < 2; with_source++)
        {
          const char *src = with_source ? source->data : NULL;
          apr_size_t src_len = with_source ? source->len : 0;
          svn_fs_fs__svndiff_encoder_t *e;
          svn_fs_fs__heapbuf_t sbuf = { 0 }, tbuf = { 0 };
          svn_stringbuf_t *plain, *in_place, *elsewhere;
          size_t before, grown_own, grown_lent;

          /* Reference: the encoder's own buffers. */
          assert_null(svn_fs_fs__svndiff_encoder_create(&e, version, level,
                                                        pool));
          before = heap_in_use();
          plain = lent_window(e, src, src_len, target->data, target->len,
                              NULL, NULL);
          grown_own = heap_in_use() - before;

          /* The target at the start of the lent target buffer. */
          assert_null(svn_fs_fs__svndiff_encoder_create(&e, version, level,
                                                        pool));
          fill(&sbuf, source->data, src_len);
          fill(&tbuf, target->data, target->len);
          svn_fs_fs__heapbuf_reserve(&sbuf, 2 * target->len);
          svn_fs_fs__heapbuf_reserve(&tbuf, 2 * target->len);
          before = heap_in_use();
          in_place = lent_window(e, with_source ? sbuf.data : NULL, src_len,
                                 tbuf.data, target->len, &sbuf, &tbuf);
          grown_lent = heap_in_use() - before;
          assert_true(svn_stringbuf_compare(plain, in_place));

          /* The target elsewhere, the target buffer idle. */
          fill(&sbuf, source->data, src_len);
          tbuf.len = 0;
          elsewhere = lent_window(e, with_source ? sbuf.data : NULL,
                                  src_len, target->data, target->len, &sbuf,
                                  &tbuf);
          assert_true(svn_stringbuf_compare(plain, elsewhere));

          printf("# lent v%d/%d %s source: encoder heap %zu own, %zu lent\n",
                 version, level, with_source ? "with" : "without",
                 grown_own, grown_lent);
          /* Own buffers: at least the compressed form of the new data (or
             the gathered new data, uncompressed versions with a source). */
          if (version > 0 && level + version > 1)
            assert_true(grown_lent + 40000 <= grown_own);
          if (version == 0 && with_source)
            assert_true(grown_lent + 40000 <= grown_own);
          svn_fs_fs__heapbuf_free(&sbuf);
          svn_fs_fs__heapbuf_free(&tbuf);
        }
    }
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_empty_and_tiny),
    cmocka_unit_test(test_random),
    cmocka_unit_test(test_repetitive),
    cmocka_unit_test(test_edits),
    cmocka_unit_test(test_many_instructions),
    cmocka_unit_test(test_golden),
    cmocka_unit_test(test_matcher_ops),
    cmocka_unit_test(test_encoder_reset),
    cmocka_unit_test(test_compression_vs_stock),
    cmocka_unit_test(test_sourceless_like_stock),
    cmocka_unit_test(test_workspace_shared),
    cmocka_unit_test(test_lent_buffers),
  };
  apr_initialize();
  pool = svn_pool_create(NULL);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
