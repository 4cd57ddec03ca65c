/* revprops.h --- revision properties, plain and packed
 * (storage layer; doc/format/revprops.md).  Owner: the admin layer.
 */
#ifndef FSFS7_REVPROPS_H
#define FSFS7_REVPROPS_H

#include "fsfs7.h"

/* All revprops of REV (const char * -> svn_string_t *), in RESULT_POOL.
   REFRESH: bypass any cached copy (another process may have changed it). */
svn_error_t *
svn_fs_fs__get_revprops(apr_hash_t **proplist, svn_fs_t *fs, svn_revnum_t rev,
                        svn_boolean_t refresh, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool);

/* Replace the revprops of REV with PROPLIST (under the write lock). */
svn_error_t *
svn_fs_fs__set_revprops(svn_fs_t *fs, svn_revnum_t rev, apr_hash_t *proplist,
                        apr_pool_t *scratch_pool);

/* Create FS's revprop cache (ffd->revprop_cache) with a key space of its
   own; called by svn_fs_fs__open_repo after svn_fs_fs__init_caches. */
svn_error_t *
svn_fs_fs__revprops_init_caches(svn_fs_t *fs, apr_pool_t *scratch_pool);

/* Forget cached revprops (fs vtable refresh_revprops). */
svn_error_t *
svn_fs_fs__reset_revprop_cache(svn_fs_t *fs);

#endif
