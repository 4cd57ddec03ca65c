/* caching.c --- building the caches of one svn_fs_t (caching.h).
 *
 * Stock FSFS semantics of the fs config keys: fulltext, delta-window and
 * node-property caching are on unless the config says "0"/"no"; revprop
 * caching is always on (fsfs-cache-revprops is ignored); an explicit
 * fsfs-cache-namespace is folded into the key prefix.
 *
 * Two membuffers: the process's (libsvn_subr's, sized by -M and its
 * kin) and, when that one is larger than SHORT_TERM_BYTES, a short-term
 * one of that size, made here once per process (caching.h).  A large
 * process membuffer is asked for (and so made) only once the process
 * has stored LONG_TERM_PROMOTE long-term values: until then every value
 * goes to the short-term one (svn_fs_fs__cache_membuffer), after that
 * every value but revprops to the large one.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_cache_config.h"
#include "svn_hash.h"
#include "svn_pools.h"
#include "svn_string.h"
#include "private/svn_atomic.h"
#include "private/svn_cache.h"

#include "caching.h"

/* Value of the boolean config KEY of FS, DEFAULT_VALUE when unset. */
static svn_boolean_t
config_flag(svn_fs_t *fs, const char *key, svn_boolean_t default_value)
{
  const char *value = fs->config ? svn_hash_gets(fs->config, key) : NULL;

  if (value == NULL)
    return default_value;
  return !(strcmp(value, "0") == 0 || svn_cstring_casecmp(value, "no") == 0
           || svn_cstring_casecmp(value, "false") == 0
           || svn_cstring_casecmp(value, "off") == 0);
}

svn_boolean_t
svn_fs_fs__cache_fulltexts_enabled(svn_fs_t *fs)
{
  return config_flag(fs, SVN_FS_CONFIG_FSFS_CACHE_FULLTEXTS, TRUE);
}

svn_boolean_t
svn_fs_fs__cache_deltas_enabled(svn_fs_t *fs)
{
  return config_flag(fs, SVN_FS_CONFIG_FSFS_CACHE_DELTAS, TRUE);
}

svn_boolean_t
svn_fs_fs__cache_nodeprops_enabled(svn_fs_t *fs)
{
  return config_flag(fs, SVN_FS_CONFIG_FSFS_CACHE_NODEPROPS, TRUE);
}

/* Size of the short-term membuffer: libsvn_subr's default cache size.
   The values stored at once because they are likely read again soon
   (caching.h) need no more: 'svnadmin dump' of a long history gets its
   hits from that much, and in a larger membuffer every store lands on
   pages the process has not touched yet -- the value's bytes and, for
   each new group of the membuffer's directory a key hashes to, 16 kB of
   the directory, which is a fifth of the membuffer.  'svnadmin dump -M
   1024 -r0:2000' of a ChangeLog-style history stored 63 MB that way,
   peaked at 170 MB instead of 26 and took 1.7x the CPU of the default
   cache; stock fills its gigabyte too but rebuilds texts slowly enough
   to gain from it. */
#define SHORT_TERM_BYTES (16 * 1024 * 1024)

/* The short-term membuffer (NULL: use the process's) and its once. */
static svn_membuffer_t *short_term;
static volatile svn_atomic_t short_term_once = 0;

apr_uint64_t
svn_fs_fs__short_term_bytes(apr_uint64_t configured)
{
  return configured > SHORT_TERM_BYTES ? SHORT_TERM_BYTES : 0;
}

/* svn_atomic__err_init_func_t: make SHORT_TERM when the configured
   cache is larger than it would be.  Its memory, like libsvn_subr's
   membuffer, lives in a root pool of its own until the process ends; a
   failure to allocate it leaves the short-term values in the process's
   membuffer, as with a small cache. */
static svn_error_t *
make_short_term(void *baton, apr_pool_t *scratch_pool)
{
  const svn_cache_config_t *config = svn_cache_config_get();
  apr_uint64_t size = svn_fs_fs__short_term_bytes(config->cache_size);
  apr_allocator_t *allocator;
  apr_pool_t *pool = NULL;
  svn_error_t *err;

  if (size == 0 || apr_allocator_create(&allocator) != APR_SUCCESS)
    return SVN_NO_ERROR;
  apr_allocator_max_free_set(allocator, 1);
  apr_pool_create_ex(&pool, NULL, NULL, allocator);
  if (pool == NULL)
    {
      apr_allocator_destroy(allocator);
      return SVN_NO_ERROR;
    }
  apr_allocator_owner_set(allocator, pool);
  err = svn_cache__membuffer_cache_create(&short_term, (apr_size_t)size,
                                          (apr_size_t)(size / 5), 0,
                                          !config->single_threaded, FALSE,
                                          pool);
  if (err)
    {
      short_term = NULL;
      svn_error_clear(err);
      svn_pool_destroy(pool);
    }
  return SVN_NO_ERROR;
}

svn_membuffer_t *
svn_fs_fs__short_term_membuffer(svn_membuffer_t *membuffer,
                                apr_pool_t *scratch_pool)
{
  if (membuffer == NULL || svn_fs_fs__large_membuffer_live())
    return membuffer;
  svn_error_clear(svn_atomic__init_once(&short_term_once, make_short_term,
                                        NULL, scratch_pool));
  return short_term ? short_term : membuffer;
}

svn_membuffer_t *
svn_fs_fs__own_keys_membuffer(apr_pool_t *scratch_pool)
{
  const svn_cache_config_t *config = svn_cache_config_get();

  if (svn_fs_fs__short_term_bytes(config->cache_size) != 0)
    {
      svn_error_clear(svn_atomic__init_once(&short_term_once,
                                            make_short_term, NULL,
                                            scratch_pool));
      if (short_term)
        return short_term;
    }
  return svn_fs_fs__cache_membuffer(scratch_pool);
}

/* Long-term values stored before a repository opened afterwards gets the
   large membuffer.  Making a 1 GB membuffer costs ~190 page faults in
   libsvn_subr alone (the zeroed table of its key prefixes, a hundredth
   of its size in entries of 8 bytes per 120 bytes), ~5 ms on these
   VMs, and every first store into one of its directory's groups touches
   16 kB more; 'svn export' of an 800-revision repository stores ~35
   long-term values in all, a server thousands within its first
   requests. */
#define LONG_TERM_PROMOTE 256

/* Long-term values stored by this process, counted up to
   LONG_TERM_PROMOTE. */
static volatile svn_atomic_t long_term_stores = 0;

void
svn_fs_fs__note_long_term_store(void)
{
  if (svn_atomic_read(&long_term_stores) < LONG_TERM_PROMOTE)
    svn_atomic_inc(&long_term_stores);
}

svn_boolean_t
svn_fs_fs__large_membuffer_live(void)
{
  return svn_atomic_read(&long_term_stores) >= LONG_TERM_PROMOTE;
}

apr_uint64_t
svn_fs_fs__membuffer_bytes(svn_membuffer_t *membuffer)
{
  if (membuffer == NULL)
    return 0;
  if (membuffer == short_term)
    return SHORT_TERM_BYTES;
  return svn_cache_config_get()->cache_size;
}

apr_uint64_t
svn_fs_fs__cache_bytes(svn_fs_t *fs)
{
  apr_uint64_t bytes = SVN_FS_FS__DATA(fs)->cache_bytes;

  return bytes ? bytes : svn_cache_config_get()->cache_size;
}

svn_membuffer_t *
svn_fs_fs__cache_membuffer(apr_pool_t *scratch_pool)
{
  const svn_cache_config_t *config = svn_cache_config_get();

  if (svn_fs_fs__short_term_bytes(config->cache_size) != 0
      && !svn_fs_fs__large_membuffer_live())
    {
      svn_error_clear(svn_atomic__init_once(&short_term_once,
                                            make_short_term, NULL,
                                            scratch_pool));
      if (short_term)
        return short_term;
    }
  return svn_cache__get_global_membuffer_cache();
}

svn_error_t *
svn_fs_fs__make_cache(svn_cache__t **cache, svn_membuffer_t *membuffer,
                      svn_cache__serialize_func_t serialize,
                      svn_cache__deserialize_func_t deserialize,
                      apr_ssize_t klen, const char *prefix, const char *name,
                      apr_uint32_t priority, apr_pool_t *result_pool,
                      apr_pool_t *scratch_pool)
{
  *cache = NULL;
  if (membuffer == NULL)
    return SVN_NO_ERROR;
  return svn_error_trace(svn_cache__create_membuffer_cache(
           cache, membuffer, serialize, deserialize, klen,
           apr_pstrcat(scratch_pool, prefix, name, SVN_VA_NULL), priority,
           TRUE /* thread-safe: svnserve/mod_dav_svn share it */,
           FALSE, result_pool, scratch_pool));
}

svn_fs_fs__pair_cache_key_t
svn_fs_fs__pair_cache_key(svn_revnum_t revision, apr_int64_t second)
{
  svn_fs_fs__pair_cache_key_t key;

  memset(&key, 0, sizeof(key));
  key.revision = revision;
  key.second = second;
  return key;
}

/* The instance id changes on hotcopy, load into a fresh repository and
   upgrade, so stale entries of an older incarnation at the same path are
   never hit; the path tells apart copies that share uuid and instance id
   (caching.h).  Format 6 has no instance id: the path alone then. */
const char *
svn_fs_fs__cache_prefix(svn_fs_t *fs, const char *repo_path,
                        apr_pool_t *result_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  const char *ns = fs->config
                 ? svn_hash_gets(fs->config, SVN_FS_CONFIG_FSFS_CACHE_NS)
                 : NULL;

  return apr_pstrcat(result_pool, "fsfs7:", fs->uuid ? fs->uuid : "",
                     "/", ffd->instance_id ? ffd->instance_id : "",
                     "/", ns ? ns : "", ":", repo_path, ":", SVN_VA_NULL);
}
