/* test_rep_header.c --- unit tests for rep_header.c (REP-1 .. REP-4).
 *
 * Vectors: tests/vectors/good/rep_header/NAME.header parses to the fields
 * in NAME.expected ("<kind> [<rev> <item> <len>] <header size>");
 * tests/vectors/bad/rep_header/NAME.header fails with NAME.expect.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"
#include "svn_io.h"

#include "rep_header.h"
#include "test_util.h"

static apr_pool_t *pool;

/* The .expected form of H. */
static const char *
describe(const svn_fs_fs__rep_header_t *h)
{
  if (h->kind == svn_fs_fs__rep_plain)
    return apr_psprintf(pool, "plain %" APR_SIZE_T_FMT "\n", h->header_size);
  if (h->kind == svn_fs_fs__rep_self_delta)
    return apr_psprintf(pool, "self_delta %" APR_SIZE_T_FMT "\n", h->header_size);
  return apr_psprintf(pool, "delta %ld %" APR_UINT64_T_FMT " %"
                      SVN_FILESIZE_T_FMT " %" APR_SIZE_T_FMT "\n", h->base_revision,
                      h->base_item_index, h->base_length,
                      h->header_size);
}

/* Good vector NAME.header parses to the fields in NAME.expected. */
static void
check_good_vector(const svn_stringbuf_t *in, const char *name,
                  apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *expected = vector_load_sidecar(
    vector_dir("good", "rep_header", scratch_pool), name, ".expected",
    scratch_pool);
  svn_fs_fs__rep_header_t h;
  svn_error_t *err = svn_fs_fs__rep_header_parse(&h, in->data, in->len,
                                                 name);
  if (err)
    fail_msg("%s: %s", name, err->message);
  assert_string_equal(describe(&h), expected->data);
}

static void
test_good_vectors(void **state)
{
  vector_check_good("rep_header", ".header", 5, check_good_vector, pool);
}

static svn_error_t *
parse_bad_vector(const svn_stringbuf_t *in, const char *name,
                 apr_pool_t *scratch_pool)
{
  svn_fs_fs__rep_header_t h;

  return svn_fs_fs__rep_header_parse(&h, in->data, in->len, "here");
}

static void
test_bad_vectors(void **state)
{
  vector_check_bad("rep_header", ".header", 10, parse_bad_vector, pool);
}

/* Writing and re-reading gives the same header. */
static void
test_round_trip(void **state)
{
  static const svn_fs_fs__rep_header_t cases[] = {
    { svn_fs_fs__rep_plain, SVN_INVALID_REVNUM, 0, 0, 0 },
    { svn_fs_fs__rep_self_delta, SVN_INVALID_REVNUM, 0, 0, 0 },
    { svn_fs_fs__rep_delta, 0, 0, 0, 0 },
    { svn_fs_fs__rep_delta, 1234567, 89, 1000000000000LL, 0 },
  };
  size_t i;

  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      svn_stringbuf_t *text = svn_fs_fs__rep_header_unparse(&cases[i], pool);
      svn_fs_fs__rep_header_t h;

      assert_null(svn_fs_fs__rep_header_parse(&h, text->data, text->len,
                                              NULL));
      assert_int_equal(h.kind, cases[i].kind);
      assert_int_equal(h.header_size, text->len);
      if (h.kind == svn_fs_fs__rep_delta)
        {
          assert_int_equal(h.base_revision, cases[i].base_revision);
          assert_int_equal(h.base_item_index, cases[i].base_item_index);
          assert_int_equal(h.base_length, cases[i].base_length);
        }
    }
}

/* Only the first line counts, and it must end within the limit even when
   more data follows. */
static void
test_limits(void **state)
{
  char buf[200];
  svn_fs_fs__rep_header_t h;
  svn_error_t *err;

  memset(buf, 'x', sizeof(buf));
  memcpy(buf, "PLAIN\nDELTA\n", 12);
  assert_null(svn_fs_fs__rep_header_parse(&h, buf, sizeof(buf), NULL));
  assert_int_equal(h.kind, svn_fs_fs__rep_plain);

  memcpy(buf, "DELTA 1 2 3x", 12);
  buf[SVN_FS_FS__REP_HEADER_MAX + 5] = '\n';
  err = svn_fs_fs__rep_header_parse(&h, buf, sizeof(buf), NULL);
  assert_non_null(err);
  assert_int_equal(err->apr_err, SVN_ERR_FS_CORRUPT);
  svn_error_clear(err);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_limits),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
