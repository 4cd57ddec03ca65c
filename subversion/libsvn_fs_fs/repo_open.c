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
 *     svn_fs_fs__shared_attach             -> in-process locks (repo_shared.c)
 *     svn_fs_fs__update_min_unpacked_rev   -> pack boundary
 *     init_caches          each layer's *_init_caches, one key prefix
 *
 * This file also owns db/current (youngest revision) and
 * db/min-unpacked-rev; the lock files belong to repo_shared.c.
 */
#include <apr_strings.h>

#include "svn_io.h"
#include "svn_pools.h"
#include "svn_dirent_uri.h"

#include "cache_admit.h"
#include "caching.h"
#include "corrupt.h"
#include "format.h"
#include "fsconf.h"
#include "index.h"
#include "lookup.h"
#include "node.h"
#include "paths.h"
#include "rep_read.h"
#include "repo.h"
#include "revfile.h"
#include "revprops.h"
#include "scan.h"
#include "txn_store.h"

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

  /* OLD-8: formats 1 to 3 cannot be packed and have no such file. */
  if (ffd->format < SVN_FS_FS__MIN_PACKING_FORMAT)
    {
      ffd->min_unpacked_rev = 0;
      return SVN_NO_ERROR;
    }
  SVN_ERR(read_db_file(&text, fs, "min-unpacked-rev", scratch_pool));
  if (!parse_revnum(&ffd->min_unpacked_rev, text->data, text->len))
    return svn_fs_fs__corrupt("LAYOUT-4", "db/min-unpacked-rev",
                              "Malformed min-unpacked-rev");
  return SVN_NO_ERROR;
}

svn_boolean_t
svn_fs_fs__current_parse(svn_revnum_t *rev, apr_uint64_t *next_node_id,
                         apr_uint64_t *next_copy_id, const char *data,
                         apr_size_t len)
{
  const char *end = data + len;
  const char *space = memchr(data, ' ', len);
  const char *p;

  *next_node_id = 0;
  *next_copy_id = 0;
  if (!space)
    return parse_revnum(rev, data, len);
  /* OLD-3: "<rev> <next-node-id> <next-copy-id>\n", ids in base 36. */
  if (end == data || end[-1] != '\n' || !parse_revnum(rev, data, space - data)
      || !svn_fs_fs__txn_base36_parse(next_node_id, &p, space + 1, end)
      || p == end || *p != ' '
      || !svn_fs_fs__txn_base36_parse(next_copy_id, &p, p + 1, end)
      || p != end - 1)
    return FALSE;
  return TRUE;
}

svn_error_t *
svn_fs_fs__read_current(svn_revnum_t *rev, apr_uint64_t *next_node_id,
                        apr_uint64_t *next_copy_id, svn_fs_t *fs,
                        apr_pool_t *scratch_pool)
{
  svn_stringbuf_t *text;

  SVN_ERR(read_db_file(&text, fs, "current", scratch_pool));
  if (!svn_fs_fs__current_parse(rev, next_node_id, next_copy_id, text->data,
                                text->len))
    return svn_fs_fs__corrupt("CURRENT-1", "db/current",
                              "Malformed youngest revision");
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__youngest_rev(svn_revnum_t *youngest, svn_fs_t *fs,
                        apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_revnum_t rev;
  apr_uint64_t node_id, copy_id;

  SVN_ERR(svn_fs_fs__read_current(&rev, &node_id, &copy_id, fs,
                                  scratch_pool));
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
open_db(svn_fs_t *fs, const char *path, const char *repo_path,
        apr_pool_t *scratch_pool)
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
  /* One set of in-process locks per repository, not per svn_fs_t. */
  SVN_ERR(svn_fs_fs__shared_attach(fs, repo_path, scratch_pool));
  ffd->fs_write_lock = ffd->shared->write_lock;
  fs->vtable = &svn_fs_fs__fs_vtable;
  return SVN_NO_ERROR;
}

/* Each layer creates the caches of the values it owns, all under one key
   prefix naming this repository (caching.h); revprops come last because
   their cache reads the prefix from the private data. */
static svn_error_t *
init_caches(svn_fs_t *fs, const char *repo_path, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_membuffer_t *membuffer = svn_fs_fs__cache_membuffer(scratch_pool);
  const char *prefix = svn_fs_fs__cache_prefix(fs, repo_path, fs->pool);

  ffd->cache_prefix = prefix;
  ffd->cache_bytes = svn_fs_fs__membuffer_bytes(membuffer);
  ffd->admit_salt = svn_fs_fs__admit_salt(prefix);
  SVN_ERR(svn_fs_fs__revfile_init_caches(fs, membuffer, prefix, fs->pool,
                                         scratch_pool));
  SVN_ERR(svn_fs_fs__index_init_caches(fs, membuffer, prefix, fs->pool,
                                       scratch_pool));
  SVN_ERR(svn_fs_fs__nodes_init_caches(fs, membuffer, prefix, fs->pool,
                                       scratch_pool));
  SVN_ERR(svn_fs_fs__lookup_init_caches(fs, membuffer, prefix, fs->pool,
                                        scratch_pool));
  SVN_ERR(svn_fs_fs__reps_init_caches(fs, membuffer, prefix, fs->pool,
                                      scratch_pool));
  return svn_error_trace(svn_fs_fs__revprops_init_caches(fs, scratch_pool));
}

/* db/current is not read here: like the stock module we leave it to the
   first question about revisions (ensure_revision_exists reads it when a
   revision is beyond youngest_rev_cache), which saves five system calls
   on every open -- mod_dav_svn opens the repository per request. */
svn_error_t *
svn_fs_fs__open_repo(svn_fs_t *fs, const char *path,
                     apr_pool_t *scratch_pool)
{
  const char *repo_path = svn_fs_fs__repo_key_path(path, scratch_pool);

  SVN_ERR(open_db(fs, path, repo_path, scratch_pool));
  SVN_ERR(svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool));
  return svn_error_trace(init_caches(fs, repo_path, scratch_pool));
}

svn_error_t *
svn_fs_fs__open_repo_for_recovery(svn_fs_t *fs, const char *path,
                                  apr_pool_t *scratch_pool)
{
  svn_error_t *err;
  const char *repo_path = svn_fs_fs__repo_key_path(path, scratch_pool);

  /* Recovery rebuilds db/current, so it must not be needed here; a
     missing min-unpacked-rev is likewise treated as "nothing packed".
     Only a missing one: taken as 0 after an I/O error, recover would look
     for the packed revisions' files, find no r0 and report that instead
     of the file it could not read. */
  SVN_ERR(open_db(fs, path, repo_path, scratch_pool));
  err = svn_fs_fs__update_min_unpacked_rev(fs, scratch_pool);
  if (err && APR_STATUS_IS_ENOENT(err->apr_err))
    {
      svn_error_clear(err);
      SVN_FS_FS__DATA(fs)->min_unpacked_rev = 0;
    }
  else
    SVN_ERR(err);
  return svn_error_trace(init_caches(fs, repo_path, scratch_pool));
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
