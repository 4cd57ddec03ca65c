/* shard_dir.c --- opening files by name within their shard directory
 * (shard_dir.h).
 *
 * Per svn_fs_t (ffd->shard_dirs, in FS's pool): DIR_SLOTS slots per
 * kind, each with a directory's path (heap copy, compared byte for byte
 * with the part of each new path before its last '/') and an O_PATH
 * descriptor of it; the least recently used slot takes a new directory.
 * Several, because reads of delta chains go back and forth between
 * shards: with a single slot an export of a 3,000-revision history took
 * a directory descriptor for every few files.  A directory gets a slot
 * only on its second miss among the recent ones (SEEN_SLOTS): taking one
 * costs two system calls (open the directory, close the victim's), which
 * only pay when it is used again; in a long history a delta chain visits
 * shards scattered over all of it, and a load at 100,000 revisions took
 * a slot 33 times a revision, mostly for a single file.
 * O_PATH opens nothing for reading and needs no permission beyond
 * search; the descriptor serves only as openat()'s starting point.
 *
 * A threaded server has an svn_fs_t per connection, so the descriptors
 * kept in the whole process are capped (PROCESS_MAX, and a sixteenth of
 * RLIMIT_NOFILE): past the cap a file is opened by its path, as before.
 * Descriptors kept for speed must never be the ones a new connection
 * lacks (revfile.c caps the revision files it keeps open likewise).
 *
 * Cost, measured on this machine (open, pread, close of 1,000 revision
 * files of full maven, CPU per file): 2.7-4.2 us by the full path,
 * 2.2-3.4 us relative to the shard directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <apr_atomic.h>

#include "shard_dir.h"

/* Directories kept per kind of file. */
#define DIR_SLOTS 8

/* Recently missed directories remembered per kind (by hash), so that a
   slot goes to a directory missed twice. */
#define SEEN_SLOTS 64

/* Directory descriptors kept by the whole process at most. */
#define PROCESS_MAX 128

/* Directory descriptors the process keeps now. */
static volatile apr_uint32_t process_held;

typedef struct dir_slot_t
{
  char *path;                   /* malloc'ed; NULL: no descriptor */
  apr_size_t len;
  int fd;
  apr_uint64_t last_use;
} dir_slot_t;

typedef struct shard_dirs_t
{
  dir_slot_t slots[svn_fs_fs__dir_kinds][DIR_SLOTS];
  apr_uint32_t seen[svn_fs_fs__dir_kinds][SEEN_SLOTS];
  apr_uint64_t clock;
} shard_dirs_t;

/* Let go of SLOT's directory. */
static void
slot_clear(dir_slot_t *slot)
{
  if (slot->path)
    {
      close(slot->fd);
      free(slot->path);
      apr_atomic_dec32(&process_held);
    }
  slot->path = NULL;
  slot->len = 0;
  slot->fd = -1;
}

/* Pool cleanup of FS's slots (BATON). */
static apr_status_t
dirs_cleanup(void *baton)
{
  shard_dirs_t *dirs = baton;
  int k, i;

  for (k = 0; k < svn_fs_fs__dir_kinds; k++)
    for (i = 0; i < DIR_SLOTS; i++)
      slot_clear(&dirs->slots[k][i]);
  return APR_SUCCESS;
}

/* FS's slots, created on first use. */
static shard_dirs_t *
get_dirs(svn_fs_t *fs)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  shard_dirs_t *dirs = ffd->shard_dirs;
  int k, i;

  if (dirs)
    return dirs;
  dirs = apr_pcalloc(fs->pool, sizeof(*dirs));
  for (k = 0; k < svn_fs_fs__dir_kinds; k++)
    for (i = 0; i < DIR_SLOTS; i++)
      dirs->slots[k][i].fd = -1;
  apr_pool_cleanup_register(fs->pool, dirs, dirs_cleanup,
                            apr_pool_cleanup_null);
  ffd->shard_dirs = dirs;
  return dirs;
}

/* open(2) of PATH, read-only, retried on EINTR; -1 with errno set. */
static int
open_path(const char *path, int flags)
{
  int fd;

  do
    fd = open(path, flags | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  return fd;
}

/* How many directory descriptors the process may keep: PROCESS_MAX, but
   no more than a sixteenth of its descriptor limit.  Asked each time a
   slot is taken (a server may change its limit): that is seldom, since
   a directory must have missed twice first. */
static apr_uint32_t
process_limit(void)
{
  struct rlimit rl;
  apr_uint32_t limit = PROCESS_MAX;

  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
      && rl.rlim_cur / 16 < limit)
    limit = (apr_uint32_t)(rl.rlim_cur / 16);
  return limit;
}

/* Make SLOT hold the directory of the LEN first bytes of PATH; FALSE if
   it cannot be opened or the process keeps as many as it may (SLOT is
   then empty). */
static svn_boolean_t
slot_take(dir_slot_t *slot, const char *path, apr_size_t len)
{
  char *dir;
  int fd;

  slot_clear(slot);
  /* Count first, so that racing threads cannot all pass the cap. */
  if (apr_atomic_inc32(&process_held) >= process_limit())
    {
      apr_atomic_dec32(&process_held);
      return FALSE;
    }
  dir = malloc(len + 1);
  if (dir == NULL)
    {
      apr_atomic_dec32(&process_held);
      return FALSE;
    }
  memcpy(dir, path, len);
  dir[len] = '\0';
  fd = open_path(len ? dir : "/", O_PATH | O_DIRECTORY);
  if (fd < 0)
    {
      free(dir);
      apr_atomic_dec32(&process_held);
      return FALSE;
    }
  slot->path = dir;
  slot->len = len;
  slot->fd = fd;
  return TRUE;
}

/* The slot among DIRS' slots of KIND that holds the LEN first bytes of
   PATH (*HELD set; it becomes the most recently used), or else the least
   recently used one, for slot_take(). */
static dir_slot_t *
find_slot(svn_boolean_t *held, shard_dirs_t *dirs,
          svn_fs_fs__dir_kind_t kind, const char *path, apr_size_t len)
{
  dir_slot_t *slots = dirs->slots[kind], *victim = &slots[0];
  int i;

  *held = FALSE;
  for (i = 0; i < DIR_SLOTS; i++)
    {
      if (slots[i].path && slots[i].len == len
          && memcmp(slots[i].path, path, len) == 0)
        {
          victim = &slots[i];
          *held = TRUE;
          break;
        }
      if (slots[i].last_use < victim->last_use)
        victim = &slots[i];
    }
  if (*held)
    victim->last_use = ++dirs->clock;
  return victim;
}

/* Has the directory of the LEN first bytes of PATH missed recently in
   DIRS' slots of KIND?  Remembers it as missed either way. */
static svn_boolean_t
missed_before(shard_dirs_t *dirs, svn_fs_fs__dir_kind_t kind,
              const char *path, apr_size_t len)
{
  apr_uint32_t h = 2166136261u, *seen;
  apr_size_t i;

  for (i = 0; i < len; i++)
    h = (h ^ (unsigned char)path[i]) * 16777619u;
  h |= 1;                               /* 0 marks an empty entry */
  seen = &dirs->seen[kind][h % SEEN_SLOTS];
  if (*seen == h)
    return TRUE;
  *seen = h;
  return FALSE;
}

/* Open PATH read-only into *FD; 0 or the errno value. */
static int
open_by_path(int *fd, const char *path)
{
  *fd = open_path(path, O_RDONLY);
  return *fd < 0 ? errno : 0;
}

int
svn_fs_fs__shard_dir_open(int *fd, svn_fs_t *fs, svn_fs_fs__dir_kind_t kind,
                          const char *path)
{
  const char *slash = strrchr(path, '/');
  shard_dirs_t *dirs;
  svn_boolean_t held;
  dir_slot_t *slot;
  apr_size_t len;

  if (slash == NULL)
    return open_by_path(fd, path);
  len = (apr_size_t)(slash - path);
  dirs = get_dirs(fs);
  slot = find_slot(&held, dirs, kind, path, len);
  if (!held)
    {
      if (!missed_before(dirs, kind, path, len)
          || !slot_take(slot, path, len))
        return open_by_path(fd, path);
      slot->last_use = ++dirs->clock;
    }
  do
    *fd = openat(slot->fd, slash + 1, O_RDONLY | O_CLOEXEC);
  while (*fd < 0 && errno == EINTR);
  if (*fd < 0 && errno == ENOENT)
    {
      /* The directory we hold may be gone or replaced: PATH decides. */
      slot_clear(slot);
      return open_by_path(fd, path);
    }
  return *fd < 0 ? errno : 0;
}

