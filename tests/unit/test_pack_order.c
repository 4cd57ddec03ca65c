/* test_pack_order.c --- unit tests for pack_order.c: the item order of a
 * logically addressed pack file (doc/format/pack.md PACK-ORDER-*).
 *
 * Synthetic shards: every item placed exactly once (also with damaged,
 * cyclic or dangling references and for random shards), changed-path
 * lists first and newest first, node-revisions grouped by path with their
 * properties and directories beside them, file texts after their delta
 * bases.  The index consistency of real packs is checked by
 * tests/integration/test_pack.py through stock `svnadmin verify`.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "pack_order.h"
#include "test_util.h"

static apr_pool_t *pool;

/* Append an item of TYPE at (REV, ITEM) to ITEMS; returns it. */
static svn_fs_fs__pack_item_t *
add(apr_array_header_t *items, svn_revnum_t rev, apr_uint64_t item,
    svn_fs_fs__item_type_t type)
{
  svn_fs_fs__p2l_entry_t e;
  svn_fs_fs__pack_item_t *it = apr_array_push(items);

  memset(&e, 0, sizeof(e));
  e.revision = rev;
  e.item_index = item;
  e.type = type;
  e.size = 10;
  svn_fs_fs__pack_item_init(it, &e);
  return it;
}

static svn_fs_fs__pack_item_t *
add_node(apr_array_header_t *items, svn_revnum_t rev, apr_uint64_t item,
         const char *path, svn_revnum_t data_rev, apr_uint64_t data_item,
         svn_revnum_t prop_rev, apr_uint64_t prop_item)
{
  svn_fs_fs__pack_item_t *it = add(items, rev, item,
                                   SVN_FS_FS__ITEM_TYPE_NODEREV);

  it->path = path;
  it->data_rev = data_rev;
  it->data_item = data_item;
  it->prop_rev = prop_rev;
  it->prop_item = prop_item;
  return it;
}

static svn_fs_fs__pack_item_t *
add_rep(apr_array_header_t *items, svn_revnum_t rev, apr_uint64_t item,
        svn_fs_fs__item_type_t type, svn_revnum_t base_rev,
        apr_uint64_t base_item)
{
  svn_fs_fs__pack_item_t *it = add(items, rev, item, type);

  it->base_rev = base_rev;
  it->base_item = base_item;
  return it;
}

/* PACK-ORDER-1: ORDER is a permutation of 0 .. N-1. */
static void
assert_permutation(const apr_array_header_t *order, int n)
{
  char *seen = apr_pcalloc(pool, n + 1);
  int i;

  assert_int_equal(order->nelts, n);
  for (i = 0; i < n; i++)
    {
      int k = APR_ARRAY_IDX(order, i, int);

      assert_true(k >= 0 && k < n);
      assert_false(seen[k]);
      seen[k] = 1;
    }
}

/* Position of item (REV, ITEM) in ORDER. */
static int
pos(const apr_array_header_t *order, const apr_array_header_t *items,
    svn_revnum_t rev, apr_uint64_t item)
{
  int i;

  for (i = 0; i < order->nelts; i++)
    {
      const svn_fs_fs__pack_item_t *it = &APR_ARRAY_IDX(
        items, APR_ARRAY_IDX(order, i, int), svn_fs_fs__pack_item_t);

      if (it->entry.revision == rev && it->entry.item_index == item)
        return i;
    }
  fail_msg("r%ld item %lu not placed", rev, (unsigned long)item);
  return -1;
}

/* A shard of revisions 4..6 of a tiny history:
     r4: /trunk (dir), /trunk/a (file, full text, props)
     r5: /trunk (dir, delta vs r4), /trunk/a (delta vs r4's text)
     r6: /trunk/a (delta vs r5's text), /trunk/b (text from r2: other shard)
   Items 1 changes, 2 root noderev ("/"), 3.. the rest. */
static apr_array_header_t *
tiny_shard(void)
{
  apr_array_header_t *items = apr_array_make(pool, 16,
                                             sizeof(svn_fs_fs__pack_item_t));

  add_rep(items, 4, 3, SVN_FS_FS__ITEM_TYPE_FILE_REP, -1, 0);
  add_rep(items, 4, 4, SVN_FS_FS__ITEM_TYPE_FILE_PROPS, -1, 0);
  add_node(items, 4, 5, "/trunk/a", 4, 3, 4, 4);
  add_rep(items, 4, 6, SVN_FS_FS__ITEM_TYPE_DIR_REP, -1, 0);
  add_node(items, 4, 7, "/trunk", 4, 6, -1, 0);
  add_node(items, 4, 2, "/", 3, 3, -1, 0);
  add(items, 4, 1, SVN_FS_FS__ITEM_TYPE_CHANGES);
  add_rep(items, 5, 3, SVN_FS_FS__ITEM_TYPE_FILE_REP, 4, 3);
  add_node(items, 5, 4, "/trunk/a", 5, 3, 4, 4);
  add_rep(items, 5, 5, SVN_FS_FS__ITEM_TYPE_DIR_REP, 4, 6);
  add_node(items, 5, 6, "/trunk", 5, 5, -1, 0);
  add_node(items, 5, 2, "/", 3, 9, -1, 0);
  add(items, 5, 1, SVN_FS_FS__ITEM_TYPE_CHANGES);
  add_rep(items, 6, 3, SVN_FS_FS__ITEM_TYPE_FILE_REP, 5, 3);
  add_node(items, 6, 4, "/trunk/a", 6, 3, 4, 4);
  add_node(items, 6, 5, "/trunk/b", 2, 7, -1, 0);
  add_node(items, 6, 2, "/", 3, 9, -1, 0);
  add(items, 6, 1, SVN_FS_FS__ITEM_TYPE_CHANGES);
  return items;
}

static void
test_concatenate_keeps_input_order(void **state)
{
  apr_array_header_t *items = tiny_shard(), *order;
  int i;

  svn_fs_fs__pack_order(&order, items, svn_fs_fs__pack_order_concatenate,
                        pool, pool);
  assert_permutation(order, items->nelts);
  for (i = 0; i < order->nelts; i++)
    assert_int_equal(APR_ARRAY_IDX(order, i, int), i);
}

static void
test_changes_first_mode(void **state)
{
  apr_array_header_t *items = tiny_shard(), *order;
  int i, k = 0, last = -1;

  svn_fs_fs__pack_order(&order, items, svn_fs_fs__pack_order_changes_first,
                        pool, pool);
  assert_permutation(order, items->nelts);
  assert_int_equal(pos(order, items, 6, 1), 0);
  assert_int_equal(pos(order, items, 4, 1), 2);
  /* After the three lists, the other items in input order. */
  for (i = 3; i < order->nelts; i++, k++)
    {
      assert_true(APR_ARRAY_IDX(order, i, int) > last);
      last = APR_ARRAY_IDX(order, i, int);
    }
  assert_int_equal(k, items->nelts - 3);
}

static void
test_changes_first_newest_first(void **state)
{
  apr_array_header_t *items = tiny_shard(), *order;

  svn_fs_fs__pack_order(&order, items, svn_fs_fs__pack_order_grouped, pool,
                        pool);
  assert_permutation(order, items->nelts);
  assert_int_equal(pos(order, items, 6, 1), 0);
  assert_int_equal(pos(order, items, 5, 1), 1);
  assert_int_equal(pos(order, items, 4, 1), 2);
}

static void
test_metadata_grouped_by_path(void **state)
{
  apr_array_header_t *items = tiny_shard(), *order;

  svn_fs_fs__pack_order(&order, items, svn_fs_fs__pack_order_grouped, pool,
                        pool);
  /* "/" before "/trunk" before "/trunk/a" before "/trunk/b"; newest
     first within a path. */
  assert_true(pos(order, items, 6, 2) < pos(order, items, 5, 2));
  assert_true(pos(order, items, 4, 2) < pos(order, items, 5, 6));
  assert_true(pos(order, items, 5, 6) < pos(order, items, 4, 7));
  /* The directory rep sits right after its node-rev, its delta base
     before it (PACK-ORDER-4/5). */
  assert_int_equal(pos(order, items, 4, 6) + 1, pos(order, items, 5, 5));
  assert_int_equal(pos(order, items, 5, 6) + 1, pos(order, items, 4, 6));
  /* Props right after the newest node-rev that uses them. */
  assert_int_equal(pos(order, items, 6, 4) + 1, pos(order, items, 4, 4));
  assert_true(pos(order, items, 4, 7) < pos(order, items, 6, 4));
  assert_true(pos(order, items, 6, 4) < pos(order, items, 6, 5));
}

static void
test_file_texts_last_in_apply_order(void **state)
{
  apr_array_header_t *items = tiny_shard(), *order;
  int n = items->nelts;

  svn_fs_fs__pack_order(&order, items, svn_fs_fs__pack_order_grouped, pool,
                        pool);
  /* The three texts of /trunk/a close the file, base first. */
  assert_int_equal(pos(order, items, 4, 3), n - 3);
  assert_int_equal(pos(order, items, 5, 3), n - 2);
  assert_int_equal(pos(order, items, 6, 3), n - 1);
}

static void
test_damaged_references(void **state)
{
  apr_array_header_t *items = apr_array_make(pool, 8,
                                             sizeof(svn_fs_fs__pack_item_t));
  apr_array_header_t *order;

  /* A delta cycle, a self-reference, a node pointing at a changes list,
     dangling references, a node without path, duplicate addresses. */
  add_rep(items, 8, 3, SVN_FS_FS__ITEM_TYPE_FILE_REP, 8, 4);
  add_rep(items, 8, 4, SVN_FS_FS__ITEM_TYPE_FILE_REP, 8, 3);
  add_rep(items, 8, 5, SVN_FS_FS__ITEM_TYPE_FILE_REP, 8, 5);
  add_node(items, 8, 6, NULL, 8, 1, 8, 3);
  add_node(items, 8, 7, "/x", 99, 1, 1, 1);
  add(items, 8, 1, SVN_FS_FS__ITEM_TYPE_CHANGES);
  add(items, 8, 1, SVN_FS_FS__ITEM_TYPE_CHANGES);
  add_node(items, 8, 2, "/", 8, 4, -1, 0);
  svn_fs_fs__pack_order(&order, items, svn_fs_fs__pack_order_grouped, pool,
                        pool);
  assert_permutation(order, items->nelts);
}

static void
test_random_shards(void **state)
{
  unsigned int seed = 12345;
  int round;

  for (round = 0; round < 200; round++)
    {
      apr_pool_t *iterpool = svn_pool_create(pool);
      apr_array_header_t *items = apr_array_make(
        iterpool, 64, sizeof(svn_fs_fs__pack_item_t));
      apr_array_header_t *order;
      int n = rand_r(&seed) % 60, i;
      static const char *paths[] = { "/", "/a", "/a/b", "/c", NULL };

      for (i = 0; i < n; i++)
        {
          svn_revnum_t rev = 10 + rand_r(&seed) % 4;
          apr_uint64_t item = 1 + rand_r(&seed) % 12;
          int type = rand_r(&seed) % 7;
          svn_fs_fs__pack_item_t *it = add(items, rev, item,
                                           (svn_fs_fs__item_type_t)type);

          it->path = paths[rand_r(&seed) % 5];
          it->data_rev = 9 + rand_r(&seed) % 6;
          it->data_item = 1 + rand_r(&seed) % 12;
          it->prop_rev = 9 + rand_r(&seed) % 6;
          it->prop_item = 1 + rand_r(&seed) % 12;
          it->base_rev = 9 + rand_r(&seed) % 6;
          it->base_item = 1 + rand_r(&seed) % 12;
        }
      svn_fs_fs__pack_order(&order, items, svn_fs_fs__pack_order_grouped,
                            iterpool, iterpool);
      assert_permutation(order, items->nelts);
      svn_pool_destroy(iterpool);
    }
}

int
main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_concatenate_keeps_input_order),
    cmocka_unit_test(test_changes_first_mode),
    cmocka_unit_test(test_changes_first_newest_first),
    cmocka_unit_test(test_metadata_grouped_by_path),
    cmocka_unit_test(test_file_texts_last_in_apply_order),
    cmocka_unit_test(test_damaged_references),
    cmocka_unit_test(test_random_shards),
  };

  return RUN_TESTS_WITH_POOL(tests, pool);
}
