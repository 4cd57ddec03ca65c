/* tree.h --- FS semantics of revision roots (semantics layer).
 *
 * The root vtable (path lookup, node queries, contents, properties,
 * changed paths, mergeinfo), the history vtable and root verification.
 * Owner: the tree layer (tree.c, history.c, mergeinfo.c).
 */
#ifndef FSFS7_TREE_H
#define FSFS7_TREE_H

#include "fsfs7.h"

/* A root object for revision REV of FS, in POOL. */
svn_error_t *
svn_fs_fs__revision_root(svn_fs_root_t **root_p, svn_fs_t *fs,
                         svn_revnum_t rev, apr_pool_t *pool);

/* Consistency checks of ROOT's tree (fs vtable verify_root). */
svn_error_t *
svn_fs_fs__verify_root(svn_fs_root_t *root, apr_pool_t *pool);

#endif
