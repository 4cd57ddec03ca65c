/* caching.c --- choosing and wiring the caches of one svn_fs_t (caching.h).
 *
 * Stock FSFS semantics of the fs config keys: fulltext, delta-window and
 * node-property caching are on unless the config says "0"/"no"; revprop
 * caching is always on (fsfs-cache-revprops is ignored); an explicit
 * fsfs-cache-namespace is folded into the key prefix.
 */
#include <apr_strings.h>

#include "svn_hash.h"
#include "svn_string.h"
#include "private/svn_cache.h"

#include "caching.h"
#include "index.h"
#include "node.h"
#include "rep_read.h"

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

/* The key prefix: "fsfs7:<uuid>/<instance>/<namespace>:".  The instance
   id changes on hotcopy/restore, so stale entries of an older incarnation
   of the same repository can never be hit. */
static const char *
make_prefix(svn_fs_t *fs, apr_pool_t *result_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  const char *ns = fs->config
                 ? svn_hash_gets(fs->config, SVN_FS_CONFIG_FSFS_CACHE_NS)
                 : NULL;

  return apr_pstrcat(result_pool, "fsfs7:", fs->uuid ? fs->uuid : "",
                     "/", ffd->instance_id ? ffd->instance_id : fs->path,
                     "/", ns ? ns : "", ":", SVN_VA_NULL);
}

svn_error_t *
svn_fs_fs__init_caches(svn_fs_t *fs, apr_pool_t *scratch_pool)
{
  svn_fs_fs__data_t *ffd = SVN_FS_FS__DATA(fs);
  svn_membuffer_t *membuffer = svn_cache__get_global_membuffer_cache();

  ffd->cache_prefix = make_prefix(fs, fs->pool);
  SVN_ERR(svn_fs_fs__index_init_caches(fs, membuffer, ffd->cache_prefix,
                                       fs->pool, scratch_pool));
  SVN_ERR(svn_fs_fs__nodes_init_caches(fs, membuffer, ffd->cache_prefix,
                                       fs->pool, scratch_pool));
  SVN_ERR(svn_fs_fs__reps_init_caches(fs, membuffer, ffd->cache_prefix,
                                      fs->pool, scratch_pool));
  return SVN_NO_ERROR;
}
