/* node_cache.h --- cache value formats of the nodes layer (cache layer).
 *
 * Serialisers for the membuffer caches created by
 * svn_fs_fs__nodes_init_caches (node.c): node-revisions, root IDs,
 * directory listings, property lists and changed-path blocks.  Values are
 * flat copies of the in-memory structs with pointers stored as offsets;
 * deserialising fixes the pointers in place, so a cache hit costs one
 * memcpy (done by the cache) plus a few pointer adjustments.  The cache
 * lives in one process, so native layout and byte order are fine.
 * Owner: the nodes layer.
 */
#ifndef FSFS7_NODE_CACHE_H
#define FSFS7_NODE_CACHE_H

#include "private/svn_cache.h"
#include "fsfs7.h"

/* svn_fs_fs__noderev_t * */
svn_error_t *
svn_fs_fs__noderev_serialize(void **data, apr_size_t *data_len, void *in,
                             apr_pool_t *pool);
svn_error_t *
svn_fs_fs__noderev_deserialize(void **out, void *data, apr_size_t data_len,
                               apr_pool_t *pool);

/* Partial getter for a serialised node-rev: BATON points to a
   svn_node_kind_t that gets the node's kind; *OUT is BATON.  Reads one
   field: no copy, no allocation. */
svn_error_t *
svn_fs_fs__noderev_get_kind(void **out, const void *data,
                            apr_size_t data_len, void *baton,
                            apr_pool_t *pool);

/* const svn_fs_fs__id_t * */
svn_error_t *
svn_fs_fs__id_serialize(void **data, apr_size_t *data_len, void *in,
                        apr_pool_t *pool);
svn_error_t *
svn_fs_fs__id_deserialize(void **out, void *data, apr_size_t data_len,
                          apr_pool_t *pool);

/* apr_array_header_t * of svn_fs_dirent_t *, sorted by name. */
svn_error_t *
svn_fs_fs__dirents_serialize(void **data, apr_size_t *data_len, void *in,
                             apr_pool_t *pool);
svn_error_t *
svn_fs_fs__dirents_deserialize(void **out, void *data, apr_size_t data_len,
                               apr_pool_t *pool);

/* Partial getter for a serialised listing: BATON is the entry name
   (const char *); *OUT is a svn_fs_dirent_t * copied into POOL, or NULL
   when there is no such entry. */
svn_error_t *
svn_fs_fs__dirents_get_entry(void **out, const void *data,
                             apr_size_t data_len, void *baton,
                             apr_pool_t *pool);

/* apr_hash_t * of property lists (const char * -> svn_string_t *). */
svn_error_t *
svn_fs_fs__props_serialize(void **data, apr_size_t *data_len, void *in,
                           apr_pool_t *pool);
svn_error_t *
svn_fs_fs__props_deserialize(void **out, void *data, apr_size_t data_len,
                             apr_pool_t *pool);

/* One block of a revision's changed-path list. */
typedef struct svn_fs_fs__changes_block_t
{
  apr_array_header_t *changes;     /* svn_fs_fs__change_t * */
  svn_boolean_t done;              /* no entries after this block */
  apr_off_t next_offset;           /* file offset of the next entry */
} svn_fs_fs__changes_block_t;

svn_error_t *
svn_fs_fs__changes_block_serialize(void **data, apr_size_t *data_len,
                                   void *in, apr_pool_t *pool);
svn_error_t *
svn_fs_fs__changes_block_deserialize(void **out, void *data,
                                     apr_size_t data_len, apr_pool_t *pool);

/* Partial getter: *OUT is an apr_off_t * (in POOL) holding the block's
   NEXT_OFFSET, or NULL if the block is the last one. */
svn_error_t *
svn_fs_fs__changes_block_get_next(void **out, const void *data,
                                  apr_size_t data_len, void *baton,
                                  apr_pool_t *pool);

#endif
