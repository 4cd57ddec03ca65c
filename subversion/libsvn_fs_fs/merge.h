/* merge.h --- three-way tree merge (semantics layer).
 *
 * Owns: merging the changes between ANCESTOR and SOURCE into a
 * transaction tree TARGET, the way the stock module does before a
 * commit (svn_fs_merge and commit's out-of-date handling): conflict
 * detection, the conflict path reported, the error messages
 * (SVN_ERR_FS_CONFLICT), and the mergeinfo-count bookkeeping.
 */
#ifndef FSFS7_MERGE_H
#define FSFS7_MERGE_H

#include "fsfs7.h"

/* Root vtable entry "merge" (fs-loader.h): merge SOURCE_ROOT:SOURCE_PATH
   into the transaction root TARGET_ROOT:TARGET_PATH relative to
   ANCESTOR_ROOT:ANCESTOR_PATH.  On conflict *CONFLICT_P (POOL) names the
   conflicting path and SVN_ERR_FS_CONFLICT is returned. */
svn_error_t *
svn_fs_fs__merge(const char **conflict_p, svn_fs_root_t *source_root,
                 const char *source_path, svn_fs_root_t *target_root,
                 const char *target_path, svn_fs_root_t *ancestor_root,
                 const char *ancestor_path, apr_pool_t *pool);

/* What commit needs: merge revision SOURCE_REV (the youngest) into the
   transaction of TXN_ROOT, whose base is ANCESTOR_REV, and on success
   make the transaction's root a successor of SOURCE_REV's root (its
   predecessor and predecessor count), so that it can be committed as
   SOURCE_REV + 1.  Conflicts as above, with the conflict path in
   *CONFLICT_P ("" when none). */
svn_error_t *
svn_fs_fs__merge_into_txn(const char **conflict_p, svn_fs_root_t *txn_root,
                          svn_revnum_t ancestor_rev, svn_revnum_t source_rev,
                          apr_pool_t *result_pool, apr_pool_t *scratch_pool);

#endif
