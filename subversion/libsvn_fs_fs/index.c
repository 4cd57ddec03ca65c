/* index.c --- placeholder: every function fails with SVN_ERR_UNSUPPORTED_FEATURE
   until its layer implements it. */
#include "corrupt.h"
#include "index.h"

svn_error_t *
svn_fs_fs__item_offset(apr_off_t *absolute_position, svn_fs_t *fs,
                       svn_fs_fs__revfile_t *rev_file, svn_revnum_t revision,
                       apr_uint64_t item_index, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__item_offset");
}

svn_error_t *
svn_fs_fs__rev_trailer(apr_off_t *root_offset, apr_off_t *changes_offset,
                       svn_fs_t *fs, svn_fs_fs__revfile_t *rev_file,
                       svn_revnum_t revision, apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rev_trailer");
}

svn_error_t *
svn_fs_fs__rev_bounds(apr_off_t *start, apr_off_t *end, svn_fs_t *fs,
                      svn_fs_fs__revfile_t *rev_file, svn_revnum_t revision,
                      apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__rev_bounds");
}

svn_error_t *
svn_fs_fs__p2l_index_lookup(apr_array_header_t **entries, svn_fs_t *fs,
                            svn_fs_fs__revfile_t *rev_file,
                            svn_revnum_t revision, apr_off_t block_start,
                            apr_off_t block_size, apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__p2l_index_lookup");
}

svn_error_t *
svn_fs_fs__p2l_entry_lookup(svn_fs_fs__p2l_entry_t **entry, svn_fs_t *fs,
                            svn_fs_fs__revfile_t *rev_file,
                            svn_revnum_t revision, apr_off_t offset,
                            apr_pool_t *result_pool,
                            apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__p2l_entry_lookup");
}

svn_error_t *
svn_fs_fs__p2l_get_max_offset(apr_off_t *offset, svn_fs_t *fs,
                              svn_fs_fs__revfile_t *rev_file,
                              svn_revnum_t revision,
                              apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__p2l_get_max_offset");
}

svn_error_t *
svn_fs_fs__verify_indexes(svn_fs_t *fs, svn_revnum_t start, svn_revnum_t end,
                          svn_cancel_func_t cancel_func, void *cancel_baton,
                          apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__verify_indexes");
}

svn_error_t *
svn_fs_fs__index_init_caches(svn_fs_t *fs, svn_membuffer_t *membuffer,
                             const char *prefix, apr_pool_t *result_pool,
                             apr_pool_t *scratch_pool)
{
  return svn_fs_fs__unsupported("svn_fs_fs__index_init_caches");
}
