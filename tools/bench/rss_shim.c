/* rss_shim.c -- LD_PRELOAD helper for tools/bench/rss_peak.py: where is a
 * process's peak RSS?  Logs to $MSHIM_OUT, one line per event: anonymous
 * mmaps/munmaps (APR maps its pool blocks one by one) and mallocs of
 * 16 kB or more with their return-address stacks, APR allocators, pool
 * creations with stacks, and which pool last allocated from each mapped
 * block (apr_palloc), so that rss_peak.py can name the owner of each
 * resident block.  Benchmark helper, not built by make:
 *
 *   cc -O2 -shared -fPIC -I/usr/include/apr-1.0 -o rss_shim.so \
 *      tools/bench/rss_shim.c -ldl
 *
 * Its page table adds ~24 MB of its own to the process: compare the
 * attributed totals rss_peak.py prints, not VmHWM.
 */
/* LD_PRELOAD: log anonymous mmaps/munmaps and large mallocs with stacks to
   fd $MSHIM_FD (a file), one record per line, written unbuffered. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>

extern void *__libc_malloc(size_t); extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t); extern void *__libc_calloc(size_t, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static int fd = -2;
static __thread int busy;
#include <apr_allocator.h>
static apr_allocator_t *allocs[64]; static int nallocs;
#define BIG 16384
#define NS (1<<16)
static void *bigset[NS];
static void set_add(void *p){unsigned long h=((unsigned long)p>>4)*11400714819323198485ul>>48; while(bigset[h]&&bigset[h]!=(void*)1)h=(h+1)&(NS-1); bigset[h]=p;}
static int set_del(void *p){unsigned long h=((unsigned long)p>>4)*11400714819323198485ul>>48; while(bigset[h]){if(bigset[h]==p){bigset[h]=(void*)1;return 1;}h=(h+1)&(NS-1);} return 0;}

static void init(void) {
  if (fd != -2) return;
  fd = -1;
  real_mmap = dlsym(RTLD_NEXT, "mmap");
  real_munmap = dlsym(RTLD_NEXT, "munmap");
  real_mremap = dlsym(RTLD_NEXT, "mremap");
  const char *p = getenv("MSHIM_OUT");
  if (p) { void *bt[2]; busy = 1; backtrace(bt, 2); busy = 0; fd = open(p, O_WRONLY|O_CREAT|O_TRUNC|O_APPEND, 0644); }
}
static void note_region(void *addr, size_t len, int add);
static void rec(char kind, void *addr, size_t len) {
  char buf[1024]; int n; void *bt[24]; int d, i;
  if (fd < 0) return;
  n = snprintf(buf, sizeof buf, "%c %lx %lx", kind, (unsigned long)addr, (unsigned long)len);
  if (kind == 'M' || kind == 'A' || kind == 'P') {
    busy++; d = backtrace(bt, 24); busy--;
    for (i = 2; i < d && n < 1000; i++) n += snprintf(buf + n, sizeof buf - n, " %lx", (unsigned long)bt[i]);
  }
  buf[n++] = '\n';
  write(fd, buf, n);
}
void *mmap(void *a, size_t l, int p, int f, int fdd, off_t o) {
  init(); void *r = real_mmap(a, l, p, f, fdd, o);
  if (r != MAP_FAILED && (f & MAP_ANONYMOUS) && !busy) { rec('M', r, l); note_region(r, l, 1); }
  return r;
}
void *mmap64(void *a, size_t l, int p, int f, int fdd, off_t o) { return mmap(a, l, p, f, fdd, o); }
int munmap(void *a, size_t l) { init(); if (!busy) { rec('U', a, l); note_region(a, l, 0); } return real_munmap(a, l); }
void *malloc(size_t s) { void *r = __libc_malloc(s); if (s >= BIG && !busy) { init(); if (fd>=0){set_add(r); rec('A', r, s);} } return r; }
void *calloc(size_t n, size_t s) { void *r = __libc_calloc(n, s); if (n * s >= BIG && !busy) { init(); if(fd>=0){set_add(r); rec('A', r, n * s);} } return r; }
void free(void *p) { if (p && !busy && fd >= 0 && set_del(p)) rec('F', p, 0); __libc_free(p); }
void *realloc(void *p, size_t s) { void *r = __libc_realloc(p, s);
  if (!busy && fd >= 0) { if (p && set_del(p)) rec('F', p, 0); if (s >= BIG) {set_add(r); rec('A', r, s);} } return r; }
#include <apr_allocator.h>
apr_status_t apr_allocator_create(apr_allocator_t **a) {
  static apr_status_t (*real)(apr_allocator_t **);
  if (!real) real = dlsym(RTLD_NEXT, "apr_allocator_create");
  apr_status_t s = real(a);
  init();
  if (!s && fd >= 0) { char buf[64]; int n = snprintf(buf, sizeof buf, "C %lx 0\n", (unsigned long)*a); write(fd, buf, n);
    if (nallocs < 64) allocs[nallocs++] = *a; }
  return s;
}
void apr_allocator_destroy(apr_allocator_t *a) {
  static void (*real)(apr_allocator_t *);
  int i;
  if (!real) real = dlsym(RTLD_NEXT, "apr_allocator_destroy");
  for (i = 0; i < nallocs; i++) if (allocs[i] == a) allocs[i] = NULL;
  real(a);
}
__attribute__((constructor)) static void setup(void) { init(); if (fd >= 0) write(fd, "I 0 0\n", 6); }
/* ownership: page -> region start (for live anon mmaps); region -> last pool */
#define NPG (1<<20)
static unsigned long pg_key[NPG]; static unsigned long pg_reg[NPG]; static void *pg_pool[NPG];
static unsigned long ph(unsigned long k) { return (k * 11400714819323198485ul) >> 44; }
static void pg_set(unsigned long page, unsigned long reg) {
  unsigned long h = ph(page);
  while (pg_key[h] && pg_key[h] != page && pg_key[h] != 1) h = (h + 1) & (NPG - 1);
  pg_key[h] = page; pg_reg[h] = reg; pg_pool[h] = NULL;
}
static long pg_find(unsigned long page) {
  unsigned long h = ph(page);
  while (pg_key[h]) { if (pg_key[h] == page) return h; h = (h + 1) & (NPG - 1); }
  return -1;
}
static void note_region(void *addr, size_t len, int add) {
  unsigned long p;
  for (p = (unsigned long)addr >> 12; p < ((unsigned long)addr + len + 4095) >> 12; p++) {
    if (add) pg_set(p, (unsigned long)addr);
    else { long h = pg_find(p); if (h >= 0) pg_key[h] = 1; }
  }
}
static void owner(void *ptr, void *pool) {
  long h = pg_find((unsigned long)ptr >> 12); unsigned long reg; char buf[64]; int n;
  if (h < 0 || pg_pool[h] == pool) return;
  reg = pg_reg[h];
  { unsigned long p; for (p = reg >> 12; ; p++) { long g = pg_find(p); if (g < 0 || pg_reg[g] != reg) break; pg_pool[g] = pool; } }
  n = snprintf(buf, sizeof buf, "O %lx %lx\n", reg, (unsigned long)pool); write(fd, buf, n);
}
void *apr_palloc(apr_pool_t *p, apr_size_t s) {
  static void *(*real)(apr_pool_t *, apr_size_t);
  if (!real) real = dlsym(RTLD_NEXT, "apr_palloc");
  void *r = real(p, s);
  if (fd >= 0 && !busy) owner(r, p);
  return r;
}
apr_status_t apr_pool_create_ex(apr_pool_t **np, apr_pool_t *parent, apr_abortfunc_t a, apr_allocator_t *al) {
  static apr_status_t (*real)(apr_pool_t **, apr_pool_t *, apr_abortfunc_t, apr_allocator_t *);
  if (!real) real = dlsym(RTLD_NEXT, "apr_pool_create_ex");
  apr_status_t s = real(np, parent, a, al);
  if (!s && fd >= 0 && !busy) { rec('P', *np, (size_t)parent); owner(*np, *np); }
  return s;
}
