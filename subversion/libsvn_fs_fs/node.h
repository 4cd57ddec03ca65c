/* node.h --- node-revisions, directories, node properties and changed-path
 * lists as stored in revisions (storage layer, read side).
 *
 * Locates an item through index.h, reads it through revfile.h / rep_read.h
 * and parses it with the codecs (noderev_codec.h, dirent_codec.h,
 * changes_codec.h, hashdump.h).  Owner: the nodes layer (node.c).
 */
#ifndef FSFS7_NODE_H
#define FSFS7_NODE_H

#include "fsfs7.h"

/* The node-revision with ID, in RESULT_POOL.  Committed IDs are read from
   the revision (and cached); transaction IDs from the transaction's
   node.<node>.<copy> file (never cached). */
svn_error_t *
svn_fs_fs__get_noderev(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                       const svn_fs_fs__id_t *id, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool);

/* Like svn_fs_fs__get_noderev, but a committed node-rev is read from its
   revision (and then cached) without asking the cache first: for
   node-revs that the caller knows were never read before (verify_root's
   of the revision it checks), where asking the cache costs a miss, and
   a miss in a large membuffer costs more than a hit.  Unlike there, the
   node-rev is cached on this first read (the caller expects it to be
   read again: replay follows verify_root), not the second
   (cache_admit.h). */
svn_error_t *
svn_fs_fs__get_noderev_fresh(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                             const svn_fs_fs__id_t *id,
                             apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

/* The kind of the node-revision with ID, as svn_fs_fs__get_noderev
   would read it (and with the same errors), without copying the cached
   node-rev out of the cache when it is there. */
svn_error_t *
svn_fs_fs__get_noderev_kind(svn_node_kind_t *kind, svn_fs_t *fs,
                            const svn_fs_fs__id_t *id,
                            apr_pool_t *scratch_pool);

/* ID of the root directory node-rev of REV. */
svn_error_t *
svn_fs_fs__rev_root_id(const svn_fs_fs__id_t **root_id, svn_fs_t *fs,
                       svn_revnum_t rev, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool);

/* Entries of directory NODEREV as an array of svn_fs_dirent_t *, sorted
   by name (strcmp), in RESULT_POOL.  A directory whose listing is mutable
   (text rep belongs to a transaction) is read from its ".children" file. */
svn_error_t *
svn_fs_fs__dir_entries(apr_array_header_t **entries, svn_fs_t *fs,
                       const svn_fs_fs__noderev_t *noderev,
                       apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Like svn_fs_fs__dir_entries, but a committed listing is read from its
   representation (and then cached) without asking the listing cache
   first; see svn_fs_fs__get_noderev_fresh. */
svn_error_t *
svn_fs_fs__dir_entries_fresh(apr_array_header_t **entries, svn_fs_t *fs,
                             const svn_fs_fs__noderev_t *noderev,
                             apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

/* This process has just appended to the ".children" file of transaction
   directory DIR_ID one change of APPENDED bytes: NAME set to KIND / ID, or
   NAME removed when ID is NULL.  Keeps the in-memory listing of DIR_ID in
   step with the file, or drops it when the file is not exactly the cached
   one plus this change (someone else wrote to it too). */
svn_error_t *
svn_fs_fs__txn_dir_changed(svn_fs_t *fs, const svn_fs_fs__id_t *dir_id,
                           const char *name, svn_node_kind_t kind,
                           const svn_fs_fs__id_t *id, apr_size_t appended,
                           apr_pool_t *scratch_pool);

/* Forget the in-memory listing of transaction directory DIR_ID (its
   ".children" file was rewritten or removed). */
void
svn_fs_fs__txn_dir_forget(svn_fs_t *fs, const svn_fs_fs__id_t *dir_id,
                          apr_pool_t *scratch_pool);

/* Free the in-memory listings of transaction TXN_ID (it is committed or
   removed). */
void
svn_fs_fs__txn_dir_forget_txn(svn_fs_t *fs,
                              const svn_fs_fs__txn_id_t *txn_id);

/* Entry NAME of directory NODEREV, or NULL if there is none. */
svn_error_t *
svn_fs_fs__dir_entry(svn_fs_dirent_t **dirent, svn_fs_t *fs,
                     const svn_fs_fs__noderev_t *noderev, const char *name,
                     apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Properties of NODEREV (const char * -> svn_string_t *), never NULL.
   Mutable property lists come from the transaction's ".props" file. */
svn_error_t *
svn_fs_fs__node_proplist(apr_hash_t **props, svn_fs_t *fs,
                         const svn_fs_fs__noderev_t *noderev,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Changed-path list of REV, at most MAX_COUNT entries starting with entry
   number FIRST (0-based), as svn_fs_fs__change_t *.  *DONE is set when no
   entries follow.  Lets callers walk huge lists in bounded memory. */
svn_error_t *
svn_fs_fs__rev_changes_block(apr_array_header_t **changes,
                             svn_boolean_t *done, svn_fs_t *fs,
                             svn_revnum_t rev, apr_size_t first,
                             apr_size_t max_count, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

/* The whole changed-path list of REV. */
svn_error_t *
svn_fs_fs__rev_changes(apr_array_header_t **changes, svn_fs_t *fs,
                       svn_revnum_t rev, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool);

/* Create this layer's caches in MEMBUFFER (see caching.h). */
svn_error_t *
svn_fs_fs__nodes_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                             const char *prefix, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

#endif
