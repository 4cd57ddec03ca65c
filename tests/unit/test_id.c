/* test_id.c --- unit tests for id.c (doc/format/ids.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <apr_general.h>
#include "svn_pools.h"
#include "svn_io.h"

#include "id.h"
#include "test_util.h"

static apr_pool_t *pool;

/* Good IDs with their decoded parts. */
static const struct
{
  const char *text;
  svn_revnum_t node_rev; apr_uint64_t node_num;
  svn_revnum_t copy_rev; apr_uint64_t copy_num;
  svn_revnum_t txn_rev; apr_uint64_t txn_num;
  svn_revnum_t rev; apr_uint64_t item;
} good_ids[] = {
  { "0.0.r0/2", 0, 0, 0, 0, -1, 0, 0, 2 },
  { "0.0.r1/319", 0, 0, 0, 0, -1, 0, 1, 319 },
  { "3-1.0.r8/9", 1, 3, 0, 0, -1, 0, 8, 9 },
  { "2-7.0-8.r8/7", 7, 2, 8, 0, -1, 0, 8, 7 },
  { "1a-12.z-3.r12/123456789", 12, 46, 3, 35, -1, 0, 12, 123456789 },
  { "_0.0.t0-0", -1, 0, 0, 0, 0, 0, -1, 0 },
  { "2-7._0.t7-7", 7, 2, -1, 0, 7, 7, -1, 0 },
  { "_1.0.t28-s", -1, 1, 0, 0, 28, 28, -1, 0 },
  { "zzzzzzzzzzzz.0.r2147483647/18446744073709551615",
    0, 4738381338321616895ULL, 0, 0, -1, 0, 2147483647,
    18446744073709551615ULL },
  /* The limits of the scanners' short cuts: 13 base-36 digits, 18 and
     19 decimal ones. */
  { "3w5e11264sgsf.1000000000000.r999999999999999999/1",
    0, 18446744073709551615ULL, 0, 4738381338321616896ULL, -1, 0,
    999999999999999999L, 1 },
  { "0-9223372036854775807.0.r9223372036854775807/1",
    9223372036854775807L, 0, 0, 0, -1, 0, 9223372036854775807L, 1 },
};

static const char *bad_ids[] = {
  "", ".", "..", "0.0", "0.0.", "0.0.r", "0.0.r1", "0.0.r1/", "0.0.r/1",
  "0.0.x1/2", "0.0.t", "0.0.t1", "0.0.t-1", "0.0.t1-", "A.0.r1/2",
  "0.0.0.r1/2", "_.0.r1/2", "-1.0.r1/2", "1-.0.r1/2", "0.0.r1/2 ",
  " 0.0.r1/2", "0.0.r-1/2", "0.0.r1/-2", "0..r1/2",
  "0.0.r1/99999999999999999999", "zzzzzzzzzzzzzz.0.r1/2",
  "0.0.r99999999999999999999/1", "0.0.r1/2\n",
  "3w5e11264sgsg.0.r1/2", "0.0.r9223372036854775808/1",
  "0-9223372036854775808.0.r1/2", "0.0.t9223372036854775808-1",
};

static void
test_good_ids(void **state)
{
  size_t i;

  for (i = 0; i < sizeof(good_ids) / sizeof(good_ids[0]); i++)
    {
      const char *t = good_ids[i].text;
      svn_fs_fs__id_t *id = svn_fs_fs__id_parse(t, strlen(t), pool);

      if (id == NULL)
        fail_msg("rejected good id %s", t);
      assert_int_equal(id->node_id.revision, good_ids[i].node_rev);
      assert_true(id->node_id.number == good_ids[i].node_num);
      assert_int_equal(id->copy_id.revision, good_ids[i].copy_rev);
      assert_true(id->copy_id.number == good_ids[i].copy_num);
      assert_int_equal(id->rev_item.revision, good_ids[i].rev);
      if (SVN_IS_VALID_REVNUM(good_ids[i].rev))
        {
          assert_true(id->rev_item.number == good_ids[i].item);
          assert_int_equal(id->txn_id.revision, SVN_INVALID_REVNUM);
          assert_false(svn_fs_fs__id_is_txn(id));
        }
      else
        {
          assert_int_equal(id->txn_id.revision, good_ids[i].txn_rev);
          assert_true(id->txn_id.number == good_ids[i].txn_num);
          assert_true(svn_fs_fs__id_is_txn(id));
        }
      assert_string_equal(svn_fs_fs__id_unparse(id, pool)->data, t);
      /* The public part must be usable by libsvn_fs. */
      assert_non_null(id->public.vtable);
      assert_ptr_equal(id->public.fsap_data, id);
      assert_string_equal(id->public.vtable->unparse(&id->public,
                                                     pool)->data, t);
    }
}

static void
test_bad_ids(void **state)
{
  size_t i;

  for (i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++)
    {
      svn_fs_fs__id_t *id;
      svn_error_t *err;

      if (svn_fs_fs__id_parse(bad_ids[i], strlen(bad_ids[i]), pool))
        fail_msg("accepted bad id '%s'", bad_ids[i]);
      err = svn_fs_fs__id_parse_checked(&id, bad_ids[i], strlen(bad_ids[i]),
                                        pool);
      assert_non_null(err);
      assert_int_equal(err->apr_err, SVN_ERR_FS_MALFORMED_NODEREV_ID);
      svn_error_clear(err);
    }
}

static svn_fs_fs__id_t *
id(const char *text)
{
  svn_fs_fs__id_t *result = svn_fs_fs__id_parse(text, strlen(text), pool);
  assert_non_null(result);
  return result;
}

static void
test_compare(void **state)
{
  assert_int_equal(svn_fs_fs__id_compare(id("3-1.0.r8/9"), id("3-1.0.r8/9")),
                   svn_fs_node_unchanged);
  assert_int_equal(svn_fs_fs__id_compare(id("3-1.0.r8/9"), id("3-1.0.r7/7")),
                   svn_fs_node_common_ancestor);
  assert_int_equal(svn_fs_fs__id_compare(id("3-1.0.r8/9"),
                                         id("3-1.0-8.r8/12")),
                   svn_fs_node_common_ancestor);
  assert_int_equal(svn_fs_fs__id_compare(id("3-1.0.r8/9"), id("3-2.0.r8/9")),
                   svn_fs_node_unrelated);
  assert_int_equal(svn_fs_fs__id_compare(id("3-1.0.t8-1"), id("3-1.0.r8/9")),
                   svn_fs_node_common_ancestor);
  /* Txn-local node-ids are scoped to their transaction (ID-5). */
  assert_int_equal(svn_fs_fs__id_compare(id("_1.0.t7-1"), id("_1.0.t7-2")),
                   svn_fs_node_unrelated);
  assert_int_equal(svn_fs_fs__id_compare(id("_1.0.t7-1"), id("_1.1.t7-1")),
                   svn_fs_node_common_ancestor);
  assert_true(svn_fs_fs__id_eq(id("0.0.r1/2"), id("0.0.r1/2")));
  assert_false(svn_fs_fs__id_eq(id("0.0.r1/2"), id("0.0.r1/3")));
  assert_false(svn_fs_fs__id_eq(id("0.0.r1/2"), id("0.0.t1-2")));
  assert_int_equal(id("0.0.r1/2")->public.vtable->compare(
                     &id("0.0.r1/2")->public, &id("0.0.r2/2")->public),
                   svn_fs_node_common_ancestor);
}

static void
test_create_copy(void **state)
{
  svn_fs_fs__id_part_t node = { 7, 2 }, copy = { 8, 0 }, txn = { 7, 7 };
  svn_fs_fs__id_t *a = svn_fs_fs__id_create_rev(&node, &copy, 8, 7, pool);
  svn_fs_fs__id_t *b = svn_fs_fs__id_create_txn(&node, &copy, &txn, pool);
  svn_fs_fs__id_t *c = svn_fs_fs__id_copy(a, pool);
  char buf[SVN_FS_FS__ID_PART_MAX];

  assert_string_equal(svn_fs_fs__id_unparse(a, pool)->data, "2-7.0-8.r8/7");
  assert_string_equal(svn_fs_fs__id_unparse(b, pool)->data, "2-7.0-8.t7-7");
  assert_int_equal(svn_fs_fs__id_rev(a), 8);
  assert_int_equal(svn_fs_fs__id_rev(b), SVN_INVALID_REVNUM);
  assert_ptr_equal(c->public.fsap_data, c);
  assert_true(svn_fs_fs__id_eq(a, c));
  assert_true(svn_fs_fs__id_part_parse(&node, "_1a", 3));
  assert_int_equal(node.revision, SVN_INVALID_REVNUM);
  assert_int_equal(svn_fs_fs__id_part_unparse(buf, &node), 3);
  assert_string_equal(buf, "_1a");
  assert_true(svn_fs_fs__id_txn_parse(&txn, "28-s", 4));
  assert_int_equal(svn_fs_fs__id_txn_unparse(buf, &txn), 4);
  assert_string_equal(buf, "28-s");
  assert_false(svn_fs_fs__id_txn_parse(&txn, "28", 2));
}

/* The hex text of a case of parse-cases.tsv as bytes in BUF (at most
   SIZE); returns the length. */
static apr_size_t
unhex(char *buf, apr_size_t size, const char *hex)
{
  apr_size_t n = 0;

  if (strcmp(hex, "-") == 0)
    return 0;
  for (; hex[0] && hex[1]; hex += 2)
    {
      char two[3] = { hex[0], hex[1], 0 };

      assert_true(n < size);
      buf[n++] = (char)strtol(two, NULL, 16);
    }
  return n;
}

/* Every case of tests/vectors/good/ids/parse-cases.tsv (5,068 mutations
   of good IDs, with what the parser made of them before its one-pass
   rewrite) is accepted or refused alike, with the same parts. */
static void
test_parse_cases(void **state)
{
  const char *path = apr_pstrcat(pool, vector_dir("good", "ids", pool),
                                 "/parse-cases.tsv", SVN_VA_NULL);
  svn_stringbuf_t *file;
  char *line, *last;
  int cases = 0, accepted = 0;

  assert_null(svn_stringbuf_from_file2(&file, path, pool));
  for (line = apr_strtok(file->data, "\n", &last); line;
       line = apr_strtok(NULL, "\n", &last))
    {
      char *tab = strchr(line, '\t');
      char text[128], got[200];
      apr_size_t len;
      svn_fs_fs__id_t *id;

      if (line[0] == '#')
        continue;
      assert_non_null(tab);
      *tab = '\0';
      len = unhex(text, sizeof(text), line);
      id = svn_fs_fs__id_parse(text, len, pool);
      if (id == NULL)
        snprintf(got, sizeof(got), "REJECT");
      else
        snprintf(got, sizeof(got), "%ld %llu %ld %llu %ld %llu %ld %llu",
                 id->node_id.revision,
                 (unsigned long long)id->node_id.number,
                 id->copy_id.revision,
                 (unsigned long long)id->copy_id.number,
                 id->txn_id.revision, (unsigned long long)id->txn_id.number,
                 id->rev_item.revision,
                 (unsigned long long)id->rev_item.number);
      if (strcmp(got, tab + 1) != 0)
        fail_msg("id %s: got '%s', want '%s'", line, got, tab + 1);
      cases++;
      accepted += id != NULL;
    }
  assert_true(cases > 5000);
  assert_true(accepted > 900);
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_good_ids),
    cmocka_unit_test(test_bad_ids),
    cmocka_unit_test(test_parse_cases),
    cmocka_unit_test(test_compare),
    cmocka_unit_test(test_create_copy),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
