/* test_noderev_codec.c --- unit tests for noderev_codec.c
 * (doc/format/noderev.md).  Good vectors are node-rev records cut out of
 * repositories written by stock svnadmin/svn (formats 6-8, revisions and
 * transactions); they must parse and print back byte for byte.  Bad
 * vectors are crafted damage with the rule they break. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <apr_general.h>
#include "svn_pools.h"

#include "id.h"
#include "noderev_codec.h"
#include "test_util.h"

static apr_pool_t *pool;

/* Stock's record IN parses and prints back byte for byte. */
static void
check_good_vector(const svn_stringbuf_t *in, const char *name,
                  apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *out = svn_stringbuf_create_empty(scratch_pool);
  svn_fs_fs__noderev_t *nr;
  svn_error_t *err;

  assert_int_equal(svn_fs_fs__noderev_record_len(in->data, in->len),
                   in->len);
  err = svn_fs_fs__noderev_parse(&nr, in->data, in->len, name, scratch_pool,
                                 scratch_pool);
  if (err)
    fail_msg("%s: %s", name, err->message);
  /* Stock's revision 0 is a fixed template that keeps the short rep
     form even in format 8 (see NODEREV-12). */
  svn_fs_fs__noderev_unparse(out, nr,
                             strstr(name, "-r0-") ? 6 : vector_format(name),
                             scratch_pool);
  vector_check_printed(out, in, name);
}

static void
test_good_vectors_roundtrip(void **state)
{
  vector_check_good("noderev", ".txt", 20, check_good_vector, pool);
}

static svn_error_t *
parse_bad_vector(const svn_stringbuf_t *in, const char *name,
                 apr_pool_t *scratch_pool)
{
  svn_fs_fs__noderev_t *nr;

  return svn_fs_fs__noderev_parse(&nr, in->data, in->len, name,
                                  scratch_pool, scratch_pool);
}

static void
test_bad_vectors(void **state)
{
  vector_check_bad("noderev", ".txt", 15, parse_bad_vector, pool);
}

static svn_fs_fs__noderev_t *
parse(const char *text)
{
  svn_fs_fs__noderev_t *nr;
  svn_error_t *err = svn_fs_fs__noderev_parse(&nr, text, strlen(text), NULL,
                                              pool, pool);
  if (err)
    fail_msg("%s", err->message);
  return nr;
}

static void
test_fields(void **state)
{
  svn_fs_fs__noderev_t *nr = parse(
    "id: 2-7.0-8.r8/7\ntype: file\npred: 2-7.0.r7/4\ncount: 1\n"
    "text: 8 3 16 4 1b5bb282b8f8792875e3c4203cfa9c57 "
    "a08bad768ec43befe49b97938f4318c450d1f7c4 7-7/_5\n"
    "cpath: /trunk/new 2\ncopyfrom: 7 /trunk/new\nfuture-field: x\n\n");

  assert_int_equal(nr->kind, svn_node_file);
  assert_int_equal(nr->predecessor_count, 1);
  assert_int_equal(nr->copyfrom_rev, 7);
  assert_string_equal(nr->copyfrom_path, "/trunk/new");
  /* NODEREV-8: no copyroot -> the node-rev itself. */
  assert_int_equal(nr->copyroot_rev, 8);
  assert_string_equal(nr->copyroot_path, "/trunk/new 2");
  assert_string_equal(nr->created_path, "/trunk/new 2");
  assert_int_equal(nr->data_rep->revision, 8);
  assert_int_equal(nr->data_rep->item_index, 3);
  assert_int_equal(nr->data_rep->size, 16);
  assert_int_equal(nr->data_rep->expanded_size, 4);
  assert_int_equal(nr->data_rep->md5_digest[0], 0x1b);
  assert_true(nr->data_rep->has_sha1);
  assert_int_equal(nr->data_rep->sha1_digest[19], 0xc4);
  assert_string_equal(nr->data_rep->uniquifier, "7-7/_5");
  assert_false(nr->data_rep->in_txn);
  assert_null(nr->prop_rep);
  assert_int_equal(nr->mergeinfo_count, 0);
  assert_false(nr->has_mergeinfo);
}

static void
test_txn_reps(void **state)
{
  svn_fs_fs__noderev_t *nr = parse(
    "id: 3-1.0.t7-7\ntype: dir\ncount: 5\ntext: -1\n"
    "props: -1 4 5 6 d835e2025f65edb1d93fff0a0539b8f3 - -\n"
    "cpath: /trunk\ncopyroot: -1 /trunk\nminfo-cnt: 12\nminfo-here: y\n"
    "is-fresh-txn-root: y\n\n");

  assert_int_equal(nr->data_rep->revision, SVN_INVALID_REVNUM);
  assert_true(nr->data_rep->in_txn);
  assert_int_equal(nr->data_rep->txn_id.revision, 7);
  assert_int_equal(nr->data_rep->txn_id.number, 7);
  assert_int_equal(nr->prop_rep->item_index, 4);
  assert_false(nr->prop_rep->has_sha1);
  assert_null(nr->prop_rep->uniquifier);
  assert_true(nr->prop_rep->in_txn);
  assert_int_equal(nr->prop_rep->txn_id.number, 7);
  assert_int_equal(nr->copyroot_rev, SVN_INVALID_REVNUM);
  assert_int_equal(nr->mergeinfo_count, 12);
  assert_true(nr->has_mergeinfo);
  assert_true(nr->is_fresh_txn_root);
}

static void
test_rep_unparse_formats(void **state)
{
  svn_fs_fs__rep_t *rep;
  svn_stringbuf_t *out = svn_stringbuf_create_empty(pool);
  const char *five = "8 8 89 124 a38016adaa7334696a0a10f7e864540e";

  assert_null(svn_fs_fs__rep_parse(&rep, five, strlen(five), NULL, NULL,
                                   pool));
  svn_fs_fs__rep_unparse(out, rep, 8, FALSE);
  assert_string_equal(out->data,
                      "8 8 89 124 a38016adaa7334696a0a10f7e864540e - -");
  svn_stringbuf_setempty(out);
  svn_fs_fs__rep_unparse(out, rep, 7, FALSE);
  assert_string_equal(out->data, five);
  rep->uniquifier = "6-6/_5";
  svn_stringbuf_setempty(out);
  svn_fs_fs__rep_unparse(out, rep, 8, FALSE);
  assert_string_equal(out->data,
                      "8 8 89 124 a38016adaa7334696a0a10f7e864540e - 6-6/_5");
  rep->in_txn = TRUE;
  rep->txn_id.revision = 8;
  rep->txn_id.number = 1;
  svn_stringbuf_setempty(out);
  svn_fs_fs__rep_unparse(out, rep, 8, TRUE);
  assert_string_equal(out->data, "-1");
}

static void
test_record_len(void **state)
{
  const char *t = "id: 0.0.r0/2\ntype: dir\n\nid: 1.0.r0/3\n";

  assert_int_equal(svn_fs_fs__noderev_record_len(t, strlen(t)), 24);
  assert_int_equal(svn_fs_fs__noderev_record_len(t, 23), 0);
  assert_int_equal(svn_fs_fs__noderev_record_len("\n", 1), 1);
  assert_int_equal(svn_fs_fs__noderev_record_len("", 0), 0);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_vectors_roundtrip),
    cmocka_unit_test(test_bad_vectors),
    cmocka_unit_test(test_fields),
    cmocka_unit_test(test_txn_reps),
    cmocka_unit_test(test_rep_unparse_formats),
    cmocka_unit_test(test_record_len),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
