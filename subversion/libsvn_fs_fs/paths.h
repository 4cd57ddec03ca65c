/* paths.h --- where each file of an FSFS repository lives (doc/format/layout.md).
 *
 * Pure path arithmetic over the private data (shard size, pack state); no
 * I/O.  All results are allocated in RESULT_POOL.
 */
#ifndef FSFS7_PATHS_H
#define FSFS7_PATHS_H

#include "fsfs7.h"

/* db/<NAME> */
const char *
svn_fs_fs__path_db(svn_fs_t *fs, const char *name, apr_pool_t *result_pool);

/* Shard number of REV (REV itself for the linear layout's "shard" 0). */
svn_revnum_t
svn_fs_fs__shard_of(svn_fs_t *fs, svn_revnum_t rev);

/* First revision of the shard holding REV. */
svn_revnum_t
svn_fs_fs__shard_start(svn_fs_t *fs, svn_revnum_t rev);

/* db/revs/<shard>/<rev> (or db/revs/<rev> for the linear layout). */
const char *
svn_fs_fs__path_rev(svn_fs_t *fs, svn_revnum_t rev, apr_pool_t *result_pool);

/* db/revs/<shard>.pack/<KIND> with KIND "pack" or "manifest". */
const char *
svn_fs_fs__path_rev_packed(svn_fs_t *fs, svn_revnum_t rev, const char *kind,
                           apr_pool_t *result_pool);

/* db/revs/<shard> (the directory). */
const char *
svn_fs_fs__path_rev_shard(svn_fs_t *fs, svn_revnum_t rev,
                          apr_pool_t *result_pool);

/* db/revprops/<shard>/<rev> (or db/revprops/<rev>). */
const char *
svn_fs_fs__path_revprops(svn_fs_t *fs, svn_revnum_t rev,
                         apr_pool_t *result_pool);

/* db/revprops/<shard> (the directory). */
const char *
svn_fs_fs__path_revprops_shard(svn_fs_t *fs, svn_revnum_t rev,
                               apr_pool_t *result_pool);

/* db/revprops/<shard>.pack (the directory). */
const char *
svn_fs_fs__path_revprops_pack_shard(svn_fs_t *fs, svn_revnum_t rev,
                                    apr_pool_t *result_pool);

#endif
