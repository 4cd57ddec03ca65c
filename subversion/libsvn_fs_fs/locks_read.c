/* locks_read.c --- reading db/locks (locks_read.h).
 *
 * Every path that is locked, and every ancestor of such a path, has a
 * "digest file" db/locks/<d[0..2]>/<d>, where d is the hex MD5 of the
 * fs path.  It is a hash dump (hashdump.h) with the lock's fields (path,
 * token, owner, comment, is_dav_comment, creation_date, expiration_date)
 * if the path itself is locked, and "children": the digests of all
 * locked paths below it, one per line (LOCK-1, LOCK-2).
 */
#include <apr_strings.h>

#include "svn_checksum.h"
#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_time.h"
#include "private/svn_fspath.h"
#include "private/svn_fs_util.h"

#include "corrupt.h"
#include "hashdump.h"
#include "locks_read.h"
#include "paths.h"

const char *
svn_fs_fs__lock_digest_path(svn_fs_t *fs, const char *digest,
                            apr_pool_t *pool)
{
  return apr_psprintf(pool, "%s/locks/%.3s/%s", fs->path, digest, digest);
}

const char *
svn_fs_fs__lock_digest(const char *path, apr_pool_t *pool)
{
  svn_checksum_t *checksum;

  svn_error_clear(svn_checksum(&checksum, svn_checksum_md5, path,
                               strlen(path), pool));
  return svn_checksum_to_cstring_display(checksum, pool);
}

svn_error_t *
svn_fs_fs__lock_read_digest(apr_hash_t **props, svn_fs_t *fs,
                            const char *digest, apr_pool_t *pool)
{
  const char *path = svn_fs_fs__lock_digest_path(fs, digest, pool);
  svn_stringbuf_t *text;
  svn_error_t *err = svn_stringbuf_from_file2(&text, path, pool);

  *props = NULL;
  if (err && (APR_STATUS_IS_ENOENT(err->apr_err)
              || APR_STATUS_IS_ENOTDIR(err->apr_err)))
    {
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  return svn_error_trace(svn_fs_fs__hashdump_parse(
           props, NULL, text->data, text->len,
           svn_dirent_local_style(path, pool), pool));
}

/* Value of KEY in PROPS as a C string, or NULL. */
static const char *
prop(apr_hash_t *props, const char *key)
{
  svn_string_t *value = svn_hash_gets(props, key);
  return value ? value->data : NULL;
}

svn_error_t *
svn_fs_fs__lock_parse(svn_lock_t **lock_p, apr_hash_t *props,
                      apr_pool_t *pool)
{
  svn_lock_t *lock;
  const char *date;

  *lock_p = NULL;
  if (prop(props, "path") == NULL)
    return SVN_NO_ERROR;
  if (prop(props, "token") == NULL || prop(props, "owner") == NULL
      || prop(props, "creation_date") == NULL)
    return svn_fs_fs__corrupt("LOCK-2", prop(props, "path"),
                              "Lock file lacks token, owner or date");
  lock = svn_lock_create(pool);
  lock->path = prop(props, "path");
  lock->token = prop(props, "token");
  lock->owner = prop(props, "owner");
  lock->comment = prop(props, "comment");
  lock->is_dav_comment = prop(props, "is_dav_comment")
                         && strcmp(prop(props, "is_dav_comment"), "1") == 0;
  SVN_ERR(svn_time_from_cstring(&lock->creation_date,
                                prop(props, "creation_date"), pool));
  date = prop(props, "expiration_date");
  if (date)
    SVN_ERR(svn_time_from_cstring(&lock->expiration_date, date, pool));
  *lock_p = lock;
  return SVN_NO_ERROR;
}

svn_boolean_t
svn_fs_fs__lock_expired(const svn_lock_t *lock)
{
  return lock->expiration_date && apr_time_now() > lock->expiration_date;
}

/* The unexpired lock described by PROPS, or NULL. */
static svn_error_t *
lock_from_props(svn_lock_t **lock_p, apr_hash_t *props, apr_pool_t *pool)
{
  SVN_ERR(svn_fs_fs__lock_parse(lock_p, props, pool));
  if (*lock_p && svn_fs_fs__lock_expired(*lock_p))
    *lock_p = NULL;
  return SVN_NO_ERROR;
}

/* Read the digest file DIGEST: *PROPS gets its hash (NULL if there is
   no such file), *LOCK_P the unexpired lock it holds (or NULL). */
static svn_error_t *
read_digest_lock(apr_hash_t **props, svn_lock_t **lock_p, svn_fs_t *fs,
                 const char *digest, apr_pool_t *pool)
{
  SVN_ERR(svn_fs_fs__lock_read_digest(props, fs, digest, pool));
  *lock_p = NULL;
  if (*props)
    SVN_ERR(lock_from_props(lock_p, *props, pool));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__locks_get(svn_lock_t **lock, svn_fs_t *fs, const char *path,
                     apr_pool_t *pool)
{
  apr_hash_t *props;

  path = svn_fs__canonicalize_abspath(path, pool);
  SVN_ERR(read_digest_lock(&props, lock, fs,
                           svn_fs_fs__lock_digest(path, pool), pool));
  if (*lock && strcmp((*lock)->path, path) != 0)
    return svn_fs_fs__corrupt("LOCK-1", path,
                              "Lock file is for '%s'", (*lock)->path);
  return SVN_NO_ERROR;
}

/* Report LOCK if DEPTH admits it below ROOT_PATH. */
static svn_error_t *
report_lock(svn_lock_t *lock, const char *root_path, svn_depth_t depth,
            svn_fs_get_locks_callback_t func, void *baton, apr_pool_t *pool)
{
  if (lock == NULL)
    return SVN_NO_ERROR;
  if (depth == svn_depth_empty && strcmp(lock->path, root_path) != 0)
    return SVN_NO_ERROR;
  if ((depth == svn_depth_files || depth == svn_depth_immediates)
      && strcmp(lock->path, root_path) != 0
      && strcmp(svn_fspath__dirname(lock->path, pool), root_path) != 0)
    return SVN_NO_ERROR;
  return svn_error_trace(func(baton, lock, pool));
}

svn_error_t *
svn_fs_fs__locks_walk(svn_fs_t *fs, const char *path, svn_depth_t depth,
                      svn_fs_get_locks_callback_t get_locks_func,
                      void *get_locks_baton, apr_pool_t *pool)
{
  apr_pool_t *iterpool = svn_pool_create(pool);
  apr_hash_t *props;
  svn_lock_t *lock;
  const char *children;
  int i;
  apr_array_header_t *digests;

  path = svn_fs__canonicalize_abspath(path, pool);
  SVN_ERR(read_digest_lock(&props, &lock, fs,
                           svn_fs_fs__lock_digest(path, pool), pool));
  if (props == NULL)
    return SVN_NO_ERROR;
  SVN_ERR(report_lock(lock, path, depth, get_locks_func, get_locks_baton,
                      pool));
  children = prop(props, "children");
  if (depth == svn_depth_empty || children == NULL)
    return SVN_NO_ERROR;
  digests = svn_cstring_split(children, "\n", TRUE, pool);
  for (i = 0; i < digests->nelts; i++)
    {
      apr_hash_t *child;

      svn_pool_clear(iterpool);
      /* A vanished child has no lock to report (report_lock skips NULL). */
      SVN_ERR(read_digest_lock(&child, &lock, fs,
                               APR_ARRAY_IDX(digests, i, const char *),
                               iterpool));
      SVN_ERR(report_lock(lock, path, depth, get_locks_func,
                          get_locks_baton, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* ------------------------------------------------------------------ */
/* Lock checks of writers                                              */

/* Is the user of FS's access context allowed to change LOCK's path? */
static svn_error_t *
check_lock_owner(svn_fs_t *fs, const svn_lock_t *lock, apr_pool_t *pool)
{
  svn_fs_access_t *access = fs->access_ctx;

  if (!access || !access->username)
    return svn_error_createf(SVN_ERR_FS_NO_USER, NULL,
                             "Cannot verify lock on path '%s'; no username "
                             "available", lock->path);
  if (strcmp(access->username, lock->owner) != 0)
    return svn_error_createf(SVN_ERR_FS_LOCK_OWNER_MISMATCH, NULL,
                             "User '%s' does not own lock on path '%s' "
                             "(currently locked by '%s')", access->username,
                             lock->path, lock->owner);
  if (!svn_hash_gets(access->lock_tokens, lock->token))
    return svn_error_createf(SVN_ERR_FS_BAD_LOCK_TOKEN, NULL,
                             "Cannot verify lock on path '%s'; no matching "
                             "lock-token available", lock->path);
  return SVN_NO_ERROR;
}

/* svn_fs_get_locks_callback_t over check_lock_owner; BATON is the fs. */
static svn_error_t *
check_lock_owner_cb(void *baton, svn_lock_t *lock, apr_pool_t *pool)
{
  return svn_error_trace(check_lock_owner(baton, lock, pool));
}

svn_error_t *
svn_fs_fs__allow_locked_operation(svn_fs_t *fs, const char *path,
                                  svn_boolean_t recurse, apr_pool_t *pool)
{
  svn_lock_t *lock;

  path = svn_fs__canonicalize_abspath(path, pool);
  if (recurse)
    return svn_error_trace(svn_fs_fs__locks_walk(fs, path,
                                                 svn_depth_infinity,
                                                 check_lock_owner_cb, fs,
                                                 pool));
  SVN_ERR(svn_fs_fs__locks_get(&lock, fs, path, pool));
  return lock ? svn_error_trace(check_lock_owner(fs, lock, pool))
              : SVN_NO_ERROR;
}
