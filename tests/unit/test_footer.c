/* test_footer.c --- unit tests for footer.c: logical footer, physical
 * trailer and pack manifest codecs (doc/format/addressing.md FOOTER-*,
 * TRAILER-*, MANIFEST-*).  Table-driven; the good footer is the one of r0
 * of a stock-made format 7 repository (tests/vectors/good/addressing/r0-f7).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"

#include "footer.h"
#include "test_util.h"

static apr_pool_t *pool;

/* The footer of the stock r0 (73 text bytes + length byte 'I'). */
#define R0_FOOTER "107 4ee826c7290508829f5acb14d0e26d72 131 " \
                  "b1754ac6e481d792be0bcd2649b33b01"

/* Build "<prefix><text><len byte>" in BUF; returns the byte count. */
static apr_size_t
make_tail(unsigned char *buf, const char *prefix, const char *text,
          int len_byte)
{
  apr_size_t p = strlen(prefix), t = strlen(text);

  memcpy(buf, prefix, p);
  memcpy(buf + p, text, t);
  buf[p + t] = (unsigned char)(len_byte < 0 ? (int)t : len_byte);
  return p + t + 1;
}

static void
test_footer_good(void **state)
{
  unsigned char buf[512];
  char out[SVN_FS_FS__FOOTER_MAX_LEN];
  svn_fs_fs__footer_t f;
  apr_size_t len = make_tail(buf, "", R0_FOOTER, -1);

  assert_null(svn_fs_fs__footer_parse(&f, buf, len, 253, "t"));
  assert_int_equal(f.l2p_offset, 107);
  assert_int_equal(f.p2l_offset, 131);
  assert_int_equal(f.footer_offset, 253 - 74);
  assert_int_equal(f.l2p_md5[0], 0x4e);
  assert_int_equal(f.p2l_md5[15], 0x01);
  /* Round trip. */
  assert_int_equal(svn_fs_fs__footer_unparse(out, &f), len);
  assert_memory_equal(out, buf, len);
}

static void
test_footer_bad(void **state)
{
  static const struct { const char *text; int len_byte; apr_off_t size;
                        const char *rule; } cases[] = {
    { R0_FOOTER, 0, 253, "FOOTER-1" },            /* zero length       */
    { R0_FOOTER, 200, 253, "FOOTER-1" },          /* longer than tail  */
    { R0_FOOTER, -1, 50, "FOOTER-1" },            /* file too short    */
    { "107 4ee826c7290508829f5acb14d0e26d72 131", -1, 253, "FOOTER-2" },
    { "107 4ee826c7290508829f5acb14d0e26d7 131 "
      "b1754ac6e481d792be0bcd2649b33b01", -1, 253, "FOOTER-2" },
    { "107  4ee826c7290508829f5acb14d0e26d72 131 "
      "b1754ac6e481d792be0bcd2649b33b01", -1, 253, "FOOTER-2" },
    { "-107 4ee826c7290508829f5acb14d0e26d72 131 "
      "b1754ac6e481d792be0bcd2649b33b01", -1, 253, "FOOTER-2" },
    { "107 4ee826c7290508829f5acb14d0e26dXX 131 "
      "b1754ac6e481d792be0bcd2649b33b01", -1, 253, "FOOTER-2" },
    { R0_FOOTER " ", -1, 253, "FOOTER-2" },        /* trailing junk     */
    { "99999999999999999999 4ee826c7290508829f5acb14d0e26d72 131 "
      "b1754ac6e481d792be0bcd2649b33b01", -1, 253, "FOOTER-2" },
    { "131 4ee826c7290508829f5acb14d0e26d72 107 "
      "b1754ac6e481d792be0bcd2649b33b01", -1, 253, "FOOTER-3" },
    { "107 4ee826c7290508829f5acb14d0e26d72 180 "
      "b1754ac6e481d792be0bcd2649b33b01", -1, 253, "FOOTER-3" },
  };
  size_t k;

  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
    {
      unsigned char buf[512];
      svn_fs_fs__footer_t f;
      apr_size_t len = make_tail(buf, "", cases[k].text, cases[k].len_byte);
      apr_size_t tail = len < (apr_size_t)cases[k].size
                      ? len : (apr_size_t)cases[k].size;
      svn_error_t *err = svn_fs_fs__footer_parse(&f, buf + len - tail, tail,
                                                 cases[k].size, "t");

      vector_check_error(err, SVN_ERR_FS_INDEX_CORRUPTION, cases[k].rule,
                         apr_psprintf(pool, "footer case %zu", k));
    }
}

static void
test_trailer(void **state)
{
  static const struct { const char *tail; apr_off_t rev_len;
                        apr_off_t root, changes; const char *rule;
                        apr_off_t line; } cases[] = {
    { "cpath: /\n\n\n17 107\n", 115, 17, 107, NULL, 108 },
    { "x\n\n319 445\n", 1000, 319, 445, NULL, 992 },
    { "x\n\n319 445", 1000, 0, 0, "TRAILER-1" },      /* no final LF    */
    { "319 445\n", 8, 0, 0, "TRAILER-1" },            /* no line start  */
    { "x\n319  445\n", 1000, 0, 0, "TRAILER-1" },
    { "x\n319 445 1\n", 1000, 0, 0, "TRAILER-1" },
    { "x\n319\n", 1000, 0, 0, "TRAILER-1" },
    { "x\n-3 445\n", 1000, 0, 0, "TRAILER-1" },
    { "x\n995 445\n", 1000, 0, 0, "TRAILER-2" },      /* root in trailer */
    { "x\n3 999\n", 1000, 0, 0, "TRAILER-2" },
  };
  size_t k;

  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
    {
      apr_off_t root = -1, changes = -1, line = -1;
      svn_error_t *err = svn_fs_fs__trailer_parse(&root, &changes, &line,
                                                  cases[k].tail,
                                                  strlen(cases[k].tail),
                                                  cases[k].rev_len, "t");
      if (cases[k].rule == NULL)
        {
          assert_null(err);
          assert_int_equal(root, cases[k].root);
          assert_int_equal(changes, cases[k].changes);
          /* The trailer line, where the changed-path list must end. */
          assert_int_equal(line, cases[k].line);
        }
      else
        vector_check_error(err, SVN_ERR_FS_CORRUPT, cases[k].rule,
                           apr_psprintf(pool, "trailer case %zu", k));
    }
}

/* The manifest's line count is checked for the whole file: with a line
   too many or too few no line can be trusted to be its revision's. */
static void
test_manifest(void **state)
{
  static const struct { const char *text; int count; const char *rule; }
  cases[] = {
    { "0\n115\n685\n1533\n", 4, NULL },
    { "0\n115\n685\n1533", 4, NULL },          /* no final LF: line 4 bad */
    { "0\n115\n685\n", 4, "MANIFEST-1" },       /* short        */
    { "0\n115\n685\n1533\n9\n", 4, "MANIFEST-1" }, /* long      */
    { "0\n115\n685\n1533\n\n", 4, "MANIFEST-1" },  /* empty 5th  */
  };
  size_t k;

  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
    {
      apr_off_t *offsets;
      svn_error_t *err = svn_fs_fs__manifest_parse(&offsets, cases[k].text,
                                                   strlen(cases[k].text),
                                                   cases[k].count, 2000, "t",
                                                   pool);
      if (cases[k].rule == NULL)
        {
          assert_null(err);
          assert_int_equal(offsets[1], 115);
          assert_int_equal(offsets[4], 2000);
        }
      else
        vector_check_error(err, 0, cases[k].rule,
                           apr_psprintf(pool, "manifest case %zu", k));
    }
}

/* Everything else is the error of the revisions whose bytes it concerns:
   a damaged line or offset, or a pack file cut short, leaves the other
   revisions of the shard readable (issue 9). */
static void
test_manifest_bounds(void **state)
{
  static const struct { const char *text; apr_off_t size; int index;
                        const char *rule; apr_off_t start, end; } cases[] = {
    { "0\n115\n685\n1533\n", 2000, 0, NULL, 0, 115 },
    { "0\n115\n685\n1533\n", 2000, 3, NULL, 1533, 2000 },
    { "0\n115\n685\n1533", 2000, 1, NULL, 115, 685 },
    { "0\n115\n685\n1533", 2000, 2, "MANIFEST-1" },   /* needs line 4 */
    { "0\n115\n685\n1533", 2000, 3, "MANIFEST-1" },
    { "0\n115\n68a\n1533\n", 2000, 0, NULL, 0, 115 },
    { "0\n115\n68a\n1533\n", 2000, 1, "MANIFEST-1" },
    { "0\n115\n68a\n1533\n", 2000, 2, "MANIFEST-1" },
    { "0\n115\n68a\n1533\n", 2000, 3, NULL, 1533, 2000 },
    { "0\n115\n 685\n1533\n", 2000, 2, "MANIFEST-1" },
    { "1\n115\n685\n1533\n", 2000, 0, "MANIFEST-2" },  /* not from 0   */
    { "1\n115\n685\n1533\n", 2000, 1, NULL, 115, 685 },
    { "0\n685\n115\n1533\n", 2000, 1, "MANIFEST-2" },  /* unordered    */
    { "0\n685\n115\n1533\n", 2000, 0, NULL, 0, 685 },
    { "0\n685\n115\n1533\n", 2000, 2, NULL, 115, 1533 },
    { "0\n115\n685\n1533\n", 1533, 3, "MANIFEST-2" },  /* empty last   */
    { "0\n115\n685\n1533\n", 1000, 2, "MANIFEST-2" },  /* truncated    */
    { "0\n115\n685\n1533\n", 1000, 3, "MANIFEST-2" },
    { "0\n115\n685\n1533\n", 1000, 1, NULL, 115, 685 },
  };
  size_t k;

  for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
    {
      apr_off_t *offsets, start, end;
      svn_error_t *err;

      assert_null(svn_fs_fs__manifest_parse(&offsets, cases[k].text,
                                            strlen(cases[k].text), 4,
                                            cases[k].size, "t", pool));
      err = svn_fs_fs__manifest_bounds(&start, &end, offsets, 4,
                                       cases[k].index, 100, cases[k].size,
                                       "t");
      if (cases[k].rule == NULL)
        {
          assert_null(err);
          assert_int_equal(start, cases[k].start);
          assert_int_equal(end, cases[k].end);
        }
      else
        vector_check_error(err, 0, cases[k].rule,
                           apr_psprintf(pool, "bounds case %zu", k));
    }
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_footer_good),
    cmocka_unit_test(test_footer_bad),
    cmocka_unit_test(test_trailer),
    cmocka_unit_test(test_manifest),
    cmocka_unit_test(test_manifest_bounds),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
