/* locks_read.h --- the read side of db/locks (storage layer;
 * doc/format/layout.md "Locks", LOCK-*).  Owner: the admin layer.
 *
 * Creating and removing locks is not implemented; reading lets clients
 * of read-only repositories ask "is this locked?".
 */
#ifndef FSFS7_LOCKS_READ_H
#define FSFS7_LOCKS_READ_H

#include "fsfs7.h"

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

#endif
