/* record.c: an LD_PRELOAD recorder of every file-system mutation a process
 * makes under one directory, for the power-cut simulator
 * tools/torture/powercut.py (doc/powercut.md).
 *
 * A SIGKILL keeps the page cache; a power cut keeps only what an fsync
 * made durable.  To build the states a power cut can leave, powercut.py
 * needs the exact sequence of mutations (with their bytes) and syncs an
 * operation made; this file records it.  Files are named by inode (fstat
 * after open, lstat for path operations), so a write through a descriptor
 * is tied to its file whatever renames happen in between.
 *
 * Environment (unset RECORD_ROOT: everything passes through untouched):
 *   RECORD_ROOT  the directory to watch (symlinks resolved); only paths
 *                under it, and descriptors of files under it, are recorded
 *   RECORD_OUT   the trace (text, one line per event, appended);
 *                RECORD_OUT.blob receives the bytes of every write,
 *                RECORD_OUT.lock serialises the processes and holds the
 *                sequence counter
 *
 * Trace grammar (fields separated by one space; PATH is relative to the
 * root, "." for the root itself, and %XX-escaped like TEXT; every line
 * starts "SEQ PID WHO", WHO being m when the FSFS module made the call --
 * a frame of libsvn_fs_fs-1.so.1 on the stack -- and - otherwise):
 *   SEQ PID proc PPID ARGV0            a process started recording
 *   SEQ PID creat PATH INO TYPE MODE [TARGET]
 *                                      a new inode named PATH; TYPE f|d|l
 *   SEQ PID tmpfile INO MODE           a new inode with no name (O_TMPFILE)
 *   SEQ PID write INO OFF LEN BLOBOFF  LEN bytes at OFF (bytes in the blob)
 *   SEQ PID trunc INO LEN              ftruncate, truncate, O_TRUNC
 *   SEQ PID falloc INO MODE OFF LEN
 *   SEQ PID chmod INO MODE
 *   SEQ PID fsync INO | fdatasync INO | sfr INO OFF LEN FLAGS | syncfs | sync
 *   SEQ PID rename FROM TO FLAGS INO DSTINO   (DSTINO 0: TO was free)
 *   SEQ PID unlink PATH INO | rmdir PATH INO
 *   SEQ PID link OLD NEW INO
 *   SEQ PID import PATH INO LEN BLOBOFF a file moved in from outside the
 *                                      root (its whole content recorded)
 *   SEQ PID importdir PATH             a directory moved in (unsupported)
 *   SEQ PID mmapw INO OFF LEN | msync  a writable shared mapping (the
 *                                      simulator refuses such traces)
 *   SEQ PID close INO                  a descriptor that wrote was closed
 *   SEQ PID out TEXT                   the process wrote TEXT to stdout
 *                                      (acknowledgements: "Committed
 *                                      revision N", "rN committed by")
 *
 * Order: the recorded call and its trace line happen under one lock
 * (a mutex between threads, an fcntl lock on RECORD_OUT.lock between
 * processes), so the order of the lines is the order in which the calls
 * took effect, across threads and across processes that inherit
 * LD_PRELOAD (svnmucc and its `svnserve -t` tunnel share one trace).
 *
 * Every call reaches the kernel through the *at() form of the real libc
 * function (open -> openat, rename -> renameat2, ...), which has the same
 * effect.  What this recorder cannot see: writes that glibc makes from
 * inside itself (stdio buffers of a FILE opened for writing, remove()'s
 * inner unlink are interposed here, fwrite's flush is not).  powercut.py
 * therefore replays every trace in full and compares the result with the
 * real directory: a mutation this file missed fails that check.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#define REAL(name) \
  static __typeof__(name) *real_##name; \
  if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* ---- configuration ----------------------------------------------------- */

static int enabled;
static char root[PATH_MAX];
static size_t rootlen;
static dev_t root_dev;
static int trace_fd = -1, blob_fd = -1, lock_fd = -1;

/* Set while a hook runs, so that calls of our own pass straight through. */
static __thread int in_hook;

/* One mutex between threads, one fcntl lock between processes. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void atfork_prepare(void) { pthread_mutex_lock(&mu); }
static void atfork_release(void) { pthread_mutex_unlock(&mu); }

static void
rec_lock(void)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
  pthread_mutex_lock(&mu);
  while (fcntl(lock_fd, F_SETLKW, &fl) < 0 && errno == EINTR)
    ;
}

static void
rec_unlock(void)
{
  struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET };
  fcntl(lock_fd, F_SETLK, &fl);
  pthread_mutex_unlock(&mu);
}

/* ---- output (called with the lock held) -------------------------------- */

/* The next sequence number, kept in the first 8 bytes of the lock file. */
static unsigned long long
next_seq(void)
{
  unsigned long long seq = 0;
  if (pread(lock_fd, &seq, sizeof seq, 0) != (ssize_t)sizeof seq)
    seq = 0;
  seq++;
  (void)!pwrite(lock_fd, &seq, sizeof seq, 0);
  return seq;
}

static void
write_all(int fd, const void *buf, size_t len)
{
  const char *p = buf;
  REAL(write);
  while (len > 0)
    {
      ssize_t n = real_write(fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          static const char msg[] = "record.c: cannot write the trace\n";
          (void)!real_write(2, msg, sizeof msg - 1);
          return;
        }
      p += n;
      len -= (size_t)n;
    }
}

/* Who made a call: 'm' when a frame of the FSFS module
   (libsvn_fs_fs-1.so.1, stock or fsfs7) is on the stack -- its own calls
   and those it makes through APR, libsvn_subr and SQLite -- else '-'
   (libsvn_repos, libsvn_fs, the client).  The module's text ranges are
   looked up until found (it may be loaded late); called under the lock. */
#define MAX_RANGES 8
static uintptr_t text_lo[MAX_RANGES], text_hi[MAX_RANGES];
static int ntext;

static int
find_module(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size; (void)data;
  if (!info->dlpi_name || !strstr(info->dlpi_name, "libsvn_fs_fs-1.so"))
    return 0;
  for (int i = 0; i < info->dlpi_phnum && ntext < MAX_RANGES; i++)
    {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
        {
          text_lo[ntext] = info->dlpi_addr + ph->p_vaddr;
          text_hi[ntext] = text_lo[ntext] + ph->p_memsz;
          ntext++;
        }
    }
  return 1;
}

static char
issuer(void)
{
  void *frames[64];
  int n;

  if (ntext == 0)
    dl_iterate_phdr(find_module, NULL);
  if (ntext == 0)
    return '-';
  n = backtrace(frames, 64);
  for (int i = 0; i < n; i++)
    for (int r = 0; r < ntext; r++)
      if ((uintptr_t)frames[i] >= text_lo[r]
          && (uintptr_t)frames[i] < text_hi[r])
        return 'm';
  return '-';
}

/* Append one trace line: "SEQ PID WHO " + the formatted event + "\n". */
static void
emit(const char *fmt, ...)
{
  char line[4 * PATH_MAX + 512];
  int n, saved = errno;
  va_list ap;

  n = snprintf(line, sizeof line, "%llu %d %c ", next_seq(), (int)getpid(),
               issuer());
  va_start(ap, fmt);
  n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof line - 2)
    n = (int)sizeof line - 2;
  line[n++] = '\n';
  write_all(trace_fd, line, (size_t)n);
  errno = saved;
}

/* Append LEN bytes gathered from IOV to the blob; returns their offset. */
static long long
blob_put(const struct iovec *iov, int iovcnt, size_t len)
{
  long long off = lseek(blob_fd, 0, SEEK_END);
  for (int i = 0; i < iovcnt && len > 0; i++)
    {
      size_t take = iov[i].iov_len < len ? iov[i].iov_len : len;
      write_all(blob_fd, iov[i].iov_base, take);
      len -= take;
    }
  return off;
}

/* %XX-escape S (at most MAX bytes of it) into OUT (room: 3*MAX+1). */
static const char *
esc(char *out, const char *s, size_t max)
{
  static const char hex[] = "0123456789ABCDEF";
  char *o = out;
  for (size_t i = 0; i < max && s[i]; i++)
    {
      unsigned char c = (unsigned char)s[i];
      if (c > 32 && c < 127 && c != '%')
        *o++ = (char)c;
      else
        {
          *o++ = '%';
          *o++ = hex[c >> 4];
          *o++ = hex[c & 15];
        }
    }
  *o = '\0';
  return out;
}

/* ---- paths -------------------------------------------------------------- */

/* The absolute path of PATH relative to DIRFD, with its parent's symlinks
   resolved, in ABS; its path below the root (or ".") in *REL.  Returns 1
   when PATH is the root or under it. */
/* PATH relative to DIRFD as an absolute path in JOINED; 0 on failure. */
static int
join_at(int dirfd, const char *path, char joined[2 * PATH_MAX])
{
  char dir[PATH_MAX], proc[64];
  ssize_t n;

  if (path[0] == '/')
    {
      snprintf(joined, 2 * PATH_MAX, "%s", path);
      return 1;
    }
  if (dirfd == AT_FDCWD)
    {
      if (!getcwd(dir, sizeof dir))
        return 0;
    }
  else
    {
      snprintf(proc, sizeof proc, "/proc/self/fd/%d", dirfd);
      n = readlink(proc, dir, sizeof dir - 1);
      if (n < 0)
        return 0;
      dir[n] = '\0';
    }
  snprintf(joined, 2 * PATH_MAX, "%s/%s", dir, path);
  return 1;
}

static int
canon(int dirfd, const char *path, char abs[PATH_MAX], const char **rel)
{
  char joined[2 * PATH_MAX], parent[PATH_MAX];
  char *slash, *base;
  size_t len;

  if (!path || !*path || !join_at(dirfd, path, joined))
    return 0;
  len = strlen(joined);
  while (len > 1 && joined[len - 1] == '/')
    joined[--len] = '\0';
  slash = strrchr(joined, '/');
  base = slash + 1;
  if (!strcmp(base, ".") || !strcmp(base, ".."))
    {
      if (!realpath(joined, abs))
        return 0;
    }
  else
    {
      *slash = '\0';
      if (!realpath(slash == joined ? "/" : joined, parent))
        return 0;
      size_t pl = strcmp(parent, "/") ? strlen(parent) : 0;
      size_t bl = strlen(base);
      if (pl + 1 + bl >= PATH_MAX)
        return 0;
      memcpy(abs, parent, pl);
      abs[pl] = '/';
      memcpy(abs + pl + 1, base, bl + 1);
    }
  if (strncmp(abs, root, rootlen) != 0
      || (abs[rootlen] != '/' && abs[rootlen] != '\0'))
    return 0;
  *rel = abs[rootlen] ? abs + rootlen + 1 : ".";
  return 1;
}

/* ---- descriptors -------------------------------------------------------- */

/* What we know of a descriptor: its file (to validate the entry: a
   descriptor replaced by dup2 shows another inode) and whether it is
   under the root.  Descriptors beyond FD_MAX are looked up every time. */
#define FD_MAX 65536
enum { FD_UNKNOWN, FD_UNDER, FD_OUTSIDE };
static struct
{
  dev_t dev;
  ino_t ino;
  unsigned char where;
  unsigned char wrote;
} fdt[FD_MAX];
static pthread_mutex_t fdt_mu = PTHREAD_MUTEX_INITIALIZER;

static void
fd_note(int fd, const struct stat *st, int where)
{
  if (fd < 0 || fd >= FD_MAX)
    return;
  pthread_mutex_lock(&fdt_mu);
  fdt[fd].dev = st->st_dev;
  fdt[fd].ino = st->st_ino;
  fdt[fd].where = (unsigned char)where;
  fdt[fd].wrote = 0;
  pthread_mutex_unlock(&fdt_mu);
}

/* Is FD a file under the root?  Sets *INO (and *ST when given). */
static int
fd_under(int fd, ino_t *ino, struct stat *st_out)
{
  struct stat st;
  char proc[64], path[PATH_MAX + 16];
  ssize_t n;
  int where = FD_UNKNOWN;

  if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != root_dev)
    return 0;
  *ino = st.st_ino;
  if (st_out)
    *st_out = st;
  if (fd < FD_MAX)
    {
      pthread_mutex_lock(&fdt_mu);
      if (fdt[fd].dev == st.st_dev && fdt[fd].ino == st.st_ino)
        where = fdt[fd].where;
      pthread_mutex_unlock(&fdt_mu);
    }
  if (where != FD_UNKNOWN)
    return where == FD_UNDER;
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  n = readlink(proc, path, sizeof path - 1);
  if (n < 0)
    return 0;
  path[n] = '\0';
  if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
    path[n - 10] = '\0';
  where = (!strncmp(path, root, rootlen)
           && (path[rootlen] == '/' || path[rootlen] == '\0'))
          ? FD_UNDER : FD_OUTSIDE;
  fd_note(fd, &st, where);
  return where == FD_UNDER;
}

static void
fd_mark_written(int fd)
{
  if (fd >= 0 && fd < FD_MAX)
    fdt[fd].wrote = 1;
}

/* ---- set-up ------------------------------------------------------------- */

static int
open_out(const char *base, const char *suffix, int flags)
{
  char p[PATH_MAX];
  REAL(open);
  snprintf(p, sizeof p, "%s%s", base, suffix);
  return real_open(p, flags | O_CLOEXEC, 0644);
}

__attribute__((constructor)) static void
record_init(void)
{
  const char *r = getenv("RECORD_ROOT"), *out = getenv("RECORD_OUT");
  struct stat st;
  char argv0[256] = "?", e[3 * 64 + 1];
  int fd;

  if (!r || !out || !realpath(r, root) || stat(root, &st) < 0)
    return;
  rootlen = strlen(root);
  root_dev = st.st_dev;
  trace_fd = open_out(out, "", O_WRONLY | O_CREAT | O_APPEND);
  blob_fd = open_out(out, ".blob", O_RDWR | O_CREAT | O_APPEND);
  lock_fd = open_out(out, ".lock", O_RDWR | O_CREAT);
  if (trace_fd < 0 || blob_fd < 0 || lock_fd < 0)
    {
      fprintf(stderr, "record.c: cannot open %s: %s\n", out, strerror(errno));
      return;
    }
  pthread_atfork(atfork_prepare, atfork_release, atfork_release);
  fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      ssize_t n = read(fd, argv0, sizeof argv0 - 1);
      argv0[n > 0 ? n : 0] = '\0';
      close(fd);
    }
  enabled = 1;
  in_hook = 1;
  rec_lock();
  emit("proc %d %s", (int)getppid(), esc(e, argv0, 64));
  rec_unlock();
  in_hook = 0;
}

/* ---- opening and creating ---------------------------------------------- */

/* Every open variant ends here (the real openat has the same effect). */
static int
rec_openat(int dirfd, const char *path, int flags, mode_t mode)
{
  char abs[PATH_MAX], e[3 * PATH_MAX + 1];
  const char *rel;
  struct stat pre, st;
  int existed, fd, saved;
  REAL(openat);

  if (!enabled || in_hook)
    return real_openat(dirfd, path, flags, mode);
  in_hook = 1;
  if (!canon(dirfd, path, abs, &rel))
    {
      in_hook = 0;
      return real_openat(dirfd, path, flags, mode);
    }
  rec_lock();
  existed = lstat(abs, &pre) == 0;
  fd = real_openat(dirfd, path, flags, mode);
  saved = errno;
  if (fd >= 0 && fstat(fd, &st) == 0)
    {
      fd_note(fd, &st, FD_UNDER);
      if ((flags & O_TMPFILE) == O_TMPFILE)
        emit("tmpfile %llu %o", (unsigned long long)st.st_ino,
             st.st_mode & 07777);
      else if (!existed && (flags & O_CREAT))
        emit("creat %s %llu f %o", esc(e, rel, PATH_MAX),
             (unsigned long long)st.st_ino, st.st_mode & 07777);
      else if ((flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY
               && S_ISREG(st.st_mode) && pre.st_size > 0)
        emit("trunc %llu 0", (unsigned long long)st.st_ino);
    }
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return fd;
}

static mode_t
va_mode(int flags, va_list ap)
{
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE
         ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_HOOK(name) \
  int name(const char *path, int flags, ...) \
  { \
    va_list ap; mode_t m; \
    va_start(ap, flags); m = va_mode(flags, ap); va_end(ap); \
    return rec_openat(AT_FDCWD, path, flags, m); \
  }
#define OPENAT_HOOK(name) \
  int name(int dirfd, const char *path, int flags, ...) \
  { \
    va_list ap; mode_t m; \
    va_start(ap, flags); m = va_mode(flags, ap); va_end(ap); \
    return rec_openat(dirfd, path, flags, m); \
  }

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);
OPEN_HOOK(open)
OPEN_HOOK(open64)
OPENAT_HOOK(openat)
OPENAT_HOOK(openat64)

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
int __open_2(const char *p, int f) { return rec_openat(AT_FDCWD, p, f, 0); }
int __open64_2(const char *p, int f) { return rec_openat(AT_FDCWD, p, f, 0); }
int __openat_2(int d, const char *p, int f) { return rec_openat(d, p, f, 0); }
int __openat64_2(int d, const char *p, int f) { return rec_openat(d, p, f, 0); }

int creat(const char *p, mode_t m)
{ return rec_openat(AT_FDCWD, p, O_CREAT | O_WRONLY | O_TRUNC, m); }
int creat64(const char *p, mode_t m)
{ return rec_openat(AT_FDCWD, p, O_CREAT | O_WRONLY | O_TRUNC, m); }

/* mkstemp and friends open inside glibc, out of our reach: record the
   file they made.  The template's directory is known before the call, so
   the lock is taken first and the creation keeps its place in order. */
#define MKTEMP_HOOK(name, params, args) \
  int name params \
  { \
    char abs[PATH_MAX], e[3 * PATH_MAX + 1]; \
    const char *rel; \
    struct stat st; \
    int fd, saved, under; \
    REAL(name); \
    if (!enabled || in_hook) \
      return real_##name args; \
    in_hook = 1; \
    under = canon(AT_FDCWD, tmpl, abs, &rel); \
    if (under) \
      rec_lock(); \
    fd = real_##name args; \
    saved = errno; \
    if (under && fd >= 0 && fstat(fd, &st) == 0 \
        && canon(AT_FDCWD, tmpl, abs, &rel)) \
      { \
        fd_note(fd, &st, FD_UNDER); \
        emit("creat %s %llu f %o", esc(e, rel, PATH_MAX), \
             (unsigned long long)st.st_ino, st.st_mode & 07777); \
      } \
    if (under) \
      rec_unlock(); \
    in_hook = 0; \
    errno = saved; \
    return fd; \
  }

MKTEMP_HOOK(mkstemp, (char *tmpl), (tmpl))
MKTEMP_HOOK(mkstemp64, (char *tmpl), (tmpl))
MKTEMP_HOOK(mkostemp, (char *tmpl, int flags), (tmpl, flags))
MKTEMP_HOOK(mkostemp64, (char *tmpl, int flags), (tmpl, flags))
MKTEMP_HOOK(mkstemps, (char *tmpl, int sl), (tmpl, sl))
MKTEMP_HOOK(mkstemps64, (char *tmpl, int sl), (tmpl, sl))
MKTEMP_HOOK(mkostemps, (char *tmpl, int sl, int flags), (tmpl, sl, flags))
MKTEMP_HOOK(mkostemps64, (char *tmpl, int sl, int flags), (tmpl, sl, flags))

/* ---- writing ------------------------------------------------------------ */

/* Record what a process says on stdout (acknowledgements). */
static void
note_stdout(const void *buf, size_t len)
{
  char text[1025], e[3 * 1024 + 1];
  if (len == 0)
    return;
  if (len > 1024)
    len = 1024;
  memcpy(text, buf, len);
  text[len] = '\0';
  rec_lock();
  emit("out %s", esc(e, text, len));
  rec_unlock();
}

static void
note_stdout_iov(const struct iovec *iov, int iovcnt, size_t len)
{
  char text[1024];
  size_t have = 0;
  for (int i = 0; i < iovcnt && have < len && have < sizeof text; i++)
    {
      size_t take = iov[i].iov_len;
      if (take > len - have)
        take = len - have;
      if (take > sizeof text - have)
        take = sizeof text - have;
      memcpy(text + have, iov[i].iov_base, take);
      have += take;
    }
  note_stdout(text, have);
}

/* A write of IOV to FD at OFF (-1: at the descriptor's position, which the
   call advances) through CALL; records it when FD is under the root. */
typedef ssize_t (*write_fn)(int fd, const struct iovec *iov, int iovcnt,
                            off_t off, void *baton);

static ssize_t
rec_write(int fd, const struct iovec *iov, int iovcnt, off_t off,
          write_fn call, void *baton)
{
  ino_t ino;
  ssize_t n;
  int saved;

  if (!enabled || in_hook)
    return call(fd, iov, iovcnt, off, baton);
  in_hook = 1;
  if (!fd_under(fd, &ino, NULL))
    {
      n = call(fd, iov, iovcnt, off, baton);
      saved = errno;
      if (fd == 1 && n > 0)
        note_stdout_iov(iov, iovcnt, (size_t)n);
      in_hook = 0;
      errno = saved;
      return n;
    }
  rec_lock();
  n = call(fd, iov, iovcnt, off, baton);
  saved = errno;
  if (n > 0)
    {
      long long at = off >= 0 ? (long long)off
                     : (long long)lseek(fd, 0, SEEK_CUR) - n;
      long long b = blob_put(iov, iovcnt, (size_t)n);
      emit("write %llu %lld %zd %lld", (unsigned long long)ino, at, n, b);
      fd_mark_written(fd);
    }
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return n;
}

static ssize_t
call_writev(int fd, const struct iovec *iov, int iovcnt, off_t off, void *b)
{
  REAL(writev);
  REAL(pwritev);
  (void)b;
  return off < 0 ? real_writev(fd, iov, iovcnt)
                 : real_pwritev(fd, iov, iovcnt, off);
}

static ssize_t
call_write1(int fd, const struct iovec *iov, int iovcnt, off_t off, void *b)
{
  REAL(write);
  REAL(pwrite);
  (void)b; (void)iovcnt;
  return off < 0 ? real_write(fd, iov[0].iov_base, iov[0].iov_len)
                 : real_pwrite(fd, iov[0].iov_base, iov[0].iov_len, off);
}

static ssize_t
call_pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t off, void *b)
{
  REAL(pwritev2);
  return real_pwritev2(fd, iov, iovcnt, off, *(int *)b);
}

ssize_t
write(int fd, const void *buf, size_t count)
{
  struct iovec v = { (void *)buf, count };
  return rec_write(fd, &v, 1, -1, call_write1, NULL);
}

ssize_t
pwrite(int fd, const void *buf, size_t count, off_t off)
{
  struct iovec v = { (void *)buf, count };
  REAL(pwrite);
  if (off < 0)                  /* EINVAL from the kernel */
    return real_pwrite(fd, buf, count, off);
  return rec_write(fd, &v, 1, off, call_write1, NULL);
}

ssize_t
pwrite64(int fd, const void *buf, size_t count, off64_t off)
{
  return pwrite(fd, buf, count, off);
}

ssize_t
writev(int fd, const struct iovec *iov, int iovcnt)
{
  return rec_write(fd, iov, iovcnt, -1, call_writev, NULL);
}

ssize_t
pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
  REAL(pwritev);
  if (off < 0)                  /* EINVAL from the kernel */
    return real_pwritev(fd, iov, iovcnt, off);
  return rec_write(fd, iov, iovcnt, off, call_writev, NULL);
}

ssize_t
pwritev64(int fd, const struct iovec *iov, int iovcnt, off64_t off)
{
  return pwritev(fd, iov, iovcnt, off);
}

ssize_t
pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t off, int flags)
{
  return rec_write(fd, iov, iovcnt, off, call_pwritev2, &flags);
}

ssize_t
pwritev64v2(int fd, const struct iovec *iov, int iovcnt, off64_t off,
            int flags)
{
  return pwritev2(fd, iov, iovcnt, off, flags);
}

/* stdio's writes happen inside glibc; catch what svn prints on stdout
   (svn_cmdline_printf ends in fputs) when it is printed. */
int
fputs(const char *s, FILE *stream)
{
  REAL(fputs);
  if (enabled && !in_hook && stream == stdout)
    {
      in_hook = 1;
      note_stdout(s, strlen(s));
      in_hook = 0;
    }
  return real_fputs(s, stream);
}

size_t
fwrite(const void *p, size_t size, size_t n, FILE *stream)
{
  REAL(fwrite);
  if (enabled && !in_hook && stream == stdout)
    {
      in_hook = 1;
      note_stdout(p, size * n);
      in_hook = 0;
    }
  return real_fwrite(p, size, n, stream);
}

int
puts(const char *s)
{
  REAL(puts);
  if (enabled && !in_hook)
    {
      in_hook = 1;
      note_stdout(s, strlen(s));
      in_hook = 0;
    }
  return real_puts(s);
}

/* copy_file_range and sendfile write bytes the caller never holds: read
   them back from the source at the offset the copy started from. */
static long long
blob_from_fd(int in, long long at, size_t n)
{
  char buf[65536];
  long long first = -1;
  size_t done = 0;
  while (done < n)
    {
      size_t want = n - done < sizeof buf ? n - done : sizeof buf;
      ssize_t got = pread(in, buf, want, at + (long long)done);
      struct iovec v = { buf, 0 };
      if (got <= 0)
        break;
      v.iov_len = (size_t)got;
      if (first < 0)
        first = blob_put(&v, 1, (size_t)got);
      else
        blob_put(&v, 1, (size_t)got);
      done += (size_t)got;
    }
  return first < 0 ? lseek(blob_fd, 0, SEEK_END) : first;
}

ssize_t
copy_file_range(int in, off64_t *in_off, int out, off64_t *out_off,
                size_t len, unsigned int flags)
{
  ino_t ino;
  long long src_at, dst_at;
  ssize_t n;
  int saved;
  REAL(copy_file_range);

  if (!enabled || in_hook)
    return real_copy_file_range(in, in_off, out, out_off, len, flags);
  in_hook = 1;
  if (!fd_under(out, &ino, NULL))
    {
      in_hook = 0;
      return real_copy_file_range(in, in_off, out, out_off, len, flags);
    }
  rec_lock();
  src_at = in_off ? *in_off : lseek(in, 0, SEEK_CUR);
  dst_at = out_off ? *out_off : lseek(out, 0, SEEK_CUR);
  n = real_copy_file_range(in, in_off, out, out_off, len, flags);
  saved = errno;
  if (n > 0)
    {
      long long b = blob_from_fd(in, src_at, (size_t)n);
      emit("write %llu %lld %zd %lld", (unsigned long long)ino, dst_at, n, b);
      fd_mark_written(out);
    }
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return n;
}

static ssize_t
rec_sendfile(int out, int in, off_t *off, size_t count)
{
  ino_t ino;
  long long src_at, dst_at;
  ssize_t n;
  int saved;
  REAL(sendfile);

  if (!enabled || in_hook)
    return real_sendfile(out, in, off, count);
  in_hook = 1;
  if (!fd_under(out, &ino, NULL))
    {
      in_hook = 0;
      return real_sendfile(out, in, off, count);
    }
  rec_lock();
  src_at = off ? *off : lseek(in, 0, SEEK_CUR);
  dst_at = lseek(out, 0, SEEK_CUR);
  n = real_sendfile(out, in, off, count);
  saved = errno;
  if (n > 0)
    {
      long long b = blob_from_fd(in, src_at, (size_t)n);
      emit("write %llu %lld %zd %lld", (unsigned long long)ino, dst_at, n, b);
      fd_mark_written(out);
    }
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return n;
}

ssize_t sendfile(int o, int i, off_t *off, size_t c)
{ return rec_sendfile(o, i, off, c); }
ssize_t sendfile64(int o, int i, off64_t *off, size_t c)
{ return rec_sendfile(o, i, off, c); }

/* ---- calls on a descriptor: sizes, modes, syncs, close ---------------- */

/* Run CALL (which returns 0 on success) on FD; when FD is under the root
   and the call succeeded, emit "WHAT INO" + TAIL. */
#define FD_CALL(fd, call, what, tailfmt, ...) \
  do { \
    ino_t ino_; \
    int r_, saved_; \
    if (!enabled || in_hook) \
      return call; \
    in_hook = 1; \
    if (!fd_under(fd, &ino_, NULL)) \
      { \
        in_hook = 0; \
        return call; \
      } \
    rec_lock(); \
    r_ = call; \
    saved_ = errno; \
    if (r_ == 0) \
      { \
        emit(what " %llu" tailfmt, (unsigned long long)ino_, __VA_ARGS__); \
        fd_mark_written(fd); \
      } \
    rec_unlock(); \
    in_hook = 0; \
    errno = saved_; \
    return r_; \
  } while (0)

int
ftruncate(int fd, off_t len)
{
  REAL(ftruncate);
  FD_CALL(fd, real_ftruncate(fd, len), "trunc", " %lld", (long long)len);
}

int
ftruncate64(int fd, off64_t len)
{
  return ftruncate(fd, len);
}

int
fallocate(int fd, int mode, off_t off, off_t len)
{
  REAL(fallocate);
  FD_CALL(fd, real_fallocate(fd, mode, off, len), "falloc",
          " %d %lld %lld", mode, (long long)off, (long long)len);
}

int
fallocate64(int fd, int mode, off64_t off, off64_t len)
{
  return fallocate(fd, mode, off, len);
}

int
posix_fallocate(int fd, off_t off, off_t len)
{
  REAL(posix_fallocate);
  FD_CALL(fd, real_posix_fallocate(fd, off, len), "falloc",
          " 0 %lld %lld", (long long)off, (long long)len);
}

int
posix_fallocate64(int fd, off64_t off, off64_t len)
{
  return posix_fallocate(fd, off, len);
}

int
fchmod(int fd, mode_t mode)
{
  REAL(fchmod);
  FD_CALL(fd, real_fchmod(fd, mode), "chmod", " %o", mode & 07777);
}

int
fsync(int fd)
{
  REAL(fsync);
  FD_CALL(fd, real_fsync(fd), "fsync", "%s", "");
}

int
fdatasync(int fd)
{
  REAL(fdatasync);
  FD_CALL(fd, real_fdatasync(fd), "fdatasync", "%s", "");
}

int
sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags)
{
  REAL(sync_file_range);
  FD_CALL(fd, real_sync_file_range(fd, off, n, flags), "sfr",
          " %lld %lld %u", (long long)off, (long long)n, flags);
}

int
syncfs(int fd)
{
  struct stat st;
  int r, saved;
  REAL(syncfs);
  if (!enabled || in_hook || fstat(fd, &st) < 0 || st.st_dev != root_dev)
    return real_syncfs(fd);
  in_hook = 1;
  rec_lock();
  r = real_syncfs(fd);
  saved = errno;
  if (r == 0)
    emit("syncfs");
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return r;
}

void
sync(void)
{
  REAL(sync);
  if (!enabled || in_hook)
    {
      real_sync();
      return;
    }
  in_hook = 1;
  rec_lock();
  real_sync();
  emit("sync");
  rec_unlock();
  in_hook = 0;
}

int
close(int fd)
{
  int wrote = 0, r, saved;
  ino_t ino = 0;
  REAL(close);

  if (!enabled || in_hook || fd < 0 || fd >= FD_MAX)
    return real_close(fd);
  pthread_mutex_lock(&fdt_mu);
  if (fdt[fd].where == FD_UNDER && fdt[fd].wrote)
    {
      wrote = 1;
      ino = fdt[fd].ino;
    }
  fdt[fd].where = FD_UNKNOWN;
  fdt[fd].wrote = 0;
  fdt[fd].ino = 0;
  pthread_mutex_unlock(&fdt_mu);
  if (!wrote)
    return real_close(fd);
  in_hook = 1;
  rec_lock();
  r = real_close(fd);
  saved = errno;
  emit("close %llu", (unsigned long long)ino);
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return r;
}

/* A writable shared mapping of a file under the root: its writes bypass
   every hook, so the trace says so and the simulator refuses it. */
static int mapped_for_write;

void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
  ino_t ino;
  REAL(mmap);
  if (enabled && !in_hook && fd >= 0 && (prot & PROT_WRITE)
      && (flags & MAP_SHARED))
    {
      in_hook = 1;
      if (fd_under(fd, &ino, NULL))
        {
          rec_lock();
          emit("mmapw %llu %lld %zu", (unsigned long long)ino,
               (long long)off, len);
          rec_unlock();
          mapped_for_write = 1;
        }
      in_hook = 0;
    }
  return real_mmap(addr, len, prot, flags, fd, off);
}

void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
  return mmap(addr, len, prot, flags, fd, off);
}

int
msync(void *addr, size_t len, int flags)
{
  REAL(msync);
  if (enabled && !in_hook && mapped_for_write)
    {
      in_hook = 1;
      rec_lock();
      emit("msync");
      rec_unlock();
      in_hook = 0;
    }
  return real_msync(addr, len, flags);
}

/* ---- calls on paths ----------------------------------------------------- */

/* Record a file that appeared under the root from outside it (a rename or
   link from elsewhere): its whole content, as a new inode. */
static void
emit_import(const char *abs, const char *rel)
{
  char e[3 * PATH_MAX + 1];
  struct stat st;
  int fd;
  REAL(openat);

  if (lstat(abs, &st) < 0)
    return;
  if (!S_ISREG(st.st_mode))
    {
      emit("importdir %s", esc(e, rel, PATH_MAX));
      return;
    }
  fd = real_openat(AT_FDCWD, abs, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    return;
  emit("import %s %llu %lld %lld", esc(e, rel, PATH_MAX),
       (unsigned long long)st.st_ino, (long long)st.st_size,
       blob_from_fd(fd, 0, (size_t)st.st_size));
  close(fd);
}

static unsigned long long
ino_of(const char *abs, int follow)
{
  struct stat st;
  if ((follow ? stat(abs, &st) : lstat(abs, &st)) < 0)
    return 0;
  return (unsigned long long)st.st_ino;
}

static int
rec_rename(int fd1, const char *from, int fd2, const char *to,
           unsigned int flags)
{
  char a1[PATH_MAX], a2[PATH_MAX], e1[3 * PATH_MAX + 1], e2[3 * PATH_MAX + 1];
  const char *r1, *r2;
  unsigned long long sino, dino;
  int u1, u2, r, saved;
  REAL(renameat2);

  if (!enabled || in_hook)
    return real_renameat2(fd1, from, fd2, to, flags);
  in_hook = 1;
  u1 = canon(fd1, from, a1, &r1);
  u2 = canon(fd2, to, a2, &r2);
  if (!u1 && !u2)
    {
      in_hook = 0;
      return real_renameat2(fd1, from, fd2, to, flags);
    }
  rec_lock();
  sino = ino_of(a1, 0);
  dino = ino_of(a2, 0);
  r = real_renameat2(fd1, from, fd2, to, flags);
  saved = errno;
  if (r == 0)
    {
      if (u1 && u2)
        emit("rename %s %s %u %llu %llu", esc(e1, r1, PATH_MAX),
             esc(e2, r2, PATH_MAX), flags, sino, dino);
      else if (u1)
        emit("unlink %s %llu", esc(e1, r1, PATH_MAX), sino);
      else
        emit_import(a2, r2);
    }
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return r;
}

int rename(const char *a, const char *b)
{ return rec_rename(AT_FDCWD, a, AT_FDCWD, b, 0); }
int renameat(int d1, const char *a, int d2, const char *b)
{ return rec_rename(d1, a, d2, b, 0); }
int renameat2(int d1, const char *a, int d2, const char *b, unsigned int f)
{ return rec_rename(d1, a, d2, b, f); }

static int
rec_unlinkat(int dirfd, const char *path, int flags)
{
  char abs[PATH_MAX], e[3 * PATH_MAX + 1];
  const char *rel;
  unsigned long long ino;
  int r, saved;
  REAL(unlinkat);

  if (!enabled || in_hook)
    return real_unlinkat(dirfd, path, flags);
  in_hook = 1;
  if (!canon(dirfd, path, abs, &rel))
    {
      in_hook = 0;
      return real_unlinkat(dirfd, path, flags);
    }
  rec_lock();
  ino = ino_of(abs, 0);
  r = real_unlinkat(dirfd, path, flags);
  saved = errno;
  if (r == 0)
    emit("%s %s %llu", (flags & AT_REMOVEDIR) ? "rmdir" : "unlink",
         esc(e, rel, PATH_MAX), ino);
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return r;
}

int unlink(const char *p) { return rec_unlinkat(AT_FDCWD, p, 0); }
int unlinkat(int d, const char *p, int f) { return rec_unlinkat(d, p, f); }
int rmdir(const char *p) { return rec_unlinkat(AT_FDCWD, p, AT_REMOVEDIR); }

int
remove(const char *p)
{
  struct stat st;
  if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
    return rec_unlinkat(AT_FDCWD, p, AT_REMOVEDIR);
  return rec_unlinkat(AT_FDCWD, p, 0);
}

/* A call that makes a new name PATH (mkdir, symlink): CALL, then "creat". */
static int
rec_make(int dirfd, const char *path, char type, const char *target,
         int (*call)(int, const char *, const void *, mode_t),
         const void *arg, mode_t mode)
{
  char abs[PATH_MAX], e[3 * PATH_MAX + 1], t[3 * PATH_MAX + 1];
  const char *rel;
  struct stat st;
  int r, saved;

  if (!enabled || in_hook)
    return call(dirfd, path, arg, mode);
  in_hook = 1;
  if (!canon(dirfd, path, abs, &rel))
    {
      in_hook = 0;
      return call(dirfd, path, arg, mode);
    }
  rec_lock();
  r = call(dirfd, path, arg, mode);
  saved = errno;
  if (r == 0 && lstat(abs, &st) == 0)
    emit("creat %s %llu %c %o%s%s", esc(e, rel, PATH_MAX),
         (unsigned long long)st.st_ino, type, st.st_mode & 07777,
         target ? " " : "", target ? esc(t, target, PATH_MAX) : "");
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return r;
}

static int
call_mkdirat(int d, const char *p, const void *arg, mode_t m)
{
  REAL(mkdirat);
  (void)arg;
  return real_mkdirat(d, p, m);
}

static int
call_symlinkat(int d, const char *p, const void *target, mode_t m)
{
  REAL(symlinkat);
  (void)m;
  return real_symlinkat(target, d, p);
}

int mkdir(const char *p, mode_t m)
{ return rec_make(AT_FDCWD, p, 'd', NULL, call_mkdirat, NULL, m); }
int mkdirat(int d, const char *p, mode_t m)
{ return rec_make(d, p, 'd', NULL, call_mkdirat, NULL, m); }
int symlink(const char *t, const char *p)
{ return rec_make(AT_FDCWD, p, 'l', t, call_symlinkat, t, 0); }
int symlinkat(const char *t, int d, const char *p)
{ return rec_make(d, p, 'l', t, call_symlinkat, t, 0); }

static int
rec_linkat(int fd1, const char *old, int fd2, const char *new, int flags)
{
  char a1[PATH_MAX], a2[PATH_MAX], e1[3 * PATH_MAX + 1], e2[3 * PATH_MAX + 1];
  const char *r1, *r2;
  unsigned long long ino;
  int u1, u2, r, saved;
  REAL(linkat);

  if (!enabled || in_hook)
    return real_linkat(fd1, old, fd2, new, flags);
  in_hook = 1;
  u1 = canon(fd1, old, a1, &r1);
  u2 = canon(fd2, new, a2, &r2);
  if (!u2)
    {
      in_hook = 0;
      return real_linkat(fd1, old, fd2, new, flags);
    }
  rec_lock();
  r = real_linkat(fd1, old, fd2, new, flags);
  saved = errno;
  ino = ino_of(a2, 0);
  if (r == 0 && u1 && !(flags & AT_EMPTY_PATH))
    emit("link %s %s %llu", esc(e1, r1, PATH_MAX), esc(e2, r2, PATH_MAX),
         ino);
  else if (r == 0)
    emit_import(a2, r2);
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return r;
}

int link(const char *a, const char *b)
{ return rec_linkat(AT_FDCWD, a, AT_FDCWD, b, 0); }
int linkat(int d1, const char *a, int d2, const char *b, int f)
{ return rec_linkat(d1, a, d2, b, f); }

/* chmod and truncate by path: the inode is looked up first. */
static int
rec_path_call(int dirfd, const char *path, const char *what, long long arg,
              int (*call)(int, const char *, long long, int), int flags)
{
  char abs[PATH_MAX];
  const char *rel;
  unsigned long long ino;
  int r, saved;

  if (!enabled || in_hook)
    return call(dirfd, path, arg, flags);
  in_hook = 1;
  if (!canon(dirfd, path, abs, &rel))
    {
      in_hook = 0;
      return call(dirfd, path, arg, flags);
    }
  rec_lock();
  ino = ino_of(abs, !(flags & AT_SYMLINK_NOFOLLOW));
  r = call(dirfd, path, arg, flags);
  saved = errno;
  if (r == 0)
    emit(strcmp(what, "chmod") ? "%s %llu %lld" : "%s %llu %llo", what, ino,
         (unsigned long long)arg);
  rec_unlock();
  in_hook = 0;
  errno = saved;
  return r;
}

static int
call_fchmodat(int d, const char *p, long long mode, int flags)
{
  REAL(fchmodat);
  return real_fchmodat(d, p, (mode_t)mode, flags);
}

static int
call_truncate(int d, const char *p, long long len, int flags)
{
  REAL(truncate);
  (void)d; (void)flags;
  return real_truncate(p, (off_t)len);
}

int chmod(const char *p, mode_t m)
{ return rec_path_call(AT_FDCWD, p, "chmod", m & 07777, call_fchmodat, 0); }
int fchmodat(int d, const char *p, mode_t m, int f)
{ return rec_path_call(d, p, "chmod", m & 07777, call_fchmodat, f); }
int truncate(const char *p, off_t len)
{ return rec_path_call(AT_FDCWD, p, "trunc", len, call_truncate, 0); }
int truncate64(const char *p, off64_t len)
{ return rec_path_call(AT_FDCWD, p, "trunc", len, call_truncate, 0); }
