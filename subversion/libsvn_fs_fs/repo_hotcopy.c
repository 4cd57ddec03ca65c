/* repo_hotcopy.c --- 'svnadmin hotcopy', full and incremental
 * (repo.h; doc/format/layout.md HOTCOPY-*).
 *
 *   svn_fs_fs__hotcopy
 *     check_destination      new, or an earlier copy of the same repo
 *     (an earlier copy's locks held, then the source's pack lock if we
 *     may write to the source)
 *     copy_small_files       fsfs.conf txn-current locks/ ... uuid
 *     copy_packed_shards     revs/S.pack, revprops/S.pack (+ r0 props)
 *     min-unpacked-rev, then drop shards the copy now has packed
 *     copy_unpacked_revs     revs/.../R and revprops/.../R up to youngest
 *     current                then copy_rep_cache: an earlier copy's
 *                            rep-cache.db gets the source's new rows
 *                            appended when the files agree (repo_repcache_
 *                            copy.c); else the whole file through SQLite's
 *                            backup API, rows after the youngest dropped
 *                            (never rows the copy lacks revs for)
 *     format                 last, so a half copy cannot be opened
 *
 * Files are copied when missing, of another size, or newer in the source
 * (HOTCOPY-3): an incremental copy thus only moves new revisions, new
 * packs and changed revprops.  Revision files are immutable, so copying
 * while commits go on is safe; the copy ends at the youngest revision
 * seen at the start.
 */
#include <errno.h>
#include <sqlite3.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_sorts.h"
#include "private/svn_sorts_private.h"
#include "private/svn_string_private.h"

#include "corrupt.h"
#include "durable.h"
#include "format.h"
#include "paths.h"
#include "repo.h"
#include "repo_repcache.h"

typedef struct hotcopy_t
{
  svn_fs_t *src;
  const char *dst;                 /* destination db directory */
  svn_revnum_t youngest;
  svn_boolean_t incremental;       /* destination is an earlier copy */
  svn_revnum_t dst_youngest;       /* -1 for a new copy */
  svn_revnum_t dst_min_unpacked;
  svn_fs_hotcopy_notify_t notify_func;
  void *notify_baton;
  svn_cancel_func_t cancel_func;
  void *cancel_baton;
  /* Destination directories whose entries changed since they were last
     synced (keys: paths, in DIRTY's pool); see flush_dirty(). */
  apr_hash_t *dirty;
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

/* db/REL of source path PATH. */
static const char *
relative(hotcopy_t *h, const char *path)
{
  return svn_dirent_skip_ancestor(h->src->path, path);
}

/* Durability (HOTCOPY-4): the copy names what it copied -- by
   min-unpacked-rev, then current -- only once the copies are on disk.
   Each file is copied through a synced temporary file (durable.h); each
   directory that gained, lost or replaced an entry, and the parent of
   each directory made, is noted here and synced by flush_dirty() before
   min-unpacked-rev and before current are written.  Without it a power
   cut could leave a current naming revisions whose files never reached
   the disk, and a re-run would keep a torn file of the right size
   (doc/powercut.md PC-5). */
static void
mark_dirty(hotcopy_t *h, const char *dir)
{
  apr_pool_t *pool = apr_hash_pool_get(h->dirty);

  if (!apr_hash_get(h->dirty, dir, APR_HASH_KEY_STRING))
    {
      dir = apr_pstrdup(pool, dir);
      apr_hash_set(h->dirty, dir, APR_HASH_KEY_STRING, dir);
    }
}

/* Sync every noted directory, deepest first (a new directory's entries
   before its name in the parent), and forget them. */
static svn_error_t *
flush_dirty(hotcopy_t *h, apr_pool_t *pool)
{
  apr_array_header_t *dirs = svn_sort__hash(h->dirty,
                                            svn_sort_compare_items_as_paths,
                                            pool);
  apr_pool_t *iterpool = svn_pool_create(pool);
  int i;

  for (i = dirs->nelts - 1; i >= 0; i--)
    {
      svn_pool_clear(iterpool);
      SVN_ERR(svn_fs_fs__sync_dir(APR_ARRAY_IDX(dirs, i,
                                                svn_sort__item_t).value,
                                  iterpool));
    }
  svn_pool_destroy(iterpool);
  apr_hash_clear(h->dirty);
  return SVN_NO_ERROR;
}

/* Make directory PATH and its missing parents, noting every one made and
   its parent as dirty. */
static svn_error_t *
make_dirs(hotcopy_t *h, const char *path, apr_pool_t *pool)
{
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(path, &kind, pool));
  if (kind != svn_node_none)
    return SVN_NO_ERROR;
  SVN_ERR(make_dirs(h, svn_dirent_dirname(path, pool), pool));
  SVN_ERR(svn_io_dir_make(path, APR_OS_DEFAULT, pool));
  mark_dirty(h, path);
  mark_dirty(h, svn_dirent_dirname(path, pool));
  return SVN_NO_ERROR;
}

/* Make db/REL in the destination unless it exists. */
static svn_error_t *
ensure_dir(hotcopy_t *h, const char *rel, apr_pool_t *pool)
{
  return svn_error_trace(make_dirs(h, dst_of(h, rel, pool), pool));
}

/* Copy file SRC to DST unless DST already has its size and is not
   older (HOTCOPY-3); set *COPIED if it was copied.  A missing SRC is
   skipped. */
static svn_error_t *
copy_newer(svn_boolean_t *copied, hotcopy_t *h, const char *src,
           const char *dst, apr_pool_t *pool)
{
  const svn_io_dirent2_t *from, *to;

  SVN_ERR(svn_io_stat_dirent2(&from, src, FALSE, TRUE, pool, pool));
  if (from->kind != svn_node_file)
    return SVN_NO_ERROR;
  SVN_ERR(svn_io_stat_dirent2(&to, dst, FALSE, TRUE, pool, pool));
  if (to->kind == svn_node_file && to->filesize == from->filesize
      && to->mtime >= from->mtime)
    return SVN_NO_ERROR;
  *copied = TRUE;
  mark_dirty(h, svn_dirent_dirname(dst, pool));
  return svn_error_trace(svn_fs_fs__copy_into_place(src, dst, TRUE, pool));
}

/* Make the flat directory DST hold what SRC holds: copy new or changed
   files, delete files SRC no longer has (e.g. split revprop packs).  A
   missing SRC is skipped. */
static svn_error_t *
sync_dir(svn_boolean_t *copied, hotcopy_t *h, const char *src,
         const char *dst, apr_pool_t *pool)
{
  apr_hash_t *from, *to;
  apr_hash_index_t *hi;
  apr_pool_t *iterpool;
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(src, &kind, pool));
  if (kind != svn_node_dir)
    return SVN_NO_ERROR;
  SVN_ERR(svn_io_get_dirents3(&from, src, TRUE, pool, pool));
  SVN_ERR(make_dirs(h, dst, pool));
  SVN_ERR(svn_io_get_dirents3(&to, dst, TRUE, pool, pool));
  iterpool = svn_pool_create(pool);
  for (hi = apr_hash_first(pool, from); hi; hi = apr_hash_next(hi))
    {
      svn_pool_clear(iterpool);
      SVN_ERR(copy_newer(copied, h,
                         svn_dirent_join(src, apr_hash_this_key(hi),
                                         iterpool),
                         svn_dirent_join(dst, apr_hash_this_key(hi),
                                         iterpool), iterpool));
    }
  for (hi = apr_hash_first(pool, to); hi; hi = apr_hash_next(hi))
    if (!apr_hash_get(from, apr_hash_this_key(hi), APR_HASH_KEY_STRING))
      {
        svn_pool_clear(iterpool);
        *copied = TRUE;
        mark_dirty(h, dst);
        SVN_ERR(svn_io_remove_file2(svn_dirent_join(
                  dst, apr_hash_this_key(hi), iterpool), TRUE, iterpool));
      }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* Give the copy db/REL, a file the copy writes to or locks, unless it
   has one: created afresh, so writable whatever the source's mode (a
   backup of a read-only repository must still be usable, and libsvn_fs
   rewrites fs-type right after the copy).  WITH_TEXT takes the source's
   content along (fs-type); lock files and the journal are empty. */
static svn_error_t *
create_own_file(hotcopy_t *h, const char *rel, svn_boolean_t with_text,
                apr_pool_t *pool)
{
  const char *dst = dst_of(h, rel, pool);
  svn_stringbuf_t *text;
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(dst, &kind, pool));
  if (kind != svn_node_none)
    return SVN_NO_ERROR;
  if (!with_text)
    return svn_error_trace(svn_io_file_create_empty(dst, pool));
  SVN_ERR(svn_stringbuf_from_file2(&text, src_of(h, rel, pool), pool));
  return svn_error_trace(svn_io_file_create_bytes(dst, text->data,
                                                  text->len, pool));
}

/* Copy rep-cache.db whole.  It may be written to while we copy: SQLite's
   online backup gives a consistent snapshot (HOTCOPY-2). */
static svn_error_t *
backup_rep_cache(hotcopy_t *h, apr_pool_t *pool)
{
  const char *src = src_of(h, "rep-cache.db", pool);
  sqlite3 *from = NULL, *to = NULL;
  sqlite3_backup *backup;
  int rc;

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
  /* Name both files: an admin with a full disk must know which one. */
  if (rc != SQLITE_OK)
    return svn_error_createf(SVN_ERR_SQLITE_ERROR, NULL,
                             "Cannot copy '%s' to '%s': %s",
                             svn_dirent_local_style(src, pool),
                             svn_dirent_local_style(
                               dst_of(h, "rep-cache.db", pool), pool),
                             sqlite3_errstr(rc));
  return SVN_NO_ERROR;
}

/* Give the copy the source's rep-cache.db rows up to the youngest
   revision (HOTCOPY-2, REPCACHE-1).  An earlier copy whose file agrees
   with the source's gets the new rows appended, its other pages left
   alone (HOTCOPY-5); any other copy gets the whole file, then loses the
   rows after the youngest revision. */
static svn_error_t *
copy_rep_cache(hotcopy_t *h, apr_pool_t *pool)
{
  const char *src = src_of(h, "rep-cache.db", pool);
  const char *dst = dst_of(h, "rep-cache.db", pool);
  svn_boolean_t appended = FALSE;
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(src, &kind, pool));
  if (kind != svn_node_file)
    return svn_error_trace(svn_fs_fs__rep_cache_prune(h->dst, h->youngest,
                                                      pool));
  /* A copy ahead of its source (swapped arguments) is not an earlier
     copy of it. */
  if (h->incremental && h->youngest >= h->dst_youngest)
    SVN_ERR(svn_fs_fs__rep_cache_append_new(&appended, src, dst,
                                            h->youngest, pool));
  if (!appended)
    SVN_ERR(backup_rep_cache(h, pool));
  /* The source's mode, made writable, as stock does: the copy must take
     commits of every user the source did. */
  SVN_ERR(svn_io_copy_perms(src, dst, pool));
  SVN_ERR(svn_io_set_file_read_write(dst, FALSE, pool));
  /* Keep the stock layout: the (empty) journal file exists beside it. */
  SVN_ERR(create_own_file(h, "rep-cache.db-journal", FALSE, pool));
  if (appended)
    return SVN_NO_ERROR;
  return svn_error_trace(svn_fs_fs__rep_cache_prune(h->dst, h->youngest,
                                                    pool));
}

/* Everything but revisions, rep-cache, current, min-unpacked-rev and
   format.  Configuration and txn-current are copied with their modes;
   the files the copy itself writes or locks are its own (HOTCOPY-1).
   locks/ is replaced as a whole; an earlier copy keeps its uuid file
   (and so its instance id). */
static svn_error_t *
copy_small_files(hotcopy_t *h, apr_pool_t *pool)
{
  static const char *const files[] = { "fsfs.conf", "txn-current", NULL };
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(h->src);
  const char *text = apr_pstrcat(pool, h->src->uuid, "\n", SVN_VA_NULL);
  const char *locks = dst_of(h, "locks", pool);
  svn_boolean_t copied;
  svn_node_kind_t kind;
  int i;

  for (i = 0; files[i]; i++)
    SVN_ERR(copy_newer(&copied, h, src_of(h, files[i], pool),
                       dst_of(h, files[i], pool), pool));
  SVN_ERR(create_own_file(h, "fs-type", TRUE, pool));
  SVN_ERR(create_own_file(h, "write-lock", FALSE, pool));
  if (ffd->format >= SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)     /* OLD-4 */
    SVN_ERR(create_own_file(h, "txn-current-lock", FALSE, pool));
  SVN_ERR(svn_io_remove_dir2(locks, TRUE, NULL, NULL, pool));
  SVN_ERR(svn_io_check_path(src_of(h, "locks", pool), &kind, pool));
  if (kind == svn_node_dir)
    SVN_ERR(svn_io_copy_dir_recursively(src_of(h, "locks", pool), h->dst,
                                        "locks", TRUE, NULL, NULL, pool));
  SVN_ERR(ensure_dir(h, "transactions", pool));
  if (ffd->format >= SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)     /* OLD-4 */
    SVN_ERR(ensure_dir(h, "txn-protorevs", pool));
  if (h->incremental)
    return SVN_NO_ERROR;
  /* A copy is a new incarnation: same uuid, new instance id (UUID-2). */
  if (ffd->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    text = apr_pstrcat(pool, text, svn_uuid_generate(pool), "\n",
                       SVN_VA_NULL);
  return svn_error_trace(svn_io_file_create(dst_of(h, "uuid", pool), text,
                                            pool));
}

/* Sync one packed shard; notify if anything had to be copied. */
static svn_error_t *
copy_packed_shard(hotcopy_t *h, svn_revnum_t start, apr_pool_t *pool)
{
  svn_fs_t *src = h->src;
  svn_boolean_t copied = FALSE;
  const char *revs = apr_pstrcat(pool, relative(
                       h, svn_fs_fs__path_rev_shard(src, start, pool)),
                       ".pack", SVN_VA_NULL);
  /* OLD-8: format 4 packs revisions only; its revprops stay a plain
     shard directory. */
  svn_boolean_t plain_props = SVN_FS_FS__DATA(src)->format
                              < SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT;
  const char *props = relative(
    h, plain_props ? svn_fs_fs__path_revprops_shard(src, start, pool)
                   : svn_fs_fs__path_revprops_pack_shard(src, start, pool));

  /* A shard the copy had packed already has its revision pack: pack
     files are never rewritten, so only its revprops may need work. */
  if (start + SVN_FS_FS__DATA(src)->max_files_per_dir > h->dst_min_unpacked
      || !h->incremental)
    SVN_ERR(sync_dir(&copied, h, src_of(h, revs, pool),
                     dst_of(h, revs, pool), pool));
  SVN_ERR(sync_dir(&copied, h, src_of(h, props, pool), dst_of(h, props, pool),
                   pool));
  if (start == 0 && !plain_props)
    {
      SVN_ERR(ensure_dir(h, "revprops/0", pool));
      SVN_ERR(copy_newer(&copied, h, src_of(h, "revprops/0/0", pool),
                         dst_of(h, "revprops/0/0", pool), pool));
    }
  if (copied && h->notify_func)
    h->notify_func(h->notify_baton, start,
                   start + SVN_FS_FS__DATA(src)->max_files_per_dir - 1,
                   pool);
  return SVN_NO_ERROR;
}

/* Packed shards below min-unpacked-rev (RPPACK-0: r0's props stay
   unpacked). */
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
      SVN_ERR(copy_packed_shard(h, start, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* After the copy's min-unpacked-rev moved up: remove its unpacked shard
   directories the packs now replace (shard 0 keeps revprops/0/0). */
static svn_error_t *
drop_unpacked_shards(hotcopy_t *h, apr_pool_t *pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(h->src);
  svn_revnum_t start, rev;

  for (start = h->dst_min_unpacked; start < ffd->min_unpacked_rev;
       start += ffd->max_files_per_dir)
    {
      const char *rel = relative(h, svn_fs_fs__path_rev_shard(h->src, start,
                                                              pool));
      SVN_ERR(svn_io_remove_dir2(dst_of(h, rel, pool), TRUE, NULL, NULL,
                                 pool));
      if (ffd->format < SVN_FS_FS__MIN_PACKED_REVPROPS_FORMAT)
        continue;                       /* OLD-8: revprops stay unpacked */
      if (start > 0)
        {
          rel = relative(h, svn_fs_fs__path_revprops_shard(h->src, start,
                                                           pool));
          SVN_ERR(svn_io_remove_dir2(dst_of(h, rel, pool), TRUE, NULL,
                                     NULL, pool));
          continue;
        }
      for (rev = 1; rev < ffd->max_files_per_dir; rev++)
        SVN_ERR(svn_io_remove_file2(dst_of(h, relative(
                  h, svn_fs_fs__path_revprops(h->src, rev, pool)), pool),
                  TRUE, pool));
    }
  return SVN_NO_ERROR;
}

/* Copy the file at source PATH to the same place in the destination
   (if missing or changed); set *COPIED if it was copied.  With
   NEW_SHARD, first make its directory unless the copy has it. */
static svn_error_t *
copy_rev_file(svn_boolean_t *copied, hotcopy_t *h, const char *path,
              svn_boolean_t new_shard, apr_pool_t *pool)
{
  const char *rel = relative(h, path);

  if (new_shard)
    SVN_ERR(ensure_dir(h, svn_relpath_dirname(rel, pool), pool));
  return svn_error_trace(copy_newer(copied, h, path, dst_of(h, rel, pool),
                                    pool));
}

/* Does the copy hold REV's revision file already?  Revision files never
   change once written, and the copy's current named REV only after the
   file was durable there (flush_dirty before write_dst "current"), so a
   revision at most the copy's youngest and not in a shard it had packed
   needs no look (HOTCOPY-3): an incremental copy then costs one revprop
   comparison per older revision, not three lookups. */
static svn_boolean_t
copy_has_rev_file(const hotcopy_t *h, svn_revnum_t rev)
{
  return h->incremental && rev <= h->dst_youngest
         && rev >= h->dst_min_unpacked;
}

/* Unpacked revisions up to the youngest; revisions the copy already has
   only get changed revprops.  Every revision that needed a copy (new, or
   with changed revprops) is notified, as stock does (HOTCOPY-3). */
static svn_error_t *
copy_unpacked_revs(hotcopy_t *h, apr_pool_t *pool)
{
  apr_pool_t *iterpool = svn_pool_create(pool);
  svn_revnum_t first = SVN_FS_FS__DATA(h->src)->min_unpacked_rev;
  int shard_size = SVN_FS_FS__DATA(h->src)->max_files_per_dir;
  svn_revnum_t rev;

  for (rev = first; rev <= h->youngest; rev++)
    {
      svn_boolean_t copied = FALSE;
      svn_boolean_t new_shard = rev == first
                                || (shard_size && rev % shard_size == 0);

      svn_pool_clear(iterpool);
      if (h->cancel_func)
        SVN_ERR(h->cancel_func(h->cancel_baton));
      if (new_shard || !copy_has_rev_file(h, rev))
        SVN_ERR(copy_rev_file(&copied, h,
                              svn_fs_fs__path_rev(h->src, rev, iterpool),
                              new_shard, iterpool));
      SVN_ERR(copy_rev_file(&copied, h,
                            svn_fs_fs__path_revprops(h->src, rev, iterpool),
                            new_shard, iterpool));
      if (h->notify_func && (copied || rev > h->dst_youngest))
        h->notify_func(h->notify_baton, rev, rev, iterpool);
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* Write db/NAME of the copy atomically with TEXT. */
static svn_error_t *
write_dst(hotcopy_t *h, const char *name, const char *text,
          const char *copy_perms_path, apr_pool_t *pool)
{
  return svn_error_trace(svn_io_write_atomic2(dst_of(h, name, pool), text,
                                              strlen(text), copy_perms_path,
                                              TRUE, pool));
}

/* db/current for revision YOUNGEST; formats 1 and 2 also carry the next
   node and copy ids (OLD-3). */
static const char *
current_text(const svn_fs_fs__data_t *ffd, svn_revnum_t youngest,
             apr_uint64_t next_node_id, apr_uint64_t next_copy_id,
             apr_pool_t *pool)
{
  char node_buf[SVN_INT64_BUFFER_SIZE], copy_buf[SVN_INT64_BUFFER_SIZE];

  if (ffd->format >= SVN_FS_FS__MIN_NEW_IDS_FORMAT)
    return apr_psprintf(pool, "%ld\n", youngest);
  svn__ui64tobase36(node_buf, next_node_id);
  svn__ui64tobase36(copy_buf, next_copy_id);
  return apr_psprintf(pool, "%ld %s %s\n", youngest, node_buf, copy_buf);
}

/* The copy proper; the source's pack lock is held (format 7+). */
static svn_error_t *
hotcopy_body(void *baton, apr_pool_t *pool)
{
  hotcopy_t *h = baton;
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(h->src);
  svn_fs_fs__format_t format;
  const char *text;

  apr_uint64_t next_node_id, next_copy_id;

  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(h->src, pool));
  /* One read gives the youngest revision and, formats 1 and 2, the id
     counters that go with it (OLD-3). */
  SVN_ERR(svn_fs_fs__read_current(&h->youngest, &next_node_id,
                                  &next_copy_id, h->src, pool));
  SVN_ERR(ensure_dir(h, "revs", pool));
  SVN_ERR(ensure_dir(h, "revprops", pool));
  SVN_ERR(copy_small_files(h, pool));
  SVN_ERR(copy_packed_shards(h, pool));
  if (ffd->format >= SVN_FS_FS__MIN_PACKING_FORMAT)         /* OLD-8 */
    {
      /* Our value (read under the pack lock), the source file's mode. */
      SVN_ERR(flush_dirty(h, pool));
      SVN_ERR(write_dst(h, "min-unpacked-rev", apr_psprintf(
                          pool, "%ld\n", ffd->min_unpacked_rev),
                        src_of(h, "min-unpacked-rev", pool), pool));
      SVN_ERR(drop_unpacked_shards(h, pool));
    }
  SVN_ERR(copy_unpacked_revs(h, pool));
  SVN_ERR(flush_dirty(h, pool));
  SVN_ERR(write_dst(h, "current",
                    current_text(ffd, h->youngest, next_node_id,
                                 next_copy_id, pool), NULL, pool));
  /* The rep-cache only after current: its rows name revisions, and rows
     beyond the copy's youngest break it (REPCACHE-1), so an incremental
     copy interrupted earlier must still hold the old, matching rows.
     Rows of commits that finished after we read the youngest revision
     are dropped for the same reason. */
  SVN_ERR(copy_rep_cache(h, pool));
  if (h->incremental)
    return SVN_NO_ERROR;
  format.format = ffd->format;
  format.max_files_per_dir = ffd->max_files_per_dir;
  format.use_log_addressing = ffd->use_log_addressing;
  text = svn_fs_fs__format_unparse(&format, pool);
  SVN_ERR(svn_io_file_create(dst_of(h, "format", pool), text, pool));
  return svn_error_trace(svn_io_set_file_read_only(dst_of(h, "format",
                                                          pool),
                                                   FALSE, pool));
}

/* Is ERR the file system refusing us write access? */
static svn_boolean_t
is_no_write_access(svn_error_t *err)
{
  return err && (APR_STATUS_IS_EACCES(err->apr_err)
                 || err->apr_err == APR_FROM_OS_ERROR(EPERM)
                 || err->apr_err == APR_FROM_OS_ERROR(EROFS));
}

/* Take SRC's pack lock (format 7+) in LOCK_POOL.  Hot copies are backups,
   often made with read-only access to the source, and the stock module
   copies without this lock: so where the lock file cannot be created or
   opened for writing we copy without it too (HOTCOPY-1). */
static svn_error_t *
lock_source_packing(hotcopy_t *h, apr_pool_t *lock_pool)
{
  const char *lock = svn_fs_fs__path_db(h->src, "pack-lock", lock_pool);
  svn_node_kind_t kind;
  svn_error_t *err;

  if (SVN_FS_FS__DATA(h->src)->format
      < SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    return SVN_NO_ERROR;
  err = svn_io_check_path(lock, &kind, lock_pool);
  if (!err && kind == svn_node_none)
    err = svn_io_file_create_empty(lock, lock_pool);
  if (!err)
    err = svn_io_file_lock2(lock, TRUE, FALSE, lock_pool);
  if (is_no_write_access(err))
    {
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  return svn_error_trace(err);
}

/* Run hotcopy_body holding SRC's pack lock where we can. */
static svn_error_t *
with_pack_lock(hotcopy_t *h, apr_pool_t *pool)
{
  apr_pool_t *lock_pool = svn_pool_create(pool);
  svn_error_t *err = lock_source_packing(h, lock_pool);

  if (!err)
    err = hotcopy_body(h, lock_pool);
  svn_pool_destroy(lock_pool);
  return svn_error_trace(err);
}

/* svn_fs_fs__with_all_locks callback for incremental copies. */
static svn_error_t *
with_pack_lock_cb(void *baton, apr_pool_t *pool)
{
  return svn_error_trace(with_pack_lock(baton, pool));
}

/* An existing destination must be an earlier copy of the same
   repository (HOTCOPY-3); note how far it got. */
static svn_error_t *
check_destination(hotcopy_t *h, svn_fs_t *dst_fs, const char *dst_path,
                  apr_pool_t *pool)
{
  svn_fs_fs__data_t *src = SVN_FS_FS__DATA(h->src), *dst;

  SVN_ERR(svn_fs_fs__open_repo(dst_fs, dst_path, pool));
  dst = SVN_FS_FS__DATA(dst_fs);
  /* Checked in stock's order, with its error codes. */
  if (dst->format != src->format)
    return svn_error_createf(SVN_ERR_UNSUPPORTED_FEATURE, NULL,
                             "Cannot update the hot copy at '%s': it has "
                             "format %d, the source format %d (upgrade "
                             "both to the same format)",
                             svn_dirent_local_style(dst_path, pool),
                             dst->format, src->format);
  if (strcmp(dst_fs->uuid, h->src->uuid) != 0)
    return svn_error_createf(SVN_ERR_RA_UUID_MISMATCH, NULL,
                             "Cannot update the hot copy at '%s': it is a "
                             "copy of another repository (UUID %s, not %s)",
                             svn_dirent_local_style(dst_path, pool),
                             dst_fs->uuid, h->src->uuid);
  /* Addressing goes beyond stock, which would mix the two. */
  if (dst->max_files_per_dir != src->max_files_per_dir
      || dst->use_log_addressing != src->use_log_addressing)
    return svn_error_createf(SVN_ERR_UNSUPPORTED_FEATURE, NULL,
                             "Cannot update the hot copy at '%s': its "
                             "sharding or addressing differs from the "
                             "source's",
                             svn_dirent_local_style(dst_path, pool));
  SVN_ERR(svn_fs_fs__youngest_rev(&h->dst_youngest, dst_fs, pool));
  h->dst_min_unpacked = dst->min_unpacked_rev;
  h->incremental = TRUE;
  return SVN_NO_ERROR;
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

  memset(&h, 0, sizeof(h));
  SVN_ERR(svn_fs_fs__open_repo(src_fs, src_path, scratch_pool));
  h.src = src_fs;
  h.dst = dst_path;
  h.dst_youngest = SVN_INVALID_REVNUM;
  h.notify_func = notify_func;
  h.notify_baton = notify_baton;
  h.cancel_func = cancel_func;
  h.cancel_baton = cancel_baton;
  h.dirty = apr_hash_make(scratch_pool);
  SVN_ERR(svn_io_check_path(svn_dirent_join(dst_path, "format",
                                            scratch_pool),
                            &kind, scratch_pool));
  if (kind != svn_node_none && !incremental)
    return svn_error_createf(SVN_ERR_DIR_NOT_EMPTY, NULL,
                             "'%s' already holds a repository",
                             svn_dirent_local_style(dst_path,
                                                    scratch_pool));
  if (kind != svn_node_none)
    SVN_ERR(check_destination(&h, dst_fs, dst_path, scratch_pool));
  SVN_ERR(svn_io_make_dir_recursively(dst_path, scratch_pool));
  /* An earlier copy may be in use: keep its writers, packers and
     freezers out while it changes, as stock does.  A new copy cannot be
     opened before its db/format appears, which is written last. */
  if (h.incremental)
    return svn_error_trace(svn_fs_fs__with_all_locks(
                             dst_fs, with_pack_lock_cb, &h, scratch_pool));
  SVN_ERR(with_pack_lock(&h, scratch_pool));
  return svn_error_trace(svn_fs_fs__open_repo(dst_fs, dst_path,
                                              scratch_pool));
}
