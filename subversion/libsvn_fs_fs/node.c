/* node.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "node.h"

svn_error_t *
svn_fs_fs__get_noderev(svn_fs_fs__noderev_t **noderev, svn_fs_t *fs,
                       const svn_fs_fs__id_t *id, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__get_noderev");
}

svn_error_t *
svn_fs_fs__rev_root_id(const svn_fs_fs__id_t **root_id, svn_fs_t *fs,
                       svn_revnum_t rev, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rev_root_id");
}

svn_error_t *
svn_fs_fs__dir_entries(apr_array_header_t **entries, svn_fs_t *fs,
                       const svn_fs_fs__noderev_t *noderev,
                       apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__dir_entries");
}

svn_error_t *
svn_fs_fs__dir_entry(svn_fs_dirent_t **dirent, svn_fs_t *fs,
                     const svn_fs_fs__noderev_t *noderev, const char *name,
                     apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__dir_entry");
}

svn_error_t *
svn_fs_fs__node_proplist(apr_hash_t **props, svn_fs_t *fs,
                         const svn_fs_fs__noderev_t *noderev,
                         apr_pool_t *result_pool, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__node_proplist");
}

svn_error_t *
svn_fs_fs__rev_changes_block(apr_array_header_t **changes,
                             svn_boolean_t *done, svn_fs_t *fs,
                             svn_revnum_t rev, apr_size_t first,
                             apr_size_t max_count, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rev_changes_block");
}

svn_error_t *
svn_fs_fs__rev_changes(apr_array_header_t **changes, svn_fs_t *fs,
                       svn_revnum_t rev, apr_pool_t *result_pool,
                       apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rev_changes");
}

svn_error_t *
svn_fs_fs__nodes_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                             const char *prefix, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__nodes_init_caches");
}
