/* history.h --- node history and copy tracing of revision roots
 * (semantics layer; root vtable entries node_history and closest_copy,
 * and the mergeinfo entry implemented in mergeinfo.c).
 * Owner: the tree layer.
 */
#ifndef FSFS7_HISTORY_H
#define FSFS7_HISTORY_H

#include "fsfs7.h"
#include "lookup.h"

/* Root vtable node_history: a history object positioned at PATH in ROOT
   that has not reported anything yet.  SVN_ERR_FS_NOT_FOUND (naming PATH
   as given) if there is no such node.  Lives in RESULT_POOL. */
svn_error_t *
svn_fs_fs__node_history(svn_fs_history_t **history_p, svn_fs_root_t *root,
                        const char *path, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool);

/* Root vtable closest_copy: the root and path of the destination of the
   youngest copy that put PATH@ROOT where it is, or NULLs.  *ROOT_P is a
   new revision root in POOL. */
svn_error_t *
svn_fs_fs__closest_copy(svn_fs_root_t **root_p, const char **path_p,
                        svn_fs_root_t *root, const char *path,
                        apr_pool_t *pool);

/* The copy root that governs LEAF's path: among the copy roots recorded
   in the node-revs from the root down to LEAF, the youngest, the one
   nearest the root winning ties. */
void
svn_fs_fs__youngest_copyroot(svn_revnum_t *rev_p, const char **path_p,
                             const svn_fs_fs__path_step_t *leaf);

/* The root vtable's get_mergeinfo (mergeinfo.c): for each of PATHS in
   ROOT, call RECEIVER(path as given, its mergeinfo, BATON) when it has
   any, explicit or inherited as HOW allows (inherited ranges adjusted
   to the child path when ADJUST); with DEEP also once per node below
   it that carries svn:mergeinfo. */
svn_error_t *
svn_fs_fs__root_mergeinfo(svn_fs_root_t *root, const apr_array_header_t *paths,
                          svn_mergeinfo_inheritance_t how, svn_boolean_t deep,
                          svn_boolean_t adjust, svn_fs_mergeinfo_receiver_t
                          receiver, void *baton, apr_pool_t *scratch_pool);

#endif
