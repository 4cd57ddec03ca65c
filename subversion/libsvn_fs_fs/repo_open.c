/* repo_open.c --- opening an FSFS repository's db/ directory and the
 * small shared state files (repo.h, fsfs7.h; doc/format/layout.md,
 * format.md, uuid-current.md).
 *
 * Call tree of svn_fs_fs__open_repo:
 *
 *   open_repo
 *     read_format          db/format       -> format, layout, addressing
 *     read_uuid            db/uuid         -> fs->uuid, instance id (f7+)
 *     svn_fs_fs__fsconf_read db/fsfs.conf  -> tuning knobs
 *     svn_fs_fs__update_min_unpacked_rev   -> pack boundary
 *     svn_fs_fs__init_caches, svn_fs_fs__revprops_init_caches
 *
 * This file also owns db/current (youngest revision), db/min-unpacked-rev
 * and db/write-lock.
 */
#include <apr_strings.h>

#include "svn_io.h"
#include "svn_pools.h"
#include "svn_dirent_uri.h"
#include "private/svn_mutex.h"

#include "caching.h"
#include "corrupt.h"
#include "format.h"
#include "fsconf.h"
#include "paths.h"
#include "repo.h"
#include "revprops.h"
#include "scan.h"

/* Read the whole small file db/NAME into *CONTENTS (RESULT_POOL). */
static svn_error_t *
read_db_file(svn_stringbuf_t **contents, svn_fs_t *fs, const char *name,
             apr_pool_t *result_pool)
{
  return svn_error_trace(svn_stringbuf_from_file2(
           contents, svn_fs_fs__path_db(fs, name, result_pool),
           result_pool));
}

/* db/format -> FFD (FORMAT-*). */
static svn_error_t *
read_format(svn_fs_fs__data_t *ffd, svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *text;
  svn_fs_fs__format_t format;
  const char *path = svn_fs_fs__path_db(fs, "format", scratch_pool);

  SVN_ERR(svn_stringbuf_from_file2(&text, path, scratch_pool));
  SVN_ERR(svn_fs_fs__format_parse(&format, text->data, text->len,
                                  svn_dirent_local_style(path,
                                                         scratch_pool)));
  ffd->format = format.format;
  ffd->max_files_per_dir = format.max_files_per_dir;
  ffd->use_log_addressing = format.use_log_addressing;
  return SVN_NO_ERROR;
}

/* Parse a decimal revision number that fills the LEN bytes at S (an
   optional final LF allowed); FALSE if malformed. */
static svn_boolean_t
parse_revnum(svn_revnum_t *rev, const char *s, apr_size_t len)
{
  apr_uint64_t v;

  if (len > 0 && s[len - 1] == '\n')
    len--;
  /* 18 digits at most: always fits an svn_revnum_t. */
  if (len > 18 || !svn_fs_fs__scan_decimal(&v, s, len, APR_INT64_MAX))
    return FALSE;
  *rev = (svn_revnum_t)v;
  return TRUE;
}

/* db/uuid: line 1 the repository UUID, line 2 (format 7+) the instance
   id (UUID-1, UUID-2).  Both are allocated in fs->pool. */
static svn_error_t *
read_uuid(svn_fs_fs__data_t *ffd, svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *text;
  char *eol, *second;

  SVN_ERR(read_db_file(&text, fs, "uuid", scratch_pool));
  eol = strchr(text->data, '\n');
  if (eol == NULL || eol == text->data)
    return svn_fs_fs__corrupt("UUID-1", "db/uuid",
                              "Missing or unterminated repository UUID");
  *eol = '\0';
  fs->uuid = apr_pstrdup(fs->pool, text->data);
  /* Without an instance id (format 6), copies of a repository share the
     uuid; leaving it NULL makes the cache prefix use the path instead. */
  ffd->instance_id = NULL;
  if (ffd->format < SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    return SVN_NO_ERROR;

  second = eol + 1;
  eol = strchr(second, '\n');
  if (eol == NULL || eol == second)
    return svn_fs_fs__corrupt("UUID-2", "db/uuid",
                              "Missing or unterminated instance ID");
  *eol = '\0';
  ffd->instance_id = apr_pstrdup(fs->pool, second);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__update_min_unpacked_rev(svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_stringbuf_t *text;

  SVN_ERR(read_db_file(&text, fs, "min-unpacked-rev", scratch_pool));
  if (!parse_revnum(&ffd->min_unpacked_rev, text->data, text->len))
    return svn_fs_fs__corrupt("LAYOUT-4", "db/min-unpacked-rev",
                              "Malformed min-unpacked-rev");
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__youngest_rev(svn_revnum_t *youngest, svn_fs_t *fs,
                        apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_stringbuf_t *text;
  svn_revnum_t rev;

  SVN_ERR(read_db_file(&text, fs, "current", scratch_pool));
  if (!parse_revnum(&rev, text->data, text->len))
    return svn_fs_fs__corrupt("CURRENT-1", "db/current",
                              "Malformed youngest revision");
  if (rev > ffd->youngest_rev_cache)
    ffd->youngest_rev_cache = rev;
  *youngest = rev;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__ensure_revision_exists(svn_revnum_t rev, svn_fs_t *fs,
                                  apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_revnum_t youngest;

  if (!SVN_IS_VALID_REVNUM(rev))
    return svn_error_createf(SVN_ERR_FS_NO_SUCH_REVISION, NULL,
                             "Invalid revision number '%ld'", rev);
  if (rev <= ffd->youngest_rev_cache)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__youngest_rev(&youngest, fs, scratch_pool));
  if (rev <= youngest)
    return SVN_NO_ERROR;
  return svn_error_createf(SVN_ERR_FS_NO_SUCH_REVISION, NULL,
                           "No such revision %ld", rev);
}

svn_boolean_t
svn_fs_fs__use_log_addressing(svn_fs_t *fs)
{
  return SVN_FS_FS__DATA(fs)->use_log_addressing;
}

svn_boolean_t
svn_fs_fs__is_packed_rev(svn_fs_t *fs, svn_revnum_t rev)
{
  return rev < SVN_FS_FS__DATA(fs)->min_unpacked_rev;
}

/* Everything of open_repo except the caches; fills FS's private data. */
static svn_error_t *
open_db(svn_fs_t *fs, const char *path, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = apr_pcalloc(fs->pool, sizeof(*ffd));

  fs->path = apr_pstrdup(fs->pool, path);
  fs->fsap_data = ffd;
  ffd->youngest_rev_cache = 0;
  SVN_ERR(read_format(ffd, fs, scratch_pool));
  SVN_ERR(read_uuid(ffd, fs, scratch_pool));
  SVN_ERR(svn_fs_fs__fsconf_read(
            ffd, svn_fs_fs__path_db(fs, SVN_FS_FS__CONFIG_FILE, scratch_pool),
            scratch_pool));
  SVN_ERR(svn_mutex__init(&ffd->fs_write_lock, TRUE, fs->pool));
  /* Not yet shared between svn_fs_t of one repository (to do: keep it in
     the loader's common pool, keyed by the repository). */
  ffd->shared = apr_pcalloc(fs->pool, sizeof(*ffd->shared));
  ffd->shared->pool = fs->pool;
  ffd->shared->write_lock = ffd->fs_write_lock;
  SVN_ERR(svn_mutex__init(&ffd->shared->pack_lock, TRUE, fs->pool));
  SVN_ERR(svn_mutex__init(&ffd->shared->txn_current_lock, TRUE, fs->pool));
  SVN_ERR(svn_mutex__init(&ffd->shared->txn_list_lock, TRUE, fs->pool));
  ffd->shared->locked_protorevs = apr_hash_make(fs->pool);
  fs->vtable = &svn_fs_fs__fs_vtable;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__open_repo(svn_fs_t *fs, const char *path,
                     apr_pool_t *scratch_pool)
{
  svn_revnum_t youngest;

  SVN_ERR(open_db(fs, path, scratch_pool));
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
  SVN_ERR(svn_fs_fs__youngest_rev(&youngest, fs, scratch_pool));
  SVN_ERR(svn_fs_fs__init_caches(fs, scratch_pool));
  return svn_error_trace(svn_fs_fs__revprops_init_caches(fs, scratch_pool));
}

svn_error_t *
svn_fs_fs__open_repo_for_recovery(svn_fs_t *fs, const char *path,
                                  apr_pool_t *scratch_pool)
{
  svn_error_t *err;

  /* Recovery rebuilds db/current, so it must not be needed here; a
     missing min-unpacked-rev is likewise treated as "nothing packed". */
  SVN_ERR(open_db(fs, path, scratch_pool));
  err = svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool);
  if (err)
    {
      svn_error_clear(err);
      SVN_FS_FS__DATA(fs)->min_unpacked_rev = 0;
    }
  SVN_ERR(svn_fs_fs__init_caches(fs, scratch_pool));
  return svn_error_trace(svn_fs_fs__revprops_init_caches(fs, scratch_pool));
}

svn_error_t *
svn_fs_fs__info_fsap(const void **fsap_info, svn_fs_t *fs,
                     apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  const svn_fs_fs__data_t *data = SVN_FS_FS__DATA(fs);
  svn_fs_fsfs_info_t *out;

  /* Another process may have packed since we opened: report the pack
     boundary as it is on disk now. */
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
  out = apr_pcalloc(result_pool, sizeof(*out));
  out->min_unpacked_rev = data->min_unpacked_rev;
  out->log_addressing = data->use_log_addressing;
  out->shard_size = data->max_files_per_dir;
  out->fs_type = SVN_FS_TYPE_FSFS;
  *fsap_info = out;
  return SVN_NO_ERROR;
}

void *
svn_fs_fs__info_fsap_dup(const void *fsap_info, apr_pool_t *result_pool)
{
  /* All members are scalars or static strings. */
  return apr_pmemdup(result_pool, fsap_info, sizeof(svn_fs_fsfs_info_t));
}

/* Take db/NAME exclusively for the lifetime of POOL, creating the empty
   lock file first if it does not exist yet. */
static svn_error_t *
lock_db_file(svn_fs_t *fs, const char *name, apr_pool_t *pool)
{
  const char *path = svn_fs_fs__path_db(fs, name, pool);
  svn_node_kind_t kind;

  SVN_ERR(svn_io_check_path(path, &kind, pool));
  if (kind == svn_node_none)
    SVN_ERR(svn_io_file_create_empty(path, pool));
  return svn_error_trace(svn_io_file_lock2(path, TRUE, FALSE, pool));
}

/* Take db/write-lock in a sub-pool of POOL, run FUNC, release. */
static svn_error_t *
locked_call(svn_fs_t *fs, svn_error_t *(*func)(void *baton, apr_pool_t *pool),
            void *baton, apr_pool_t *pool)
{
  apr_pool_t *lock_pool = svn_pool_create(pool);
  svn_error_t *err;

  /* The lock lives as long as LOCK_POOL: destroying it unlocks. */
  err = lock_db_file(fs, "write-lock", lock_pool);
  if (!err)
    err = func(baton, lock_pool);
  svn_pool_destroy(lock_pool);
  return svn_error_trace(err);
}

svn_error_t *
svn_fs_fs__with_write_lock(svn_fs_t *fs,
                           svn_error_t *(*func)(void *baton,
                                                apr_pool_t *pool),
                           void *baton, apr_pool_t *pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);

  SVN_MUTEX__WITH_LOCK(ffd->fs_write_lock,
                       locked_call(fs, func, baton, pool));
  return SVN_NO_ERROR;
}

/* What with_all_locks and with_freeze_locks run inside the write lock. */
typedef struct all_locks_baton_t
{
  svn_fs_t *fs;
  svn_boolean_t txn_current;      /* take txn-current-lock too */
  svn_error_t *(*func)(void *baton, apr_pool_t *pool);
  void *baton;
} all_locks_baton_t;

static svn_error_t *
inner_locks(void *baton, apr_pool_t *pool)
{
  all_locks_baton_t *b = baton;
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(b->fs);

  if (ffd->format >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    SVN_ERR(lock_db_file(b->fs, "pack-lock", pool));
  if (b->txn_current)
    SVN_ERR(lock_db_file(b->fs, "txn-current-lock", pool));
  return svn_error_trace(b->func(b->baton, pool));
}

/* The write lock, the pack lock and, if TXN_CURRENT, txn-current-lock
   around FUNC(BATON). */
static svn_error_t *
with_locks(svn_fs_t *fs, svn_boolean_t txn_current,
           svn_error_t *(*func)(void *baton, apr_pool_t *pool),
           void *baton, apr_pool_t *pool)
{
  all_locks_baton_t b;

  b.fs = fs;
  b.txn_current = txn_current;
  b.func = func;
  b.baton = baton;
  return svn_error_trace(svn_fs_fs__with_write_lock(fs, inner_locks, &b,
                                                    pool));
}

svn_error_t *
svn_fs_fs__with_all_locks(svn_fs_t *fs,
                          svn_error_t *(*func)(void *baton,
                                               apr_pool_t *pool),
                          void *baton, apr_pool_t *pool)
{
  return svn_error_trace(with_locks(fs, TRUE, func, baton, pool));
}

svn_error_t *
svn_fs_fs__with_freeze_locks(svn_fs_t *fs,
                             svn_error_t *(*func)(void *baton,
                                                  apr_pool_t *pool),
                             void *baton, apr_pool_t *pool)
{
  return svn_error_trace(with_locks(fs, FALSE, func, baton, pool));
}
