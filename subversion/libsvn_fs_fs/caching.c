/* caching.c --- building the caches of one svn_fs_t (caching.h).
 *
 * Stock FSFS semantics of the fs config keys: fulltext, delta-window and
 * node-property caching are on unless the config says "0"/"no"; revprop
 * caching is always on (fsfs-cache-revprops is ignored); an explicit
 * fsfs-cache-namespace is folded into the key prefix.
 */
#include <string.h>
#include <apr_strings.h>

#include "svn_hash.h"
#include "svn_string.h"
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
