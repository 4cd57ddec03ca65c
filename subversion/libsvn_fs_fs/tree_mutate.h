/* tree_mutate.h --- changing the tree of a transaction (semantics layer).
 *
 * Owns: copy-on-write of node-revisions along a path (making a path
 * mutable), and the write entries of the root vtable for transaction
 * roots: make_dir, make_file, delete_node, copy, revision_link,
 * change_node_prop, apply_textdelta, apply_text.  Each records its
 * changed-path entry in the transaction (txn_store.h).  Errors and their
 * codes are the stock module's (e.g. SVN_ERR_FS_ALREADY_EXISTS,
 * SVN_ERR_FS_NOT_MUTABLE, SVN_ERR_CHECKSUM_MISMATCH).
 */
#ifndef FSFS7_TREE_MUTATE_H
#define FSFS7_TREE_MUTATE_H

#include "fsfs7.h"
#include "svn_delta.h"

/* Make the node at PATH of transaction root ROOT and all its parents
   mutable (copying committed node-revs into the transaction, with fresh
   node/copy ids where a copy is involved, predecessor and predecessor
   count set), and return its now mutable node-rev in *NODEREV (RESULT_POOL).
   ERROR_PATH names the path in errors. */
svn_error_t *
svn_fs_fs__make_path_mutable(svn_fs_fs__noderev_t **noderev,
                             svn_fs_root_t *root, const char *path,
                             apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool);

/* Root vtable write entries for transaction roots (fs-loader.h). */
svn_error_t *
svn_fs_fs__txn_make_dir(svn_fs_root_t *root, const char *path,
                        apr_pool_t *pool);
svn_error_t *
svn_fs_fs__txn_make_file(svn_fs_root_t *root, const char *path,
                         apr_pool_t *pool);
svn_error_t *
svn_fs_fs__txn_delete_node(svn_fs_root_t *root, const char *path,
                           apr_pool_t *pool);
svn_error_t *
svn_fs_fs__txn_copy(svn_fs_root_t *from_root, const char *from_path,
                    svn_fs_root_t *to_root, const char *to_path,
                    apr_pool_t *pool);
svn_error_t *
svn_fs_fs__txn_revision_link(svn_fs_root_t *from_root, svn_fs_root_t *to_root,
                             const char *path, apr_pool_t *pool);
svn_error_t *
svn_fs_fs__txn_change_node_prop(svn_fs_root_t *root, const char *path,
                                const char *name, const svn_string_t *value,
                                apr_pool_t *pool);
svn_error_t *
svn_fs_fs__txn_apply_textdelta(svn_txdelta_window_handler_t *contents_p,
                               void **contents_baton_p, svn_fs_root_t *root,
                               const char *path,
                               svn_checksum_t *base_checksum,
                               svn_checksum_t *result_checksum,
                               apr_pool_t *pool);
svn_error_t *
svn_fs_fs__txn_apply_text(svn_stream_t **contents_p, svn_fs_root_t *root,
                          const char *path, svn_checksum_t *result_checksum,
                          apr_pool_t *pool);

#endif
