/* cache_calls.c -- LD_PRELOAD helper for tools/bench/cache_calls.py: how
 * often does each call site ask the membuffer, and how often is it
 * answered?  Wraps libsvn_subr's svn_cache__get, svn_cache__get_partial
 * and svn_cache__set, counts calls and hits per (operation, return
 * address), and at exit writes one line per site to $CACHE_CALLS_OUT:
 *
 *   get|getp|set CALLS HITS FILE OFFSET BYTES
 *
 * BYTES is what the stores of a set site added to the membuffer's data
 * (its used bytes after the store minus before, from svn_cache__get_info;
 * a store that evicts adds less), with CACHE_CALLS_BYTES=1 only, since
 * asking walks every segment of the membuffer; 0 otherwise.
 *
 * FILE and OFFSET name the calling object and the return address within
 * it, for addr2line.  Benchmark helper, not built by make:
 *
 *   cc -O2 -shared -fPIC -o cache_calls.so tools/bench/cache_calls.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int svn_flag_t;   /* svn_boolean_t */
typedef void *(*get_fn)(void **, svn_flag_t *, void *, const void *, void *);
typedef void *(*get_partial_fn)(void **, svn_flag_t *, void *, const void *,
                                void *, void *, void *);
typedef void *(*set_fn)(void *, const void *, void *, void *);

/* libsvn_subr's svn_cache__info_t (private/svn_cache.h, 1.14). */
typedef struct cache_info_t
{
  const char *id;
  unsigned long long gets, hits, sets, failures, used_size, data_size;
  unsigned long long total_size, used_entries, total_entries;
  unsigned long long histogram[32];
} cache_info_t;
typedef void *(*info_fn)(void *, cache_info_t *, svn_flag_t, void *);

#define MAX_SITES 256

typedef struct site_t
{
  const char *op;
  void *ret;
  unsigned long calls, hits;
  long long bytes;
} site_t;

static site_t sites[MAX_SITES];
static int n_sites;

/* The counters of OP called from RET; single-threaded callers only (the
   benchmarks here run svnadmin, svnbench and svn). */
static site_t *
site_of(const char *op, void *ret)
{
  int i;

  for (i = 0; i < n_sites; i++)
    if (sites[i].ret == ret && sites[i].op == op)
      return &sites[i];
  if (n_sites == MAX_SITES)
    return &sites[MAX_SITES - 1];
  sites[n_sites].op = op;
  sites[n_sites].ret = ret;
  return &sites[n_sites++];
}

void *
svn_cache__get(void **value, svn_flag_t *found, void *cache, const void *key,
               void *pool)
{
  static get_fn real;
  void *err;
  site_t *s;

  if (!real)
    real = (get_fn)dlsym(RTLD_NEXT, "svn_cache__get");
  err = real(value, found, cache, key, pool);
  s = site_of("get", __builtin_return_address(0));
  s->calls++;
  s->hits += !err && *found;
  return err;
}

void *
svn_cache__get_partial(void **value, svn_flag_t *found, void *cache,
                       const void *key, void *func, void *baton, void *pool)
{
  static get_partial_fn real;
  void *err;
  site_t *s;

  if (!real)
    real = (get_partial_fn)dlsym(RTLD_NEXT, "svn_cache__get_partial");
  err = real(value, found, cache, key, func, baton, pool);
  s = site_of("getp", __builtin_return_address(0));
  s->calls++;
  s->hits += !err && *found;
  return err;
}

void *
svn_cache__set(void *cache, const void *key, void *value, void *pool)
{
  static set_fn real;
  static info_fn info;
  static int measure = -1;
  site_t *s = site_of("set", __builtin_return_address(0));
  cache_info_t before, after;
  void *err;

  if (!real)
    real = (set_fn)dlsym(RTLD_NEXT, "svn_cache__set");
  if (measure < 0)
    {
      const char *env = getenv("CACHE_CALLS_BYTES");

      info = (info_fn)dlsym(RTLD_NEXT, "svn_cache__get_info");
      measure = info && env && *env == '1';
    }
  s->calls++;
  if (!measure || info(cache, &before, 0, pool))
    return real(cache, key, value, pool);
  err = real(cache, key, value, pool);
  if (!info(cache, &after, 0, pool))
    s->bytes += (long long)after.used_size - (long long)before.used_size;
  return err;
}

__attribute__((destructor)) static void
report(void)
{
  const char *path = getenv("CACHE_CALLS_OUT");
  FILE *out = path ? fopen(path, "w") : NULL;
  int i;

  if (!out)
    return;
  for (i = 0; i < n_sites; i++)
    {
      Dl_info info;

      if (dladdr(sites[i].ret, &info) && info.dli_fname)
        fprintf(out, "%s %lu %lu %s %#lx %lld\n", sites[i].op,
                sites[i].calls, sites[i].hits, info.dli_fname,
                (unsigned long)((char *)sites[i].ret
                                - (char *)info.dli_fbase), sites[i].bytes);
    }
  fclose(out);
}
