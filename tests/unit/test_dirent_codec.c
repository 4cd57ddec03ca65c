/* test_dirent_codec.c --- unit tests for dirent_codec.c
 * (doc/format/directories.md).  Good vectors: directory listings written
 * by stock svn (the committed listing at the head of a transaction's
 * "children" file, and the whole incremental file).  Bad vectors: crafted
 * damage with the rule they break. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"

#include "id.h"
#include "dirent_codec.h"
#include "test_util.h"

static apr_pool_t *pool;

static void
check_sorted(const apr_array_header_t *entries, const char *name)
{
  int i;

  for (i = 1; i < entries->nelts; i++)
    if (svn_fs_fs__dirent_compare(&APR_ARRAY_IDX(entries, i - 1, void *),
                                  &APR_ARRAY_IDX(entries, i, void *)) >= 0)
      fail_msg("%s: entries not sorted at %d", name, i);
  for (i = 0; i < entries->nelts; i++)
    {
      const svn_fs_dirent_t *d = APR_ARRAY_IDX(entries, i, svn_fs_dirent_t *);
      assert_int_equal(svn_fs_fs__dirent_find(entries, d->name), i);
    }
}

/* Stock's listing IN parses into sorted entries; a committed listing
   also prints back byte for byte. */
static void
check_good_vector(const svn_stringbuf_t *in, const char *name,
                  apr_pool_t *scratch_pool)
{
  svn_boolean_t incremental = strstr(name, "-txn-") != NULL;
  apr_array_header_t *entries;
  svn_error_t *err;

  err = svn_fs_fs__dirents_parse(&entries, in->data, in->len, incremental,
                                 name, scratch_pool, scratch_pool);
  if (err)
    fail_msg("%s: %s", name, err->message);
  assert_true(entries->nelts > 0);
  check_sorted(entries, name);
  if (!incremental)
    {
      /* Stock writes listings sorted: we must print the same bytes. */
      svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);
      svn_fs_fs__dirents_unparse(out, entries);
      assert_string_equal(out->data, in->data);
    }
}

static void
test_good_vectors(void **state)
{
  vector_check_good("dirent", NULL, 6, check_good_vector, pool);
}

static svn_error_t *
parse_bad_vector(const svn_stringbuf_t *in, const char *name,
                 apr_pool_t *scratch_pool)
{
  apr_array_header_t *entries;

  return svn_fs_fs__dirents_parse(&entries, in->data, in->len, FALSE, name,
                                  scratch_pool, scratch_pool);
}

static void
test_bad_vectors(void **state)
{
  vector_check_bad("dirent", ".txt", 10, parse_bad_vector, pool);
}

static void
test_incremental(void **state)
{
  svn_stringbuf_t *buf = svn_stringbuf_create_empty(pool);
  apr_array_header_t *entries;
  svn_fs_fs__id_t *id1 = svn_fs_fs__id_parse("1-2.0.r2/3", 10, pool);
  svn_fs_fs__id_t *id2 = svn_fs_fs__id_parse("_4.0.t2-1", 9, pool);
  const svn_fs_dirent_t *d;

  svn_fs_fs__dirent_unparse_change(buf, "zeta", svn_node_file, id1);
  svn_fs_fs__dirent_unparse_change(buf, "alpha", svn_node_dir, id1);
  svn_stringbuf_appendcstr(buf, "END\n");
  svn_fs_fs__dirent_unparse_change(buf, "zeta", svn_node_file, id2);
  svn_fs_fs__dirent_unparse_change(buf, "alpha", svn_node_dir, NULL);
  svn_fs_fs__dirent_unparse_change(buf, "beta gamma", svn_node_dir, id2);
  assert_null(svn_fs_fs__dirents_parse(&entries, buf->data, buf->len, TRUE,
                                       NULL, pool, pool));
  assert_int_equal(entries->nelts, 2);
  d = APR_ARRAY_IDX(entries, 0, svn_fs_dirent_t *);
  assert_string_equal(d->name, "beta gamma");
  assert_int_equal(d->kind, svn_node_dir);
  d = APR_ARRAY_IDX(entries, 1, svn_fs_dirent_t *);
  assert_string_equal(d->name, "zeta");
  assert_true(svn_fs_fs__id_eq(SVN_FS_FS__ID(d->id), id2));
  assert_int_equal(svn_fs_fs__dirent_find(entries, "alpha"), -1);
  /* Without INCREMENTAL, the tail is an error. */
  vector_check_error(svn_fs_fs__dirents_parse(&entries, buf->data, buf->len,
                                              FALSE, "tail", pool, pool),
                     SVN_ERR_FS_CORRUPT, "DIRENT-2", "tail");
}

/* Listings not written in name order still come out sorted (DIRENT-6). */
static void
test_unsorted_listing(void **state)
{
  static const char text[] = "K 1\nz\nV 14\ndir 0-1.0.r3/8\n"
                             "K 2\nab\nV 15\nfile 1-1.0.r3/9\n"
                             "K 1\na\nV 15\nfile 2-1.0.r3/7\nEND\n";
  apr_array_header_t *entries;

  assert_null(svn_fs_fs__dirents_parse(&entries, text, sizeof(text) - 1,
                                       FALSE, NULL, pool, pool));
  assert_int_equal(entries->nelts, 3);
  assert_string_equal(APR_ARRAY_IDX(entries, 0, svn_fs_dirent_t *)->name,
                      "a");
  assert_string_equal(APR_ARRAY_IDX(entries, 1, svn_fs_dirent_t *)->name,
                      "ab");
  assert_string_equal(APR_ARRAY_IDX(entries, 2, svn_fs_dirent_t *)->name,
                      "z");
  assert_int_equal(APR_ARRAY_IDX(entries, 2, svn_fs_dirent_t *)->kind,
                   svn_node_dir);
  assert_int_equal(svn_fs_fs__dirent_find(entries, "ab"), 1);
  assert_int_equal(svn_fs_fs__dirent_find(entries, "b"), -1);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_incremental),
    cmocka_unit_test(test_unsorted_listing),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
