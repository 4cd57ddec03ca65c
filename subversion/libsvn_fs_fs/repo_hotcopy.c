/* repo_hotcopy.c --- 'svnadmin hotcopy' of a whole repository
 * (repo.h; doc/format/layout.md HOTCOPY-*).
 *
 *   svn_fs_fs__hotcopy
 *     open the source, note its youngest revision
 *     copy_small_files       fsfs.conf txn-current locks/ ... uuid
 *     copy_rep_cache         rep-cache.db through SQLite's backup API
 *     copy_packed_shards     revs/S.pack, revprops/S.pack (+ r0 props)
 *     copy_unpacked_revs     revs/.../R and revprops/.../R up to youngest
 *     current, then format   last, so a half copy cannot be opened
 *
 * Revision files are immutable, so copying them while commits go on is
 * safe; the copy simply ends at the youngest revision seen at the start.
 */
#include <sqlite3.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"

#include "corrupt.h"
#include "format.h"
#include "paths.h"
#include "repo.h"

typedef struct hotcopy_t
{
  svn_fs_t *src;
  const char *dst;                 /* destination db directory */
  svn_revnum_t youngest;
  svn_fs_hotcopy_notify_t notify_func;
  void *notify_baton;
  svn_cancel_func_t cancel_func;
  void *cancel_baton;
} hotcopy_t;

/* Source path of db/REL and its destination twin. */
static const char *
src_of(hotcopy_t *h, const char *rel, apr_pool_t *pool)
{
  return svn_dirent_join(h->src->path, rel, pool);
}

static const char *
dst_of(hotcopy_t *h, const char *rel, apr_pool_t *pool)
{
  return svn_dirent_join(h->dst, rel, pool);
}

/* Copy db/REL (file or directory tree) if it exists, keeping modes. */
static svn_error_t *
copy_if_present(hotcopy_t *h, const char *rel, apr_pool_t *pool)
{
  svn_node_kind_t kind;
  const char *src = src_of(h, rel, pool);

  SVN_ERR(svn_io_check_path(src, &kind, pool));
  if (kind == svn_node_file)
    return svn_error_trace(svn_io_copy_file(src, dst_of(h, rel, pool), TRUE,
                                            pool));
  if (kind == svn_node_dir)
    return svn_error_trace(svn_io_copy_dir_recursively(
             src, svn_dirent_dirname(dst_of(h, rel, pool), pool),
             svn_dirent_basename(rel, pool), TRUE, h->cancel_func,
             h->cancel_baton, pool));
  return SVN_NO_ERROR;
}

/* rep-cache.db may be written to while we copy: use SQLite's online
   backup so the copy is a consistent snapshot (HOTCOPY-2). */
static svn_error_t *
copy_rep_cache(hotcopy_t *h, apr_pool_t *pool)
{
  const char *src = src_of(h, "rep-cache.db", pool);
  sqlite3 *from = NULL, *to = NULL;
  sqlite3_backup *backup;
  svn_node_kind_t kind;
  int rc;

  SVN_ERR(svn_io_check_path(src, &kind, pool));
  if (kind != svn_node_file)
    return SVN_NO_ERROR;
  rc = sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_open(dst_of(h, "rep-cache.db", pool), &to);
  if (rc == SQLITE_OK)
    {
      backup = sqlite3_backup_init(to, "main", from, "main");
      rc = backup ? sqlite3_backup_step(backup, -1) : sqlite3_errcode(to);
      if (backup)
        sqlite3_backup_finish(backup);
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
  sqlite3_close(from);
  sqlite3_close(to);
  if (rc != SQLITE_OK)
    return svn_error_createf(SVN_ERR_SQLITE_ERROR, NULL,
                             "Cannot copy rep-cache.db: %s",
                             sqlite3_errstr(rc));
  /* Keep the stock layout: the (empty) journal file exists beside it. */
  return svn_error_trace(copy_if_present(h, "rep-cache.db-journal", pool));
}

/* Everything but revisions, rep-cache, current and format. */
static svn_error_t *
copy_small_files(hotcopy_t *h, apr_pool_t *pool)
{
  static const char *const files[] = {
    "fs-type", "fsfs.conf", "min-unpacked-rev", "txn-current",
    "txn-current-lock", "write-lock", "locks", "node-origins", NULL
  };
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(h->src);
  const char *text = apr_pstrcat(pool, h->src->uuid, "\n", SVN_VA_NULL);
  int i;

  for (i = 0; files[i]; i++)
    SVN_ERR(copy_if_present(h, files[i], pool));
  SVN_ERR(svn_io_dir_make(dst_of(h, "transactions", pool), APR_OS_DEFAULT,
                          pool));
  SVN_ERR(svn_io_dir_make(dst_of(h, "txn-protorevs", pool), APR_OS_DEFAULT,
                          pool));
  /* A copy is a new incarnation: same uuid, new instance id (UUID-2). */
  if (ffd->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    text = apr_pstrcat(pool, text, svn_uuid_generate(pool), "\n",
                       SVN_VA_NULL);
  return svn_error_trace(svn_io_file_create(dst_of(h, "uuid", pool), text,
                                            pool));
}

/* db/<TOP>/<...> relative path of PATH, a file below the source db. */
static const char *
relative(hotcopy_t *h, const char *path)
{
  return svn_dirent_skip_ancestor(h->src->path, path);
}

/* Make db/REL in the destination unless it exists. */
static svn_error_t *
ensure_dir(hotcopy_t *h, const char *rel, apr_pool_t *pool)
{
  return svn_error_trace(svn_io_make_dir_recursively(dst_of(h, rel, pool),
                                                     pool));
}

/* Packed shards below min-unpacked-rev, one notification per shard;
   shard 0 also has r0's unpacked revprops (RPPACK-0). */
static svn_error_t *
copy_packed_shards(hotcopy_t *h, apr_pool_t *pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(h->src);
  apr_pool_t *iterpool = svn_pool_create(pool);
  svn_revnum_t start;

  for (start = 0; start < ffd->min_unpacked_rev;
       start += ffd->max_files_per_dir)
    {
      svn_pool_clear(iterpool);
      if (h->cancel_func)
        SVN_ERR(h->cancel_func(h->cancel_baton));
      SVN_ERR(copy_if_present(h, apr_pstrcat(iterpool, relative(h,
                svn_fs_fs__path_rev_shard(h->src, start, iterpool)),
                ".pack", SVN_VA_NULL), iterpool));
      SVN_ERR(copy_if_present(h, relative(h,
                svn_fs_fs__path_revprops_pack_shard(h->src, start,
                                                    iterpool)), iterpool));
      if (start == 0)
        {
          SVN_ERR(ensure_dir(h, "revprops/0", iterpool));
          SVN_ERR(copy_if_present(h, "revprops/0/0", iterpool));
        }
      if (h->notify_func)
        h->notify_func(h->notify_baton, start,
                       start + ffd->max_files_per_dir - 1, iterpool);
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* Copy the file at source PATH to the same place in the destination,
   creating its directory. */
static svn_error_t *
copy_rev_file(hotcopy_t *h, const char *path, apr_pool_t *pool)
{
  const char *rel = relative(h, path);

  SVN_ERR(ensure_dir(h, svn_relpath_dirname(rel, pool), pool));
  return svn_error_trace(svn_io_copy_file(path, dst_of(h, rel, pool), TRUE,
                                          pool));
}

/* Unpacked revisions up to the youngest, one notification each. */
static svn_error_t *
copy_unpacked_revs(hotcopy_t *h, apr_pool_t *pool)
{
  apr_pool_t *iterpool = svn_pool_create(pool);
  svn_revnum_t rev;

  for (rev = SVN_FS_FS__DATA(h->src)->min_unpacked_rev; rev <= h->youngest;
       rev++)
    {
      svn_pool_clear(iterpool);
      if (h->cancel_func)
        SVN_ERR(h->cancel_func(h->cancel_baton));
      SVN_ERR(copy_rev_file(h, svn_fs_fs__path_rev(h->src, rev, iterpool),
                            iterpool));
      SVN_ERR(copy_rev_file(h, svn_fs_fs__path_revprops(h->src, rev,
                                                        iterpool),
                            iterpool));
      if (h->notify_func)
        h->notify_func(h->notify_baton, rev, rev, iterpool);
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* The copy proper; the source's pack lock is held (format 7+). */
static svn_error_t *
hotcopy_body(void *baton, apr_pool_t *pool)
{
  hotcopy_t *h = baton;
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(h->src);
  svn_fs_fs__format_t format;
  const char *text;

  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(h->src, pool));
  SVN_ERR(svn_fs_fs__youngest_rev(&h->youngest, h->src, pool));
  SVN_ERR(ensure_dir(h, "revs", pool));
  SVN_ERR(ensure_dir(h, "revprops", pool));
  SVN_ERR(copy_small_files(h, pool));
  SVN_ERR(copy_rep_cache(h, pool));
  SVN_ERR(copy_packed_shards(h, pool));
  SVN_ERR(copy_unpacked_revs(h, pool));
  text = apr_psprintf(pool, "%ld\n", h->youngest);
  SVN_ERR(svn_io_file_create(dst_of(h, "current", pool), text, pool));
  format.format = ffd->format;
  format.max_files_per_dir = ffd->max_files_per_dir;
  format.use_log_addressing = ffd->use_log_addressing;
  text = svn_fs_fs__format_unparse(&format, pool);
  SVN_ERR(svn_io_file_create(dst_of(h, "format", pool), text, pool));
  return svn_error_trace(svn_io_set_file_read_only(dst_of(h, "format",
                                                          pool),
                                                   FALSE, pool));
}

/* Run BODY holding SRC's pack lock where the format has one. */
static svn_error_t *
with_pack_lock(hotcopy_t *h, apr_pool_t *pool)
{
  apr_pool_t *lock_pool = svn_pool_create(pool);
  const char *lock = svn_fs_fs__path_db(h->src, "pack-lock", lock_pool);
  svn_node_kind_t kind;
  svn_error_t *err = SVN_NO_ERROR;

  if (SVN_FS_FS__DATA(h->src)->format
      >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    {
      err = svn_io_check_path(lock, &kind, lock_pool);
      if (!err && kind == svn_node_none)
        err = svn_io_file_create_empty(lock, lock_pool);
      if (!err)
        err = svn_io_file_lock2(lock, TRUE, FALSE, lock_pool);
    }
  if (!err)
    err = hotcopy_body(h, lock_pool);
  svn_pool_destroy(lock_pool);
  return svn_error_trace(err);
}

svn_error_t *
svn_fs_fs__hotcopy(svn_fs_t *src_fs, svn_fs_t *dst_fs, const char *src_path,
                   const char *dst_path, svn_boolean_t incremental,
                   svn_fs_hotcopy_notify_t notify_func, void *notify_baton,
                   svn_cancel_func_t cancel_func, void *cancel_baton,
                   apr_pool_t *scratch_pool)
{
  hotcopy_t h;
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(svn_dirent_join(dst_path, "format",
                                            scratch_pool),
                            &kind, scratch_pool));
  if (kind != svn_node_none)
    return svn_error_createf(incremental ? SVN_ERR_UNSUPPORTED_FEATURE
                                         : SVN_ERR_DIR_NOT_EMPTY, NULL,
                             incremental
                             ? "fsfs7 cannot update an existing hotcopy "
                               "at '%s' yet"
                             : "'%s' already holds a repository",
                             svn_dirent_local_style(dst_path,
                                                    scratch_pool));
  SVN_ERR(svn_fs_fs__open_repo(src_fs, src_path, scratch_pool));
  memset(&h, 0, sizeof(h));
  h.src = src_fs;
  h.dst = dst_path;
  h.notify_func = notify_func;
  h.notify_baton = notify_baton;
  h.cancel_func = cancel_func;
  h.cancel_baton = cancel_baton;
  SVN_ERR(svn_io_make_dir_recursively(dst_path, scratch_pool));
  SVN_ERR(with_pack_lock(&h, scratch_pool));
  return svn_error_trace(svn_fs_fs__open_repo(dst_fs, dst_path,
                                              scratch_pool));
}
