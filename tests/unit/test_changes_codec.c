/* test_changes_codec.c --- unit tests for changes_codec.c
 * (doc/format/changes.md).  Good vectors: the changed-path lists of
 * revisions and transactions written by stock svn (formats 6-8); they must
 * parse and print back byte for byte.  Bad vectors: crafted damage. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"

#include "id.h"
#include "changes_codec.h"
#include "test_util.h"

static apr_pool_t *pool;

/* Stock's list IN parses and prints back byte for byte. */
static void
check_good_vector(const svn_stringbuf_t *in, const char *name,
                  apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);
  svn_boolean_t txn = strstr(name, "txn") != NULL;
  apr_array_header_t *changes;
  apr_size_t consumed;
  svn_error_t *err;
  int j;

  err = svn_fs_fs__changes_parse(&changes, &consumed, in->data, in->len,
                                 txn, name, scratch_pool, scratch_pool);
  if (err)
    fail_msg("%s: %s", name, err->message);
  assert_int_equal(consumed, in->len);
  for (j = 0; j < changes->nelts; j++)
    svn_fs_fs__change_unparse(out, APR_ARRAY_IDX(changes, j,
                                                 svn_fs_fs__change_t *),
                              vector_format(name));
  /* Revision lists end with an empty line, txn files just stop. */
  if (!txn)
    svn_stringbuf_appendbyte(out, '\n');
  vector_check_printed(out, in, name);
}

static void
test_good_vectors_roundtrip(void **state)
{
  vector_check_good("changes", ".txt", 20, check_good_vector, pool);
}

static svn_error_t *
parse_bad_vector(const svn_stringbuf_t *in, const char *name,
                 apr_pool_t *scratch_pool)
{
  apr_array_header_t *changes;

  return svn_fs_fs__changes_parse(&changes, NULL, in->data, in->len, FALSE,
                                  name, scratch_pool, scratch_pool);
}

static void
test_bad_vectors(void **state)
{
  vector_check_bad("changes", ".txt", 10, parse_bad_vector, pool);
}

static svn_fs_fs__change_t *
parse_one(const char *text, svn_boolean_t allow_reset)
{
  svn_fs_fs__change_t *change;
  apr_size_t n;
  svn_error_t *err;

  assert_int_equal(svn_fs_fs__change_scan(&n, text, strlen(text)),
                   svn_fs_fs__change_scan_entry);
  err = svn_fs_fs__change_parse(&change, text, n, allow_reset, NULL, pool);
  if (err)
    fail_msg("%s", err->message);
  return change;
}

static void
test_fields(void **state)
{
  svn_fs_fs__change_t *c;

  c = parse_one("2-7._0.t7-7 add-file true false true /trunk/new 2\n"
                "7 /trunk/old name\n", FALSE);
  assert_string_equal(c->path.data, "/trunk/new 2");
  assert_int_equal(c->path.len, 12);
  assert_int_equal(c->change_kind, svn_fs_path_change_add);
  assert_int_equal(c->node_kind, svn_node_file);
  assert_true(c->text_mod);
  assert_false(c->prop_mod);
  assert_int_equal(c->mergeinfo_mod, svn_tristate_true);
  assert_true(c->copyfrom_known);
  assert_int_equal(c->copyfrom_rev, 7);
  assert_string_equal(c->copyfrom_path, "/trunk/old name");
  assert_string_equal(svn_fs_fs__id_unparse(c->noderev_id, pool)->data,
                      "2-7._0.t7-7");

  /* Format 6: no mergeinfo flag, no kind (format < 4 style). */
  c = parse_one("7-1.0.r1/10 delete false false /a b\n\n", FALSE);
  assert_int_equal(c->mergeinfo_mod, svn_tristate_unknown);
  assert_int_equal(c->node_kind, svn_node_unknown);
  assert_int_equal(c->change_kind, svn_fs_path_change_delete);
  assert_int_equal(c->copyfrom_rev, SVN_INVALID_REVNUM);
  assert_null(c->copyfrom_path);

  c = parse_one("reset reset false false /x\n\n", TRUE);
  assert_null(c->noderev_id);
  assert_int_equal(c->change_kind, svn_fs_path_change_reset);
}

static void
test_scan(void **state)
{
  apr_size_t n = 0;

  assert_int_equal(svn_fs_fs__change_scan(&n, "", 0),
                   svn_fs_fs__change_scan_incomplete);
  assert_int_equal(svn_fs_fs__change_scan(&n, "\nxyz", 4),
                   svn_fs_fs__change_scan_end);
  assert_int_equal(n, 1);
  assert_int_equal(svn_fs_fs__change_scan(&n, "a\n", 2),
                   svn_fs_fs__change_scan_incomplete);
  assert_int_equal(svn_fs_fs__change_scan(&n, "a\n\nb", 4),
                   svn_fs_fs__change_scan_entry);
  assert_int_equal(n, 3);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors_roundtrip),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_fields),
    cmocka_unit_test(test_scan),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
