/* test_format.c --- unit tests for format.c (doc/format/format.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <apr_general.h>
#include "format.h"
#include "test_util.h"

/* Every good vector parses, and unparsing gives back the same bytes
   (the vectors are files written by stock svnadmin). */
static void
check_good_vector(const svn_stringbuf_t *text, const char *name,
                  apr_pool_t *pool)
{
  svn_fs_fs__format_t format;

  assert_null(svn_fs_fs__format_parse(&format, text->data, text->len, name));
  assert_string_equal(svn_fs_fs__format_unparse(&format, pool), text->data);
}

static void
test_good_vectors(void **state)
{
  vector_check_good("format", NULL, 1, check_good_vector, NULL);
}

static svn_error_t *
parse_bad_vector(const svn_stringbuf_t *text, const char *name,
                 apr_pool_t *pool)
{
  svn_fs_fs__format_t format;

  return svn_fs_fs__format_parse(&format, text->data, text->len, name);
}

static void
test_bad_vectors(void **state)
{
  vector_check_bad("format", NULL, 1, parse_bad_vector, NULL);
}

/* Decoded fields, table driven. */
static void
test_fields(void **state)
{
  static const struct {
    const char *text;
    int format, shard;
    svn_boolean_t logical;
  } cases[] = {
    { "1\n", 1, 0, FALSE },                      /* OLD-1: no options */
    { "2\n", 2, 0, FALSE },
    { "3\nlayout sharded 1000\n", 3, 1000, FALSE },
    { "4\nlayout linear\n", 4, 0, FALSE },
    { "6\nlayout sharded 1000\n", 6, 1000, FALSE },
    { "7\nlayout sharded 1000\naddressing logical\n", 7, 1000, TRUE },
    { "7\nlayout linear\naddressing physical\n", 7, 0, FALSE },
    { "8\nlayout sharded 4\naddressing logical\n", 8, 4, TRUE },
    { "8\n", 8, 0, FALSE },                     /* FORMAT-3/4 defaults */
    { "8\nlayout sharded 9\n\n\n", 8, 9, FALSE }, /* trailing blanks */
    { "7\nlayout sharded 100", 7, 100, FALSE },   /* no final LF */
  };
  size_t i;

  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      svn_fs_fs__format_t f;
      assert_null(svn_fs_fs__format_parse(&f, cases[i].text,
                                          strlen(cases[i].text), NULL));
      assert_int_equal(f.format, cases[i].format);
      assert_int_equal(f.max_files_per_dir, cases[i].shard);
      assert_int_equal(f.use_log_addressing, cases[i].logical);
    }
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_fields),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
