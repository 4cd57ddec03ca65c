/* locks_write.h --- creating and removing locks in db/locks
 * (storage layer; doc/format/layout.md "Locks", LOCK-*).  Owner: the
 * admin layer.  Reading is in locks_read.h.
 */
#ifndef FSFS7_LOCKS_WRITE_H
#define FSFS7_LOCKS_WRITE_H

#include "fsfs7.h"

/* The fs vtable's lock: lock every path of TARGETS (const char * ->
   svn_fs_lock_target_t *) for fs->access_ctx's user, under the write
   lock, reporting each path's outcome to LOCK_CALLBACK.  Returns the
   first callback error, or SVN_ERR_FS_NO_USER if nobody is logged in. */
svn_error_t *
svn_fs_fs__locks_lock(svn_fs_t *fs, apr_hash_t *targets,
                      const char *comment, svn_boolean_t is_dav_comment,
                      apr_time_t expiration_date, svn_boolean_t steal_lock,
                      svn_fs_lock_callback_t lock_callback, void *lock_baton,
                      apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* The fs vtable's unlock: TARGETS maps paths to tokens (const char *). */
svn_error_t *
svn_fs_fs__locks_unlock(svn_fs_t *fs, apr_hash_t *targets,
                        svn_boolean_t break_lock,
                        svn_fs_lock_callback_t lock_callback,
                        void *lock_baton, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool);

/* A new "opaquelocktoken:<uuid>" in POOL. */
const char *
svn_fs_fs__generate_lock_token(apr_pool_t *pool);

#endif
