/* pack_remove.c --- removing unpacked shards in the background
 * (pack_remove.h; doc/format/pack.md PACK-6).
 *
 * A few worker threads take parts of directories off a FIFO queue: each
 * directory is split into PARTS by the last byte of its entries' names
 * (revision numbers: their last digit), and the worker that finishes its
 * last part removes the directory.  Why several: an unlink mostly waits
 * (for the journal, and for the discard of the freed blocks on a file
 * system mounted with -o discard): on this machine four threads removed
 * four shards of maven in about half the time one needed, with next to
 * no CPU.
 *
 * The workers use plain C strings and system calls only: the queue's
 * nodes are malloc'd by the adder and freed by the workers, and the first
 * failure is kept as (errno, path) until _finish turns it into an
 * svn_error_t in the caller's thread.  That keeps APR pools, which are
 * not thread-safe, out of the workers entirely.
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

/* Worker threads, and parts per directory. */
#define THREADS 4
#define PARTS 2

/* A directory being removed. */
typedef struct dir_t
{
  char *dir;
  char *keep;                   /* NULL: remove DIR itself too */
  int pending;                  /* parts not done yet (under MUTEX) */
} dir_t;

/* One part of a directory. */
typedef struct job_t
{
  struct job_t *next;
  dir_t *d;
  int part;
} job_t;

struct svn_fs_fs__remover_t
{
#if APR_HAS_THREADS
  /* An unmanaged pool for the thread, its mutex and condition: pools
     share their parent's allocator, and the caller keeps allocating from
     its pools while the thread runs. */
  apr_pool_t *thread_pool;
  apr_thread_t *threads[THREADS];
  int thread_count;             /* 0: synchronous */
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

/* rmdir DIR (gone already is fine); 0 or an errno noted in R. */
static int
remove_dir(svn_fs_fs__remover_t *r, const char *dir)
{
  int err;

  if (rmdir(dir) == 0 || errno == ENOENT)
    return 0;
  err = errno ? errno : EIO;
  note_failure(r, err, dir, NULL);
  return err;
}

/* Does entry NAME belong to part PART of PARTS? */
static svn_boolean_t
in_part(const char *name, int part, int parts)
{
  size_t len = strlen(name);

  return parts <= 1
         || (len > 0 && (unsigned char)name[len - 1] % parts == (unsigned)part);
}

/* Remove the entries of DIR that belong to PART of PARTS, but not KEEP
   (with everything below them).  Returns 0 or an errno, which is also
   noted in R. */
static int
remove_entries(svn_fs_fs__remover_t *r, const char *dir, const char *keep,
               int part, int parts)
{
  DIR *d = opendir(dir);
  struct dirent *de;
  int fd, err = 0;

  if (d == NULL)
    {
      if (errno == ENOENT)
        return 0;
      err = errno ? errno : EIO;
      note_failure(r, err, dir, NULL);
      return err;
    }
  fd = dirfd(d);
  while (err == 0 && (de = readdir(d)) != NULL)
    {
      const char *name = de->d_name;

      if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0
          || (keep && strcmp(name, keep) == 0) || !in_part(name, part, parts))
        continue;
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
              err = remove_entries(r, sub, NULL, 0, 1);
              if (err == 0)
                err = remove_dir(r, sub);
              free(sub);
            }
          continue;
        }
      err = errno ? errno : EIO;
      note_failure(r, err, dir, name);
    }
  closedir(d);
  return err;
}

static void
free_dir(dir_t *d)
{
  free(d->dir);
  free(d->keep);
  free(d);
}

/* ------------------------------------------------------------------ */
/* The thread                                                          */

/* Keep LOCAL's failure in R unless R has one (R's mutex held). */
static void
keep_failure(svn_fs_fs__remover_t *r, svn_fs_fs__remover_t *local)
{
  if (local->failed_errno && !r->failed_errno)
    {
      r->failed_errno = local->failed_errno;
      r->failed_path = local->failed_path;
    }
  else
    free(local->failed_path);
}

#if APR_HAS_THREADS
static void * APR_THREAD_FUNC
worker(apr_thread_t *thread, void *data)
{
  svn_fs_fs__remover_t *r = data;

  apr_thread_mutex_lock(r->mutex);
  for (;;)
    {
      job_t *job;
      dir_t *d;
      svn_fs_fs__remover_t local;

      while (r->head == NULL && !r->closing)
        apr_thread_cond_wait(r->wake, r->mutex);
      if (r->head == NULL)
        break;
      job = r->head;
      d = job->d;
      r->head = job->next;
      if (r->head == NULL)
        r->tail = NULL;
      local.failed_errno = 0;
      local.failed_path = NULL;

      /* After a failure nothing more is removed: the next pack removes
         what is left (PACK-6), and the caller reports the first error. */
      if (!r->failed_errno)
        {
          apr_thread_mutex_unlock(r->mutex);
          remove_entries(&local, d->dir, d->keep, job->part, PARTS);
          apr_thread_mutex_lock(r->mutex);
          keep_failure(r, &local);
        }
      free(job);
      if (--d->pending == 0)
        {
          /* The last part: the directory is empty now, unless it keeps
             an entry or a part failed. */
          if (!d->keep && !r->failed_errno)
            {
              apr_thread_mutex_unlock(r->mutex);
              remove_dir(&local, d->dir);
              apr_thread_mutex_lock(r->mutex);
              keep_failure(r, &local);
            }
          free_dir(d);
        }
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
                                  r->thread_pool) == APR_SUCCESS
          && apr_thread_cond_create(&r->wake, r->thread_pool) == APR_SUCCESS)
        while (r->thread_count < THREADS
               && apr_thread_create(&r->threads[r->thread_count], NULL,
                                    worker, r, r->thread_pool)
                  == APR_SUCCESS)
          r->thread_count++;
      if (r->thread_count == 0)
        {
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

/* A new dir_t for DIR and KEEP with PARTS parts pending, or NULL. */
static dir_t *
new_dir(const char *dir, const char *keep)
{
  dir_t *d = calloc(1, sizeof(*d));

  if (d == NULL)
    return NULL;
  d->dir = strdup(dir);
  d->keep = keep ? strdup(keep) : NULL;
  d->pending = PARTS;
  if (d->dir == NULL || (keep && d->keep == NULL))
    {
      free_dir(d);
      return NULL;
    }
  return d;
}

svn_error_t *
svn_fs_fs__remover_add(svn_fs_fs__remover_t *r, const char *dir,
                       const char *keep, apr_pool_t *scratch_pool)
{
  SVN_ERR_ASSERT(!r->finished);
#if APR_HAS_THREADS
  if (r->thread_count)
    {
      dir_t *d = new_dir(dir, keep);
      job_t *jobs[PARTS];
      int i;

      for (i = 0; i < PARTS; i++)
        jobs[i] = d ? calloc(1, sizeof(*jobs[i])) : NULL;
      for (i = 0; i < PARTS; i++)
        if (jobs[i] == NULL)
          break;
      if (i < PARTS)
        {
          for (i = 0; i < PARTS; i++)
            free(jobs[i]);
          if (d)
            free_dir(d);
          return svn_error_create(APR_ENOMEM, NULL, NULL);
        }
      apr_thread_mutex_lock(r->mutex);
      for (i = 0; i < PARTS; i++)
        {
          jobs[i]->d = d;
          jobs[i]->part = i;
          if (r->tail)
            r->tail->next = jobs[i];
          else
            r->head = jobs[i];
          r->tail = jobs[i];
        }
      apr_thread_cond_broadcast(r->wake);
      apr_thread_mutex_unlock(r->mutex);
      return SVN_NO_ERROR;
    }
#endif
  if (remove_entries(r, dir, keep, 0, 1) == 0 && keep == NULL)
    remove_dir(r, dir);
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
  if (r->thread_count)
    {
      apr_status_t ignored;
      int i;

      apr_thread_mutex_lock(r->mutex);
      r->closing = TRUE;
      apr_thread_cond_broadcast(r->wake);
      apr_thread_mutex_unlock(r->mutex);
      for (i = 0; i < r->thread_count; i++)
        apr_thread_join(&ignored, r->threads[i]);
      r->thread_count = 0;
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
