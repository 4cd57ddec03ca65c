/* pack_order.c --- the item order of a logically addressed pack file
 * (pack_order.h; doc/format/pack.md, PACK-ORDER-*).
 *
 *   svn_fs_fs__pack_order
 *     place_changes        PACK-ORDER-2  changed-path lists, newest first
 *     place_metadata       PACK-ORDER-3/4 per path: node-rev, props, dir
 *     place_file_texts     PACK-ORDER-5  delta chains, base first
 *     place_rest           PACK-ORDER-6  whatever nobody referenced
 *
 * Every placement goes through place(), which skips items already placed;
 * the last step sweeps up the rest, so each item lands exactly once
 * (PACK-ORDER-1) whatever the references say -- even damaged or cyclic
 * ones.
 */
#include <stdlib.h>
#include <string.h>

#include "svn_pools.h"

#include "pack_order.h"

typedef struct order_ctx_t
{
  const apr_array_header_t *items;
  apr_hash_t *by_address;          /* (rev, item) -> int * (index) */
  int *indexes;                    /* storage of the hash's values */
  svn_boolean_t *placed;
  apr_array_header_t *order;       /* of int */
  apr_pool_t *pool;
} order_ctx_t;

/* Hash key of an item address: fixed-size, zero-padded. */
typedef struct address_key_t
{
  apr_int64_t revision;
  apr_uint64_t item_index;
} address_key_t;

/* A node-revision and the two keys it is sorted by. */
typedef struct noderev_slot_t
{
  const char *path;
  svn_revnum_t revision;
  int index;
} noderev_slot_t;

void
svn_fs_fs__pack_item_init(svn_fs_fs__pack_item_t *item,
                          const svn_fs_fs__p2l_entry_t *entry)
{
  memset(item, 0, sizeof(*item));
  item->entry = *entry;
  item->data_rev = SVN_INVALID_REVNUM;
  item->prop_rev = SVN_INVALID_REVNUM;
  item->base_rev = SVN_INVALID_REVNUM;
}

static const svn_fs_fs__pack_item_t *
item_at(const order_ctx_t *ctx, int index)
{
  return &APR_ARRAY_IDX(ctx->items, index, svn_fs_fs__pack_item_t);
}

/* Index of the item at (REVISION, ITEM_INDEX) in this shard, or -1. */
static int
lookup(const order_ctx_t *ctx, svn_revnum_t revision, apr_uint64_t item_index)
{
  address_key_t key;
  void *found;

  if (!SVN_IS_VALID_REVNUM(revision))
    return -1;
  memset(&key, 0, sizeof(key));
  key.revision = revision;
  key.item_index = item_index;
  found = apr_hash_get(ctx->by_address, &key, sizeof(key));
  return found ? *(const int *)found : -1;
}

static void
index_addresses(order_ctx_t *ctx)
{
  int i;

  for (i = 0; i < ctx->items->nelts; i++)
    {
      address_key_t *key = apr_pcalloc(ctx->pool, sizeof(*key));

      key->revision = item_at(ctx, i)->entry.revision;
      key->item_index = item_at(ctx, i)->entry.item_index;
      ctx->indexes[i] = i;
      apr_hash_set(ctx->by_address, key, sizeof(*key), &ctx->indexes[i]);
    }
}

static void
place(order_ctx_t *ctx, int index)
{
  if (index < 0 || ctx->placed[index])
    return;
  ctx->placed[index] = TRUE;
  APR_ARRAY_PUSH(ctx->order, int) = index;
}

/* Place the representation at INDEX after the not yet placed bases it
   is a delta against, base-most first: the order in which a reader
   applies them (PACK-ORDER-5).  The walk stops at the shard's edge, at a
   placed item and after ITEMS->nelts steps (a cycle in damaged data). */
static void
place_chain(order_ctx_t *ctx, int index, apr_pool_t *scratch_pool)
{
  apr_array_header_t *chain = apr_array_make(scratch_pool, 8, sizeof(int));
  int cur = index, k;

  while (cur >= 0 && !ctx->placed[cur] && chain->nelts < ctx->items->nelts)
    {
      const svn_fs_fs__pack_item_t *item = item_at(ctx, cur);

      APR_ARRAY_PUSH(chain, int) = cur;
      cur = lookup(ctx, item->base_rev, item->base_item);
    }
  for (k = chain->nelts - 1; k >= 0; k--)
    place(ctx, APR_ARRAY_IDX(chain, k, int));
}

/* PACK-ORDER-2: all changed-path lists, newest revision first. */
static void
place_changes(order_ctx_t *ctx)
{
  int i;

  for (i = ctx->items->nelts - 1; i >= 0; i--)
    if (item_at(ctx, i)->entry.type == SVN_FS_FS__ITEM_TYPE_CHANGES)
      place(ctx, i);
}

static int
compare_path_then_newest(const void *a, const void *b)
{
  const noderev_slot_t *x = a, *y = b;
  int cmp = strcmp(x->path, y->path);

  if (cmp)
    return cmp;
  if (x->revision != y->revision)
    return x->revision > y->revision ? -1 : 1;
  return x->index - y->index;
}

/* The shard's node-revisions sorted by path, newest first within a
   path.  Node-revisions whose path is unknown sort as "". */
static apr_array_header_t *
sorted_noderevs(order_ctx_t *ctx, apr_pool_t *result_pool)
{
  apr_array_header_t *slots = apr_array_make(result_pool, 64,
                                             sizeof(noderev_slot_t));
  int i;

  for (i = 0; i < ctx->items->nelts; i++)
    {
      const svn_fs_fs__pack_item_t *item = item_at(ctx, i);
      noderev_slot_t *slot;

      if (item->entry.type != SVN_FS_FS__ITEM_TYPE_NODEREV)
        continue;
      slot = apr_array_push(slots);
      slot->path = item->path ? item->path : "";
      slot->revision = item->entry.revision;
      slot->index = i;
    }
  qsort(slots->elts, slots->nelts, sizeof(noderev_slot_t),
        compare_path_then_newest);
  return slots;
}

/* PACK-ORDER-3/4: per path, each node-revision followed by its property
   rep and, for directories, its directory rep (with its delta bases). */
static void
place_metadata(order_ctx_t *ctx, const apr_array_header_t *noderevs,
               apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  int i;

  for (i = 0; i < noderevs->nelts; i++)
    {
      int n = APR_ARRAY_IDX(noderevs, i, noderev_slot_t).index;
      const svn_fs_fs__pack_item_t *node = item_at(ctx, n);
      int data = lookup(ctx, node->data_rev, node->data_item);

      svn_pool_clear(iterpool);
      place(ctx, n);
      place_chain(ctx, lookup(ctx, node->prop_rev, node->prop_item),
                  iterpool);
      if (data >= 0
          && item_at(ctx, data)->entry.type == SVN_FS_FS__ITEM_TYPE_DIR_REP)
        place_chain(ctx, data, iterpool);
    }
  svn_pool_destroy(iterpool);
}

/* PACK-ORDER-5: file contents, path by path, oldest node-revision first,
   each text after the bases it needs.  NODEREVS is sorted newest first
   within a path, so each path's run is walked backwards. */
static void
place_file_texts(order_ctx_t *ctx, const apr_array_header_t *noderevs,
                 apr_pool_t *scratch_pool)
{
  apr_pool_t *iterpool = svn_pool_create(scratch_pool);
  int run_start = 0, run_end, i;

  while (run_start < noderevs->nelts)
    {
      const char *path = APR_ARRAY_IDX(noderevs, run_start,
                                        noderev_slot_t).path;

      for (run_end = run_start + 1; run_end < noderevs->nelts
           && !strcmp(APR_ARRAY_IDX(noderevs, run_end, noderev_slot_t).path,
                      path); run_end++)
        ;
      for (i = run_end - 1; i >= run_start; i--)
        {
          const svn_fs_fs__pack_item_t *node
            = item_at(ctx, APR_ARRAY_IDX(noderevs, i, noderev_slot_t).index);

          svn_pool_clear(iterpool);
          place_chain(ctx, lookup(ctx, node->data_rev, node->data_item),
                      iterpool);
        }
      run_start = run_end;
    }
  svn_pool_destroy(iterpool);
}

/* PACK-ORDER-6: items no node-revision of the shard refers to (texts
   only later revisions share, unparsable data), in input order. */
static void
place_rest(order_ctx_t *ctx)
{
  int i;

  for (i = 0; i < ctx->items->nelts; i++)
    place(ctx, i);
}

void
svn_fs_fs__pack_order(apr_array_header_t **order,
                      const apr_array_header_t *items,
                      svn_fs_fs__pack_order_mode_t mode,
                      apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  order_ctx_t ctx;
  apr_array_header_t *noderevs;

  ctx.items = items;
  ctx.by_address = apr_hash_make(scratch_pool);
  ctx.placed = apr_pcalloc(scratch_pool,
                           sizeof(svn_boolean_t) * (items->nelts + 1));
  ctx.order = apr_array_make(result_pool, items->nelts + 1, sizeof(int));
  ctx.indexes = apr_palloc(scratch_pool, sizeof(int) * (items->nelts + 1));
  ctx.pool = scratch_pool;
  if (mode != svn_fs_fs__pack_order_concatenate)
    place_changes(&ctx);
  if (mode == svn_fs_fs__pack_order_grouped)
    {
      index_addresses(&ctx);
      noderevs = sorted_noderevs(&ctx, scratch_pool);
      place_metadata(&ctx, noderevs, scratch_pool);
      place_file_texts(&ctx, noderevs, scratch_pool);
    }
  place_rest(&ctx);
  *order = ctx.order;
}
