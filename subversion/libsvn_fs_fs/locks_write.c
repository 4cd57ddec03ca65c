/* locks_write.c --- creating and removing locks (locks_write.h).
 *
 *   svn_fs_fs__locks_lock / _unlock          (under db/write-lock)
 *     for_each_target: each path, in sorted order:
 *       lock_one / unlock_one                checks, per-path errors
 *         add_lock / remove_lock             the path's digest file, then
 *           update_entry                     every ancestor's "children"
 *
 * A digest file vanishes when it holds neither a lock nor children
 * (LOCK-3).  Files are replaced atomically; files and directories get
 * the permissions stock gives them (see "Permissions" below).
 */
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_hash.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "svn_sorts.h"
#include "svn_time.h"
#include "private/svn_fspath.h"
#include "private/svn_fs_util.h"
#include "private/svn_sorts_private.h"

#include "hashdump.h"
#include "locks_read.h"
#include "locks_write.h"
#include "node_walk.h"
#include "paths.h"
#include "repo.h"

/* ------------------------------------------------------------------ */
/* Digest file entries                                                 */

/* What one digest file says. */
typedef struct entry_t
{
  svn_lock_t *lock;                 /* NULL: path not locked */
  apr_array_header_t *children;     /* sorted digests (const char *) */
} entry_t;

/* Read the entry of DIGEST (empty if the file does not exist). */
static svn_error_t *
read_entry(entry_t *entry, svn_fs_t *fs, const char *digest,
           apr_pool_t *pool)
{
  apr_hash_t *props;
  svn_string_t *children;

  entry->lock = NULL;
  entry->children = apr_array_make(pool, 4, sizeof(const char *));
  SVN_ERR(svn_fs_fs__lock_read_digest(&props, fs, digest, pool));
  if (props == NULL)
    return SVN_NO_ERROR;
  SVN_ERR(svn_fs_fs__lock_parse(&entry->lock, props, pool));
  children = svn_hash_gets(props, "children");
  if (children)
    entry->children = svn_cstring_split(children->data, "\n", TRUE, pool);
  svn_sort__array(entry->children, svn_sort_compare_paths);
  return SVN_NO_ERROR;
}

/* Set KEY of PROPS to VALUE if VALUE is not NULL. */
static void
set_prop(apr_hash_t *props, const char *key, const char *value,
         apr_pool_t *pool)
{
  if (value)
    svn_hash_sets(props, key, svn_string_create(value, pool));
}

/* The hash dump of ENTRY (LOCK-2). */
static svn_stringbuf_t *
entry_dump(const entry_t *entry, apr_pool_t *pool)
{
  apr_hash_t *props = apr_hash_make(pool);
  svn_stringbuf_t *dump = svn_stringbuf_create_empty(pool);
  const svn_lock_t *lock = entry->lock;

  if (lock)
    {
      set_prop(props, "path", lock->path, pool);
      set_prop(props, "token", lock->token, pool);
      set_prop(props, "owner", lock->owner, pool);
      set_prop(props, "comment", lock->comment, pool);
      set_prop(props, "is_dav_comment", lock->is_dav_comment ? "1" : "0",
               pool);
      set_prop(props, "creation_date",
               svn_time_to_cstring(lock->creation_date, pool), pool);
      if (lock->expiration_date)
        set_prop(props, "expiration_date",
                 svn_time_to_cstring(lock->expiration_date, pool), pool);
    }
  if (entry->children->nelts)
    {
      svn_stringbuf_t *list = svn_stringbuf_create_empty(pool);
      int i;

      for (i = 0; i < entry->children->nelts; i++)
        {
          svn_stringbuf_appendcstr(list, APR_ARRAY_IDX(entry->children, i,
                                                       const char *));
          svn_stringbuf_appendbyte(list, '\n');
        }
      set_prop(props, "children", list->data, pool);
    }
  svn_fs_fs__hashdump_unparse(dump, props, pool);
  return dump;
}

/* ------------------------------------------------------------------ */
/* Permissions                                                         */

/* What stock gives the files and directories it creates under db/locks
   (so that a repository shared by a group stays usable by every member,
   whatever their umask): the directories get the permissions of db/
   itself, the digest files those of r0's revision file (its pack file
   once packed) -- read-only unless the administrator made r0 writable. */

/* Create directory DIR of FS's locks unless it exists, with the
   permissions of db/. */
static svn_error_t *
ensure_locks_dir(svn_fs_t *fs, const char *dir, apr_pool_t *pool)
{
  svn_error_t *err = svn_io_dir_make(dir, APR_OS_DEFAULT, pool);

  if (err && APR_STATUS_IS_EEXIST(err->apr_err))
    {
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  SVN_ERR(err);
  return svn_error_trace(svn_io_copy_perms(fs->path, dir, pool));
}

/* Give PATH the permissions of r0's revision file in FS. */
static svn_error_t *
copy_r0_perms(svn_fs_t *fs, const char *path, apr_pool_t *pool)
{
  svn_error_t *err = svn_io_copy_perms(svn_fs_fs__path_rev(fs, 0, pool),
                                       path, pool);

  if (!err || !APR_STATUS_IS_ENOENT(err->apr_err))
    return svn_error_trace(err);
  svn_error_clear(err);
  return svn_error_trace(svn_io_copy_perms(
           svn_fs_fs__path_rev_packed(fs, 0, "pack", pool), path, pool));
}

/* Write ENTRY as digest file DIGEST, or delete the file if ENTRY is
   empty (LOCK-3).  The new file takes the old one's name complete and
   with its final permissions. */
static svn_error_t *
write_entry(svn_fs_t *fs, const char *digest, const entry_t *entry,
            apr_pool_t *pool)
{
  const char *path = svn_fs_fs__lock_digest_path(fs, digest, pool);
  const char *dir = svn_dirent_dirname(path, pool);
  svn_stringbuf_t *dump;
  const char *tmp;

  if (entry->lock == NULL && entry->children->nelts == 0)
    return svn_error_trace(svn_io_remove_file2(path, TRUE, pool));
  dump = entry_dump(entry, pool);
  SVN_ERR(ensure_locks_dir(fs, svn_dirent_dirname(dir, pool), pool));
  SVN_ERR(ensure_locks_dir(fs, dir, pool));
  SVN_ERR(svn_io_write_unique(&tmp, dir, dump->data, dump->len,
                              svn_io_file_del_none, pool));
  SVN_ERR(copy_r0_perms(fs, tmp, pool));
  return svn_error_trace(svn_io_file_rename2(tmp, path, FALSE, pool));
}

/* Add CHILD to (ADD) or drop it from the children of every ancestor of
   the fs path PATH. */
static svn_error_t *
update_ancestors(svn_fs_t *fs, const char *path, const char *child,
                 svn_boolean_t add, apr_pool_t *pool)
{
  apr_pool_t *iterpool = svn_pool_create(pool);

  while (strcmp(path, "/") != 0)
    {
      const char *digest;
      entry_t entry;
      int i;

      svn_pool_clear(iterpool);
      path = svn_fspath__dirname(path, pool);
      digest = svn_fs_fs__lock_digest(path, iterpool);
      SVN_ERR(read_entry(&entry, fs, digest, iterpool));
      for (i = 0; i < entry.children->nelts; i++)
        if (strcmp(APR_ARRAY_IDX(entry.children, i, const char *),
                   child) == 0)
          break;
      if (add && i == entry.children->nelts)
        APR_ARRAY_PUSH(entry.children, const char *) = child;
      else if (!add && i < entry.children->nelts)
        SVN_ERR(svn_sort__array_delete2(entry.children, i, 1));
      svn_sort__array(entry.children, svn_sort_compare_paths);
      SVN_ERR(write_entry(fs, digest, &entry, iterpool));
    }
  svn_pool_destroy(iterpool);
  return SVN_NO_ERROR;
}

/* Record LOCK (on LOCK->path) and link it from its ancestors. */
static svn_error_t *
add_lock(svn_fs_t *fs, svn_lock_t *lock, apr_pool_t *pool)
{
  const char *digest = svn_fs_fs__lock_digest(lock->path, pool);
  entry_t entry;

  SVN_ERR(read_entry(&entry, fs, digest, pool));
  entry.lock = lock;
  SVN_ERR(write_entry(fs, digest, &entry, pool));
  return svn_error_trace(update_ancestors(fs, lock->path, digest, TRUE,
                                          pool));
}

/* Forget the lock on PATH and unlink it from its ancestors. */
static svn_error_t *
remove_lock(svn_fs_t *fs, const char *path, apr_pool_t *pool)
{
  const char *digest = svn_fs_fs__lock_digest(path, pool);
  entry_t entry;

  SVN_ERR(read_entry(&entry, fs, digest, pool));
  entry.lock = NULL;
  SVN_ERR(write_entry(fs, digest, &entry, pool));
  return svn_error_trace(update_ancestors(fs, path, digest, FALSE, pool));
}

/* The current (unexpired) lock on PATH, or NULL; an expired one is
   removed on the way (LOCK-4). */
static svn_error_t *
current_lock(svn_lock_t **lock, svn_fs_t *fs, const char *path,
             apr_pool_t *pool)
{
  entry_t entry;

  SVN_ERR(read_entry(&entry, fs, svn_fs_fs__lock_digest(path, pool), pool));
  *lock = entry.lock;
  if (*lock && svn_fs_fs__lock_expired(*lock))
    {
      *lock = NULL;
      SVN_ERR(remove_lock(fs, path, pool));
    }
  return SVN_NO_ERROR;
}

const char *
svn_fs_fs__generate_lock_token(apr_pool_t *pool)
{
  return apr_pstrcat(pool, "opaquelocktoken:", svn_uuid_generate(pool),
                     SVN_VA_NULL);
}

/* ------------------------------------------------------------------ */
/* Requests over many paths                                            */

/* The per-path step of a request: lock or unlock PATH as VALUE (its
   entry in the request's targets hash) says, using BATON.  A lock made
   goes to *LOCK_P, which starts as NULL. */
typedef svn_error_t *(*path_op_t)(svn_lock_t **lock_p, void *baton,
                                  const char *path, const void *value,
                                  apr_pool_t *pool);

/* Report one path's outcome; remember the first callback error.  A
   callback that failed hears of no further paths (the stock module's
   contract): the remaining paths are still locked or unlocked, silently,
   so the caller gets the callback's error and the work done. */
static void
report(svn_error_t **first_cb_err, svn_fs_lock_callback_t callback,
       void *baton, const char *path, const svn_lock_t *lock,
       svn_error_t *err, apr_pool_t *pool)
{
  if (callback && !*first_cb_err)
    *first_cb_err = callback(baton, path, lock, err, pool);
  svn_error_clear(err);
}

/* Run OP (with OP_BATON) on each path of TARGETS and report each outcome
   to CALLBACK (with CALLBACK_BATON): a per-path error goes to the callback,
   not to our caller.  Paths go in sorted order, which makes the outcome
   of a many-path request reproducible.  Returns the first callback
   error. */
static svn_error_t *
for_each_target(apr_hash_t *targets, path_op_t op, void *op_baton,
                svn_fs_lock_callback_t callback, void *callback_baton,
                apr_pool_t *pool)
{
  apr_array_header_t *paths
    = svn_sort__hash(targets, svn_sort_compare_items_as_paths, pool);
  apr_pool_t *iterpool = svn_pool_create(pool);
  svn_error_t *first_cb_err = SVN_NO_ERROR;
  int i;

  for (i = 0; i < paths->nelts; i++)
    {
      svn_sort__item_t *item = &APR_ARRAY_IDX(paths, i, svn_sort__item_t);
      svn_lock_t *lock = NULL;
      svn_error_t *err;

      svn_pool_clear(iterpool);
      err = op(&lock, op_baton,
               svn_fs__canonicalize_abspath(item->key, iterpool),
               item->value, iterpool);
      report(&first_cb_err, callback, callback_baton, item->key,
             err ? NULL : lock, err, iterpool);
    }
  svn_pool_destroy(iterpool);
  return first_cb_err;
}

/* The error for a request that needs a user when FS has none. */
static svn_error_t *
no_user_error(svn_fs_t *fs)
{
  return svn_error_createf(SVN_ERR_FS_NO_USER, NULL,
                           "No username is currently associated with "
                           "filesystem '%s'", fs->uuid);
}

/* ------------------------------------------------------------------ */
/* Locking                                                             */

/* Everything lock_one needs besides the path. */
typedef struct lock_baton_t
{
  svn_fs_t *fs;
  apr_hash_t *targets;
  svn_revnum_t head;                /* youngest, once the write lock is held */
  const char *comment;
  svn_boolean_t is_dav_comment;
  apr_time_t expiration_date;
  svn_boolean_t steal_lock;
  svn_fs_lock_callback_t callback;
  void *callback_baton;
  apr_pool_t *result_pool;
} lock_baton_t;

/* PATH must be a file in revision HEAD not changed after CURRENT_REV.
   Read through the nodes layer: a committed node-rev's id names the
   revision that created it. */
static svn_error_t *
check_lockable(svn_fs_t *fs, svn_revnum_t head, const char *path,
               svn_revnum_t current_rev, apr_pool_t *pool)
{
  svn_fs_fs__noderev_t *noderev;
  svn_revnum_t created;

  SVN_ERR(svn_fs_fs__node_at_path(&noderev, fs, head, path, pool, pool));
  /* A caller that names the revision it saw the path in is out of date
     (the path went away since), as the stock module says. */
  if (noderev == NULL)
    return svn_error_createf(SVN_IS_VALID_REVNUM(current_rev)
                             ? SVN_ERR_FS_OUT_OF_DATE : SVN_ERR_FS_NOT_FOUND,
                             NULL, "Path '%s' doesn't exist in HEAD revision",
                             path);
  if (noderev->kind != svn_node_file)
    return svn_error_createf(SVN_ERR_FS_NOT_FILE, NULL,
                             "'%s' is not a file in filesystem '%s'",
                             path, fs->uuid);
  if (!SVN_IS_VALID_REVNUM(current_rev))
    return SVN_NO_ERROR;
  created = noderev->id->rev_item.revision;
  if (current_rev < created)
    return svn_error_createf(SVN_ERR_FS_OUT_OF_DATE, NULL,
                             "Lock failed: newer version of '%s' exists",
                             path);
  return SVN_NO_ERROR;
}

/* Lock PATH for TARGET (an svn_fs_lock_target_t) with BATON (a
   lock_baton_t); *LOCK_P in its result_pool.  A path_op_t. */
static svn_error_t *
lock_one(svn_lock_t **lock_p, void *baton, const char *path,
         const void *value, apr_pool_t *pool)
{
  lock_baton_t *b = baton;
  const svn_fs_lock_target_t *target = value;
  svn_fs_t *fs = b->fs;
  svn_lock_t *existing, *lock;

  SVN_ERR(check_lockable(fs, b->head, path, target->current_rev, pool));
  SVN_ERR(current_lock(&existing, fs, path, pool));
  if (existing && !b->steal_lock)
    return svn_error_createf(SVN_ERR_FS_PATH_ALREADY_LOCKED, NULL,
                             "Path '%s' is already locked by user '%s' in "
                             "filesystem '%s'", existing->path,
                             existing->owner, fs->uuid);
  if (existing)
    SVN_ERR(remove_lock(fs, path, pool));
  lock = svn_lock_create(b->result_pool);
  lock->path = apr_pstrdup(b->result_pool, path);
  lock->token = apr_pstrdup(b->result_pool, target->token ? target->token
                            : svn_fs_fs__generate_lock_token(pool));
  lock->owner = apr_pstrdup(b->result_pool, fs->access_ctx->username);
  lock->comment = apr_pstrdup(b->result_pool, b->comment);
  lock->is_dav_comment = b->is_dav_comment;
  lock->creation_date = apr_time_now();
  lock->expiration_date = b->expiration_date;
  SVN_ERR(add_lock(fs, lock, pool));
  *lock_p = lock;
  return SVN_NO_ERROR;
}

static svn_error_t *
lock_locked(void *baton, apr_pool_t *pool)
{
  lock_baton_t *b = baton;
  SVN_ERR(svn_fs_fs__youngest_rev(&b->head, b->fs, pool));
  return for_each_target(b->targets, lock_one, b, b->callback,
                         b->callback_baton, pool);
}

svn_error_t *
svn_fs_fs__locks_lock(svn_fs_t *fs, apr_hash_t *targets,
                      const char *comment, svn_boolean_t is_dav_comment,
                      apr_time_t expiration_date, svn_boolean_t steal_lock,
                      svn_fs_lock_callback_t lock_callback, void *lock_baton,
                      apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  lock_baton_t b;

  if (!fs->access_ctx || !fs->access_ctx->username)
    return no_user_error(fs);
  b.fs = fs;
  b.targets = targets;
  b.head = SVN_INVALID_REVNUM;
  b.comment = comment;
  b.is_dav_comment = is_dav_comment;
  b.expiration_date = expiration_date;
  b.steal_lock = steal_lock;
  b.callback = lock_callback;
  b.callback_baton = lock_baton;
  b.result_pool = result_pool;
  return svn_error_trace(svn_fs_fs__with_write_lock(fs, lock_locked, &b,
                                                    scratch_pool));
}

/* ------------------------------------------------------------------ */
/* Unlocking                                                           */

typedef struct unlock_baton_t
{
  svn_fs_t *fs;
  apr_hash_t *targets;
  svn_boolean_t break_lock;
  svn_fs_lock_callback_t callback;
  void *callback_baton;
} unlock_baton_t;

/* Remove the lock on PATH if the token VALUE (a const char *) and the
   user may (LOCK-5); BATON is an unlock_baton_t.  A path_op_t that leaves
   *LOCK_P alone. */
static svn_error_t *
unlock_one(svn_lock_t **lock_p, void *baton, const char *path,
           const void *value, apr_pool_t *pool)
{
  unlock_baton_t *b = baton;
  const char *token = value;
  svn_fs_t *fs = b->fs;
  svn_lock_t *lock;
  const char *user = fs->access_ctx ? fs->access_ctx->username : NULL;

  SVN_ERR(current_lock(&lock, fs, path, pool));
  /* A token that does not match names no lock on PATH: the same error
     as no lock at all (LOCK-5). */
  if (lock == NULL
      || (!b->break_lock && (token == NULL
                             || strcmp(token, lock->token) != 0)))
    return svn_error_createf(SVN_ERR_FS_NO_SUCH_LOCK, NULL,
                             "No lock on path '%s' in filesystem '%s'",
                             path, fs->uuid);
  if (!b->break_lock)
    {
      if (user == NULL)
        return no_user_error(fs);
      if (strcmp(user, lock->owner) != 0)
        return svn_error_createf(SVN_ERR_FS_LOCK_OWNER_MISMATCH, NULL,
                                 "User '%s' is trying to use a lock owned "
                                 "by '%s' in filesystem '%s'", user,
                                 lock->owner, fs->uuid);
    }
  return svn_error_trace(remove_lock(fs, path, pool));
}

static svn_error_t *
unlock_locked(void *baton, apr_pool_t *pool)
{
  unlock_baton_t *b = baton;

  return for_each_target(b->targets, unlock_one, b, b->callback,
                         b->callback_baton, pool);
}

svn_error_t *
svn_fs_fs__locks_unlock(svn_fs_t *fs, apr_hash_t *targets,
                        svn_boolean_t break_lock,
                        svn_fs_lock_callback_t lock_callback,
                        void *lock_baton, apr_pool_t *result_pool,
                        apr_pool_t *scratch_pool)
{
  unlock_baton_t b;

  b.fs = fs;
  b.targets = targets;
  b.break_lock = break_lock;
  b.callback = lock_callback;
  b.callback_baton = lock_baton;
  return svn_error_trace(svn_fs_fs__with_write_lock(fs, unlock_locked, &b,
                                                    scratch_pool));
}
