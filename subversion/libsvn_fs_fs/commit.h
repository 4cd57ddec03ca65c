/* commit.h --- turning a transaction into a revision (storage layer,
 * with the semantic checks commit owes: out-of-date merge loop, locks).
 *
 * Owns: the txn vtable's commit, the final revision file (format 6:
 * physical offsets and trailer; format 7/8: item indexes, L2P and P2L
 * indexes and footer), the revprops of the new revision, the atomic bump
 * of db/current under the write lock, rep-cache.db updates, and the
 * commit protocol of doc/format/commit.md.
 */
#ifndef FSFS7_COMMIT_H
#define FSFS7_COMMIT_H

#include "fsfs7.h"

/* txn vtable "commit" (fs-loader.h): merge with the youngest revision as
   needed (merge.h), check locks when the transaction asks for it, write
   the revision and make it visible.  On conflict *CONFLICT_P names the
   path and SVN_ERR_FS_CONFLICT is returned; on success *NEW_REV is the
   new revision and the transaction is gone. */
svn_error_t *
svn_fs_fs__commit_txn(const char **conflict_p, svn_revnum_t *new_rev,
                      svn_fs_txn_t *txn, apr_pool_t *pool);

#endif
