/* repo.h --- creating and opening a repository's db/ directory
 * (storage layer; doc/format/layout.md, format.md, fsfs-conf.md, r0.md).
 *
 * Owner: the admin layer (repo_create.c, repo_open.c, repo_shared.c,
 * repo_verify.c, format.c, fsconf.c, fs_vtable.c).
 */
#ifndef FSFS7_REPO_H
#define FSFS7_REPO_H

#include "private/svn_mutex.h"
#include "fsfs7.h"

/* The fs vtable handed to the loader (fs_vtable.c). */
extern const fs_vtable_t svn_fs_fs__fs_vtable;

/* Create a new repository at PATH for FS: format per fs->config
   (compatible-version, pre-1.x-compatible, fsfs-shard-size,
   fsfs-log-addressing) exactly as stock 1.14 would, with r0, then open
   it.  Allocates fs->fsap_data. */
svn_error_t *
svn_fs_fs__create_repo(svn_fs_t *fs, const char *path,
                       apr_pool_t *scratch_pool);

/* The bytes of revision 0's rev file as stock writes it for logical
   (LOGICAL) or physical addressing (doc/format/r0.md).  Static data. */
void
svn_fs_fs__r0_contents(const unsigned char **data, apr_size_t *len,
                       svn_boolean_t logical);

/* Open the repository at PATH into FS: read format, uuid, fsfs.conf,
   min-unpacked-rev; set fs->vtable; set up caches.  Allocates
   fs->fsap_data in fs->pool. */
svn_error_t *
svn_fs_fs__open_repo(svn_fs_t *fs, const char *path,
                     apr_pool_t *scratch_pool);

/* Like svn_fs_fs__open_repo but tolerant of a damaged db/current, for
   'svnadmin recover'. */
svn_error_t *
svn_fs_fs__open_repo_for_recovery(svn_fs_t *fs, const char *path,
                                  apr_pool_t *scratch_pool);

/* Upgrade the repository at PATH, opened into FS, to format 8 the way
   stock 1.14 does (FORMAT-7): layout and addressing are kept, db/uuid
   gets a new instance id, db/format is rewritten, NOTIFY_FUNC (may be
   NULL) hears svn_fs_upgrade_format_bumped.  A format 8 repository is
   left alone.  Takes all locks. */
svn_error_t *
svn_fs_fs__upgrade(svn_fs_t *fs, const char *path,
                   svn_fs_upgrade_notify_t notify_func, void *notify_baton,
                   apr_pool_t *scratch_pool);

/* 'svnadmin recover' for FS opened with svn_fs_fs__open_repo_for_recovery
   (CURRENT-2): under all locks, find the youngest revision present on
   disk, check that its root can be read, and rewrite db/current to name
   it.  A db/current naming a newer revision than exists is an error, as
   with stock.  CANCEL_FUNC may be NULL. */
svn_error_t *
svn_fs_fs__recover(svn_fs_t *fs, svn_cancel_func_t cancel_func,
                   void *cancel_baton, apr_pool_t *scratch_pool);

/* 'svnadmin hotcopy' (HOTCOPY-1): copy the repository at SRC_PATH into
   a new one at DST_PATH, up to the youngest revision at the start, with
   the same uuid and (format 7+) a new instance id; then open DST_FS on
   it.  NOTIFY_FUNC (may be NULL) hears each packed shard and unpacked
   revision copied.  INCREMENTAL with an existing copy at DST_PATH brings
   it up to date (HOTCOPY-3; DST_FS is then opened first to check it);
   without one it means a full copy.  Holds SRC's pack lock (format 7+)
   so the source cannot be packed meanwhile; commits may continue. */
svn_error_t *
svn_fs_fs__hotcopy(svn_fs_t *src_fs, svn_fs_t *dst_fs, const char *src_path,
                   const char *dst_path, svn_boolean_t incremental,
                   svn_fs_hotcopy_notify_t notify_func, void *notify_baton,
                   svn_cancel_func_t cancel_func, void *cancel_baton,
                   apr_pool_t *scratch_pool);

/* svn_fs_verify's checks of FS, open, for revisions [START, END] (both
   valid, END at most the youngest): index consistency and revprops of
   every rev / pack file (logical addressing), then the rep-cache.db rows
   (repo_verify.c).  NOTIFY_FUNC (may be NULL) gets the first revision of
   each shard checked and SVN_INVALID_REVNUM before the rep-cache. */
svn_error_t *
svn_fs_fs__verify(svn_fs_t *fs, svn_revnum_t start, svn_revnum_t end,
                  svn_fs_progress_notify_func_t notify_func,
                  void *notify_baton, svn_cancel_func_t cancel_func,
                  void *cancel_baton, apr_pool_t *scratch_pool);

/* fs_ioctl's index codes (repo_index_tool.c): `svnfsfs dump-index`
   (fsfs:1001) and `svnfsfs load-index` (fsfs:1002) on FS with INPUT in
   the layout of upstream's svn_fs_fs_private.h.  *HANDLED is FALSE for
   any other code (nothing done). */
svn_error_t *
svn_fs_fs__index_ioctl(svn_boolean_t *handled, svn_fs_t *fs,
                       svn_fs_ioctl_code_t ctlcode, void *input,
                       svn_cancel_func_t cancel_func, void *cancel_baton,
                       apr_pool_t *scratch_pool);

/* fs_ioctl's statistics code (repo_stats.c): `svnfsfs stats`
   (fsfs:1000), INPUT and *OUTPUT_P (in RESULT_POOL) in the layout of
   upstream's svn_fs_fs_private.h.  *HANDLED is FALSE for any other code
   (nothing done). */
svn_error_t *
svn_fs_fs__stats_ioctl(svn_boolean_t *handled, svn_fs_t *fs,
                       svn_fs_ioctl_code_t ctlcode, void *input,
                       void **output_p, svn_cancel_func_t cancel_func,
                       void *cancel_baton, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool);

/* Fill the svn_fs_fsfs_info_t of FS. */
svn_error_t *
svn_fs_fs__info_fsap(const void **fsap_info, svn_fs_t *fs,
                     apr_pool_t *result_pool, apr_pool_t *scratch_pool);

/* Deep copy of an svn_fs_fsfs_info_t. */
void *
svn_fs_fs__info_fsap_dup(const void *fsap_info, apr_pool_t *result_pool);

/* ------------------------------------------------------------------ */
/* Per-repository shared data and locks (repo_shared.c)                */

/* Hand in the loader's COMMON_POOL and the COMMON_POOL_LOCK guarding it
   (both live as long as the loader): from now on every repository's
   svn_fs_fs__shared_t lives there.  loader.c calls this on each entry;
   repeated calls with the same pool are cheap.  NULLs are ignored. */
svn_error_t *
svn_fs_fs__shared_set_home(svn_mutex__t *common_pool_lock,
                           apr_pool_t *common_pool);

/* The name of the repository directory PATH that identifies it within
   this process: absolute, symlinks resolved, canonical (PATH itself made
   absolute if it cannot be resolved).  In RESULT_POOL. */
const char *
svn_fs_fs__repo_key_path(const char *path, apr_pool_t *result_pool);

/* Point FS's private data at the svn_fs_fs__shared_t of the repository
   whose svn_fs_fs__repo_key_path is REPO_PATH, making it on first use.
   Every svn_fs_t of one repository in this process gets the same one;
   it lives as long as the loader's common pool (or the process). */
svn_error_t *
svn_fs_fs__shared_attach(svn_fs_t *fs, const char *repo_path,
                         apr_pool_t *scratch_pool);

/* Run FUNC(BATON) with db/write-lock held: first the repository's
   in-process write mutex (shared by all svn_fs_t of this process), then
   the file lock.  Not re-entrant within a thread. */
svn_error_t *
svn_fs_fs__with_write_lock(svn_fs_t *fs,
                           svn_error_t *(*func)(void *baton,
                                                apr_pool_t *pool),
                           void *baton, apr_pool_t *pool);

/* Likewise with db/pack-lock (format 7+; created if missing, as stock
   does) and its in-process mutex.  What packing and hot copies hold. */
svn_error_t *
svn_fs_fs__with_pack_lock(svn_fs_t *fs,
                          svn_error_t *(*func)(void *baton,
                                               apr_pool_t *pool),
                          void *baton, apr_pool_t *pool);

/* Likewise with db/txn-current-lock and its in-process mutex: what
   bumping db/txn-current for a new transaction holds (LOCKFILE-2). */
svn_error_t *
svn_fs_fs__with_txn_current_lock(svn_fs_t *fs,
                                 svn_error_t *(*func)(void *baton,
                                                      apr_pool_t *pool),
                                 void *baton, apr_pool_t *pool);

/* Run FUNC(BATON) holding every repository lock, outermost first:
   db/write-lock, db/pack-lock (format 7+) and db/txn-current-lock
   (LOCKFILE-2), each with its in-process mutex.  For upgrade, recover
   and incremental hot copies. */
svn_error_t *
svn_fs_fs__with_all_locks(svn_fs_t *fs,
                          svn_error_t *(*func)(void *baton,
                                               apr_pool_t *pool),
                          void *baton, apr_pool_t *pool);

/* Like svn_fs_fs__with_all_locks without db/txn-current-lock: what
   'svnadmin freeze' holds, as with stock (LOCKFILE-2) -- new
   transactions may still begin, nothing can be committed or packed. */
svn_error_t *
svn_fs_fs__with_freeze_locks(svn_fs_t *fs,
                             svn_error_t *(*func)(void *baton,
                                                  apr_pool_t *pool),
                             void *baton, apr_pool_t *pool);

#endif
