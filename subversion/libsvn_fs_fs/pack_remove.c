/* pack_remove.c --- removing unpacked shards in the background
 * (pack_remove.h; doc/format/pack.md PACK-6).
 *
 * One worker thread takes directories off a FIFO queue.  It works with
 * plain C strings and system calls only: the queue's nodes are malloc'd
 * by the adder and freed by the worker, and the first failure is kept as
 * (errno, path) until _finish turns it into an svn_error_t in the
 * caller's thread.  That keeps APR pools, which are not thread-safe, out
 * of the worker entirely.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <apr_thread_proc.h>
#include <apr_thread_mutex.h>
#include <apr_thread_cond.h>

#include "svn_dirent_uri.h"
#include "svn_pools.h"

#include "pack_remove.h"

typedef struct job_t
{
  struct job_t *next;
  char *dir;
  char *keep;                   /* NULL: remove DIR itself too */
} job_t;

struct svn_fs_fs__remover_t
{
#if APR_HAS_THREADS
  /* An unmanaged pool for the thread, its mutex and condition: pools
     share their parent's allocator, and the caller keeps allocating from
     its pools while the thread runs. */
  apr_pool_t *thread_pool;
  apr_thread_t *thread;         /* NULL: synchronous */
  apr_thread_mutex_t *mutex;
  apr_thread_cond_t *wake;
#endif
  job_t *head, *tail;           /* under MUTEX */
  svn_boolean_t closing;        /* under MUTEX */
  svn_boolean_t finished;       /* caller's thread only */

  /* The first failure (under MUTEX once the thread runs). */
  int failed_errno;
  char *failed_path;
};

/* ------------------------------------------------------------------ */
/* The removal itself: system calls and malloc only                    */

/* Record a failure of PATH (or of DIR/NAME) with ERRNUM in R unless one
   is recorded already. */
static void
note_failure(svn_fs_fs__remover_t *r, int errnum, const char *dir,
             const char *name)
{
  size_t len;

  if (r->failed_errno)
    return;
  len = strlen(dir) + (name ? strlen(name) + 1 : 0) + 1;
  r->failed_path = malloc(len);
  if (r->failed_path)
    {
      strcpy(r->failed_path, dir);
      if (name)
        {
          strcat(r->failed_path, "/");
          strcat(r->failed_path, name);
        }
    }
  r->failed_errno = errnum ? errnum : EIO;
}

/* Remove the entries of DIR but KEEP, and DIR unless KEEP was there.
   Returns 0 or an errno, which is also noted in R. */
static int
remove_tree(svn_fs_fs__remover_t *r, const char *dir, const char *keep)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  svn_boolean_t kept = FALSE;
  int fd, err = 0;

  if (d == NULL)
    {
      if (errno == ENOENT)
        return 0;
      note_failure(r, errno, dir, NULL);
      return errno ? errno : EIO;
    }
  fd = dirfd(d);
  while (err == 0 && (de = readdir(d)) != NULL)
    {
      const char *name = de->d_name;

      if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        continue;
      if (keep && strcmp(name, keep) == 0)
        {
          kept = TRUE;
          continue;
        }
      if (unlinkat(fd, name, 0) == 0 || errno == ENOENT)
        continue;
      if (errno == EISDIR)
        {
          /* Shards hold only files; a directory is someone else's, but
             removing DIR means removing it too. */
          size_t len = strlen(dir) + strlen(name) + 2;
          char *sub = malloc(len);

          if (sub == NULL)
            err = ENOMEM;
          else
            {
              strcpy(sub, dir);
              strcat(sub, "/");
              strcat(sub, name);
              err = remove_tree(r, sub, NULL);
              free(sub);
            }
          continue;
        }
      err = errno ? errno : EIO;
      note_failure(r, err, dir, name);
    }
  closedir(d);
  if (err == 0 && !kept && rmdir(dir) != 0 && errno != ENOENT)
    {
      err = errno ? errno : EIO;
      note_failure(r, err, dir, NULL);
    }
  return err;
}

static void
free_job(job_t *job)
{
  free(job->dir);
  free(job->keep);
  free(job);
}

/* ------------------------------------------------------------------ */
/* The thread                                                          */

#if APR_HAS_THREADS
static void * APR_THREAD_FUNC
worker(apr_thread_t *thread, void *data)
{
  svn_fs_fs__remover_t *r = data;

  apr_thread_mutex_lock(r->mutex);
  for (;;)
    {
      job_t *job;
      int failed;

      while (r->head == NULL && !r->closing)
        apr_thread_cond_wait(r->wake, r->mutex);
      if (r->head == NULL)
        break;
      job = r->head;
      r->head = job->next;
      if (r->head == NULL)
        r->tail = NULL;
      failed = r->failed_errno;
      apr_thread_mutex_unlock(r->mutex);

      /* After a failure nothing more is removed: the next pack removes
         what is left (PACK-6), and the caller reports the first error. */
      if (!failed)
        {
          svn_fs_fs__remover_t local;

          local.failed_errno = 0;
          local.failed_path = NULL;
          remove_tree(&local, job->dir, job->keep);
          apr_thread_mutex_lock(r->mutex);
          if (local.failed_errno && !r->failed_errno)
            {
              r->failed_errno = local.failed_errno;
              r->failed_path = local.failed_path;
            }
          else
            free(local.failed_path);
          apr_thread_mutex_unlock(r->mutex);
        }
      free_job(job);
      apr_thread_mutex_lock(r->mutex);
    }
  apr_thread_mutex_unlock(r->mutex);
  return NULL;
}
#endif

/* The caller's pool goes away (an error return of the pack, say): stop
   the thread before anything else of that pool is freed. */
static apr_status_t
remover_cleanup(void *data)
{
  svn_error_clear(svn_fs_fs__remover_finish(data));
  return APR_SUCCESS;
}

svn_error_t *
svn_fs_fs__remover_create(svn_fs_fs__remover_t **remover, apr_pool_t *pool)
{
  svn_fs_fs__remover_t *r = apr_pcalloc(pool, sizeof(*r));

#if APR_HAS_THREADS
  if (apr_pool_create_unmanaged_ex(&r->thread_pool, NULL, NULL)
      == APR_SUCCESS)
    {
      if (apr_thread_mutex_create(&r->mutex, APR_THREAD_MUTEX_DEFAULT,
                                  r->thread_pool) != APR_SUCCESS
          || apr_thread_cond_create(&r->wake, r->thread_pool) != APR_SUCCESS
          || apr_thread_create(&r->thread, NULL, worker, r, r->thread_pool)
             != APR_SUCCESS)
        {
          r->thread = NULL;
          apr_pool_destroy(r->thread_pool);
          r->thread_pool = NULL;
        }
    }
#endif
  apr_pool_pre_cleanup_register(pool, r, remover_cleanup);
  *remover = r;
  return SVN_NO_ERROR;
}

/* R's first failure as an svn error (NULL if none); the path is forgotten
   afterwards so that it is reported once. */
static svn_error_t *
failure_error(svn_fs_fs__remover_t *r, apr_pool_t *scratch_pool)
{
  svn_error_t *err;

  if (!r->failed_errno)
    return SVN_NO_ERROR;
  err = svn_error_wrap_apr(APR_FROM_OS_ERROR(r->failed_errno),
                           "Can't remove '%s'",
                           r->failed_path
                           ? svn_dirent_local_style(r->failed_path,
                                                    scratch_pool)
                           : "?");
  free(r->failed_path);
  r->failed_path = NULL;
  r->failed_errno = 0;
  return err;
}

svn_error_t *
svn_fs_fs__remover_add(svn_fs_fs__remover_t *r, const char *dir,
                       const char *keep, apr_pool_t *scratch_pool)
{
  job_t *job;

  SVN_ERR_ASSERT(!r->finished);
#if APR_HAS_THREADS
  if (r->thread)
    {
      job = calloc(1, sizeof(*job));
      if (job)
        job->dir = strdup(dir);
      if (job && keep)
        job->keep = strdup(keep);
      if (job == NULL || job->dir == NULL || (keep && job->keep == NULL))
        {
          if (job)
            free_job(job);
          return svn_error_create(APR_ENOMEM, NULL, NULL);
        }
      apr_thread_mutex_lock(r->mutex);
      if (r->tail)
        r->tail->next = job;
      else
        r->head = job;
      r->tail = job;
      apr_thread_cond_signal(r->wake);
      apr_thread_mutex_unlock(r->mutex);
      return SVN_NO_ERROR;
    }
#endif
  remove_tree(r, dir, keep);
  return svn_error_trace(failure_error(r, scratch_pool));
}

svn_error_t *
svn_fs_fs__remover_finish(svn_fs_fs__remover_t *r)
{
  svn_error_t *err;
  apr_pool_t *scratch_pool;

  if (r->finished)
    return SVN_NO_ERROR;
  r->finished = TRUE;
#if APR_HAS_THREADS
  if (r->thread)
    {
      apr_status_t ignored;

      apr_thread_mutex_lock(r->mutex);
      r->closing = TRUE;
      apr_thread_cond_signal(r->wake);
      apr_thread_mutex_unlock(r->mutex);
      apr_thread_join(&ignored, r->thread);
      r->thread = NULL;
      apr_pool_destroy(r->thread_pool);
      r->thread_pool = NULL;
    }
#endif
  if (!r->failed_errno)
    return SVN_NO_ERROR;
  scratch_pool = svn_pool_create(NULL);
  err = failure_error(r, scratch_pool);
  svn_pool_destroy(scratch_pool);
  return svn_error_trace(err);
}
