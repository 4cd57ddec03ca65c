/* txn_spare.c --- recycling the inodes of finished transactions (TXN-14)
 * (txn_store.h "Spare files").
 *
 * Why: on ext4 without a journal (the benchmark machine), creating a file
 * scans the inode bitmap past every inode freed in the last few minutes
 * (ext4 will not hand out a recently deleted inode while a clean one is
 * left), and a load frees ~30 transaction files per revision.  Measured:
 * one file creation 1.3 ms, one rename 0.06 ms, one unlink 0.02 ms.  A
 * commit used to delete its ~15-30 transaction files and the next
 * transaction created as many again; creations were 70 % of the kernel
 * time of a load.
 *
 * How: purging a transaction does not delete its directory; every file in
 * it is renamed to "spare.<n>" (a name no reader of a transaction looks
 * at), the proto-revision lock file joins them, and the directory is
 * renamed to "<txn>.spare" (not "<txn>.txn": nobody lists or opens it as a
 * transaction).  The next transaction this process begins takes such a
 * directory by renaming it to its own "<txn>.txn" instead of making one,
 * and each new file of the transaction is a spare renamed into place with
 * renameat2(RENAME_NOREPLACE), whose old bytes the writer overwrites.
 *
 * Safety: a spare is reused only after the kernel proved that nobody has
 * it open for writing (nobody_writes(), a write lease), so a late writer
 * of the finished transaction writes into a file nobody reads, as with
 * stock; and a spare that becomes a public file (db/current, a revprops
 * file) is written and synced under a private name first.
 * A spare name is never read as a transaction file, so a stock
 * process continuing, committing or aborting the transaction sees exactly
 * the files the stock module would have (abort removes the directory
 * with whatever spares are in it).  Taking a spare directory is one
 * atomic rename: two takers (threads, forked processes) cannot both get
 * it, and the loser makes a fresh directory.  Spare directories live in
 * memory of the process that made them; they are removed when the
 * process's pool goes away (svn's exit handler), so a repository after a
 * load holds nothing extra.  A process killed outright leaves its
 * "<txn>.spare" directories behind: inert litter like stock's stray
 * temp files.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>

#include <apr_strings.h>
#include <apr_hash.h>
#include "svn_pools.h"
#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "private/svn_atomic.h"
#include "private/svn_mutex.h"

#include "txn_store.h"
#include "durable.h"

/* At most this many spare files are kept per directory (more are
   deleted): a load needs a few dozen per revision, and renaming costs
   more than deleting when the spare is never used. */
#define MAX_SPARE_FILES 256

/* At most this many spare directories per repository (one per
   transaction being written at the same time is enough). */
#define MAX_SPARE_DIRS 4

/* The spare files of one transaction directory this process took. */
typedef struct spare_files_t
{
  char *dir;                    /* key: the <txn>.txn directory (malloc) */
  char **names;                 /* basenames (malloc), NAMES[0..COUNT) */
  int count;
  int room;                     /* allocated length of NAMES */
  int next_index;               /* no "spare.<n>" with n >= this exists */

  /* Hashes of paths known to exist (a spare went there, or renaming one
     there found the path taken), so that rewriting a file does not try
     a spare first: a set of KNOWN_ROOM slots (0 empty), a hint only. */
  apr_uint32_t *known;
  int known_room;
  int known_count;
} spare_files_t;

/* The spare directories of one "transactions" directory. */
typedef struct spare_dirs_t
{
  char *parent;                 /* key (malloc) */
  char *dirs[MAX_SPARE_DIRS];   /* absolute paths (malloc) */
  int count;
  int users;                    /* svn_fs_t objects that joined */
} spare_dirs_t;

static svn_error_t *
list_files(spare_files_t **files, const char *txn_dir, apr_pool_t *pool);
static svn_error_t *
push_files(spare_files_t *f);

static svn_atomic_t spare_once = 0;
static apr_pool_t *spare_pool = NULL;
static svn_mutex__t *spare_mutex = NULL;
static apr_hash_t *files_by_dir = NULL;   /* dir -> spare_files_t * */
static apr_hash_t *dirs_by_parent = NULL; /* parent -> spare_dirs_t * */

static void
free_files(spare_files_t *f)
{
  int i;

  for (i = 0; i < f->count; i++)
    free(f->names[i]);
  free(f->names);
  free(f->known);
  free(f->dir);
  free(f);
}

/* FNV-1a of PATH, never 0. */
static apr_uint32_t
path_hash(const char *path)
{
  apr_uint32_t h = 2166136261u;

  for (; *path; path++)
    h = (h ^ (unsigned char)*path) * 16777619u;
  return h ? h : 1;
}

/* Slot of H in F's known set: where it is, or the empty one to put it. */
static apr_uint32_t *
known_slot(spare_files_t *f, apr_uint32_t h)
{
  int i = (int)(h & (apr_uint32_t)(f->known_room - 1));

  while (f->known[i] && f->known[i] != h)
    i = (i + 1) & (f->known_room - 1);
  return &f->known[i];
}

/* Remember H as an existing path of F (best effort). */
static void
known_add(spare_files_t *f, apr_uint32_t h)
{
  if (2 * (f->known_count + 1) > f->known_room)
    {
      int room = f->known_room ? 2 * f->known_room : 64, old = f->known_room;
      apr_uint32_t *slots = calloc(room, sizeof(*slots)), *prev = f->known;
      int i;

      if (!slots)
        return;
      f->known = slots;
      f->known_room = room;
      for (i = 0; i < old; i++)
        if (prev[i])
          *known_slot(f, prev[i]) = prev[i];
      free(prev);
    }
  if (!*known_slot(f, h))
    {
      *known_slot(f, h) = h;
      f->known_count++;
    }
}

/* Remove spare directory DIR and the files in it, best effort.  Plain
   libc: this runs while APR tears its pools down. */
static void
remove_spare_dir(const char *dir)
{
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  struct dirent *e;

  if (!d)
    {
      if (fd >= 0)
        close(fd);
      return;
    }
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      unlinkat(fd, e->d_name, 0);
  closedir(d);
  rmdir(dir);
}

/* Process exit (or the end of the last user of the library): remove the
   spare directories still held, so a repository keeps nothing extra. */
static apr_status_t
remove_spare_dirs(void *unused)
{
  apr_hash_index_t *hi;

  for (hi = apr_hash_first(NULL, dirs_by_parent); hi; hi = apr_hash_next(hi))
    {
      spare_dirs_t *d = apr_hash_this_val(hi);
      int i;

      for (i = 0; i < d->count; i++)
        {
          remove_spare_dir(d->dirs[i]);
          free(d->dirs[i]);
        }
      d->count = 0;
    }
  spare_pool = NULL;
  files_by_dir = NULL;
  dirs_by_parent = NULL;
  spare_mutex = NULL;
  spare_once = 0;
  return APR_SUCCESS;
}

static svn_error_t *
init_spare(void *baton, apr_pool_t *unused)
{
  /* A global pool: destroyed by apr_terminate at exit. */
  spare_pool = svn_pool_create(NULL);
  SVN_ERR(svn_mutex__init(&spare_mutex, TRUE, spare_pool));
  files_by_dir = apr_hash_make(spare_pool);
  dirs_by_parent = apr_hash_make(spare_pool);
  apr_pool_cleanup_register(spare_pool, NULL, remove_spare_dirs,
                            apr_pool_cleanup_null);
  return SVN_NO_ERROR;
}

static svn_error_t *
ensure_init(apr_pool_t *scratch_pool)
{
  return svn_error_trace(svn_atomic__init_once(&spare_once, init_spare,
                                               NULL, scratch_pool));
}

/* Remove PATH, a file unless KIND says directory. */
static svn_error_t *
remove_entry(const char *path, svn_node_kind_t kind, apr_pool_t *pool)
{
  if (kind == svn_node_dir)
    return svn_error_trace(svn_io_remove_dir2(path, TRUE, NULL, NULL, pool));
  return svn_error_trace(svn_io_remove_file2(path, TRUE, pool));
}

/* "spare.<n>" with the lowest N >= *NEXT not in TAKEN (hash of basenames),
   in POOL; advances *NEXT. */
static const char *
free_spare_name(int *next, apr_hash_t *taken, apr_pool_t *pool)
{
  for (;; (*next)++)
    {
      const char *name = apr_psprintf(pool, "spare.%d", *next);

      if (!apr_hash_get(taken, name, APR_HASH_KEY_STRING))
        {
          (*next)++;
          return name;
        }
    }
}

/* Is PATH (a spare) written through no open file description anywhere,
   in this process or another?  Purging a transaction turns its files
   into spares while a late writer (a second connection to the same
   transaction, another process that opened it) may still hold one open
   for writing; were the spare then reused as a file of a new
   transaction, that writer's bytes would land in it.  Linux grants a
   write lease (fcntl(2) F_SETLEASE) only while no other open file
   description of the inode is open for writing, so a granted lease,
   released at once, proves there is none.  Nobody can open a spare by
   its old name after the purge renamed it, and the check runs when the
   spare is reused, a transaction later.  Refused (another writer, a file
   owned by another user, leases not supported here): FALSE, and the
   caller must not reuse it.  O_NONBLOCK: never wait for someone else's
   lease. */
static svn_boolean_t
nobody_writes(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  svn_boolean_t alone;

  if (fd < 0)
    return FALSE;
  alone = fcntl(fd, F_SETLEASE, F_WRLCK) == 0;
  if (alone)
    (void)fcntl(fd, F_SETLEASE, F_UNLCK);
  close(fd);
  return alone;
}

/* Rename FROM to TO unless TO exists: *DONE. */
static svn_boolean_t
rename_noreplace(const char *from, const char *to)
{
  return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0;
}

/* Turn every file of DIR into a spare ("spare.<n>"), delete those over
   MAX_SPARE_FILES, and move EXTRA (the rev-lock file; may be missing, or
   on another file system than DIR, then left to the caller) in as one
   more. */
static svn_error_t *
make_spares(const char *dir, const char *extra, apr_pool_t *pool)
{
  apr_hash_t *dirents;
  apr_hash_t *taken = apr_hash_make(pool);
  apr_hash_index_t *hi;
  apr_pool_t *iterpool = svn_pool_create(pool);
  int kept = 0, next = 0;

  SVN_ERR(svn_io_get_dirents3(&dirents, dir, TRUE, pool, pool));
  for (hi = apr_hash_first(pool, dirents); hi; hi = apr_hash_next(hi))
    if (strncmp(apr_hash_this_key(hi), "spare.", 6) == 0)
      {
        apr_hash_set(taken, apr_hash_this_key(hi), APR_HASH_KEY_STRING, "");
        kept++;
      }
  for (hi = apr_hash_first(pool, dirents); hi; hi = apr_hash_next(hi))
    {
      const char *name = apr_hash_this_key(hi);
      const svn_io_dirent2_t *de = apr_hash_this_val(hi);
      const char *path;

      /* Per entry: a 12,805-file transaction left 6 MB of paths in
         POOL (full maven load, r11645). */
      svn_pool_clear(iterpool);
      path = svn_dirent_join(dir, name, iterpool);
      if (apr_hash_get(taken, name, APR_HASH_KEY_STRING))
        continue;
      if (de->kind != svn_node_file || kept >= MAX_SPARE_FILES)
        {
          SVN_ERR(remove_entry(path, de->kind, iterpool));
          continue;
        }
      if (rename(path, svn_dirent_join(dir, free_spare_name(&next, taken,
                                                            iterpool),
                                       iterpool)) != 0)
        return svn_error_wrap_apr(apr_get_os_error(), "Can't rename '%s'",
                                  path);
      kept++;
    }
  svn_pool_destroy(iterpool);
  if (kept < MAX_SPARE_FILES
      && rename(extra, svn_dirent_join(dir, free_spare_name(&next, taken,
                                                            pool),
                                       pool)) != 0
      && errno != ENOENT && errno != EXDEV)
    return svn_error_wrap_apr(apr_get_os_error(), "Can't rename '%s'",
                              extra);
  return SVN_NO_ERROR;
}

/* Forget the spare files of DIR (its transaction ends). */
static svn_error_t *
forget_files(const char *dir)
{
  spare_files_t *f = apr_hash_get(files_by_dir, dir, APR_HASH_KEY_STRING);

  if (f)
    {
      apr_hash_set(files_by_dir, f->dir, APR_HASH_KEY_STRING, NULL);
      free_files(f);
    }
  return SVN_NO_ERROR;
}

/* The spare_dirs_t of PARENT, made if needed; NULL when out of memory. */
static spare_dirs_t *
dirs_of(const char *parent)
{
  spare_dirs_t *d = apr_hash_get(dirs_by_parent, parent,
                                 APR_HASH_KEY_STRING);

  if (!d)
    {
      d = calloc(1, sizeof(*d));
      if (!d || !(d->parent = strdup(parent)))
        {
          free(d);
          return NULL;
        }
      apr_hash_set(dirs_by_parent, d->parent, APR_HASH_KEY_STRING, d);
    }
  return d;
}

/* Register SPARE_DIR under PARENT; FALSE if there are enough already. */
static svn_error_t *
push_dir(svn_boolean_t *kept, const char *parent, const char *spare_dir)
{
  spare_dirs_t *d = dirs_of(parent);

  *kept = FALSE;
  if (!d)
    return SVN_NO_ERROR;
  if (d->count < MAX_SPARE_DIRS
      && (d->dirs[d->count] = strdup(spare_dir)) != NULL)
    {
      d->count++;
      *kept = TRUE;
    }
  return SVN_NO_ERROR;
}

/* Register SPARE_DIR under PARENT and its spare FILES (may be NULL) in
   one step; FILES are freed when the directory is not kept. */
static svn_error_t *
publish(svn_boolean_t *kept, const char *parent, const char *spare_dir,
        spare_files_t *files)
{
  SVN_ERR(push_dir(kept, parent, spare_dir));
  if (files && *kept)
    SVN_ERR(push_files(files));
  else if (files)
    free_files(files);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_spare_keep(svn_boolean_t *kept, const char *txn_dir,
                          const char *extra, apr_pool_t *scratch_pool)
{
  const char *spare_dir;
  spare_files_t *files;
  svn_error_t *err;
  apr_size_t len = strlen(txn_dir);

  *kept = FALSE;
  SVN_ERR(ensure_init(scratch_pool));
  SVN_MUTEX__WITH_LOCK(spare_mutex, forget_files(txn_dir));
  if (len <= 4 || strcmp(txn_dir + len - 4, ".txn") != 0)
    return SVN_NO_ERROR;
  err = make_spares(txn_dir, extra, scratch_pool);
  if (err)
    {
      /* The caller removes what is left the old way. */
      svn_error_clear(err);
      return SVN_NO_ERROR;
    }
  spare_dir = apr_pstrcat(scratch_pool, apr_pstrmemdup(scratch_pool, txn_dir,
                                                       len - 4),
                          ".spare", SVN_VA_NULL);
  if (rename(txn_dir, spare_dir) != 0)
    return SVN_NO_ERROR;
  /* Its spares serve txn-current before a transaction takes it.  Listed
     while the directory is still ours alone: once registered, another
     thread may take it at once. */
  SVN_ERR(list_files(&files, spare_dir, scratch_pool));
  SVN_MUTEX__WITH_LOCK(spare_mutex,
                       publish(kept, svn_dirent_dirname(txn_dir,
                                                        scratch_pool),
                               spare_dir, files));
  if (!*kept)
    SVN_ERR(svn_io_remove_dir2(spare_dir, TRUE, NULL, NULL, scratch_pool));
  *kept = TRUE;
  return SVN_NO_ERROR;
}

/* Pop a spare directory of PARENT into *SPARE_DIR (malloc) or NULL. */
static svn_error_t *
pop_dir(char **spare_dir, const char *parent)
{
  spare_dirs_t *d = apr_hash_get(dirs_by_parent, parent,
                                 APR_HASH_KEY_STRING);

  *spare_dir = (d && d->count) ? d->dirs[--d->count] : NULL;
  return SVN_NO_ERROR;
}

/* Register F (its transaction directory took a spare directory). */
static svn_error_t *
push_files(spare_files_t *f)
{
  spare_files_t *old = apr_hash_get(files_by_dir, f->dir,
                                    APR_HASH_KEY_STRING);

  if (old)
    {
      apr_hash_set(files_by_dir, old->dir, APR_HASH_KEY_STRING, NULL);
      free_files(old);
    }
  apr_hash_set(files_by_dir, f->dir, APR_HASH_KEY_STRING, f);
  return SVN_NO_ERROR;
}

/* The spare files now in TXN_DIR as a spare_files_t (malloc). */
static svn_error_t *
list_files(spare_files_t **files, const char *txn_dir, apr_pool_t *pool)
{
  apr_hash_t *dirents;
  apr_hash_index_t *hi;
  spare_files_t *f = calloc(1, sizeof(*f));

  *files = NULL;
  if (!f)
    return SVN_NO_ERROR;
  SVN_ERR(svn_io_get_dirents3(&dirents, txn_dir, TRUE, pool, pool));
  f->dir = strdup(txn_dir);
  f->room = (int)apr_hash_count(dirents) + 8;
  f->names = calloc(f->room, sizeof(char *));
  if (!f->dir || !f->names)
    {
      free_files(f);
      return SVN_NO_ERROR;
    }
  for (hi = apr_hash_first(pool, dirents); hi; hi = apr_hash_next(hi))
    {
      const char *name = apr_hash_this_key(hi);
      const svn_io_dirent2_t *de = apr_hash_this_val(hi);

      if (strncmp(name, "spare.", 6) != 0 || de->kind != svn_node_file)
        /* Not ours to reuse: only spares may be in a spare directory. */
        SVN_ERR(remove_entry(svn_dirent_join(txn_dir, name, pool), de->kind,
                             pool));
      else if ((f->names[f->count] = strdup(name)) != NULL)
        {
          int n = atoi(name + 6);

          f->count++;
          if (n >= f->next_index)
            f->next_index = n + 1;
        }
    }
  *files = f;
  return SVN_NO_ERROR;
}

/* The spare files registered under directory FROM now live in TO. */
static svn_error_t *
rekey_files(svn_boolean_t *moved, const char *from, const char *to)
{
  spare_files_t *f = apr_hash_get(files_by_dir, from, APR_HASH_KEY_STRING);
  char *key = f ? strdup(to) : NULL;

  *moved = FALSE;
  if (!f)
    return SVN_NO_ERROR;
  apr_hash_set(files_by_dir, f->dir, APR_HASH_KEY_STRING, NULL);
  if (!key)
    {
      free_files(f);
      return SVN_NO_ERROR;
    }
  free(f->dir);
  f->dir = key;
  SVN_ERR(push_files(f));
  *moved = TRUE;
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_spare_make_dir(const char *txn_dir, apr_pool_t *scratch_pool)
{
  const char *parent = svn_dirent_dirname(txn_dir, scratch_pool);
  char *spare_dir;

  SVN_ERR(ensure_init(scratch_pool));
  for (;;)
    {
      spare_files_t *files;

      SVN_MUTEX__WITH_LOCK(spare_mutex, pop_dir(&spare_dir, parent));
      if (!spare_dir)
        break;
      /* Fails when another process took (or removed) it first. */
      if (rename_noreplace(spare_dir, txn_dir))
        {
          svn_boolean_t moved;

          SVN_MUTEX__WITH_LOCK(spare_mutex,
                               rekey_files(&moved, spare_dir, txn_dir));
          free(spare_dir);
          if (!moved)
            {
              SVN_ERR(list_files(&files, txn_dir, scratch_pool));
              if (files)
                SVN_MUTEX__WITH_LOCK(spare_mutex, push_files(files));
            }
          return SVN_NO_ERROR;
        }
      if (errno == EEXIST)
        {
          free(spare_dir);
          break;
        }
      free(spare_dir);
    }
  return svn_error_trace(svn_io_dir_make(txn_dir, APR_OS_DEFAULT,
                                         scratch_pool));
}

/* Pop a spare of DIR into *NAME (malloc) or NULL. */
static svn_error_t *
pop_file(char **name, const char *dir)
{
  spare_files_t *f = apr_hash_get(files_by_dir, dir, APR_HASH_KEY_STRING);

  *name = (f && f->count) ? f->names[--f->count] : NULL;
  return SVN_NO_ERROR;
}

/* pop_file for a spare meant to become the file whose path hashes to H:
   none when that path is known to exist already. */
static svn_error_t *
pop_file_for(char **name, const char *dir, apr_uint32_t h)
{
  spare_files_t *f = apr_hash_get(files_by_dir, dir, APR_HASH_KEY_STRING);

  *name = NULL;
  if (f && f->count && !(f->known_room && *known_slot(f, h)))
    *name = f->names[--f->count];
  return SVN_NO_ERROR;
}

/* Note that the path hashing to H exists (see spare_files_t). */
static svn_error_t *
mark_known(const char *dir, apr_uint32_t h)
{
  spare_files_t *f = apr_hash_get(files_by_dir, dir, APR_HASH_KEY_STRING);

  if (f)
    known_add(f, h);
  return SVN_NO_ERROR;
}

/* Give spare NAME back to DIR (the target existed). */
static svn_error_t *
push_file(const char *dir, char *name)
{
  spare_files_t *f = apr_hash_get(files_by_dir, dir, APR_HASH_KEY_STRING);

  if (f && f->count < f->room)
    f->names[f->count++] = name;
  else
    free(name);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__txn_spare_take(svn_boolean_t *took, const char *txn_dir,
                          const char *path, apr_pool_t *scratch_pool)
{
  char *name;
  apr_uint32_t h = path_hash(path);

  *took = FALSE;
  if (!spare_pool)
    return SVN_NO_ERROR;
  for (;;)
    {
      const char *spare;

      SVN_MUTEX__WITH_LOCK(spare_mutex, pop_file_for(&name, txn_dir, h));
      if (!name)
        return SVN_NO_ERROR;
      spare = svn_dirent_join(txn_dir, name, scratch_pool);
      if (!nobody_writes(spare))
        {
          /* Not provably free: dropped, as stock drops every file of a
             finished transaction; a late writer writes into nothing. */
          (void)unlink(spare);
          free(name);
          continue;
        }
      if (rename_noreplace(spare, path))
        {
          free(name);
          *took = TRUE;
          SVN_MUTEX__WITH_LOCK(spare_mutex, mark_known(txn_dir, h));
          return SVN_NO_ERROR;
        }
      if (errno == EEXIST)
        {
          /* PATH is there already: the caller rewrites it. */
          SVN_MUTEX__WITH_LOCK(spare_mutex, push_file(txn_dir, name));
          SVN_MUTEX__WITH_LOCK(spare_mutex, mark_known(txn_dir, h));
          return SVN_NO_ERROR;
        }
      if (access(spare, F_OK) == 0)
        {
          /* The target's directory is missing or renameat2 is not
             supported: keep the spare, create as usual. */
          SVN_MUTEX__WITH_LOCK(spare_mutex, push_file(txn_dir, name));
          return SVN_NO_ERROR;
        }
      /* The spare is gone (the transaction was aborted elsewhere). */
      free(name);
    }
}

svn_error_t *
svn_fs_fs__txn_spare_write_atomic(const char *path, const char *data,
                                  apr_size_t len,
                                  const char *copy_perms_path,
                                  svn_boolean_t flush, const char *spare_dir,
                                  apr_pool_t *scratch_pool)
{
  char *name = NULL;
  const char *tmp;
  apr_file_t *file;
  svn_error_t *err;

  if (spare_pool && spare_dir)
    SVN_MUTEX__WITH_LOCK(spare_mutex, pop_file(&name, spare_dir));
  if (!name)
    return svn_error_trace(svn_io_write_atomic2(path, data, len,
                                                copy_perms_path, flush,
                                                scratch_pool));
  tmp = svn_dirent_join(spare_dir, name, scratch_pool);
  free(name);
  if (!nobody_writes(tmp))
    {
      /* See nobody_writes(): never publish an inode someone may write. */
      (void)unlink(tmp);
      return svn_error_trace(svn_io_write_atomic2(path, data, len,
                                                  copy_perms_path, flush,
                                                  scratch_pool));
    }
  /* The same steps as svn_io_write_atomic2 (temp file, flush, perms,
     rename, flush the directory), with a spare as the temp file. */
  err = svn_io_file_open(&file, tmp, APR_WRITE, APR_OS_DEFAULT,
                         scratch_pool);
  if (err)
    {
      /* Gone: its directory was taken by a transaction meanwhile. */
      svn_error_clear(err);
      return svn_error_trace(svn_io_write_atomic2(path, data, len,
                                                  copy_perms_path, flush,
                                                  scratch_pool));
    }
  SVN_ERR(svn_io_file_write_full(file, data, len, NULL, scratch_pool));
  SVN_ERR(svn_io_file_trunc(file, len, scratch_pool));
  if (flush)
    SVN_ERR(svn_io_file_flush_to_disk(file, scratch_pool));
  SVN_ERR(svn_io_file_close(file, scratch_pool));
  if (copy_perms_path)
    SVN_ERR(svn_io_copy_perms(copy_perms_path, tmp, scratch_pool));
  /* The file being replaced is freed, never kept as a spare: a reader
     may hold it open (stock and fsfs7 open db/current, then read it), and
     a spare's bytes are overwritten by the next transaction -- that
     reader would read a node-revision where it expects a number. */
  /* Across file systems (db/transactions on another disk) a copy. */
  err = svn_fs_fs__move_into_place(tmp, path, flush, scratch_pool);
  if (err && APR_STATUS_IS_ENOENT(err->apr_err)
      && access(svn_dirent_dirname(path, scratch_pool), F_OK) == 0)
    {
      /* SPARE_DIR was only peeked at (txn-current): another thread began
         a transaction meanwhile and took the directory, spare and all.
         The written spare stays there under its spare name, inert;
         write PATH the plain way. */
      svn_error_clear(err);
      return svn_error_trace(svn_io_write_atomic2(path, data, len,
                                                  copy_perms_path, flush,
                                                  scratch_pool));
    }
  return svn_error_trace(err);
}

/* Path of a spare directory of PARENT into *DIR (POOL), or NULL. */
static svn_error_t *
peek_dir(const char **dir, const char *parent, apr_pool_t *pool)
{
  spare_dirs_t *d = apr_hash_get(dirs_by_parent, parent,
                                 APR_HASH_KEY_STRING);

  *dir = (d && d->count) ? apr_pstrdup(pool, d->dirs[d->count - 1]) : NULL;
  return SVN_NO_ERROR;
}

const char *
svn_fs_fs__txn_spare_any_dir(const char *parent, apr_pool_t *pool)
{
  const char *dir = NULL;
  svn_error_t *err;

  if (!spare_pool)
    return NULL;
  err = svn_mutex__lock(spare_mutex);
  if (err)
    {
      svn_error_clear(err);
      return NULL;
    }
  svn_error_clear(svn_mutex__unlock(spare_mutex,
                                    peek_dir(&dir, parent, pool)));
  return dir;
}

/* An svn_fs_t that joined PARENT goes away: the last one removes the
   spare directories of PARENT (under the mutex, so that nobody takes
   one meanwhile). */
static svn_error_t *
leave_locked(const char *parent)
{
  spare_dirs_t *d = apr_hash_get(dirs_by_parent, parent,
                                 APR_HASH_KEY_STRING);

  if (!d || --d->users > 0)
    return SVN_NO_ERROR;
  while (d->count > 0)
    {
      char *dir = d->dirs[--d->count];

      SVN_ERR(forget_files(dir));
      remove_spare_dir(dir);
      free(dir);
    }
  return SVN_NO_ERROR;
}

/* Pool cleanup of a joined svn_fs_t; BATON is the parent (malloc). */
static apr_status_t
leave(void *baton)
{
  char *parent = baton;

  /* At exit the process-wide cleanup may have run first. */
  if (spare_pool && spare_mutex)
    {
      svn_error_t *err = svn_mutex__lock(spare_mutex);

      if (!err)
        err = svn_mutex__unlock(spare_mutex, leave_locked(parent));
      svn_error_clear(err);
    }
  free(parent);
  return APR_SUCCESS;
}

svn_error_t *
svn_fs_fs__txn_spare_join(const char *parent, apr_pool_t *fs_pool,
                          apr_pool_t *scratch_pool)
{
  spare_dirs_t *d;
  char *key = strdup(parent);

  if (!key)
    return SVN_NO_ERROR;
  SVN_ERR(ensure_init(scratch_pool));
  SVN_ERR(svn_mutex__lock(spare_mutex));
  d = dirs_of(parent);
  if (d)
    d->users++;
  SVN_ERR(svn_mutex__unlock(spare_mutex, SVN_NO_ERROR));
  if (!d)
    {
      free(key);
      return SVN_NO_ERROR;
    }
  apr_pool_cleanup_register(fs_pool, key, leave, apr_pool_cleanup_null);
  return SVN_NO_ERROR;
}
