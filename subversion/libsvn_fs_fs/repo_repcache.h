/* repo_repcache.h --- keeping db/rep-cache.db in step with db/current
 * (admin layer; doc/format/layout.md REPCACHE-1).
 *
 * Owner: the admin layer (repo_recover.c, repo_hotcopy.c, the
 * build-repcache ioctl of fs_vtable.c); implemented by repo_repcache.c
 * and, for incremental hot copies, repo_repcache_copy.c.
 */
#ifndef FSFS7_REPO_REPCACHE_H
#define FSFS7_REPO_REPCACHE_H

#include "svn_error.h"
#include "svn_fs.h"
#include "svn_types.h"
#include <apr_pools.h>

/* The input of ioctl "fsfs":1004 (svnadmin build-repcache): the
   revisions to record and whom to tell after each.  Its layout is
   svnadmin's ABI; we cannot include svnadmin's private header next to
   fsfs7.h (both name svn_fs_fs__id_part_t). */
typedef struct svn_fs_fs__repcache_range_t
{
  svn_revnum_t start_rev;
  svn_revnum_t end_rev;
  svn_fs_progress_notify_func_t progress_func;
  void *progress_baton;
} svn_fs_fs__repcache_range_t;

/* Delete the rows of DB_PATH/rep-cache.db that name revisions after
   YOUNGEST (REPCACHE-1).  A missing rep-cache.db is left missing: it is
   never created here.  Errors from SQLite become SVN_ERR_SQLITE_ERROR. */
svn_error_t *
svn_fs_fs__rep_cache_prune(const char *db_path, svn_revnum_t youngest,
                           apr_pool_t *scratch_pool);

/* Bring DST_PATH, the rep-cache.db of an earlier hot copy, up to date
   with SRC_PATH, the source repository's, by inserting the source's rows
   above DST_PATH's largest rowid that name revisions up to YOUNGEST, with
   their rowids, in one transaction (HOTCOPY-5).  Only when both are rowid
   tables of schema version 1 and agree on the rows they share (the
   copy's last row and the number of rows up to it); then *APPENDED is
   TRUE and the copy holds no row after YOUNGEST that it did not hold
   before.  Otherwise DST_PATH is left as it was and *APPENDED is FALSE:
   the caller copies the whole file; so too when DST_PATH is damaged.
   Other SQLite failures (I/O, a full disk, no access) leave DST_PATH as
   it was and give SVN_ERR_SQLITE_ERROR naming both files.  A missing
   DST_PATH is not created. */
svn_error_t *
svn_fs_fs__rep_cache_append_new(svn_boolean_t *appended,
                                const char *src_path, const char *dst_path,
                                svn_revnum_t youngest,
                                apr_pool_t *scratch_pool);

/* Rebuild rep-cache.db rows for revisions START..END of FS (START
   invalid: from r1; END must exist), as 'svnadmin build-repcache' does
   through the fsfs:1004 ioctl (RCACHE-6): every file text rep and
   property rep with a SHA-1 that a node-rev of revision R stored in R
   itself gets its row (rows already there are kept), one SQLite
   transaction per revision, then PROGRESS_FUNC (if any) hears of R.
   SVN_ERR_FS_REP_SHARING_NOT_ALLOWED when fsfs.conf disables
   rep-sharing. */
svn_error_t *
svn_fs_fs__repcache_fill(svn_fs_t *fs,
                         const svn_fs_fs__repcache_range_t *range,
                         svn_cancel_func_t cancel_func, void *cancel_baton,
                         apr_pool_t *scratch_pool);

#endif
