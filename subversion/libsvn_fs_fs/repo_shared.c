/* repo_shared.c --- the per-repository data every svn_fs_t of this
 * process shares, and the in-process halves of the repository locks
 * (repo.h, fsfs7.h svn_fs_fs__shared_t; doc/format/layout.md LOCKFILE-*).
 *
 * Why: db/write-lock, db/pack-lock and db/txn-current-lock are fcntl
 * locks, and fcntl locks belong to the process.  Two svn_fs_t on one
 * repository in one threaded server (svnserve -T, mod_dav_svn) would both
 * "get" db/write-lock at once, and closing either descriptor would drop
 * the other's lock.  So each lock file is paired with a mutex, and that
 * mutex must be the same object for every svn_fs_t of the repository.
 *
 *   svn_fs_fs__shared_set_home   loader.c: the loader's common pool and
 *                                its mutex (process lifetime)
 *   svn_fs_fs__shared_attach     repo_open.c: find or make the repo's
 *                                svn_fs_fs__shared_t, keyed by its
 *                                normalised path, as userdata of the home
 *   svn_fs_fs__with_*_lock       mutex, then the lock file, then FUNC
 *
 * Without a loader (unit tests calling svn_fs_fs__open_repo directly) the
 * home is a private pool and mutex made once per process.
 */
#include <limits.h>
#include <stdlib.h>
#include <apr_strings.h>

#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "svn_pools.h"
#include "private/svn_atomic.h"
#include "private/svn_mutex.h"

#include "paths.h"
#include "repo.h"

/* Where the shared data lives.  Set under HOME_LOCK itself (every caller
   hands the same lock), cleared when the home pool goes away. */
static apr_pool_t *home_pool = NULL;
static svn_mutex__t *home_lock = NULL;

/* The private home used when no loader handed one in. */
static svn_atomic_t private_home_once = 0;
static apr_pool_t *private_pool = NULL;
static svn_mutex__t *private_lock = NULL;

/* Userdata key prefix of a repository's svn_fs_fs__shared_t. */
#define SHARED_KEY_PREFIX "fsfs7-shared:"

static apr_status_t
forget_home(void *unused)
{
  home_pool = NULL;
  home_lock = NULL;
  return APR_SUCCESS;
}

static svn_error_t *
adopt_home(svn_mutex__t *lock, apr_pool_t *pool)
{
  if (home_pool != pool)
    {
      home_pool = pool;
      apr_pool_cleanup_register(pool, NULL, forget_home,
                                apr_pool_cleanup_null);
    }
  home_lock = lock;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__shared_set_home(svn_mutex__t *common_pool_lock,
                           apr_pool_t *common_pool)
{
  if (common_pool == NULL || common_pool_lock == NULL)
    return SVN_NO_ERROR;
  SVN_MUTEX__WITH_LOCK(common_pool_lock,
                       adopt_home(common_pool_lock, common_pool));
  return SVN_NO_ERROR;
}

static svn_error_t *
make_private_home(void *baton, apr_pool_t *unused)
{
  private_pool = svn_pool_create(NULL);
  return svn_error_trace(svn_mutex__init(&private_lock, TRUE, private_pool));
}

const char *
svn_fs_fs__repo_key_path(const char *path, apr_pool_t *result_pool)
{
  char resolved[PATH_MAX];
  const char *abs_path;
  svn_error_t *err;

  /* Resolve symlinks too: two names of one directory share its locks. */
  if (realpath(path, resolved) != NULL)
    return svn_dirent_canonicalize(resolved, result_pool);
  err = svn_dirent_get_absolute(&abs_path, path, result_pool);
  if (err)
    {
      svn_error_clear(err);
      return svn_dirent_canonicalize(path, result_pool);
    }
  return abs_path;
}

/* A new svn_fs_fs__shared_t in a subpool of POOL. */
static svn_error_t *
make_shared(svn_fs_fs__shared_t **shared, apr_pool_t *pool)
{
  apr_pool_t *own = svn_pool_create(pool);
  svn_fs_fs__shared_t *s = apr_pcalloc(own, sizeof(*s));

  s->pool = own;
  SVN_ERR(svn_mutex__init(&s->write_lock, TRUE, own));
  SVN_ERR(svn_mutex__init(&s->pack_lock, TRUE, own));
  SVN_ERR(svn_mutex__init(&s->txn_current_lock, TRUE, own));
  SVN_ERR(svn_mutex__init(&s->txn_list_lock, TRUE, own));
  s->locked_protorevs = apr_hash_make(own);
  *shared = s;
  return SVN_NO_ERROR;
}

/* *SHARED = the userdata KEY of POOL, made first if missing.  Runs with
   the home's mutex held. */
static svn_error_t *
find_or_make(svn_fs_fs__shared_t **shared, const char *key, apr_pool_t *pool)
{
  void *data = NULL;
  apr_status_t status = apr_pool_userdata_get(&data, key, pool);

  if (status)
    return svn_error_wrap_apr(status, "Can't read shared repository data");
  if (data == NULL)
    {
      SVN_ERR(make_shared((svn_fs_fs__shared_t **)&data, pool));
      /* userdata_set keeps the key pointer: give it the pool's life. */
      status = apr_pool_userdata_set(data, apr_pstrdup(pool, key), NULL,
                                     pool);
      if (status)
        return svn_error_wrap_apr(status,
                                  "Can't store shared repository data");
    }
  *shared = data;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__shared_attach(svn_fs_t *fs, const char *repo_path,
                         apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  apr_pool_t *pool = home_pool;
  svn_mutex__t *lock = home_lock;
  const char *key;

  if (pool == NULL || lock == NULL)
    {
      SVN_ERR(svn_atomic__init_once(&private_home_once, make_private_home,
                                    NULL, scratch_pool));
      pool = private_pool;
      lock = private_lock;
    }
  /* The path alone, not the uuid: the lock files are found by path, and
     'svnadmin setuuid' must not split one repository's locks in two. */
  key = apr_pstrcat(scratch_pool, SHARED_KEY_PREFIX, repo_path, SVN_VA_NULL);
  SVN_MUTEX__WITH_LOCK(lock, find_or_make(&ffd->shared, key, pool));
  return SVN_NO_ERROR;
}


/* ------------------------------------------------------------------ */
/* Lock files paired with the shared mutexes                          */

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

/* Take db/NAME in a sub-pool of POOL, run FUNC, release.  The caller
   holds the mutex that goes with NAME. */
static svn_error_t *
file_locked_call(svn_fs_t *fs, const char *name,
                 svn_error_t *(*func)(void *baton, apr_pool_t *pool),
                 void *baton, apr_pool_t *pool)
{
  apr_pool_t *lock_pool = svn_pool_create(pool);
  svn_error_t *err;

  /* The lock lives as long as LOCK_POOL: destroying it unlocks. */
  err = lock_db_file(fs, name, lock_pool);
  if (!err)
    err = func(baton, lock_pool);
  svn_pool_destroy(lock_pool);
  return svn_error_trace(err);
}

/* MUTEX, then db/NAME, around FUNC(BATON). */
static svn_error_t *
with_lock_pair(svn_fs_t *fs, svn_mutex__t *mutex, const char *name,
               svn_error_t *(*func)(void *baton, apr_pool_t *pool),
               void *baton, apr_pool_t *pool)
{
  SVN_MUTEX__WITH_LOCK(mutex, file_locked_call(fs, name, func, baton, pool));
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__with_write_lock(svn_fs_t *fs,
                           svn_error_t *(*func)(void *baton,
                                                apr_pool_t *pool),
                           void *baton, apr_pool_t *pool)
{
  return svn_error_trace(with_lock_pair(
           fs, SVN_FS_FS__DATA(fs)->shared->write_lock, "write-lock",
           func, baton, pool));
}

svn_error_t *
svn_fs_fs__with_pack_lock(svn_fs_t *fs,
                          svn_error_t *(*func)(void *baton,
                                               apr_pool_t *pool),
                          void *baton, apr_pool_t *pool)
{
  return svn_error_trace(with_lock_pair(
           fs, SVN_FS_FS__DATA(fs)->shared->pack_lock, "pack-lock",
           func, baton, pool));
}

svn_error_t *
svn_fs_fs__with_txn_current_lock(svn_fs_t *fs,
                                 svn_error_t *(*func)(void *baton,
                                                      apr_pool_t *pool),
                                 void *baton, apr_pool_t *pool)
{
  return svn_error_trace(with_lock_pair(
           fs, SVN_FS_FS__DATA(fs)->shared->txn_current_lock,
           "txn-current-lock", func, baton, pool));
}

/* What with_all_locks and with_freeze_locks run inside the write lock. */
typedef struct all_locks_baton_t
{
  svn_fs_t *fs;
  svn_boolean_t txn_current;      /* take txn-current-lock too */
  svn_error_t *(*func)(void *baton, apr_pool_t *pool);
  void *baton;
} all_locks_baton_t;

/* Innermost: txn-current-lock if asked for, then FUNC. */
static svn_error_t *
txn_current_then_func(void *baton, apr_pool_t *pool)
{
  all_locks_baton_t *b = baton;

  /* OLD-4: formats 1 and 2 have no txn-current (nor its lock file). */
  if (b->txn_current
      && SVN_FS_FS__DATA(b->fs)->format >= SVN_FS_FS__MIN_TXN_CURRENT_FORMAT)
    return svn_error_trace(svn_fs_fs__with_txn_current_lock(
                             b->fs, b->func, b->baton, pool));
  return svn_error_trace(b->func(b->baton, pool));
}

/* Inside the write lock: the pack lock (format 7+; older formats have
   no db/pack-lock), then the rest. */
static svn_error_t *
pack_then_rest(void *baton, apr_pool_t *pool)
{
  all_locks_baton_t *b = baton;

  if (SVN_FS_FS__DATA(b->fs)->format
      >= SVN_FS_FS__MIN_LOGICAL_ADDRESSING_FORMAT)
    return svn_error_trace(svn_fs_fs__with_pack_lock(
                             b->fs, txn_current_then_func, b, pool));
  return svn_error_trace(txn_current_then_func(b, pool));
}

/* The write lock, the pack lock and, if TXN_CURRENT, txn-current-lock
   around FUNC(BATON), in the order every writer takes them. */
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
  return svn_error_trace(svn_fs_fs__with_write_lock(fs, pack_then_rest, &b,
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
