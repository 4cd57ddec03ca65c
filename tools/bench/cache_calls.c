/* cache_calls.c -- LD_PRELOAD helper for tools/bench/cache_calls.py: how
 * often does each call site ask the membuffer, and how often is it
 * answered?  Wraps libsvn_subr's svn_cache__get, svn_cache__get_partial
 * and svn_cache__set, counts calls and hits per (operation, return
 * address), and at exit writes one line per site to $CACHE_CALLS_OUT:
 *
 *   get|getp|set CALLS HITS FILE OFFSET
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

#define MAX_SITES 256

typedef struct site_t
{
  const char *op;
  void *ret;
  unsigned long calls, hits;
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

  if (!real)
    real = (set_fn)dlsym(RTLD_NEXT, "svn_cache__set");
  site_of("set", __builtin_return_address(0))->calls++;
  return real(cache, key, value, pool);
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
        fprintf(out, "%s %lu %lu %s %#lx\n", sites[i].op, sites[i].calls,
                sites[i].hits, info.dli_fname,
                (unsigned long)((char *)sites[i].ret
                                - (char *)info.dli_fbase));
    }
  fclose(out);
}
