/* caching.h --- the module's use of libsvn_subr's cache layer (cache layer).
 *
 * All caches live in the process-wide membuffer (sized by svnserve -M,
 * svnadmin -M, the client's memory-cache-size).  Each layer creates the
 * caches for its own values (svn_fs_fs__*_init_caches) because it owns
 * their serialisers; this file decides whether caching is on, picks the
 * membuffer and a key prefix unique to the repository, and calls them.
 *
 * Keys of (revision, number) pairs use svn_fs_fs__pair_cache_key_t.
 */
#ifndef FSFS7_CACHING_H
#define FSFS7_CACHING_H

#include "fsfs7.h"

typedef struct svn_fs_fs__pair_cache_key_t
{
  svn_revnum_t revision;
  apr_int64_t second;
} svn_fs_fs__pair_cache_key_t;

/* Set up all caches of FS (called once the private data is filled in). */
svn_error_t *
svn_fs_fs__init_caches(svn_fs_t *fs, apr_pool_t *scratch_pool);

/* Whether FS's config asks for (or allows) the optional caches. */
svn_boolean_t
svn_fs_fs__cache_fulltexts_enabled(svn_fs_t *fs);
svn_boolean_t
svn_fs_fs__cache_deltas_enabled(svn_fs_t *fs);
svn_boolean_t
svn_fs_fs__cache_nodeprops_enabled(svn_fs_t *fs);

/* Create a membuffer cache in MEMBUFFER with key length KLEN and the
   given serialiser pair; *CACHE is left NULL when MEMBUFFER is NULL.
   NAME is appended to PREFIX to make the cache's key space. */
svn_error_t *
svn_fs_fs__make_cache(svn_cache__t **cache, svn_membuffer_t *membuffer,
                      svn_cache__serialize_func_t serialize,
                      svn_cache__deserialize_func_t deserialize,
                      apr_ssize_t klen, const char *prefix, const char *name,
                      apr_uint32_t priority, apr_pool_t *result_pool,
                      apr_pool_t *scratch_pool);

#endif
