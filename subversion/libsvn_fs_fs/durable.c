/* durable.c --- putting finished files where readers and recover look
 * (durable.h).
 *
 * Call tree of svn_fs_fs__move_into_place:
 *   rename(FROM, TO)                       the usual case: one system call
 *   on EXDEV: copy_across
 *     open_temp_beside(TO)                 O_EXCL, a name only we use
 *     copy_fd                              read/write loop
 *     fchmod, fsync (FLUSH), close
 *     rename(temp, TO)                     same directory, so atomic
 *     unlink(FROM)
 *   svn_fs_fs__sync_dir(dirname(TO))       with FLUSH
 *
 * Plain POSIX calls rather than APR's: the copy must keep FROM's mode
 * bits exactly and must not leave TO half written, and these few calls
 * say so most directly.  rename() and friends are the libc symbols, so
 * the crash interposer (tools/torture/fault.c) sees every step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <apr_strings.h>
#include "svn_dirent_uri.h"
#include "svn_io.h"
#include "private/svn_subr_private.h"
#include "libsvn_fs/fs-loader.h"

#include "durable.h"

/* An error for the failed system call (errno) CALL on PATH. */
static svn_error_t *
os_error(const char *what, const char *path, apr_pool_t *pool)
{
  return svn_error_wrap_apr(apr_get_os_error(), "Can't %s '%s'", what,
                            svn_dirent_local_style(path, pool));
}

svn_boolean_t
svn_fs_fs__flush_wanted(svn_fs_t *fs)
{
  /* svnadmin passes the option as "0" / "1", so read it as a boolean. */
  return !(fs->config
           && svn_hash__get_bool(fs->config, SVN_FS_CONFIG_NO_FLUSH_TO_DISK,
                                 FALSE));
}

svn_error_t *
svn_fs_fs__sync_dir(const char *dir, apr_pool_t *scratch_pool)
{
  int fd = open(dir, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return os_error("open directory", dir, scratch_pool);
  if (fsync(fd) != 0)
    {
      svn_error_t *err = os_error("flush directory", dir, scratch_pool);

      close(fd);
      return err;
    }
  close(fd);
  return SVN_NO_ERROR;
}

/* Copy everything readable from IN to OUT; FROM and TO name them in
   errors. */
static svn_error_t *
copy_fd(int in, int out, const char *from, const char *to,
        apr_pool_t *pool)
{
  char buf[64 * 1024];

  for (;;)
    {
      ssize_t got = read(in, buf, sizeof(buf));
      ssize_t done = 0;

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return os_error("read", from, pool);
      if (got == 0)
        return SVN_NO_ERROR;
      while (done < got)
        {
          ssize_t put = write(out, buf + done, (size_t)(got - done));

          if (put < 0 && errno == EINTR)
            continue;
          if (put < 0)
            return os_error("write", to, pool);
          done += put;
        }
    }
}

/* Create a new file beside TO for writing (O_EXCL); *FD and its *PATH
   (POOL).  Leftovers of a crash keep their names, so a few tries may be
   needed. */
static svn_error_t *
open_temp_beside(int *fd, const char **path, const char *to,
                 apr_pool_t *pool)
{
  int attempt;

  for (attempt = 0; attempt < 100; attempt++)
    {
      *path = apr_psprintf(pool, "%s.%ld-%d.move-tmp", to, (long)getpid(),
                           attempt);
      *fd = open(*path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (*fd >= 0)
        return SVN_NO_ERROR;
      if (errno != EEXIST)
        return os_error("create", *path, pool);
    }
  return os_error("create", *path, pool);
}

/* Write FROM's bytes and mode to a temporary file TMP beside TO (open
   as OUT), synced with FLUSH, and close it. */
static svn_error_t *
fill_temp(int out, const char *tmp, const char *from, svn_boolean_t flush,
          apr_pool_t *pool)
{
  struct stat st;
  int in = open(from, O_RDONLY | O_CLOEXEC);
  svn_error_t *err;

  if (in < 0)
    return os_error("open", from, pool);
  if (fstat(in, &st) != 0)
    err = os_error("stat", from, pool);
  else
    err = copy_fd(in, out, from, tmp, pool);
  close(in);
  SVN_ERR(err);
  if (fchmod(out, st.st_mode & 07777) != 0)
    return os_error("change perms of", tmp, pool);
  if (flush && fsync(out) != 0)
    return os_error("flush", tmp, pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__copy_into_place(const char *from, const char *to,
                           svn_boolean_t flush, apr_pool_t *scratch_pool)
{
  const char *tmp;
  int out;
  svn_error_t *err;

  SVN_ERR(open_temp_beside(&out, &tmp, to, scratch_pool));
  err = fill_temp(out, tmp, from, flush, scratch_pool);
  if (close(out) != 0 && !err)
    err = os_error("close", tmp, scratch_pool);
  if (!err && rename(tmp, to) != 0)
    err = os_error("move into place", tmp, scratch_pool);
  if (err)
    unlink(tmp);
  return svn_error_trace(err);
}

/* FROM and TO lie on different file systems: copy, then rename the copy
   into place (see durable.h). */
static svn_error_t *
copy_across(const char *from, const char *to, svn_boolean_t flush,
            apr_pool_t *pool)
{
  SVN_ERR(svn_fs_fs__copy_into_place(from, to, flush, pool));
  /* TO is complete; FROM is only a duplicate now. */
  if (unlink(from) != 0 && errno != ENOENT)
    return os_error("remove", from, pool);
  return SVN_NO_ERROR;
}

svn_error_t *
svn_fs_fs__move_into_place(const char *from, const char *to,
                           svn_boolean_t flush, apr_pool_t *scratch_pool)
{
  if (rename(from, to) != 0)
    {
      if (errno != EXDEV)
        return svn_error_wrap_apr(
                 apr_get_os_error(), "Can't move '%s' to '%s'",
                 svn_dirent_local_style(from, scratch_pool),
                 svn_dirent_local_style(to, scratch_pool));
      SVN_ERR(copy_across(from, to, flush, scratch_pool));
    }
  if (flush)
    SVN_ERR(svn_fs_fs__sync_dir(svn_dirent_dirname(to, scratch_pool),
                                scratch_pool));
  return SVN_NO_ERROR;
}
