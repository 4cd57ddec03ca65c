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

/* svn_fs_verify's check of REV's revprops (REVPROP-5): read from disk
   (no cache), they must parse, and svn:date, when set, must be a valid
   timestamp (SVN_ERR_BAD_DATE otherwise, as stock). */
svn_error_t *
svn_fs_fs__verify_revprops(svn_fs_t *fs, svn_revnum_t rev,
                           apr_pool_t *scratch_pool);

/* The part of svn_fs_fs__verify_revprops that checks the manifest of
   REV's packed shard, if REV is packed: REV's line (RPPACK-1..3) and the
   number of lines (RPPACK-1). */
svn_error_t *
svn_fs_fs__verify_revprop_manifest(svn_fs_t *fs, svn_revnum_t rev,
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

/* How many pack files of revprops FS holds parsed now (at most four;
   for tests). */
int
svn_fs_fs__revprop_packs_held(svn_fs_t *fs);

/* Pack the revprops of complete shard SHARD of FS (RPPACK-8): write
   db/revprops/<SHARD>.pack/ with pack files of at most ~90% of the
   configured size and the manifest, from the plain files, which are left
   in place.  An existing (half-written) pack directory is replaced; the
   new one takes the mode of db/revprops/<SHARD>, its files the default
   mode.  Nothing is fsynced here: svn_fs_fs__pack_revprops_durably
   (pack.h) packs and then syncs.  CANCEL_FUNC may be NULL.  The caller
   holds the pack lock. */
svn_error_t *
svn_fs_fs__pack_revprops_shard(svn_fs_t *fs, svn_revnum_t shard,
                               svn_cancel_func_t cancel_func,
                               void *cancel_baton, apr_pool_t *scratch_pool);

/* The directory of the plain revprop files of SHARD in *DIR, and in *KEEP
   the name of the one entry that stays when the shard is packed (r0,
   RPPACK-0), or NULL if the whole directory goes.  In RESULT_POOL. */
void
svn_fs_fs__unpacked_revprops_dir(const char **dir, const char **keep,
                                 svn_fs_t *fs, svn_revnum_t shard,
                                 apr_pool_t *result_pool);

/* Delete the plain revprop files of packed shard SHARD (r0 stays).  Call
   only after db/min-unpacked-rev has moved past the shard. */
svn_error_t *
svn_fs_fs__remove_unpacked_revprops(svn_fs_t *fs, svn_revnum_t shard,
                                    apr_pool_t *scratch_pool);

#endif
