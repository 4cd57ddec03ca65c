/* locks_read.h --- the read side of db/locks (storage layer;
 * doc/format/layout.md "Locks", LOCK-*).  Owner: the admin layer.
 *
 * Creating and removing locks is not implemented; reading lets clients
 * of read-only repositories ask "is this locked?".
 */
#ifndef FSFS7_LOCKS_READ_H
#define FSFS7_LOCKS_READ_H

#include "fsfs7.h"

/* Hex MD5 of the canonical fs path PATH: the name of its digest file
   (LOCK-1).  In POOL. */
const char *
svn_fs_fs__lock_digest(const char *path, apr_pool_t *pool);

/* db/locks/<d[0..2]>/<DIGEST>.  In POOL. */
const char *
svn_fs_fs__lock_digest_path(svn_fs_t *fs, const char *digest,
                            apr_pool_t *pool);

/* Parse digest file DIGEST into *PROPS (hash dump), NULL if it does not
   exist.  In POOL. */
svn_error_t *
svn_fs_fs__lock_read_digest(apr_hash_t **props, svn_fs_t *fs,
                            const char *digest, apr_pool_t *pool);

/* The lock recorded in digest-file PROPS, expired or not, or NULL if
   PROPS records none (LOCK-2).  Points into PROPS' strings. */
svn_error_t *
svn_fs_fs__lock_parse(svn_lock_t **lock, apr_hash_t *props,
                      apr_pool_t *pool);

/* TRUE if LOCK has an expiration date in the past. */
svn_boolean_t
svn_fs_fs__lock_expired(const svn_lock_t *lock);

/* The lock on PATH (canonical fs path) in *LOCK, or NULL if there is none
   or it has expired.  Allocated in POOL. */
svn_error_t *
svn_fs_fs__locks_get(svn_lock_t **lock, svn_fs_t *fs, const char *path,
                     apr_pool_t *pool);

/* Call GET_LOCKS_FUNC for every unexpired lock on PATH or below it, down
   to DEPTH. */
svn_error_t *
svn_fs_fs__locks_walk(svn_fs_t *fs, const char *path, svn_depth_t depth,
                      svn_fs_get_locks_callback_t get_locks_func,
                      void *get_locks_baton, apr_pool_t *pool);

/* May the user of FS's access context change PATH (and, when RECURSE,
   everything below it)?  Every unexpired lock found must be owned by the
   access context's user, who must have given its token; otherwise
   SVN_ERR_FS_NO_USER, SVN_ERR_FS_LOCK_OWNER_MISMATCH or
   SVN_ERR_FS_BAD_LOCK_TOKEN with the stock module's messages. */
svn_error_t *
svn_fs_fs__allow_locked_operation(svn_fs_t *fs, const char *path,
                                  svn_boolean_t recurse, apr_pool_t *pool);

#endif
