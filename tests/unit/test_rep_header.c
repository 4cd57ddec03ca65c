/* test_rep_header.c --- unit tests for rep_header.c (REP-1 .. REP-4).
 *
 * Vectors: tests/vectors/good/rep_header/NAME.header parses to the fields
 * in NAME.expected ("<kind> [<rev> <item> <len>] <header size>");
 * tests/vectors/bad/rep_header/NAME.header fails with NAME.expect.
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

#include "rep_header.h"

static apr_pool_t *pool;

static const char *
vector_dir(const char *kind)
{
  const char *top = getenv("top_srcdir");
  return apr_psprintf(pool, "%s/tests/vectors/%s/rep_header",
                      top ? top : ".", kind);
}

/* Names (without ".header") of the vectors in DIR. */
static apr_array_header_t *
vector_names(const char *dir)
{
  apr_array_header_t *names = apr_array_make(pool, 16, sizeof(char *));
  DIR *d = opendir(dir);
  struct dirent *e;

  assert_non_null(d);
  while ((e = readdir(d)) != NULL)
    {
      size_t n = strlen(e->d_name);
      if (n > 7 && strcmp(e->d_name + n - 7, ".header") == 0)
        APR_ARRAY_PUSH(names, const char *) = apr_pstrndup(pool, e->d_name,
                                                           n - 7);
    }
  closedir(d);
  return names;
}

static svn_stringbuf_t *
slurp(const char *dir, const char *name, const char *suffix)
{
  svn_stringbuf_t *s;
  assert_null(svn_stringbuf_from_file2(
                &s, apr_psprintf(pool, "%s/%s%s", dir, name, suffix), pool));
  return s;
}

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

static void
test_good_vectors(void **state)
{
  const char *dir = vector_dir("good");
  apr_array_header_t *names = vector_names(dir);
  int i;

  assert_true(names->nelts >= 5);
  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);
      svn_stringbuf_t *in = slurp(dir, name, ".header");
      svn_stringbuf_t *expected = slurp(dir, name, ".expected");
      svn_fs_fs__rep_header_t h;
      svn_error_t *err = svn_fs_fs__rep_header_parse(&h, in->data, in->len,
                                                     name);
      if (err)
        fail_msg("%s: %s", name, err->message);
      assert_string_equal(describe(&h), expected->data);
    }
}

static void
test_bad_vectors(void **state)
{
  const char *dir = vector_dir("bad");
  apr_array_header_t *names = vector_names(dir);
  int i;

  assert_true(names->nelts >= 10);
  for (i = 0; i < names->nelts; i++)
    {
      const char *name = APR_ARRAY_IDX(names, i, const char *);
      svn_stringbuf_t *in = slurp(dir, name, ".header");
      svn_stringbuf_t *expect = slurp(dir, name, ".expect");
      char code[64], rule[32];
      svn_fs_fs__rep_header_t h;
      svn_error_t *err;

      assert_int_equal(sscanf(expect->data, "%63s %31s", code, rule), 2);
      assert_string_equal(code, "SVN_ERR_FS_CORRUPT");
      err = svn_fs_fs__rep_header_parse(&h, in->data, in->len, "here");
      if (!err)
        fail_msg("%s: accepted", name);
      if (err->apr_err != SVN_ERR_FS_CORRUPT
          || !strstr(err->message, apr_psprintf(pool, "rule %s)", rule)))
        fail_msg("%s: got '%s', wanted %s", name, err->message, rule);
      svn_error_clear(err);
    }
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
  apr_initialize();
  pool = svn_pool_create(NULL);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
