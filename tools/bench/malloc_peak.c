/* malloc_peak.c -- LD_PRELOAD helper: how much of a process's heap is
 * malloc's, at its most and at the process's RSS peak?
 *
 * rss_peak.py names the owners of APR's mapped pool blocks, but fsfs7's
 * read buffers (rep_read.c, heapbuf.c) come from malloc, mostly in
 * pieces under rss_shim.c's 16 kB threshold.  This counts the bytes
 * malloc has handed out and not taken back (malloc_usable_size of each
 * block), and every 200 calls samples VmRSS; at exit it prints to stderr
 * the highest count, and the count and malloc's arena at the sample
 * with the highest RSS.  Benchmark helper, not built by make:
 *
 *   cc -O2 -shared -fPIC -o malloc_peak.so tools/bench/malloc_peak.c
 *   LD_PRELOAD=./malloc_peak.so LD_LIBRARY_PATH=MODDIR svnadmin dump ...
 *
 * Single-threaded processes only (the counters are plain longs).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

/* glibc's own entry points, under the names it exports them by. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void __libc_free(void *ptr);

static long live, peak, calls;
static long rss_peak_kb, live_at_rss_peak, arena_at_rss_peak;

/* VmRSS in kB from /proc/self/statm (resident pages, second field). */
static long
rss_kb(void)
{
  char buf[128];
  long size = 0, resident = 0;
  int fd = open("/proc/self/statm", O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

  if (fd >= 0)
    close(fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  sscanf(buf, "%ld %ld", &size, &resident);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Count DELTA bytes more (or fewer) in use; sample the RSS now and then
   (reading /proc on every call would dominate the run). */
static void
account(long delta)
{
  live += delta;
  if (live > peak)
    peak = live;
  if (++calls % 200 == 0)
    {
      long rss = rss_kb();

      if (rss > rss_peak_kb)
        {
          rss_peak_kb = rss;
          live_at_rss_peak = live;
          arena_at_rss_peak = (long)mallinfo2().arena;
        }
    }
}

void *
malloc(size_t size)
{
  void *p = __libc_malloc(size);

  if (p)
    account((long)malloc_usable_size(p));
  return p;
}

void *
calloc(size_t count, size_t size)
{
  void *p = __libc_calloc(count, size);

  if (p)
    account((long)malloc_usable_size(p));
  return p;
}

void *
realloc(void *ptr, size_t size)
{
  long before = ptr ? (long)malloc_usable_size(ptr) : 0;
  void *p = __libc_realloc(ptr, size);

  if (p)
    account((long)malloc_usable_size(p) - before);
  else if (size == 0)
    account(-before);           /* realloc(p, 0) freed P */
  return p;
}

void
free(void *ptr)
{
  if (ptr)
    account(-(long)malloc_usable_size(ptr));
  __libc_free(ptr);
}

__attribute__((destructor)) static void
report(void)
{
  fprintf(stderr, "malloc_peak: most in use %ld kB; at the RSS peak "
          "(%ld kB) %ld kB in use, arena %ld kB\n", peak / 1024,
          rss_peak_kb, live_at_rss_peak / 1024, arena_at_rss_peak / 1024);
}
