/* fault.c: an LD_PRELOAD interposer that counts the file-system calls made
 * on behalf of the FSFS module and, at the Nth one, kills the process or
 * fails the call.  It drives the crash-point and I/O-error campaigns of
 * tools/torture/campaign.py; see doc/reliability.md.
 *
 * Which calls count: open/openat (and their 64-bit and fortified names),
 * write/writev/pwrite, fsync/fdatasync, rename/renameat, unlink/unlinkat,
 * ftruncate -- but only when a frame of libsvn_fs_fs-1.so.1 is on the call
 * stack.  The module reaches the system through APR and libsvn_subr, so the
 * immediate return address is almost never in the module; we unwind the
 * stack (glibc backtrace) and look for a return address inside the module's
 * mapped text.  Calls of the client, libsvn_repos, the loader etc. pass
 * through uncounted, which keeps N stable across runs.  FAULT_ALL=1 counts
 * every call of the process instead.
 *
 * Environment:
 *   FAULT_MODE   count | kill | enospc | eio | edquot   (unset: pass-through)
 *   FAULT_N      the 1-based index of the call to act on (kill and errors)
 *   FAULT_OUT    file that receives (without it count mode prints the
 *                total on stderr at exit), in count mode, one line "count TOTAL"
 *                per process that made a counted call (kept up to date as
 *                it runs), and a line "hit N CALL ARG" when the Nth call is
 *                acted on (written before acting)
 *   FAULT_ALL    1: count every call of the process, not only the module's
 *   FAULT_STICKY 1: in an error mode fail every counted call from N on
 *   FAULT_TRACE  1: in count mode also append "call N NAME PATH" to
 *                FAULT_OUT for every counted call (campaign.py --focus)
 *                (a disk that stays full) instead of the Nth only
 *   FAULT_MATCH  count only calls on paths containing this string (for
 *                calls on a descriptor, the path /proc/self/fd names), to
 *                aim at one file, e.g. FAULT_MATCH=rep-cache.db FAULT_N=1
 *
 * The counter is process-wide and atomic (svnserve serves from threads).
 * Only async-signal-safe-ish primitives are used on the hot path; the
 * FAULT_OUT lines are written with open/write of our own through the real
 * functions, never through stdio.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum mode { M_OFF, M_COUNT, M_KILL, M_ERROR };

static enum mode mode = M_OFF;
static int fail_errno;
static long target_n;
static int count_all;
static int sticky;
static int trace;                /* FAULT_TRACE=1: log every counted call */
static const char *out_path;
static const char *match;
static atomic_long counter;

/* The module's executable segments, found once it is mapped. */
#define MAX_SEGS 8
static uintptr_t seg_lo[MAX_SEGS], seg_hi[MAX_SEGS];
static int nsegs;
static atomic_int module_found;

/* Set while inside our own bookkeeping, so that the calls backtrace() makes
 * the first time (it loads libgcc_s) are not counted or recursed into. */
static __thread int in_hook;

#define REAL(name) \
  static __typeof__(name) *real_##name; \
  if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static int
find_module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
  (void)size; (void)data;
  if (!info->dlpi_name || !strstr(info->dlpi_name, "libsvn_fs_fs-1.so"))
    return 0;
  for (int i = 0; i < info->dlpi_phnum && nsegs < MAX_SEGS; i++)
    {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
        {
          seg_lo[nsegs] = info->dlpi_addr + ph->p_vaddr;
          seg_hi[nsegs] = seg_lo[nsegs] + ph->p_memsz;
          nsegs++;
        }
    }
  return 1;
}

/* Is a frame of the module on the current stack? */
static int
called_from_module(void)
{
  void *frames[64];
  int n;

  if (count_all)
    return 1;
  if (!atomic_load(&module_found))
    {
      /* The module is a DT_NEEDED of libsvn_fs, so it is mapped before
         main(); look it up lazily all the same (cheap, once). */
      nsegs = 0;
      dl_iterate_phdr(find_module_cb, NULL);
      if (nsegs == 0)
        return 0;
      atomic_store(&module_found, 1);
    }
  n = backtrace(frames, 64);
  for (int i = 0; i < n; i++)
    {
      uintptr_t a = (uintptr_t)frames[i];
      for (int s = 0; s < nsegs; s++)
        if (a >= seg_lo[s] && a < seg_hi[s])
          return 1;
    }
  return 0;
}

static void append_line(const char *line);

/* Count mode keeps its total on disk as it goes: a server process (svnserve
 * -t) is often ended by a signal from its client, so an exit handler alone
 * would lose the figure.  Each counting process owns one fixed-width record
 * in FAULT_OUT, rewritten in place after every counted call. */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static int rec_fd = -1;
static off_t rec_off;

static void
record_count(long n)
{
  char line[40];
  REAL(open);
  REAL(write);
  REAL(close);
  REAL(pwrite);
  if (!out_path)
    return;
  snprintf(line, sizeof line, "count %20ld\n", n);
  pthread_mutex_lock(&rec_lock);
  if (rec_fd < 0)
    {
      int afd = real_open(out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (afd >= 0)
        {
          if (real_write(afd, line, strlen(line)) == (ssize_t)strlen(line))
            {
              rec_off = lseek(afd, 0, SEEK_CUR) - (off_t)strlen(line);
              rec_fd = real_open(out_path, O_WRONLY | O_CLOEXEC);
            }
          real_close(afd);
        }
    }
  else
    (void)!real_pwrite(rec_fd, line, strlen(line), rec_off);
  pthread_mutex_unlock(&rec_lock);
}

static void
append_line(const char *line)
{
  int fd;
  REAL(open);
  REAL(write);
  REAL(close);
  if (!out_path)
    return;
  fd = real_open(out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0)
    return;
  (void)!real_write(fd, line, strlen(line));
  real_close(fd);
}

/* Decide the fate of one call.  Returns 0 to perform it, or -1 with errno
 * set to fail it; does not return when killing. */
static int
fault_point(const char *call, const char *arg)
{
  long n;
  int act;

  if (mode == M_OFF || in_hook)
    return 0;
  in_hook = 1;
  if (!called_from_module() || (match && (!arg || !strstr(arg, match))))
    {
      in_hook = 0;
      return 0;
    }
  n = atomic_fetch_add(&counter, 1) + 1;
  if (mode == M_COUNT)
    record_count(n);
  if (mode == M_COUNT && trace)
    {
      char line[600];
      snprintf(line, sizeof line, "call %ld %s %s\n", n, call,
               arg ? arg : "-");
      append_line(line);
    }
  act = (mode == M_KILL || mode == M_ERROR)
        && (n == target_n || (sticky && mode == M_ERROR && n > target_n));
  if (act && n == target_n)
    {
      char line[600];
      snprintf(line, sizeof line, "hit %ld %s %s\n", n, call,
               arg ? arg : "-");
      append_line(line);
    }
  in_hook = 0;
  if (!act)
    return 0;
  if (mode == M_KILL)
    {
      raise(SIGKILL);
      _exit(137);   /* not reached */
    }
  errno = fail_errno;
  return -1;
}

/* The path behind FD, for FAULT_MATCH and the hit report. */
static const char *
fd_arg(int fd, char *buf, size_t len)
{
  char link[64];
  ssize_t n;

  if (mode == M_OFF)
    return "-";
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink(link, buf, len - 1);
  if (n <= 0)
    {
      snprintf(buf, len, "fd=%d", fd);
      return buf;
    }
  buf[n] = '\0';
  return buf;
}

__attribute__((constructor)) static void
fault_init(void)
{
  const char *m = getenv("FAULT_MODE");
  const char *n = getenv("FAULT_N");
  void *frames[4];

  out_path = getenv("FAULT_OUT");
  match = getenv("FAULT_MATCH");
  if (match && !*match)
    match = NULL;
  count_all = getenv("FAULT_ALL") && !strcmp(getenv("FAULT_ALL"), "1");
  sticky = getenv("FAULT_STICKY") && !strcmp(getenv("FAULT_STICKY"), "1");
  trace = getenv("FAULT_TRACE") && !strcmp(getenv("FAULT_TRACE"), "1");
  target_n = n ? atol(n) : 0;
  if (!m || !*m)
    mode = M_OFF;
  else if (!strcmp(m, "count"))
    mode = M_COUNT;
  else if (!strcmp(m, "kill"))
    mode = M_KILL;
  else if (!strcmp(m, "enospc"))
    mode = M_ERROR, fail_errno = ENOSPC;
  else if (!strcmp(m, "eio"))
    mode = M_ERROR, fail_errno = EIO;
  else if (!strcmp(m, "edquot"))
    mode = M_ERROR, fail_errno = EDQUOT;
  else
    {
      static const char msg[] = "fault.so: unknown FAULT_MODE\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(120);
    }
  /* Load the unwinder now, outside any counted call. */
  in_hook = 1;
  backtrace(frames, 4);
  in_hook = 0;
}

/* Count mode without FAULT_OUT: the total on stderr at exit. */
__attribute__((destructor)) static void
fault_fini(void)
{
  char line[64];
  REAL(write);
  if (mode != M_COUNT || out_path)
    return;
  snprintf(line, sizeof line, "fault.so: %ld calls from the module\n",
           atomic_load(&counter));
  (void)!real_write(2, line, strlen(line));
}

/* ---- the interposed calls ------------------------------------------- */

#define OPEN_MODE(flags, ap, mode_var)                        \
  do {                                                        \
    if ((flags) & (O_CREAT | O_TMPFILE))                      \
      {                                                       \
        va_start(ap, flags);                                  \
        mode_var = va_arg(ap, mode_t);                        \
        va_end(ap);                                           \
      }                                                       \
  } while (0)

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

int
open(const char *path, int flags, ...)
{
  va_list ap;
  mode_t md = 0;
  REAL(open);
  OPEN_MODE(flags, ap, md);
  if (fault_point("open", path))
    return -1;
  return real_open(path, flags, md);
}

int
open64(const char *path, int flags, ...)
{
  va_list ap;
  mode_t md = 0;
  REAL(open64);
  OPEN_MODE(flags, ap, md);
  if (fault_point("open", path))
    return -1;
  return real_open64(path, flags, md);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
  va_list ap;
  mode_t md = 0;
  REAL(openat);
  OPEN_MODE(flags, ap, md);
  if (fault_point("openat", path))
    return -1;
  return real_openat(dirfd, path, flags, md);
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
  va_list ap;
  mode_t md = 0;
  REAL(openat64);
  OPEN_MODE(flags, ap, md);
  if (fault_point("openat", path))
    return -1;
  return real_openat64(dirfd, path, flags, md);
}

int
__open_2(const char *path, int flags)
{
  REAL(open);
  if (fault_point("open", path))
    return -1;
  return real_open(path, flags);
}

int
__open64_2(const char *path, int flags)
{
  REAL(open64);
  if (fault_point("open", path))
    return -1;
  return real_open64(path, flags);
}

int
__openat_2(int dirfd, const char *path, int flags)
{
  REAL(openat);
  if (fault_point("openat", path))
    return -1;
  return real_openat(dirfd, path, flags);
}

int
__openat64_2(int dirfd, const char *path, int flags)
{
  REAL(openat64);
  if (fault_point("openat", path))
    return -1;
  return real_openat64(dirfd, path, flags);
}

ssize_t
write(int fd, const void *buf, size_t count)
{
  char a[512];
  REAL(write);
  if (fault_point("write", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_write(fd, buf, count);
}

ssize_t
writev(int fd, const struct iovec *iov, int iovcnt)
{
  char a[512];
  REAL(writev);
  if (fault_point("writev", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_writev(fd, iov, iovcnt);
}

ssize_t
pwrite(int fd, const void *buf, size_t count, off_t off)
{
  char a[512];
  REAL(pwrite);
  if (fault_point("pwrite", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_pwrite(fd, buf, count, off);
}

ssize_t
pwrite64(int fd, const void *buf, size_t count, off64_t off)
{
  char a[512];
  REAL(pwrite64);
  if (fault_point("pwrite", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_pwrite64(fd, buf, count, off);
}

int
fsync(int fd)
{
  char a[512];
  REAL(fsync);
  if (fault_point("fsync", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_fsync(fd);
}

int
fdatasync(int fd)
{
  char a[512];
  REAL(fdatasync);
  if (fault_point("fdatasync", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_fdatasync(fd);
}

int
rename(const char *from, const char *to)
{
  REAL(rename);
  if (fault_point("rename", to))
    return -1;
  return real_rename(from, to);
}

int
renameat(int fd1, const char *from, int fd2, const char *to)
{
  REAL(renameat);
  if (fault_point("renameat", to))
    return -1;
  return real_renameat(fd1, from, fd2, to);
}

int
unlink(const char *path)
{
  REAL(unlink);
  if (fault_point("unlink", path))
    return -1;
  return real_unlink(path);
}

int
unlinkat(int dirfd, const char *path, int flags)
{
  REAL(unlinkat);
  if (fault_point("unlinkat", path))
    return -1;
  return real_unlinkat(dirfd, path, flags);
}

int
ftruncate(int fd, off_t len)
{
  char a[512];
  REAL(ftruncate);
  if (fault_point("ftruncate", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_ftruncate(fd, len);
}

int
ftruncate64(int fd, off64_t len)
{
  char a[512];
  REAL(ftruncate64);
  if (fault_point("ftruncate", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_ftruncate64(fd, len);
}
