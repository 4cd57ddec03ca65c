/* pack_order.h --- where each item of a logically addressed shard goes in
 * its pack file (pure: no I/O; doc/format/pack.md, PACK-ORDER-*).
 *
 * Under logical addressing an item is found through the L2P index, never
 * by its position, so any permutation of a shard's items is a valid pack
 * file.  This file chooses the permutation; pack.c supplies what it knows
 * about each item (read from the item's bytes) and copies the items in
 * the order returned.  Owner: the pack files (pack.c, pack_order.c).
 */
#ifndef FSFS7_PACK_ORDER_H
#define FSFS7_PACK_ORDER_H

#include "fsfs7.h"
#include "index.h"

/* One item of the shard, as pack.c found it in its revision file. */
typedef struct svn_fs_fs__pack_item_t
{
  /* Revision, item index, type, size, FNV-1a checksum and offset within
     the revision file the item comes from. */
  svn_fs_fs__p2l_entry_t entry;

  /* Node-revisions: the path it was created at (NULL for other items or
     when unknown) and its text / directory rep and property rep (revision
     SVN_INVALID_REVNUM when absent). */
  const char *path;
  svn_revnum_t data_rev;
  apr_uint64_t data_item;
  svn_revnum_t prop_rev;
  apr_uint64_t prop_item;

  /* Representations stored as a delta: the base (revision
     SVN_INVALID_REVNUM for self-contained reps or when unknown). */
  svn_revnum_t base_rev;
  apr_uint64_t base_item;
} svn_fs_fs__pack_item_t;

/* Initialise ITEM from ENTRY with nothing else known. */
void
svn_fs_fs__pack_item_init(svn_fs_fs__pack_item_t *item,
                          const svn_fs_fs__p2l_entry_t *entry);

/* How to order a shard's items (pack.md §3). */
typedef enum svn_fs_fs__pack_order_mode_t
{
  /* The unpacked order: revision by revision. */
  svn_fs_fs__pack_order_concatenate,
  /* PACK-ORDER-2, then the rest revision by revision. */
  svn_fs_fs__pack_order_changes_first,
  /* PACK-ORDER-2..6. */
  svn_fs_fs__pack_order_grouped
} svn_fs_fs__pack_order_mode_t;

/* The order in which to write ITEMS (svn_fs_fs__pack_item_t) into the
   pack file: *ORDER gets ITEMS->nelts ints, indexes into ITEMS, each
   exactly once (PACK-ORDER-1), allocated in RESULT_POOL, arranged as
   MODE says.  References to items that are not in ITEMS (other shards)
   are ignored. */
void
svn_fs_fs__pack_order(apr_array_header_t **order,
                      const apr_array_header_t *items,
                      svn_fs_fs__pack_order_mode_t mode,
                      apr_pool_t *result_pool, apr_pool_t *scratch_pool);

#endif
