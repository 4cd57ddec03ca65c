/* node_walk.h --- the node-revision at a path of a committed revision
 * (storage layer, nodes; read side).
 *
 * For storage code that must look at the tree without the root API of
 * the semantics layer (tree.c): 'svn lock' checks its targets in HEAD,
 * 'svnadmin recover' checks that the youngest root can be read.  Built
 * from node.h only: root id, node-revisions, directory entries.
 * Owner: the nodes layer (node_walk.c).
 */
#ifndef FSFS7_NODE_WALK_H
#define FSFS7_NODE_WALK_H

#include "fsfs7.h"

/* *NODEREV = the node-revision at PATH in committed revision REV of FS,
   in RESULT_POOL, or NULL where there is none -- also when a component
   before the last one is not a directory, as the root API's check_path
   answers "none" there.  PATH is "/"-separated; empty components (a
   leading, doubled or trailing "/") are skipped, so "" and "/" name the
   root.  The revision must exist (SVN_ERR_FS_NO_SUCH_REVISION). */
svn_error_t *
svn_fs_fs__node_at_path(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                        svn_revnum_t rev, const char *path,
                        apr_pool_t *result_pool, apr_pool_t *scratch_pool);

#endif
