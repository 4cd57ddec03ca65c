/* txn.h --- transactions as the FS API sees them (semantics layer).
 *
 * Owns: the fs vtable's begin_txn / open_txn / purge_txn /
 * list_transactions, the txn vtable (commit is delegated to commit.h,
 * abort, txn properties, root), and transaction roots: svn_fs_root_t
 * objects whose read entries are tree.c's and whose write entries are
 * tree_mutate.c's.  Storage is txn_store.h.
 */
#ifndef FSFS7_TXN_H
#define FSFS7_TXN_H

#include "fsfs7.h"

/* svn_fs_txn_t->fsap_data of our transactions. */
typedef struct svn_fs_fs__txn_data_t
{
  svn_fs_fs__txn_id_t txn_id;
} svn_fs_fs__txn_data_t;

/* fs vtable entries (signatures as in libsvn_fs/fs-loader.h). */
svn_error_t *
svn_fs_fs__begin_txn(svn_fs_txn_t **txn_p, svn_fs_t *fs, svn_revnum_t rev,
                     apr_uint32_t flags, apr_pool_t *pool);
svn_error_t *
svn_fs_fs__open_txn(svn_fs_txn_t **txn_p, svn_fs_t *fs, const char *name,
                    apr_pool_t *pool);
svn_error_t *
svn_fs_fs__purge_txn(svn_fs_t *fs, const char *txn_name, apr_pool_t *pool);
svn_error_t *
svn_fs_fs__list_transactions(apr_array_header_t **names_p, svn_fs_t *fs,
                             apr_pool_t *pool);

/* The root of transaction TXN (txn vtable "root"), in POOL. */
svn_error_t *
svn_fs_fs__txn_root(svn_fs_root_t **root_p, svn_fs_txn_t *txn,
                    apr_pool_t *pool);

/* Our transaction id of ROOT, which must be a transaction root. */
const svn_fs_fs__txn_id_t *
svn_fs_fs__root_txn_id(svn_fs_root_t *root);

#endif
