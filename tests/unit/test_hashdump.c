/* test_hashdump.c --- unit tests for hashdump.c (doc/format/revprops.md,
 * "Hash dump"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_hash.h"
#include "hashdump.h"
#include "test_util.h"

/* Good vectors (revprop files written by stock svn) parse, and writing
   the result back reproduces them byte for byte (stock key order). */
static void
check_good_vector(const svn_stringbuf_t *text, const char *name,
                  apr_pool_t *pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  apr_hash_t *props;

  assert_null(svn_fs_fs__hashdump_parse(&props, NULL, text->data, text->len,
                                        name, pool));
  svn_fs_fs__hashdump_unparse(out, props, pool);
  assert_int_equal(out->len, text->len);
  assert_memory_equal(out->data, text->data, text->len);
}

static void
test_good_vectors(void **state)
{
  vector_check_good("hashdump", NULL, 1, check_good_vector, NULL);
}

static svn_error_t *
parse_bad_vector(const svn_stringbuf_t *text, const char *name,
                 apr_pool_t *pool)
{
  apr_hash_t *props;

  return svn_fs_fs__hashdump_parse(&props, NULL, text->data, text->len, name,
                                   pool);
}

static void
test_bad_vectors(void **state)
{
  vector_check_bad("hashdump", NULL, 1, parse_bad_vector, NULL);
}

/* Values with LF, NUL and "END" lines survive; CONSUMED stops after END. */
static void
test_round_trip_and_consumed(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  apr_hash_t *props = apr_hash_make(pool), *back;
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  const svn_string_t *v;
  apr_size_t consumed;

  svn_hash_sets(props, "svn:log", svn_string_create("a\nEND\nK 1\n", pool));
  svn_hash_sets(props, "zero", svn_string_ncreate("x\0y", 3, pool));
  svn_hash_sets(props, "e", svn_string_create("", pool));
  svn_fs_fs__hashdump_unparse(out, props, pool);
  svn_stringbuf_appendcstr(out, "TRAILER");
  assert_null(svn_fs_fs__hashdump_parse(&back, &consumed, out->data,
                                        out->len, "t", pool));
  assert_int_equal(consumed, out->len - 7);
  assert_int_equal(apr_hash_count(back), 3);
  v = svn_hash_gets(back, "zero");
  assert_int_equal(v->len, 3);
  assert_memory_equal(v->data, "x\0y", 3);
  assert_string_equal(((svn_string_t *)svn_hash_gets(back, "svn:log"))->data,
                      "a\nEND\nK 1\n");
  /* Without CONSUMED the trailer is an error (HASH-1). */
  vector_check_error(svn_fs_fs__hashdump_parse(&back, NULL, out->data,
                                               out->len, "t", pool),
                     SVN_ERR_FS_CORRUPT, "HASH-1", "trailer");
  svn_pool_destroy(pool);
}

/* Keys are written in byte order, a prefix before its extensions. */
static void
test_key_order(void **state)
{
  apr_pool_t *pool = svn_pool_create(NULL);
  apr_hash_t *props = apr_hash_make(pool);
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);

  svn_hash_sets(props, "b", svn_string_create("2", pool));
  svn_hash_sets(props, "ab", svn_string_create("1", pool));
  svn_hash_sets(props, "a", svn_string_create("0", pool));
  svn_fs_fs__hashdump_unparse(out, props, pool);
  assert_string_equal(out->data, "K 1\na\nV 1\n0\nK 2\nab\nV 1\n1\n"
                                 "K 1\nb\nV 1\n2\nEND\n");
  svn_pool_destroy(pool);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_round_trip_and_consumed),
    cmocka_unit_test(test_key_order),
  };

  apr_initialize();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
