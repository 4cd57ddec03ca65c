/* fault.c: an LD_PRELOAD interposer that counts the file-system calls made
 * on behalf of the FSFS module and, at the Nth one, kills the process or
 * fails the call.  It drives the crash-point and I/O-error campaigns of
 * tools/torture/campaign.py; see doc/reliability.md.
 *
 * Which calls count: every libc entry point that creates, names, removes,
 * writes, sizes, syncs or re-moods a file or directory (the list is the
 * section "the interposed calls" below; test_torture.py checks it against
 * the imports of the module, libsvn_subr, APR and SQLite) -- but only when
 * a frame of libsvn_fs_fs-1.so.1 is on the call stack.  The module reaches
 * the system through APR, libsvn_subr and SQLite, so the immediate return
 * address is almost never in the module; we unwind the stack (glibc
 * backtrace) and look for a return address inside the module's mapped
 * text.  SQLite calls through its own table of syscall pointers, filled
 * with the addresses of open64, pwrite64, fdatasync, unlink, mkdir, ...;
 * those addresses resolve to ours like any other call, so SQLite's calls
 * on rep-cache.db count exactly like APR's.  Calls of the client,
 * libsvn_repos, the loader etc. pass through uncounted, which keeps N
 * stable across runs.  FAULT_ALL=1 counts every call of the process.
 *
 * glibc's own functions call each other internally, past the symbol
 * table: mkstemp opens its file, remove unlinks, fopen opens without
 * calling our open.  So those are interposed under their own names
 * (APR's apr_file_mktemp, which libsvn_subr's temporary files use, is
 * mkstemp).  Not seen: bytes written through stdio buffers (no library
 * on the module's path writes a file through stdio) and stores into a
 * shared writable mmap (SQLite's WAL index only; rep-cache.db uses a
 * rollback journal).
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
 *                (a disk that stays full) instead of the Nth only
 *   FAULT_TRACE  1: in count mode also append "call N NAME PATH" to
 *                FAULT_OUT for every counted call (campaign.py --focus)
 *   FAULT_MATCH  count only calls on paths containing this string (for
 *                calls on a descriptor, the path /proc/self/fd names; for
 *                a rename or link, "FROM -> TO"), to aim at one file,
 *                e.g. FAULT_MATCH=rep-cache.db FAULT_N=1
 *   FAULT_CALLS  count only these calls (comma-separated names as in the
 *                hit line: write,pwrite,renameat2...), e.g. with
 *                FAULT_MATCH=revprops/0/3 FAULT_CALLS=write FAULT_N=1:
 *                the first write into that revprops file
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
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utime.h>

enum mode { M_OFF, M_COUNT, M_KILL, M_ERROR };

static enum mode mode = M_OFF;
static int fail_errno;
static long target_n;
static int count_all;
static int sticky;
static int trace;                /* FAULT_TRACE=1: log every counted call */
static const char *out_path;
static const char *match;
static const char *calls_only;   /* FAULT_CALLS: ",name,name," or NULL */
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

/* Is CALL one of FAULT_CALLS? */
static int
call_listed(const char *call)
{
  char key[64];

  snprintf(key, sizeof key, ",%s,", call);
  return strstr(calls_only, key) != NULL;
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
  if (!called_from_module() || (match && (!arg || !strstr(arg, match)))
      || (calls_only && !call_listed(call)))
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

/* PATH as the file it names, for a call relative to directory DIRFD. */
static const char *
at_arg(int dirfd, const char *path, char *buf, size_t len)
{
  char dir[512];

  if (mode == M_OFF || !path || path[0] == '/' || dirfd == AT_FDCWD)
    return path;
  snprintf(buf, len, "%s/%s", fd_arg(dirfd, dir, sizeof dir), path);
  return buf;
}

/* "FROM -> TO" for the calls that give a file a second name. */
static const char *
pair_arg(const char *from, const char *to, char *buf, size_t len)
{
  if (mode == M_OFF)
    return to;
  snprintf(buf, len, "%s -> %s", from ? from : "-", to ? to : "-");
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
  if (getenv("FAULT_CALLS") && *getenv("FAULT_CALLS"))
    {
      /* Kept as ",a,b," so that one strstr finds a whole name. */
      static char list[512];
      snprintf(list, sizeof list, ",%s,", getenv("FAULT_CALLS"));
      calls_only = list;
    }
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
  char a[520];
  va_list ap;
  mode_t md = 0;
  REAL(openat);
  OPEN_MODE(flags, ap, md);
  if (fault_point("openat", at_arg(dirfd, path, a, sizeof a)))
    return -1;
  return real_openat(dirfd, path, flags, md);
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
  char a[520];
  va_list ap;
  mode_t md = 0;
  REAL(openat64);
  OPEN_MODE(flags, ap, md);
  if (fault_point("openat", at_arg(dirfd, path, a, sizeof a)))
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
  char a[520];
  REAL(openat);
  if (fault_point("openat", at_arg(dirfd, path, a, sizeof a)))
    return -1;
  return real_openat(dirfd, path, flags);
}

int
__openat64_2(int dirfd, const char *path, int flags)
{
  char a[520];
  REAL(openat64);
  if (fault_point("openat", at_arg(dirfd, path, a, sizeof a)))
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
  char a[1100];
  REAL(rename);
  if (fault_point("rename", pair_arg(from, to, a, sizeof a)))
    return -1;
  return real_rename(from, to);
}

int
renameat(int fd1, const char *from, int fd2, const char *to)
{
  char a[1100], f[520], t[520];
  REAL(renameat);
  if (fault_point("renameat", pair_arg(at_arg(fd1, from, f, sizeof f),
                                       at_arg(fd2, to, t, sizeof t),
                                       a, sizeof a)))
    return -1;
  return real_renameat(fd1, from, fd2, to);
}

/* fsfs7's spare files (TXN-14) are moved into place with this. */
int
renameat2(int fd1, const char *from, int fd2, const char *to,
          unsigned int flags)
{
  char a[1100], f[520], t[520];
  REAL(renameat2);
  if (fault_point("renameat2", pair_arg(at_arg(fd1, from, f, sizeof f),
                                        at_arg(fd2, to, t, sizeof t),
                                        a, sizeof a)))
    return -1;
  return real_renameat2(fd1, from, fd2, to, flags);
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
  char a[520];
  REAL(unlinkat);
  if (fault_point("unlinkat", at_arg(dirfd, path, a, sizeof a)))
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

int
truncate(const char *path, off_t len)
{
  REAL(truncate);
  if (fault_point("truncate", path))
    return -1;
  return real_truncate(path, len);
}

int
truncate64(const char *path, off64_t len)
{
  REAL(truncate64);
  if (fault_point("truncate", path))
    return -1;
  return real_truncate64(path, len);
}

int
creat(const char *path, mode_t md)
{
  REAL(creat);
  if (fault_point("creat", path))
    return -1;
  return real_creat(path, md);
}

int
creat64(const char *path, mode_t md)
{
  REAL(creat64);
  if (fault_point("creat", path))
    return -1;
  return real_creat64(path, md);
}

/* ---- more ways to write bytes ---------------------------------------- */

ssize_t
pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
  char a[512];
  REAL(pwritev);
  if (fault_point("pwritev", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_pwritev(fd, iov, iovcnt, off);
}

ssize_t
pwritev64(int fd, const struct iovec *iov, int iovcnt, off64_t off)
{
  char a[512];
  REAL(pwritev64);
  if (fault_point("pwritev", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_pwritev64(fd, iov, iovcnt, off);
}

ssize_t
pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t off, int flags)
{
  char a[512];
  REAL(pwritev2);
  if (fault_point("pwritev", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_pwritev2(fd, iov, iovcnt, off, flags);
}

ssize_t
pwritev64v2(int fd, const struct iovec *iov, int iovcnt, off64_t off,
            int flags)
{
  char a[512];
  REAL(pwritev64v2);
  if (fault_point("pwritev", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_pwritev64v2(fd, iov, iovcnt, off, flags);
}

/* The target descriptor names the file written. */
ssize_t
copy_file_range(int fd_in, off64_t *off_in, int fd_out, off64_t *off_out,
                size_t len, unsigned int flags)
{
  char a[512];
  REAL(copy_file_range);
  if (fault_point("copy_file_range", fd_arg(fd_out, a, sizeof a)))
    return -1;
  return real_copy_file_range(fd_in, off_in, fd_out, off_out, len, flags);
}

ssize_t
sendfile(int out_fd, int in_fd, off_t *offset, size_t count)
{
  char a[512];
  REAL(sendfile);
  if (fault_point("sendfile", fd_arg(out_fd, a, sizeof a)))
    return -1;
  return real_sendfile(out_fd, in_fd, offset, count);
}

ssize_t
sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count)
{
  char a[512];
  REAL(sendfile64);
  if (fault_point("sendfile", fd_arg(out_fd, a, sizeof a)))
    return -1;
  return real_sendfile64(out_fd, in_fd, offset, count);
}

int
fallocate(int fd, int fmode, off_t off, off_t len)
{
  char a[512];
  REAL(fallocate);
  if (fault_point("fallocate", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_fallocate(fd, fmode, off, len);
}

int
fallocate64(int fd, int fmode, off64_t off, off64_t len)
{
  char a[512];
  REAL(fallocate64);
  if (fault_point("fallocate", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_fallocate64(fd, fmode, off, len);
}

/* posix_fallocate reports its error as the return value, not in errno. */
int
posix_fallocate(int fd, off_t off, off_t len)
{
  char a[512];
  REAL(posix_fallocate);
  if (fault_point("posix_fallocate", fd_arg(fd, a, sizeof a)))
    return errno;
  return real_posix_fallocate(fd, off, len);
}

int
posix_fallocate64(int fd, off64_t off, off64_t len)
{
  char a[512];
  REAL(posix_fallocate64);
  if (fault_point("posix_fallocate", fd_arg(fd, a, sizeof a)))
    return errno;
  return real_posix_fallocate64(fd, off, len);
}

int
syncfs(int fd)
{
  char a[512];
  REAL(syncfs);
  if (fault_point("syncfs", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_syncfs(fd);
}

int
sync_file_range(int fd, off64_t off, off64_t len, unsigned int flags)
{
  char a[512];
  REAL(sync_file_range);
  if (fault_point("sync_file_range", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_sync_file_range(fd, off, len, flags);
}

int
msync(void *addr, size_t len, int flags)
{
  REAL(msync);
  if (fault_point("msync", "-"))
    return -1;
  return real_msync(addr, len, flags);
}

/* ---- names: links, directories --------------------------------------- */

int
link(const char *from, const char *to)
{
  char a[1100];
  REAL(link);
  if (fault_point("link", pair_arg(from, to, a, sizeof a)))
    return -1;
  return real_link(from, to);
}

int
linkat(int fd1, const char *from, int fd2, const char *to, int flags)
{
  char a[1100], f[520], t[520];
  REAL(linkat);
  if (fault_point("linkat", pair_arg(at_arg(fd1, from, f, sizeof f),
                                     at_arg(fd2, to, t, sizeof t),
                                     a, sizeof a)))
    return -1;
  return real_linkat(fd1, from, fd2, to, flags);
}

int
symlink(const char *target, const char *path)
{
  char a[1100];
  REAL(symlink);
  if (fault_point("symlink", pair_arg(target, path, a, sizeof a)))
    return -1;
  return real_symlink(target, path);
}

int
symlinkat(const char *target, int dirfd, const char *path)
{
  char a[1100], t[520];
  REAL(symlinkat);
  if (fault_point("symlinkat", pair_arg(target,
                                        at_arg(dirfd, path, t, sizeof t),
                                        a, sizeof a)))
    return -1;
  return real_symlinkat(target, dirfd, path);
}

int
mkdir(const char *path, mode_t md)
{
  REAL(mkdir);
  if (fault_point("mkdir", path))
    return -1;
  return real_mkdir(path, md);
}

int
mkdirat(int dirfd, const char *path, mode_t md)
{
  char a[520];
  REAL(mkdirat);
  if (fault_point("mkdirat", at_arg(dirfd, path, a, sizeof a)))
    return -1;
  return real_mkdirat(dirfd, path, md);
}

char *
mkdtemp(char *templ)
{
  REAL(mkdtemp);
  if (fault_point("mkdtemp", templ))
    return NULL;
  return real_mkdtemp(templ);
}

int
rmdir(const char *path)
{
  REAL(rmdir);
  if (fault_point("rmdir", path))
    return -1;
  return real_rmdir(path);
}

/* glibc's remove unlinks (or rmdirs) internally, past our unlink. */
int
remove(const char *path)
{
  REAL(remove);
  if (fault_point("remove", path))
    return -1;
  return real_remove(path);
}

int
mknod(const char *path, mode_t md, dev_t dev)
{
  REAL(mknod);
  if (fault_point("mknod", path))
    return -1;
  return real_mknod(path, md, dev);
}

int
mkfifo(const char *path, mode_t md)
{
  REAL(mkfifo);
  if (fault_point("mkfifo", path))
    return -1;
  return real_mkfifo(path, md);
}

/* ---- temporary files: glibc opens them internally -------------------- */

int
mkstemp(char *templ)
{
  REAL(mkstemp);
  if (fault_point("mkstemp", templ))
    return -1;
  return real_mkstemp(templ);
}

int
mkstemp64(char *templ)
{
  REAL(mkstemp64);
  if (fault_point("mkstemp", templ))
    return -1;
  return real_mkstemp64(templ);
}

int
mkostemp(char *templ, int flags)
{
  REAL(mkostemp);
  if (fault_point("mkostemp", templ))
    return -1;
  return real_mkostemp(templ, flags);
}

int
mkostemp64(char *templ, int flags)
{
  REAL(mkostemp64);
  if (fault_point("mkostemp", templ))
    return -1;
  return real_mkostemp64(templ, flags);
}

int
mkstemps(char *templ, int suffixlen)
{
  REAL(mkstemps);
  if (fault_point("mkstemps", templ))
    return -1;
  return real_mkstemps(templ, suffixlen);
}

int
mkostemps(char *templ, int suffixlen, int flags)
{
  REAL(mkostemps);
  if (fault_point("mkostemps", templ))
    return -1;
  return real_mkostemps(templ, suffixlen, flags);
}

/* stdio opens internally too; its writes are not seen (see the top). */
FILE *
fopen(const char *path, const char *fmode)
{
  REAL(fopen);
  if (fault_point("fopen", path))
    return NULL;
  return real_fopen(path, fmode);
}

FILE *
fopen64(const char *path, const char *fmode)
{
  REAL(fopen64);
  if (fault_point("fopen", path))
    return NULL;
  return real_fopen64(path, fmode);
}

FILE *
freopen(const char *path, const char *fmode, FILE *stream)
{
  REAL(freopen);
  if (fault_point("freopen", path))
    return NULL;
  return real_freopen(path, fmode, stream);
}

FILE *
freopen64(const char *path, const char *fmode, FILE *stream)
{
  REAL(freopen64);
  if (fault_point("freopen", path))
    return NULL;
  return real_freopen64(path, fmode, stream);
}

/* ---- permissions, owners, times -------------------------------------- */

int
chmod(const char *path, mode_t md)
{
  REAL(chmod);
  if (fault_point("chmod", path))
    return -1;
  return real_chmod(path, md);
}

int
fchmod(int fd, mode_t md)
{
  char a[512];
  REAL(fchmod);
  if (fault_point("fchmod", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_fchmod(fd, md);
}

int
lchmod(const char *path, mode_t md)
{
  REAL(lchmod);
  if (fault_point("lchmod", path))
    return -1;
  return real_lchmod(path, md);
}

int
fchmodat(int dirfd, const char *path, mode_t md, int flags)
{
  char a[520];
  REAL(fchmodat);
  if (fault_point("fchmodat", at_arg(dirfd, path, a, sizeof a)))
    return -1;
  return real_fchmodat(dirfd, path, md, flags);
}

int
chown(const char *path, uid_t uid, gid_t gid)
{
  REAL(chown);
  if (fault_point("chown", path))
    return -1;
  return real_chown(path, uid, gid);
}

int
lchown(const char *path, uid_t uid, gid_t gid)
{
  REAL(lchown);
  if (fault_point("lchown", path))
    return -1;
  return real_lchown(path, uid, gid);
}

int
fchown(int fd, uid_t uid, gid_t gid)
{
  char a[512];
  REAL(fchown);
  if (fault_point("fchown", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_fchown(fd, uid, gid);
}

int
fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
  char a[520];
  REAL(fchownat);
  if (fault_point("fchownat", at_arg(dirfd, path, a, sizeof a)))
    return -1;
  return real_fchownat(dirfd, path, uid, gid, flags);
}

int
utime(const char *path, const struct utimbuf *times)
{
  REAL(utime);
  if (fault_point("utime", path))
    return -1;
  return real_utime(path, times);
}

int
utimes(const char *path, const struct timeval times[2])
{
  REAL(utimes);
  if (fault_point("utimes", path))
    return -1;
  return real_utimes(path, times);
}

int
lutimes(const char *path, const struct timeval times[2])
{
  REAL(lutimes);
  if (fault_point("lutimes", path))
    return -1;
  return real_lutimes(path, times);
}

int
futimes(int fd, const struct timeval times[2])
{
  char a[512];
  REAL(futimes);
  if (fault_point("futimes", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_futimes(fd, times);
}

int
futimens(int fd, const struct timespec times[2])
{
  char a[512];
  REAL(futimens);
  if (fault_point("futimens", fd_arg(fd, a, sizeof a)))
    return -1;
  return real_futimens(fd, times);
}

int
utimensat(int dirfd, const char *path, const struct timespec times[2],
          int flags)
{
  char a[520];
  REAL(utimensat);
  if (fault_point("utimensat", at_arg(dirfd, path, a, sizeof a)))
    return -1;
  return real_utimensat(dirfd, path, times, flags);
}
